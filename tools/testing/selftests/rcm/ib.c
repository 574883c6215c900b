// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib: native InfiniBand on the test fabric (tools/testing/ibfabric,
 * rcm_ibfab.ko: ibfab0 and ibfab1, LIDs 1 and 2, a small SA). AF_IB
 * addresses (bind to a GID, service IDs of the port spaces, resolution
 * without ARP), and route resolution through the SA: the path as the SA
 * answered it, its error status and timeout as ROUTE_ERROR, a destroy
 * while the SA is slow, and a storm of queries with some dropped; a
 * loopback destination; the P_Key index of a QP; fdinfo's AF_IB
 * addresses; the route from userspace's path records (RCM_OPTION_IB_PATH)
 * on the fabric and on a RoCE port; multicast joins through the SA (its
 * MLID and Q_Key, send-only, its errors, a leave, destroy or close while
 * it is slow, device removal with a group joined). The fabric is loaded
 * here when it is not already there; without its .ko the program skips.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "ibfab_common.h"
#include "rcm_harness.h"

/* An id of @fd resolved from ibfab0 to ibfab1: its handle, or 0. */
static unsigned int ib_resolved(int fd, unsigned long long ctx)
{
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, ctx);
	struct rcm_event ev;

	if (!id || ib_resolve(fd, id, "ibfab0", "ibfab1",
			      SID_PS(RCM_PS_TCP) | 4791) ||
	    rcm_expect_event(fd, RCM_EVENT_ADDR_RESOLVED, &ev))
		return 0;
	return id;
}

/* An id of @fd routed from ibfab0 to service ID @sid on ibfab1, or 0. */
static unsigned int ib_routed(int fd, uint64_t sid, unsigned long long ctx)
{
	return ib_routed_ps(fd, RCM_PS_TCP, sid, ctx);
}

FIXTURE(ib) {
	int fd;
};

FIXTURE_SETUP(ib)
{
	self->fd = -1;
	if (fabric_up())
		SKIP(return, "no test fabric (" IBFAB_KO ")");
	ASSERT_EQ(0, fab("sa reset"))
		TH_LOG("fabric control: %s", strerror(errno));
	ASSERT_RCM_OPEN(self->fd);
}

FIXTURE_TEARDOWN(ib)
{
	if (self->fd >= 0)
		close(self->fd);
	fab("sa reset");
}

/* Bound to ibfab0's GID: its port, the TCP service ID range, a port. */
TEST_F(ib, bind_to_a_gid)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	struct ib_sockaddr *src;
	struct rcm_bind_addr b;
	struct rcm_query_id q;
	struct in6_addr gid;
	uint64_t sid;

	ASSERT_EQ(0, dev_gid("ibfab0", &gid));
	ASSERT_EQ(0, ib_bind(self->fd, id, "ibfab0", 0, 0, &b))
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(1, b.out_info.port_num);
	ASSERT_EQ(0, memcmp(b.out_info.sgid, &gid, 16));
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	src = (struct ib_sockaddr *)&q.out_src;
	sid = be64toh(src->sib_sid);
	ASSERT_EQ(AF_IB, src->sib_family);
	ASSERT_EQ(0, memcmp(&src->sib_addr, &gid, 16));
	ASSERT_EQ(0xffff, ntohs(src->sib_pkey));
	/* cma_bind_port(): the range's prefix and a port, mask all ones. */
	ASSERT_TRUE((sid & ~0xffffULL) == SID_PS(RCM_PS_TCP) && (sid & 0xffff))
		TH_LOG("service ID 0x%llx", (unsigned long long)sid);
	ASSERT_EQ(~0ULL, be64toh(src->sib_sid_mask));

	/* A TCP id cannot take the IB range; an IB id can take TCP's. */
	id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_ERRNO(ib_bind(self->fd, id, "ibfab0", SID_PS(RCM_PS_IB),
			     ~0ULL, &b), EPROTONOSUPPORT);
	id = rcm_create(self->fd, RCM_PS_IB, RCM_QPT_RC, 3);
	ASSERT_EQ(0, ib_bind(self->fd, id, "ibfab0", SID_PS(RCM_PS_TCP),
			     PS_MASK, &b))
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	sid = be64toh(((struct ib_sockaddr *)&q.out_src)->sib_sid);
	ASSERT_EQ(SID_PS(RCM_PS_TCP), sid & ~0xffffULL);
}

/* A RoCE port's GID is no AF_IB address (cma_validate_port: ENODEV). */
TEST_F(ib, roce_port_refuses_af_ib)
{
	const char *rxe = getenv("RCM_RXE_DEV") ?: "rxe0";
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	struct rcm_bind_addr b;
	int ret;

	if (access(IB_SYS "rxe0", F_OK) && !getenv("RCM_RXE_DEV"))
		SKIP(return, "no Soft-RoCE device");
	ret = ib_bind(self->fd, id, rxe, 0, 0, &b);
	ASSERT_NE(-2, ret)
		TH_LOG("no GID on %s", rxe);
	ASSERT_ERRNO(ret, ENODEV);
}

