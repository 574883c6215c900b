// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: datagram (UD) ids over the IB CM - service ID resolution (SIDR).
 *
 * A UD id (RCM_PS_UDP, or RCM_PS_IB with RCM_QPT_UD) has no connection:
 * its "connect" asks the peer, with a SIDR REQ, for the QP number and
 * Q_Key that serve the service ID of its port space and destination
 * port, and the answer (a SIDR REP) is all there is. The wire is the
 * in-tree rdma_cm's (cma.c: cma_resolve_ib_udp(), cma_sidr_rep_handler(),
 * cma_send_sidr_rep()): the same 36-byte CMA header in front of the
 * consumer's data, the same service IDs, the id's Q_Key in the REP.
 *
 * Active side: rcm_cmd_connect() hands a UD id to rcm_sidr_connect(),
 * which creates the ib_cm id and sends the SIDR REQ; rcm_sidr_handler()
 * reports the answer (ESTABLISHED with the peer's UD parameters, or
 * UNREACHABLE) once. The ib_cm id stays in @id->cm_id until the id is
 * destroyed or its device goes away, which destroy it without holding
 * @id->lock (ib_destroy_cm_id() waits for rcm_sidr_handler(), which
 * takes it); destroying it while the REQ is out cancels the REQ.
 *
 * Passive side: ib_cm delivers a SIDR REQ to the same shared listen as a
 * REQ (rcm_listen.c: rcm_ib_req_handler()), which makes the request id
 * as for a REQ and fills its CONNECT_REQUEST with rcm_sidr_req_event().
 * The request id owns the ib_cm id ib_cm made for the SIDR REQ; ib_cm
 * reports nothing more on it. RCM_IOCTL_ACCEPT and RCM_IOCTL_REJECT send
 * the SIDR REP (rcm_sidr_accept(), rcm_sidr_reject()) under the id's
 * lock; destroying the id unanswered destroys the ib_cm id, and ib_cm
 * then answers with a reject (status 2) itself.
 *
 * iWARP has no datagram service: UD ids connect and listen on IB CM
 * ports only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "rcm_priv.h"

/* The peer's UD parameters after a SIDR REP; @id->lock held, attached. */
static void rcm_sidr_ud_param(struct rcm_id *id,
			      const struct ib_cm_sidr_rep_event_param *rep,
			      struct rcm_ud_param *ud)
{
	/* Not const: 6.1's sa_path_get_*() take none. */
	struct sa_path_rec *path = id->path;
	struct rcm_ah_attr *ah = &ud->ah_attr;

	ud->qp_num = rep->qpn;
	ud->qkey = rep->qkey;
	/* What ib_init_ah_attr_from_path() gives, as in-tree. */
	ah->sl = path->sl;
	ah->static_rate = path->rate;
	ah->port_num = id->port_num;
	if (!sa_path_is_roce(path)) {
		/*
		 * InfiniBand: the peer's LID, our LID's path bits, and a GRH
		 * only for a path that leaves the subnet (hop limit above 0).
		 */
		u8 lmc = 0;

		ib_get_cached_lmc(id->rdev->ibdev, id->port_num, &lmc);
		ah->dlid = be32_to_cpu(sa_path_get_dlid(path));
		ah->src_path_bits = be32_to_cpu(sa_path_get_slid(path)) &
				    ((1U << lmc) - 1);
		if (!path->hop_limit)
			return;
	}
	memcpy(ah->dgid, path->dgid.raw, sizeof(ah->dgid));
	ah->sgid_index = id->dev_addr.sgid_attr->index;
	ah->hop_limit = path->hop_limit;
	ah->traffic_class = path->traffic_class;
	ah->flow_label = be32_to_cpu(path->flow_label);
	ah->is_global = 1;
}

