// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_ep: rdma_create_ep() and rdma_destroy_ep().
 *
 * - active: a synchronous id with the address's port space and QP type,
 *   address and route resolved with 2000 ms timeouts, a QP in INIT on
 *   the given PD (qp_type set to the address's), rdma_connect() then
 *   waits for ESTABLISHED; ai_qp_type 0 is derived from the port space;
 * - ai_connect goes in front of the first connect's private data and
 *   counts against its 56 bytes;
 * - failures (resolution, ai_route, QP creation) return the errno and
 *   leave no id, QP, CQ or file descriptor behind;
 * - passive: bound to ai_src_addr, id->pd the given PD; after
 *   rdma_listen(), rdma_get_request() gives each request a QP with the
 *   saved attributes on that PD; if that QP cannot be made the request
 *   id is destroyed (rejecting the request) and the error returned;
 * - rdma_destroy_ep() destroys QP, CQs, SRQ and id.
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
static struct sockaddr_in src = { .sin_family = AF_INET };
static const struct rcm_conn_param conn = {
	.qp_num = 0x123456,
	.responder_resources = 3,
	.initiator_depth = 2,
};

static void setup(void)
{
	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	src.sin_port = htons(20100);
	inet_pton(AF_INET, "192.0.2.10", &src.sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
	memset(fake_qp_attr, 0, sizeof(fake_qp_attr));
	fake_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS;
	fake_qp_attr[1].qp_attr_mask = IBV_QP_STATE;
	fake_qp_attr[2].qp_attr_mask = IBV_QP_STATE;
}

static struct rdma_addrinfo active_ai(void)
{
	struct rdma_addrinfo ai;

	memset(&ai, 0, sizeof(ai));
	ai.ai_family = AF_INET;
	ai.ai_qp_type = IBV_QPT_RC;
	ai.ai_port_space = RDMA_PS_TCP;
	ai.ai_dst_addr = (struct sockaddr *)&dst;
	ai.ai_dst_len = sizeof(dst);
	return ai;
}

static struct ibv_qp_init_attr qp_attr(void)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return attr;
}

static bool nothing_live(void)
{
	return !fake_live_qps && !fake_live_cqs && !fake_live_channels &&
	       !fake_live_srqs && !fake_live_pds;
}

static void active(void)
{
	struct rdma_addrinfo ai = active_ai();
	struct ibv_qp_init_attr attr = qp_attr();
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4 } };
	struct rdma_cm_id *id = NULL;
	int fd_before;

	setup();
	fd_before = t_lowest_free_fd();
	attr.qp_type = IBV_QPT_UD;	/* replaced by the address's */
	T_CHECK(rdma_create_ep(&id, &ai, NULL, &attr) == 0);
	if (!id)
		return;
	T_CHECK(id->channel != NULL && id->ps == RDMA_PS_TCP &&
		id->qp_type == IBV_QPT_RC);
	T_CHECK(attr.qp_type == IBV_QPT_RC);
	T_CHECK(fake_last_resolve.timeout_ms == 2000);
	T_CHECK(fake_last_resolve.src.ss_family == 0);
	T_CHECK(fake_last_resolve_route.timeout_ms == 2000);
	T_CHECK(id->event &&
		id->event->event == RDMA_CM_EVENT_ROUTE_RESOLVED);
	T_CHECK(id->route.num_paths == 1);
	T_CHECK(id->qp && id->qp->state == IBV_QPS_INIT &&
		id->qp->pd == id->pd && id->send_cq && id->recv_cq);
	T_CHECK(attr.send_cq == id->send_cq);

	/* Synchronous: connect waits for ESTABLISHED. */
	T_CHECK(rdma_connect(id, NULL) == 0);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED);
	T_CHECK(fake_last_connect.private_data_len == 0);

	/* destroy_ep takes the QP, the CQs, an SRQ and the id. */
	T_CHECK(rdma_create_srq(id, NULL, &sattr) == 0);
	rdma_destroy_ep(id);
	T_CHECK(nothing_live());
	T_CHECK(t_lowest_free_fd() == fd_before);
	rdma_destroy_ep(NULL);
}

