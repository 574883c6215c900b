// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: connections, whatever the transport - the connect, accept,
 * establish, notify and disconnect commands, which check what every
 * transport shares and then hand over to the id's CM: rcm_ib.c for an
 * IB CM port (InfiniBand, RoCE), rcm_sidr.c for a datagram id,
 * rcm_iw.c for an iWARP port; and the events a peer causes.
 *
 * The QP of a connection is always the user's: rcm sends the CM messages,
 * reports what the peer did and hands out the QP attributes (rcm_qp.c);
 * userspace moves its QP.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

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
 * messages, an RC connection's REQ, REP or REJ; on iWARP 255 bytes,
 * RCM_IWARP_PRIVATE_DATA_MAX, of which the driver may take less); 0 for
 * UD on iWARP, which has none.
 *
 * Return: the limit in bytes.
 */
int rcm_conn_pdata_max(struct rcm_id *id, enum rcm_wire_op op)
{
	enum rcm_port_cm cm = id->rdev->port_cm[id->port_num - 1];
	int max = rcm_wire_max_private_data(cm, op, rcm_id_is_ud(id) ?
					    IB_QPT_UD : IB_QPT_RC);

	/* An AF_IB REQ has no CMA header (cma_user_data_offset()): all 92. */
	if (op == RCM_WIRE_OP_CONNECT && !rcm_id_is_ud(id) &&
	    id->dst_addr.sa.sa_family == AF_IB)
		max = IB_CM_REQ_PRIVATE_DATA_SIZE;
	return max < 0 ? 0 : max;
}

/**
 * rcm_conn_report() - queue an event the peer caused
 * @id: the id; the caller holds its lock and checked its state
 * @type: enum rcm_event_type
 * @status: the event's status
 * @pdata: private data of the peer's message, or NULL
 * @len: its length
 * @conn: connection parameters to copy into the record, or NULL
 */
void rcm_conn_report(struct rcm_id *id, u32 type, int status,
		     const void *pdata, u8 len,
		     const struct rcm_conn_param *conn)
{
	rcm_conn_report_ece(id, type, status, pdata, len, conn, NULL);
}

/**
 * rcm_conn_report_ece() - rcm_conn_report() with the peer's ECE
 * @id: the id
 * @type: the event
 * @status: its status
 * @pdata: the peer's private data, or NULL
 * @len: its length
 * @conn: the connection parameters, or NULL
 * @ece: the ECE the peer's REQ or REP carried, or NULL
 *
 * A CONNECT_RESPONSE carries the id's QP attribute sets too
 * (rcm_qp_event_attrs()).
 */
void rcm_conn_report_ece(struct rcm_id *id, u32 type, int status,
			 const void *pdata, u8 len,
			 const struct rcm_conn_param *conn,
			 const struct rdma_ucm_ece *ece)
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
	if (pdata && len)
		rcm_event_set_private_data(ev, pdata, len);
	if (conn)
		ev->ev.conn = *conn;
	if (ece) {
		ev->ev.ece_vendor_id = ece->vendor_id;
		ev->ev.ece_attr_mod = ece->attr_mod;
	}
	/* An IB CM REP: the QP goes through INIT, RTR and RTS next. */
	if (type == RCM_EVENT_CONNECT_RESPONSE)
		rcm_qp_event_attrs(ev, id, RCM_QP_STATES);
	rcm_event_queue(id->file, ev);
}

