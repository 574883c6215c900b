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

#include "rcm_test.h"

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

static int set_opt(int fd, unsigned int id, unsigned int name,
		   unsigned long long value)
{
	struct rcm_set_option o = {
		.size = sizeof(o), .id = id, .level = RCM_OPTION_ID,
		.optname = name, .value = value,
	};

	return ioctl(fd, RCM_IOCTL_SET_OPTION, &o);
}

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

static int ud_reject(int fd, unsigned int id, const void *data,
		     unsigned int len)
{
	struct rcm_reject r = {
		.size = sizeof(r), .id = id,
		.private_data = (uintptr_t)data, .private_data_len = len,
	};

	return ioctl(fd, RCM_IOCTL_REJECT, &r);
}

/* A UDP id listening on @ip:@port; its handle, or 0. */
static unsigned int ud_listener(int fd, const char *ip, unsigned short port,
				unsigned long long ctx)
{
	unsigned int lid = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, ctx);

	if (!lid || rcm_bind(fd, lid, ip, port) || rcm_listen(fd, lid, 0))
		return 0;
	return lid;
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

static int qp_attrs(int fd, unsigned int id, unsigned int states,
		    struct rcm_init_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->id = id;
	a->qp_states = states;
	return ioctl(fd, RCM_IOCTL_INIT_QP_ATTR, a);
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

RCM_TEST(sidr_resolve_with_private_data)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned char out[RCM_UD_CONNECT_PRIVATE_DATA_MAX];
	unsigned char back[RCM_UD_ACCEPT_PRIVATE_DATA_MAX];
	unsigned char zero[sizeof(struct rcm_ud_param)] = { 0 };
	unsigned char gid[16];
	struct rcm_event ev;
	unsigned int lid, cid, rid;
	int s, c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = ud_listener(s, ip, 20201, 0x51);
	CHECK(lid, "listen: %s", strerror(errno));
	cid = ud_routed(c, ip, 20201, 0xc5);
	CHECK(cid, "route: %s", strerror(errno));
	pattern(out, sizeof(out), 1);
	CHECK(ud_connect(c, cid, out, sizeof(out)) == 0, "connect: %s",
	      strerror(errno));
	CHECK_ERRNO(ud_connect(c, cid, out, 4), EINVAL);

	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	rid = ev.id;
	CHECK(ev.context == 0x51 && ev.listen_id == lid && rid != lid,
	      "request ctx %llx listen %u id %u",
	      (unsigned long long)ev.context, ev.listen_id, rid);
	CHECK(ev.private_data_len == RCM_UD_CONNECT_PRIVATE_DATA_MAX &&
	      !memcmp(ev.private_data, out, sizeof(out)),
	      "request data len %u, bytes differ", ev.private_data_len);
	CHECK(!memcmp(&ev.ud, zero, sizeof(zero)), "request ud not zero");
	/*
	 * Disconnect means nothing for UD: as in-tree rdma_disconnect() on
	 * an id with an ib_cm id, it sends nothing and returns 0.
	 */
	{
		struct rcm_disconnect d = { .size = sizeof(d), .id = rid };

		CHECK(ioctl(s, RCM_IOCTL_DISCONNECT, &d) == 0,
		      "UD disconnect: %s", strerror(errno));
	}

	pattern(back, sizeof(back), 99);
	CHECK(ud_accept(s, rid, 0x123456, back, sizeof(back)) == 0,
	      "accept: %s", strerror(errno));
	CHECK_ERRNO(ud_accept(s, rid, 0x123456, back, 1), EINVAL);
	CHECK_ERRNO(ud_reject(s, rid, NULL, 0), EINVAL);

	CHECK(rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev) == 0, "no ESTABLISHED");
	CHECK(ev.id == cid && ev.context == 0xc5 && ev.status == 0,
	      "established id %u ctx %llx status %d", ev.id,
	      (unsigned long long)ev.context, ev.status);
	CHECK(ev.ud.qp_num == 0x123456 && ev.ud.qkey == RCM_UDP_QKEY,
	      "ud qpn %#x qkey %#x", ev.ud.qp_num, ev.ud.qkey);
	v4_gid(ip, gid);
	CHECK(!memcmp(ev.ud.ah_attr.dgid, gid, 16) &&
	      ev.ud.ah_attr.is_global == 1 && ev.ud.ah_attr.port_num == 1 &&
	      ev.ud.ah_attr.hop_limit > 0,
	      "ah dgid %02x..%02x%02x global %u port %u hop %u",
	      ev.ud.ah_attr.dgid[0], ev.ud.ah_attr.dgid[14],
	      ev.ud.ah_attr.dgid[15], ev.ud.ah_attr.is_global,
	      ev.ud.ah_attr.port_num, ev.ud.ah_attr.hop_limit);
	CHECK(ev.private_data_len == RCM_UD_ACCEPT_PRIVATE_DATA_MAX &&
	      !memcmp(ev.private_data, back, sizeof(back)),
	      "reply data len %u, bytes differ", ev.private_data_len);
	/* One answer; no ESTABLISHED on the passive side; no RTU. */
	{
		struct rcm_establish e = { .size = sizeof(e), .id = cid };

		CHECK_ERRNO(ioctl(c, RCM_IOCTL_ESTABLISH, &e), EINVAL);
	}
	CHECK(quiet(s, 500) == 0 && quiet(c, 10) == 0, "extra events");
	CHECK(rcm_destroy(s, rid) == 0 && rcm_destroy(c, cid) == 0,
	      "destroy: %s", strerror(errno));
	close(c);
	close(s);
}

