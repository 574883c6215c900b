// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * librspreload.so: TCP sockets of an unmodified program on rsockets, as
 * librdmacm's preload library does when LD_PRELOAD names it (rsocket(7)).
 *
 * socket() of a stream socket of AF_INET or AF_INET6 makes an rsocket;
 * the program is given a descriptor of its own, an ordinary socket kept
 * open only to hold the number, and every call this library intercepts
 * on that number goes to the rsocket. Where no rsocket can be made (no
 * RDMA device, no rcm module) the program keeps the kernel socket it
 * asked for, as librdmacm's preload falls back. Other descriptors pass
 * through untouched; so does every call made from inside the rsocket
 * calls themselves (the library's own channels and completion queues),
 * which a per-thread flag tells apart.
 *
 * Not intercepted, as documented in rsocket(7): epoll, sendfile, dup and
 * dup2 of an rsocket, and the rsocket across fork() (the child's copy of
 * the number is an ordinary socket).
 *
 * Locking: the table of rsockets by descriptor (rs_map) is written under
 * map_lock when an rsocket is made or closed; lookups read one int.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <netinet/in.h>

#include <rdma/rsocket.h>

#define EXPORT __attribute__((visibility("default")))

/* The libc calls this library stands in front of. */
static struct {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*listen)(int, int);
	int (*accept)(int, struct sockaddr *, socklen_t *);
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
} real;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
/* rs_map[fd]: the rsocket behind descriptor fd, plus one; 0 for none. */
static int *rs_map;
static int rs_map_size;
/* Set while this thread is inside an rsocket call: its calls pass. */
static __thread bool in_rsocket;

#define REAL(name) (real.name = dlsym(RTLD_NEXT, #name))

static void preload_init(void)
{
	struct rlimit rl;

	REAL(socket), REAL(bind), REAL(listen), REAL(accept), REAL(accept4);
	REAL(connect), REAL(recv), REAL(recvfrom), REAL(recvmsg), REAL(read);
	REAL(readv), REAL(send), REAL(sendto), REAL(sendmsg), REAL(write);
	REAL(writev), REAL(poll), REAL(shutdown), REAL(close);
	REAL(getpeername), REAL(getsockname), REAL(setsockopt);
	REAL(getsockopt), REAL(fcntl);
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (1 << 20))
		rl.rlim_cur = 1 << 20;
	rs_map = calloc(rl.rlim_cur, sizeof(*rs_map));
	if (rs_map)
		rs_map_size = rl.rlim_cur;
}

static void init(void)
{
	pthread_once(&init_once, preload_init);
}

/* The rsocket behind @fd, or -1: it is an ordinary descriptor. */
static int rs_of(int fd)
{
	init();
	if (in_rsocket || fd < 0 || fd >= rs_map_size)
		return -1;
	return __atomic_load_n(&rs_map[fd], __ATOMIC_ACQUIRE) - 1;
}

static void rs_set(int fd, int rs)
{
	pthread_mutex_lock(&map_lock);
	__atomic_store_n(&rs_map[fd], rs + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&map_lock);
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

/*
 * Give rsocket @rs a descriptor number of the program's: an ordinary
 * socket of @domain holds it. Returns the number, or -1 with errno
 * (the rsocket is then closed).
 */
static int rs_publish(int rs, int domain, int flags)
{
	int fd, err;

	fd = real.socket(domain, SOCK_STREAM | (flags & SOCK_CLOEXEC), 0);
	if (fd < 0 || fd >= rs_map_size) {
		err = fd < 0 ? errno : EMFILE;
		if (fd >= 0)
			real.close(fd);
		RS_CALL(rclose(rs));
		errno = err;
		return -1;
	}
	if (flags & SOCK_NONBLOCK)
		RS_CALL(rfcntl(rs, F_SETFL, O_NONBLOCK));
	rs_set(fd, rs);
	return fd;
}

EXPORT int socket(int domain, int type, int protocol)
{
	int rs, kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	init();
	if (in_rsocket || (domain != AF_INET && domain != AF_INET6) ||
	    kind != SOCK_STREAM || (protocol && protocol != IPPROTO_TCP))
		return real.socket(domain, type, protocol);
	rs = RS_CALL(rsocket(domain, kind, protocol));
	if (rs < 0)	/* no RDMA here: the kernel's TCP, as librdmacm's */
		return real.socket(domain, type, protocol);
	return rs_publish(rs, domain, type);
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.bind(fd, addr, len) : RS_CALL(rbind(rs, addr, len));
}

EXPORT int listen(int fd, int backlog)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.listen(fd, backlog) : RS_CALL(rlisten(rs, backlog));
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	struct sockaddr_storage self;
	socklen_t n = sizeof(self);
	int rs = rs_of(fd), child;

	if (rs < 0)
		return real.accept4(fd, addr, len, flags);
	child = RS_CALL(raccept(rs, addr, len));
	if (child < 0)
		return -1;
	if (RS_CALL(rgetsockname(child, (struct sockaddr *)&self, &n)))
		self.ss_family = AF_INET;
	return rs_publish(child, self.ss_family, flags);
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.connect(fd, addr, len) :
			RS_CALL(rconnect(rs, addr, len));
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.recv(fd, buf, len, flags) :
			RS_CALL(rrecv(rs, buf, len, flags));
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
			struct sockaddr *from, socklen_t *fromlen)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.recvfrom(fd, buf, len, flags, from, fromlen) :
			RS_CALL(rrecvfrom(rs, buf, len, flags, from, fromlen));
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.recvmsg(fd, msg, flags) :
			RS_CALL(rrecvmsg(rs, msg, flags));
}

EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.read(fd, buf, count) :
			RS_CALL(rread(rs, buf, count));
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.readv(fd, iov, iovcnt) :
			RS_CALL(rreadv(rs, iov, iovcnt));
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.send(fd, buf, len, flags) :
			RS_CALL(rsend(rs, buf, len, flags));
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t tolen)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.sendto(fd, buf, len, flags, to, tolen) :
			RS_CALL(rsendto(rs, buf, len, flags, to, tolen));
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.sendmsg(fd, msg, flags) :
			RS_CALL(rsendmsg(rs, msg, flags));
}

EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.write(fd, buf, count) :
			RS_CALL(rwrite(rs, buf, count));
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.writev(fd, iov, iovcnt) :
			RS_CALL(rwritev(rs, iov, iovcnt));
}

EXPORT int shutdown(int fd, int how)
{
	int rs = rs_of(fd);

	return rs < 0 ? real.shutdown(fd, how) : RS_CALL(rshutdown(rs, how));
}

EXPORT int close(int fd)
{
	int rs = rs_of(fd);

	if (rs >= 0) {
		rs_set(fd, -1);
		RS_CALL(rclose(rs));
	}
	return real.close(fd);
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

/* F_GETFL and F_SETFL go to an rsocket; the rest to the descriptor. */
EXPORT int fcntl(int fd, int cmd, ...)
{
	int rs = rs_of(fd);
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (rs >= 0 && cmd == F_GETFL)
		return RS_CALL(rfcntl(rs, cmd));
	if (rs >= 0 && cmd == F_SETFL)
		return RS_CALL(rfcntl(rs, cmd, (int)arg));
	return real.fcntl(fd, cmd, arg);
}

/*
 * poll() over descriptors some of which are rsockets: rpoll() of the
 * same set with each rsocket's number in place of the program's.
 */
EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
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
	ret = poll(p, n, ms);
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
