// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: connections over the IB CM - connect, accept, establish, notify,
 * disconnect, and the events ib_cm reports on a connection (REP, RTU,
 * REJ, DREQ/DREP, timewait, timeouts). The commands branch to rcm_iw.c
 * for an id on an iWARP port.
 *
 * The QP of a connection is always the user's: rcm sends the CM messages,
 * reports what the peer did and hands out the QP attributes (rcm_qp.c);
 * userspace moves its QP.
 *
 * One ib_cm id carries a connection, on either side: the one ib_cm made
 * for a request (rcm_listen.c hands it over) or the one connect creates.
 * It lives in @id->cm_id until the id is destroyed or its device goes
 * away; both destroy it without holding @id->lock, because
 * ib_destroy_cm_id() waits for rcm_ib_conn_handler(), which takes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "rcm_priv.h"

/**
 * rcm_private_data_from_user() - copy the private data of a command in
 * @buf: where to; at least @len bytes, checked by the caller
 * @uptr: the user pointer of the command (not read when @len is 0)
 * @len: its length
 *
 * Return: 0 or -EFAULT.
 */
int rcm_private_data_from_user(void *buf, u64 uptr, u32 len)
{
	if (len && copy_from_user(buf, u64_to_user_ptr(uptr), len))
		return -EFAULT;
	return 0;
}

/**
 * rcm_conn_pdata_max() - private data an operation may carry on an id
 * @id: an attached id; the caller holds its lock
 * @op: connect, accept or reject
 *
 * The wire limit of the id's CM for its QP type (a UD id's SIDR
 * messages, an RC connection's REQ, REP or REJ); 0 for UD on iWARP,
 * which has none; on iWARP also no
 * more than an event can report whole (RCM_IWARP_PRIVATE_DATA_MAX), so
 * that an rcm peer always receives all of it.
 *
 * Return: the limit in bytes.
 */
int rcm_conn_pdata_max(struct rcm_id *id, enum rcm_wire_op op)
{
	enum rcm_port_cm cm = id->rdev->port_cm[id->port_num - 1];
	int max = rcm_wire_max_private_data(cm, op, rcm_id_is_ud(id) ?
					    IB_QPT_UD : IB_QPT_RC);

	if (max < 0)
		return 0;
	if (cm == RCM_PORT_CM_IW)
		max = min(max, RCM_IWARP_PRIVATE_DATA_MAX);
	return max;
}

/**
 * rcm_conn_cm_timers() - the IB CM timers of an id's request
 * @id: the id; the caller holds its lock
 * @fixed_ms: what ib_cm adds to each try (see rcm_wire_cm_timeout())
 * @timeout: the CM response timeout exponent to use
 * @retries: max_cm_retries to use
 *
 * The in-tree rdma_cm's values, or with RCM_OPTION_ID_CONNECT_TIMEOUT
 * set, those that keep the exchange within it; a bound shorter than one
 * try gets the shortest exchange ib_cm can do.
 */
void rcm_conn_cm_timers(struct rcm_id *id, u32 fixed_ms, u8 *timeout,
			u8 *retries)
{
	if (!id->connect_timeout_ms) {
		*timeout = RCM_CM_RESPONSE_TIMEOUT;
		*retries = RCM_MAX_CM_RETRIES;
		return;
	}
	rcm_wire_cm_timeout(id->connect_timeout_ms, fixed_ms, timeout, retries);
}

/**
 * rcm_conn_report() - queue an event the peer caused
 * @id: the id; the caller holds its lock and checked its state
 * @type: enum rcm_event_type
 * @status: the event's status
 * @pdata: private data of the peer's message, or NULL
 * @len: its length; more than the record holds is cut off
 * @conn: connection parameters to copy into the record, or NULL
 */
void rcm_conn_report(struct rcm_id *id, u32 type, int status,
		     const void *pdata, u8 len,
		     const struct rcm_conn_param *conn)
{
	struct rcm_uevent *ev;

	/*
	 * Unlike the completion of an operation, which is allocated when the
	 * operation starts, what the peer does is allocated here; the
	 * handler runs in process context, so this sleeps rather than fails.
	 */
	ev = rcm_event_alloc(id, type, GFP_KERNEL);
	if (!ev)
		return;
	ev->ev.status = status;
	if (pdata && len) {
		len = min_t(u8, len, RCM_EVENT_PRIVATE_DATA_MAX);
		memcpy(ev->ev.private_data, pdata, len);
		ev->ev.private_data_len = len;
	}
	if (conn)
		ev->ev.conn = *conn;
	rcm_event_queue(id->file, ev);
}

