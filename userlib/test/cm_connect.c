// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_connect: the active side, rdma_connect(), CONNECT_RESPONSE,
 * rdma_establish(), rdma_disconnect() and the ECE calls.
 *
 * - rdma_connect() with a QP: RCM_IOCTL_CONNECT with the QP's number and
 *   SRQ flag, the caller's parameters and private data; with a NULL
 *   conn_param librdmacm's defaults (the device's max_qp_rd_atom and
 *   max_qp_init_rd_atom, retry 7, RNR retry 7, no flow control);
 *   RDMA_MAX_RESP_RES/RDMA_MAX_INIT_DEPTH mean the device's maximum,
 *   more than the device has is EINVAL (RDMA_PS_TCP, before the kernel);
 * - CONNECT_RESPONSE on an id with a QP: one RCM_IOCTL_INIT_QP_ATTR for
 *   INIT|RTR|RTS, the QP to INIT again (the CM's access flags), RTR and
 *   RTS with exactly the kernel's attributes, then RCM_IOCTL_ESTABLISH,
 *   and the application gets
 *   ESTABLISHED with the response's parameters and its 196 bytes of
 *   private data;
 * - if a step fails (INIT_QP_ATTR, the INIT, RTR or RTS modify, ESTABLISH):
 *   no RCM_IOCTL_REJECT (librdmacm sends none), the QP in ERR,
 *   CONNECT_ERROR with status -1 (librdmacm's ucma_process_conn_resp()
 *   return value); the id's later REJECTED and DISCONNECTED are dropped;
 * - without a QP: CONNECT_RESPONSE as the kernel gives it, qp_num/srq
 *   from conn_param, NULL conn_param EINVAL on RDMA_PS_TCP; then
 *   rdma_establish() sends ESTABLISH (EINVAL on an id with a QP);
 * - REJECTED (status 8, the 148-byte REJ area) moves the QP to ERR;
 *   DISCONNECTED leaves it alone (librdmacm's rule); UNREACHABLE is passed as the kernel gives it, QP untouched;
 * - private data: 56 bytes pass, 57 fail with EINVAL before the kernel,
 *   no pointer means no data;
 * - rdma_disconnect(): the QP to ERR before RCM_IOCTL_DISCONNECT; 0
 *   again on a second call and after REJECTED, as in-tree; the
 *   kernel's EINVAL for an id that never connected passes through;
 * - retry_count and rnr_retry_count above 7 (libfabric's 15) go to the
 *   kernel as given, which takes them as 7: no EINVAL;
 * - synchronous mode: rdma_connect() returns with ESTABLISHED in
 *   id->event; REJECTED gives ECONNREFUSED, UNREACHABLE ETIMEDOUT,
 *   CONNECT_ERROR EPERM (-status, as librdmacm); rdma_disconnect() waits for
 *   DISCONNECTED;
 * - ECE: rdma_set_local_ece() checks as librdmacm and stores,
 *   rdma_get_remote_ece() gives what the peer sent (zero before); the
 *   local ECE goes in the REQ, the REP's comes back; a QP's ECE (none on
 *   a provider without ECE) replaces the id's; with a QP a reply of
 *   another vendor is CONNECT_ERROR, status -1, errno EINVAL.
 *
 * The module is faked (fake_rcm.c), and so is libibverbs (fake_verbs.c).
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
	unsigned int i;

	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
	fake_connect_response = response;
	for (i = 0; i < sizeof(fake_peer_data); i++)
		fake_peer_data[i] = (uint8_t)(i + 1);

	memset(fake_qp_attr, 0, sizeof(fake_qp_attr));
	fake_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	fake_qp_attr[0].port_num = 1;
	fake_qp_attr[0].qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ;
	fake_qp_attr[1].qp_attr_mask = IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER;
	fake_qp_attr[1].path_mtu = IBV_MTU_1024;
	fake_qp_attr[1].dest_qp_num = 0xabcdef;
	fake_qp_attr[1].rq_psn = 0x111111;
	fake_qp_attr[1].max_dest_rd_atomic = 4;
	fake_qp_attr[1].min_rnr_timer = 12;
	fake_qp_attr[1].ah_attr.is_global = 1;
	fake_qp_attr[1].ah_attr.hop_limit = 64;
	fake_qp_attr[1].ah_attr.port_num = 1;
	fake_qp_attr[1].ah_attr.dgid[15] = 0x20;
	fake_qp_attr[2].qp_attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	fake_qp_attr[2].timeout = 14;
	fake_qp_attr[2].retry_cnt = 6;
	fake_qp_attr[2].rnr_retry = 3;
	fake_qp_attr[2].sq_psn = 0x222222;
	fake_qp_attr[2].max_rd_atomic = 5;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static struct rdma_cm_event *get_event(void)
{
	struct rdma_cm_event *ev = NULL;

	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	return ev;
}

static void expect_eagain(void)
{
	struct rdma_cm_event *ev = NULL;

	errno = 0;
	T_CHECK(rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN);
	T_CHECK(ev == NULL);
	if (ev)
		rdma_ack_cm_event(ev);
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
	*handle = fake_last_create.out_id;
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
		set_nonblock(ch->fd);	/* a lost event fails */
	return ch != NULL;
}

static void close_channel(struct rdma_cm_id *id)
{
	if (id) {
		if (id->qp)
			rdma_destroy_qp(id);
		T_CHECK(rdma_destroy_id(id) == 0);
	}
	expect_eagain();
	rdma_destroy_event_channel(ch);
	T_CHECK(fake_live_qps == 0 && fake_live_cqs == 0);
}

static bool same_mod(const struct fake_qp_mod *m, const struct rcm_qp_attr *k)
{
	const struct ibv_qp_attr *a = &m->attr;

	/* qp_state is the one the kernel filled in, checked apart. */
	return m->mask == (int)k->qp_attr_mask && a->path_mtu == k->path_mtu &&
	       a->dest_qp_num == k->dest_qp_num && a->rq_psn == k->rq_psn &&
	       a->sq_psn == k->sq_psn &&
	       a->max_dest_rd_atomic == k->max_dest_rd_atomic &&
	       a->max_rd_atomic == k->max_rd_atomic &&
	       a->min_rnr_timer == k->min_rnr_timer &&
	       a->timeout == k->timeout && a->retry_cnt == k->retry_cnt &&
	       a->rnr_retry == k->rnr_retry &&
	       a->ah_attr.is_global == k->ah_attr.is_global &&
	       a->ah_attr.grh.hop_limit == k->ah_attr.hop_limit &&
	       a->ah_attr.port_num == k->ah_attr.port_num &&
	       !memcmp(a->ah_attr.grh.dgid.raw, k->ah_attr.dgid, 16);
}

static void connect_established(void)
{
	struct rdma_conn_param p = {
		.private_data = "hello",
		.private_data_len = 6,
		.responder_resources = 2,
		.initiator_depth = 3,
		.flow_control = 1,
		.retry_count = 6,
		.rnr_retry_count = 5,
	};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct fake_qp *f;
	uint32_t h;

	if (!open_channel())
		return;
	id = routed_id(true, &h);
	if (!id || !id->qp)
		return;
	f = fake_qp(id->qp);
	p.qp_num = 0x777;	/* ignored: the id has a QP */
	p.srq = 1;
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(fake_last_connect.size == sizeof(struct rcm_connect));
	T_CHECK(fake_last_connect.flags == 0);
	T_CHECK(fake_last_connect.id == h);
	T_CHECK(fake_last_connect.qp_num == id->qp->qp_num);
	T_CHECK(fake_last_connect.srq == 0);
	T_CHECK(fake_last_connect.responder_resources == 2);
	T_CHECK(fake_last_connect.initiator_depth == 3);
	T_CHECK(fake_last_connect.flow_control == 1);
	T_CHECK(fake_last_connect.retry_count == 6);
	T_CHECK(fake_last_connect.rnr_retry_count == 5);
	T_CHECK(fake_last_connect.private_data_len == 6);
	T_CHECK(!memcmp(fake_connect_data, "hello", 6));
	/* Nothing happens to the QP until the answer. */
	T_CHECK(f->nmods == 1 && id->qp->state == IBV_QPS_INIT);

	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_ESTABLISHED);
	if (!ev)
		return;
	T_CHECK(ev->status == 0 && ev->id == id && ev->listen_id == NULL);
	T_CHECK(ev->param.conn.qp_num == response.qp_num);
	T_CHECK(ev->param.conn.responder_resources == 4);
	T_CHECK(ev->param.conn.initiator_depth == 5);
	T_CHECK(ev->param.conn.flow_control == 1);
	T_CHECK(ev->param.conn.retry_count == 6);
	T_CHECK(ev->param.conn.rnr_retry_count == 3);
	T_CHECK(ev->param.conn.srq == 1);
	T_CHECK(ev->param.conn.private_data_len == 196);
	T_CHECK(ev->param.conn.private_data &&
		!memcmp(ev->param.conn.private_data, fake_peer_data, 196));

	/* One query for all three, INIT, RTR, RTS as the kernel says. */
	T_CHECK(fake_last_init_qp_attr.id == h);
	T_CHECK(fake_last_init_qp_attr.qp_states ==
		((1u << RCM_QPS_INIT) | (1u << RCM_QPS_RTR) |
		 (1u << RCM_QPS_RTS)));
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 2);
	T_CHECK(f->nmods == 4);
	T_CHECK(same_mod(&f->mods[1], &fake_qp_attr[0]));
	T_CHECK(f->mods[1].attr.qp_state == IBV_QPS_INIT &&
		f->mods[1].attr.qp_access_flags ==
		fake_qp_attr[0].qp_access_flags);
	T_CHECK(same_mod(&f->mods[2], &fake_qp_attr[1]));
	T_CHECK(f->mods[2].attr.qp_state == IBV_QPS_RTR);
	T_CHECK(same_mod(&f->mods[3], &fake_qp_attr[2]));
	T_CHECK(f->mods[3].attr.qp_state == IBV_QPS_RTS);
	T_CHECK(id->qp->state == IBV_QPS_RTS);
	/* The RTU once the QP is ready to send; no reject. */
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) == 1);
	T_CHECK(fake_last_establish.id == h);
	T_CHECK(FAKE_SEQ(RCM_CMD_ESTABLISH) > f->mods[3].seq);
	T_CHECK(FAKE_CALLS(RCM_CMD_REJECT) == 0);
	rdma_ack_cm_event(ev);

	/* Disconnect: QP to ERR first, then the DREQ. */
	T_CHECK(rdma_disconnect(id) == 0);
	T_CHECK(f->nmods == 5 && f->mods[4].attr.qp_state == IBV_QPS_ERR &&
		f->mods[4].mask == IBV_QP_STATE);
	T_CHECK(FAKE_SEQ(RCM_CMD_DISCONNECT) > f->mods[4].seq);
	T_CHECK(fake_last_disconnect.id == h);
	T_CHECK(fake_last_disconnect.size == sizeof(struct rcm_disconnect));
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_DISCONNECTED &&
		ev->id == id);
	if (ev)
		rdma_ack_cm_event(ev);
	/*
	 * Twice: 0, as in-tree (applications disconnect from their
	 * DISCONNECTED handler and abort on failure); nothing follows.
	 */
	T_CHECK(rdma_disconnect(id) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_DISCONNECT) == 2);
	T_CHECK(id->qp->state == IBV_QPS_ERR);
	expect_eagain();
	errno = 0;
	T_CHECK(rdma_disconnect(NULL) == -1 && errno == EINVAL);

	/* TIMEWAIT_EXIT passes through, as in librdmacm. */
	T_CHECK(fake_rcm_push(ch->fd, h, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0));
	expect(RDMA_CM_EVENT_TIMEWAIT_EXIT);
	close_channel(id);
}

