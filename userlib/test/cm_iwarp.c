// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_iwarp: connections on an iWARP device move the QP as librdmacm
 * does there (what Debian's rping over siw relies on; the guest test
 * rping_iwarp runs it):
 *
 * - passive: rdma_accept() moves the QP to INIT again (the CM's access
 *   flags), to RTR with the kernel's attributes (state and access flags
 *   only), and issues RTS with the kernel's empty mask (iw_cm's: the
 *   driver moves the QP to RTS itself once MPA is done), then
 *   RCM_IOCTL_ACCEPT with the QP's number; ESTABLISHED passes as is;
 * - active: rdma_connect() leaves the QP in INIT for iw_cm to take
 *   over; ESTABLISHED comes without CONNECT_RESPONSE and is handed out
 *   as is, with no QP change and no RCM_IOCTL_ESTABLISH;
 * - rdma_disconnect(): the QP to SQD (not ERR) before
 *   RCM_IOCTL_DISCONNECT.
 *
 * The module is faked (fake_rcm.c), and so is libibverbs (fake_verbs.c)
 * with an iWARP device.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

static struct rdma_event_channel *ch;
static const struct rcm_conn_param request = {
	.responder_resources = 1,	/* the peer's MPA IRD and ORD */
	.initiator_depth = 1,
};

static void setup(void)
{
	fake_transport = IBV_TRANSPORT_IWARP;
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
	memset(fake_qp_attr, 0, sizeof(fake_qp_attr));
	fake_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS |
				       IBV_QP_PORT;
	fake_qp_attr[0].port_num = 1;
	fake_qp_attr[0].qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ;
	fake_qp_attr[1].qp_attr_mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS;
	fake_qp_attr[1].qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ;
	fake_qp_attr[2].qp_attr_mask = 0;
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (ch)
		fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
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

static struct rdma_cm_event *next(enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = NULL;

	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->event == type && ev->status == 0);
	return ev;
}

static void passive(void)
{
	struct sockaddr_storage peer = { .ss_family = AF_INET };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
	};
	struct rdma_cm_id *l = NULL, *r;
	struct rdma_cm_event *ev;
	struct fake_qp *q;
	uint32_t hl, hr;
	int mods;

	setup();
	if (!ch)
		return;
	a.sin_port = htons(20400);
	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	inet_pton(AF_INET, "192.0.2.30",
		  &((struct sockaddr_in *)&peer)->sin_addr);
	T_CHECK(rdma_create_id(ch, &l, NULL, RDMA_PS_TCP) == 0);
	if (!l)
		return;
	hl = fake_last_create.out_id;
	T_CHECK(rdma_bind_addr(l, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_listen(l, 4) == 0);
	hr = fake_rcm_push_request(ch->fd, hl, &request, &peer, NULL, 0);
	ev = next(RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ev || !hr)
		return;
	r = ev->id;
	T_CHECK(r->verbs &&
		r->verbs->device->transport_type == IBV_TRANSPORT_IWARP);
	add_qp(r);
	q = fake_qp(r->qp);
	mods = q->nmods;
	T_CHECK(rdma_accept(r, &p) == 0);
	T_CHECK(fake_last_accept.id == hr &&
		fake_last_accept.qp_num == r->qp->qp_num);
	/* INIT again, RTR, and RTS with nothing to change. */
	T_CHECK(q->nmods == mods + 3);
	if (q->nmods == mods + 3) {
		const struct fake_qp_mod *m = &q->mods[mods];

		T_CHECK(m[0].mask == (int)fake_qp_attr[0].qp_attr_mask &&
			m[0].attr.qp_state == IBV_QPS_INIT &&
			m[0].attr.qp_access_flags ==
			(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
		T_CHECK(m[1].mask == (IBV_QP_STATE | IBV_QP_ACCESS_FLAGS) &&
			m[1].attr.qp_state == IBV_QPS_RTR);
		T_CHECK(m[2].mask == 0);
		/* The seq of the ACCEPT comes after the last QP change. */
		T_CHECK(m[2].seq < FAKE_SEQ(RCM_CMD_ACCEPT));
	}
	rdma_ack_cm_event(ev);

	/* ESTABLISHED from iw_cm, as is; the QP is the driver's now. */
	mods = q->nmods;
	T_CHECK(fake_rcm_push(ch->fd, hr, RCM_EVENT_ESTABLISHED, 0, NULL, 0));
	ev = next(RDMA_CM_EVENT_ESTABLISHED);
	T_CHECK(ev && ev->id == r);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(q->nmods == mods);

	/* Disconnect: SQD, as librdmacm on iWARP, then the kernel. */
	T_CHECK(rdma_disconnect(r) == 0);
	T_CHECK(q->nmods == mods + 1 && q->mods[mods].mask == IBV_QP_STATE &&
		q->mods[mods].attr.qp_state == IBV_QPS_SQD);
	T_CHECK(q->mods[mods].seq < FAKE_SEQ(RCM_CMD_DISCONNECT));
	T_CHECK(fake_last_disconnect.id == hr);
}

static void active(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL;
	struct rdma_cm_event *ev;
	struct fake_qp *q;
	uint32_t h;
	int mods, establishes;

	setup();
	if (!ch)
		return;
	dst.sin_port = htons(20400);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	T_CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
	if (!id)
		return;
	h = fake_last_create.out_id;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				  2000) == 0);
	ev = next(RDMA_CM_EVENT_ADDR_RESOLVED);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(rdma_resolve_route(id, 2000) == 0);
	ev = next(RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (ev)
		rdma_ack_cm_event(ev);
	add_qp(id);
	if (!id->qp)
		return;
	q = fake_qp(id->qp);
	mods = q->nmods;
	establishes = FAKE_CALLS(RCM_CMD_ESTABLISH);

	fake_connect_mode = FAKE_CONNECT_SILENT;
	T_CHECK(rdma_connect(id, NULL) == 0);
	T_CHECK(fake_last_connect.id == h &&
		fake_last_connect.qp_num == id->qp->qp_num);
	T_CHECK(q->nmods == mods && id->qp->state == IBV_QPS_INIT);

	/* iw_cm reports the connection up at once: ESTABLISHED, as is. */
	T_CHECK(fake_rcm_push(ch->fd, h, RCM_EVENT_ESTABLISHED, 0, NULL, 0));
	ev = next(RDMA_CM_EVENT_ESTABLISHED);
	T_CHECK(ev && ev->id == id);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(q->nmods == mods);
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) == establishes);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_accept);
	fake_rcm_init();

	t_in_child("iWARP passive: accept, ESTABLISHED, disconnect", passive);
	t_in_child("iWARP active: connect, ESTABLISHED", active);
	return t_exit();
}
