// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * librspreload.so: the sockets of an unmodified program on rsockets, as
 * librdmacm's preload library does when LD_PRELOAD names it (rsocket(7)).
 *
 * socket() tries an rsocket of what was asked (rcm's rsocket() refuses
 * what it cannot make, and the program then keeps the kernel's socket,
 * as librdmacm's preload falls back); the program is given a descriptor
 * of its own, an ordinary socket of the same domain and type kept open
 * only to hold the number (so fstat() says it is a socket), and every
 * call this library intercepts on that number goes to the rsocket.
 * Other descriptors pass through untouched; so does every call made from
 * inside the rsocket calls themselves (the library's own channels and
 * completion queues), which a per-thread flag tells apart. A connect()
 * the rsocket cannot make goes to the kernel's TCP on the same number.
 *
 * dup(), dup2(), dup3() and fcntl(F_DUPFD*) of an rsocket give a second
 * number of the same rsocket, closed when its last number is.
 *
 * fork(), as librdmacm 44 supports it (RDMAV_FORK_SAFE=1 on both sides):
 * a stream socket starts as the kernel's TCP socket; one accepted from a
 * listener of those, or connected, moves to an rsocket at its first data
 * call, in the process that makes it (the child of a forking server):
 * the passive side listens on an rsocket of the same address and port
 * (one process of the machine at a time, the "/rsocket_fork"
 * semaphore), then writes a 32-bit 0 on the TCP connection; the active
 * side, having seen that 0 (peeked, not read), connects an rsocket to
 * its peer's address and port. The TCP connection is then shut down. If
 * the first thing the passive side sends is not that 0, both stay on
 * TCP.
 *
 * Also as librdmacm's: RS_SQ_SIZE, RS_RQ_SIZE and RS_INLINE set those
 * options of every rsocket socket() makes, and the file
 * /etc/rdma/rsocket/preload_config, when it names anything, limits
 * which programs' sockets become rsockets ("program domain type
 * protocol" per line, '*' for any, program a prefix of the name).
 *
 * Locking: the table of descriptors (fd_map) and the count of numbers
 * of each rsocket (rs_refs) are written under map_lock; a lookup reads
 * one int. A move after fork holds fork_lock.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <rdma/rsocket.h>

#define EXPORT __attribute__((visibility("default")))

#define PRELOAD_CONFIG	"/etc/rdma/rsocket/preload_config"
#define FORK_SEM	"/rsocket_fork"

/* glibc's: what a fortified call does when the buffer is too small. */
extern void __chk_fail(void) __attribute__((noreturn));
/* glibc's fortified entry points, which this library also provides. */
ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen,
		       int flags, struct sockaddr *from, socklen_t *fromlen);
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);

/* The libc calls this library stands in front of. */
static struct {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *,
			    socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int,
			  const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*shutdown)(int, int);
	int (*close)(int);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
	int (*fcntl)(int, int, ...);
	int (*fcntl64)(int, int, ...);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	ssize_t (*sendfile)(int, int, off_t *, size_t);
} real;

/*
 * fd_map[fd]: what descriptor fd is. Above 0, the number of an rsocket
 * plus one; 0, a descriptor of the program's own; below 0, a kernel TCP
 * socket of the fork support, in one of these states.
 */
enum {
	FD_FORK		= -1,	/* made by socket() */
	FD_FORK_LISTEN	= -2,	/* listening: what it accepts moves */
	FD_FORK_ACTIVE	= -3,	/* connected: moves at its first data call */
	FD_FORK_PASSIVE	= -4,	/* accepted: moves at its first data call */
};