/* The answer to our SIDR REQ: ESTABLISHED or UNREACHABLE; lock held. */
static void rcm_sidr_answer(struct rcm_id *id, const struct ib_cm_event *event)
{
	const struct ib_cm_sidr_rep_event_param *rep =
		&event->param.sidr_rep_rcvd;
	struct rcm_uevent *ev;

	id->answered = true;
	if (event->event == IB_CM_SIDR_REQ_ERROR) {
		rcm_conn_report(id, RCM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0,
				NULL);
		return;
	}
	if (rep->status != IB_SIDR_SUCCESS) {
		/* A positive SIDR status, as in-tree; the REP's data too. */
		rcm_conn_report(id, RCM_EVENT_UNREACHABLE, rep->status,
				event->private_data,
				IB_CM_SIDR_REP_PRIVATE_DATA_SIZE, NULL);
		return;
	}
	/* What the peer did is allocated here; see rcm_conn_report(). */
	ev = rcm_event_alloc(id, RCM_EVENT_ESTABLISHED, GFP_KERNEL);
	if (!ev)
		return;
	rcm_sidr_ud_param(id, rep, &ev->ev.ud);
	rcm_event_set_private_data(ev, event->private_data,
				   IB_CM_SIDR_REP_PRIVATE_DATA_SIZE);
	rcm_event_queue(id->file, ev);
}

/**
 * rcm_sidr_handler() - ib_cm's events on an active UD id's SIDR REQ
 * @cm_id: the ib_cm id; its context is the rcm id
 * @event: IB_CM_SIDR_REP_RECEIVED or IB_CM_SIDR_REQ_ERROR
 *
 * Reports the first answer only, and nothing after a destroy's or a
 * device removal's fence.
 *
 * Return: always 0; the id destroys @cm_id itself.
 */
static int rcm_sidr_handler(struct ib_cm_id *cm_id,
			    const struct ib_cm_event *event)
{
	struct rcm_id *id = cm_id->context;

	mutex_lock(&id->lock);
	if (id->state == RCM_STATE_CONNECT && id->active && !id->answered &&
	    (event->event == IB_CM_SIDR_REP_RECEIVED ||
	     event->event == IB_CM_SIDR_REQ_ERROR))
		rcm_sidr_answer(id, event);
	mutex_unlock(&id->lock);
	return 0;
}

/**
 * rcm_sidr_connect() - send the SIDR REQ of a UD id
 * @id: a route-resolved UD id; the caller holds its lock
 * @udata: the consumer's private data
 * @ulen: its length, checked against the limits here
 * @dead: set to an ib_cm id the caller must destroy after unlocking
 *        (one that was created but never sent), else left alone
 *
 * Return: 0 with the id in RCM_STATE_CONNECT, or -EOPNOTSUPP (an iWARP
 * port or an RCM_PS_IPOIB id, or no path), -EINVAL (too much private
 * data), -ENOMEM or ib_cm's error; the id is left routed on error.
 */
