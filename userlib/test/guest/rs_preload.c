// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rs_preload: a program of plain socket calls under its stack's preload
 * library (rcm's /usr/lib/rcm/librspreload.so when it runs on rcm's
 * librdmacm.so.1, Debian's otherwise: the program sets LD_PRELOAD and
 * runs itself again), in a guest with a Soft-RoCE device: what
 * rsocket.sh's "rstream -T s" does not reach. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm, rdma_ucm and librspreload.so).
 *
 * Built with _FORTIFY_SOURCE=2 and -O2: its read(), recv() and poll()
 * of buffers of known size are glibc's fortified entry points.
 *
 * In cases 1-6 a client sends 256 KiB of a pattern over a connection
 * to a server process, which checks them, answers with the count (8
 * bytes) and waits for the client's end of the stream; each side checks
 * that its socket is an rsocket (getsockopt(SOL_RDMA) answers), and
 * rxe's hw_counters must count a packet per 4 KiB sent in the case:
 * RDMA, not a fallback to the kernel's TCP, carried the data.
 *
 * 1. fork_server: with RDMAV_FORK_SAFE=1 on both sides (rsocket(7)), a
 *    server that accepts and forks a child per connection serves two
 *    clients at once: each connection starts on TCP and moves to an
 *    rsocket in the child (the two children one after the other, on
 *    the same port), and each client's moves with it.
 * 2. fork_cross: the same with the clients on the other stack (its
 *    librdmacm.so.1 and preload; skipped where that stack is missing,
 *    and on the KASAN test kernel, whose rxe librdmacm 44's rsockets
 *    trip): the move after fork is the same on the wire.
 * 3. dup2_connected: dup2() of a connected socket, the first number
 *    closed: the second carries the connection; its close() returns 0
 *    on rcm's preload, the positive EBADF on Debian's (librdmacm 44
 *    closes the rsocket once for each number, the second time a stale
 *    one), which the case checks there.
 * 4. dup_fcntl_dupfd: dup() and fcntl(F_DUPFD_CLOEXEC) of a connected
 *    socket carry it too, half the data each, on rcm's preload. Debian's
 *    (librdmacm 44) has neither: dup() gives a number that is no
 *    rsocket, F_DUPFD_CLOEXEC fails (its rfcntl() is ENOSYS), which the
 *    case checks there, then uses the first number.
 * 5. fortified_read: the answer read with the fortified read() and
 *    recv() after a fortified poll(), on rcm's preload. Debian's does
 *    not intercept __read_chk: glibc's reads the /dev/null that holds
 *    the rsocket's number there, end of file, which the case checks.
 * 6. sendfile_file: sendfile() of a file from an offset sends it, the
 *    offset moved by the count, on rcm's preload. Debian's fails it
 *    (EINVAL: its mmap() has neither MAP_SHARED nor MAP_PRIVATE),
 *    which the case checks there before it writes the data instead.
 *
 * 7. connect_fallback: a connect() to a server on the kernel's TCP (a
 *    process of this program without the preload) that the rsocket
 *    cannot make (refused) goes to the kernel's TCP on the same number,
 *    on both stacks: the data arrives, the socket is no rsocket, and
 *    rxe counts fewer packets than the data would take.
 *
 * 8. preload_config: /etc/rdma/rsocket/preload_config decides which
 *    programs' sockets become rsockets (a stream socket() of a probe
 *    process of this program, without RDMAV_FORK_SAFE): none or no
 *    entry, all; otherwise a line whose program is a prefix of the
 *    name (any case) and whose domain, type and protocol (each in any
 *    of its spellings, or '*') match; a line with an unknown word
 *    is left out. The file is removed after each probe.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run.
 */
#define _FORTIFY_SOURCE 2
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "common/guest.h"
#include "rcm_ksft.h"

#if !defined(__USE_FORTIFY_LEVEL) || __USE_FORTIFY_LEVEL < 2
#error "rs_preload must be built with optimisation: it tests _FORTIFY_SOURCE"
#endif

