// SPDX-License-Identifier: GPL-2.0-only
/*
 * sidr: datagram (UD) ids through rcm's ioctls, over SIDR (no QPs: the
 * CM never looks at them):
 * - 180 bytes of private data out and 136 back, intact, with the UD
 *   parameters checked: the QP number given to accept, the default Q_Key
 *   and one set by option on the listener or the request id, the
 *   server's GID as dgid;
 * - reject with data (UNREACHABLE, status 2); a request id destroyed
 *   unanswered (status 2); a port nobody serves (status 1); the
 *   private-data limits (181/137: EINVAL);
 * - CONNECT_TIMEOUT against a static neighbour entry nobody answers
 *   (ip neigh replace 198.18.1.77 lladdr 02:00:00:00:00:99 ... nud
 *   permanent, removed afterwards): a SIDR REQ with 500 ms and an RC REQ
 *   with 5 s report UNREACHABLE -ETIMEDOUT within their bounds;
 * - destroy and SIGKILL with a SIDR REQ out (kmemleak on the test
 *   kernel); UD QP attributes; the QKEY and CONNECT_TIMEOUT option
 *   rules; UD on siw (EOPNOTSUPP) and CONNECT_TIMEOUT on iWARP (EINVAL);
 * - both directions against the in-tree rdma_cm (./intree_udp,
 *   rdma-core's librdmacm over rdma_ucm.ko).
 *
 * Needs RCM_ADDR_RXE and RCM_NETDEV_RXE (Soft-RoCE); the iWARP case
 * RCM_ADDR_SIW.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

/* SIDR REP statuses. */
#define SIDR_UNSUPPORTED 1
#define SIDR_REJECT 2

#define QP_ATTR_STATE		(1 << 0)
#define QP_ATTR_PKEY_INDEX	(1 << 4)
#define QP_ATTR_PORT		(1 << 5)
#define QP_ATTR_QKEY		(1 << 6)
#define QP_ATTR_SQ_PSN		(1 << 16)

/*
 * A neighbour with a MAC nobody has, host 77 of the rxe address's /24:
 * frames to it vanish.
 */
#define DEAD_HOST 77
#define DEAD_MAC "02:00:00:00:00:99"
#define IP "/usr/sbin/ip"	/* iproute2's, as the guest's /init uses */

static char dead_ip[INET_ADDRSTRLEN];

static int ud_connect(int fd, unsigned int id, const void *data,
		      unsigned int len)
{
	struct rcm_connect c = {
		.size = sizeof(c), .id = id,
		.private_data = (uintptr_t)data, .private_data_len = len,
	};

	return ioctl(fd, RCM_IOCTL_CONNECT, &c);
}

static int ud_accept(int fd, unsigned int id, unsigned int qpn,
		     const void *data, unsigned int len)
{
	struct rcm_accept a = {
		.size = sizeof(a), .id = id, .qp_num = qpn, .context = 0xacc,
		.private_data = (uintptr_t)data, .private_data_len = len,
	};

	return ioctl(fd, RCM_IOCTL_ACCEPT, &a);
}

/*
 * A UDP id listening on @ip at a port bind chose, left in *@port; its
 * handle, or 0.
 */
static unsigned int ud_listener(int fd, const char *ip, unsigned short *port,
				unsigned long long ctx)
{
	unsigned int lid = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, ctx);

	if (!lid || rcm_bind(fd, lid, ip, 0) || rcm_listen(fd, lid, 0))
		return 0;
	*port = rcm_local_port(fd, lid);
	return *port ? lid : 0;
}

/* A UDP id routed to @ip:@port; its handle, or 0. */
static unsigned int ud_routed(int fd, const char *ip, unsigned short port,
			      unsigned long long ctx)
{
	unsigned int id = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, ctx);

	if (!id || rcm_routed(fd, id, ip, port))
		return 0;
	return id;
}