static void connect_defaults(void)
{
	struct rdma_conn_param p;
	struct rdma_cm_id *id;
	uint32_t h;
	int calls;

	if (!open_channel())
		return;
	id = routed_id(true, &h);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	T_CHECK(fake_last_connect.qp_num == id->qp->qp_num);
	T_CHECK(fake_last_connect.responder_resources == 16);
	T_CHECK(fake_last_connect.initiator_depth == 16);
	T_CHECK(fake_last_connect.retry_count == 7);
	T_CHECK(fake_last_connect.rnr_retry_count == 7);
	T_CHECK(fake_last_connect.flow_control == 0);
	T_CHECK(fake_last_connect.srq == 0);
	T_CHECK(fake_last_connect.private_data_len == 0);
	T_CHECK(fake_last_connect.private_data == 0);
	expect(RDMA_CM_EVENT_ESTABLISHED);
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);

	/* RDMA_MAX_*: the device's maximum; more than it has: EINVAL. */
	id = routed_id(true, &h);
	if (!id)
		return;
	memset(&p, 0, sizeof(p));
	p.responder_resources = 17;
	calls = FAKE_CALLS(RCM_CMD_CONNECT);
	errno = 0;
	T_CHECK(rdma_connect(id, &p) == -1 && errno == EINVAL);
	p.responder_resources = 1;
	p.initiator_depth = 17;
	T_CHECK(rdma_connect(id, &p) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_CONNECT) == calls);
	p.responder_resources = RDMA_MAX_RESP_RES;
	p.initiator_depth = RDMA_MAX_INIT_DEPTH;
	p.flow_control = 9;	/* a flag: "yes" */
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(fake_last_connect.responder_resources == 16);
	T_CHECK(fake_last_connect.initiator_depth == 16);
	T_CHECK(fake_last_connect.flow_control == 1);
	T_CHECK(fake_last_connect.retry_count == 0);
	expect(RDMA_CM_EVENT_ESTABLISHED);
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);

	/*
	 * libfabric's retry_count 15: passed on as librdmacm does, for the
	 * kernel to take as 7; never EINVAL. A routed id that never
	 * connected has nothing to disconnect: the kernel's EINVAL.
	 */
	id = routed_id(true, &h);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_disconnect(id) == -1 && errno == EINVAL);
	memset(&p, 0, sizeof(p));
	p.retry_count = 15;
	p.rnr_retry_count = 15;
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(fake_last_connect.retry_count == 15);
	T_CHECK(fake_last_connect.rnr_retry_count == 15);
	expect(RDMA_CM_EVENT_ESTABLISHED);
	close_channel(id);
}

