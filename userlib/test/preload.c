// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * preload: librspreload.so on a host without RDMA, where every socket
 * stays the kernel's (the guest tests selftests/rcm/rsocket.sh and
 * userlib/test/guest/rs_preload.c run it on rsockets). The program runs
 * itself again with LD_PRELOAD set. Built with _FORTIFY_SOURCE=2.
 *
 * - select(): a set names only the descriptors it was asked about: the
 *   read end of a pipe whose writer is gone, asked for writing only,
 *   is in no set (poll reports POLLHUP for it);
 * - a TCP socket falls back to the kernel's: a connection over
 *   127.0.0.1 carries its bytes;
 * - dup(), dup2(), dup3() and fcntl(F_DUPFD_CLOEXEC) of such a socket,
 *   and fcntl64(), are the kernel's: the new numbers carry the bytes,
 *   close-on-exec as asked, and closing the first number leaves them;
 * - sendfile() to it, from an offset (the file's own offset stays) and
 *   from the file's offset (which moves), sends the file's bytes;
 * - the fortified entry points: __read_chk, __recv_chk, __recvfrom_chk
 *   and __poll_chk are the preload's (so a _FORTIFY_SOURCE program's
 *   read of an rsocket reaches it), a read() of this file on a buffer
 *   of known size goes through __read_chk, and each aborts as glibc's
 *   does when the length exceeds the buffer;
 * - RDMAV_FORK_SAFE=1 (fork support): a forking server's child that
 *   speaks first, where no rsocket can be made, stays on TCP, and so
 *   does its client: the bytes arrive on both sides.
 */
#define _FORTIFY_SOURCE 2
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(__USE_FORTIFY_LEVEL) || __USE_FORTIFY_LEVEL < 2
#error "preload.c must be built with optimisation: it tests _FORTIFY_SOURCE"
#endif

#include "helpers.h"

static void select_sets(void)
{
	struct timeval tv = { 0, 0 };
	fd_set rd, wr;
	int p[2];

	T_CHECK(pipe(p) == 0);
	close(p[1]);
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(p[0], &wr);
	T_CHECK(select(p[0] + 1, &rd, &wr, NULL, &tv) == 0);
	T_CHECK(!FD_ISSET(p[0], &rd) && !FD_ISSET(p[0], &wr));
	/* Asked for reading, it is readable (end of file). */
	FD_SET(p[0], &rd);
	T_CHECK(select(p[0] + 1, &rd, NULL, NULL, &tv) == 1);
	T_CHECK(FD_ISSET(p[0], &rd));
	close(p[0]);
}

/* A listener on 127.0.0.1, port 0; its address in @a. */
static int tcp_listener(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int l;

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	T_CHECK(l >= 0 && bind(l, (struct sockaddr *)a, sizeof(*a)) == 0);
	T_CHECK(listen(l, 1) == 0);
	T_CHECK(getsockname(l, (struct sockaddr *)a, &len) == 0);
	return l;
}

/* A connected pair over 127.0.0.1: @c the client's, @s the server's. */
static void tcp_pair(int *c, int *s)
{
	struct sockaddr_in a;
	int l = tcp_listener(&a);

	*c = socket(AF_INET, SOCK_STREAM, 0);
	T_CHECK(*c >= 0 && connect(*c, (struct sockaddr *)&a, sizeof(a)) == 0);
	*s = accept(l, NULL, NULL);
	T_CHECK(*s >= 0);
	close(l);
}

/* @n bytes of @what written on @w arrive whole on @r. */
static void carries(int w, int r, const char *what)
{
	size_t n = strlen(what);
	char buf[64] = "";

	T_CHECK(write(w, what, n) == (ssize_t)n);
	T_CHECK(recv(r, buf, n, MSG_WAITALL) == (ssize_t)n);
	T_CHECK(!memcmp(buf, what, n));
}

static void tcp_fallback(void)
{
	int c, s;

	tcp_pair(&c, &s);
	carries(c, s, "ping");
	close(s);
	close(c);
}

