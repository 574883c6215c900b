// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_accept: the passive side, rdma_accept(), rdma_notify() and
 * rdma_disconnect() on a request id.
 *
 * - rdma_accept() with a QP: one RCM_IOCTL_INIT_QP_ATTR for INIT|RTR|RTS
 *   on the request id, the QP to INIT (the CM's access flags), RTR and
 *   RTS before RCM_IOCTL_ACCEPT, with
 *   max_dest_rd_atomic/max_rd_atomic the accepted responder resources
 *   and initiator depth; ACCEPT carries the QP's number, the id's
 *   address as context, the parameters and up to 196 bytes of private
 *   data (197: EINVAL before the kernel, the QP untouched);
 * - NULL conn_param: the request's responder resources and initiator
 *   depth, capped at the device's; RNR retry 7; RDMA_MAX_* the same;
 *   explicit values are used as given, also above what the request
 *   offers, as in-tree;
 * - without a QP: qp_num and srq from conn_param; NULL conn_param EINVAL;
 *   not a request id, or accepted already: EINVAL, QP untouched;
 * - a failed transition or ACCEPT: -1 with its errno, the QP in ERR;
 * - the request id's later events come with the accept's context and
 *   still reach it: ESTABLISHED (the RTU), DISCONNECTED (QP untouched);
 * - rdma_notify(IBV_EVENT_COMM_EST) sends RCM_IOCTL_NOTIFY with
 *   RCM_NOTIFY_COMM_EST; other events fail with EINVAL without reaching
 *   the kernel;
 * - rdma_disconnect() on the passive side: QP to ERR, then DISCONNECT;
 * - synchronous listener: rdma_accept() waits for ESTABLISHED (in
 *   id->event); a CONNECT_REQUEST read meanwhile is kept for
 *   rdma_get_request(), in order; REJECTED gives ECONNREFUSED; a
 *   rdma_get_request() blocked in another thread reads the ESTABLISHED
 *   and hands it to the waiting rdma_accept(); a listener destroyed
 *   with a kept request rejects it.
 *
 * The module is faked (fake_rcm.c), and so is libibverbs (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

#define LISTEN_PORT	20100

static struct rdma_event_channel *ch;
static struct sockaddr_storage peer;
static const struct rcm_conn_param conn = {
	.qp_num = 0x123456,
	.responder_resources = 3,
	.initiator_depth = 2,
	.flow_control = 1,
	.retry_count = 6,
	.rnr_retry_count = 7,
};

static void setup(void)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(41000);
	inet_pton(AF_INET, "192.0.2.30", &sin->sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;

	memset(fake_qp_attr, 0, sizeof(fake_qp_attr));
	fake_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	fake_qp_attr[0].qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	fake_qp_attr[1].qp_attr_mask = IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER;
	fake_qp_attr[1].dest_qp_num = conn.qp_num;
	fake_qp_attr[1].rq_psn = 0x333;
	fake_qp_attr[1].max_dest_rd_atomic = 99;
	fake_qp_attr[2].qp_attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	fake_qp_attr[2].sq_psn = 0x444;
	fake_qp_attr[2].timeout = 14;
	fake_qp_attr[2].max_rd_atomic = 98;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void expect_eagain(struct rdma_event_channel *c)
{
	struct rdma_cm_event *ev = NULL;

	errno = 0;
	T_CHECK(rdma_get_cm_event(c, &ev) == -1 && errno == EAGAIN);
	if (ev)
		rdma_ack_cm_event(ev);
}

/* A TCP id on c (NULL: synchronous) listening on 192.0.2.10:20100. */
static struct rdma_cm_id *listener(struct rdma_event_channel *c,
				   uint32_t *handle)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL;

	a.sin_port = htons(LISTEN_PORT);
	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	T_CHECK(rdma_create_id(c, &id, NULL, RDMA_PS_TCP) == 0);
	if (!id)
		return NULL;
	*handle = fake_last_create.out_id;
	T_CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_listen(id, 8) == 0);
	return id;
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

	*hr = fake_rcm_push_request(ch->fd, hl, &conn, &peer, "req", 4);
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

static void accept_with_qp(void)
{
	uint8_t data[196];
	struct rdma_conn_param p;
	struct rdma_cm_event *ev, *est = NULL;
	struct rdma_cm_id *l, *r;
	struct fake_qp *f;
	uint32_t hl, hr;

	setup();
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	set_nonblock(ch->fd);
	l = listener(ch, &hl);
	if (!l)
		return;
	ev = request(hl, &hr, true);
	if (!ev || !ev->id->qp)
		return;
	r = ev->id;
	f = fake_qp(r->qp);

	memset(data, 0xc3, sizeof(data));
	memset(&p, 0, sizeof(p));
	p.private_data = data;
	p.private_data_len = 196;
	p.responder_resources = RDMA_MAX_RESP_RES;
	p.initiator_depth = RDMA_MAX_INIT_DEPTH;
	p.rnr_retry_count = 6;
	p.flow_control = 1;
	p.qp_num = 0x999;	/* ignored: the id has a QP */
	T_CHECK(rdma_accept(r, &p) == 0);

	T_CHECK(fake_last_init_qp_attr.id == hr);
	T_CHECK(fake_last_init_qp_attr.qp_states ==
		((1u << RCM_QPS_INIT) | (1u << RCM_QPS_RTR) |
		 (1u << RCM_QPS_RTS)));
	T_CHECK(f->nmods == 4);
	T_CHECK(f->mods[1].attr.qp_state == IBV_QPS_INIT &&
		f->mods[1].mask == (int)fake_qp_attr[0].qp_attr_mask &&
		f->mods[1].attr.qp_access_flags == IBV_ACCESS_REMOTE_WRITE);
	T_CHECK(f->mods[2].attr.qp_state == IBV_QPS_RTR &&
		f->mods[2].mask == (int)fake_qp_attr[1].qp_attr_mask &&
		f->mods[2].attr.dest_qp_num == conn.qp_num &&
		f->mods[2].attr.rq_psn == 0x333);
	/* The request's values (capped at the device's 16). */
	T_CHECK(f->mods[2].attr.max_dest_rd_atomic == 3);
	T_CHECK(f->mods[3].attr.qp_state == IBV_QPS_RTS &&
		f->mods[3].mask == (int)fake_qp_attr[2].qp_attr_mask &&
		f->mods[3].attr.sq_psn == 0x444 &&
		f->mods[3].attr.timeout == 14);
	T_CHECK(f->mods[3].attr.max_rd_atomic == 2);
	T_CHECK(r->qp->state == IBV_QPS_RTS);
	T_CHECK(FAKE_SEQ(RCM_CMD_ACCEPT) > f->mods[3].seq);

	T_CHECK(fake_last_accept.size == sizeof(struct rcm_accept));
	T_CHECK(fake_last_accept.flags == 0);
	T_CHECK(fake_last_accept.id == hr);
	T_CHECK(fake_last_accept.qp_num == r->qp->qp_num);
	T_CHECK(fake_last_accept.context == (uintptr_t)r);
	T_CHECK(fake_last_accept.responder_resources == 3);
	T_CHECK(fake_last_accept.initiator_depth == 2);
	T_CHECK(fake_last_accept.flow_control == 1);
	T_CHECK(fake_last_accept.rnr_retry_count == 6);
	T_CHECK(fake_last_accept.srq == 0);
	T_CHECK(fake_last_accept.private_data_len == 196);
	T_CHECK(!memcmp(fake_accept_data, data, 196));
	T_CHECK(fake_rcm_context(ch->fd, hr) == (uintptr_t)r);
	/* Only now: p could have pointed into the event. */
	rdma_ack_cm_event(ev);

	/* Accepted once. */
	errno = 0;
	T_CHECK(rdma_accept(r, &p) == -1 && errno == EINVAL);
	T_CHECK(r->qp->state == IBV_QPS_RTS && f->nmods == 4);

	/* The RTU: ESTABLISHED with the new context reaches the id. */
	T_CHECK(fake_rcm_push(ch->fd, hr, RCM_EVENT_ESTABLISHED, 0, NULL, 0));
	T_CHECK(rdma_get_cm_event(ch, &est) == 0);
	T_CHECK(est && est->id == r &&
		est->event == RDMA_CM_EVENT_ESTABLISHED && est->status == 0);
	if (est)
		rdma_ack_cm_event(est);

	/*
	 * The peer disconnects: the QP is left alone (librdmacm's rule; the
	 * program may have destroyed it already).
	 */
	T_CHECK(fake_rcm_push(ch->fd, hr, RCM_EVENT_DISCONNECTED, 0, NULL, 0));
	est = NULL;
	T_CHECK(rdma_get_cm_event(ch, &est) == 0);
	T_CHECK(est && est->id == r &&
		est->event == RDMA_CM_EVENT_DISCONNECTED);
	if (est)
		rdma_ack_cm_event(est);
	T_CHECK(r->qp->state == IBV_QPS_RTS);

	rdma_destroy_qp(r);
	T_CHECK(rdma_destroy_id(r) == 0);
	T_CHECK(rdma_destroy_id(l) == 0);
	expect_eagain(ch);
	rdma_destroy_event_channel(ch);
	T_CHECK(fake_live_qps == 0 && fake_live_cqs == 0 &&
		fake_live_pds == 0);
}

static void accept_params(void)
{
	uint8_t big[197];
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *r;
	struct fake_qp *f;
	uint32_t hl, hr;
	int calls, queries;

	setup();
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	set_nonblock(ch->fd);
	l = listener(ch, &hl);
	if (!l)
		return;

	/* NULL: the request's values, RNR retry 7, nothing else. */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	T_CHECK(rdma_accept(r, NULL) == 0);
	T_CHECK(fake_last_accept.responder_resources == 3);
	T_CHECK(fake_last_accept.initiator_depth == 2);
	T_CHECK(fake_last_accept.rnr_retry_count == 7);
	T_CHECK(fake_last_accept.flow_control == 0);
	T_CHECK(fake_last_accept.private_data_len == 0);
	T_CHECK(fake_last_accept.private_data == 0);
	T_CHECK(fake_last_accept.qp_num == r->qp->qp_num);
	drop(ev);

	/*
	 * Explicit values: as given, below or above what the request
	 * offers (3 / 2), as in-tree; the QP and the reply agree. RNR
	 * retries above 7 go to the kernel, which takes them as 7.
	 */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);
	memset(&p, 0, sizeof(p));
	p.responder_resources = 1;
	p.initiator_depth = 9;
	p.rnr_retry_count = 15;
	T_CHECK(rdma_accept(r, &p) == 0);
	T_CHECK(f->mods[2].attr.max_dest_rd_atomic == 1);
	T_CHECK(f->mods[3].attr.max_rd_atomic == 9);
	T_CHECK(fake_last_accept.responder_resources == 1);
	T_CHECK(fake_last_accept.initiator_depth == 9);
	T_CHECK(fake_last_accept.rnr_retry_count == 15);
	drop(ev);
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);
	memset(&p, 0, sizeof(p));
	p.responder_resources = 16;
	p.initiator_depth = 0;
	T_CHECK(rdma_accept(r, &p) == 0);
	T_CHECK(f->mods[2].attr.max_dest_rd_atomic == 16);
	T_CHECK(f->mods[3].attr.max_rd_atomic == 0);
	T_CHECK(fake_last_accept.responder_resources == 16);
	T_CHECK(fake_last_accept.initiator_depth == 0);
	drop(ev);

	/* Too much: EINVAL before anything moves. */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);
	memset(&p, 0, sizeof(p));
	p.private_data = big;
	p.private_data_len = 197;
	calls = FAKE_CALLS(RCM_CMD_INIT_QP_ATTR);
	errno = 0;
	T_CHECK(rdma_accept(r, &p) == -1 && errno == EINVAL);
	p.private_data_len = 100;
	p.responder_resources = 17;	/* above the device's 16 */
	T_CHECK(rdma_accept(r, &p) == -1 && errno == EINVAL);
	T_CHECK(rdma_accept(NULL, &p) == -1 && errno == EINVAL);
	/* A listener is no request. */
	T_CHECK(rdma_accept(l, &p) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == calls);
	T_CHECK(f->nmods == 1 && r->qp->state == IBV_QPS_INIT);
	drop(ev);

	/* No QP: the caller's QP number; NULL conn_param: EINVAL. */
	ev = request(hl, &hr, false);
	if (!ev)
		return;
	r = ev->id;
	queries = FAKE_CALLS(RCM_CMD_INIT_QP_ATTR);
	calls = FAKE_CALLS(RCM_CMD_ACCEPT);
	errno = 0;
	T_CHECK(rdma_accept(r, NULL) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_ACCEPT) == calls);
	memset(&p, 0, sizeof(p));
	p.qp_num = 0x5150;
	p.srq = 1;
	p.responder_resources = RDMA_MAX_RESP_RES;
	p.initiator_depth = RDMA_MAX_INIT_DEPTH;
	p.private_data = "ok";
	p.private_data_len = 3;
	T_CHECK(rdma_accept(r, &p) == 0);
	T_CHECK(fake_last_accept.qp_num == 0x5150);
	T_CHECK(fake_last_accept.srq == 1);
	T_CHECK(fake_last_accept.private_data_len == 3);
	T_CHECK(!memcmp(fake_accept_data, "ok", 3));
	/* No QP to ready: the kernel was asked for nothing. */
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == queries);
	drop(ev);

	T_CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(ch);
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
	set_nonblock(ch->fd);
	l = listener(ch, &hl);
	if (!l)
		return;

	/* RTR fails: no ACCEPT, the QP in ERR. */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);
	fake_fail_modify(IBV_QPS_RTR, EINVAL);
	accepts = FAKE_CALLS(RCM_CMD_ACCEPT);
	errno = 0;
	T_CHECK(rdma_accept(r, NULL) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_ACCEPT) == accepts);
	T_CHECK(r->qp->state == IBV_QPS_ERR);
	T_CHECK(f->mods[f->nmods - 1].attr.qp_state == IBV_QPS_ERR);
	drop(ev);

	/* INIT_QP_ATTR fails. */
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	fake_rcm_fail_next(RCM_CMD_INIT_QP_ATTR, ENODEV);
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
	fake_rcm_fail_next(RCM_CMD_ACCEPT, ENOMEM);
	errno = 0;
	T_CHECK(rdma_accept(r, NULL) == -1 && errno == ENOMEM);
	T_CHECK(f->nmods == 5 && f->mods[3].attr.qp_state == IBV_QPS_RTS &&
		f->mods[4].attr.qp_state == IBV_QPS_ERR);
	T_CHECK(f->mods[4].seq > FAKE_SEQ(RCM_CMD_ACCEPT));
	drop(ev);

	T_CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(ch);
	T_CHECK(fake_live_qps == 0);
}