/* The peer accepted our request: CONNECT_RESPONSE with its REP. */
static void rcm_conn_rep_received(struct rcm_id *id,
				  const struct ib_cm_event *event)
{
	const struct ib_cm_rep_event_param *rep = &event->param.rep_rcvd;
	/* ib_cm already turned the peer's values into ours. */
	struct rcm_conn_param conn = {
		.qp_num = rep->remote_qpn,
		.responder_resources = rep->responder_resources,
		.initiator_depth = rep->initiator_depth,
		.flow_control = rep->flow_control,
		.rnr_retry_count = rep->rnr_retry_count,
		.srq = rep->srq,
	};

	id->answered = true;
	id->accepted = true;
	rcm_conn_report(id, RCM_EVENT_CONNECT_RESPONSE, 0, event->private_data,
			IB_CM_REP_PRIVATE_DATA_SIZE, &conn);
}

/**
 * rcm_ib_conn_handler() - ib_cm's events on a connection of an id
 * @cm_id: the ib_cm id; its context is the rcm id
 * @event: what happened
 *
 * Every case checks the state it expects under the id's lock: after a
 * destroy's or a device removal's fence, or a second report of the same
 * fact, it does nothing.
 *
 * Return: always 0; the id destroys @cm_id itself (ib_cm waits for this
 * handler to return before that completes).
 */
int rcm_ib_conn_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event)
{
	struct rcm_id *id = cm_id->context;

	mutex_lock(&id->lock);
	if (id->state != RCM_STATE_CONNECT &&
	    id->state != RCM_STATE_DISCONNECT)
		goto out;
	switch (event->event) {
	case IB_CM_REP_RECEIVED:
		if (id->state == RCM_STATE_CONNECT && id->active &&
		    !id->answered)
			rcm_conn_rep_received(id, event);
		break;
	case IB_CM_REQ_ERROR:
		/* Our REQ was never answered. */
		if (id->state == RCM_STATE_CONNECT && id->active &&
		    !id->answered) {
			id->answered = true;
			rcm_conn_report(id, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
					NULL, 0, NULL);
		}
		break;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		if (id->state == RCM_STATE_CONNECT && !id->active &&
		    id->accepted && !id->established) {
			id->established = true;
			rcm_conn_report(id, RCM_EVENT_ESTABLISHED, 0, NULL, 0,
					NULL);
		}
		break;
	case IB_CM_REP_ERROR:
		/* Our REP was never answered with an RTU. */
		if (id->state == RCM_STATE_CONNECT && !id->active &&
		    id->accepted && !id->established) {
			id->accepted = false;
			rcm_conn_report(id, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
					NULL, 0, NULL);
		}
		break;
	case IB_CM_REJ_RECEIVED:
		if (id->state != RCM_STATE_CONNECT || id->established)
			break;
		if (id->active)
			id->answered = true;
		else
			rcm_request_answered(id);
		id->accepted = false;
		rcm_conn_report(id, RCM_EVENT_REJECTED,
				event->param.rej_rcvd.reason,
				event->private_data,
				IB_CM_REJ_PRIVATE_DATA_SIZE, NULL);
		break;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
	case IB_CM_DREQ_ERROR:
		/* Only the first of these is reported. */
		if (id->state != RCM_STATE_CONNECT)
			break;
		id->state = RCM_STATE_DISCONNECT;
		rcm_conn_report(id, RCM_EVENT_DISCONNECTED,
				event->event == IB_CM_DREQ_ERROR ? -ETIMEDOUT : 0,
				NULL, 0, NULL);
		break;
	case IB_CM_TIMEWAIT_EXIT:
		if (id->state == RCM_STATE_DISCONNECT)
			rcm_conn_report(id, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0,
					NULL);
		break;
	default:
		/* MRAs, LAP/APR: ib_cm handles them; nothing to report. */
		break;
	}
out:
	mutex_unlock(&id->lock);
	return 0;
}

