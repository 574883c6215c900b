// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rs_stream: stream rsockets (rsocket(7)) on librdmacm.so.1, against the
 * real module, in a guest with a Soft-RoCE device: the edge cases that
 * Debian's rstream and riostream (tools/testing/selftests/rcm/rsocket.sh)
 * do not reach. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *   RCM_ADDR_SIW     IPv4 address of the soft-iWARP device (optional)
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * Every listener binds port 0 and reads its port back (rgetsockname).
 * Accepts run in a thread: rcm's rsockets have no service thread, so a
 * connection progresses inside the calls on its rsockets only.
 *
 * 1. closed_rsocket_ebadf: after rclose(), the number is no rsocket:
 *    rsend, rrecv, rsetsockopt and rfcntl fail with EBADF, and rclose()
 *    returns the positive EBADF (librdmacm's convention).
 * 2. rpoll_readiness: on a connected pair, rpoll() says POLLOUT and not
 *    POLLIN before data; POLLIN once 60 000 bytes were sent (which a
 *    MSG_WAITALL rrecv then reads intact; less than the half of the
 *    receive buffer a connection grants first), together with an
 *    ordinary pipe's POLLIN in the same call; rselect() agrees.
 * 3. nonblocking_connect: on an O_NONBLOCK rsocket rconnect() is
 *    EINPROGRESS; rpoll(POLLOUT) completes it, SO_ERROR is then 0, an
 *    empty rrecv is EAGAIN, and data flows both ways.
 * 4. peer_dies_mid_transfer: a child process connects, sends 65 536
 *    bytes and exits without closing: the survivor reads what arrived
 *    (a prefix of them, intact: writes still in flight when the child's
 *    QP went may be lost, as librdmacm on Debian's 6.12 showed), then
 *    rrecv() returns 0 (the end of the stream), and rsend() fails with
 *    ECONNRESET once the room the peer granted last is used up (until
 *    then librdmacm posts writes without looking, and so does rcm),
 *    within the case's time limit instead of hanging.
 * 5. wrong_version_rejected: a plain CM connect whose private data is
 *    an rsocket's with version 2, and one with 4 bytes of garbage, are
 *    REJECTED (ECONNREFUSED) by an rsocket listener, which then accepts
 *    a real rsocket.
 * 6. wrong_version_reply: an rsocket's rconnect() to a plain CM server
 *    that accepts with version 2 in its reply fails with ENOTSUP.
 *
 * 7. credits_exhausted: a peer that never reads: the other end, with
 *    O_NONBLOCK, writes 16 KiB at a time until rsend() fails with EAGAIN
 *    and rpoll() does not say POLLOUT within half a second (the room the
 *    reader granted is used up; within 32 MiB, or there is no flow
 *    control); the reader reads it all, intact. Then, blocking, a writer thread sends
 *    four times as much, blocking whenever the room runs out, while the
 *    reader reads: everything arrives in order and the writer ends.
 *
 * 8. iwarp_stream: over soft-iWARP ($RCM_ADDR_SIW; skipped without it),
 *    where no immediate data exists and every message is an inline SEND
 *    after its write, 60 000 bytes go each way intact, with rpoll().
 *
 * 9. stream_rsendto_is_connected: rsendto() on a connected stream
 *    rsocket with an address, or with only an address length, fails
 *    with EISCONN, as librdmacm 44's does; with neither it sends.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_rs.h"

/* librdmacm 44's private data of an rsocket's connect (rs_conn_data). */
struct rs_wire_conn {
	uint8_t		version;
	uint8_t		flags;
	uint16_t	credits;
	uint8_t		reserved[3];
	uint8_t		target_iomap_size;
	uint64_t	sgl_addr;
	uint32_t	sgl_key;
	uint32_t	sgl_len;
	uint64_t	buf_addr;
	uint32_t	buf_key;
	uint32_t	buf_len;
};

/* An rsocket listening on @ip, port 0: its number; its port in @port. */
static int listener(const char *ip, unsigned short *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int s;

	if (!guest_parse_ipv4(ip, 0, &sin))
		return -1;
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	if (rbind(s, (struct sockaddr *)&sin, sizeof(sin)) ||
	    rlisten(s, 4) ||
	    rgetsockname(s, (struct sockaddr *)&sin, &len)) {
		rclose(s);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return s;
}

struct acceptor {
	pthread_t	thread;
	int		lsock;
	int		sock;	/* accepted, or -1 */
	int		err;
};

static void *accept_thread(void *arg)
{
	struct acceptor *a = arg;

	a->sock = raccept(a->lsock, NULL, NULL);
	a->err = a->sock < 0 ? errno : 0;
	return NULL;
}

static bool accept_start(struct acceptor *a, int lsock)
{
	a->lsock = lsock;
	a->sock = -1;
	return !pthread_create(&a->thread, NULL, accept_thread, a);
}

/* The accepted rsocket, or -1 when none came within 20 s. */
static int accept_end(struct acceptor *a)
{
	if (!guest_join_within(a->thread, 20000, NULL))
		return -1;
	return a->sock;
}

static int connect_to(const char *ip, unsigned short port, bool nonblock)
{
	struct sockaddr_in sin;
	int s;

	if (!guest_parse_ipv4(ip, port, &sin))
		return -1;
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	if (nonblock && rfcntl(s, F_SETFL, O_NONBLOCK)) {
		rclose(s);
		return -1;
	}
	if (rconnect(s, (struct sockaddr *)&sin, sizeof(sin)) &&
	    !(nonblock && errno == EINPROGRESS)) {
		rclose(s);
		return -1;
	}
	return s;
}

/* A connected pair on @ip: client in @c, server's end in @s. */
static bool pair_up(const char *ip, int *c, int *s)
{
	struct acceptor a;
	unsigned short port;
	int l = listener(ip, &port);

	if (!CHECK(l >= 0) || !CHECK(accept_start(&a, l)))
		return false;
	*c = connect_to(ip, port, false);
	*s = accept_end(&a);
	rclose(l);
	return CHECK(*c >= 0) && CHECK(*s >= 0);
}

static bool send_all(int s, const uint8_t *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = rsend(s, buf, len, 0);
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

static void pattern(uint8_t *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + seed);
}

/* Bytes @off to @off + @len of an endless stream's pattern. */
static void pattern_at(uint8_t *buf, size_t len, size_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)((off + i) * 31 + (off + i) / 251);
}

/* Whether the next @len bytes on @s are the stream's from @off on. */
static bool recv_pattern(int s, size_t len, size_t off)
{
	static uint8_t in[16384], want[16384];
	size_t n;

	while (len) {
		n = len < sizeof(in) ? len : sizeof(in);
		if (rrecv(s, in, n, MSG_WAITALL) != (ssize_t)n)
			return false;
		pattern_at(want, n, off);
		if (memcmp(in, want, n))
			return false;
		off += n;
		len -= n;
	}
	return true;
}

struct writer {
	pthread_t	thread;
	int		sock;
	size_t		off, len;
	bool		ok;
};

/* Blocking rsend()s of the stream's bytes w->off to w->off + w->len. */
static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	uint8_t out[16384];
	size_t n, end = w->off + w->len;
	ssize_t sent;

	while (w->off < end) {
		n = end - w->off < sizeof(out) ? end - w->off : sizeof(out);
		pattern_at(out, n, w->off);
		sent = rsend(w->sock, out, n, 0);
		if (sent <= 0)
			return NULL;
		/* A short send: the rest goes with the next chunk. */
		w->off += sent;
	}
	w->ok = true;
	return NULL;
}

TEST(closed_rsocket_ebadf)
{
	char b = 0;
	int s;

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, s);
	ASSERT_EQ(0, rclose(s));
	errno = 0;
	EXPECT_EQ(-1, rsend(s, &b, 1, 0));
	EXPECT_EQ(EBADF, errno);
	errno = 0;
	EXPECT_EQ(-1, rrecv(s, &b, 1, 0));
	EXPECT_EQ(EBADF, errno);
	guest_rs_assert_closed(_metadata, s);
}