/* A line of preload_config; 0 in a field for any. */
struct config_entry {
	char	*prog;		/* NULL for any */
	int	domain;
	int	type;
	int	protocol;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static int *fd_map;
static int *rs_refs;	/* rs_refs[rs]: how many numbers rsocket rs has */
static int fd_map_size;
static int sq_size, rq_size, sq_inline, fork_support;
static struct config_entry *config;
static int config_cnt;
/* Set while this thread is inside an rsocket call: its calls pass. */
static __thread bool in_rsocket;

#define REAL(name) (real.name = dlsym(RTLD_NEXT, #name))

static int env_int(const char *name)
{
	const char *s = getenv(name);

	return s ? atoi(s) : 0;
}

/*
 * A preload_config word: the value of the name it is in @names (with or
 * without @prefix, or "PF_" for "AF_"), 0 for '*', -1 for none.
 */
static int config_word(const char *word, const char *prefix,
		       const char *const names[], const int values[])
{
	size_t n = strlen(prefix);
	int i;

	if (!strcmp(word, "*"))
		return 0;
	if (!strncasecmp(word, prefix, n) ||
	    (!strcmp(prefix, "AF_") && !strncasecmp(word, "PF_", n)))
		word += n;
	for (i = 0; names[i]; i++)
		if (!strcasecmp(word, names[i]))
			return values[i];
	return -1;
}

static void scan_config(void)
{
	static const char *const domains[] = { "INET", "INET6", "IB", NULL };
	static const int domain_v[] = { AF_INET, AF_INET6, AF_IB };
	static const char *const types[] = { "STREAM", "DGRAM", NULL };
	static const int type_v[] = { SOCK_STREAM, SOCK_DGRAM };
	static const char *const protos[] = { "TCP", "UDP", NULL };
	static const int proto_v[] = { IPPROTO_TCP, IPPROTO_UDP };
	char line[120], prog[64], dom[16], type[16], proto[16];
	struct config_entry e, *n;
	FILE *f = fopen(PRELOAD_CONFIG, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' ||
		    sscanf(line, "%63s%15s%15s%15s", prog, dom, type, proto) != 4)
			continue;
		e.domain = config_word(dom, "AF_", domains, domain_v);
		e.type = config_word(type, "SOCK_", types, type_v);
		e.protocol = config_word(proto, "IPPROTO_", protos, proto_v);
		if (e.domain < 0 || e.type < 0 || e.protocol < 0)
			continue;
		e.prog = strcmp(prog, "*") ? strdup(prog) : NULL;
		if (strcmp(prog, "*") && !e.prog)
			continue;
		n = realloc(config, (config_cnt + 1) * sizeof(*config));
		if (!n) {
			free(e.prog);
			break;
		}
		config = n;
		config[config_cnt++] = e;
	}
	fclose(f);
}

/* Whether preload_config lets this program's socket be an rsocket. */
static bool intercepted(int domain, int type, int protocol)
{
	int i;

	if (!config_cnt)
		return true;
	if (!protocol)
		protocol = type == SOCK_STREAM ? IPPROTO_TCP :
			   type == SOCK_DGRAM ? IPPROTO_UDP : 0;
	for (i = 0; i < config_cnt; i++) {
		const struct config_entry *c = &config[i];

		if ((!c->prog || !strncasecmp(c->prog,
					      program_invocation_short_name,
					      strlen(c->prog))) &&
		    (!c->domain || c->domain == domain) &&
		    (!c->type || c->type == type) &&
		    (!c->protocol || c->protocol == protocol))
			return true;
	}
	return false;
}

static void preload_init(void)
{
	struct rlimit rl;

	REAL(socket), REAL(bind), REAL(listen), REAL(accept4);
	REAL(connect), REAL(recv), REAL(recvfrom), REAL(recvmsg), REAL(read);
	REAL(readv), REAL(send), REAL(sendto), REAL(sendmsg), REAL(write);
	REAL(writev), REAL(poll), REAL(shutdown), REAL(close);
	REAL(getpeername), REAL(getsockname), REAL(setsockopt);
	REAL(getsockopt), REAL(fcntl), REAL(fcntl64), REAL(dup), REAL(dup2);
	REAL(dup3), REAL(sendfile);
	if (!real.fcntl64)	/* a libc older than 2.28 */
		real.fcntl64 = real.fcntl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (1 << 20))
		rl.rlim_cur = 1 << 20;
	fd_map = calloc(rl.rlim_cur, sizeof(*fd_map));
	rs_refs = calloc(rl.rlim_cur, sizeof(*rs_refs));
	if (fd_map && rs_refs) {
		fd_map_size = rl.rlim_cur;
	} else {
		free(fd_map);
		free(rs_refs);
	}
	sq_size = env_int("RS_SQ_SIZE");
	rq_size = env_int("RS_RQ_SIZE");
	sq_inline = env_int("RS_INLINE");
	fork_support = env_int("RDMAV_FORK_SAFE");
	scan_config();
}

