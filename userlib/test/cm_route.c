// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_route: what rdma_resolve_route() does with answers the real module
 * never gives (the rest runs against rcm.ko in a guest: guest/cm_route.c,
 * with cm_resolve and cm_intree_compare).
 *
 * - ROUTE_RESOLVED from a module that does not carry the id's view in
 *   the event (an older record size): the library refreshes the id with
 *   RCM_IOCTL_QUERY_ID before the event is handed out; route.num_paths
 *   is 1 and route.path_rec a library-owned struct ibv_sa_path_rec whose
 *   64 bytes are compared, at the offsets of rdma-core 44's layout, with
 *   what librdmacm's conversion gives for a known rcm_path on the
 *   in-tree CM (the guest test cm_intree_compare checks the same against
 *   the in-tree stack); ibaddr.dgid comes from the path, ibaddr.pkey
 *   stays 0;
 * - an InfiniBand path: dlid and slid are the kernel's, network order;
 * - a failing refresh (query error, a kernel reporting 2 paths) turns
 *   the event into ROUTE_ERROR with status -1 (errno says why, as in
 *   librdmacm) and leaves no path;
 * - synchronous mode: a ROUTE_ERROR from the kernel (RoCE builds its
 *   path locally and never reports one) is -1 with errno = -status,
 *   from the refresh (status -1) errno EPERM, as librdmacm's
 *   ucma_complete(); a failing RCM_IOCTL_RESOLVE_ROUTE reads nothing.
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs' devices are faked (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

static struct sockaddr_in dst = { .sin_family = AF_INET };

/* ::ffff:192.0.2.20 and ::ffff:192.0.2.10 */
static const uint8_t dgid[16] = {
	[10] = 0xff, [11] = 0xff, [12] = 192, [13] = 0, [14] = 2, [15] = 20,
};
static const uint8_t sgid[16] = {
	[10] = 0xff, [11] = 0xff, [12] = 192, [13] = 0, [14] = 2, [15] = 10,
};

/* What RESOLVE_ROUTE queues: ROUTE_RESOLVED, or ROUTE_ERROR if set. */
static int route_status;

static int resolve_route(int fd, void *arg)
{
	const struct rcm_resolve_route *c = arg;

	if (!route_status)
		return script_resolve_route(fd, arg);
	return script_push(fd, c->id, RCM_EVENT_ROUTE_ERROR, route_status) ?
	       0 : ENOMEM;
}

static void setup(void)
{
	struct rcm_path *path = &script_info.path;

	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	memcpy(script_info.sgid, sgid, sizeof(sgid));
	/* A kernel that sends no view: the library queries. */
	script_no_view = true;
	seam_reply[SEAM_CMD(RCM_CMD_RESOLVE_ROUTE)] = resolve_route;

	/* ADDR_RESOLVED gives the destination as a GID. */
	memcpy(script_info.dst, &dst, sizeof(dst));
	/* Every value distinct, so that a swapped field shows. */
	memcpy(path->dgid, dgid, sizeof(dgid));
	memcpy(path->sgid, sgid, sizeof(sgid));
	memcpy(path->dmac, "\x52\x54\x00\x13\x37\x01", 6);
	path->hop_limit = 64;
	path->traffic_class = 0x68;
	path->flow_label = 0xabcde;
	path->pkey = 0x8001;
	path->sl = 5;
	path->mtu = 3;		/* IB_MTU_1024 */
	path->rate = 7;		/* IB_RATE_40_GBPS */
	path->packet_life_time = 18;
	path->rec_type = 2;		/* RoCE v2 */
	script_info.num_paths = 1;
}

/*
 * struct ibv_sa_path_rec as librdmacm fills it from the path above, at
 * the offsets of rdma-core 44 (x86_64); padding zero.
 */
static void expected_rec(uint8_t want[64])
{
	int one = 1;

	memset(want, 0, 64);
	memcpy(want + 0, dgid, 16);
	memcpy(want + 16, sgid, 16);
	/* The in-tree kernel's RoCE members packed as IB ones. */
	memcpy(want + 32, "\x01\x52", 2);		/* dlid: 1, mac[0] */
	memcpy(want + 34, "\x54\x00", 2);		/* slid: mac[1..2] */
	/* 36 raw_traffic: 0; flow label bit 23: mac[3] & 1 */
	memcpy(want + 40, "\x00\x8a\xbc\xde", 4);	/* flow_label, BE */
	want[44] = 64;					/* hop_limit */
	want[45] = 0x68;				/* traffic_class */
	memcpy(want + 48, &one, 4);			/* reversible */
	want[52] = 1;					/* numb_path */
	want[54] = 0x80;				/* pkey, BE */
	want[55] = 0x01;
	want[56] = 5;					/* sl */
	want[57] = 2;					/* mtu_selector */
	want[58] = 3;					/* mtu */
	want[59] = 2;					/* rate_selector */
	want[60] = 7;					/* rate */
	want[61] = 2;			/* packet_life_time_selector */
	want[62] = 18;					/* packet_life_time */
	want[63] = 43;		/* preference: GMP | PRIMARY | BIDIR */
}