static void pattern(unsigned char *buf, unsigned int len, unsigned char seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		buf[i] = seed + i * 7;
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The RoCE v2 GID of an IPv4 address: ::ffff:a.b.c.d. */
static void v4_gid(const char *ip, unsigned char gid[16])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	inet_pton(AF_INET, ip, gid + 12);
}

/* Nothing more within @ms. */
static int quiet(int fd, int ms)
{
	struct rcm_event ev;

	if (rcm_wait_event(fd, ms, &ev) == 0) {
		fprintf(stderr, "# unexpected event %u status %d\n", ev.event,
			ev.status);
		return -1;
	}
	return 0;
}

/*
 * A UD listener of file @s on RCM_ADDR_RXE and a port bind chose, and
 * a client file @c: the set-up of the request-and-answer cases.
 */
FIXTURE(pair) {
	const char *ip;
	int s, c;
	unsigned int lid;
	unsigned short port;
};

#define LISTEN_CTX	0x51

FIXTURE_SETUP(pair)
{
	self->s = self->c = -1;
	self->ip = getenv("RCM_ADDR_RXE");
	if (!self->ip)
		SKIP_SETUP("no Soft-RoCE device");
	self->s = rcm_open_dev();
	self->c = rcm_open_dev();
	self->lid = ud_listener(self->s, self->ip, &self->port, LISTEN_CTX);
	ASSERT_TRUE(self->lid)
		TH_LOG("listen: %s", strerror(errno));
}

FIXTURE_TEARDOWN(pair)
{
	if (self->c >= 0)
		close(self->c);
	if (self->s >= 0)
		close(self->s);
}

/* A UDP id of the pair's client routed to its listener, or 0. */
static unsigned int pair_client(FIXTURE_DATA(pair) *self,
				unsigned long long ctx)
{
	return ud_routed(self->c, self->ip, self->port, ctx);
}

/*
 * A request of the pair's client (context @ctx, @len bytes of @data),
 * read on the listener's side into *@ev; the client's id.
 */
static unsigned int pair_request(struct __test_metadata *_metadata,
				 FIXTURE_DATA(pair) *self,
				 unsigned long long ctx, const void *data,
				 unsigned int len, struct rcm_event *ev)
{
	unsigned int cid = pair_client(self, ctx);

	ASSERT_TRUE(cid)
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, ud_connect(self->c, cid, data, len))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->s, RCM_EVENT_CONNECT_REQUEST, ev))
		TH_LOG("no request");
	return cid;
}