/* Resolution: no ARP, the GID is the destination, queued at once. */
TEST_F(ib, resolve_addr)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 7);
	struct rcm_resolve_addr r = { .size = sizeof(r), .timeout_ms = 2000 };
	struct in6_addr g0, g1;
	struct ib_sockaddr *a;
	struct rcm_query_id q;
	struct rcm_event ev;

	ASSERT_EQ(0, dev_gid("ibfab0", &g0));
	ASSERT_EQ(0, dev_gid("ibfab1", &g1));
	ASSERT_EQ(0, ib_resolve(self->fd, id, "ibfab0", "ibfab1",
				SID_PS(RCM_PS_TCP) | 4791))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(7, ev.context);
	ASSERT_EQ(0, ev.status);
	ASSERT_EQ(0, memcmp(ev.id_info.sgid, &g0, 16));
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	a = (struct ib_sockaddr *)&q.out_dst;
	ASSERT_EQ(AF_IB, a->sib_family);
	ASSERT_EQ(0, memcmp(&a->sib_addr, &g1, 16));
	ASSERT_EQ(SID_PS(RCM_PS_TCP) | 4791, be64toh(a->sib_sid));

	/*
	 * Unbound: cma_resolve_ib_dev() prefers the port that has the
	 * destination GID itself over one of its subnet.
	 */
	id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 8);
	ASSERT_EQ(0, ib_resolve(self->fd, id, NULL, "ibfab1",
				SID_PS(RCM_PS_TCP) | 4791))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(0, memcmp(ev.id_info.sgid, &g1, 16));
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	a = (struct ib_sockaddr *)&q.out_src;
	ASSERT_EQ(AF_IB, a->sib_family);
	ASSERT_EQ(0, memcmp(&a->sib_addr, &g1, 16));

	/* A P_Key no port has: no port, as in-tree (ENODEV). */
	r.id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 9);
	ASSERT_EQ(0, ib_addr(&r.dst, "ibfab1", SID_PS(RCM_PS_TCP) | 1, ~0ULL));
	((struct ib_sockaddr *)&r.dst)->sib_pkey = htons(0x8123);
	ASSERT_ERRNO(ioctl(self->fd, RCM_IOCTL_RESOLVE_ADDR, &r), ENODEV);
}

/* The path is the SA's answer, in the event and in the query. */
TEST_F(ib, route_from_the_sa)
{
	unsigned int id = ib_resolved(self->fd, 11);
	struct in6_addr g0, g1;
	struct rcm_query_id q;
	struct rcm_event ev;
	const char *path;

	ASSERT_TRUE(id)
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, dev_gid("ibfab0", &g0));
	ASSERT_EQ(0, dev_gid("ibfab1", &g1));
	ASSERT_EQ(0, ib_route_by_sa(self->fd, id, &ev))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(11, ev.context);
	ASSERT_EQ(1, ev.id_info.num_paths);
	path = ib_sa_path_differs(&ev.id_info.path, &g0, &g1);
	ASSERT_EQ(NULL, path)
		TH_LOG("the event's path: %s", path);
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	ASSERT_EQ(1, q.out_num_paths);
	ASSERT_EQ(0, memcmp(&q.out_path, &ev.id_info.path, sizeof(q.out_path)));
	/* Resolved once: a second resolution is refused, as in-tree. */
	ASSERT_ERRNO(rcm_route(self->fd, id, 5000), EINVAL);
}

/* A MAD status from the SA: ROUTE_ERROR, ib_sa's -EINVAL, and again. */
TEST_F(ib, sa_error_status)
{
	unsigned int id = ib_resolved(self->fd, 12);
	struct rcm_event ev;

	ASSERT_TRUE(id);
	ASSERT_EQ(0, fab("sa status 0x0300"));
	ASSERT_EQ(0, rcm_route(self->fd, id, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_ERROR, &ev));
	ASSERT_EQ(-EINVAL, ev.status);
	ASSERT_EQ(12, ev.context);
	/* Back to ADDR_RESOLVED: the next query is answered. */
	ASSERT_EQ(0, rcm_route(self->fd, id, 5000))
		TH_LOG("route again: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_RESOLVED, &ev));
}

/* An SA that never answers: -ETIMEDOUT within the route's timeout. */
TEST_F(ib, sa_timeout)
{
	unsigned int id = ib_resolved(self->fd, 13);
	struct timespec t0;
	struct rcm_event ev;
	long ms;

	ASSERT_TRUE(id);
	ASSERT_EQ(0, fab("sa drop 1000"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_route(self->fd, id, 1000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_ERROR, &ev));
	ms = rcm_ms_since(&t0);
	ASSERT_EQ(-ETIMEDOUT, ev.status);
	/* ib_sa's retries fit in the timeout; TCG gets slack, no more. */
	ASSERT_TRUE(ms >= 500 && ms < 1000 + 5000)
		TH_LOG("ROUTE_ERROR after %ld ms", ms);
	ASSERT_LE(2, fab_counter("sa_dropped"));
	ASSERT_EQ(0, fab_counter("sa_answered"));
}

/*
 * Destroyed while the SA sits on the answer: the destroy cancels the
 * query, nothing is reported, and the answer arriving after it is
 * dropped by ib_mad (a splat would fail the run).
 */
TEST_F(ib, destroy_during_slow_sa)
{
	unsigned int id = ib_resolved(self->fd, 14);
	unsigned int other = ib_resolved(self->fd, 15);
	struct timespec t0;
	struct rcm_event ev;
	unsigned int x;
	long ms;
	int fd;

	ASSERT_TRUE(id && other);
	ASSERT_EQ(0, fab("sa delay 6000"));
	ASSERT_EQ(0, rcm_route(self->fd, id, 30000));
	ASSERT_EQ(0, rcm_route(self->fd, other, 30000));
	/* Both queries are at the SA before the destroy. */
	ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") == 2, 30000));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_destroy(self->fd, id))
		TH_LOG("destroy: %s", strerror(errno));
	/*
	 * Cancelled, not waited out: the query's callback (-EINTR) comes
	 * at once, the answer only 6 s after it was asked for.
	 */
	ms = rcm_ms_since(&t0);
	ASSERT_GT(3000, ms)
		TH_LOG("destroy took %ld ms", ms);
	/* The other id's late answer is the only event. */
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_RESOLVED, &ev));
	ASSERT_EQ(15, ev.context);
	ASSERT_FALSE(rcm_readable(self->fd, 500));
	/* A file closed with a query in flight. */
	fd = rcm_open_dev();
	x = ib_resolved(fd, 16);
	ASSERT_TRUE(x);
	ASSERT_EQ(0, rcm_route(fd, x, 20000));
	close(fd);
}

