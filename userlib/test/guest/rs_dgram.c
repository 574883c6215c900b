// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rs_dgram: datagram rsockets (rsocket(7), SOCK_DGRAM over UD) on
 * librdmacm.so.1, against the real module, in a guest with a Soft-RoCE
 * device: what Debian's udpong (tools/testing/selftests/rcm/rsocket.sh)
 * does not reach. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *   RCM_ADDR6_RXE    its IPv6 address (optional)
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way). On
 * RoCE librdmacm 44 makes no datagram QP (its AH to the QP itself has no
 * GRH, which the kernel refuses): when intree_roce_ah.so is beside the
 * program (the selftests' directory, where make check puts both), the
 * program runs itself again with it preloaded, which adds that GRH; on
 * rcm it changes nothing, every AH of rcm's having one there.
 *
 * Every rsocket binds port 0 of $RCM_ADDR_RXE and reads its port back.
 * Where the two stacks differ by design, the case says so.
 *
 * 1. closed_rsocket_ebadf: after rclose(), rsendto, rrecvfrom,
 *    rsetsockopt and rfcntl fail with EBADF, rclose() returns EBADF.
 *    On rcm an rsocket never bound closes too (0); librdmacm 44's
 *    rclose() of one waits forever, for the completions of a send queue
 *    it never made, so the in-tree control leaves those open (the
 *    process's end frees them).
 * 2. nonblocking_recv: rrecv() on a datagram rsocket never bound is
 *    EINVAL (librdmacm's); bound and O_NONBLOCK (rfcntl), an empty one
 *    is EAGAIN, and so with MSG_DONTWAIT on a blocking one; a blocking
 *    rrecvfrom() in a thread returns the datagram sent after it began.
 * 3. rpoll_readiness: never bound: not writable (librdmacm's: no send
 *    queue yet); bound: POLLOUT, not POLLIN; POLLIN once a datagram
 *    came, with an ordinary pipe's POLLIN in the same call; rselect()
 *    agrees; not readable again once it is read.
 * 4. sendto_several_peers: one rsocket sends a different datagram to
 *    each of three with rsendto(); each gets its own, from the sender's
 *    address, and answers it there; the sender gets the three answers,
 *    each from its peer's address.
 * 5. message_boundaries: after a first exchange (both sides know each
 *    other's QP), datagrams of 1, 700 and 1000 bytes arrive as three,
 *    whole, in order; MSG_PEEK leaves one in place; a short buffer
 *    takes the start of one and the rest is dropped, not read next.
 * 6. connected_default_destination: rconnect() sets rsend()'s
 *    destination; rgetpeername() names it, and is ENOTCONN on an
 *    rsocket not connected; rgetsockname() names the bound address.
 * 7. oversize_send: a datagram one byte longer than a UD packet takes
 *    (the port's MTU or RS_SNDLOWAT, less the header) fails with
 *    EMSGSIZE, the longest one arrives whole. rcm only: librdmacm 44
 *    copies it past its 2048-byte send slot and posts it (skipped on
 *    the in-tree control).
 * 8. options: SOL_RDMA sizes are taken before the rsocket is bound,
 *    EINVAL after; an IPPROTO_TCP option is the UDP socket's error
 *    (ENOPROTOOPT); SO_RCVBUF reads back doubled, as librdmacm's.
 * 9. ipv6_exchange: two AF_INET6 rsockets on $RCM_ADDR6_RXE (skipped
 *    without it) exchange datagrams both ways, each from the other's
 *    address (the 24-byte IPv6 header).
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_rs.h"

#define WAIT_MS		10000	/* for a datagram on a local device */
#define SHIM		"intree_roce_ah.so"

/*
 * On the distribution's librdmacm, run again with intree_roce_ah.so
 * preloaded when it is beside the program (see the head comment).
 */
__attribute__((constructor))
static void preload_roce_ah(int argc, char **argv)
{
	char path[PATH_MAX], *slash;
	const char *pre = getenv("LD_PRELOAD");
	ssize_t n;

	(void)argc;
	if (guest_on_rcm() || (pre && strstr(pre, SHIM)))
		return;
	n = readlink("/proc/self/exe", path, sizeof(path) - sizeof(SHIM) - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return;
	strcpy(slash + 1, SHIM);
	if (access(path, R_OK))
		return;
	setenv("LD_PRELOAD", path, 1);
	execv("/proc/self/exe", argv);
}

/*
 * A datagram rsocket of family @af bound to @addr (@len bytes, port 0),
 * the bound address read back into @addr; or -1.
 */
static int bound_to(int af, struct sockaddr *addr, socklen_t len)
{
	int s = rsocket(af, SOCK_DGRAM, 0);

	if (s < 0)
		return -1;
	if (rbind(s, addr, len) || rgetsockname(s, addr, &len)) {
		rclose(s);
		return -1;
	}
	return s;
}

/* A datagram rsocket bound to @ip, port 0; its address in @sin. */
static int bound(const char *ip, struct sockaddr_in *sin)
{
	if (!guest_parse_ipv4(ip, 0, sin))
		return -1;
	return bound_to(AF_INET, (struct sockaddr *)sin, sizeof(*sin));
}

static bool same_addr(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family && a->sin_port == b->sin_port &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr;
}

/*
 * The next datagram of @s within WAIT_MS (rpoll, then rrecvfrom): its
 * length, or -1; the sender's address in @from when not NULL.
 */
static ssize_t recv_one(int s, void *buf, size_t len, struct sockaddr_in *from)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	socklen_t flen = sizeof(*from);

	if (rpoll(&p, 1, WAIT_MS) != 1)
		return -1;
	return rrecvfrom(s, buf, len, MSG_DONTWAIT, (struct sockaddr *)from,
			 from ? &flen : NULL);
}

static ssize_t send_to(int s, const void *buf, size_t len,
		       const struct sockaddr_in *to)
{
	return rsendto(s, buf, len, 0, (const struct sockaddr *)to,
		       sizeof(*to));
}

/* @a and @b bound, each having had a datagram of the other. */
static bool exchanged(const char *ip, int *a, struct sockaddr_in *sa,
		      int *b, struct sockaddr_in *sb)
{
	char buf[16];

	*a = bound(ip, sa);
	*b = bound(ip, sb);
	return CHECK(*a >= 0 && *b >= 0) &&
	       CHECK(send_to(*a, "hello", 5, sb) == 5) &&
	       CHECK(recv_one(*b, buf, sizeof(buf), NULL) == 5) &&
	       CHECK(send_to(*b, "olleh", 5, sa) == 5) &&
	       CHECK(recv_one(*a, buf, sizeof(buf), NULL) == 5);
}

/* rclose() of an rsocket never bound: see closed_rsocket_ebadf. */
static int close_fresh(int s)
{
	return guest_on_rcm() ? rclose(s) : 0;
}

TEST(closed_rsocket_ebadf)
{
	struct sockaddr_in to;
	char b = 0;
	int s;

	GUEST_RXE_OR_SKIP(rxe);
	s = rsocket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, s);
	EXPECT_EQ(0, close_fresh(s));
	s = bound(rxe, &to);
	ASSERT_LE(0, s);
	ASSERT_EQ(0, rclose(s));
	errno = 0;
	EXPECT_EQ(-1, rsendto(s, &b, 1, 0, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EBADF, errno);
	errno = 0;
	EXPECT_EQ(-1, rrecvfrom(s, &b, 1, 0, NULL, NULL));
	EXPECT_EQ(EBADF, errno);
	guest_rs_assert_closed(_metadata, s);
}

struct receiver {
	pthread_t	thread;
	int		sock;
	char		buf[64];
	ssize_t		len;
	struct sockaddr_in from;
};

static void *recv_thread(void *arg)
{
	struct receiver *r = arg;
	socklen_t flen = sizeof(r->from);

	r->len = rrecvfrom(r->sock, r->buf, sizeof(r->buf), 0,
			   (struct sockaddr *)&r->from, &flen);
	return NULL;
}

TEST(nonblocking_recv)
{
	struct sockaddr_in sa, sb;
	struct receiver r = { 0 };
	char b[8];
	int a, s;

	GUEST_RXE_OR_SKIP(rxe);
	s = rsocket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, s);
	errno = 0;
	EXPECT_EQ(-1, rrecv(s, b, sizeof(b), MSG_DONTWAIT));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, close_fresh(s));

	s = bound(rxe, &sb);
	ASSERT_LE(0, s);
	ASSERT_EQ(0, rfcntl(s, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(O_NONBLOCK, rfcntl(s, F_GETFL) & O_NONBLOCK);
	errno = 0;
	EXPECT_EQ(-1, rrecv(s, b, sizeof(b), 0));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, rfcntl(s, F_SETFL, 0));
	errno = 0;
	EXPECT_EQ(-1, rrecv(s, b, sizeof(b), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);

	/* Blocking: the thread's rrecvfrom() returns the datagram. */
	a = bound(rxe, &sa);
	ASSERT_LE(0, a);
	r.sock = s;
	ASSERT_EQ(0, pthread_create(&r.thread, NULL, recv_thread, &r));
	ASSERT_EQ(7, send_to(a, "blocked", 7, &sb));
	ASSERT_TRUE(guest_join_within(r.thread, 20000, NULL));
	ASSERT_EQ(7, r.len);
	EXPECT_EQ(0, memcmp(r.buf, "blocked", 7));
	EXPECT_TRUE(same_addr(&r.from, &sa));
	EXPECT_EQ(0, rclose(a));
	EXPECT_EQ(0, rclose(s));
}

TEST(rpoll_readiness)
{
	struct sockaddr_in sa, sb;
	struct pollfd p;
	char buf[32];
	int a, b, fresh;

	GUEST_RXE_OR_SKIP(rxe);
	fresh = rsocket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, fresh);
	p = (struct pollfd){ .fd = fresh, .events = POLLIN | POLLOUT };
	EXPECT_EQ(0, rpoll(&p, 1, 0));
	EXPECT_EQ(0, close_fresh(fresh));

	a = bound(rxe, &sa);
	b = bound(rxe, &sb);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	guest_rs_assert_writable(_metadata, b);

	ASSERT_EQ(5, send_to(a, "ready", 5, &sb));
	guest_rs_assert_readable(_metadata, b);
	ASSERT_EQ(5, rrecv(b, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "ready", 5));
	guest_rs_assert_unreadable(_metadata, b);

	EXPECT_EQ(0, rclose(a));
	EXPECT_EQ(0, rclose(b));
}

TEST(sendto_several_peers)
{
	struct sockaddr_in ss, sp[3], from;
	char msg[16], buf[16];
	int s, p[3], i, j, got = 0;
	ssize_t n;

	GUEST_RXE_OR_SKIP(rxe);
	s = bound(rxe, &ss);
	ASSERT_LE(0, s);
	for (i = 0; i < 3; i++) {
		p[i] = bound(rxe, &sp[i]);
		ASSERT_LE(0, p[i]);
	}
	for (i = 0; i < 3; i++) {
		snprintf(msg, sizeof(msg), "to peer %d", i);
		ASSERT_EQ((ssize_t)strlen(msg), send_to(s, msg, strlen(msg), &sp[i]));
	}
	for (i = 0; i < 3; i++) {
		memset(buf, 0, sizeof(buf));
		snprintf(msg, sizeof(msg), "to peer %d", i);
		n = recv_one(p[i], buf, sizeof(buf), &from);
		ASSERT_EQ((ssize_t)strlen(msg), n);
		EXPECT_EQ(0, memcmp(buf, msg, n));
		EXPECT_TRUE(same_addr(&from, &ss));
		snprintf(msg, sizeof(msg), "from peer %d", i);
		ASSERT_EQ((ssize_t)strlen(msg),
			  send_to(p[i], msg, strlen(msg), &from));
	}
	/* The answers, in whatever order they come, each from its peer. */
	for (j = 0; j < 3; j++) {
		memset(buf, 0, sizeof(buf));
		n = recv_one(s, buf, sizeof(buf), &from);
		ASSERT_LT(0, n);
		for (i = 0; i < 3; i++) {
			snprintf(msg, sizeof(msg), "from peer %d", i);
			if (same_addr(&from, &sp[i]) && n == (ssize_t)strlen(msg) &&
			    !memcmp(buf, msg, n))
				got |= 1 << i;
		}
	}
	EXPECT_EQ(7, got);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, rclose(p[i]));
	EXPECT_EQ(0, rclose(s));
}

static void pattern(uint8_t *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + seed);
}

TEST(message_boundaries)
{
	static const size_t sizes[] = { 1, 700, 1000 };
	static uint8_t out[1000], in[2048];
	struct sockaddr_in sa, sb;
	int a, b;
	size_t i;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(exchanged(rxe, &a, &sa, &b, &sb));
	for (i = 0; i < 3; i++) {
		pattern(out, sizes[i], i);
		ASSERT_EQ((ssize_t)sizes[i], send_to(a, out, sizes[i], &sb));
	}
	for (i = 0; i < 3; i++) {
		pattern(out, sizes[i], i);
		memset(in, 0, sizeof(in));
		if (i == 1) {
			ASSERT_EQ((ssize_t)sizes[i],
				  rrecv(b, in, sizeof(in), MSG_PEEK));
			EXPECT_EQ(0, memcmp(in, out, sizes[i]));
		}
		ASSERT_EQ((ssize_t)sizes[i], recv_one(b, in, sizeof(in), NULL));
		EXPECT_EQ(0, memcmp(in, out, sizes[i]));
	}

	/* A short buffer: the start of the first, then the second whole. */
	pattern(out, 1000, 9);
	ASSERT_EQ(1000, send_to(a, out, 1000, &sb));
	ASSERT_EQ(3, send_to(a, "end", 3, &sb));
	ASSERT_EQ(10, recv_one(b, in, 10, NULL));
	EXPECT_EQ(0, memcmp(in, out, 10));
	ASSERT_EQ(3, recv_one(b, in, sizeof(in), NULL));
	EXPECT_EQ(0, memcmp(in, "end", 3));
	EXPECT_EQ(0, rclose(a));
	EXPECT_EQ(0, rclose(b));
}

TEST(connected_default_destination)
{
	struct sockaddr_in sa, sb, got;
	socklen_t len = sizeof(got);
	char buf[16];
	int a, b;

	GUEST_RXE_OR_SKIP(rxe);
	a = bound(rxe, &sa);
	b = bound(rxe, &sb);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, rconnect(a, (struct sockaddr *)&sb, sizeof(sb)));
	ASSERT_EQ(0, rgetpeername(a, (struct sockaddr *)&got, &len));
	EXPECT_TRUE(same_addr(&got, &sb));
	len = sizeof(got);
	ASSERT_EQ(0, rgetsockname(a, (struct sockaddr *)&got, &len));
	EXPECT_TRUE(same_addr(&got, &sa));
	len = sizeof(got);
	errno = 0;
	EXPECT_EQ(-1, rgetpeername(b, (struct sockaddr *)&got, &len));
	EXPECT_EQ(ENOTCONN, errno);

	ASSERT_EQ(9, rsend(a, "connected", 9, 0));
	ASSERT_EQ(5, rwrite(a, "again", 5));
	ASSERT_EQ(9, recv_one(b, buf, sizeof(buf), &got));
	EXPECT_EQ(0, memcmp(buf, "connected", 9));
	EXPECT_TRUE(same_addr(&got, &sa));
	ASSERT_EQ(5, recv_one(b, buf, sizeof(buf), NULL));
	EXPECT_EQ(0, memcmp(buf, "again", 5));
	EXPECT_EQ(0, rclose(a));
	EXPECT_EQ(0, rclose(b));
}

/*
 * The longest datagram rcm sends on the guest's Soft-RoCE device (rxe0,
 * port 1): a receive slot (RS_SNDLOWAT, 2048) or the MTU, whichever is
 * less, less the IPv4 header of 8 bytes (rs_dgram.c); or -1.
 */
static ssize_t longest(void)
{
	struct ibv_context **devs = rdma_get_devices(NULL);
	struct ibv_port_attr pa;
	ssize_t max = -1;
	int i;

	for (i = 0; devs && devs[i]; i++) {
		if (strcmp(ibv_get_device_name(devs[i]->device), "rxe0") ||
		    ibv_query_port(devs[i], 1, &pa))
			continue;
		max = ((128 << pa.active_mtu) < 2048 ?
		       (128 << pa.active_mtu) : 2048) - 8;
	}
	if (devs)
		rdma_free_devices(devs);
	return max;
}

TEST(oversize_send)
{
	static uint8_t out[4096], in[4096];
	struct sockaddr_in sa, sb;
	ssize_t max;
	int a, b;

	GUEST_RXE_OR_SKIP(rxe);
	if (!guest_on_rcm())
		SKIP(return, "librdmacm 44 copies it past its 2048-byte send slot");
	max = longest();
	ASSERT_LT(0, max);
	ASSERT_TRUE(exchanged(rxe, &a, &sa, &b, &sb));
	pattern(out, sizeof(out), 4);
	errno = 0;
	EXPECT_EQ(-1, send_to(a, out, max + 1, &sb));
	EXPECT_EQ(EMSGSIZE, errno);
	errno = 0;
	EXPECT_EQ(-1, send_to(a, out, sizeof(out), &sb));
	EXPECT_EQ(EMSGSIZE, errno);
	ASSERT_EQ(max, send_to(a, out, max, &sb));
	ASSERT_EQ(max, recv_one(b, in, sizeof(in), NULL));
	EXPECT_EQ(0, memcmp(in, out, max));
	EXPECT_EQ(0, rclose(a));
	EXPECT_EQ(0, rclose(b));
}

TEST(options)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(int);
	int s, v = 64, got = 0;

	GUEST_RXE_OR_SKIP(rxe);
	s = rsocket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, s);
	EXPECT_EQ(0, rsetsockopt(s, SOL_RDMA, RDMA_SQSIZE, &v, sizeof(v)));
	EXPECT_EQ(0, rgetsockopt(s, SOL_RDMA, RDMA_SQSIZE, &got, &len));
	EXPECT_EQ(64, got);
	v = 65536;
	EXPECT_EQ(0, rsetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
	len = sizeof(int);
	EXPECT_EQ(0, rgetsockopt(s, SOL_SOCKET, SO_RCVBUF, &got, &len));
	EXPECT_EQ(131072, got);
	v = 1;
	errno = 0;
	EXPECT_EQ(-1, rsetsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v)));
	EXPECT_EQ(ENOPROTOOPT, errno);

	ASSERT_TRUE(guest_parse_ipv4(rxe, 0, &sa));
	ASSERT_EQ(0, rbind(s, (struct sockaddr *)&sa, sizeof(sa)));
	v = 32;
	errno = 0;
	EXPECT_EQ(-1, rsetsockopt(s, SOL_RDMA, RDMA_RQSIZE, &v, sizeof(v)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, rclose(s));
}