TEST_F(pair, sidr_resolve_with_private_data)
{
	const char *ip = self->ip;
	int s = self->s, c = self->c;
	unsigned char out[RCM_UD_CONNECT_PRIVATE_DATA_MAX];
	unsigned char back[RCM_UD_ACCEPT_PRIVATE_DATA_MAX];
	unsigned char zero[sizeof(struct rcm_ud_param)] = { 0 };
	unsigned char gid[16];
	struct rcm_event ev;
	unsigned int lid = self->lid, cid, rid;

	cid = pair_client(self, 0xc5);
	ASSERT_TRUE(cid)
		TH_LOG("route: %s", strerror(errno));
	pattern(out, sizeof(out), 1);
	ASSERT_EQ(0, ud_connect(c, cid, out, sizeof(out)))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_ERRNO(ud_connect(c, cid, out, 4), EINVAL);

	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_TRUE(ev.context == LISTEN_CTX && ev.listen_id == lid &&
		    rid != lid)
		TH_LOG("request ctx %llx listen %u id %u",
		       (unsigned long long)ev.context, ev.listen_id, rid);
	ASSERT_TRUE(ev.private_data_len == RCM_UD_CONNECT_PRIVATE_DATA_MAX &&
		    !memcmp(ev.private_data, out, sizeof(out)))
		TH_LOG("request data len %u, bytes differ", ev.private_data_len);
	ASSERT_TRUE(!memcmp(&ev.ud, zero, sizeof(zero)))
		TH_LOG("request ud not zero");
	/*
	 * Disconnect means nothing for UD: as in-tree rdma_disconnect() on
	 * an id with an ib_cm id, it sends nothing and returns 0.
	 */
	{
		struct rcm_disconnect d = { .size = sizeof(d), .id = rid };

		ASSERT_EQ(0, ioctl(s, RCM_IOCTL_DISCONNECT, &d))
			TH_LOG("UD disconnect: %s", strerror(errno));
	}

	pattern(back, sizeof(back), 99);
	ASSERT_EQ(0, ud_accept(s, rid, 0x123456, back, sizeof(back)))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_ERRNO(ud_accept(s, rid, 0x123456, back, 1), EINVAL);
	ASSERT_ERRNO(rcm_reject_data(s, rid, NULL, 0), EINVAL);

	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("no ESTABLISHED");
	ASSERT_TRUE(ev.id == cid && ev.context == 0xc5 && ev.status == 0)
		TH_LOG("established id %u ctx %llx status %d", ev.id,
		       (unsigned long long)ev.context, ev.status);
	ASSERT_TRUE(ev.ud.qp_num == 0x123456 && ev.ud.qkey == RCM_UDP_QKEY)
		TH_LOG("ud qpn %#x qkey %#x", ev.ud.qp_num, ev.ud.qkey);
	v4_gid(ip, gid);
	ASSERT_TRUE(!memcmp(ev.ud.ah_attr.dgid, gid, 16) &&
		    ev.ud.ah_attr.is_global == 1 && ev.ud.ah_attr.port_num == 1 &&
		    ev.ud.ah_attr.hop_limit > 0)
		TH_LOG("ah dgid %02x..%02x%02x global %u port %u hop %u",
		       ev.ud.ah_attr.dgid[0], ev.ud.ah_attr.dgid[14],
		       ev.ud.ah_attr.dgid[15], ev.ud.ah_attr.is_global,
		       ev.ud.ah_attr.port_num, ev.ud.ah_attr.hop_limit);
	ASSERT_TRUE(ev.private_data_len == RCM_UD_ACCEPT_PRIVATE_DATA_MAX &&
		    !memcmp(ev.private_data, back, sizeof(back)))
		TH_LOG("reply data len %u, bytes differ", ev.private_data_len);
	/* One answer; no ESTABLISHED on the passive side; no RTU. */
	{
		struct rcm_establish e = { .size = sizeof(e), .id = cid };

		ASSERT_ERRNO(ioctl(c, RCM_IOCTL_ESTABLISH, &e), EINVAL);
	}
	ASSERT_TRUE(quiet(s, 500) == 0 && quiet(c, 10) == 0)
		TH_LOG("extra events");
	ASSERT_TRUE(rcm_destroy(s, rid) == 0 && rcm_destroy(c, cid) == 0)
		TH_LOG("destroy: %s", strerror(errno));
}

TEST_F(pair, sidr_qkey_option_reaches_the_peer)
{
	int s = self->s, c = self->c;
	struct rcm_event ev;
	unsigned int rid;

	/* The listener's Q_Key is its requests'; a request may change it. */
	ASSERT_EQ(0, rcm_set_option(s, self->lid, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 0x1111))
		TH_LOG("qkey: %s", strerror(errno));
	pair_request(_metadata, self, 1, "a", 2, &ev);
	ASSERT_EQ(0, ud_accept(s, ev.id, 7, NULL, 0))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("no ESTABLISHED");
	ASSERT_TRUE(ev.ud.qkey == 0x1111 && ev.ud.qp_num == 7)
		TH_LOG("inherited qkey %#x qpn %u", ev.ud.qkey, ev.ud.qp_num);

	pair_request(_metadata, self, 2, "b", 2, &ev);
	rid = ev.id;
	ASSERT_EQ(0, rcm_set_option(s, rid, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 0x7fffffff))
		TH_LOG("qkey on request: %s", strerror(errno));
	ASSERT_EQ(0, ud_accept(s, rid, 8, NULL, 0))
		TH_LOG("accept: %s", strerror(errno));
	/* Too late once answered. */
	ASSERT_ERRNO(rcm_set_option(s, rid, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 5), EINVAL);
	ASSERT_ERRNO(rcm_set_option(s, rid, RCM_OPTION_ID,
				    RCM_OPTION_ID_CONNECT_TIMEOUT, 5), EINVAL);
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("no ESTABLISHED");
	ASSERT_TRUE(ev.ud.qkey == 0x7fffffff && ev.ud.qp_num == 8)
		TH_LOG("set qkey %#x qpn %u", ev.ud.qkey, ev.ud.qp_num);
}