static void connect_header(void)
{
	static const uint8_t hdr[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t user[49];
	struct rdma_addrinfo ai = active_ai();
	struct rdma_conn_param p;
	struct rdma_cm_id *id = NULL;

	setup();
	memset(user, 0x77, sizeof(user));
	ai.ai_qp_type = 0;		/* from the port space */
	ai.ai_connect = (void *)hdr;
	ai.ai_connect_len = sizeof(hdr);
	T_CHECK(rdma_create_ep(&id, &ai, NULL, NULL) == 0);
	if (!id)
		return;
	T_CHECK(id->qp_type == IBV_QPT_RC && id->qp == NULL);
	T_CHECK(fake_last_create.qp_type == RCM_QPT_RC);

	memset(&p, 0, sizeof(p));
	p.private_data = user;
	p.private_data_len = 49;	/* 8 + 49 > 56 */
	errno = 0;
	T_CHECK(rdma_connect(id, &p) == -1 && errno == EINVAL);
	p.private_data_len = 48;
	fake_connect_mode = FAKE_CONNECT_SILENT;
	fcntl(id->channel->fd, F_SETFL,
	      fcntl(id->channel->fd, F_GETFL) | O_NONBLOCK);
	errno = 0;
	T_CHECK(rdma_connect(id, &p) == -1 && errno == EAGAIN);
	T_CHECK(fake_last_connect.private_data_len == 56);
	T_CHECK(!memcmp(fake_connect_data, hdr, 8));
	T_CHECK(!memcmp(fake_connect_data + 8, user, 48));
	rdma_destroy_ep(id);
	T_CHECK(nothing_live());
}

static void active_failures(void)
{
	struct rdma_addrinfo ai = active_ai();
	struct ibv_qp_init_attr attr = qp_attr();
	struct ibv_path_data path;
	uint8_t big[57];
	struct rdma_cm_id *id = NULL;
	int fd_before, destroys;

	setup();
	fd_before = t_lowest_free_fd();

	fake_resolve_mode = FAKE_RESOLVE_ERROR;
	fake_resolve_status = -EHOSTUNREACH;
	destroys = FAKE_CALLS(RCM_CMD_DESTROY_ID);
	errno = 0;
	T_CHECK(rdma_create_ep(&id, &ai, NULL, &attr) == -1 &&
		errno == EHOSTUNREACH);
	T_CHECK(id == NULL);
	T_CHECK(FAKE_CALLS(RCM_CMD_DESTROY_ID) == destroys + 1);
	T_CHECK(t_lowest_free_fd() == fd_before);
	fake_resolve_mode = FAKE_RESOLVE_OK;

	/* An ibacm route: rcm has no IB path option. */
	memset(&path, 0, sizeof(path));
	ai.ai_route = &path;
	ai.ai_route_len = sizeof(path);
	errno = 0;
	T_CHECK(rdma_create_ep(&id, &ai, NULL, &attr) == -1 &&
		errno == EOPNOTSUPP);
	ai.ai_route = NULL;
	ai.ai_route_len = 0;

	fake_create_qp_errno = ENOMEM;
	errno = 0;
	T_CHECK(rdma_create_ep(&id, &ai, NULL, &attr) == -1 &&
		errno == ENOMEM);

	/* A header that can never be sent. */
	ai.ai_connect = big;
	ai.ai_connect_len = sizeof(big);
	errno = 0;
	T_CHECK(rdma_create_ep(&id, &ai, NULL, NULL) == -1 &&
		errno == EINVAL);
	errno = 0;
	T_CHECK(rdma_create_ep(NULL, &ai, NULL, NULL) == -1 &&
		errno == EINVAL);
	T_CHECK(rdma_create_ep(&id, NULL, NULL, NULL) == -1 &&
		errno == EINVAL);
	T_CHECK(id == NULL && nothing_live());
	T_CHECK(t_lowest_free_fd() == fd_before);
}

static void passive(void)
{
	struct ibv_qp_init_attr attr = qp_attr();
	struct sockaddr_storage peer;
	struct rdma_addrinfo ai;
	struct rdma_cm_id *l = NULL, *r = NULL;
	struct ibv_pd *pd;
	uint32_t hl, hr;
	int fd;

	setup();
	memset(&peer, 0, sizeof(peer));
	memcpy(&peer, &dst, sizeof(dst));
	memset(&ai, 0, sizeof(ai));
	ai.ai_flags = RAI_PASSIVE;
	ai.ai_family = AF_INET;
	ai.ai_qp_type = IBV_QPT_RC;
	ai.ai_port_space = RDMA_PS_TCP;
	ai.ai_src_addr = (struct sockaddr *)&src;
	ai.ai_src_len = sizeof(src);

	/* Bound to a specific address: attached, a PD to make one on. */
	T_CHECK(rdma_create_ep(&l, &ai, NULL, &attr) == 0);
	if (!l)
		return;
	hl = fake_last_create.out_id;
	T_CHECK(l->verbs != NULL && l->qp == NULL);
	T_CHECK(fake_last_bind.id == hl);
	T_CHECK(rdma_get_src_port(l) == htons(20100));
	pd = ibv_alloc_pd(l->verbs);
	rdma_destroy_ep(l);

	l = NULL;
	T_CHECK(rdma_create_ep(&l, &ai, pd, &attr) == 0);
	if (!l)
		return;
	hl = fake_last_create.out_id;
	T_CHECK(l->pd == pd);
	attr.cap.max_send_wr = 99;	/* the copy counts, not this */
	T_CHECK(rdma_listen(l, 4) == 0);
	fd = l->channel->fd;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

	hr = fake_rcm_push_request(fd, hl, &conn, &peer, "ep", 3);
	T_CHECK(rdma_get_request(l, &r) == 0);
	T_CHECK(r && r->qp && r->qp->pd == pd &&
		r->qp->state == IBV_QPS_INIT);
	T_CHECK(r && r->send_cq && r->send_cq->cqe == 4);
	T_CHECK(r && r->event &&
		r->event->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	/* On the request's own channel, under its handle there. */
	T_CHECK(r && r->channel != l->channel &&
		fake_last_migrate.fd == r->channel->fd);
	T_CHECK(fake_last_init_qp_attr.id == fake_last_migrate.out_id);
	if (r) {
		fake_accept_establishes = true;
		T_CHECK(rdma_accept(r, NULL) == 0);
		T_CHECK(r->event &&
			r->event->event == RDMA_CM_EVENT_ESTABLISHED);
		rdma_destroy_ep(r);
	}

	/* No QP for the request: it is rejected, the error returned. */
	fake_create_qp_errno = ENOSPC;
	hr = fake_rcm_push_request(fd, hl, &conn, &peer, "ep", 3);
	r = NULL;
	errno = 0;
	T_CHECK(rdma_get_request(l, &r) == -1 && errno == ENOSPC);
	T_CHECK(hr && r == NULL &&
		fake_last_destroy.id == fake_last_migrate.out_id);
	T_CHECK(l->event == NULL);

	rdma_destroy_ep(l);
	ibv_dealloc_pd(pd);
	T_CHECK(nothing_live());
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_create_ep);
	fake_rcm_init();

	t_in_child("active endpoint", active);
	t_in_child("ai_connect in front of the private data", connect_header);
	t_in_child("active failures leave nothing", active_failures);
	t_in_child("passive endpoint and rdma_get_request", passive);
	return t_exit();
}