static void dup_kernel(void)
{
	int c, s, d1, d2, d3, d4;

	tcp_pair(&c, &s);
	/* Numbers above any this program has open. */
	d1 = dup(c);
	d2 = dup2(c, 100);
	d3 = dup3(c, 101, O_CLOEXEC);
	d4 = fcntl(c, F_DUPFD_CLOEXEC, 100);
	T_CHECK(d1 >= 0 && d2 == 100 && d3 == 101 && d4 == 102);
	T_CHECK(fcntl(d2, F_GETFD) == 0 && fcntl(d3, F_GETFD) == FD_CLOEXEC);
	T_CHECK(fcntl64(d4, F_GETFD) == FD_CLOEXEC);
	T_CHECK(dup2(d1, d1) == d1);
	close(c);
	carries(d1, s, "one");
	carries(d2, s, "two");
	carries(d3, s, "three");
	carries(d4, s, "four");
	close(d1);
	close(d2);
	close(d3);
	carries(d4, s, "last");
	close(d4);
	close(s);
}

static void sendfile_kernel(void)
{
	char path[] = "/tmp/rcm-preload-XXXXXX", buf[16] = "";
	off_t off = 2;
	int f, c, s;

	f = mkstemp(path);
	T_CHECK(f >= 0 && write(f, "0123456789", 10) == 10);
	unlink(path);
	T_CHECK(lseek(f, 1, SEEK_SET) == 1);
	tcp_pair(&c, &s);
	T_CHECK(sendfile(c, f, &off, 3) == 3 && off == 5);
	T_CHECK(lseek(f, 0, SEEK_CUR) == 1);
	T_CHECK(sendfile(c, f, NULL, 4) == 4);
	T_CHECK(lseek(f, 0, SEEK_CUR) == 5);
	T_CHECK(recv(s, buf, 7, MSG_WAITALL) == 7 && !memcmp(buf, "2341234", 7));
	close(c);
	close(s);
	close(f);
}

/* @sym, as this program finds it, is in librspreload.so. */
static bool preload_has(const char *sym)
{
	void *p = dlsym(RTLD_DEFAULT, sym);
	Dl_info info;

	return p && dladdr(p, &info) && info.dli_fname &&
	       strstr(info.dli_fname, "librspreload.so");
}

static void fortify_symbols(void)
{
	static const char *const syms[] = {
		"__read_chk", "__recv_chk", "__recvfrom_chk", "__poll_chk",
		"read", "recv", "recvfrom", "poll", "fcntl64", "dup", "dup3",
		"sendfile", "sendfile64"
	};
	unsigned int i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!preload_has(syms[i])) {
			fprintf(stderr, "%s is not the preload's\n", syms[i]);
			T_CHECK(!"every fortified entry point is the preload's");
		}
}

/* A length the compiler cannot see through. */
static volatile size_t too_long = 8;

/* Runs @fn in a child; it must die of SIGABRT (glibc's __chk_fail). */
static void aborts(const char *what, void (*fn)(int))
{
	int p[2], status;
	pid_t pid;

	T_CHECK(pipe(p) == 0 && write(p[1], "01234567", 8) == 8);
	fflush(NULL);
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);	/* "*** buffer overflow detected ***" */
		fn(p[0]);
		_exit(0);
	}
	T_CHECK(waitpid(pid, &status, 0) == pid);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
		fprintf(stderr, "%s did not abort\n", what);
		T_CHECK(!"an overlong fortified call aborts");
	}
	close(p[0]);
	close(p[1]);
}

static void read_too_long(int fd)
{
	char buf[4];

	/* _FORTIFY_SOURCE makes this __read_chk(fd, buf, 8, 4). */
	if (read(fd, buf, too_long) > 0)
		printf("%c\n", buf[0]);
}

static void recv_chk_too_long(int fd)
{
	char buf[4];

	__recv_chk(fd, buf, too_long, sizeof(buf), 0);
}

static void recvfrom_chk_too_long(int fd)
{
	char buf[4];

	__recvfrom_chk(fd, buf, too_long, sizeof(buf), 0, NULL, NULL);
}