static void notify_disconnect(void)
{
	struct rdma_cm_event *ev, *est = NULL;
	struct rdma_cm_id *l, *r;
	struct fake_qp *f;
	uint32_t hl, hr;
	int calls;

	setup();
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	set_nonblock(ch->fd);
	l = listener(ch, &hl);
	if (!l)
		return;
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);

	/* Not accepted yet: the kernel's EINVAL. */
	errno = 0;
	T_CHECK(rdma_notify(r, IBV_EVENT_COMM_EST) == -1 && errno == EINVAL);
	T_CHECK(fake_last_notify.event == RCM_NOTIFY_COMM_EST);
	T_CHECK(rdma_accept(r, NULL) == 0);
	/* Other events never reach the kernel. */
	calls = FAKE_CALLS(RCM_CMD_NOTIFY);
	errno = 0;
	T_CHECK(rdma_notify(r, IBV_EVENT_PATH_MIG) == -1 && errno == EINVAL);
	errno = 0;
	T_CHECK(rdma_notify(r, IBV_EVENT_PORT_ACTIVE) == -1 &&
		errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_NOTIFY) == calls);
	T_CHECK(rdma_notify(r, IBV_EVENT_COMM_EST) == 0);
	T_CHECK(fake_last_notify.size == sizeof(struct rcm_notify));
	T_CHECK(fake_last_notify.id == hr);
	T_CHECK(fake_last_notify.event == RCM_NOTIFY_COMM_EST);
	T_CHECK(rdma_get_cm_event(ch, &est) == 0);
	T_CHECK(est && est->id == r &&
		est->event == RDMA_CM_EVENT_ESTABLISHED);
	if (est)
		rdma_ack_cm_event(est);
	errno = 0;
	T_CHECK(rdma_notify(NULL, IBV_EVENT_COMM_EST) == -1 &&
		errno == EINVAL);

	/* Passive disconnect: QP to ERR, then DISCONNECT. */
	T_CHECK(rdma_disconnect(r) == 0);
	T_CHECK(f->mods[f->nmods - 1].attr.qp_state == IBV_QPS_ERR);
	T_CHECK(FAKE_SEQ(RCM_CMD_DISCONNECT) > f->mods[f->nmods - 1].seq);
	T_CHECK(fake_last_disconnect.id == hr);
	est = NULL;
	T_CHECK(rdma_get_cm_event(ch, &est) == 0);
	T_CHECK(est && est->id == r &&
		est->event == RDMA_CM_EVENT_DISCONNECTED);
	if (est)
		rdma_ack_cm_event(est);
	drop(ev);
	T_CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(ch);
}