/* Fill the REQ of an active id; @id->lock held, route resolved. */
static int rcm_conn_req_param(struct rcm_id *id, const struct rcm_connect *cmd,
			      const struct rcm_wire_conn_param *param,
			      const void *udata, void *pdata,
			      struct ib_cm_req_param *req)
{
	u8 timeout, retries;
	int len;

	/* ib_cm waits twice the packet lifetime more on each try. */
	rcm_conn_cm_timers(id, 2 * (1U << max(id->path->packet_life_time - 8,
					      0)), &timeout, &retries);
	len = rcm_wire_req_pdata_build(pdata, IB_CM_REQ_PRIVATE_DATA_SIZE,
				       IB_QPT_RC,
				       (struct sockaddr *)&id->bind.addr,
				       (struct sockaddr *)&id->dst_addr,
				       udata, cmd->private_data_len);
	if (len < 0)
		return len;
	memset(req, 0, sizeof(*req));
	req->primary_path = id->path;
	req->ppath_sgid_attr = id->dev_addr.sgid_attr;
	req->qp_num = cmd->qp_num;
	req->qp_type = IB_QPT_RC;
	req->starting_psn = id->seq_num;
	req->private_data = pdata;
	req->private_data_len = len;
	req->responder_resources = param->responder_resources;
	req->initiator_depth = param->initiator_depth;
	/*
	 * The local value is how long the peer waits for our RTU after its
	 * REP (with max_cm_retries): the same bound on both sides.
	 */
	req->remote_cm_response_timeout = timeout;
	req->local_cm_response_timeout = timeout;
	req->flow_control = cmd->flow_control;
	req->retry_count = param->retry_count;
	req->rnr_retry_count = param->rnr_retry_count;
	req->max_cm_retries = retries;
	req->srq = cmd->srq;
	return rcm_wire_sid_compose(id->ps,
				    rcm_addr_port((struct sockaddr *)&id->dst_addr),
				    &req->service_id);
}

int rcm_cmd_connect(struct file *filp, void *arg)
{
	struct rcm_connect *cmd = arg;
	/* The largest any transport takes: iWARP's. */
	u8 udata[RCM_IWARP_PRIVATE_DATA_MAX];
	/* The CMA header, then the user's bytes, as they go on the wire. */
	u8 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct rcm_wire_conn_param user = {
		.responder_resources = cmd->responder_resources,
		.initiator_depth = cmd->initiator_depth,
		.retry_count = cmd->retry_count,
		.rnr_retry_count = cmd->rnr_retry_count,
	}, param;
	struct ib_cm_req_param req;
	struct ib_device_attr *attrs;
	struct ib_cm_id *cm_id = NULL;
	struct iw_cm_id *iw = NULL;
	struct rcm_id *id;
	int ret;

	if (cmd->reserved[0] || cmd->reserved[1] || cmd->reserved2 ||
	    cmd->qp_num > 0xffffff || cmd->flow_control > 1 || cmd->srq > 1 ||
	    cmd->private_data_len > sizeof(udata))
		return -EINVAL;
	ret = rcm_event_room(filp->private_data);
	if (ret)
		return ret;
	ret = rcm_private_data_from_user(udata, cmd->private_data,
					 cmd->private_data_len);
	if (ret)
		return ret;
	id = rcm_id_lock(filp->private_data, cmd->id);
	if (!id)
		return -ENOENT;
	if (id->state != RCM_STATE_ROUTE_RESOLVED) {
		ret = rcm_id_state_errno(id);
		goto out;
	}
	attrs = &id->rdev->ibdev->attrs;
	ret = rcm_wire_connect_param(&user, attrs->max_qp_rd_atom,
				     attrs->max_qp_init_rd_atom, &param);
	if (ret)
		goto out;
	if (rcm_id_is_ud(id)) {
		ret = rcm_sidr_connect(id, udata, cmd->private_data_len,
				       &cm_id);
		goto out;
	}
	if (cmd->private_data_len > rcm_conn_pdata_max(id, RCM_WIRE_OP_CONNECT)) {
		ret = -EINVAL;
		goto out;
	}
	if (id->rdev->port_cm[id->port_num - 1] == RCM_PORT_CM_IW) {
		/* MPA runs on the driver's timers. */
		ret = id->connect_timeout_ms ? -EINVAL :
		      rcm_iw_connect(id, cmd, &param, udata, &iw);
		goto out;
	}
	if (!id->path) {
		ret = -EOPNOTSUPP;	/* no route on this port type */
		goto out;
	}
	id->seq_num = get_random_u32() & 0xffffff;
	ret = rcm_conn_req_param(id, cmd, &param, udata, pdata, &req);
	if (ret)
		goto out;
	cm_id = ib_create_cm_id(id->rdev->ibdev, rcm_ib_conn_handler, id);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		cm_id = NULL;
		goto out;
	}
	/*
	 * Publish the connection before the REQ leaves: its handler may run
	 * as soon as it is sent, and waits for this lock.
	 */
	id->cm_id = cm_id;
	id->active = true;
	id->state = RCM_STATE_CONNECT;
	ret = ib_send_cm_req(cm_id, &req);
	if (ret) {
		id->cm_id = NULL;
		id->active = false;
		id->state = RCM_STATE_ROUTE_RESOLVED;
	} else {
		cm_id = NULL;
	}