static void init(void)
{
	pthread_once(&init_once, preload_init);
}

/* What descriptor @fd is (fd_map); 0 inside the rsocket calls. */
static int fd_state(int fd)
{
	init();
	if (in_rsocket || fd < 0 || fd >= fd_map_size)
		return 0;
	return __atomic_load_n(&fd_map[fd], __ATOMIC_ACQUIRE);
}

/* The rsocket behind @fd, or -1: it is not one. */
static int rs_of(int fd)
{
	int v = fd_state(fd);

	return v > 0 ? v - 1 : -1;
}

static void fd_set_state(int fd, int v)
{
	__atomic_store_n(&fd_map[fd], v, __ATOMIC_RELEASE);
}

/* Calls into the rsocket library run with this thread's flag set. */
#define RS_CALL(expr) ({						\
	__typeof__(expr) __r;						\
	bool __was = in_rsocket;					\
	in_rsocket = true;						\
	__r = (expr);							\
	in_rsocket = __was;						\
	__r;								\
})

/* Number @fd is rsocket @rs's, one more of its numbers. */
static void fd_bind_rs(int fd, int rs)
{
	pthread_mutex_lock(&map_lock);
	fd_set_state(fd, rs + 1);
	rs_refs[rs]++;
	pthread_mutex_unlock(&map_lock);
}

/*
 * Number @fd is no longer what it was; an rsocket whose last number it
 * was is closed. Returns rclose()'s result, or 0.
 */
static int fd_release(int fd)
{
	int v, last = 0;

	pthread_mutex_lock(&map_lock);
	v = fd_map[fd];
	fd_set_state(fd, 0);
	if (v > 0)
		last = --rs_refs[v - 1] <= 0;
	if (last)
		rs_refs[v - 1] = 0;
	pthread_mutex_unlock(&map_lock);
	return last ? RS_CALL(rclose(v - 1)) : 0;
}

/* RS_SQ_SIZE, RS_RQ_SIZE and RS_INLINE, where set; defaults on failure. */
static void set_rsocket_options(int rs)
{
	if (sq_size)
		RS_CALL(rsetsockopt(rs, SOL_RDMA, RDMA_SQSIZE, &sq_size,
				    sizeof(sq_size)));
	if (rq_size)
		RS_CALL(rsetsockopt(rs, SOL_RDMA, RDMA_RQSIZE, &rq_size,
				    sizeof(rq_size)));
	if (sq_inline)
		RS_CALL(rsetsockopt(rs, SOL_RDMA, RDMA_INLINE, &sq_inline,
				    sizeof(sq_inline)));
}

/*
 * The options a socket moving between the kernel and rsockets keeps:
 * the file status flags, SO_REUSEADDR and TCP_NODELAY, from kernel
 * socket @fd to rsocket @rs (@to_rs) or the other way.
 */