/*
 * Synchronous: accept waits for the RTU on the request's own channel; a
 * request queued for the listener meanwhile stays where it is.
 */
static void sync_accept(void)
{
	struct rdma_cm_id *l, *r1 = NULL, *r2 = NULL, *r3 = NULL;
	uint32_t hl, h2, h3;
	int fd;

	setup();
	l = listener(NULL, &hl);
	if (!l)
		return;
	fd = l->channel->fd;
	set_nonblock(fd);
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "one", 4) != 0);
	T_CHECK(rdma_get_request(l, &r1) == 0);
	if (!r1)
		return;
	add_qp(r1);

	/* Another request is queued before the RTU comes. */
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "two", 4) != 0);
	fake_accept_establishes = true;
	T_CHECK(rdma_accept(r1, NULL) == 0);
	T_CHECK(r1->event && r1->event->event == RDMA_CM_EVENT_ESTABLISHED &&
		r1->event->id == r1);
	T_CHECK(r1->qp->state == IBV_QPS_RTS);
	T_CHECK(fake_rcm_queued(fd) == 1);

	T_CHECK(rdma_get_request(l, &r2) == 0);
	T_CHECK(r2 && r2->event && r2->event->listen_id == l &&
		!strcmp(r2->event->param.conn.private_data, "two"));
	if (!r2)
		return;
	h2 = fake_last_migrate.out_id;

	/* The peer gave up before the RTU: ECONNREFUSED, QP in ERR. */
	add_qp(r2);
	fake_accept_establishes = false;
	T_CHECK(fake_rcm_push(r2->channel->fd, h2, RCM_EVENT_REJECTED, 28,
			      NULL, 0));
	errno = 0;
	T_CHECK(rdma_accept(r2, NULL) == -1 && errno == ECONNREFUSED);
	T_CHECK(r2->event && r2->event->event == RDMA_CM_EVENT_REJECTED &&
		r2->event->status == 28);
	T_CHECK(r2->qp->state == IBV_QPS_ERR);

	/*
	 * The listener's O_NONBLOCK is its fd's alone; on a request id's
	 * own non-blocking channel, no RTU yet: EAGAIN, accepted anyway.
	 */
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "three", 6) != 0);
	T_CHECK(rdma_get_request(l, &r3) == 0);
	if (r3) {
		h3 = fake_last_migrate.out_id;
		T_CHECK(!(fcntl(r3->channel->fd, F_GETFL) & O_NONBLOCK));
		set_nonblock(r3->channel->fd);
		add_qp(r3);
		errno = 0;
		T_CHECK(rdma_accept(r3, NULL) == -1 && errno == EAGAIN);
		T_CHECK(fake_last_accept.id == h3);
		T_CHECK(r3->event == NULL);	/* the request, acked */
		rdma_destroy_qp(r3);
		T_CHECK(rdma_destroy_id(r3) == 0);
	}

	rdma_destroy_qp(r2);
	T_CHECK(rdma_destroy_id(r2) == 0);
	rdma_destroy_qp(r1);
	T_CHECK(rdma_destroy_id(r1) == 0);
	T_CHECK(rdma_destroy_id(l) == 0);
	T_CHECK(fake_live_qps == 0 && fake_live_pds == 0);
}