#define RCM_PRELOAD	"/usr/lib/rcm/librspreload.so"
#define DEB_PRELOAD	"/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so"
#define DATA		(256 * 1024)
#define MIN_PKTS	(DATA / 4096)

/* The exit codes of a server or client process. */
enum { OK, E_SOCKET, E_DATA, E_NOT_RSOCKET, E_CHILD };

/* The preload is rcm's (the program runs on rcm's librdmacm.so.1). */
static bool on_rcm;

static bool is_rsocket(int fd)
{
	socklen_t len = sizeof(int);
	int v;

	return !getsockopt(fd, SOL_RDMA, RDMA_SQSIZE, &v, &len);
}

/* rxe's sent_pkts, summed over the devices that count them. */
static long rxe_sent(void)
{
	char path[320 + sizeof(((struct dirent *)0)->d_name)], buf[32];
	struct dirent *e;
	long sum = 0;
	DIR *d;
	FILE *f;

	d = opendir("/sys/class/infiniband");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/sent_pkts",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f))
			sum += atol(buf);
		fclose(f);
	}
	closedir(d);
	return sum;
}

static void pattern(uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
}

static bool write_all(int fd, const uint8_t *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/*
 * The server's side of a connection: DATA bytes of the pattern, the
 * count back, then the client's end of the stream. An exit code.
 */
static int serve_as(int c, bool rsocket)
{
	static uint8_t in[DATA], want[DATA];
	uint64_t count;
	char end;
	ssize_t n;

	n = recv(c, in, sizeof(in), MSG_WAITALL);
	pattern(want, sizeof(want));
	if (n != DATA || memcmp(in, want, DATA)) {
		printf("# server: %zd bytes (errno %d), %s\n", n, errno,
		       n == DATA ? "not the pattern" : "short");
		return E_DATA;
	}
	count = n;
	if (write(c, &count, sizeof(count)) != sizeof(count))
		return E_DATA;
	while ((n = read(c, &end, 1)) > 0)
		;
	if (is_rsocket(c) != rsocket) {
		printf("# server: the connection is %san rsocket\n",
		       rsocket ? "not " : "");
		return E_NOT_RSOCKET;
	}
	close(c);
	return OK;
}

static int serve(int c)
{
	return serve_as(c, true);
}

/* A listener on @ip, port 0; its port in @port; -1 on failure. */
static int tcp_listen(const char *ip, unsigned short *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int l;

	if (!guest_parse_ipv4(ip, 0, &sin))
		return -1;
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(l, 8) || getsockname(l, (struct sockaddr *)&sin, &len))
		return -1;
	*port = ntohs(sin.sin_port);
	return l;
}

static int tcp_connect(const char *ip, unsigned short port)
{
	struct sockaddr_in sin;
	int c;

	if (!guest_parse_ipv4(ip, port, &sin))
		return -1;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c >= 0 && connect(c, (struct sockaddr *)&sin, sizeof(sin))) {
		close(c);
		return -1;
	}
	return c;
}

/* The client's side: the pattern on @w, the count read on @r. */
static int exchange(int w, int r)
{
	static uint8_t out[DATA];
	uint64_t count = 0;

	pattern(out, sizeof(out));
	if (!write_all(w, out, sizeof(out)) ||
	    recv(r, &count, sizeof(count), MSG_WAITALL) != sizeof(count) ||
	    count != DATA) {
		printf("# client: count %llu (errno %d)\n",
		       (unsigned long long)count, errno);
		return E_DATA;
	}
	return OK;
}

/*
 * Roles run as processes of their own, this program again with
 * RDMAV_FORK_SAFE=1 (which a preload reads when it starts):
 *   fork-server IP FD: listen, write the port to FD, accept two
 *     connections and fork a child to serve each;
 *   fork-client IP PORT: connect and exchange.
 */