static void private_data_limits(void)
{
	uint8_t big[57];
	struct rdma_conn_param p;
	struct rdma_cm_id *id;
	uint32_t h;
	int calls;

	if (!open_channel())
		return;
	memset(big, 0x5a, sizeof(big));
	fake_connect_mode = FAKE_CONNECT_SILENT;
	id = routed_id(true, &h);
	if (!id)
		return;
	memset(&p, 0, sizeof(p));
	p.private_data = big;
	p.private_data_len = 57;
	calls = FAKE_CALLS(RCM_CMD_CONNECT);
	errno = 0;
	T_CHECK(rdma_connect(id, &p) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_CONNECT) == calls);
	p.private_data_len = 56;
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(fake_last_connect.private_data_len == 56);
	T_CHECK(fake_connect_data[55] == 0x5a);
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);

	/* No pointer, no data. */
	id = routed_id(true, &h);
	if (!id)
		return;
	p.private_data = NULL;
	p.private_data_len = 40;
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(fake_last_connect.private_data_len == 0);
	T_CHECK(fake_last_connect.private_data == 0);
	close_channel(id);
}

/* CONNECT_RESPONSE handling fails in step: the connection is refused. */
static void connect_error_case(int step)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct fake_qp *f;
	int want = 0, establishes, rejects;
	uint32_t h;

	if (!open_channel())
		return;
	id = routed_id(true, &h);
	if (!id || !id->qp)
		return;
	f = fake_qp(id->qp);
	switch (step) {
	case 0:
		fake_rcm_fail_next(RCM_CMD_INIT_QP_ATTR, ENODEV);
		want = ENODEV;
		break;
	case 1:
		fake_fail_modify(IBV_QPS_RTR, EINVAL);
		want = EINVAL;
		break;
	case 4:
		fake_fail_modify(IBV_QPS_INIT, EPERM);
		want = EPERM;
		break;
	case 2:
		fake_fail_modify(IBV_QPS_RTS, ETIMEDOUT);
		want = ETIMEDOUT;
		break;
	case 3:
		fake_rcm_fail_next(RCM_CMD_ESTABLISH, EIO);
		want = EIO;
		break;
	}
	establishes = FAKE_CALLS(RCM_CMD_ESTABLISH);
	rejects = FAKE_CALLS(RCM_CMD_REJECT);
	T_CHECK(rdma_connect(id, NULL) == 0);
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_ERROR);
	T_CHECK(ev && ev->status == -1 && ev->id == id);
	T_CHECK(errno == want);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) ==
		establishes + (step == 3 ? 1 : 0));
	T_CHECK(FAKE_CALLS(RCM_CMD_REJECT) == rejects);
	T_CHECK(!fake_rcm_rejected(ch->fd, h));
	T_CHECK(id->qp->state == IBV_QPS_ERR);
	T_CHECK(f->nmods >= 2 &&
		f->mods[f->nmods - 1].attr.qp_state == IBV_QPS_ERR);

	/* The id's later REJECTED and DISCONNECTED are dropped. */
	T_CHECK(fake_rcm_push(ch->fd, h, RCM_EVENT_REJECTED, 28, NULL, 0));
	T_CHECK(fake_rcm_push(ch->fd, h, RCM_EVENT_DISCONNECTED, 0, NULL, 0));
	T_CHECK(fake_rcm_push(ch->fd, h, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0));
	expect(RDMA_CM_EVENT_TIMEWAIT_EXIT);
	close_channel(id);	/* and destroy does not wait for them */
}