out:
	rcm_id_unlock(id);
	/* Never sent: no handler can be running; destroyed without locks. */
	if (cm_id)
		ib_destroy_cm_id(cm_id);
	if (iw)
		iw_destroy_cm_id(iw);
	return ret;
}

/* An accept's buffer serves every transport. */
static_assert(RCM_IWARP_PRIVATE_DATA_MAX <= RCM_ACCEPT_PRIVATE_DATA_MAX);

int rcm_cmd_accept(struct file *filp, void *arg)
{
	struct rcm_accept *cmd = arg;
	u8 pdata[RCM_ACCEPT_PRIVATE_DATA_MAX];
	struct rcm_wire_conn_param user = {
		.responder_resources = cmd->responder_resources,
		.initiator_depth = cmd->initiator_depth,
		.rnr_retry_count = cmd->rnr_retry_count,
	}, out;
	struct ib_cm_rep_param rep = {};
	struct ib_device_attr *attrs;
	struct rcm_id *id;
	int ret;

	if (cmd->reserved[0] || cmd->reserved[1] || cmd->reserved[2] ||
	    cmd->reserved2 || cmd->qp_num > 0xffffff || cmd->flow_control > 1 ||
	    cmd->srq > 1 || cmd->private_data_len > RCM_ACCEPT_PRIVATE_DATA_MAX)
		return -EINVAL;
	ret = rcm_private_data_from_user(pdata, cmd->private_data,
					 cmd->private_data_len);
	if (ret)
		return ret;
	id = rcm_request_lock(filp->private_data, cmd->id);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (cmd->private_data_len > rcm_conn_pdata_max(id, RCM_WIRE_OP_ACCEPT)) {
		ret = -EINVAL;
		goto out;
	}
	attrs = &id->rdev->ibdev->attrs;
	ret = rcm_wire_accept_param(&id->req_param, &user,
				    attrs->max_qp_rd_atom,
				    attrs->max_qp_init_rd_atom, &out);
	if (ret)
		goto out;
	if (rcm_id_is_ud(id)) {
		ret = rcm_sidr_accept(id, cmd->qp_num, pdata,
				      cmd->private_data_len);
		goto answered;
	}
	if (id->iw) {
		ret = rcm_iw_accept(id, cmd, &out, pdata);
		goto answered;
	}
	rep.qp_num = cmd->qp_num;
	rep.starting_psn = id->seq_num;
	rep.private_data = pdata;
	rep.private_data_len = cmd->private_data_len;
	rep.responder_resources = out.responder_resources;
	rep.initiator_depth = out.initiator_depth;
	rep.flow_control = cmd->flow_control;
	rep.rnr_retry_count = out.rnr_retry_count;
	rep.srq = cmd->srq;
	ret = ib_send_cm_rep(id->cm_id, &rep);
answered:
	if (ret)
		goto out;
	/* From now on the id's events carry the caller's context. */
	id->context = cmd->context;
	id->accepted = true;
	rcm_request_answered(id);
out:
	rcm_id_unlock(id);
	return ret;
}

