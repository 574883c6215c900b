// SPDX-License-Identifier: GPL-2.0-only
/*
 * free_port: print a port for the next server of a shell test (stacks.sh's
 * next_port). rping, cmtime, perftest, fi_pingpong and io_demo take their
 * port on the command line and print none, so the script chooses it: a
 * port bind(0) gave an rcm id (RCM_PS_TCP, the id's query), that no TCP
 * socket holds either (iWARP and libfabric's servers listen on TCP).
 * Exit 1 when none of 16 such ports is free for TCP.
 */
#include <netinet/in.h>
#include <sys/socket.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

#define TRIES 16

/* No TCP socket holds @port, on IPv6 (dual stack) or, without it, IPv4. */
static bool tcp_free(unsigned short port)
{
	struct sockaddr_in6 a6 = {
		.sin6_family = AF_INET6, .sin6_port = htons(port),
	};
	struct sockaddr_in a4 = {
		.sin_family = AF_INET, .sin_port = htons(port),
	};
	int off = 0, s = socket(AF_INET6, SOCK_STREAM, 0), ret;

	if (s >= 0) {
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		ret = bind(s, (struct sockaddr *)&a6, sizeof(a6));
	} else {
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0)
			return false;
		ret = bind(s, (struct sockaddr *)&a4, sizeof(a4));
	}
	close(s);
	return !ret;
}

int main(void)
{
	unsigned short ports[TRIES];
	int i;

	if (rcm_free_ports("0.0.0.0", RCM_PS_TCP, ports, TRIES)) {
		perror("free_port: rcm bind");
		return 1;
	}
	for (i = 0; i < TRIES; i++) {
		if (tcp_free(ports[i])) {
			printf("%u\n", ports[i]);
			return 0;
		}
	}
	fprintf(stderr, "free_port: no port free for rcm and TCP\n");
	return 1;
}