int rcm_sidr_connect(struct rcm_id *id, const void *udata, u32 ulen,
		     struct ib_cm_id **dead)
{
	/* The CMA header, then the user's bytes, as they go on the wire. */
	u8 pdata[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
	struct ib_cm_sidr_req_param req = {};
	struct ib_cm_id *cm_id;
	u8 timeout, retries;
	int len, ret;

	lockdep_assert_held(&id->lock);
	if (id->rdev->port_cm[id->port_num - 1] != RCM_PORT_CM_IB ||
	    id->ps == RCM_PS_IPOIB || !id->path)
		return -EOPNOTSUPP;
	if (ulen > rcm_conn_pdata_max(id, RCM_WIRE_OP_CONNECT))
		return -EINVAL;
	len = rcm_wire_req_pdata_build(pdata, sizeof(pdata), IB_QPT_UD,
				       (struct sockaddr *)&id->bind.addr,
				       (struct sockaddr *)&id->dst_addr,
				       udata, ulen);
	if (len < 0)
		return len;
	ret = rcm_wire_sid_compose(id->ps,
				   rcm_addr_port((struct sockaddr *)&id->dst_addr),
				   &req.service_id);
	if (ret)
		return ret;
	/* SIDR waits timeout_ms per try, nothing more (ib_send_cm_sidr_req). */
	rcm_ib_cm_timers(id, 0, &timeout, &retries);
	req.timeout_ms = 1UL << max(timeout - 8, 0);
	req.max_cm_retries = retries;
	req.path = id->path;
	req.sgid_attr = id->dev_addr.sgid_attr;
	req.private_data = pdata;
	req.private_data_len = len;

	cm_id = ib_create_cm_id(id->rdev->ibdev, rcm_sidr_handler, id);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	/* Published before the REQ leaves: its handler waits for our lock. */
	id->cm_id = cm_id;
	id->active = true;
	id->state = RCM_STATE_CONNECT;
	ret = ib_send_cm_sidr_req(cm_id, &req);
	if (ret) {
		/* Never sent: no handler runs; destroyed after unlocking. */
		id->cm_id = NULL;
		id->active = false;
		id->state = RCM_STATE_ROUTE_RESOLVED;
		*dead = cm_id;
	}
	return ret;
}

/**
 * rcm_sidr_req_event() - fill the CONNECT_REQUEST of a SIDR REQ
 * @ev: the request id's event
 * @listener: the listener; the caller holds its lock
 * @event: ib_cm's IB_CM_SIDR_REQ_RECEIVED
 *
 * The consumer's part of the REQ area after the CMA header, 180 bytes;
 * @ev->ev.ud stays zero (the peer's QP is not known from a SIDR REQ).
 */
void rcm_sidr_req_event(struct rcm_uevent *ev, struct rcm_id *listener,
			const struct ib_cm_event *event)
{
	rcm_event_set_private_data(ev, (const u8 *)event->private_data +
				   RCM_WIRE_HDR_SIZE,
				   IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE -
				   RCM_WIRE_HDR_SIZE);
}

/* Send the SIDR REP of a request id; @id->lock held, unanswered. */
static int rcm_sidr_rep(struct rcm_id *id, enum ib_cm_sidr_status status,
			u32 qp_num, const void *pdata, u8 len)
{
	struct ib_cm_sidr_rep_param rep = {
		.status = status,
		.private_data = pdata,
		.private_data_len = len,
	};

	lockdep_assert_held(&id->lock);
	if (len > rcm_conn_pdata_max(id, RCM_WIRE_OP_ACCEPT))
		return -EINVAL;
	if (status == IB_SIDR_SUCCESS) {
		rep.qp_num = qp_num;
		rep.qkey = id->qkey;
	}
	return ib_send_cm_sidr_rep(id->cm_id, &rep);
}

/**
 * rcm_sidr_accept() - answer a SIDR request with a QP
 * @id: an unanswered UD request id; the caller holds its lock
 * @qp_num: the QP that serves the service ID (24 bits, checked)
 * @pdata: private data for the peer
 * @len: its length, at most RCM_UD_ACCEPT_PRIVATE_DATA_MAX
 *
 * Sends the SIDR REP with status 0, @qp_num and the id's Q_Key.
 *
 * Return: 0, -EINVAL (too much private data) or ib_cm's error.
 */
int rcm_sidr_accept(struct rcm_id *id, u32 qp_num, const void *pdata, u8 len)
{
	return rcm_sidr_rep(id, IB_SIDR_SUCCESS, qp_num, pdata, len);
}

/**
 * rcm_sidr_reject() - answer a SIDR request with a refusal
 * @id: an unanswered UD request id; the caller holds its lock
 * @pdata: private data for the peer
 * @len: its length, at most RCM_UD_ACCEPT_PRIVATE_DATA_MAX
 *
 * Sends the SIDR REP with status IB_SIDR_REJECT (2); the SIDR REP has no
 * reject reason.
 *
 * Return: 0, -EINVAL (too much private data) or ib_cm's error.
 */
int rcm_sidr_reject(struct rcm_id *id, const void *pdata, u8 len)
{
	return rcm_sidr_rep(id, IB_SIDR_REJECT, 0, pdata, len);
}
