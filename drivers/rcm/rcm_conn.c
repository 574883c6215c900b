// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: connections over the IB CM - accept, disconnect, and the events
 * ib_cm reports on a connection (RTU, REJ, DREQ/DREP, timewait).
 *
 * The QP of a connection is always the user's: rcm sends the CM messages
 * and reports what the peer did; userspace moves its QP.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cm.h>

#include "rcm_priv.h"

/* Queue an event the peer caused; @id->lock held, state checked. */
static void rcm_conn_report(struct rcm_id *id, u32 type, int status,
			    const void *pdata, u8 len)
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
	rcm_event_queue(id->file, ev);
}

/**
 * rcm_ib_conn_handler() - ib_cm's events on a connection of an id
 * @cm_id: the ib_cm id; its context is the rcm id
 * @event: what happened
 *
 * Return: always 0; the id destroys @cm_id itself (ib_cm waits for this
 * handler to return before that completes).
 */
int rcm_ib_conn_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event)
{
	struct rcm_id *id = cm_id->context;

	mutex_lock(&id->lock);
	switch (event->event) {
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		if (id->state == RCM_STATE_CONNECT && id->accepted)
			rcm_conn_report(id, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
		break;
	case IB_CM_REP_ERROR:
		/* Our REP was never answered with an RTU. */
		if (id->state == RCM_STATE_CONNECT)
			rcm_conn_report(id, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
					NULL, 0);
		break;
	case IB_CM_REJ_RECEIVED:
		if (id->state != RCM_STATE_CONNECT)
			break;
		rcm_conn_report(id, RCM_EVENT_REJECTED,
				event->param.rej_rcvd.reason,
				event->private_data,
				IB_CM_REJ_PRIVATE_DATA_SIZE);
		rcm_request_answered(id);
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
				NULL, 0);
		break;
	case IB_CM_TIMEWAIT_EXIT:
		if (id->state == RCM_STATE_DISCONNECT)
			rcm_conn_report(id, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);
		break;
	default:
		break;
	}
	mutex_unlock(&id->lock);
	return 0;
}

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
	if (cmd->private_data_len &&
	    copy_from_user(pdata, u64_to_user_ptr(cmd->private_data),
			   cmd->private_data_len))
		return -EFAULT;
	id = rcm_request_lock(filp->private_data, cmd->id);
	if (IS_ERR(id))
		return PTR_ERR(id);
	attrs = &id->rdev->ibdev->attrs;
	ret = rcm_wire_accept_param(&id->req_param, &user,
				    attrs->max_qp_rd_atom,
				    attrs->max_qp_init_rd_atom, &out);
	if (ret)
		goto out;
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
	if (ret)
		goto out;
	/* From now on the id's events carry the caller's context. */
	id->context = cmd->context;
	id->accepted = true;
	rcm_request_answered(id);
out:
	rcm_request_unlock(id);
	return ret;
}

int rcm_cmd_disconnect(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_disconnect *cmd = arg;
	struct rcm_id *id;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	id = rcm_id_get(file, cmd->id);
	if (!id)
		return -ENOENT;
	mutex_lock(&id->cmd_lock);
	mutex_lock(&id->lock);
	if ((id->state != RCM_STATE_CONNECT &&
	     id->state != RCM_STATE_DISCONNECT) || !id->accepted) {
		ret = id->state == RCM_STATE_CONNECT ||
		      id->state == RCM_STATE_DISCONNECT ? -EINVAL :
		      rcm_id_state_errno(id);
	} else if (ib_send_cm_dreq(id->cm_id, NULL, 0)) {
		/* The peer's DREQ came first: answer it. */
		ret = ib_send_cm_drep(id->cm_id, NULL, 0);
	} else {
		ret = 0;
	}
	mutex_unlock(&id->lock);
	mutex_unlock(&id->cmd_lock);
	rcm_id_put(id);
	return ret;
}