/*
 * A storm: 200 ids query at once, the SA drops 20 of the queries; ib_sa
 * retries them. Every id ends in exactly one event.
 */
#define STORM 200
TEST_F(ib, storm_with_drops)
{
	static unsigned int ids[STORM];
	static int seen[STORM];
	struct rcm_event ev;
	int i, got = 0, ok = 0;

	for (i = 0; i < STORM; i++) {
		ids[i] = ib_resolved(self->fd, i);
		ASSERT_TRUE(ids[i])
			TH_LOG("id %d: %s", i, strerror(errno));
	}
	ASSERT_EQ(0, fab("sa drop 20"));
	for (i = 0; i < STORM; i++)
		ASSERT_EQ(0, rcm_route(self->fd, ids[i], 30000))
			TH_LOG("route %d: %s", i, strerror(errno));
	while (got < STORM && rcm_wait_event(self->fd, 120000, &ev) == 0) {
		ASSERT_TRUE(ev.context < STORM)
			TH_LOG("context %llu", (unsigned long long)ev.context);
		ASSERT_TRUE(ev.event == RCM_EVENT_ROUTE_RESOLVED ||
			    ev.event == RCM_EVENT_ROUTE_ERROR)
			TH_LOG("event %u", ev.event);
		seen[ev.context]++;
		ok += ev.event == RCM_EVENT_ROUTE_RESOLVED;
		got++;
	}
	ASSERT_EQ(STORM, got);
	for (i = 0; i < STORM && seen[i] == 1; i++)
		;
	ASSERT_EQ(STORM, i)
		TH_LOG("id %d: %d events", i, seen[i % STORM]);
	ASSERT_FALSE(rcm_readable(self->fd, 500));
	TH_LOG("%d resolved, %d errors, %ld dropped", ok, STORM - ok,
	       fab_counter("sa_dropped"));
	ASSERT_EQ(20, fab_counter("sa_dropped"));
	/* A retried query gets its answer: all resolve. */
	ASSERT_EQ(STORM, ok);
}

/*
 * rcm to rcm over the fabric, AF_IB: the REQ on the SA's path with the
 * user's bytes alone (no CMA header), REP, RTU, DREQ, DREP. The QP
 * numbers are the test's: no QP stands behind them.
 */
TEST_F(ib, connect_accept_disconnect)
{
	/*
	 * Byte 0 is 0 and byte 1 no IP version: the header an in-tree
	 * listener looks for in an AF_IB REQ finds no IP (ibref).
	 */
	static const char hello[] = "\0\1hello over ib";
	int s = self->fd, c = rcm_open_dev();
	struct in6_addr g0, g1;
	struct rcm_query_id q;
	struct ib_sockaddr *a;
	unsigned int lid, cid, rid;
	struct rcm_event ev;
	uint64_t sid = 0;

	ASSERT_LE(0, c);
	ASSERT_EQ(0, dev_gid("ibfab0", &g0));
	ASSERT_EQ(0, dev_gid("ibfab1", &g1));
	lid = ib_listener(s, &sid);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	cid = ib_routed(c, sid, 7);
	ASSERT_TRUE(cid)
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_connect_data(c, cid, 0x1234, hello, sizeof(hello)))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev));
	ASSERT_EQ(lid, ev.listen_id);
	ASSERT_EQ(0x1234, ev.conn.qp_num);
	/* At offset 0: no header before it, all 92 bytes the user's. */
	ASSERT_EQ(0, memcmp(ev.private_data, hello, sizeof(hello)));
	rid = ev.id;
	ASSERT_EQ(1, ev.id_info.num_paths);
	ASSERT_EQ(0, memcmp(ev.id_info.sgid, &g1, 16));
	/* The REQ's path, seen from here (cm_format_paths_from_req()). */
	ASSERT_EQ(1, ev.id_info.path.dlid);
	ASSERT_EQ(2, ev.id_info.path.slid);
	ASSERT_EQ(0, rcm_query(s, rid, &q));
	a = (struct ib_sockaddr *)&q.out_src;
	ASSERT_TRUE(a->sib_family == AF_IB && be64toh(a->sib_sid) == sid &&
		    !memcmp(&a->sib_addr, &g1, 16))
		TH_LOG("request id's source: family %u sid 0x%llx",
		       a->sib_family, (unsigned long long)be64toh(a->sib_sid));
	a = (struct ib_sockaddr *)&q.out_dst;
	ASSERT_TRUE(a->sib_family == AF_IB && !memcmp(&a->sib_addr, &g0, 16));

	ASSERT_EQ(0, rcm_accept(s, rid, 0x5678, 8, "welcome"))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev));
	ASSERT_EQ(0x5678, ev.conn.qp_num);
	ASSERT_EQ(0, memcmp(ev.private_data, "welcome", 8));
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, cid))
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev));
	ASSERT_EQ(rid, ev.id);

	/* DREQ: the passive side hears it; its disconnect is the DREP. */
	ASSERT_EQ(0, rcm_disconnect_pair(c, cid, s, rid))
		TH_LOG("disconnect: %s", strerror(errno));
	close(c);
}

