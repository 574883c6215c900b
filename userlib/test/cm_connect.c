// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_connect: what the active side does with answers the real module and
 * a well-behaved peer never give (the rest runs against rcm.ko in
 * guests: guest/cm_active.c, cm_connect.c, cm_conn_compat.c).
 *
 * - if a step after CONNECT_RESPONSE fails (an injected
 *   INIT_QP_ATTR failure, the INIT, RTR or RTS modify, ESTABLISH): no
 *   RCM_IOCTL_REJECT (librdmacm sends none), the QP in ERR,
 *   CONNECT_ERROR with status -1 (librdmacm's ucma_process_conn_resp()
 *   return value); the id's later REJECTED and DISCONNECTED are dropped;
 * - ECE: the local ECE goes in the REQ, the REP's comes back; a QP's ECE
 *   (none on a provider without ECE) replaces the id's; with a QP a
 *   reply of another vendor (which a librdmacm peer never sends) is
 *   CONNECT_ERROR, status -1, errno EINVAL.
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs is faked (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

static struct rdma_event_channel *ch;
static struct sockaddr_in dst = { .sin_family = AF_INET };
static const struct rcm_conn_param response = {
	.qp_num = 0xabcdef,
	.responder_resources = 4,
	.initiator_depth = 5,
	.flow_control = 1,
	.retry_count = 6,
	.rnr_retry_count = 3,
	.srq = 1,
};

static void setup(void)
{
	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	script_response = response;

	cm_script_rc_qp_attr();
	script_qp_attr[0].port_num = 1;
	script_qp_attr[0].qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ;
	script_qp_attr[1].path_mtu = IBV_MTU_1024;
	script_qp_attr[1].dest_qp_num = 0xabcdef;
	script_qp_attr[1].rq_psn = 0x111111;
	script_qp_attr[1].max_dest_rd_atomic = 4;
	script_qp_attr[1].min_rnr_timer = 12;
	script_qp_attr[1].ah_attr.is_global = 1;
	script_qp_attr[1].ah_attr.hop_limit = 64;
	script_qp_attr[1].ah_attr.port_num = 1;
	script_qp_attr[1].ah_attr.dgid[15] = 0x20;
	script_qp_attr[2].timeout = 14;
	script_qp_attr[2].retry_cnt = 6;
	script_qp_attr[2].rnr_retry = 3;
	script_qp_attr[2].sq_psn = 0x222222;
	script_qp_attr[2].max_rd_atomic = 5;
}

static struct rdma_cm_event *get_event(void)
{
	struct rdma_cm_event *ev = NULL;

	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	return ev;
}

/* The next event must be type; acks it. */
static void expect(enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = get_event();

	T_CHECK(ev && ev->event == type && ev->status == 0);
	if (ev)
		rdma_ack_cm_event(ev);
}

/*
 * A routed TCP id on the non-blocking channel ch, with an RC QP if qp;
 * *handle is its kernel handle.
 */
static struct rdma_cm_id *routed_id(bool qp, uint32_t *handle)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
	if (!id)
		return NULL;
	*handle = SEAM_LAST_HANDLE();
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				  2000) == 0);
	expect(RDMA_CM_EVENT_ADDR_RESOLVED);
	T_CHECK(rdma_resolve_route(id, 2000) == 0);
	expect(RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (!qp)
		return id;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp && id->qp->state == IBV_QPS_INIT);
	return id;
}

static bool open_channel(void)
{
	setup();
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (ch)
		cm_set_nonblock(ch->fd);	/* a lost event fails */
	return ch != NULL;
}

static void close_channel(struct rdma_cm_id *id)
{
	if (id) {
		if (id->qp)
			rdma_destroy_qp(id);
		T_CHECK(rdma_destroy_id(id) == 0);
	}
	cm_expect_none(ch);
	rdma_destroy_event_channel(ch);
	T_CHECK(fake_live_qps == 0 && fake_live_cqs == 0);
}

/*
 * The steps of CONNECT_RESPONSE handling connect_error_case() fails: a
 * command on the seam (@cmd) or, with @cmd 0, the QP's move to @state;
 * either with @err.
 */
static const struct {
	unsigned int cmd;
	enum ibv_qp_state state;
	int err;
} connect_steps[] = {
	{ .cmd = RCM_CMD_INIT_QP_ATTR, .err = ENODEV },
	{ .state = IBV_QPS_RTR, .err = EINVAL },
	{ .state = IBV_QPS_RTS, .err = ETIMEDOUT },
	{ .cmd = RCM_CMD_ESTABLISH, .err = EIO },
	{ .state = IBV_QPS_INIT, .err = EPERM },
};