TEST_F(pair, sidr_reject_with_private_data)
{
	int s = self->s, c = self->c;
	unsigned char no[RCM_UD_ACCEPT_PRIVATE_DATA_MAX];
	struct rcm_event ev;
	unsigned int cid;

	cid = pair_request(_metadata, self, 0xc3, NULL, 0, &ev);
	pattern(no, sizeof(no), 42);
	ASSERT_ERRNO(rcm_reject_data(s, ev.id, no, sizeof(no) + 1), EINVAL);
	ASSERT_ERRNO(ud_accept(s, ev.id, 1, no, sizeof(no) + 1), EINVAL);
	ASSERT_EQ(0, rcm_reject_data(s, ev.id, no, sizeof(no)))
		TH_LOG("reject: %s", strerror(errno));
	ASSERT_ERRNO(ud_accept(s, ev.id, 1, NULL, 0), EINVAL);
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev))
		TH_LOG("no UNREACHABLE");
	ASSERT_TRUE(ev.id == cid && ev.status == SIDR_REJECT)
		TH_LOG("id %u status %d", ev.id, ev.status);
	ASSERT_TRUE(ev.private_data_len == RCM_UD_ACCEPT_PRIVATE_DATA_MAX &&
		    !memcmp(ev.private_data, no, sizeof(no)))
		TH_LOG("reject data len %u, bytes differ", ev.private_data_len);
	ASSERT_EQ(0, quiet(c, 300))
		TH_LOG("extra events");
}

TEST_F(pair, sidr_request_destroyed_unanswered_is_rejected)
{
	int s = self->s, c = self->c;
	struct rcm_event ev;

	pair_request(_metadata, self, 0xc4, NULL, 0, &ev);
	ASSERT_EQ(0, rcm_destroy(s, ev.id))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev))
		TH_LOG("no UNREACHABLE");
	ASSERT_EQ(SIDR_REJECT, ev.status)
		TH_LOG("status %d", ev.status);
}

TEST(sidr_nobody_listens)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct timespec t0;
	struct rcm_event ev;
	unsigned int cid;
	double t;
	int c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	c = rcm_open_dev();
	cid = ud_routed(c, ip, rcm_free_port(ip, RCM_PS_UDP), 0xc9);
	ASSERT_TRUE(cid)
		TH_LOG("route: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, ud_connect(c, cid, "x", 2))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev))
		TH_LOG("no UNREACHABLE");
	t = since(&t0);
	/* ib_cm answers for a service ID nobody serves: status 1. */
	ASSERT_TRUE(ev.status == SIDR_UNSUPPORTED && t < 10)
		TH_LOG("status %d after %.1f s", ev.status, t);
	close(c);
}

TEST(sidr_private_data_limits)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned char big[RCM_UD_CONNECT_PRIVATE_DATA_MAX + 1];
	struct rcm_event ev;
	unsigned int cid;
	int c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	c = rcm_open_dev();
	/* Nobody serves the port: only the failed calls matter here. */
	cid = ud_routed(c, ip, rcm_free_port(ip, RCM_PS_UDP), 1);
	ASSERT_TRUE(cid)
		TH_LOG("route: %s", strerror(errno));
	pattern(big, sizeof(big), 3);
	ASSERT_ERRNO(ud_connect(c, cid, big, sizeof(big)), EINVAL);
	ASSERT_ERRNO(ud_connect(c, cid, (void *)8, 10), EFAULT);
	/* The failures left it routed: it still resolves. */
	ASSERT_EQ(0, ud_connect(c, cid, big, sizeof(big) - 1))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev))
		TH_LOG("no answer");
	close(c);
}