TEST(rpoll_readiness)
{
	static uint8_t out[60000], in[60000];
	int c, s;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(pair_up(rxe, &c, &s));
	guest_rs_assert_writable(_metadata, c);

	pattern(out, sizeof(out), 3);
	ASSERT_TRUE(send_all(s, out, sizeof(out)));
	/* The data arrives in its own time; then both are ready at once. */
	guest_rs_assert_readable(_metadata, c);
	ASSERT_EQ((ssize_t)sizeof(in), rrecv(c, in, sizeof(in), MSG_WAITALL));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	guest_rs_assert_unreadable(_metadata, c);

	EXPECT_EQ(0, rclose(c));
	EXPECT_EQ(0, rclose(s));
}

TEST(nonblocking_connect)
{
	struct acceptor a;
	struct pollfd p;
	unsigned short port;
	socklen_t len = sizeof(int);
	int l, c, s, err = -1, i;
	char b[8] = "rsocket", r[8];

	GUEST_RXE_OR_SKIP(rxe);
	l = listener(rxe, &port);
	ASSERT_LE(0, l);
	ASSERT_TRUE(accept_start(&a, l));
	c = connect_to(rxe, port, true);
	ASSERT_LE(0, c);
	EXPECT_EQ(EINPROGRESS, errno);
	EXPECT_EQ(O_NONBLOCK, rfcntl(c, F_GETFL) & O_NONBLOCK);

	p = (struct pollfd){ .fd = c, .events = POLLOUT };
	ASSERT_EQ(1, rpoll(&p, 1, 15000));
	EXPECT_EQ(POLLOUT, p.revents);
	ASSERT_EQ(0, rgetsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(0, err);
	s = accept_end(&a);
	ASSERT_LE(0, s);
	rclose(l);

	errno = 0;
	EXPECT_EQ(-1, rrecv(c, r, sizeof(r), 0));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ((ssize_t)sizeof(b), rsend(c, b, sizeof(b), 0));
	ASSERT_EQ((ssize_t)sizeof(r), rrecv(s, r, sizeof(r), MSG_WAITALL));
	EXPECT_EQ(0, memcmp(b, r, sizeof(b)));
	ASSERT_EQ((ssize_t)sizeof(b), rsend(s, b, sizeof(b), 0));
	for (i = 0; i < 100; i++) {
		p = (struct pollfd){ .fd = c, .events = POLLIN };
		if (rpoll(&p, 1, 10000) == 1)
			break;
	}
	ASSERT_EQ((ssize_t)sizeof(r), rrecv(c, r, sizeof(r), 0));
	EXPECT_EQ(0, memcmp(b, r, sizeof(b)));
	EXPECT_EQ(0, rclose(c));
	EXPECT_EQ(0, rclose(s));
}

/*
 * In peer_dies_mid_transfer: wait up to 30 s for @ev on rsocket @s.
 * librdmacm 44 at times never reports the dead peer (its rrecv() then
 * blocks for good: a hang seen about once in five runs of the in-tree
 * control), so there the case skips, saying where; rcm must report it.
 */
#define PEER_GONE_WAIT(s, ev, what)					\
	do {								\
		struct pollfd p_ = { .fd = (s), .events = (ev) };	\
									\
		if (rpoll(&p_, 1, 30000) == 1)				\
			break;						\
		if (!guest_on_rcm())					\
			SKIP(return, "librdmacm 44 did not report %s "	\
			     "within 30 s (its known hang)", what);	\
		ASSERT_TRUE(false)					\
			TH_LOG("no %s within 30 s", what);		\
	} while (0)

TEST(peer_dies_mid_transfer)
{
	static uint8_t out[65536], in[65536];
	unsigned short port;
	struct acceptor a;
	int go[2], l, s, st, i;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	GUEST_RXE_OR_SKIP(rxe);
	pattern(out, sizeof(out), 11);
	/* Fork before any RDMA resource exists in this process. */
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int c;

		close(go[1]);
		if (read(go[0], &port, sizeof(port)) != sizeof(port))
			_exit(2);
		c = connect_to(rxe, port, false);
		if (c < 0 || !send_all(c, out, sizeof(out)))
			_exit(3);
		_exit(0);	/* no rclose(): the process just ends */
	}
	close(go[0]);
	l = listener(rxe, &port);
	ASSERT_LE(0, l);
	ASSERT_TRUE(accept_start(&a, l));
	ASSERT_EQ((ssize_t)sizeof(port), write(go[1], &port, sizeof(port)));
	close(go[1]);
	s = accept_end(&a);
	ASSERT_LE(0, s);
	rclose(l);

	while (got < sizeof(in)) {
		PEER_GONE_WAIT(s, POLLIN, "the data or the end of the stream");
		n = rrecv(s, in + got, sizeof(in) - got, 0);
		if (n <= 0)
			break;
		got += n;
	}
	/* What arrived is what was sent: the writes still in flight when
	 * the child's QP went may be lost, as a TCP peer's reset loses -
	 * all of them, when the child exits before rxe sent any (seen on
	 * both stacks under load).
	 */
	EXPECT_EQ(0, memcmp(in, out, got));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The end of the stream; sends fail once the last grant is used. */
	PEER_GONE_WAIT(s, POLLIN, "the end of the stream");
	EXPECT_EQ(0, rrecv(s, in, sizeof(in), 0));
	for (i = 0; i < 64; i++) {
		PEER_GONE_WAIT(s, POLLOUT, "room to send or the reset");
		n = rsend(s, out, sizeof(out), 0);
		if (n < 0)
			break;
	}
	EXPECT_EQ(-1, n);
	EXPECT_EQ(ECONNRESET, errno);
	EXPECT_EQ(0, rclose(s));
}