int rcm_cmd_connect(struct file *filp, void *arg)
{
	struct rcm_connect *cmd = arg;
	/* The largest any transport takes: iWARP's. */
	u8 udata[RCM_IWARP_PRIVATE_DATA_MAX];
	struct rcm_wire_conn_param user = {
		.responder_resources = cmd->responder_resources,
		.initiator_depth = cmd->initiator_depth,
		.retry_count = cmd->retry_count,
		.rnr_retry_count = cmd->rnr_retry_count,
	}, param;
	struct ib_device_attr *attrs;
	struct ib_cm_id *cm_id = NULL;
	struct iw_cm_id *iw = NULL;
	struct rcm_device *rdev;
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
	ret = rcm_ib_connect(id, cmd, &param, udata, &cm_id);
out:
	if (!ret && rcm_id_is_ud(id)) {
		trace_cm_send_sidr_req(id);
	} else if (!ret) {
		id->qp_num = cmd->qp_num;
		trace_cm_send_req(id);
	}
	/*
	 * Never sent: no handler can be running; destroyed without locks,
	 * the device held until then (the id may be detached meanwhile).
	 */
	rdev = cm_id || iw ? id->rdev : NULL;
	if (rdev)
		rcm_device_get(rdev);
	rcm_id_unlock(id);
	rcm_device_put_cm(rdev, cm_id, iw);
	return ret;
}

/* An accept's buffer serves every transport: iWARP's is the largest. */
static_assert(RCM_ACCEPT_PRIVATE_DATA_MAX <= RCM_IWARP_PRIVATE_DATA_MAX);

int rcm_cmd_accept(struct file *filp, void *arg)
{
	struct rcm_accept *cmd = arg;
	u8 pdata[RCM_IWARP_PRIVATE_DATA_MAX];
	struct rcm_wire_conn_param user = {
		.responder_resources = cmd->responder_resources,
		.initiator_depth = cmd->initiator_depth,
		.rnr_retry_count = cmd->rnr_retry_count,
	}, out;
	struct ib_device_attr *attrs;
	struct rcm_id *id;
	int ret;

	if (cmd->reserved[0] || cmd->reserved[1] || cmd->reserved[2] ||
	    cmd->reserved2 || cmd->qp_num > 0xffffff || cmd->flow_control > 1 ||
	    cmd->srq > 1 || cmd->private_data_len > sizeof(pdata))
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
	ret = rcm_ib_accept(id, cmd, &out, pdata);
answered:
	if (ret)
		goto out;
	/* From now on the id's events carry the caller's context. */
	id->context = cmd->context;
	id->qp_num = cmd->qp_num;
	id->accepted = true;
	rcm_request_answered(id);
	if (rcm_id_is_ud(id))
		trace_cm_send_sidr_rep(id);
	else
		trace_cm_send_rep(id);
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
	ret = rcm_ib_establish(id);
	if (!ret)
		trace_cm_send_rtu(id);
out:
	rcm_id_unlock(id);
	return ret;
}

int rcm_cmd_notify(struct file *filp, void *arg)
{
	struct rcm_notify *cmd = arg;
	struct rcm_id *id;
	int ret;

	id = rcm_id_lock(filp->private_data, cmd->id);
	if (!id)
		return -ENOENT;
	/*
	 * The answers of the in-tree rdma_notify(): an id without a
	 * connection's CM id is EINVAL; iw_cm takes any event and does
	 * nothing (iWARP has no RTU to stand in for); ib_cm answers itself.
	 */
	if (id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL)
		ret = rcm_id_state_errno(id);
	else if (id->iw)
		ret = 0;
	else if (!id->cm_id)
		ret = -EINVAL;
	else
		ret = rcm_ib_notify(id, cmd->event);
	rcm_id_unlock(id);
	return ret;
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
		ret = rcm_ib_disconnect(id);
	} else if (id->iw) {
		/*
		 * iw_cm_disconnect() does nothing (0) once the stream is
		 * closing or gone, or before an accept. While our connect
		 * waits for its reply, in-tree's waits for the reply and
		 * then disconnects: rcm_iw_disconnect() leaves that to the
		 * reply's handler.
		 */
		ret = id->accepted || (id->active && !id->answered) ?
		      rcm_iw_disconnect(id) : 0;
	} else {
		ret = -EINVAL;
	}
	if (!ret)
		trace_cm_disconnect(id);
	rcm_id_unlock(id);
	return ret;
}