/*
 * Route a new id of @ps/@qpt to the dead neighbour (any port: nothing
 * answers there); its handle or 0.
 */
static unsigned int dead_routed(int fd, unsigned short ps, unsigned char qpt)
{
	unsigned int id = rcm_create(fd, ps, qpt, 0xdead);
	unsigned short port = rcm_free_port(getenv("RCM_ADDR_RXE"), ps);

	if (!id || !port || rcm_routed(fd, id, dead_ip, port))
		return 0;
	return id;
}

static int dead_neighbour(const char *netdev)
{
	struct in_addr a;

	if (inet_pton(AF_INET, getenv("RCM_ADDR_RXE"), &a) != 1)
		return -1;
	a.s_addr = (a.s_addr & htonl(0xffffff00)) | htonl(DEAD_HOST);
	inet_ntop(AF_INET, &a, dead_ip, sizeof(dead_ip));
	return rcm_sh(IP " neigh replace %s lladdr %s dev %s nud permanent",
		      dead_ip, DEAD_MAC, netdev);
}

static void dead_neighbour_gone(const char *netdev)
{
	rcm_sh(IP " neigh del %s dev %s", dead_ip, netdev);
}

static void timeout_case(struct __test_metadata *_metadata,
			 unsigned short ps, unsigned char qpt,
			 unsigned int bound_ms, double min_s, double max_s)
{
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct timespec t0;
	struct rcm_event ev;
	unsigned int id;
	double t;
	int c;

	if (!netdev || !getenv("RCM_ADDR_RXE"))
		SKIP(return, "no Soft-RoCE device");
	ASSERT_EQ(0, dead_neighbour(netdev))
		TH_LOG("ip neigh replace failed");
	c = rcm_open_dev();
	id = dead_routed(c, ps, qpt);
	if (!id) {
		dead_neighbour_gone(netdev);
		ASSERT_TRUE(0)
			TH_LOG("route to %s: %s", dead_ip, strerror(errno));
	}
	ASSERT_ERRNO(rcm_set_option(c, id, RCM_OPTION_ID, RCM_OPTION_ID_CONNECT_TIMEOUT,
				    RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	ASSERT_EQ(0, rcm_set_option(c, id, RCM_OPTION_ID, RCM_OPTION_ID_CONNECT_TIMEOUT, bound_ms))
		TH_LOG("set timeout: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_connect(c, id, 0x99, "t"))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_ERRNO(rcm_set_option(c, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_CONNECT_TIMEOUT, 1), EINVAL);
	if (rcm_wait_event(c, (int)(max_s * 1000) + 5000, &ev)) {
		dead_neighbour_gone(netdev);
		ASSERT_TRUE(0)
			TH_LOG("no event after %.1f s", since(&t0));
	}
	t = since(&t0);
	printf("# bound %u ms: event %u status %d after %.2f s\n", bound_ms,
	       ev.event, ev.status, t);
	dead_neighbour_gone(netdev);
	ASSERT_TRUE(ev.event == RCM_EVENT_UNREACHABLE &&
		    ev.status == -ETIMEDOUT)
		TH_LOG("event %u status %d", ev.event, ev.status);
	ASSERT_TRUE(t >= min_s && t <= max_s)
		TH_LOG("UNREACHABLE after %.2f s, want %.1f..%.1f",
		       t, min_s, max_s);
	close(c);
}

TEST(sidr_connect_timeout)
{
	/* 500 ms: 7 tries of 64 ms; in-tree's would be 16 x 4 s. */
	timeout_case(_metadata, RCM_PS_UDP, RCM_QPT_UD, 500, 0.3, 3.0);
}

TEST(rc_connect_timeout)
{
	/*
	 * 5 s: each REQ try also waits twice the RoCE packet lifetime
	 * (2 x 1 s), so 2 tries of 2.3 s; in-tree's would be about 98 s.
	 */
	timeout_case(_metadata, RCM_PS_TCP, RCM_QPT_RC, 5000, 3.0, 7.5);
}

TEST(sidr_destroy_and_kill_mid_request)
{
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct rcm_destroy_id d = { .size = sizeof(d) };
	struct timespec t0;
	unsigned int id;
	int c, st;
	pid_t pid;

	if (!netdev || !getenv("RCM_ADDR_RXE"))
		SKIP(return, "no Soft-RoCE device");
	ASSERT_EQ(0, dead_neighbour(netdev))
		TH_LOG("ip neigh replace failed");
	c = rcm_open_dev();
	id = dead_routed(c, RCM_PS_UDP, RCM_QPT_UD);
	ASSERT_TRUE(id)
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, ud_connect(c, id, "z", 2))
		TH_LOG("connect: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	d.id = id;
	ASSERT_EQ(0, ioctl(c, RCM_IOCTL_DESTROY_ID, &d))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_GT(2, since(&t0))
		TH_LOG("destroy took %.1f s", since(&t0));
	ASSERT_EQ(0, quiet(c, 300))
		TH_LOG("event after destroy");

	pid = fork();
	if (pid == 0) {
		int k = rcm_open_dev();
		unsigned int kid = dead_routed(k, RCM_PS_UDP, RCM_QPT_UD);

		if (!kid || ud_connect(k, kid, "y", 2))
			_exit(1);
		raise(SIGKILL);
	}
	ASSERT_LT(0, pid)
		TH_LOG("fork");
	ASSERT_TRUE(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st))
		TH_LOG("client did not die by SIGKILL (status %#x)", st);
	dead_neighbour_gone(netdev);
	close(c);
}

TEST(ud_init_qp_attr)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_init_qp_attr a;
	unsigned int ud;
	int fd;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	fd = rcm_open_dev();
	ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 1);
	ASSERT_TRUE(ud)
		TH_LOG("create: %s", strerror(errno));
	/* Not attached yet. */
	ASSERT_ERRNO(rcm_qp_attrs(fd, ud, 1 << RCM_QPS_INIT, &a), EINVAL);
	ASSERT_EQ(0, rcm_routed(fd, ud, ip, rcm_free_port(ip, RCM_PS_UDP)))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_qp_attrs(fd, ud, RCM_QP_STATES_ALL, &a))
		TH_LOG("attrs: %s", strerror(errno));
	ASSERT_TRUE(a.out_attr[0].qp_attr_mask == (QP_ATTR_STATE | QP_ATTR_PKEY_INDEX |
		    QP_ATTR_PORT | QP_ATTR_QKEY) &&
		    a.out_attr[0].qp_state == RCM_QPS_INIT &&
		    a.out_attr[0].qkey == RCM_UDP_QKEY &&
		    a.out_attr[0].port_num == 1 && a.out_attr[0].pkey_index == 0)
		TH_LOG("INIT mask %#x state %u qkey %#x port %u pkey %u",
		       a.out_attr[0].qp_attr_mask, a.out_attr[0].qp_state,
		       a.out_attr[0].qkey, a.out_attr[0].port_num,
		       a.out_attr[0].pkey_index);
	ASSERT_TRUE(a.out_attr[1].qp_attr_mask == QP_ATTR_STATE &&
		    a.out_attr[1].qp_state == RCM_QPS_RTR)
		TH_LOG("RTR mask %#x state %u", a.out_attr[1].qp_attr_mask,
		       a.out_attr[1].qp_state);
	ASSERT_TRUE(a.out_attr[2].qp_attr_mask == (QP_ATTR_STATE | QP_ATTR_SQ_PSN) &&
		    a.out_attr[2].qp_state == RCM_QPS_RTS &&
		    a.out_attr[2].sq_psn == 0)
		TH_LOG("RTS mask %#x state %u psn %u", a.out_attr[2].qp_attr_mask,
		       a.out_attr[2].qp_state, a.out_attr[2].sq_psn);
	ASSERT_EQ(0, rcm_set_option(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 0x42))
		TH_LOG("qkey: %s", strerror(errno));
	ASSERT_EQ(0, rcm_qp_attrs(fd, ud, 1 << RCM_QPS_INIT, &a))
		TH_LOG("INIT: %s", strerror(errno));
	ASSERT_EQ(0x42, a.out_attr[0].qkey)
		TH_LOG("INIT qkey %#x after option", a.out_attr[0].qkey);
	close(fd);
}

