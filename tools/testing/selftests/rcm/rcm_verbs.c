// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verbs ends of connections for the selftests; see rcm_verbs.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"
#include "rcm_verbs.h"

/* A fresh verbs context on the first device of @transport, or NULL. */
static struct ibv_context *open_device(enum ibv_transport_type transport)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (list[i]->transport_type == transport)
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

int rcm_end_open(struct rcm_end *e, enum ibv_transport_type transport,
		 enum ibv_qp_type qp_type)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = qp_type,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	memset(e, 0, sizeof(*e));
	e->ctx = open_device(transport);
	if (!e->ctx) {
		errno = ENODEV;
		return -1;
	}
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, 16, NULL, NULL, 0) : NULL;
	e->mr = e->cq ? ibv_reg_mr(e->pd, e->buf, sizeof(e->buf),
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!e->mr)
		return -1;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &qa);
	return e->qp ? 0 : -1;
}

int rcm_end_pair_open(struct rcm_end *ce, struct rcm_end *se,
		      enum ibv_transport_type transport)
{
	if (rcm_end_open(ce, transport, IBV_QPT_RC))
		return -1;
	return rcm_end_open(se, transport, IBV_QPT_RC);
}

void rcm_end_close(struct rcm_end *e)
{
	if (e->ah)
		ibv_destroy_ah(e->ah);
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	memset(e, 0, sizeof(*e));
}

/* Apply one attribute set rcm gave to the QP of @e: 0, or -1. */
static int end_modify(struct rcm_end *e, const struct rcm_qp_attr *o)
{
	const struct rcm_ah_attr *av = &o->ah_attr;
	struct ibv_qp_attr qa = {
		.qp_state = o->qp_state, .path_mtu = o->path_mtu,
		.qkey = o->qkey, .rq_psn = o->rq_psn, .sq_psn = o->sq_psn,
		.dest_qp_num = o->dest_qp_num,
		.qp_access_flags = o->qp_access_flags,
		.pkey_index = o->pkey_index, .port_num = o->port_num,
		.max_rd_atomic = o->max_rd_atomic,
		.max_dest_rd_atomic = o->max_dest_rd_atomic,
		.min_rnr_timer = o->min_rnr_timer, .timeout = o->timeout,
		.retry_cnt = o->retry_cnt, .rnr_retry = o->rnr_retry,
		.ah_attr = {
			.grh = {
				.flow_label = av->flow_label,
				.sgid_index = av->sgid_index,
				.hop_limit = av->hop_limit,
				.traffic_class = av->traffic_class,
			},
			.dlid = av->dlid, .sl = av->sl,
			.src_path_bits = av->src_path_bits,
			.static_rate = av->static_rate,
			.is_global = av->is_global, .port_num = av->port_num,
		},
	};

	memcpy(qa.ah_attr.grh.dgid.raw, av->dgid, sizeof(av->dgid));
	/* The mask is enum ibv_qp_attr_mask's, to pass on as it is. */
	errno = ibv_modify_qp(e->qp, &qa, o->qp_attr_mask);
	return errno ? -1 : 0;
}

int rcm_end_init(struct rcm_end *e, int fd, unsigned int id)
{
	struct rcm_init_qp_attr a;

	if (rcm_qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a))
		return -1;
	return end_modify(e, &a.out_attr[RCM_QPS_INIT - 1]);
}

int rcm_end_rts(struct rcm_end *e, int fd, unsigned int id)
{
	struct rcm_init_qp_attr a;

	if (rcm_qp_attrs(fd, id, (1 << RCM_QPS_RTR) | (1 << RCM_QPS_RTS), &a) ||
	    end_modify(e, &a.out_attr[RCM_QPS_RTR - 1]))
		return -1;
	return end_modify(e, &a.out_attr[RCM_QPS_RTS - 1]);
}

bool rcm_end_ib_cm(const struct rcm_end *e)
{
	return e->ctx->device->transport_type == IBV_TRANSPORT_IB;
}

int rcm_end_connected(struct rcm_end *e, int fd, unsigned int id,
		      struct rcm_event *ev)
{
	if (!rcm_end_ib_cm(e))
		return rcm_expect_event(fd, RCM_EVENT_ESTABLISHED, ev);
	if (rcm_expect_event(fd, RCM_EVENT_CONNECT_RESPONSE, ev) ||
	    rcm_end_rts(e, fd, id))
		return -1;
	return rcm_simple(fd, RCM_IOCTL_ESTABLISH, id);
}

int rcm_end_accept(struct rcm_end *e, int fd, unsigned int id,
		   unsigned long long ctx, const char *data)
{
	if (rcm_end_init(e, fd, id) ||
	    (rcm_end_ib_cm(e) && rcm_end_rts(e, fd, id)))
		return -1;
	return rcm_accept(fd, id, e->qp->qp_num, ctx, data);
}

int rcm_establish_n(int s, int c, const char *ip, unsigned short port,
		    struct rcm_end *ce, struct rcm_end *se, int n)
{
	struct rcm_event ev;
	unsigned int cid;
	int i;

	for (i = 0; i < n; i++) {
		cid = rcm_routed_id(c, ip, port, 100 + i);
		if (!cid || rcm_end_init(&ce[i], c, cid) ||
		    rcm_connect(c, cid, ce[i].qp->qp_num, "many") ||
		    rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) ||
		    rcm_end_accept(&se[i], s, ev.id, 200 + i, NULL) ||
		    rcm_end_connected(&ce[i], c, cid, &ev) ||
		    rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
			return -1;
	}
	return 0;
}

int rcm_post_recv(struct rcm_end *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf[0], .length = sizeof(e->buf[0]),
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

int rcm_post_send(struct rcm_end *e, const char *msg)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf[1], .length = strlen(msg) + 1,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	snprintf(e->buf[1], sizeof(e->buf[1]), "%s", msg);
	return ibv_post_send(e->qp, &wr, &bad);
}

int rcm_wait_wc(struct rcm_end *e, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;
	int n = 0;

	/* Each completion within 10 s; those of other work are passed. */
	while (RCM_WAIT_FOR((n = ibv_poll_cq(e->cq, 1, &wc)) != 0, 10000)) {
		if (n < 0)
			return -1;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "# completion status %s\n",
				ibv_wc_status_str(wc.status));
			return -1;
		}
		if (wc.opcode == opcode)
			return 0;
	}
	return -1;
}