/* A reject's private data reaches the active side, as does its reason. */
TEST_F(ib, reject_with_private_data)
{
	int s = self->fd, c = rcm_open_dev();
	unsigned int lid, cid;
	struct rcm_event ev;
	uint64_t sid = 0;

	ASSERT_LE(0, c);
	lid = ib_listener(s, &sid);
	cid = ib_routed(c, sid, 9);
	ASSERT_TRUE(lid && cid);
	ASSERT_EQ(0, rcm_connect(c, cid, 0x4321, NULL));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev));
	ASSERT_EQ(0, rcm_reject(s, ev.id, "not today"))
		TH_LOG("reject: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_REJECTED, &ev));
	ASSERT_EQ(cid, ev.id);
	/* IB_CM_REJ_CONSUMER_DEFINED, as in-tree reports it. */
	ASSERT_EQ(28, ev.status);
	ASSERT_EQ(0, memcmp(ev.private_data, "not today", 10));
	close(c);
}

/*
 * A loopback destination, GID zero or ::1 (cma_resolve_loopback()): an
 * id bound to no GID takes the first ACTIVE InfiniBand port (ibfab0;
 * RoCE ports are no AF_IB ports), its GID, and ::1 as its source; the
 * destination GID is the source's, and the SA's path goes from the port
 * to itself. An id bound to ibfab1 resolves ::1 to ibfab1.
 */
TEST_F(ib, resolve_loopback)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 21);
	struct rcm_resolve_addr r = {
		.size = sizeof(r), .id = id, .timeout_ms = 2000,
	};
	struct ib_sockaddr *a;
	struct in6_addr g0, g1;
	struct rcm_query_id q;
	struct rcm_bind_addr b;
	struct rcm_event ev;

	ASSERT_EQ(0, dev_gid("ibfab0", &g0));
	ASSERT_EQ(0, dev_gid("ibfab1", &g1));
	ASSERT_EQ(0, ib_addr(&r.dst, NULL, SID_PS(RCM_PS_TCP) | 4791, ~0ULL));
	ASSERT_EQ(0, ioctl(self->fd, RCM_IOCTL_RESOLVE_ADDR, &r))
		TH_LOG("resolve to GID zero: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(21, ev.context);
	ASSERT_EQ(0, memcmp(ev.id_info.sgid, &g0, 16))
		TH_LOG("attached to node GUID 0x%llx",
		       (unsigned long long)be64toh(ev.id_info.node_guid));
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	a = (struct ib_sockaddr *)&q.out_src;
	ASSERT_EQ(AF_IB, a->sib_family);
	ASSERT_EQ(0, memcmp(&a->sib_addr, &in6addr_loopback, 16));
	ASSERT_EQ(0, rcm_route(self->fd, id, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_RESOLVED, &ev))
		TH_LOG("route: status %d", ev.status);
	ASSERT_EQ(0, memcmp(ev.id_info.path.dgid, &g0, 16));
	ASSERT_EQ(0, memcmp(ev.id_info.path.sgid, &g0, 16));
	ASSERT_EQ(1, ev.id_info.path.dlid);
	ASSERT_EQ(1, ev.id_info.path.slid);

	id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 22);
	ASSERT_EQ(0, ib_bind(self->fd, id, "ibfab1", 0, 0, &b));
	r.id = id;
	((struct ib_sockaddr *)&r.dst)->sib_addr = in6addr_loopback;
	ASSERT_EQ(0, ioctl(self->fd, RCM_IOCTL_RESOLVE_ADDR, &r))
		TH_LOG("resolve to ::1: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(0, memcmp(ev.id_info.sgid, &g1, 16));
	ASSERT_EQ(0, rcm_route(self->fd, id, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_RESOLVED, &ev));
	ASSERT_EQ(0, memcmp(ev.id_info.path.dgid, &g1, 16));
	ASSERT_EQ(2, ev.id_info.path.dlid);
}

/* The INIT P_Key index of @id's QP (its INIT attributes), or -1. */
static int init_pkey_index(int fd, unsigned int id)
{
	struct rcm_init_qp_attr a;

	if (rcm_qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a))
		return -1;
	return a.out_attr[0].pkey_index;
}

/*
 * The P_Key index of a QP is that of the id's P_Key on its port
 * (cma_ib_init_qp_attr()): the fabric's table is {0xffff, 0x8001}.
 */