TEST(ud_option_errors)
{
	int fd = rcm_open_dev();
	unsigned int rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);
	unsigned int ibud = rcm_create(fd, RCM_PS_IB, RCM_QPT_UD, 3);
	unsigned int ipoib = rcm_create(fd, RCM_PS_IPOIB, RCM_QPT_UD, 4);

	ASSERT_TRUE(rc && ud && ibud && ipoib)
		TH_LOG("create: %s", strerror(errno));
	/* The Q_Key is a UD notion; bit 31 is IB's controlled Q_Keys. */
	ASSERT_ERRNO(rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 5), EINVAL);
	ASSERT_ERRNO(rcm_set_option(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 0x80000000), EINVAL);
	ASSERT_ERRNO(rcm_set_option(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 0x100000000ULL),
		     EINVAL);
	ASSERT_EQ(0, rcm_set_option(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 0x7fffffff))
		TH_LOG("qkey: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, ibud, RCM_OPTION_ID, RCM_OPTION_ID_QKEY, 0))
		TH_LOG("qkey 0: %s", strerror(errno));
	ASSERT_TRUE(rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_CONNECT_TIMEOUT, 0) == 0 &&
		    rcm_set_option(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_CONNECT_TIMEOUT,
				   RCM_MAX_TIMEOUT_MS) == 0)
		TH_LOG("connect timeout: %s", strerror(errno));
	ASSERT_ERRNO(rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_CONNECT_TIMEOUT,
				    RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	/* No IPoIB port space service on RoCE. */
	ASSERT_ERRNO(rcm_listen(fd, ipoib, 0), EOPNOTSUPP);
	close(fd);
}