static void connect_errors(void)
{
	int step;

	for (step = 0; step < 5; step++) {
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
	fake_peer_ece_vendor_id = 0x654321;
	fake_peer_ece_attr_mod = 0x77;
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(fake_last_connect.ece_vendor_id == 0x123456 &&
		fake_last_connect.ece_attr_mod == 0x56);
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
	T_CHECK(fake_last_connect.ece_vendor_id == 0 &&
		fake_last_connect.ece_attr_mod == 0);
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
	fake_peer_ece_vendor_id = 0;
	fake_peer_ece_attr_mod = 0;
	close_channel(NULL);
}

static void no_qp(void)
{
	struct ibv_qp_attr qa;
	int mask;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id, *withqp;
	uint32_t h, hq;
	int calls;

	if (!open_channel())
		return;
	id = routed_id(false, &h);
	if (!id)
		return;
	calls = FAKE_CALLS(RCM_CMD_CONNECT);
	errno = 0;
	T_CHECK(rdma_connect(id, NULL) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_CONNECT) == calls);

	memset(&p, 0, sizeof(p));
	p.qp_num = 0x4242;
	p.srq = 1;
	p.retry_count = 4;
	p.rnr_retry_count = 2;
	T_CHECK(rdma_connect(id, &p) == 0);
	T_CHECK(fake_last_connect.qp_num == 0x4242);
	T_CHECK(fake_last_connect.srq == 1);
	T_CHECK(fake_last_connect.retry_count == 4);
	T_CHECK(fake_last_connect.rnr_retry_count == 2);

	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE &&
		ev->status == 0);
	T_CHECK(ev && ev->param.conn.qp_num == response.qp_num &&
		ev->param.conn.initiator_depth == 5 &&
		ev->param.conn.private_data_len == 196);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 0);

	/*
	 * The application readies its QP: asking for RTR fetches RTS too,
	 * which the next call hands out without the kernel, once.
	 */
	qa.qp_state = IBV_QPS_RTR;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 1 &&
		fake_last_init_qp_attr.qp_states ==
		((1u << RCM_QPS_RTR) | (1u << RCM_QPS_RTS)));
	qa.qp_state = IBV_QPS_RTS;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == 0 &&
		qa.qp_state == IBV_QPS_RTS);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 1);
	qa.qp_state = IBV_QPS_RTS;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 2 &&
		fake_last_init_qp_attr.qp_states == 1u << RCM_QPS_RTS);

	/* Then the RTU. */
	T_CHECK(rdma_establish(id) == 0);
	T_CHECK(fake_last_establish.id == h);
	T_CHECK(fake_last_establish.size == sizeof(struct rcm_establish));
	errno = 0;
	T_CHECK(rdma_establish(id) == -1 && errno == EINVAL);

	/* With a QP the library did it: EINVAL, never the kernel. */
	withqp = routed_id(true, &hq);
	calls = FAKE_CALLS(RCM_CMD_ESTABLISH);
	errno = 0;
	T_CHECK(withqp && rdma_establish(withqp) == -1 && errno == EINVAL);
	T_CHECK(rdma_establish(NULL) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) == calls);
	if (withqp) {
		rdma_destroy_qp(withqp);
		T_CHECK(rdma_destroy_id(withqp) == 0);
	}
	close_channel(id);
}