/* A plain CM connect to @ip:@port with @pdata: the call's result. */
static int raw_connect(const char *ip, unsigned short port,
		       const void *pdata, uint8_t len)
{
	struct rdma_conn_param cp = GUEST_CONN_PARAM;
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	int ret = -1, err = EINVAL;

	if (!guest_parse_ipv4(ip, port, &dst) ||
	    rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return -1;
	cp.private_data = pdata;
	cp.private_data_len = len;
	if (!rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) &&
	    !rdma_resolve_route(id, 2000) &&
	    guest_create_qp(id, IBV_QPT_RC, 4)) {
		ret = rdma_connect(id, &cp);
		err = errno;
	}
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	errno = err;
	return ret;
}

TEST(wrong_version_rejected)
{
	struct rs_wire_conn bad = {
		.version = 2, .credits = htons(16),
		.sgl_len = htonl(2), .buf_len = htonl(4096),
	};
	uint8_t garbage[4] = { 0xde, 0xad, 0xbe, 0xef };
	unsigned short port;
	struct acceptor a;
	int l, c, s;
	char b = 'x';

	GUEST_RXE_OR_SKIP(rxe);
	l = listener(rxe, &port);
	ASSERT_LE(0, l);
	ASSERT_TRUE(accept_start(&a, l));
	errno = 0;
	EXPECT_EQ(-1, raw_connect(rxe, port, &bad, sizeof(bad)));
	EXPECT_EQ(ECONNREFUSED, errno);
	errno = 0;
	EXPECT_EQ(-1, raw_connect(rxe, port, garbage, sizeof(garbage)));
	EXPECT_EQ(ECONNREFUSED, errno);

	c = connect_to(rxe, port, false);
	ASSERT_LE(0, c);
	s = accept_end(&a);
	ASSERT_LE(0, s);
	ASSERT_EQ(1, rsend(c, &b, 1, 0));
	b = 0;
	ASSERT_EQ(1, rrecv(s, &b, 1, 0));
	EXPECT_EQ('x', b);
	rclose(c);
	rclose(s);
	rclose(l);
}