RCM_TEST(sidr_qkey_option_reaches_the_peer)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_event ev;
	unsigned int lid, cid, rid;
	int s, c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = ud_listener(s, ip, 20202, 0x52);
	CHECK(lid, "listen: %s", strerror(errno));
	/* The listener's Q_Key is its requests'; a request may change it. */
	CHECK(set_opt(s, lid, RCM_OPTION_ID_QKEY, 0x1111) == 0, "qkey: %s",
	      strerror(errno));
	cid = ud_routed(c, ip, 20202, 1);
	CHECK(cid, "route: %s", strerror(errno));
	CHECK(ud_connect(c, cid, "a", 2) == 0, "connect: %s", strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	CHECK(ud_accept(s, ev.id, 7, NULL, 0) == 0, "accept: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev) == 0, "no ESTABLISHED");
	CHECK(ev.ud.qkey == 0x1111 && ev.ud.qp_num == 7,
	      "inherited qkey %#x qpn %u", ev.ud.qkey, ev.ud.qp_num);

	cid = ud_routed(c, ip, 20202, 2);
	CHECK(cid, "route: %s", strerror(errno));
	CHECK(ud_connect(c, cid, "b", 2) == 0, "connect: %s", strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	rid = ev.id;
	CHECK(set_opt(s, rid, RCM_OPTION_ID_QKEY, 0x7fffffff) == 0,
	      "qkey on request: %s", strerror(errno));
	CHECK(ud_accept(s, rid, 8, NULL, 0) == 0, "accept: %s",
	      strerror(errno));
	/* Too late once answered. */
	CHECK_ERRNO(set_opt(s, rid, RCM_OPTION_ID_QKEY, 5), EINVAL);
	CHECK_ERRNO(set_opt(s, rid, RCM_OPTION_ID_CONNECT_TIMEOUT, 5), EINVAL);
	CHECK(rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev) == 0, "no ESTABLISHED");
	CHECK(ev.ud.qkey == 0x7fffffff && ev.ud.qp_num == 8,
	      "set qkey %#x qpn %u", ev.ud.qkey, ev.ud.qp_num);
	close(c);
	close(s);
}

RCM_TEST(sidr_reject_with_private_data)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned char no[RCM_UD_ACCEPT_PRIVATE_DATA_MAX];
	struct rcm_event ev;
	unsigned int lid, cid;
	int s, c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = ud_listener(s, ip, 20203, 0x53);
	CHECK(lid, "listen: %s", strerror(errno));
	cid = ud_routed(c, ip, 20203, 0xc3);
	CHECK(cid, "route: %s", strerror(errno));
	CHECK(ud_connect(c, cid, NULL, 0) == 0, "connect: %s", strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	pattern(no, sizeof(no), 42);
	CHECK_ERRNO(ud_reject(s, ev.id, no, sizeof(no) + 1), EINVAL);
	CHECK_ERRNO(ud_accept(s, ev.id, 1, no, sizeof(no) + 1), EINVAL);
	CHECK(ud_reject(s, ev.id, no, sizeof(no)) == 0, "reject: %s",
	      strerror(errno));
	CHECK_ERRNO(ud_accept(s, ev.id, 1, NULL, 0), EINVAL);
	CHECK(rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev) == 0, "no UNREACHABLE");
	CHECK(ev.id == cid && ev.status == SIDR_REJECT, "id %u status %d",
	      ev.id, ev.status);
	CHECK(ev.private_data_len == RCM_UD_ACCEPT_PRIVATE_DATA_MAX &&
	      !memcmp(ev.private_data, no, sizeof(no)),
	      "reject data len %u, bytes differ", ev.private_data_len);
	CHECK(quiet(c, 300) == 0, "extra events");
	close(c);
	close(s);
}