static bool rec_is_expected(const struct ibv_sa_path_rec *rec)
{
	uint8_t want[64];
	const uint8_t *got = (const uint8_t *)rec;
	bool ok = true;
	int i;

	expected_rec(want);
	for (i = 0; i < 64; i++) {
		if (got[i] != want[i]) {
			fprintf(stderr, "path_rec byte %d: 0x%02x, want 0x%02x\n",
				i, got[i], want[i]);
			ok = false;
		}
	}
	return ok;
}

static bool gid_is(const union ibv_gid *gid, const uint8_t *want)
{
	return !memcmp(gid->raw, want, 16);
}

/* A channel and an id on it whose ADDR_RESOLVED was got and acked. */
static struct rdma_cm_id *resolved_id(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id = NULL;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000) ||
	    rdma_get_cm_event(ch, &ev)) {
		T_CHECK(!"setup");
		return NULL;
	}
	T_CHECK(ev->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	/* As librdmacm: no data (the kernel's id info is the library's). */
	T_CHECK(!ev->param.conn.private_data &&
		!ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
	return id;
}

/* Get the next event, expected to be of id with this type and status. */
static void expect_event(struct rdma_event_channel *ch, struct rdma_cm_id *id,
			 enum rdma_cm_event_type type, int status)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		T_CHECK(!"rdma_get_cm_event");
		return;
	}
	T_CHECK(ev->id == id);
	T_CHECK(ev->event == type);
	T_CHECK(ev->status == status);
	/* As librdmacm: NULL private data when there is none. */
	T_CHECK(ev->param.conn.private_data_len ||
		!ev->param.conn.private_data);
	if (ev->event != type || ev->status != status)
		fprintf(stderr, "got %s status %d\n", rdma_event_str(ev->event),
			ev->status);
	rdma_ack_cm_event(ev);
}

/* Without the id's view, ADDR_RESOLVED and ROUTE_RESOLVED cost a query. */
static void async_route_queried(void)
{
	const struct rcm_resolve_route *rr;
	struct rdma_event_channel *ch;
	struct rdma_ib_addr *ib;
	struct rdma_cm_id *id;
	uint32_t handle;

	setup();
	T_CHECK(sizeof(struct ibv_sa_path_rec) == 64);
	ch = rdma_create_event_channel();
	id = ch ? resolved_id(ch) : NULL;
	if (!id)
		return;
	handle = SEAM_LAST_HANDLE();
	ib = &id->route.addr.addr.ibaddr;
	T_CHECK(SEAM_CALLS(RCM_CMD_QUERY_ID) == 1);
	T_CHECK(id->route.num_paths == 0 && id->route.path_rec == NULL);
	/* ADDR_RESOLVED gave the destination as a GID, as in-tree. */
	T_CHECK(gid_is(&ib->dgid, dgid));

	T_CHECK(rdma_resolve_route(id, 1234) == 0);
	T_CHECK(SEAM_CALLS(RCM_CMD_RESOLVE_ROUTE) == 1);
	rr = SEAM_LAST(rcm_resolve_route, RCM_CMD_RESOLVE_ROUTE);
	T_CHECK(rr->size == sizeof(struct rcm_resolve_route));
	T_CHECK(rr->flags == 0 && rr->id == handle);
	T_CHECK(rr->timeout_ms == 1234);
	/* Asynchronous: nothing read, nothing refreshed yet. */
	T_CHECK(seam_queued(ch->fd) == 1);
	T_CHECK(SEAM_CALLS(RCM_CMD_QUERY_ID) == 1);
	T_CHECK(id->route.path_rec == NULL);

	expect_event(ch, id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	T_CHECK(SEAM_CALLS(RCM_CMD_QUERY_ID) == 2);
	T_CHECK(SEAM_LAST(rcm_query_id, RCM_CMD_QUERY_ID)->size ==
		sizeof(struct rcm_query_id));
	T_CHECK(SEAM_LAST(rcm_query_id, RCM_CMD_QUERY_ID)->id == handle);
	T_CHECK(id->route.num_paths == 1);
	T_CHECK(id->route.path_rec != NULL);
	if (id->route.path_rec)
		T_CHECK(rec_is_expected(id->route.path_rec));
	T_CHECK(gid_is(&ib->dgid, dgid));
	T_CHECK(gid_is(&ib->sgid, sgid));
	T_CHECK(ib->pkey == 0);			/* as in-tree */
	T_CHECK(id->verbs && id->verbs->device == &fake_devices[0]);
	T_CHECK(id->port_num == 1);

	/* The kernel refuses a second route: the path stays. */
	seam_fail_next(RCM_CMD_RESOLVE_ROUTE, EINVAL);
	errno = 0;
	T_CHECK(rdma_resolve_route(id, 1000) == -1 && errno == EINVAL);
	T_CHECK(id->route.num_paths == 1 && id->route.path_rec != NULL);
	T_CHECK(rdma_destroy_id(id) == 0);
	rdma_destroy_event_channel(ch);
}

static void refresh_failure(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;

	setup();
	/* The library queries, which fails. */
	id = ch ? resolved_id(ch) : NULL;
	if (!id)
		return;
	T_CHECK(rdma_resolve_route(id, 1000) == 0);
	seam_fail_next(RCM_CMD_QUERY_ID, ENOENT);
	errno = 0;
	expect_event(ch, id, RDMA_CM_EVENT_ROUTE_ERROR, -1);
	T_CHECK(errno == ENOENT);
	T_CHECK(id->route.num_paths == 0 && id->route.path_rec == NULL);
	T_CHECK(gid_is(&id->route.addr.addr.ibaddr.dgid, dgid));
	T_CHECK(rdma_destroy_id(id) == 0);

	/* A kernel that reports more paths than the struct holds. */
	script_info.num_paths = 2;
	id = resolved_id(ch);
	if (!id)
		return;
	T_CHECK(rdma_resolve_route(id, 1000) == 0);
	errno = 0;
	expect_event(ch, id, RDMA_CM_EVENT_ROUTE_ERROR, -1);
	T_CHECK(errno == EPROTO);
	T_CHECK(id->route.num_paths == 0 && id->route.path_rec == NULL);
	T_CHECK(rdma_destroy_id(id) == 0);
	rdma_destroy_event_channel(ch);
}

/*
 * An InfiniBand path (rec_type 0): path_rec carries the kernel's LIDs,
 * network order, as librdmacm's ucma_convert_path() copies them; the
 * RoCE packing of the MAC into them is not done.
 */
static void ib_path_lids(void)
{
	struct rdma_event_channel *ch;
	struct ibv_sa_path_rec *rec;
	struct rdma_cm_id *id;

	setup();
	script_info.path.rec_type = 0;
	script_info.path.dlid = 0x1234;
	script_info.path.slid = 0x0567;
	ch = rdma_create_event_channel();
	id = ch ? resolved_id(ch) : NULL;
	if (!id)
		return;
	T_CHECK(rdma_resolve_route(id, 1000) == 0);
	expect_event(ch, id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	rec = id->route.path_rec;
	T_CHECK(id->route.num_paths == 1 && rec);
	if (rec) {
		T_CHECK(rec->dlid == htobe16(0x1234));
		T_CHECK(rec->slid == htobe16(0x0567));
		T_CHECK(be32toh(rec->flow_label) == 0xabcde);
		T_CHECK(rec->pkey == htobe16(0x8001));
	}
	T_CHECK(rdma_destroy_id(id) == 0);
	rdma_destroy_event_channel(ch);
}

static struct rdma_cm_id *sync_resolved_id(void)
{
	struct rdma_cm_id *id = NULL;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000)) {
		T_CHECK(!"setup");
		return NULL;
	}
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	return id;
}