/*
 * Synchronous disconnect: waits for DISCONNECTED on the id's own channel,
 * and leaves the listener's events where they are.
 */
static void sync_disconnect(void)
{
	struct rdma_cm_id *l, *r1 = NULL, *r2 = NULL;
	uint32_t hl;
	int fd;

	setup();
	l = listener(NULL, &hl);
	if (!l)
		return;
	fd = l->channel->fd;
	set_nonblock(fd);
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "one", 4) != 0);
	T_CHECK(rdma_get_request(l, &r1) == 0);
	if (!r1)
		return;
	add_qp(r1);
	fake_accept_establishes = true;
	T_CHECK(rdma_accept(r1, NULL) == 0);

	/* A request, then r1's DISCONNECTED (the DREP of our DREQ). */
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "two", 4) != 0);
	T_CHECK(rdma_disconnect(r1) == 0);
	T_CHECK(r1->event && r1->event->event == RDMA_CM_EVENT_DISCONNECTED);
	T_CHECK(r1->qp->state == IBV_QPS_ERR);
	T_CHECK(fake_rcm_queued(fd) == 1);
	T_CHECK(rdma_get_request(l, &r2) == 0);
	T_CHECK(r2 && !strcmp(r2->event->param.conn.private_data, "two"));

	/* r2's accept reads none of the listener's requests. */
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "three", 6) != 0);
	if (r2) {
		add_qp(r2);
		T_CHECK(rdma_accept(r2, NULL) == 0);
		T_CHECK(r2->event &&
			r2->event->event == RDMA_CM_EVENT_ESTABLISHED);
	}
	T_CHECK(fake_rcm_queued(fd) == 1);
	T_CHECK(rdma_destroy_id(l) == 0);
	if (r2) {
		rdma_destroy_qp(r2);
		T_CHECK(rdma_destroy_id(r2) == 0);
	}
	rdma_destroy_qp(r1);
	T_CHECK(rdma_destroy_id(r1) == 0);
	T_CHECK(fake_live_qps == 0 && fake_live_pds == 0);
}