RCM_TEST(sidr_request_destroyed_unanswered_is_rejected)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_event ev;
	unsigned int lid, cid;
	int s, c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = ud_listener(s, ip, 20204, 0x54);
	CHECK(lid, "listen: %s", strerror(errno));
	cid = ud_routed(c, ip, 20204, 0xc4);
	CHECK(cid, "route: %s", strerror(errno));
	CHECK(ud_connect(c, cid, NULL, 0) == 0, "connect: %s", strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	CHECK(rcm_destroy(s, ev.id) == 0, "destroy: %s", strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev) == 0, "no UNREACHABLE");
	CHECK(ev.status == SIDR_REJECT, "status %d", ev.status);
	close(c);
	close(s);
}

RCM_TEST(sidr_nobody_listens)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct timespec t0;
	struct rcm_event ev;
	unsigned int cid;
	double t;
	int c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	c = rcm_open_dev();
	cid = ud_routed(c, ip, 20299, 0xc9);
	CHECK(cid, "route: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(ud_connect(c, cid, "x", 2) == 0, "connect: %s", strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev) == 0, "no UNREACHABLE");
	t = since(&t0);
	/* ib_cm answers for a service ID nobody serves: status 1. */
	CHECK(ev.status == SIDR_UNSUPPORTED && t < 10, "status %d after %.1f s",
	      ev.status, t);
	close(c);
}

RCM_TEST(sidr_private_data_limits)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned char big[RCM_UD_CONNECT_PRIVATE_DATA_MAX + 1];
	struct rcm_event ev;
	unsigned int cid;
	int c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	c = rcm_open_dev();
	cid = ud_routed(c, ip, 20205, 1);
	CHECK(cid, "route: %s", strerror(errno));
	pattern(big, sizeof(big), 3);
	CHECK_ERRNO(ud_connect(c, cid, big, sizeof(big)), EINVAL);
	CHECK_ERRNO(ud_connect(c, cid, (void *)8, 10), EFAULT);
	/* The failures left it routed: it still resolves. */
	CHECK(ud_connect(c, cid, big, sizeof(big) - 1) == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev) == 0, "no answer");
	close(c);
}

