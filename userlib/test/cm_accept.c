// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_accept: what the passive side does with failures the real module
 * cannot be made to give (the rest runs against rcm.ko in guests:
 * guest/cm_accept.c, cm_sync_accept.c, cm_connect.c, cm_conn_compat.c,
 * cm_sync_channels.c).
 *
 * - a failed transition (an injected RTR failure), INIT_QP_ATTR or
 *   ACCEPT failure: -1 with its errno, the QP in ERR (after RTS for a
 *   refused ACCEPT, as librdmacm).
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs is faked (fake_verbs.c).
 */
#include <errno.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

static struct rdma_event_channel *ch;

static void setup(void)
{
	cm_script_rc_qp_attr();
	script_qp_attr[0].qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	script_qp_attr[1].dest_qp_num = cm_request_conn.qp_num;
	script_qp_attr[1].rq_psn = 0x333;
	script_qp_attr[1].max_dest_rd_atomic = 99;
	script_qp_attr[2].sq_psn = 0x444;
	script_qp_attr[2].timeout = 14;
	script_qp_attr[2].max_rd_atomic = 98;
}

static void add_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 2;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp && id->qp->state == IBV_QPS_INIT);
}

/* A request on the async listener hl: the event (unacked), its id. */
static struct rdma_cm_event *request(uint32_t hl, uint32_t *hr, bool qp)
{
	struct rdma_cm_event *ev = NULL;

	*hr = script_request(ch->fd, hl, &cm_request_conn, "req", 4);
	T_CHECK(*hr != 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	if (ev && qp)
		add_qp(ev->id);
	return ev;
}

static void drop(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;

	rdma_ack_cm_event(ev);
	if (id->qp)
		rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void accept_failures(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *r;
	struct fake_qp *f;
	uint32_t hl, hr;
	int accepts;

	setup();
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	cm_set_nonblock(ch->fd);
	l = cm_listener(ch, NULL, CM_LISTEN_PORT, &hl);
	if (!l)
		return;

	/* RTR fails: no ACCEPT, the QP in ERR. */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);
	fake_fail_modify(IBV_QPS_RTR, EINVAL);
	accepts = SEAM_CALLS(RCM_CMD_ACCEPT);
	errno = 0;
	T_CHECK(rdma_accept(r, NULL) == -1 && errno == EINVAL);
	T_CHECK(SEAM_CALLS(RCM_CMD_ACCEPT) == accepts);
	T_CHECK(r->qp->state == IBV_QPS_ERR);
	T_CHECK(f->mods[f->nmods - 1].attr.qp_state == IBV_QPS_ERR);
	drop(ev);

	/* INIT_QP_ATTR fails. */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	seam_fail_next(RCM_CMD_INIT_QP_ATTR, ENODEV);
	errno = 0;
	T_CHECK(rdma_accept(r, NULL) == -1 && errno == ENODEV);
	T_CHECK(r->qp->state == IBV_QPS_ERR);
	drop(ev);

	/* The kernel refuses the accept: the QP in ERR after RTS. */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);
	seam_fail_next(RCM_CMD_ACCEPT, ENOMEM);
	errno = 0;
	T_CHECK(rdma_accept(r, NULL) == -1 && errno == ENOMEM);
	T_CHECK(f->nmods == 5 && f->mods[3].attr.qp_state == IBV_QPS_RTS &&
		f->mods[4].attr.qp_state == IBV_QPS_ERR);
	T_CHECK(f->mods[4].seq > SEAM_SEQ(RCM_CMD_ACCEPT));
	drop(ev);

	T_CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(ch);
	T_CHECK(fake_live_qps == 0);
}

CM_MAIN(rdma_accept,
	{ "accept failures", accept_failures })