struct getter {
	struct rdma_cm_id *listen;
	struct rdma_cm_id *req;
	int ret;
};

static void *get_request_thread(void *arg)
{
	struct getter *g = arg;

	g->ret = rdma_get_request(g->listen, &g->req);
	return NULL;
}

static bool join_within(pthread_t thread, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(thread, NULL, &ts) == 0;
}

/*
 * rdma_get_request() blocks in another thread, reading the listener's
 * channel; rdma_accept() on a request id waits for the ESTABLISHED that
 * thread reads, then the thread gets its request.
 */
static void sync_threads(void)
{
	struct getter g = { .ret = -2 };
	struct rdma_cm_id *l, *r1 = NULL;
	struct timespec pause = { .tv_nsec = 100000000L };
	uint32_t hl, h1, h2;
	pthread_t t;
	int fd;

	setup();
	l = listener(NULL, &hl);
	if (!l)
		return;
	fd = l->channel->fd;	/* blocking */
	h1 = fake_rcm_push_request(fd, hl, &conn, &peer, "one", 4);
	T_CHECK(rdma_get_request(l, &r1) == 0);
	if (!r1)
		return;
	add_qp(r1);

	g.listen = l;
	T_CHECK(pthread_create(&t, NULL, get_request_thread, &g) == 0);
	while (!__atomic_load_n(&fake_read_blocked, __ATOMIC_SEQ_CST))
		nanosleep(&pause, NULL);

	fake_accept_establishes = true;
	T_CHECK(rdma_accept(r1, NULL) == 0);
	T_CHECK(r1->event && r1->event->event == RDMA_CM_EVENT_ESTABLISHED);
	T_CHECK(!join_within(t, 200));	/* still waiting for a request */

	h2 = fake_rcm_push_request(fd, hl, &conn, &peer, "two", 4);
	T_CHECK(h1 && h2);
	T_CHECK(join_within(t, 2000));
	T_CHECK(g.ret == 0 && g.req && g.req->event &&
		!strcmp(g.req->event->param.conn.private_data, "two"));
	if (g.req)
		T_CHECK(rdma_destroy_id(g.req) == 0);
	rdma_destroy_qp(r1);
	T_CHECK(rdma_destroy_id(r1) == 0);
	T_CHECK(rdma_destroy_id(l) == 0);
}