/* Route a new id of @ps/@qpt to the dead neighbour; its handle or 0. */
static unsigned int dead_routed(int fd, unsigned short ps, unsigned char qpt,
				unsigned short port)
{
	unsigned int id = rcm_create(fd, ps, qpt, 0xdead);

	if (!id || rcm_routed(fd, id, dead_ip, port))
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

static void timeout_case(unsigned short ps, unsigned char qpt,
			 unsigned int bound_ms, double min_s, double max_s)
{
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct timespec t0;
	struct rcm_event ev;
	unsigned int id;
	double t;
	int c;

	if (!netdev || !getenv("RCM_ADDR_RXE"))
		SKIP("no Soft-RoCE device");
	CHECK(dead_neighbour(netdev) == 0, "ip neigh replace failed");
	c = rcm_open_dev();
	id = dead_routed(c, ps, qpt, 20206);
	if (!id) {
		dead_neighbour_gone(netdev);
		CHECK(0, "route to %s: %s", dead_ip, strerror(errno));
	}
	CHECK_ERRNO(set_opt(c, id, RCM_OPTION_ID_CONNECT_TIMEOUT,
			    RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	CHECK(set_opt(c, id, RCM_OPTION_ID_CONNECT_TIMEOUT, bound_ms) == 0,
	      "set timeout: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(rcm_connect(c, id, 0x99, "t") == 0, "connect: %s",
	      strerror(errno));
	CHECK_ERRNO(set_opt(c, id, RCM_OPTION_ID_CONNECT_TIMEOUT, 1), EINVAL);
	if (rcm_wait_event(c, (int)(max_s * 1000) + 5000, &ev)) {
		dead_neighbour_gone(netdev);
		CHECK(0, "no event after %.1f s", since(&t0));
	}
	t = since(&t0);
	printf("# bound %u ms: event %u status %d after %.2f s\n", bound_ms,
	       ev.event, ev.status, t);
	dead_neighbour_gone(netdev);
	CHECK(ev.event == RCM_EVENT_UNREACHABLE && ev.status == -ETIMEDOUT,
	      "event %u status %d", ev.event, ev.status);
	CHECK(t >= min_s && t <= max_s, "UNREACHABLE after %.2f s, want %.1f..%.1f",
	      t, min_s, max_s);
	close(c);
}

RCM_TEST(sidr_connect_timeout)
{
	/* 500 ms: 7 tries of 64 ms; in-tree's would be 16 x 4 s. */
	timeout_case(RCM_PS_UDP, RCM_QPT_UD, 500, 0.3, 3.0);
}

RCM_TEST(rc_connect_timeout)
{
	/*
	 * 5 s: each REQ try also waits twice the RoCE packet lifetime
	 * (2 x 1 s), so 2 tries of 2.3 s; in-tree's would be about 98 s.
	 */
	timeout_case(RCM_PS_TCP, RCM_QPT_RC, 5000, 3.0, 7.5);
}

RCM_TEST(sidr_destroy_and_kill_mid_request)
{
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct rcm_destroy_id d = { .size = sizeof(d) };
	struct timespec t0;
	unsigned int id;
	int c, st;
	pid_t pid;

	if (!netdev || !getenv("RCM_ADDR_RXE"))
		SKIP("no Soft-RoCE device");
	CHECK(dead_neighbour(netdev) == 0, "ip neigh replace failed");
	c = rcm_open_dev();
	id = dead_routed(c, RCM_PS_UDP, RCM_QPT_UD, 20207);
	CHECK(id, "route: %s", strerror(errno));
	CHECK(ud_connect(c, id, "z", 2) == 0, "connect: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	d.id = id;
	CHECK(ioctl(c, RCM_IOCTL_DESTROY_ID, &d) == 0, "destroy: %s",
	      strerror(errno));
	CHECK(since(&t0) < 2, "destroy took %.1f s", since(&t0));
	CHECK(quiet(c, 300) == 0, "event after destroy");

	pid = fork();
	if (pid == 0) {
		int k = rcm_open_dev();
		unsigned int kid = dead_routed(k, RCM_PS_UDP, RCM_QPT_UD,
					       20207);

		if (!kid || ud_connect(k, kid, "y", 2))
			_exit(1);
		raise(SIGKILL);
	}
	CHECK(pid > 0, "fork");
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st),
	      "client did not die by SIGKILL (status %#x)", st);
	dead_neighbour_gone(netdev);
	close(c);
}

RCM_TEST(ud_init_qp_attr)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_init_qp_attr a;
	unsigned int ud;
	int fd;

	if (!ip)
		SKIP("no Soft-RoCE device");
	fd = rcm_open_dev();
	ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 1);
	CHECK(ud, "create: %s", strerror(errno));
	/* Not attached yet. */
	CHECK_ERRNO(qp_attrs(fd, ud, 1 << RCM_QPS_INIT, &a), EINVAL);
	CHECK(rcm_routed(fd, ud, ip, 20208) == 0, "route: %s",
	      strerror(errno));
	CHECK(qp_attrs(fd, ud, (1 << RCM_QPS_INIT) | (1 << RCM_QPS_RTR) |
		       (1 << RCM_QPS_RTS), &a) == 0, "attrs: %s",
	      strerror(errno));
	CHECK(a.out_attr[0].qp_attr_mask == (QP_ATTR_STATE | QP_ATTR_PKEY_INDEX |
					     QP_ATTR_PORT | QP_ATTR_QKEY) &&
	      a.out_attr[0].qp_state == RCM_QPS_INIT &&
	      a.out_attr[0].qkey == RCM_UDP_QKEY &&
	      a.out_attr[0].port_num == 1 && a.out_attr[0].pkey_index == 0,
	      "INIT mask %#x state %u qkey %#x port %u pkey %u",
	      a.out_attr[0].qp_attr_mask, a.out_attr[0].qp_state,
	      a.out_attr[0].qkey, a.out_attr[0].port_num,
	      a.out_attr[0].pkey_index);
	CHECK(a.out_attr[1].qp_attr_mask == QP_ATTR_STATE &&
	      a.out_attr[1].qp_state == RCM_QPS_RTR,
	      "RTR mask %#x state %u", a.out_attr[1].qp_attr_mask,
	      a.out_attr[1].qp_state);
	CHECK(a.out_attr[2].qp_attr_mask == (QP_ATTR_STATE | QP_ATTR_SQ_PSN) &&
	      a.out_attr[2].qp_state == RCM_QPS_RTS &&
	      a.out_attr[2].sq_psn == 0,
	      "RTS mask %#x state %u psn %u", a.out_attr[2].qp_attr_mask,
	      a.out_attr[2].qp_state, a.out_attr[2].sq_psn);
	CHECK(set_opt(fd, ud, RCM_OPTION_ID_QKEY, 0x42) == 0, "qkey: %s",
	      strerror(errno));
	CHECK(qp_attrs(fd, ud, 1 << RCM_QPS_INIT, &a) == 0, "INIT: %s",
	      strerror(errno));
	CHECK(a.out_attr[0].qkey == 0x42, "INIT qkey %#x after option",
	      a.out_attr[0].qkey);
	close(fd);
}

