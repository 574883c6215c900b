// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_ud: datagram ids and service ID resolution (SIDR).
 *
 * - rdma_connect() on a UD id sends up to 180 bytes of private data
 *   (181: EINVAL before the kernel) and the QP's number, and leaves the
 *   QP alone (it is in RTS since rdma_create_qp());
 * - ESTABLISHED after a SIDR REP carries param.ud: the peer's QP number
 *   and Q_Key, the address vector member by member, and the reply's
 *   private data (136 bytes); UNREACHABLE passes its status (the SIDR
 *   status, or -ETIMEDOUT), and a synchronous connect fails with it;
 * - CONNECT_REQUEST of a UD listener: a UD request id, param.ud with the
 *   request's 180 bytes of private data and no QP;
 * - rdma_accept() on it sends the QP's number and up to 136 bytes (137:
 *   EINVAL), moves no QP and is answered by no event; rdma_reject() takes
 *   up to 136 bytes;
 * - a synchronous UD accept acks the request's event, as librdmacm.
 *
 * The module is faked (fake_rcm.c), and so is libibverbs (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

static struct sockaddr_in dst = { .sin_family = AF_INET };
static struct sockaddr_storage peer;
static uint8_t data[200];
static const uint8_t peer_gid[16] = { 0xfe, 0x80, [15] = 0x42 };

static void setup(void)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;
	struct rcm_ah_attr *ah = &fake_sidr_ud.ah_attr;
	unsigned int i;

	dst.sin_port = htons(7174);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	sin->sin_family = AF_INET;
	sin->sin_port = htons(41000);
	inet_pton(AF_INET, "192.0.2.30", &sin->sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
	for (i = 0; i < sizeof(data); i++)
		data[i] = i + 1;
	for (i = 0; i < sizeof(fake_peer_data); i++)
		fake_peer_data[i] = 0xff - i;

	memset(fake_qp_attr, 0, sizeof(fake_qp_attr));
	fake_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_QKEY;
	fake_qp_attr[0].port_num = 1;
	fake_qp_attr[0].qkey = RCM_UDP_QKEY;

	memset(&fake_sidr_ud, 0, sizeof(fake_sidr_ud));
	fake_sidr_ud.qp_num = 0xabcde;
	fake_sidr_ud.qkey = 0x4321;
	memcpy(ah->dgid, peer_gid, sizeof(peer_gid));
	ah->flow_label = 9;
	ah->sgid_index = 2;
	ah->hop_limit = 1;
	ah->traffic_class = 4;
	ah->sl = 3;
	ah->dlid = 0;
	ah->static_rate = 2;
	ah->is_global = 1;
	ah->port_num = 1;
	fake_connect_mode = FAKE_CONNECT_ACCEPT;
	fake_sidr_status = 2;
}

static struct ibv_qp_init_attr ud_attr(void)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_UD;
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	return attr;
}

/* A UD id on c (NULL: synchronous), routed to dst, with a QP in RTS. */
static struct rdma_cm_id *routed_ud(struct rdma_event_channel *c)
{
	struct ibv_qp_init_attr attr = ud_attr();
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(c, &id, NULL, RDMA_PS_UDP) == 0);
	if (!id)
		return NULL;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				  2000) == 0);
	if (c) {
		T_CHECK(rdma_get_cm_event(c, &ev) == 0);
		T_CHECK(ev && ev->event == RDMA_CM_EVENT_ADDR_RESOLVED);
		if (ev)
			rdma_ack_cm_event(ev);
	}
	T_CHECK(rdma_resolve_route(id, 2000) == 0);
	if (c) {
		ev = NULL;
		T_CHECK(rdma_get_cm_event(c, &ev) == 0);
		T_CHECK(ev && ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED);
		if (ev)
			rdma_ack_cm_event(ev);
	}
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp && id->qp->state == IBV_QPS_RTS);
	return id;
}