/*
 * A module whose CONNECT_REQUEST carries the request id's INIT, RTR and
 * RTS: rdma_create_qp() and rdma_accept() ready the QP with them, and
 * the kernel is asked for none.
 */
static void accept_carried_qp_attr(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *r;
	struct fake_qp *f;
	uint32_t hl, hr;

	setup();
	fake_carry_qp_attr = true;
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	set_nonblock(ch->fd);
	l = listener(ch, &hl);
	if (!l)
		return;
	ev = request(hl, &hr, true);
	if (!ev)
		return;
	r = ev->id;
	f = fake_qp(r->qp);
	T_CHECK(f->nmods == 1 && f->mods[0].attr.qp_state == IBV_QPS_INIT &&
		f->mods[0].mask == (int)fake_qp_attr[0].qp_attr_mask);
	T_CHECK(rdma_accept(r, NULL) == 0);
	T_CHECK(f->nmods == 4 && r->qp->state == IBV_QPS_RTS);
	T_CHECK(f->mods[2].attr.qp_state == IBV_QPS_RTR &&
		f->mods[2].mask == (int)fake_qp_attr[1].qp_attr_mask &&
		f->mods[2].attr.dest_qp_num == fake_qp_attr[1].dest_qp_num);
	T_CHECK(f->mods[3].attr.qp_state == IBV_QPS_RTS &&
		f->mods[3].mask == (int)fake_qp_attr[2].qp_attr_mask);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_ACCEPT) == 1);
	drop(ev);
	T_CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(ch);
}