static void answers(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	uint32_t h;

	if (!open_channel())
		return;
	fake_connect_mode = FAKE_CONNECT_REJECT;
	fake_connect_status = 8;
	id = routed_id(true, &h);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_REJECTED &&
		ev->status == 8);
	T_CHECK(ev && ev->param.conn.private_data_len == 148 &&
		!memcmp(ev->param.conn.private_data, fake_peer_data, 148));
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(id->qp->state == IBV_QPS_ERR);
	T_CHECK(FAKE_CALLS(RCM_CMD_REJECT) == 0);
	/* After REJECTED: 0, as in-tree, and nothing follows. */
	T_CHECK(rdma_disconnect(id) == 0);
	T_CHECK(fake_last_disconnect.id == h);
	expect_eagain();
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);

	fake_connect_mode = FAKE_CONNECT_UNREACHABLE;
	id = routed_id(true, &h);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_UNREACHABLE &&
		ev->status == -ETIMEDOUT);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(id->qp->state == IBV_QPS_INIT);
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);

	/* The peer disconnects: the QP is left alone, as librdmacm does. */
	fake_connect_mode = FAKE_CONNECT_ACCEPT;
	id = routed_id(true, &h);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	expect(RDMA_CM_EVENT_ESTABLISHED);
	T_CHECK(fake_rcm_push(ch->fd, h, RCM_EVENT_DISCONNECTED, 0, NULL, 0));
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_DISCONNECTED);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(id->qp->state == IBV_QPS_RTS);
	close_channel(id);
}