static void poll_chk_too_long(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	__poll_chk(&p, too_long, 0, sizeof(p));
}

static void fortify_checks(void)
{
	struct pollfd p[2];
	size_t n = 4;
	char buf[4];
	int c, s;

	tcp_pair(&c, &s);
	T_CHECK(write(c, "abcdefgh", 8) == 8);
	T_CHECK(read(s, buf, n) == 4 && !memcmp(buf, "abcd", 4));
	T_CHECK(__recv_chk(s, buf, 2, sizeof(buf), 0) == 2 &&
		!memcmp(buf, "ef", 2));
	T_CHECK(__recvfrom_chk(s, buf, 2, sizeof(buf), 0, NULL, NULL) == 2 &&
		!memcmp(buf, "gh", 2));
	p[0] = (struct pollfd){ .fd = c, .events = POLLOUT };
	p[1] = (struct pollfd){ .fd = s, .events = POLLIN };
	T_CHECK(__poll_chk(p, 2, 0, sizeof(p)) == 1 && p[0].revents == POLLOUT);
	close(c);
	close(s);
	aborts("read", read_too_long);
	aborts("__recv_chk", recv_chk_too_long);
	aborts("__recvfrom_chk", recvfrom_chk_too_long);
	aborts("__poll_chk", poll_chk_too_long);
}

/*
 * RDMAV_FORK_SAFE=1 with no RDMA: the server's child cannot make its
 * rsocket listener and stays on TCP; it speaks first, so the client,
 * which looks for the server's 0 before its first data call, sees
 * "hello" instead and stays on TCP too.
 */
static void fork_no_rdma(void)
{
	struct sockaddr_in a;
	char buf[8] = "";
	int l, c, s, status;
	pid_t pid;

	l = tcp_listener(&a);
	c = socket(AF_INET, SOCK_STREAM, 0);
	T_CHECK(c >= 0 && connect(c, (struct sockaddr *)&a, sizeof(a)) == 0);
	s = accept(l, NULL, NULL);
	T_CHECK(s >= 0);
	fflush(NULL);
	pid = fork();
	if (!pid) {
		close(l);
		if (write(s, "hello", 5) != 5 ||
		    read(s, buf, sizeof(buf)) != 3 || memcmp(buf, "bye", 3))
			_exit(1);
		_exit(0);
	}
	close(s);
	T_CHECK(read(c, buf, 5) == 5 && !memcmp(buf, "hello", 5));
	T_CHECK(write(c, "bye", 3) == 3);
	T_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0);
	close(c);
	close(l);
}

static char **self_argv;

/* fork_no_rdma() in this program again, with RDMAV_FORK_SAFE=1. */
static void fork_mode(void)
{
	setenv("RDMAV_FORK_SAFE", "1", 1);
	execv("/proc/self/exe", self_argv);
	perror("preload: exec");
	t_failures++;
}

int main(int argc, char *argv[])
{
	(void)argc;
	self_argv = argv;
	if (getenv("RDMAV_FORK_SAFE")) {	/* read when the preload starts */
		fork_no_rdma();
		return t_exit();
	}
	if (!getenv("LD_PRELOAD")) {
		setenv("LD_PRELOAD", RCM_TEST_PRELOAD, 1);
		setenv("RCM_QUIET", "1", 1);
		execv("/proc/self/exe", argv);
		perror("preload: exec");
		return 1;
	}
	t_in_child("select names only what it was asked", select_sets);
	t_in_child("TCP falls back to the kernel without RDMA", tcp_fallback);
	t_in_child("dup, dup2, dup3, F_DUPFD of a kernel socket", dup_kernel);
	t_in_child("sendfile to a kernel socket", sendfile_kernel);
	t_in_child("the fortified entry points are the preload's",
		   fortify_symbols);
	t_in_child("the fortified entry points check as glibc's",
		   fortify_checks);
	t_in_child("RDMAV_FORK_SAFE: a server speaking first stays on TCP",
		   fork_mode);
	return t_exit();
}