/* What the library made of a request id's view. */
struct req_view {
	struct sockaddr_storage src, dst;
	struct ibv_context *verbs;
	uint8_t port_num;
	union ibv_gid sgid, dgid;
	int num_paths;
};

static void req_view(struct rdma_cm_id *id, struct req_view *v)
{
	memset(v, 0, sizeof(*v));
	v->src = id->route.addr.src_storage;
	v->dst = id->route.addr.dst_storage;
	v->verbs = id->verbs;
	v->port_num = id->port_num;
	v->sgid = id->route.addr.addr.ibaddr.sgid;
	v->dgid = id->route.addr.addr.ibaddr.dgid;
	v->num_paths = id->route.num_paths;
}

/*
 * A module whose CONNECT_REQUEST carries the request id's view: the
 * request id gets the same addresses, device, port and GIDs as from
 * RCM_IOCTL_QUERY_ID, and the kernel is asked nothing; a module that
 * carries none is asked once a request.
 */
static void request_carried_id_info(void)
{
	struct rdma_cm_event *ev;
	struct req_view asked, carried;
	struct rdma_cm_id *l;
	uint32_t hl, hr;
	int n;

	setup();
	fake_attach_index = 0;
	ch = rdma_create_event_channel();
	if (!ch)
		return;
	set_nonblock(ch->fd);
	l = listener(ch, &hl);
	if (!l)
		return;
	n = FAKE_CALLS(RCM_CMD_QUERY_ID);
	ev = request(hl, &hr, false);
	if (!ev)
		return;
	T_CHECK(FAKE_CALLS(RCM_CMD_QUERY_ID) == n + 1);
	T_CHECK(fake_last_query_id.id == hr);
	req_view(ev->id, &asked);
	T_CHECK(asked.verbs && asked.port_num == 1 &&
		asked.dst.ss_family == AF_INET &&
		asked.src.ss_family == AF_INET);
	drop(ev);

	fake_carry_id_info = true;
	n = FAKE_CALLS(RCM_CMD_QUERY_ID);
	ev = request(hl, &hr, false);
	if (!ev)
		return;
	T_CHECK(FAKE_CALLS(RCM_CMD_QUERY_ID) == n);
	req_view(ev->id, &carried);
	T_CHECK(memcmp(&asked, &carried, sizeof(asked)) == 0);
	T_CHECK(ev->param.conn.private_data_len == 56 &&
		memcmp(ev->param.conn.private_data, "req", 4) == 0);
	drop(ev);
	T_CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(ch);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_accept);
	fake_rcm_init();

	t_in_child("accept with a QP", accept_with_qp);
	t_in_child("accept parameters", accept_params);
	t_in_child("accept failures", accept_failures);
	t_in_child("notify and passive disconnect", notify_disconnect);
	t_in_child("synchronous accept", sync_accept);
	t_in_child("synchronous disconnect", sync_disconnect);
	t_in_child("synchronous calls in two threads", sync_threads);
	t_in_child("accept with carried QP attributes", accept_carried_qp_attr);
	t_in_child("request with the carried id info", request_carried_id_info);
	return t_exit();
}