static void destroy(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void ud_connect(void)
{
	struct rdma_conn_param param;
	struct rdma_event_channel *c;
	struct rdma_cm_event *ev = NULL;
	const struct ibv_ah_attr *ah;
	struct rdma_cm_id *id;
	int calls, mods;

	setup();
	c = rdma_create_event_channel();
	id = c ? routed_ud(c) : NULL;
	if (!id || !id->qp)
		return;
	mods = fake_qp(id->qp)->nmods;

	memset(&param, 0, sizeof(param));
	param.private_data = data;
	param.private_data_len = RCM_UD_CONNECT_PRIVATE_DATA_MAX + 1;
	calls = FAKE_CALLS(RCM_CMD_CONNECT);
	errno = 0;
	T_CHECK(rdma_connect(id, &param) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_CONNECT) == calls);

	param.private_data_len = RCM_UD_CONNECT_PRIVATE_DATA_MAX;
	T_CHECK(rdma_connect(id, &param) == 0);
	T_CHECK(fake_last_connect.private_data_len == 180);
	T_CHECK(!memcmp(fake_connect_data, data, 180));
	T_CHECK(fake_last_connect.qp_num == id->qp->qp_num);

	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	if (!ev)
		return;
	T_CHECK(ev->event == RDMA_CM_EVENT_ESTABLISHED && ev->status == 0);
	T_CHECK(ev->id == id);
	T_CHECK(ev->param.ud.qp_num == 0xabcde && ev->param.ud.qkey == 0x4321);
	T_CHECK(ev->param.ud.private_data_len == 136);
	T_CHECK(ev->param.ud.private_data &&
		!memcmp(ev->param.ud.private_data, fake_peer_data, 136));
	ah = &ev->param.ud.ah_attr;
	T_CHECK(!memcmp(ah->grh.dgid.raw, peer_gid, sizeof(peer_gid)));
	T_CHECK(ah->grh.flow_label == 9 && ah->grh.sgid_index == 2 &&
		ah->grh.hop_limit == 1 && ah->grh.traffic_class == 4);
	T_CHECK(ah->sl == 3 && ah->dlid == 0 && ah->static_rate == 2 &&
		ah->is_global == 1 && ah->port_num == 1);
	rdma_ack_cm_event(ev);
	/* No QP change, no RTU: SIDR makes no connection. */
	T_CHECK(fake_qp(id->qp)->nmods == mods);
	T_CHECK(id->qp->state == IBV_QPS_RTS);
	T_CHECK(FAKE_CALLS(RCM_CMD_ESTABLISH) == 0);
	destroy(id);

	/* The peer answered with a SIDR status: UNREACHABLE, status 2. */
	fake_connect_mode = FAKE_CONNECT_REJECT;
	id = routed_ud(c);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	ev = NULL;
	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_UNREACHABLE &&
		ev->status == 2 && ev->param.ud.qp_num == 0);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(id->qp->state == IBV_QPS_RTS);
	destroy(id);

	/* No answer. */
	fake_connect_mode = FAKE_CONNECT_UNREACHABLE;
	id = routed_ud(c);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	ev = NULL;
	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_UNREACHABLE &&
		ev->status == -ETIMEDOUT);
	if (ev)
		rdma_ack_cm_event(ev);
	destroy(id);
	rdma_destroy_event_channel(c);
}

static void sync_connect(void)
{
	struct rdma_cm_id *id;

	setup();
	id = routed_ud(NULL);
	if (!id)
		return;
	T_CHECK(rdma_connect(id, NULL) == 0);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED &&
		id->event->param.ud.qp_num == 0xabcde);
	destroy(id);

	/* librdmacm: a positive status becomes errno as it is. */
	fake_connect_mode = FAKE_CONNECT_REJECT;
	id = routed_ud(NULL);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_connect(id, NULL) == -1 && errno == 2);
	destroy(id);

	fake_connect_mode = FAKE_CONNECT_UNREACHABLE;
	id = routed_ud(NULL);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_connect(id, NULL) == -1 && errno == ETIMEDOUT);
	destroy(id);
}

/* A UD id on c (NULL: synchronous) listening on 192.0.2.10:7174. */
static struct rdma_cm_id *ud_listener(struct rdma_event_channel *c,
				      uint32_t *handle)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL;

	a.sin_port = htons(7174);
	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	T_CHECK(rdma_create_id(c, &id, NULL, RDMA_PS_UDP) == 0);
	if (!id)
		return NULL;
	*handle = fake_last_create.out_id;
	T_CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_listen(id, 8) == 0);
	return id;
}