/* CONNECT_RESPONSE handling fails in step: the connection is refused. */
static void connect_error_case(int step)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct fake_qp *f;
	int want = connect_steps[step].err, establishes, rejects;
	uint32_t h;

	if (!open_channel())
		return;
	id = routed_id(true, &h);
	if (!id || !id->qp)
		return;
	f = fake_qp(id->qp);
	if (connect_steps[step].cmd)
		seam_fail_next(connect_steps[step].cmd, want);
	else
		fake_fail_modify(connect_steps[step].state, want);
	establishes = SEAM_CALLS(RCM_CMD_ESTABLISH);
	rejects = SEAM_CALLS(RCM_CMD_REJECT);
	T_CHECK(rdma_connect(id, NULL) == 0);
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_ERROR);
	T_CHECK(ev && ev->status == -1 && ev->id == id);
	T_CHECK(errno == want);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(SEAM_CALLS(RCM_CMD_ESTABLISH) ==
		establishes + (connect_steps[step].cmd == RCM_CMD_ESTABLISH));
	T_CHECK(SEAM_CALLS(RCM_CMD_REJECT) == rejects);
	T_CHECK(id->qp->state == IBV_QPS_ERR);
	T_CHECK(f->nmods >= 2 &&
		f->mods[f->nmods - 1].attr.qp_state == IBV_QPS_ERR);

	/* The id's later REJECTED and DISCONNECTED are dropped. */
	T_CHECK(script_push(ch->fd, h, RCM_EVENT_REJECTED, 28));
	T_CHECK(script_push(ch->fd, h, RCM_EVENT_DISCONNECTED, 0));
	T_CHECK(script_push(ch->fd, h, RCM_EVENT_TIMEWAIT_EXIT, 0));
	expect(RDMA_CM_EVENT_TIMEWAIT_EXIT);
	close_channel(id);	/* and destroy does not wait for them */
}

static void connect_errors(void)
{
	int step;

	for (step = 0; step < (int)ARRAY_SIZE(connect_steps); step++) {
		connect_error_case(step);
		fake_fail_modify(IBV_QPS_RESET, 0);
	}
}

/*
 * ECE on the wire, as librdmacm on the in-tree CM: the local ECE goes in
 * the REQ, the REP's comes back for rdma_get_remote_ece(); a QP's ECE
 * replaces the id's (none on a provider without ECE); with a QP, a reply
 * of another vendor fails the connection (CONNECT_ERROR, status -1,
 * errno EINVAL), as ucma_process_conn_resp_ece().
 */
static void ece_on_the_wire(void)
{
	struct ibv_ece mine = { .vendor_id = 0x123456, .options = 0x56 };
	struct ibv_ece got = { .comp_mask = 1 };
	struct rdma_conn_param p = { .qp_num = 0x777 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	uint32_t h;

	if (!open_channel())
		return;
	id = routed_id(false, &h);
	if (!id)
		return;
	T_CHECK(rdma_set_local_ece(id, &mine) == 0);
	script_peer_ece_vendor_id = 0x654321;
	script_peer_ece_attr_mod = 0x77;
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(SEAM_LAST(rcm_connect, RCM_CMD_CONNECT)->ece_vendor_id == 0x123456 &&
		SEAM_LAST(rcm_connect, RCM_CMD_CONNECT)->ece_attr_mod == 0x56);
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(rdma_get_remote_ece(id, &got) == 0);
	T_CHECK(got.vendor_id == 0x654321 && got.options == 0x77 &&
		!got.comp_mask);
	T_CHECK(rdma_destroy_id(id) == 0);

	/* A QP on a provider without ECE: the id's becomes none. */
	id = routed_id(false, &h);
	if (!id)
		return;
	T_CHECK(rdma_set_local_ece(id, &mine) == 0);
	{
		struct ibv_qp_init_attr attr = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	}
	T_CHECK(rdma_connect(id, NULL) == 0);
	T_CHECK(SEAM_LAST(rcm_connect, RCM_CMD_CONNECT)->ece_vendor_id == 0 &&
		SEAM_LAST(rcm_connect, RCM_CMD_CONNECT)->ece_attr_mod == 0);
	/* The REP names a vendor this side does not have. */
	errno = 0;
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_ERROR &&
		ev->status == -1 && errno == EINVAL);
	T_CHECK(id->qp && id->qp->state == IBV_QPS_ERR);
	if (ev)
		rdma_ack_cm_event(ev);
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);
	script_peer_ece_vendor_id = 0;
	script_peer_ece_attr_mod = 0;
	close_channel(NULL);
}

CM_MAIN(rdma_connect,
	{ "CONNECT_ERROR and REJECT", connect_errors },
	{ "ECE on the wire", ece_on_the_wire })