struct raw_server {
	pthread_t		thread;
	struct rdma_event_channel *ch;
	struct rdma_cm_id	*listen;
	struct rdma_cm_id	*id;
	bool			accepted;
};

/* Accept one request, replying with an rsocket's data of version 2. */
static void *raw_server_thread(void *arg)
{
	struct rs_wire_conn bad = {
		.version = 2, .credits = htons(16),
		.sgl_len = htonl(2), .buf_len = htonl(4096),
	};
	struct rdma_conn_param cp = GUEST_CONN_PARAM;
	struct raw_server *r = arg;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	ev = guest_next_event(r->ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	if (!ev)
		return NULL;
	id = ev->id;
	r->id = id;
	rdma_ack_cm_event(ev);
	cp.private_data = &bad;
	cp.private_data_len = sizeof(bad);
	if (guest_create_qp(id, IBV_QPT_RC, 4) && !rdma_accept(id, &cp))
		r->accepted = true;
	return NULL;
}

TEST(wrong_version_reply)
{
	struct raw_server r = { 0 };
	struct sockaddr_in sin;
	int c;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_parse_ipv4(rxe, 0, &sin));
	r.ch = rdma_create_event_channel();
	ASSERT_NE(NULL, r.ch);
	ASSERT_EQ(0, rdma_create_id(r.ch, &r.listen, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_bind_addr(r.listen, (struct sockaddr *)&sin));
	ASSERT_EQ(0, rdma_listen(r.listen, 1));
	ASSERT_EQ(0, pthread_create(&r.thread, NULL, raw_server_thread, &r));

	errno = 0;
	c = connect_to(rxe, ntohs(rdma_get_src_port(r.listen)), false);
	EXPECT_EQ(-1, c);
	EXPECT_EQ(ENOTSUP, errno);
	ASSERT_TRUE(guest_join_within(r.thread, 20000, NULL));
	EXPECT_TRUE(r.accepted);
	guest_destroy_id(r.id);
	rdma_destroy_id(r.listen);
	rdma_destroy_event_channel(r.ch);
}

TEST(credits_exhausted)
{
	uint8_t out[16384];
	struct writer w = { 0 };
	struct pollfd p;
	size_t sent = 0;
	ssize_t n = 0;
	int c, s, fl;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(pair_up(rxe, &c, &s));
	fl = rfcntl(c, F_GETFL);
	ASSERT_LE(0, fl);
	ASSERT_EQ(0, rfcntl(c, F_SETFL, fl | O_NONBLOCK));
	/*
	 * Until EAGAIN lasts: an EAGAIN while the completions of the last
	 * writes are still coming frees room once rpoll() reaps them.
	 */
	while (sent < (32u << 20)) {
		pattern_at(out, sizeof(out), sent);
		n = rsend(c, out, sizeof(out), 0);
		if (n > 0) {
			sent += n;
			continue;
		}
		ASSERT_EQ(-1, n);
		ASSERT_EQ(EAGAIN, errno);
		p = (struct pollfd){ .fd = c, .events = POLLOUT };
		if (rpoll(&p, 1, 500) == 0)
			break;
	}
	ASSERT_GT(32u << 20, sent);
	EXPECT_LT(0, sent);
	TH_LOG("the writer stopped after %zu bytes", sent);
	ASSERT_TRUE(recv_pattern(s, sent, 0));

	/* Blocking now: the writer waits for the room the reader frees. */
	ASSERT_EQ(0, rfcntl(c, F_SETFL, fl));
	w.sock = c;
	w.off = sent;
	w.len = 4 * sent;
	ASSERT_EQ(0, pthread_create(&w.thread, NULL, writer_thread, &w));
	EXPECT_TRUE(recv_pattern(s, 4 * sent, sent));
	ASSERT_TRUE(guest_join_within(w.thread, 30000, NULL));
	EXPECT_TRUE(w.ok);
	EXPECT_EQ(0, rclose(c));
	EXPECT_EQ(0, rclose(s));
}

TEST(iwarp_stream)
{
	static uint8_t out[60000], in[60000];
	struct pollfd p;
	size_t got = 0;
	ssize_t n;
	int c, s;

	GUEST_ENV_OR_SKIP(siw, "RCM_ADDR_SIW");
	ASSERT_TRUE(pair_up(siw, &c, &s));
	pattern(out, sizeof(out), 5);
	ASSERT_TRUE(send_all(c, out, sizeof(out)));
	ASSERT_EQ((ssize_t)sizeof(in), rrecv(s, in, sizeof(in), MSG_WAITALL));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	ASSERT_TRUE(send_all(s, out, sizeof(out)));
	memset(in, 0, sizeof(in));
	while (got < sizeof(in)) {
		p = (struct pollfd){ .fd = c, .events = POLLIN };
		ASSERT_EQ(1, rpoll(&p, 1, 10000));
		n = rrecv(c, in + got, sizeof(in) - got, MSG_DONTWAIT);
		ASSERT_LT(0, n);
		got += n;
	}
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	EXPECT_EQ(0, rclose(c));
	EXPECT_EQ(0, rclose(s));
}

TEST(stream_rsendto_is_connected)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	char b = 7, got = 0;
	int c, s;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(pair_up(rxe, &c, &s));
	errno = 0;
	EXPECT_EQ(-1, rsendto(c, &b, 1, 0, (struct sockaddr *)&to,
			      sizeof(to)));
	EXPECT_EQ(EISCONN, errno);
	errno = 0;
	EXPECT_EQ(-1, rsendto(c, &b, 1, 0, NULL, sizeof(to)));
	EXPECT_EQ(EISCONN, errno);
	EXPECT_EQ(1, rsendto(c, &b, 1, 0, NULL, 0));
	ASSERT_EQ(1, rrecv(s, &got, 1, MSG_WAITALL));
	EXPECT_EQ(b, got);
	EXPECT_EQ(0, rclose(c));
	EXPECT_EQ(0, rclose(s));
}

RCM_TEST_MAIN