/* An AF_INET6 datagram rsocket bound to @ip, port 0; its address in @sin6. */
static int bound6(const char *ip, struct sockaddr_in6 *sin6)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	if (inet_pton(AF_INET6, ip, &sin6->sin6_addr) != 1)
		return -1;
	return bound_to(AF_INET6, (struct sockaddr *)sin6, sizeof(*sin6));
}

TEST(ipv6_exchange)
{
	struct sockaddr_in6 sa, sb, from;
	struct pollfd p;
	socklen_t flen;
	char buf[32];
	int a, b, i;

	GUEST_ENV_OR_SKIP(rxe6, "RCM_ADDR6_RXE");
	a = bound6(rxe6, &sa);
	b = bound6(rxe6, &sb);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(4, rsendto(a, "ping", 4, 0, (struct sockaddr *)&sb,
				     sizeof(sb)));
		p = (struct pollfd){ .fd = b, .events = POLLIN };
		ASSERT_EQ(1, rpoll(&p, 1, WAIT_MS));
		flen = sizeof(from);
		ASSERT_EQ(4, rrecvfrom(b, buf, sizeof(buf), 0,
				       (struct sockaddr *)&from, &flen));
		EXPECT_EQ(sizeof(from), flen);
		EXPECT_EQ(AF_INET6, from.sin6_family);
		EXPECT_EQ(sa.sin6_port, from.sin6_port);
		EXPECT_EQ(0, memcmp(&from.sin6_addr, &sa.sin6_addr, 16));
		ASSERT_EQ(4, rsendto(b, "pong", 4, 0, (struct sockaddr *)&from,
				     flen));
		p = (struct pollfd){ .fd = a, .events = POLLIN };
		ASSERT_EQ(1, rpoll(&p, 1, WAIT_MS));
		ASSERT_EQ(4, rrecv(a, buf, sizeof(buf), 0));
		EXPECT_EQ(0, memcmp(buf, "pong", 4));
	}
	EXPECT_EQ(0, rclose(a));
	EXPECT_EQ(0, rclose(b));
}

RCM_TEST_MAIN