/* A routed synchronous TCP id with a QP. */
static struct rdma_cm_id *sync_id(uint32_t *handle)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == 0);
	if (!id)
		return NULL;
	*handle = fake_last_create.out_id;
	set_nonblock(id->channel->fd);
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				  2000) == 0);
	T_CHECK(rdma_resolve_route(id, 2000) == 0);
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	return id;
}

static void sync_destroy(struct rdma_cm_id *id)
{
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void sync_mode(void)
{
	struct rdma_cm_id *id;
	uint32_t h;

	setup();
	id = sync_id(&h);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED);
	T_CHECK(id->event && id->event->param.conn.private_data_len == 196);
	T_CHECK(id->qp->state == IBV_QPS_RTS);
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) == 1);
	T_CHECK(rdma_disconnect(id) == 0);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_DISCONNECTED);
	T_CHECK(id->qp->state == IBV_QPS_ERR);
	sync_destroy(id);

	fake_connect_mode = FAKE_CONNECT_REJECT;
	id = sync_id(&h);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_connect(id, NULL) == -1 && errno == ECONNREFUSED);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_REJECTED &&
		id->event->status == 8);
	sync_destroy(id);

	fake_connect_mode = FAKE_CONNECT_UNREACHABLE;
	id = sync_id(&h);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_connect(id, NULL) == -1 && errno == ETIMEDOUT);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_UNREACHABLE);
	sync_destroy(id);

	fake_connect_mode = FAKE_CONNECT_ACCEPT;
	fake_fail_modify(IBV_QPS_RTS, EINVAL);
	id = sync_id(&h);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_connect(id, NULL) == -1 && errno == EPERM);
	T_CHECK(id->event &&
		id->event->event == RDMA_CM_EVENT_CONNECT_ERROR &&
		id->event->status == -1);
	T_CHECK(!fake_rcm_rejected(id->channel->fd, h));
	sync_destroy(id);

	/* No answer yet on a non-blocking private channel: EAGAIN. */
	fake_connect_mode = FAKE_CONNECT_SILENT;
	id = sync_id(&h);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_connect(id, NULL) == -1 && errno == EAGAIN);
	T_CHECK(FAKE_CALLS(RCM_CMD_CONNECT) == 5);
	sync_destroy(id);
	T_CHECK(fake_live_qps == 0 && fake_live_pds == 0);
}