static void copy_sockopts(int fd, int rs, bool to_rs)
{
	static const int opts[][2] = {
		{ SOL_SOCKET, SO_REUSEADDR }, { IPPROTO_TCP, TCP_NODELAY }
	};
	socklen_t len;
	unsigned int i;
	int v;

	if (to_rs) {
		v = real.fcntl(fd, F_GETFL);
		if (v >= 0)
			RS_CALL(rfcntl(rs, F_SETFL, v & O_NONBLOCK));
	} else {
		v = RS_CALL(rfcntl(rs, F_GETFL));
		if (v >= 0)
			real.fcntl(fd, F_SETFL, v);
	}
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		len = sizeof(v);
		if (to_rs ? real.getsockopt(fd, opts[i][0], opts[i][1], &v, &len) :
			    RS_CALL(rgetsockopt(rs, opts[i][0], opts[i][1], &v, &len)))
			continue;
		if (!v)
			continue;
		if (to_rs)
			RS_CALL(rsetsockopt(rs, opts[i][0], opts[i][1], &v, len));
		else
			real.setsockopt(fd, opts[i][0], opts[i][1], &v, len);
	}
}

/*
 * Give rsocket @rs a descriptor number of the program's: an ordinary
 * socket of @domain and @type holds it. Returns the number, or -1 with
 * errno (the rsocket is then closed).
 */
static int rs_publish(int rs, int domain, int type, int flags)
{
	int fd, err;

	fd = real.socket(domain, type | (flags & SOCK_CLOEXEC), 0);
	if (fd < 0 || fd >= fd_map_size) {
		err = fd < 0 ? errno : EMFILE;
		if (fd >= 0)
			real.close(fd);
		RS_CALL(rclose(rs));
		errno = err;
		return -1;
	}
	if (flags & SOCK_NONBLOCK)
		RS_CALL(rfcntl(rs, F_SETFL, O_NONBLOCK));
	fd_bind_rs(fd, rs);
	return fd;
}

/*
 * Kernel TCP socket @fd of the fork support is now rsocket @rs: it is
 * shut down and an ordinary socket takes its number, keeping the
 * number's close-on-exec flag.
 */
static void fork_moved(int fd, int rs)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int hold, cloexec;

	set_rsocket_options(rs);
	copy_sockopts(fd, rs, true);
	if (real.getsockname(fd, (struct sockaddr *)&ss, &len))
		ss.ss_family = AF_INET;
	cloexec = real.fcntl(fd, F_GETFD);
	real.shutdown(fd, SHUT_RDWR);
	hold = real.socket(ss.ss_family, SOCK_STREAM, 0);
	if (hold >= 0) {
		real.dup3(hold, fd, cloexec > 0 && (cloexec & FD_CLOEXEC) ?
				    O_CLOEXEC : 0);
		real.close(hold);
	}
	fd_bind_rs(fd, rs);
}

/*
 * The active side of a connection made after RDMAV_FORK_SAFE: once the
 * passive side's 0 is there (peeked: the kernel socket is shut down
 * unread), an rsocket to the same address and port. Otherwise the
 * connection stays on TCP.
 */
static void fork_active(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint32_t msg = ~0U;
	int fl, rs;
	ssize_t n;

	fl = real.fcntl(fd, F_GETFL);
	real.fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	n = real.recv(fd, &msg, sizeof(msg), MSG_PEEK | MSG_WAITALL);
	real.fcntl(fd, F_SETFL, fl);
	if (n != sizeof(msg) || msg ||
	    real.getpeername(fd, (struct sockaddr *)&ss, &len))
		goto tcp;
	rs = RS_CALL(rsocket(ss.ss_family, SOCK_STREAM, 0));
	if (rs < 0)
		goto tcp;
	if (RS_CALL(rconnect(rs, (struct sockaddr *)&ss, len))) {
		RS_CALL(rclose(rs));
		goto tcp;
	}
	fork_moved(fd, rs);
	return;
tcp:
	fd_set_state(fd, 0);
}

/*
 * The passive side: an rsocket listener on the connection's address and
 * port, one such listener on the machine at a time, then the 0 that
 * tells the peer to connect to it, then the accept. librdmacm 44's
 * listens on any address, which puts a listen on every RDMA device: an
 * iWARP device's needs the TCP port, which the server's own listener
 * holds, and rcm's listen fails with it (seen with siw beside rxe). The
 * peer connects to this address either way.
 */