TEST_F(ib, qp_pkey_index)
{
	static const unsigned char qpt[] = { RCM_QPT_RC, RCM_QPT_UD };
	unsigned int i, id;
	struct rcm_bind_addr b;

	for (i = 0; i < sizeof(qpt); i++) {
		id = rcm_create(self->fd, qpt[i] == RCM_QPT_UD ? RCM_PS_UDP :
				RCM_PS_TCP, qpt[i], i);
		memset(&b, 0, sizeof(b));
		b.size = sizeof(b);
		b.id = id;
		ASSERT_EQ(0, ib_addr(&b.addr, "ibfab0", 0, 0));
		((struct ib_sockaddr *)&b.addr)->sib_pkey = htons(0x8001);
		ASSERT_EQ(0, ioctl(self->fd, RCM_IOCTL_BIND_ADDR, &b))
			TH_LOG("bind with P_Key 0x8001: %s", strerror(errno));
		ASSERT_EQ(1, init_pkey_index(self->fd, id))
			TH_LOG("QP type %u", qpt[i]);
		id = rcm_create(self->fd, qpt[i] == RCM_QPT_UD ? RCM_PS_UDP :
				RCM_PS_TCP, qpt[i], i);
		ASSERT_EQ(0, ib_bind(self->fd, id, "ibfab0", 0, 0, &b));
		ASSERT_EQ(0, init_pkey_index(self->fd, id));
	}
}

/*
 * fdinfo shows an AF_IB address as its GID and service ID, as it shows
 * an IPv6 address and port: "[GID]:0xSID".
 */
TEST_F(ib, fdinfo_shows_the_gid)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 23);
	char path[64], want[128], gid[INET6_ADDRSTRLEN], buf[8192];
	struct rcm_bind_addr b;
	struct rcm_query_id q;
	struct in6_addr g0;
	ssize_t n;
	int f;

	ASSERT_EQ(0, dev_gid("ibfab0", &g0));
	ASSERT_EQ(0, ib_bind(self->fd, id, "ibfab0", 0, 0, &b));
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	ASSERT_NE(NULL, inet_ntop(AF_INET6, &g0, gid, sizeof(gid)));
	snprintf(want, sizeof(want), " src=[%s]:0x%llx dst=- ", gid,
		 (unsigned long long)be64toh(((struct ib_sockaddr *)
					      &q.out_src)->sib_sid));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->fd);
	f = open(path, O_RDONLY);
	ASSERT_LE(0, f);
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	ASSERT_LT(0, n);
	buf[n] = 0;
	ASSERT_NE(NULL, strstr(buf, want))
		TH_LOG("no \"%s\" in:\n%s", want, buf);
}

/* struct ib_path_rec_data (<rdma/ib_user_sa.h>): flags, a PathRecord. */
struct path_data {
	uint32_t flags;
	uint32_t reserved;
	uint8_t rec[64];
};

/* IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL */
#define PATH_ROUTE 0x2b

/* The path a test gives, every field a value no default has. */
struct path_vals {
	struct in6_addr dgid, sgid;
	uint16_t dlid, slid, pkey;
	uint32_t flow_label;
	uint8_t hop_limit, tclass, sl, mtu, rate, life;
};

/* Pack @v as the SA's PathRecord (IBA 15.2.5.16), selectors "exactly". */
static void path_pack(struct path_data *d, uint32_t flags,
		      const struct path_vals *v)
{
	uint32_t w;

	memset(d, 0, sizeof(*d));
	d->flags = flags;
	memcpy(d->rec + 8, &v->dgid, 16);
	memcpy(d->rec + 24, &v->sgid, 16);
	d->rec[40] = v->dlid >> 8;
	d->rec[41] = v->dlid;
	d->rec[42] = v->slid >> 8;
	d->rec[43] = v->slid;
	w = htonl(v->flow_label << 8 | v->hop_limit);
	memcpy(d->rec + 44, &w, 4);
	d->rec[48] = v->tclass;
	d->rec[49] = 0x80 | 1;
	d->rec[50] = v->pkey >> 8;
	d->rec[51] = v->pkey;
	d->rec[53] = v->sl;
	d->rec[54] = 2 << 6 | v->mtu;
	d->rec[55] = 2 << 6 | v->rate;
	d->rec[56] = 2 << 6 | v->life;
}

static int ib_path(int fd, unsigned int id, const void *recs, size_t len)
{
	struct rcm_set_option o = {
		.size = sizeof(o), .id = id, .level = RCM_OPTION_IB,
		.optname = RCM_OPTION_IB_PATH, .optlen = len,
		.value = (uintptr_t)recs,
	};

	return ioctl(fd, RCM_IOCTL_SET_OPTION, &o);
}

/* The path of an event as @v set it, less what a RoCE port replaces. */
static int path_is(const struct rcm_path *p, const struct path_vals *v)
{
	return !memcmp(p->dgid, &v->dgid, 16) && !memcmp(p->sgid, &v->sgid, 16) &&
	       p->flow_label == v->flow_label && p->hop_limit == v->hop_limit &&
	       p->traffic_class == v->tclass && p->pkey == v->pkey &&
	       p->sl == v->sl && p->mtu == v->mtu && p->rate == v->rate &&
	       p->packet_life_time == v->life;
}

/*
 * RCM_OPTION_IB_PATH (ucma_set_ib_path()): the first record with a
 * route's flags, never the others, is the path; no SA query; the id is
 * ROUTE_RESOLVED at once with the event of that name, and a connection
 * goes on that path. The errors: not resolved, no route's record, no
 * whole records, a bad pointer, a second path, an unknown name.
 */