static int run_fork_server(const char *ip, int portfd)
{
	unsigned short port;
	int l, c, i, status, ret = OK;
	pid_t kids[2];

	l = tcp_listen(ip, &port);
	if (l < 0 || write(portfd, &port, sizeof(port)) != sizeof(port))
		return E_SOCKET;
	close(portfd);
	for (i = 0; i < 2; i++) {
		c = accept(l, NULL, NULL);
		if (c < 0)
			return E_SOCKET;
		fflush(NULL);
		kids[i] = fork();
		if (!kids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(l);
			_exit(serve(c));
		}
		close(c);
	}
	for (i = 0; i < 2; i++)
		if (waitpid(kids[i], &status, 0) != kids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ret = E_CHILD;
	close(l);
	return ret;
}

static int run_fork_client(const char *ip, unsigned short port)
{
	int c = tcp_connect(ip, port), ret;

	if (c < 0)
		return E_SOCKET;
	ret = exchange(c, c);
	if (!ret && !is_rsocket(c)) {
		printf("# client: the connection is not an rsocket\n");
		ret = E_NOT_RSOCKET;
	}
	close(c);
	return ret;
}

/* tcp-server IP FD: one connection on the kernel's TCP (no preload). */
static int run_tcp_server(const char *ip, int portfd)
{
	unsigned short port;
	int l, c;

	l = tcp_listen(ip, &port);
	if (l < 0 || write(portfd, &port, sizeof(port)) != sizeof(port))
		return E_SOCKET;
	close(portfd);
	c = accept(l, NULL, NULL);
	close(l);
	return c < 0 ? E_SOCKET : serve_as(c, false);
}

/* A "probe": whether a stream socket() of this process is an rsocket. */
static int run_probe(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return E_SOCKET;
	return is_rsocket(fd) ? OK : E_NOT_RSOCKET;
}

static int role(int argc, char *argv[])
{
	if (argc == 4 && !strcmp(argv[1], "tcp-server"))
		return run_tcp_server(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "fork-server"))
		return run_fork_server(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "fork-client"))
		return run_fork_client(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "probe"))
		return run_probe();
	fprintf(stderr, "rs_preload: unknown role\n");
	return 2;
}

/*
 * The other stack's environment: rcm's library and preload, or the
 * distribution's (false when that stack is not in this guest).
 */
static bool other_stack(bool apply)
{
	const char *lib = on_rcm ? DEB_PRELOAD : RCM_PRELOAD;
	const char *dev = on_rcm ? "/dev/infiniband/rdma_cm" :
				   "/dev/infiniband/rcm";

	if (access(lib, R_OK) || access(dev, R_OK))
		return false;
	if (!apply)
		return true;
	setenv("LD_PRELOAD", lib, 1);
	if (on_rcm)
		unsetenv("LD_LIBRARY_PATH");
	else
		setenv("LD_LIBRARY_PATH", "/usr/lib/rcm", 1);
	return true;
}

/*
 * This program as @what with @ip and @arg, RDMAV_FORK_SAFE=1 (but for a
 * probe), on this stack or (@other) the other one; a tcp-server with no
 * preload.
 */