static void fork_passive(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	const uint32_t msg = 0;
	int one = 1, l = -1, rs = -1;
	sem_t *sem;

	if (real.getsockname(fd, (struct sockaddr *)&ss, &len))
		goto tcp;
	if (ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_flowinfo = 0;
	l = RS_CALL(rsocket(ss.ss_family, SOCK_STREAM, 0));
	if (l < 0)
		goto tcp;
	sem = sem_open(FORK_SEM, O_CREAT | O_RDWR, S_IRWXU | S_IRWXG, 1);
	if (sem != SEM_FAILED) {
		RS_CALL(rsetsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one,
				    sizeof(one)));
		while (sem_wait(sem) && errno == EINTR)
			;
		if (!RS_CALL(rbind(l, (struct sockaddr *)&ss, len)) &&
		    !RS_CALL(rlisten(l, 1)) &&
		    real.write(fd, &msg, sizeof(msg)) == sizeof(msg))
			rs = RS_CALL(raccept(l, NULL, NULL));
		/* The port is free for the next one before it may bind. */
		RS_CALL(rclose(l));
		sem_post(sem);
		sem_close(sem);
	} else {
		RS_CALL(rclose(l));
	}
	if (rs >= 0) {
		fork_moved(fd, rs);
		return;
	}
tcp:
	fd_set_state(fd, 0);
}

/*
 * Descriptor @fd before a data call: one of the fork support's moves
 * first when it is due. Returns the rsocket behind @fd, or -1.
 */
static int rs_io(int fd)
{
	int v = fd_state(fd);

	if (v == FD_FORK_ACTIVE || v == FD_FORK_PASSIVE) {
		pthread_mutex_lock(&fork_lock);
		v = fd_state(fd);
		if (v == FD_FORK_ACTIVE)
			fork_active(fd);
		else if (v == FD_FORK_PASSIVE)
			fork_passive(fd);
		pthread_mutex_unlock(&fork_lock);
		v = fd_state(fd);
	}
	return v > 0 ? v - 1 : -1;
}

EXPORT int socket(int domain, int type, int protocol)
{
	int rs, kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC), fd;

	init();
	if (in_rsocket || !fd_map_size || !intercepted(domain, kind, protocol))
		return real.socket(domain, type, protocol);
	if (fork_support && (domain == AF_INET || domain == AF_INET6) &&
	    kind == SOCK_STREAM && (!protocol || protocol == IPPROTO_TCP)) {
		fd = real.socket(domain, type, protocol);
		if (fd >= 0 && fd < fd_map_size)
			fd_set_state(fd, FD_FORK);
		return fd;
	}
	rs = RS_CALL(rsocket(domain, kind, protocol));
	if (rs < 0)	/* not an rsocket: the kernel's, as librdmacm's */
		return real.socket(domain, type, protocol);
	set_rsocket_options(rs);
	return rs_publish(rs, domain, kind, type);
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.bind(fd, addr, len) : RS_CALL(rbind(rs, addr, len));
}

EXPORT int listen(int fd, int backlog)
{
	int rs = rs_of(fd), ret;

	if (rs >= 0)
		return RS_CALL(rlisten(rs, backlog));
	ret = real.listen(fd, backlog);
	if (!ret && fd_state(fd) == FD_FORK)
		fd_set_state(fd, FD_FORK_LISTEN);
	return ret;
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	struct sockaddr_storage self;
	socklen_t n = sizeof(self);
	int v = fd_state(fd), child;

	if (v <= 0) {
		child = real.accept4(fd, addr, len, flags);
		if (child >= 0 && child < fd_map_size && v == FD_FORK_LISTEN)
			fd_set_state(child, FD_FORK_PASSIVE);
		return child;
	}
	child = RS_CALL(raccept(v - 1, addr, len));
	if (child < 0)
		return -1;
	if (RS_CALL(rgetsockname(child, (struct sockaddr *)&self, &n)))
		self.ss_family = AF_INET;
	return rs_publish(child, self.ss_family, SOCK_STREAM, flags);
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
}