static void sync_error(void)
{
	static const int status[] = { -ETIMEDOUT, -ENODEV, -EHOSTUNREACH };
	struct rdma_cm_id *id;
	unsigned int i;

	setup();
	id = sync_resolved_id();
	if (!id)
		return;
	for (i = 0; i < ARRAY_SIZE(status); i++) {
		route_status = status[i];
		errno = 0;
		T_CHECK(rdma_resolve_route(id, 1000) == -1);
		T_CHECK(errno == -status[i]);
		T_CHECK(id->event &&
			id->event->event == RDMA_CM_EVENT_ROUTE_ERROR);
		T_CHECK(id->event && id->event->status == status[i]);
		T_CHECK(id->route.num_paths == 0);
		T_CHECK(id->route.path_rec == NULL);
	}

	/*
	 * A ROUTE_ERROR made by the library from a failing refresh (a
	 * kernel that sends no info, so the library queries).
	 */
	route_status = 0;
	seam_fail_next(RCM_CMD_QUERY_ID, ENOENT);
	errno = 0;
	T_CHECK(rdma_resolve_route(id, 1000) == -1);
	T_CHECK(errno == EPERM);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ROUTE_ERROR &&
		id->event->status == -1);
	T_CHECK(id->route.path_rec == NULL);

	/*
	 * The ioctl itself failing: no wait (a record queued for it stays
	 * unread), the held event stays.
	 */
	seam_fail_next(RCM_CMD_RESOLVE_ROUTE, EOPNOTSUPP);
	T_CHECK(script_push(id->channel->fd, SEAM_LAST_HANDLE(),
			    RCM_EVENT_ADDR_CHANGE, 0));
	errno = 0;
	T_CHECK(rdma_resolve_route(id, 1000) == -1 && errno == EOPNOTSUPP);
	T_CHECK(seam_queued(id->channel->fd) == 1);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ROUTE_ERROR);
	cm_destroy_promptly(id);
}

CM_MAIN(rdma_resolve_route,
	{ "ROUTE_RESOLVED without info: queried", async_route_queried },
	{ "refresh failure becomes ROUTE_ERROR", refresh_failure },
	{ "InfiniBand path: the kernel's LIDs", ib_path_lids },
	{ "sync: ROUTE_ERROR becomes errno", sync_error })