TEST_F(ib, ib_path_sets_the_route)
{
	struct path_vals v = {
		.dlid = 2, .slid = 1, .pkey = 0xffff, .flow_label = 0x12345,
		.hop_limit = 3, .tclass = 0x48, .sl = 5, .mtu = 3, .rate = 6,
		.life = 12,
	};
	int s = self->fd, c = rcm_open_dev();
	struct path_data d[3];
	unsigned int lid, cid, id;
	struct rcm_bind_addr b;
	struct rcm_query_id q;
	struct rcm_event ev;
	uint64_t sid = 0;
	long queries;

	ASSERT_LE(0, c);
	ASSERT_EQ(0, dev_gid("ibfab1", &v.dgid));
	ASSERT_EQ(0, dev_gid("ibfab0", &v.sgid));
	lid = ib_listener(s, &sid);
	ASSERT_TRUE(lid);
	/* A record of other flags first, of other values: skipped. */
	path_pack(&d[0], 0x2d, &v);
	d[0].rec[53] = 9;
	path_pack(&d[1], PATH_ROUTE, &v);
	path_pack(&d[2], PATH_ROUTE, &v);
	d[2].rec[53] = 7;

	/* Bound, not resolved: EINVAL, as rdma_set_ib_path()'s state. */
	id = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 30);
	ASSERT_EQ(0, ib_bind(c, id, "ibfab0", 0, 0, &b));
	ASSERT_ERRNO(ib_path(c, id, d, sizeof(d)), EINVAL);

	cid = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 31);
	ASSERT_EQ(0, ib_resolve(c, cid, "ibfab0", "ibfab1", sid));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_ERRNO(ib_path(c, cid, d, sizeof(d[0])), EINVAL);
	ASSERT_ERRNO(ib_path(c, cid, d, sizeof(d[0]) - 1), EINVAL);
	ASSERT_ERRNO(ib_path(c, cid, d, 0), EINVAL);
	ASSERT_ERRNO(ib_path(c, cid, NULL, sizeof(d[0])), EFAULT);
	ASSERT_ERRNO(rcm_set_option(c, cid, RCM_OPTION_IB, 2, 0), ENOPROTOOPT);
	ASSERT_FALSE(rcm_readable(c, 0));

	queries = fab_counter("sa_queries");
	ASSERT_EQ(0, ib_path(c, cid, d, sizeof(d)))
		TH_LOG("IB_PATH: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ROUTE_RESOLVED, &ev));
	ASSERT_EQ(31, ev.context);
	ASSERT_EQ(0, ev.status);
	ASSERT_EQ(1, ev.id_info.num_paths);
	ASSERT_TRUE(path_is(&ev.id_info.path, &v))
		TH_LOG("sl %u mtu %u rate %u life %u tclass 0x%x fl 0x%x",
		       ev.id_info.path.sl, ev.id_info.path.mtu,
		       ev.id_info.path.rate, ev.id_info.path.packet_life_time,
		       ev.id_info.path.traffic_class,
		       ev.id_info.path.flow_label);
	ASSERT_EQ(2, ev.id_info.path.dlid);
	ASSERT_EQ(1, ev.id_info.path.slid);
	ASSERT_EQ(0, ev.id_info.path.rec_type);
	ASSERT_EQ(queries, fab_counter("sa_queries"));
	ASSERT_EQ(0, rcm_query(c, cid, &q));
	ASSERT_EQ(0, memcmp(&q.out_path, &ev.id_info.path, sizeof(q.out_path)));
	/* Routed: neither a second path nor a route query. */
	ASSERT_ERRNO(ib_path(c, cid, d, sizeof(d)), EINVAL);
	ASSERT_ERRNO(rcm_route(c, cid, 5000), EINVAL);

	/* The REQ goes on it: the passive side sees its SL and MTU. */
	ASSERT_EQ(0, rcm_connect(c, cid, 0x2222, NULL))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev));
	ASSERT_EQ(5, ev.id_info.path.sl);
	ASSERT_EQ(3, ev.id_info.path.mtu);
	ASSERT_EQ(0, rcm_accept(s, ev.id, 0x3333, 0, NULL));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev));
	ASSERT_EQ(0x3333, ev.conn.qp_num);
	close(c);
}

/*
 * On RoCE (rdma_set_ib_path() with cma_iboe_set_path_rec_l2_fields()):
 * the record's values stay, the record type becomes the GID's (RoCE v2
 * on rxe's IPv4 GID) and the MAC the resolved next hop's - here rxe0's
 * own, the destination being its address.
 */