RCM_TEST(ud_option_errors)
{
	int fd = rcm_open_dev();
	unsigned int rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);
	unsigned int ibud = rcm_create(fd, RCM_PS_IB, RCM_QPT_UD, 3);
	unsigned int ipoib = rcm_create(fd, RCM_PS_IPOIB, RCM_QPT_UD, 4);

	CHECK(rc && ud && ibud && ipoib, "create: %s", strerror(errno));
	/* The Q_Key is a UD notion; bit 31 is IB's controlled Q_Keys. */
	CHECK_ERRNO(set_opt(fd, rc, RCM_OPTION_ID_QKEY, 5), EINVAL);
	CHECK_ERRNO(set_opt(fd, ud, RCM_OPTION_ID_QKEY, 0x80000000), EINVAL);
	CHECK_ERRNO(set_opt(fd, ud, RCM_OPTION_ID_QKEY, 0x100000000ULL),
		    EINVAL);
	CHECK(set_opt(fd, ud, RCM_OPTION_ID_QKEY, 0x7fffffff) == 0,
	      "qkey: %s", strerror(errno));
	CHECK(set_opt(fd, ibud, RCM_OPTION_ID_QKEY, 0) == 0, "qkey 0: %s",
	      strerror(errno));
	CHECK(set_opt(fd, rc, RCM_OPTION_ID_CONNECT_TIMEOUT, 0) == 0 &&
	      set_opt(fd, ud, RCM_OPTION_ID_CONNECT_TIMEOUT,
		      RCM_MAX_TIMEOUT_MS) == 0, "connect timeout: %s",
	      strerror(errno));
	CHECK_ERRNO(set_opt(fd, rc, RCM_OPTION_ID_CONNECT_TIMEOUT,
			    RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	/* No IPoIB port space service on RoCE. */
	CHECK_ERRNO(rcm_listen(fd, ipoib, 0), EOPNOTSUPP);
	close(fd);
}

RCM_TEST(ud_on_iwarp_is_eopnotsupp)
{
	const char *sip = getenv("RCM_ADDR_SIW");
	unsigned int ud, lud, rc;
	int fd;

	if (!sip)
		SKIP("no siw device");
	fd = rcm_open_dev();
	ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 1);
	lud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);
	rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 3);
	CHECK(ud && lud && rc, "create: %s", strerror(errno));
	CHECK(rcm_bind(fd, lud, sip, 20209) == 0, "bind: %s", strerror(errno));
	CHECK_ERRNO(rcm_listen(fd, lud, 0), EOPNOTSUPP);
	CHECK(rcm_routed(fd, ud, sip, 20209) == 0, "route: %s",
	      strerror(errno));
	CHECK_ERRNO(ud_connect(fd, ud, NULL, 0), EOPNOTSUPP);
	/* MPA runs on the driver's timers: no CONNECT_TIMEOUT there. */
	CHECK(rcm_routed(fd, rc, sip, 20209) == 0, "route: %s",
	      strerror(errno));
	CHECK(set_opt(fd, rc, RCM_OPTION_ID_CONNECT_TIMEOUT, 1000) == 0,
	      "set: %s", strerror(errno));
	CHECK_ERRNO(rcm_connect(fd, rc, 1, NULL), EINVAL);
	close(fd);
}

static int have_intree_cm(void)
{
	return access("/dev/infiniband/rdma_cm", R_OK | W_OK) == 0;
}