static pid_t spawn_role(const char *what, const char *ip, int arg, bool other)
{
	char a[16];
	pid_t pid;

	snprintf(a, sizeof(a), "%d", arg);
	fflush(NULL);
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* the case timed out */
		if (!strcmp(what, "tcp-server"))
			unsetenv("LD_PRELOAD");
		else if (other)
			other_stack(true);
		/* A probe looks at socket() itself, not at fork's TCP start. */
		if (strcmp(what, "probe"))
			setenv("RDMAV_FORK_SAFE", "1", 1);
		execl("/proc/self/exe", "rs_preload", what, ip, a, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int exit_code(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A server process for one connection: its pid; the port in @port.
 * The listener is made in the process (no rsocket crosses a fork).
 */
static pid_t server(const char *ip, unsigned short *port)
{
	int p[2], l, c;
	pid_t pid;

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		l = tcp_listen(ip, port);
		if (l < 0 || write(p[1], port, sizeof(*port)) != sizeof(*port))
			_exit(E_SOCKET);
		c = accept(l, NULL, NULL);
		close(l);
		_exit(c < 0 ? E_SOCKET : serve(c));
	}
	close(p[1]);
	if (read(p[0], port, sizeof(*port)) != sizeof(*port))
		*port = 0;
	close(p[0]);
	return pid;
}

/* In a TEST(): a server, a connected client socket @c, and the count. */
#define CONNECTED(ip, srv, c, pkts)					\
	unsigned short port_;						\
	long pkts = rxe_sent();						\
	pid_t srv = server(ip, &port_);					\
	int c;								\
	ASSERT_LT(0, srv);						\
	ASSERT_NE(0, port_);						\
	c = tcp_connect(ip, port_);					\
	ASSERT_LE(0, c)

/* The server passed, and rxe sent a packet per 4 KiB since @pkts. */
#define SERVED_OVER_RDMA(srv, pkts)					\
	do {								\
		long sent_;						\
		EXPECT_EQ(OK, exit_code(srv));				\
		sent_ = rxe_sent() - (pkts);				\
		TH_LOG("rxe: %ld packets sent", sent_);			\
		EXPECT_LE(MIN_PKTS, sent_);				\
	} while (0)

/*
 * A forking server on this stack with RDMAV_FORK_SAFE=1 and two clients
 * at once, on this stack (@other false) or the other one.
 */
static bool fork_case(struct __test_metadata *_metadata, const char *rxe,
		      bool other)
{
	int p[2], port_arg;
	unsigned short port = 0;
	pid_t srv, c1, c2;
	long pkts;

	pkts = rxe_sent();
	if (pipe(p))
		return false;
	srv = spawn_role("fork-server", rxe, p[1], false);
	close(p[1]);
	if (read(p[0], &port, sizeof(port)) != sizeof(port))
		return false;
	close(p[0]);
	port_arg = port;
	c1 = spawn_role("fork-client", rxe, port_arg, other);
	c2 = spawn_role("fork-client", rxe, port_arg, other);
	EXPECT_EQ(OK, exit_code(c1));
	EXPECT_EQ(OK, exit_code(c2));
	EXPECT_EQ(OK, exit_code(srv));
	pkts = rxe_sent() - pkts;
	TH_LOG("rxe: %ld packets sent", pkts);
	EXPECT_LE(2 * MIN_PKTS, pkts);
	return true;
}

TEST(fork_server)
{
	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(fork_case(_metadata, rxe, false));
}

TEST(fork_cross)
{
	struct utsname u;

	GUEST_RXE_OR_SKIP(rxe);
	if (!other_stack(false))
		SKIP(return, "the other stack is not in this guest");
	/* testing.rst: librdmacm 44's rsockets trip KASAN in its rxe. */
	if (!uname(&u) && strstr(u.release, "-rcmtest"))
		SKIP(return, "the KASAN test kernel");
	ASSERT_TRUE(fork_case(_metadata, rxe, true));
}

TEST(dup2_connected)
{
	GUEST_RXE_OR_SKIP(rxe);
	CONNECTED(rxe, srv, c, pkts);
	int d = dup2(c, 200);

	ASSERT_EQ(200, d);
	EXPECT_EQ(0, close(c));
	EXPECT_TRUE(is_rsocket(d));
	EXPECT_EQ(OK, exchange(d, d));
	/* librdmacm 44 closes the rsocket twice: the second says EBADF. */
	EXPECT_EQ(on_rcm ? 0 : EBADF, close(d));
	SERVED_OVER_RDMA(srv, pkts);
}

TEST(dup_fcntl_dupfd)
{
	static uint8_t out[DATA];
	uint64_t count = 0;

	GUEST_RXE_OR_SKIP(rxe);
	CONNECTED(rxe, srv, c, pkts);
	int d = dup(c), e = fcntl(c, F_DUPFD_CLOEXEC, 0);

	ASSERT_LE(0, d);
	if (!on_rcm) {	/* librdmacm 44's preload: no rsocket behind d */
		EXPECT_FALSE(is_rsocket(d));
		EXPECT_EQ(-1, e);	/* rfcntl(F_DUPFD_CLOEXEC): ENOSYS */
		EXPECT_EQ(OK, exchange(c, c));
	} else {
		ASSERT_LE(0, e);
		EXPECT_TRUE(is_rsocket(d));
		EXPECT_TRUE(is_rsocket(e));
		EXPECT_EQ(FD_CLOEXEC, fcntl(e, F_GETFD));
		EXPECT_EQ(0, close(c));
		pattern(out, sizeof(out));
		EXPECT_TRUE(write_all(d, out, DATA / 2));
		EXPECT_EQ(0, close(d));
		EXPECT_TRUE(write_all(e, out + DATA / 2, DATA / 2));
		EXPECT_EQ((ssize_t)sizeof(count),
			  recv(e, &count, sizeof(count), MSG_WAITALL));
		EXPECT_EQ(DATA, count);
		c = e;
	}
	close(c);
	if (!on_rcm)
		close(d);
	SERVED_OVER_RDMA(srv, pkts);
}

/* Lengths the compiler cannot see through: the fortified calls. */
static volatile size_t four = 4;
static volatile nfds_t one_fd = 1;

TEST(fortified_read)
{
	static uint8_t out[DATA];
	unsigned char reply[8], *r;
	struct pollfd p[1];

	GUEST_RXE_OR_SKIP(rxe);
	CONNECTED(rxe, srv, c, pkts);
	pattern(out, sizeof(out));
	ASSERT_TRUE(write_all(c, out, sizeof(out)));
	p[0] = (struct pollfd){ .fd = c, .events = POLLIN };
	EXPECT_EQ(1, poll(p, one_fd, 20000));	/* __poll_chk */
	if (on_rcm) {
		uint64_t count;

		EXPECT_EQ(4, read(c, reply, four));	/* __read_chk */
		r = reply + 4;
		EXPECT_EQ(4, recv(c, r, four, MSG_WAITALL)); /* __recv_chk */
		memcpy(&count, reply, sizeof(count));
		EXPECT_EQ(DATA, count);
	} else {	/* glibc's __read_chk: the /dev/null that holds it */
		EXPECT_EQ(0, read(c, reply, four));
	}
	close(c);
	SERVED_OVER_RDMA(srv, pkts);
}

TEST(sendfile_file)
{
	static uint8_t out[DATA];
	char path[] = "/tmp/rs_preload-XXXXXX";
	uint64_t count = 0;
	off_t off = 0;
	ssize_t n = 0;
	int f;

	GUEST_RXE_OR_SKIP(rxe);
	f = mkstemp(path);
	ASSERT_LE(0, f);
	unlink(path);
	pattern(out, sizeof(out));
	ASSERT_TRUE(write_all(f, out, sizeof(out)));
	CONNECTED(rxe, srv, c, pkts);
	if (on_rcm) {
		while (off < DATA && (n = sendfile(c, f, &off, DATA - off)) > 0)
			;
		EXPECT_EQ(DATA, off);
		EXPECT_EQ(DATA, lseek(f, 0, SEEK_CUR));	/* untouched */
	} else {	/* librdmacm 44: mmap() without a mapping type */
		EXPECT_EQ(-1, sendfile(c, f, &off, DATA));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_TRUE(write_all(c, out, sizeof(out)));
	}
	EXPECT_EQ((ssize_t)sizeof(count),
		  recv(c, &count, sizeof(count), MSG_WAITALL));
	EXPECT_EQ(DATA, count);
	close(c);
	close(f);
	SERVED_OVER_RDMA(srv, pkts);
}

TEST(connect_fallback)
{
	unsigned short port = 0;
	long pkts;
	pid_t srv;
	int p[2], c;

	GUEST_RXE_OR_SKIP(rxe);
	pkts = rxe_sent();
	ASSERT_EQ(0, pipe(p));
	srv = spawn_role("tcp-server", rxe, p[1], false);
	close(p[1]);
	ASSERT_EQ((ssize_t)sizeof(port), read(p[0], &port, sizeof(port)));
	close(p[0]);
	c = tcp_connect(rxe, port);
	ASSERT_LE(0, c);
	EXPECT_FALSE(is_rsocket(c));
	EXPECT_EQ(OK, exchange(c, c));
	EXPECT_EQ(0, close(c));
	EXPECT_EQ(OK, exit_code(srv));
	/* The rsocket's connect request and its refusal, not the data. */
	pkts = rxe_sent() - pkts;
	TH_LOG("rxe: %ld packets sent", pkts);
	EXPECT_GT(MIN_PKTS, pkts);
}

#define PRELOAD_CONFIG_DIR	"/etc/rdma/rsocket"
#define PRELOAD_CONFIG		PRELOAD_CONFIG_DIR "/preload_config"

/*
 * What a probe of this program reports under a preload_config of
 * @lines (none: no file): OK for an rsocket, E_NOT_RSOCKET for the
 * kernel's socket.
 */
static int probe_with_config(const char *lines)
{
	FILE *f;
	int code;

	unlink(PRELOAD_CONFIG);
	if (lines) {
		mkdir("/etc/rdma", 0755);
		mkdir(PRELOAD_CONFIG_DIR, 0755);
		f = fopen(PRELOAD_CONFIG, "we");
		if (!f)
			return -1;
		fputs(lines, f);
		if (fclose(f))
			return -1;
	}
	code = exit_code(spawn_role("probe", "-", 0, false));
	unlink(PRELOAD_CONFIG);
	return code;
}

/* The last case: a preload_config left behind would steer the others. */
TEST(preload_config)
{
	GUEST_RXE_OR_SKIP(rxe);
	EXPECT_EQ(OK, probe_with_config(NULL));
	/* Only comments and malformed lines: no entry, every socket. */
	EXPECT_EQ(OK,
		  probe_with_config("# rs_preload * * *\nrs_preload inet\n"));
	/* Another program's line. */
	EXPECT_EQ(E_NOT_RSOCKET, probe_with_config("nosuchprogram * * *\n"));
	/* A prefix of the name, case-insensitive, in each word's spellings. */
	EXPECT_EQ(OK,
		  probe_with_config("RS_PRE AF_INET SOCK_STREAM IPPROTO_TCP\n"));
	EXPECT_EQ(OK, probe_with_config("rs_preload pf_inet stream tcp\n"));
	/* The domain, the type or the protocol is another. */
	EXPECT_EQ(E_NOT_RSOCKET, probe_with_config("* inet6 * *\n"));
	EXPECT_EQ(E_NOT_RSOCKET, probe_with_config("* * dgram *\n"));
	EXPECT_EQ(E_NOT_RSOCKET, probe_with_config("* * * udp\n"));
	/* An unknown word voids its line only: alone, no entry is left. */
	EXPECT_EQ(OK, probe_with_config("* inet stream sctp\n"));
	EXPECT_EQ(E_NOT_RSOCKET,
		  probe_with_config("* inet stream sctp\nnosuchprogram * * *\n"));
	/* Any line that matches. */
	EXPECT_EQ(OK,
		  probe_with_config("nosuchprogram * * *\n* inet * *\n"));
}

int main(int argc, char *argv[])
{
	const char *lib;

	if (argc > 1)
		return role(argc, argv);
	if (!getenv("LD_PRELOAD")) {
		lib = guest_on_rcm() ? RCM_PRELOAD : DEB_PRELOAD;
		if (access(lib, R_OK)) {
			printf("1..0 # SKIP no %s\n", lib);
			return 4;
		}
		setenv("LD_PRELOAD", lib, 1);
		execv("/proc/self/exe", argv);
		perror("rs_preload: exec");
		return 1;
	}
	on_rcm = guest_on_rcm();
	return rcm_test_main();
}