/*
 * An rsocket that cannot connect becomes the kernel socket that holds
 * its number (every number of it), as librdmacm's preload does, and
 * connects there.
 */
static void rs_to_kernel(int fd, int rs)
{
	int i;

	copy_sockopts(fd, rs, false);
	pthread_mutex_lock(&map_lock);
	if (rs_refs[rs] > 1)
		for (i = 0; i < fd_map_size; i++)
			if (fd_map[i] == rs + 1 && i != fd)
				fd_set_state(i, 0);
	rs_refs[rs] = 1;
	pthread_mutex_unlock(&map_lock);
	fd_release(fd);
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	int v = fd_state(fd), err;

	if (v > 0) {
		if (!RS_CALL(rconnect(v - 1, addr, len)))
			return 0;
		err = errno;
		/* Under way, or a connection already: no fallback. */
		if (err == EINPROGRESS || err == EISCONN || err == EALREADY ||
		    err == EBADF) {
			errno = err;
			return -1;
		}
		rs_to_kernel(fd, v - 1);
	} else if (v == FD_FORK) {
		fd_set_state(fd, FD_FORK_ACTIVE);
	}
	return real.connect(fd, addr, len);
}

static ssize_t pl_recvfrom(int fd, void *buf, size_t len, int flags,
			   struct sockaddr *from, socklen_t *fromlen)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.recvfrom(fd, buf, len, flags, from, fromlen) :
			RS_CALL(rrecvfrom(rs, buf, len, flags, from, fromlen));
}

static ssize_t pl_read(int fd, void *buf, size_t count)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.read(fd, buf, count) :
			RS_CALL(rread(rs, buf, count));
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.recv(fd, buf, len, flags) :
			RS_CALL(rrecv(rs, buf, len, flags));
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
			struct sockaddr *from, socklen_t *fromlen)
{
	return pl_recvfrom(fd, buf, len, flags, from, fromlen);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.recvmsg(fd, msg, flags) :
			RS_CALL(rrecvmsg(rs, msg, flags));
}

EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	return pl_read(fd, buf, count);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.readv(fd, iov, iovcnt) :
			RS_CALL(rreadv(rs, iov, iovcnt));
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.send(fd, buf, len, flags) :
			RS_CALL(rsend(rs, buf, len, flags));
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t tolen)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.sendto(fd, buf, len, flags, to, tolen) :
			RS_CALL(rsendto(rs, buf, len, flags, to, tolen));
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.sendmsg(fd, msg, flags) :
			RS_CALL(rsendmsg(rs, msg, flags));
}

EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.write(fd, buf, count) :
			RS_CALL(rwrite(rs, buf, count));
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	int rs = rs_io(fd);

	return rs < 0 ? real.writev(fd, iov, iovcnt) :
			RS_CALL(rwritev(rs, iov, iovcnt));
}

/*
 * glibc's fortified entry points (_FORTIFY_SOURCE): the same check
 * glibc makes, then the call. glibc's own would read the kernel socket
 * that holds an rsocket's number.
 */
EXPORT ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	if (count > buflen)
		__chk_fail();
	return pl_read(fd, buf, count);
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen,
			  int flags)
{
	if (len > buflen)
		__chk_fail();
	return recv(fd, buf, len, flags);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen,
			      int flags, struct sockaddr *from,
			      socklen_t *fromlen)
{
	if (len > buflen)
		__chk_fail();
	return pl_recvfrom(fd, buf, len, flags, from, fromlen);
}

EXPORT int shutdown(int fd, int how)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.shutdown(fd, how) : RS_CALL(rshutdown(rs, how));
}

EXPORT int close(int fd)
{
	int v = fd_state(fd), ret;

	if (!v)
		return real.close(fd);
	ret = fd_release(fd);
	if (real.close(fd))
		return -1;
	if (ret) {	/* rclose() gives the positive errno */
		errno = ret > 0 ? ret : errno;
		return -1;
	}
	return 0;
}

EXPORT int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.getpeername(fd, addr, len) :
			RS_CALL(rgetpeername(rs, addr, len));
}

EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.getsockname(fd, addr, len) :
			RS_CALL(rgetsockname(rs, addr, len));
}

EXPORT int setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.setsockopt(fd, level, name, val, len) :
			RS_CALL(rsetsockopt(rs, level, name, val, len));
}

EXPORT int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.getsockopt(fd, level, name, val, len) :
			RS_CALL(rgetsockopt(rs, level, name, val, len));
}

/*
 * A new number @ret (from dup, dup2, dup3 or F_DUPFD) of what @oldfd
 * is: the same rsocket, or the same fork state. Whatever @ret was
 * before (dup2 over an rsocket's number) is released first.
 */
static int dup_done(int oldfd, int v, int ret)
{
	if (ret < 0 || ret == oldfd || ret >= fd_map_size || in_rsocket)
		return ret;
	if (fd_state(ret))
		fd_release(ret);
	if (v > 0)
		fd_bind_rs(ret, v - 1);
	else if (v == FD_FORK || v == FD_FORK_LISTEN)
		fd_set_state(ret, v);
	return ret;
}

/* The state of @oldfd that a new number of it takes (moved first). */
static int dup_state(int oldfd)
{
	rs_io(oldfd);
	return fd_state(oldfd);
}

EXPORT int dup(int oldfd)
{
	int v = dup_state(oldfd);

	return dup_done(oldfd, v, real.dup(oldfd));
}

EXPORT int dup2(int oldfd, int newfd)
{
	int v = dup_state(oldfd);

	return dup_done(oldfd, v, real.dup2(oldfd, newfd));
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	int v = dup_state(oldfd);

	return dup_done(oldfd, v, real.dup3(oldfd, newfd, flags));
}

/*
 * fcntl() and fcntl64(): F_GETFL and F_SETFL of an rsocket go to it,
 * F_DUPFD and F_DUPFD_CLOEXEC make another number of it, the rest (such
 * as F_GETFD and F_SETFD, the number's own) go to the descriptor.
 */
static int pl_fcntl(int (*fn)(int, int, ...), int fd, int cmd, void *arg)
{
	int v;

	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
		v = dup_state(fd);
		return dup_done(fd, v, fn(fd, cmd, arg));
	}
	v = fd_state(fd);
	if (v > 0 && cmd == F_GETFL)
		return RS_CALL(rfcntl(v - 1, cmd));
	if (v > 0 && cmd == F_SETFL)
		return RS_CALL(rfcntl(v - 1, cmd, (int)(intptr_t)arg));
	return fn(fd, cmd, arg);
}

/* fcntl() and fcntl64(): their argument as glibc's take it, a void *. */
#define FCNTL_ENTRY(name)						\
EXPORT int name(int fd, int cmd, ...)					\
{									\
	va_list ap;							\
	void *arg;							\
									\
	va_start(ap, cmd);						\
	arg = va_arg(ap, void *);					\
	va_end(ap);							\
	init();								\
	return pl_fcntl(real.name, fd, cmd, arg);			\
}

FCNTL_ENTRY(fcntl)
FCNTL_ENTRY(fcntl64)

/*
 * sendfile() to an rsocket: the file's bytes, read from @offset (the
 * file's own offset untouched) or from the file's offset (which ends
 * after what was sent), written to the rsocket in pieces.
 */
static ssize_t rs_sendfile(int rs, int in_fd, off_t *offset, size_t count)
{
	size_t piece = count < 65536 ? count : 65536, done = 0;
	off_t pos = offset ? *offset : 0;
	ssize_t n, w = 0;
	char *buf;
	int err;

	if (!count)
		return 0;
	buf = malloc(piece);
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	while (done < count) {
		n = count - done < piece ? count - done : piece;
		n = offset ? pread(in_fd, buf, n, pos) : real.read(in_fd, buf, n);
		if (n <= 0) {
			w = n;
			break;
		}
		w = RS_CALL(rwrite(rs, buf, n));
		if (w < n && !offset) {	/* the file offset: what was sent */
			err = errno;
			lseek(in_fd, (w > 0 ? w : 0) - n, SEEK_CUR);
			errno = err;
		}
		if (w > 0) {
			done += w;
			pos += w;
		}
		if (w < n)
			break;
	}
	free(buf);
	if (offset)
		*offset = pos;
	return done || w >= 0 ? (ssize_t)done : -1;
}