int rcm_cmd_establish(struct file *filp, void *arg)
{
	struct rcm_establish *cmd = arg;
	struct rcm_id *id;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	id = rcm_id_lock(filp->private_data, cmd->id);
	if (!id)
		return -ENOENT;
	if (!rcm_id_awaits_rtu(id)) {
		ret = rcm_id_state_errno(id);
		goto out;
	}
	ret = ib_send_cm_rtu(id->cm_id, NULL, 0);
	if (!ret)
		id->established = true;
out:
	rcm_id_unlock(id);
	return ret;
}

int rcm_cmd_notify(struct file *filp, void *arg)
{
	struct rcm_notify *cmd = arg;
	struct rcm_id *id;
	int ret;

	if (cmd->event != RCM_NOTIFY_COMM_EST)
		return -EINVAL;
	id = rcm_id_lock(filp->private_data, cmd->id);
	if (!id)
		return -ENOENT;
	/* The answers of the in-tree rdma_notify() and ib_cm's. */
	if (id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL)
		ret = rcm_id_state_errno(id);
	else if (id->iw)
		ret = 0;	/* iWARP has no RTU to stand in for */
	else if (id->state != RCM_STATE_CONNECT || !id->cm_id ||
		 rcm_id_is_ud(id))
		ret = -EINVAL;
	else if (id->established)
		ret = -EISCONN;
	else if (id->active || !id->accepted)
		ret = -EINVAL;
	else
		/* ib_cm answers with IB_CM_USER_ESTABLISHED: ESTABLISHED. */
		ret = ib_cm_notify(id->cm_id, IB_EVENT_COMM_EST);
	rcm_id_unlock(id);
	return ret;
}

/*
 * Initiate, or answer the peer's DREQ; both fail, and nothing is sent,
 * when the connection is not up or already down. A connection that is
 * up but whose DREQ could not even be allocated is one ib_cm has put in
 * timewait without a word to the peer (as it does for the in-tree CM,
 * whose user then never hears DISCONNECTED): rcm reports DISCONNECTED
 * itself, status -ENOMEM, from a record taken first, so the completion
 * of a disconnect is never lost. @id->lock held.
 */
static int rcm_conn_disconnect_ib(struct rcm_id *id)
{
	struct rcm_uevent *ev = NULL;
	int dreq, ret = 0;

	if (id->state == RCM_STATE_CONNECT && id->established) {
		ev = rcm_event_alloc(id, RCM_EVENT_DISCONNECTED, GFP_KERNEL);
		if (!ev)
			return -ENOMEM;	/* nothing sent, nothing changed */
	}
	dreq = ib_send_cm_dreq(id->cm_id, NULL, 0);
	if (dreq)
		ret = ib_send_cm_drep(id->cm_id, NULL, 0);
	/* -EINVAL: not established in ib_cm (a DREQ went already, say). */
	if (dreq && dreq != -EINVAL && ret && ev) {
		id->state = RCM_STATE_DISCONNECT;
		ev->ev.status = -ENOMEM;
		rcm_event_queue(id->file, ev);
		ev = NULL;
	}
	rcm_event_free(ev);
	return 0;
}

int rcm_cmd_disconnect(struct file *filp, void *arg)
{
	struct rcm_disconnect *cmd = arg;
	struct rcm_id *id;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	id = rcm_id_lock(filp->private_data, cmd->id);
	if (!id)
		return -ENOENT;
	/*
	 * As in-tree cma.c:rdma_disconnect(): any id with a CM id of a
	 * connection (a request id, or an id that sent a connect) succeeds,
	 * whatever became of the connection - a second call, one after the
	 * peer's DREQ or DREP, after REJECTED - and only an id that never
	 * had one fails.
	 */
	if (id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL) {
		ret = rcm_id_state_errno(id);
	} else if (id->cm_id) {
		ret = rcm_conn_disconnect_ib(id);
	} else if (id->iw) {
		/*
		 * iw_cm_disconnect() does nothing (0) once the stream is
		 * closing or gone, or before an accept; it is never called
		 * while our connect waits for its reply.
		 */
		ret = id->accepted ? rcm_iw_disconnect(id) : 0;
	} else {
		ret = -EINVAL;
	}
	rcm_id_unlock(id);
	return ret;
}