/* Start ./intree_udp server on @ip:@port; returns once it listens. */
static pid_t intree_udp_server(const char *ip, const char *port,
			       const char *expect_data, const char *reply)
{
	return rcm_spawn_listening((char *[]){ "./intree_udp",
		"server", (char *)ip, (char *)port, (char *)expect_data,
		(char *)reply, NULL });
}

RCM_TEST(sidr_rcm_client_to_intree_listener)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned char gid[16];
	struct rcm_event ev;
	unsigned int cid;
	pid_t pid;
	int c, st;

	if (!ip)
		SKIP("no Soft-RoCE device");
	if (!have_intree_cm())
		SKIP("no in-tree rdma_ucm");
	pid = intree_udp_server(ip, "20210", "hello", "accept:world");
	CHECK(pid > 0, "intree_udp server did not start");
	c = rcm_open_dev();
	cid = ud_routed(c, ip, 20210, 0xc10);
	CHECK(cid, "route: %s", strerror(errno));
	CHECK(ud_connect(c, cid, "hello", 6) == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev) == 0, "no ESTABLISHED");
	v4_gid(ip, gid);
	CHECK(ev.ud.qp_num == 0x4321 && ev.ud.qkey == RCM_UDP_QKEY &&
	      !memcmp(ev.ud.ah_attr.dgid, gid, 16),
	      "in-tree answer qpn %#x qkey %#x", ev.ud.qp_num, ev.ud.qkey);
	CHECK(ev.private_data_len == RCM_UD_ACCEPT_PRIVATE_DATA_MAX &&
	      !strcmp((char *)ev.private_data, "world"),
	      "in-tree reply '%.20s' len %u", ev.private_data,
	      ev.private_data_len);
	st = rcm_exit_status(pid);
	CHECK(st == 0, "intree_udp server exited %d", st);

	pid = intree_udp_server(ip, "20211", "again", "reject:nope");
	CHECK(pid > 0, "intree_udp server did not start");
	cid = ud_routed(c, ip, 20211, 0xc11);
	CHECK(cid, "route: %s", strerror(errno));
	CHECK(ud_connect(c, cid, "again", 6) == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_UNREACHABLE, &ev) == 0, "no UNREACHABLE");
	CHECK(ev.status == SIDR_REJECT && !strcmp((char *)ev.private_data, "nope"),
	      "in-tree reject status %d data '%.20s'", ev.status,
	      ev.private_data);
	st = rcm_exit_status(pid);
	CHECK(st == 0, "intree_udp server exited %d", st);
	close(c);
}

/* ./intree_udp client against an rcm UD listener answering with @reply. */
static void intree_client_case(unsigned short port, int accept)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	char portstr[8];
	struct rcm_event ev;
	unsigned int lid;
	pid_t pid;
	int s, st;

	if (!ip)
		SKIP("no Soft-RoCE device");
	if (!have_intree_cm())
		SKIP("no in-tree rdma_ucm");
	s = rcm_open_dev();
	lid = ud_listener(s, ip, port, 0x5e);
	CHECK(lid, "listen: %s", strerror(errno));
	snprintf(portstr, sizeof(portstr), "%u", port);
	pid = fork();
	if (pid == 0) {
		execl("./intree_udp", "intree_udp", "client", ip, portstr,
		      "ping", accept ? "2345" : "reject",
		      accept ? "pong" : "nope", (char *)NULL);
		_exit(3);
	}
	CHECK(pid > 0, "fork");
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	CHECK(ev.private_data_len == RCM_UD_CONNECT_PRIVATE_DATA_MAX &&
	      !strcmp((char *)ev.private_data, "ping"),
	      "in-tree request '%.20s' len %u", ev.private_data,
	      ev.private_data_len);
	if (accept)
		CHECK(ud_accept(s, ev.id, 0x2345, "pong", 5) == 0,
		      "accept: %s", strerror(errno));
	else
		CHECK(ud_reject(s, ev.id, "nope", 5) == 0, "reject: %s",
		      strerror(errno));
	st = rcm_exit_status(pid);
	CHECK(st == 0, "intree_udp client exited %d", st);
	close(s);
}

RCM_TEST(sidr_intree_client_to_rcm_listener)
{
	intree_client_case(20212, 1);
}

RCM_TEST(sidr_intree_client_rejected_by_rcm_listener)
{
	intree_client_case(20213, 0);
}

int main(void)
{
	return rcm_test_run();
}