EXPORT ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
{
	int rs = rs_io(out_fd);

	return rs < 0 ? real.sendfile(out_fd, in_fd, offset, count) :
			rs_sendfile(rs, in_fd, offset, count);
}

/* off_t is 64 bits here: sendfile64 is the same call. */
EXPORT ssize_t sendfile64(int out_fd, int in_fd, off_t *offset, size_t count)
{
	return sendfile(out_fd, in_fd, offset, count);
}

/*
 * poll() over descriptors some of which are rsockets: rpoll() of the
 * same set with each rsocket's number in place of the program's.
 */
static int pl_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct pollfd stack[16], *copy = stack;
	bool any = false;
	nfds_t i;
	int ret, rs;

	for (i = 0; i < nfds && !any; i++)
		any = rs_of(fds[i].fd) >= 0;
	if (!any)
		return real.poll(fds, nfds, timeout);
	if (nfds > sizeof(stack) / sizeof(stack[0])) {
		copy = calloc(nfds, sizeof(*copy));
		if (!copy) {
			errno = ENOMEM;
			return -1;
		}
	}
	for (i = 0; i < nfds; i++) {
		copy[i] = fds[i];
		rs = rs_of(fds[i].fd);
		if (rs >= 0)
			copy[i].fd = rs;
	}
	ret = RS_CALL(rpoll(copy, nfds, timeout));
	for (i = 0; i < nfds; i++)
		fds[i].revents = copy[i].revents;
	if (copy != stack)
		free(copy);
	return ret;
}

EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return pl_poll(fds, nfds, timeout);
}

/* glibc's fortified poll(): @fdslen is the size of the array. */
EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout,
		      size_t fdslen)
{
	if (fdslen / sizeof(*fds) < nfds)
		__chk_fail();
	return pl_poll(fds, nfds, timeout);
}

/* select() as poll() of its sets, so that rsockets in them are polled. */
EXPORT int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
		  struct timeval *tv)
{
	struct pollfd *p;
	int fd, i, n = 0, ret, ms;

	if (nfds < 0 || nfds > FD_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	p = calloc(nfds ? nfds : 1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	for (fd = 0; fd < nfds; fd++) {
		short ev = (rd && FD_ISSET(fd, rd) ? POLLIN : 0) |
			   (wr && FD_ISSET(fd, wr) ? POLLOUT : 0) |
			   (ex && FD_ISSET(fd, ex) ? POLLPRI : 0);

		if (ev) {
			p[n].fd = fd;
			p[n++].events = ev;
		}
	}
	ms = tv ? (int)(tv->tv_sec * 1000 + tv->tv_usec / 1000) : -1;
	ret = pl_poll(p, n, ms);
	if (ret >= 0) {
		if (rd)
			FD_ZERO(rd);
		if (wr)
			FD_ZERO(wr);
		if (ex)
			FD_ZERO(ex);
		/* A set names only the descriptors it was asked about. */
		for (ret = 0, i = 0; i < n; i++) {
			short ev = p[i].events, rev = p[i].revents;

			if ((ev & POLLIN) && (rev & (POLLIN | POLLHUP | POLLERR))) {
				FD_SET(p[i].fd, rd);
				ret++;
			}
			if ((ev & POLLOUT) && (rev & (POLLOUT | POLLERR))) {
				FD_SET(p[i].fd, wr);
				ret++;
			}
			if ((ev & POLLPRI) && (rev & POLLPRI)) {
				FD_SET(p[i].fd, ex);
				ret++;
			}
		}
	}
	free(p);
	return ret;
}
