// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * preload: librspreload.so on a host without RDMA, where every socket
 * stays the kernel's (the guest test selftests/rcm/rsocket.sh runs it on
 * rsockets). The program runs itself again with LD_PRELOAD set.
 *
 * - select(): a set names only the descriptors it was asked about: the
 *   read end of a pipe whose writer is gone, asked for writing only,
 *   is in no set (poll reports POLLHUP for it);
 * - a TCP socket falls back to the kernel's: a connection over
 *   127.0.0.1 carries its bytes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

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

static void tcp_fallback(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	char buf[8] = "";
	int l, c, s;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	T_CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof(a)) == 0);
	T_CHECK(listen(l, 1) == 0);
	T_CHECK(getsockname(l, (struct sockaddr *)&a, &len) == 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	T_CHECK(c >= 0 && connect(c, (struct sockaddr *)&a, sizeof(a)) == 0);
	s = accept(l, NULL, NULL);
	T_CHECK(s >= 0 && write(c, "ping", 4) == 4);
	T_CHECK(read(s, buf, sizeof(buf)) == 4 && !memcmp(buf, "ping", 4));
	close(s);
	close(c);
	close(l);
}

int main(int argc, char *argv[])
{
	(void)argc;
	if (!getenv("LD_PRELOAD")) {
		setenv("LD_PRELOAD", RCM_TEST_PRELOAD, 1);
		setenv("RCM_QUIET", "1", 1);
		execv("/proc/self/exe", argv);
		perror("preload: exec");
		return 1;
	}
	t_in_child("select names only what it was asked", select_sets);
	t_in_child("TCP falls back to the kernel without RDMA", tcp_fallback);
	return t_exit();
}