TEST_F(ib, ib_path_on_roce)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *nd = getenv("RCM_NETDEV_RXE");
	struct path_vals v = {
		.pkey = 0xffff, .flow_label = 0x2345, .hop_limit = 64,
		.tclass = 0x20, .sl = 2, .mtu = 3, .rate = 6, .life = 15,
	};
	unsigned char mac[6];
	char macs[32];
	struct path_data d;
	struct rcm_event ev;
	unsigned int id;

	if (!ip || !nd)
		SKIP(return, "no RoCE address (RCM_ADDR_RXE, RCM_NETDEV_RXE)");
	ASSERT_EQ(0, rcm_netdev_mac(nd, macs));
	ASSERT_EQ(6, sscanf(macs, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0],
			    &mac[1], &mac[2], &mac[3], &mac[4], &mac[5]));
	/* The GIDs of the IPv4 address: ::ffff:a.b.c.d. */
	v.sgid.s6_addr[10] = 0xff;
	v.sgid.s6_addr[11] = 0xff;
	ASSERT_EQ(1, inet_pton(AF_INET, ip, &v.sgid.s6_addr[12]));
	v.dgid = v.sgid;
	id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 40);
	ASSERT_EQ(0, rcm_resolved_to(self->fd, id, ip, 4791));
	path_pack(&d, PATH_ROUTE, &v);
	ASSERT_EQ(0, ib_path(self->fd, id, &d, sizeof(d)))
		TH_LOG("IB_PATH on RoCE: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_RESOLVED, &ev));
	ASSERT_EQ(40, ev.context);
	ASSERT_TRUE(path_is(&ev.id_info.path, &v));
	ASSERT_EQ(2, ev.id_info.path.rec_type);
	ASSERT_EQ(0, memcmp(ev.id_info.path.dmac, mac, 6));
	ASSERT_EQ(0, ev.id_info.path.dlid);
	ASSERT_ERRNO(rcm_route(self->fd, id, 5000), EINVAL);
}

/* Multicast through the SA (ib_ud_id(), ib_mcast()): the first MLID. */
#define IBFAB_MLID_BASE 0xc000

/*
 * A join is the SA's answer: the group it assigned (ff12:601b:...), its
 * MLID as the DLID, the Q_Key the id asked for, in MULTICAST_JOIN; the
 * other port joining that MGID gets the same. Both leave; the group goes
 * from the SA and a rejoin creates it again.
 */
TEST_F(ib, mcast_join_from_the_sa)
{
	unsigned int a = ib_ud_id(self->fd, "ibfab0", 1);
	unsigned int b = ib_ud_id(self->fd, "ibfab1", 2);
	unsigned char mgid[16];
	struct in6_addr g0;
	struct rcm_event ev;
	long queries;

	ASSERT_TRUE(a && b)
		TH_LOG("UD ids: %s", strerror(errno));
	ASSERT_TRUE(ibfab_sa_groups_gone());
	ASSERT_EQ(0, dev_gid("ibfab0", &g0));
	queries = fab_counter("sa_queries");
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, true, RCM_MC_JOIN_FULLMEMBER,
			   0xa1))
		TH_LOG("join: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_MULTICAST_JOIN, &ev));
	ASSERT_EQ(0xa1, ev.context);
	ASSERT_EQ(0, ev.status);
	ASSERT_LT(queries, fab_counter("sa_queries"));
	ASSERT_EQ(1, fab_counter("sa_groups"));
	ASSERT_EQ(RCM_MCAST_QPN, ev.ud.qp_num);
	ASSERT_EQ(RCM_UDP_QKEY, ev.ud.qkey);
	ASSERT_LE(IBFAB_MLID_BASE, ev.ud.ah_attr.dlid);
	ASSERT_EQ(0xff, ev.ud.ah_attr.dgid[0]);
	ASSERT_EQ(0x12, ev.ud.ah_attr.dgid[1]);
	ASSERT_EQ(1, ev.ud.ah_attr.is_global);
	ASSERT_EQ(1, ev.ud.ah_attr.port_num);
	memcpy(mgid, ev.ud.ah_attr.dgid, 16);

	ASSERT_EQ(0, ib_mcast(self->fd, b, mgid, true, RCM_MC_JOIN_FULLMEMBER,
			   0xb1))
		TH_LOG("join: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_MULTICAST_JOIN, &ev));
	ASSERT_EQ(0xb1, ev.context);
	ASSERT_EQ(0, memcmp(ev.ud.ah_attr.dgid, mgid, 16));
	ASSERT_EQ(RCM_UDP_QKEY, ev.ud.qkey);
	ASSERT_EQ(1, fab_counter("sa_groups"));

	/* The leave takes the address the join gave. */
	ASSERT_ERRNO(ib_mcast(self->fd, a, mgid, false, 0, 0), ENOENT);
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, false, 0, 0));
	ASSERT_EQ(0, ib_mcast(self->fd, b, mgid, false, 0, 0));
	ASSERT_TRUE(ibfab_sa_groups_gone());
	/* Rejoined: the SA makes the group again. */
	ASSERT_EQ(0, ib_mcast(self->fd, a, mgid, true, RCM_MC_JOIN_FULLMEMBER,
			   0xa2));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_MULTICAST_JOIN, &ev));
	ASSERT_EQ(0xa2, ev.context);
	ASSERT_EQ(0, memcmp(ev.ud.ah_attr.dgid, mgid, 16));
	ASSERT_EQ(1, fab_counter("sa_groups"));
	ASSERT_EQ(0, rcm_destroy(self->fd, a));
	ASSERT_TRUE(ibfab_sa_groups_gone());
	ASSERT_FALSE(rcm_readable(self->fd, 0));
}

/* A send-only full member is a member of the SA's group too. */
TEST_F(ib, mcast_send_only)
{
	unsigned int a = ib_ud_id(self->fd, "ibfab0", 1);
	struct rcm_event ev;

	ASSERT_TRUE(a);
	ASSERT_TRUE(ibfab_sa_groups_gone());
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, true,
			   RCM_MC_JOIN_SENDONLY_FULLMEMBER, 0x5))
		TH_LOG("join: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_MULTICAST_JOIN, &ev));
	ASSERT_EQ(0x5, ev.context);
	ASSERT_LE(IBFAB_MLID_BASE, ev.ud.ah_attr.dlid);
	ASSERT_EQ(1, fab_counter("sa_groups"));
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, false, 0, 0));
	ASSERT_TRUE(ibfab_sa_groups_gone());
}