static void ud_passive(void)
{
	struct ibv_qp_init_attr attr = ud_attr();
	struct rdma_conn_param param;
	struct rdma_event_channel *c;
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *l, *req;
	uint32_t hl, hr;
	int calls, mods, queries;

	setup();
	fake_accept_establishes = true;
	c = rdma_create_event_channel();
	l = c ? ud_listener(c, &hl) : NULL;
	if (!l)
		return;

	hr = fake_rcm_push_ud_request(c->fd, hl, &peer, data, 180);
	T_CHECK(hr != 0);
	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	if (!ev)
		return;
	T_CHECK(ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	T_CHECK(ev->listen_id == l && ev->id != l);
	req = ev->id;
	T_CHECK(req->qp_type == IBV_QPT_UD && req->ps == RDMA_PS_UDP);
	T_CHECK(ev->param.ud.private_data_len == 180);
	T_CHECK(!memcmp(ev->param.ud.private_data, data, 180));
	T_CHECK(ev->param.ud.qp_num == 0 && ev->param.ud.qkey == 0);
	T_CHECK(rdma_create_qp(req, NULL, &attr) == 0);
	T_CHECK(req->qp && req->qp->state == IBV_QPS_RTS);
	if (!req->qp)
		return;
	mods = fake_qp(req->qp)->nmods;
	queries = FAKE_CALLS(RCM_CMD_INIT_QP_ATTR);

	memset(&param, 0, sizeof(param));
	param.private_data = data;
	param.private_data_len = RCM_UD_ACCEPT_PRIVATE_DATA_MAX + 1;
	calls = FAKE_CALLS(RCM_CMD_ACCEPT);
	errno = 0;
	T_CHECK(rdma_accept(req, &param) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_ACCEPT) == calls);
	/* A failed check leaves the QP alone. */
	T_CHECK(req->qp->state == IBV_QPS_RTS);

	param.private_data_len = RCM_UD_ACCEPT_PRIVATE_DATA_MAX;
	T_CHECK(rdma_accept(req, &param) == 0);
	T_CHECK(fake_last_accept.id == hr);
	T_CHECK(fake_last_accept.qp_num == req->qp->qp_num);
	T_CHECK(fake_last_accept.private_data_len == 136);
	T_CHECK(!memcmp(fake_accept_data, data, 136));
	T_CHECK(fake_qp(req->qp)->nmods == mods);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == queries);
	rdma_ack_cm_event(ev);
	/* Nothing follows a SIDR REP. */
	T_CHECK(fake_rcm_queued(c->fd) == 0);
	destroy(req);

	/* Rejected: up to 136 bytes. */
	hr = fake_rcm_push_ud_request(c->fd, hl, &peer, NULL, 0);
	ev = NULL;
	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	if (!ev)
		return;
	req = ev->id;
	errno = 0;
	T_CHECK(rdma_reject(req, data, 137) == -1 && errno == EINVAL);
	T_CHECK(rdma_reject(req, data, 136) == 0);
	T_CHECK(fake_last_reject.id == hr &&
		fake_last_reject.private_data_len == 136);
	T_CHECK(!memcmp(fake_reject_data, data, 136));
	T_CHECK(fake_rcm_rejected(c->fd, hr));
	rdma_ack_cm_event(ev);
	destroy(req);

	destroy(l);
	rdma_destroy_event_channel(c);
	fake_accept_establishes = false;
}

static void sync_accept(void)
{
	struct ibv_qp_init_attr attr = ud_attr();
	struct rdma_cm_id *l, *req = NULL;
	uint32_t hl;

	setup();
	l = ud_listener(NULL, &hl);
	if (!l)
		return;
	T_CHECK(fake_rcm_push_ud_request(l->channel->fd, hl, &peer,
					 data, 8) != 0);
	T_CHECK(rdma_get_request(l, &req) == 0);
	if (!req)
		return;
	T_CHECK(req->event &&
		req->event->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	T_CHECK(rdma_create_qp(req, NULL, &attr) == 0);
	T_CHECK(rdma_accept(req, NULL) == 0);
	T_CHECK(req->event == NULL);
	destroy(req);
	destroy(l);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_connect);
	fake_rcm_init();

	t_in_child("SIDR connect", ud_connect);
	t_in_child("synchronous SIDR connect", sync_connect);
	t_in_child("SIDR accept and reject", ud_passive);
	t_in_child("synchronous SIDR accept", sync_accept);
	return t_exit();
}