static void ece(void)
{
	struct ibv_ece e = { .vendor_id = 0x15b3, .options = 0x11 };
	struct rdma_cm_id *id, *q;
	uint32_t h, hq;

	if (!open_channel())
		return;
	id = routed_id(false, &h);
	q = routed_id(true, &hq);
	if (!id || !q)
		return;
	errno = 0;
	T_CHECK(rdma_set_local_ece(q, &e) == -1 && errno == EINVAL);
	T_CHECK(rdma_get_remote_ece(q, &e) == -1 && errno == EINVAL);
	e.vendor_id = 0;
	T_CHECK(rdma_set_local_ece(id, &e) == -1 && errno == EINVAL);
	e.vendor_id = 0x15b3;
	e.comp_mask = 1;
	T_CHECK(rdma_set_local_ece(id, &e) == -1 && errno == EINVAL);
	T_CHECK(rdma_set_local_ece(id, NULL) == -1 && errno == EINVAL);
	T_CHECK(rdma_set_local_ece(NULL, &e) == -1 && errno == EINVAL);
	e.comp_mask = 0;
	T_CHECK(rdma_set_local_ece(id, &e) == 0);

	memset(&e, 0xff, sizeof(e));
	T_CHECK(rdma_get_remote_ece(id, &e) == 0);
	T_CHECK(e.vendor_id == 0 && e.options == 0 && e.comp_mask == 0);
	T_CHECK(rdma_get_remote_ece(id, NULL) == -1 && errno == EINVAL);
	rdma_destroy_qp(q);
	T_CHECK(rdma_destroy_id(q) == 0);
	close_channel(id);
}

/*
 * A module whose events carry the QP attribute sets: rdma_create_qp()
 * takes INIT from ROUTE_RESOLVED, the CONNECT_RESPONSE readies the QP
 * with its own INIT, RTR and RTS; no RCM_IOCTL_INIT_QP_ATTR at all.
 * An option set after the event makes the library ask again.
 */
static void carried_qp_attr(void)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct fake_qp *f;
	uint8_t tmo = 14;
	uint32_t h;

	fake_carry_qp_attr = true;
	if (!open_channel())
		return;
	id = routed_id(true, &h);
	if (!id || !id->qp)
		return;
	f = fake_qp(id->qp);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 0);
	T_CHECK(f->nmods == 1 && same_mod(&f->mods[0], &fake_qp_attr[0]) &&
		f->mods[0].attr.qp_state == IBV_QPS_INIT);
	T_CHECK(rdma_connect(id, NULL) == 0);
	ev = get_event();
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_ESTABLISHED);
	if (!ev)
		return;
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 0);
	T_CHECK(f->nmods == 4);
	T_CHECK(same_mod(&f->mods[1], &fake_qp_attr[0]) &&
		f->mods[1].attr.qp_state == IBV_QPS_INIT);
	T_CHECK(same_mod(&f->mods[2], &fake_qp_attr[1]) &&
		f->mods[2].attr.qp_state == IBV_QPS_RTR);
	T_CHECK(same_mod(&f->mods[3], &fake_qp_attr[2]) &&
		f->mods[3].attr.qp_state == IBV_QPS_RTS);
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) == 1);
	rdma_ack_cm_event(ev);
	/* rdma_init_qp_attr() asks the kernel, carried sets or not. */
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
		int mask;

		T_CHECK(rdma_init_qp_attr(id, &a, &mask) == 0);
		T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 1);
	}
	rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);

	/* An option after ROUTE_RESOLVED: the kernel is asked. */
	id = routed_id(false, &h);
	if (!id)
		return;
	T_CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
				&tmo, sizeof(tmo)) == 0);
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 2);
	T_CHECK(fake_last_init_qp_attr.qp_states == 1u << RCM_QPS_INIT);
	close_channel(id);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_connect);
	fake_rcm_init();

	t_in_child("connect, ESTABLISHED, disconnect", connect_established);
	t_in_child("connect defaults and limits", connect_defaults);
	t_in_child("connect private data", private_data_limits);
	t_in_child("CONNECT_ERROR and REJECT", connect_errors);
	t_in_child("no QP: CONNECT_RESPONSE, rdma_establish", no_qp);
	t_in_child("REJECTED, UNREACHABLE, DISCONNECTED", answers);
	t_in_child("synchronous connect and disconnect", sync_mode);
	t_in_child("ECE", ece);
	t_in_child("ECE on the wire", ece_on_the_wire);
	t_in_child("QP attributes carried by the events", carried_qp_attr);
	return t_exit();
}