TEST(ud_on_iwarp_is_eopnotsupp)
{
	const char *sip = getenv("RCM_ADDR_SIW");
	unsigned int ud, lud, rc;
	unsigned short port;
	int fd;

	if (!sip)
		SKIP(return, "no siw device");
	fd = rcm_open_dev();
	ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 1);
	lud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);
	rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 3);
	ASSERT_TRUE(ud && lud && rc)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(fd, lud, sip, 0))
		TH_LOG("bind: %s", strerror(errno));
	port = rcm_local_port(fd, lud);
	ASSERT_ERRNO(rcm_listen(fd, lud, 0), EOPNOTSUPP);
	ASSERT_EQ(0, rcm_routed(fd, ud, sip, port))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_ERRNO(ud_connect(fd, ud, NULL, 0), EOPNOTSUPP);
	/* MPA runs on the driver's timers: no CONNECT_TIMEOUT there. */
	ASSERT_EQ(0, rcm_routed(fd, rc, sip, port))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_CONNECT_TIMEOUT, 1000))
		TH_LOG("set: %s", strerror(errno));
	ASSERT_ERRNO(rcm_connect(fd, rc, 1, NULL), EINVAL);
	close(fd);
}

/*
 * Start ./intree_udp server on @ip and a port its bind chose, left in
 * *@port; returns once it listens.
 */
static pid_t intree_udp_server(const char *ip, unsigned short *port,
			       const char *expect_data, const char *reply)
{
	return rcm_spawn_listening((char *[]){ "./intree_udp",
		"server", (char *)ip, "0", (char *)expect_data,
		(char *)reply, NULL }, port);
}