/* An error status from the SA: MULTICAST_ERROR with ib_sa's status. */
TEST_F(ib, mcast_sa_error)
{
	unsigned int a = ib_ud_id(self->fd, "ibfab0", 1);
	struct rcm_event ev;

	ASSERT_TRUE(a);
	ASSERT_TRUE(ibfab_sa_groups_gone());
	ASSERT_EQ(0, fab("sa status 0x0300 100"));
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, true, RCM_MC_JOIN_FULLMEMBER,
			   0x6));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_MULTICAST_ERROR,
				      &ev));
	ASSERT_EQ(0x6, ev.context);
	ASSERT_GT(0, ev.status)
		TH_LOG("status %d", ev.status);
	ASSERT_EQ(0, fab_counter("sa_groups"));
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, false, 0, 0));
}

/*
 * Left, destroyed or closed while the SA sits on the join: no event of
 * the group after it (the late answer finds the membership freed).
 */
TEST_F(ib, mcast_leave_during_slow_sa)
{
	unsigned int a = ib_ud_id(self->fd, "ibfab0", 1);
	unsigned int b = ib_ud_id(self->fd, "ibfab0", 2);
	unsigned int x;
	long answered;
	int fd;

	ASSERT_TRUE(a && b);
	ASSERT_TRUE(ibfab_sa_groups_gone());
	/* Well below ib_sa's 3 s join timeout: one Set per join. */
	ASSERT_EQ(0, fab("sa delay 1000"));
	answered = fab_counter("sa_answered");
	/* Each join is at the SA, its answer on the way, when it ends. */
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, true, RCM_MC_JOIN_FULLMEMBER,
			   0x7));
	ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") == answered + 1,
				 30000));
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, false, 0, 0))
		TH_LOG("leave: %s", strerror(errno));
	ASSERT_EQ(0, ib_mcast(self->fd, b, NULL, true, RCM_MC_JOIN_FULLMEMBER,
			   0x8));
	ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") >= answered + 2,
				 30000));
	ASSERT_EQ(0, rcm_destroy(self->fd, b));
	fd = rcm_open_dev();
	ASSERT_LE(0, fd);
	x = ib_ud_id(fd, "ibfab0", 3);
	ASSERT_TRUE(x);
	ASSERT_EQ(0, ib_mcast(fd, x, NULL, true, RCM_MC_JOIN_FULLMEMBER, 0x9));
	ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") >= answered + 3,
				 30000));
	close(fd);
	/*
	 * ib_sa sends a group's leave (Delete) only once it had the join's
	 * answer: three more queries at the SA mean the three answers were
	 * handled, and nothing came of them.
	 */
	ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") >= answered + 6,
				 30000))
		TH_LOG("the SA answered %ld", fab_counter("sa_answered") -
		       answered);
	ASSERT_FALSE(rcm_readable(self->fd, 500));
}

/*
 * The fabric goes away with a group joined: DEVICE_REMOVAL, the SA
 * membership freed (ib_sa's removal waits for it), the group still there
 * to leave. The next test loads the fabric again.
 */
TEST_F(ib, mcast_device_removal_with_join)
{
	unsigned int a = ib_ud_id(self->fd, "ibfab0", 0x31);
	unsigned int reported;
	struct rcm_leave_mcast l = { .size = sizeof(l), .id = a };
	struct ib_sockaddr *sib = (void *)&l.addr;
	struct rcm_event ev;

	ASSERT_TRUE(a);
	ASSERT_EQ(0, ib_mcast(self->fd, a, NULL, true, RCM_MC_JOIN_FULLMEMBER,
			   0x32));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_MULTICAST_JOIN, &ev));
	ASSERT_EQ(0, rcm_sh("rmmod rcm_ibfab"))
		TH_LOG("rmmod rcm_ibfab failed");
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_DEVICE_REMOVAL, &ev));
	ASSERT_EQ(0x31, ev.context);
	ASSERT_FALSE(rcm_readable(self->fd, 500));
	sib->sib_family = AF_IB;
	ASSERT_EQ(0, ioctl(self->fd, RCM_IOCTL_LEAVE_MCAST, &l));
	reported = l.out_events_reported;
	ASSERT_EQ(1, reported);
	ASSERT_EQ(0, rcm_destroy(self->fd, a));
}

/*
 * The fabric goes away with a query in flight: the removal cancels it,
 * the id reports DEVICE_REMOVAL and nothing else. Last: the next
 * program loads the fabric again.
 */
TEST_F(ib, device_removal_during_query)
{
	unsigned int id = ib_resolved(self->fd, 17);
	struct rcm_event ev;

	ASSERT_TRUE(id);
	ASSERT_EQ(0, fab("sa delay 6000"));
	ASSERT_EQ(0, rcm_route(self->fd, id, 30000));
	ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") == 1, 30000));
	ASSERT_EQ(0, rcm_sh("rmmod rcm_ibfab"))
		TH_LOG("rmmod rcm_ibfab failed");
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_DEVICE_REMOVAL, &ev));
	ASSERT_EQ(17, ev.context);
	ASSERT_FALSE(rcm_readable(self->fd, 500));
	ASSERT_EQ(0, rcm_destroy(self->fd, id));
}

TEST_HARNESS_MAIN