TEST(sidr_rcm_client_to_intree_listener)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned char gid[16];
	unsigned short port;
	struct rcm_event ev;
	unsigned int cid;
	pid_t pid;
	int c, st;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	if (!rcm_have_intree_cm())
		SKIP(return, "no in-tree rdma_ucm");
	pid = intree_udp_server(ip, &port, "hello", "accept:world");
	ASSERT_LT(0, pid)
		TH_LOG("intree_udp server did not start");
	c = rcm_open_dev();
	cid = ud_routed(c, ip, port, 0xc10);
	ASSERT_TRUE(cid)
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, ud_connect(c, cid, "hello", 6))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("no ESTABLISHED");
	v4_gid(ip, gid);
	ASSERT_TRUE(ev.ud.qp_num == 0x4321 && ev.ud.qkey == RCM_UDP_QKEY &&
		    !memcmp(ev.ud.ah_attr.dgid, gid, 16))
		TH_LOG("in-tree answer qpn %#x qkey %#x", ev.ud.qp_num, ev.ud.qkey);
	ASSERT_TRUE(ev.private_data_len == RCM_UD_ACCEPT_PRIVATE_DATA_MAX &&
		    !strcmp((char *)ev.private_data, "world"))
		TH_LOG("in-tree reply '%.20s' len %u", ev.private_data,
		       ev.private_data_len);
	st = rcm_exit_status(pid);
	ASSERT_EQ(0, st)
		TH_LOG("intree_udp server exited %d", st);

	pid = intree_udp_server(ip, &port, "again", "reject:nope");
	ASSERT_LT(0, pid)
		TH_LOG("intree_udp server did not start");
	cid = ud_routed(c, ip, port, 0xc11);
	ASSERT_TRUE(cid)
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, ud_connect(c, cid, "again", 6))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev))
		TH_LOG("no UNREACHABLE");
	ASSERT_TRUE(ev.status == SIDR_REJECT &&
		    !strcmp((char *)ev.private_data, "nope"))
		TH_LOG("in-tree reject status %d data '%.20s'", ev.status,
		       ev.private_data);
	st = rcm_exit_status(pid);
	ASSERT_EQ(0, st)
		TH_LOG("intree_udp server exited %d", st);
	close(c);
}

/* ./intree_udp client against an rcm UD listener answering with @reply. */
static void intree_client_case(struct __test_metadata *_metadata, int accept)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned short port;
	char portstr[8];
	struct rcm_event ev;
	unsigned int lid;
	pid_t pid;
	int s, st;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	if (!rcm_have_intree_cm())
		SKIP(return, "no in-tree rdma_ucm");
	s = rcm_open_dev();
	lid = ud_listener(s, ip, &port, 0x5e);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	snprintf(portstr, sizeof(portstr), "%u", port);
	pid = fork();
	if (pid == 0) {
		execl("./intree_udp", "intree_udp", "client", ip, portstr,
		      "ping", accept ? "2345" : "reject",
		      accept ? "pong" : "nope", (char *)NULL);
		_exit(3);
	}
	ASSERT_LT(0, pid)
		TH_LOG("fork");
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	ASSERT_TRUE(ev.private_data_len == RCM_UD_CONNECT_PRIVATE_DATA_MAX &&
		    !strcmp((char *)ev.private_data, "ping"))
		TH_LOG("in-tree request '%.20s' len %u", ev.private_data,
		       ev.private_data_len);
	if (accept) {
		ASSERT_EQ(0, ud_accept(s, ev.id, 0x2345, "pong", 5))
			TH_LOG("accept: %s", strerror(errno));
	} else {
		ASSERT_EQ(0, rcm_reject_data(s, ev.id, "nope", 5))
			TH_LOG("reject: %s", strerror(errno));
	}
	st = rcm_exit_status(pid);
	ASSERT_EQ(0, st)
		TH_LOG("intree_udp client exited %d", st);
	close(s);
}

TEST(sidr_intree_client_to_rcm_listener)
{
	intree_client_case(_metadata, 1);
}

TEST(sidr_intree_client_rejected_by_rcm_listener)
{
	intree_client_case(_metadata, 0);
}

RCM_TEST_MAIN
