// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: iWARP connections over iw_cm - listens, connection requests,
 * connect, accept, reject, disconnect, and the events iw_cm reports.
 *
 * iw_cm hands the MPA exchange and the TCP connection under it to the
 * driver. What differs from the IB CM:
 *
 * - A listen is one iw_cm id per listener and device, on the listener's
 *   address and port (a TCP listen, in the driver); it is not shared, so
 *   its context is the listener itself and its requests need no lookup.
 * - The private data is the consumer's own bytes, with their length;
 *   rcm puts no header in front (the addresses travel in TCP).
 * - iw_cm looks the connection's QP up by number on the device, holds a
 *   reference on it and moves it itself (to RTS once MPA completes, to
 *   SQD on a graceful disconnect, to ERR on a reset): a connect or
 *   accept naming no QP of the device fails with -EINVAL.
 * - There is no RTU: the active side learns that the connection is up
 *   from the MPA reply (IW_CM_EVENT_CONNECT_REPLY), and reports
 *   RCM_EVENT_ESTABLISHED straight away, with the reply's private data,
 *   as the in-tree rdma_cm does; the passive side from
 *   IW_CM_EVENT_ESTABLISHED. A refusal or reset (-ECONNREFUSED or
 *   -ECONNRESET: drivers differ on which an MPA reject is, siw says
 *   -ECONNRESET, cxgb4 -ECONNREFUSED) is RCM_EVENT_REJECTED with that
 *   negative status, passed on as in-tree, a timeout (-ETIMEDOUT)
 *   RCM_EVENT_UNREACHABLE, anything else RCM_EVENT_CONNECT_ERROR. IW_CM_EVENT_CLOSE is
 *   RCM_EVENT_DISCONNECTED; IW_CM_EVENT_DISCONNECT (the peer started to
 *   close) tells userspace nothing.
 *
 * Locking: iw_cm runs every iw_cm handler of the system on one ordered
 * workqueue, and iw_destroy_cm_id() waits for it, as does
 * iw_cm_disconnect() while a connect or accept is in flight. The
 * handlers here take the id's lock, so neither is ever called with an
 * rcm lock held: a disconnect before the accepted connection is up is
 * left to the ESTABLISHED handler (@id->iw_disconnect), and ids are
 * destroyed as their ib_cm ids are, after the DESTROYING fence.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <rdma/iw_cm.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

static int rcm_iw_conn_handler(struct iw_cm_id *iw, struct iw_cm_event *event);

/*
 * iw_cm binds the connection to whatever QP of the device has the number
 * it is given, its creator's or not. As for a socket, a caller may only
 * hand over a QP of its own: a user QP (not one of a kernel consumer's,
 * an NVMe-oF target's say) that its own process created.
 *
 * The QP is returned held, with the driver's reference that iw_cm takes
 * too, until rcm_iw_qp_put() after the iw_cm call: the driver frees a
 * QP's number only once its last reference is gone (siw waits for them
 * in its destroy), so the number cannot name another process's new QP
 * between this check and iw_cm's own lookup (siw reuses numbers lowest
 * first).
 */
static struct ib_qp *rcm_iw_qp_get_owned(struct ib_device *ibdev, u32 qpn)
{
	struct ib_qp *qp;

	if (qpn > INT_MAX)
		return ERR_PTR(-EINVAL);
	/* As iw_cm_connect(): the lookup, then the reference. */
	qp = ibdev->ops.iw_get_qp(ibdev, qpn);
	if (!qp)
		return ERR_PTR(-EINVAL);
	ibdev->ops.iw_add_ref(qp);
	if (!qp->res.user || !qp->res.task ||
	    !same_thread_group(qp->res.task, current)) {
		ibdev->ops.iw_rem_ref(qp);
		return ERR_PTR(-EINVAL);
	}
	return qp;
}

static void rcm_iw_qp_put(struct ib_qp *qp)
{
	qp->device->ops.iw_rem_ref(qp);
}

/*
 * The parameters of an MPA request or reply of QP @qpn on @ibdev, into
 * @p: the depths of @param, private data @pdata of @len bytes. The QP
 * must be the caller's (rcm_iw_qp_get_owned()): *@qp then holds it, for
 * rcm_iw_qp_put() after the iw_cm call. Return: 0 or -EINVAL.
 */
static int rcm_iw_conn_param(struct ib_device *ibdev, u32 qpn,
			     const struct rcm_wire_conn_param *param,
			     const void *pdata, u32 len,
			     struct iw_cm_conn_param *p, struct ib_qp **qp)
{
	*qp = rcm_iw_qp_get_owned(ibdev, qpn);
	if (IS_ERR(*qp))
		return PTR_ERR(*qp);
	*p = (struct iw_cm_conn_param) {
		.private_data = pdata,
		.private_data_len = len,
		.ord = param->initiator_depth,
		.ird = param->responder_resources,
		.qpn = qpn,
	};
	return 0;
}

/* Fill the CONNECT_REQUEST event of a request from the MPA request. */
static void rcm_iw_req_event(struct rcm_uevent *ev, struct rcm_id *listener,
			     const struct iw_cm_event *event)
{
	/*
	 * iw_cm reports the peer's MPA IRD and ORD in this side's terms:
	 * ird is what the peer will serve, the depth this side may issue.
	 */
	ev->ev.conn.initiator_depth = event->ird;
	ev->ev.conn.responder_resources = event->ord;
	if (event->private_data_len)
		rcm_event_set_private_data(ev, event->private_data,
					   event->private_data_len);
}

/*
 * Make the request id for an MPA request that @listener (locked, LISTEN)
 * takes, publish it in the listener's file and report it. On success the
 * request id owns @iw; on failure iw_cm rejects the request and destroys
 * @iw.
 */
static int rcm_iw_new_request(struct rcm_id *listener, struct iw_cm_id *iw,
			      const struct iw_cm_event *event)
{
	const struct sockaddr *laddr = (const struct sockaddr *)&event->local_addr;
	const struct sockaddr *raddr = (const struct sockaddr *)&event->remote_addr;
	struct rcm_uevent *ev;
	struct rcm_id *child;
	int ret;

	if ((laddr->sa_family != AF_INET && laddr->sa_family != AF_INET6) ||
	    raddr->sa_family != laddr->sa_family)
		return -EAFNOSUPPORT;
	/* A full backlog: iw_cm rejects, the peer sees a refusal. */
	child = rcm_request_begin(listener);
	if (IS_ERR(child))
		return PTR_ERR(child);
	memcpy(&child->bind.addr, laddr, rdma_addr_size(laddr));
	memcpy(&child->dst_addr, raddr, rdma_addr_size(raddr));
	/* The netdev of the local address, then the port that carries it. */
	ret = rdma_translate_ip(laddr, &child->dev_addr);
	if (!ret)
		ret = rcm_device_attach_dev(child, iw->device);
	if (ret)
		goto err_child;
	ev = rcm_request_publish(child, listener);
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		goto err_child;
	}
	rcm_iw_req_event(ev, listener, event);
	child->req_param.responder_resources = event->ord;
	child->req_param.initiator_depth = event->ird;
	child->iw = iw;
	iw->context = child;
	iw->cm_handler = rcm_iw_conn_handler;
	rcm_id_info_event(child, ev);
	rcm_event_queue(listener->file, ev);
	mutex_unlock(&child->lock);
	return 0;

err_child:
	rcm_request_abort(child);
	return ret;
}

/*
 * iw_cm: an MPA request arrived on one of rcm's listens. @iw is the new
 * iw_cm id of the request; its context is still the listen's, the
 * listener, which stays valid: destroying the listen waits for this.
 */
static int rcm_iw_req_handler(struct iw_cm_id *iw, struct iw_cm_event *event)
{
	struct rcm_id *listener = iw->context;
	const char *why = "not-listening";
	struct mem_cgroup *old;
	int ret = -ECONNABORTED;

	if (event->event != IW_CM_EVENT_CONNECT_REQUEST)
		return -EINVAL;
	mutex_lock(&listener->lock);
	if (listener->state == RCM_STATE_LISTEN) {
		/* What the request makes, its listener's cgroup pays for. */
		old = rcm_charge_begin(listener);
		ret = rcm_iw_new_request(listener, iw, event);
		rcm_charge_end(old);
		why = ret == -ENOBUFS ? "backlog-full" : "no-request";
		/* As to ib_cm (iw_cm rejects whatever the error). */
		if (ret == -ENOBUFS)
			ret = -ENOMEM;
	}
	if (ret)
		trace_cm_req_refused(iw->device, rdma_start_port(iw->device),
				     listener, why, ret);
	trace_cm_req_handler(listener, ret);
	mutex_unlock(&listener->lock);
	return ret;
}

/**
 * rcm_iw_listen() - listen on an iWARP device for a listener
 * @listener: the listener, bound (its address no longer changes);
 *            rcm_listeners_lock held
 * @ibdev: the device
 * @backlog: MPA requests iw_cm may queue for the handler at once
 *
 * Listens on the listener's address and port (a wildcard one on every
 * address of the device's netdev, which the driver arranges).
 *
 * Return: the iw_cm listen, or an ERR_PTR: -EADDRINUSE when a TCP socket
 * (another listener, or the in-tree rdma_cm's) has the port, -ENOMEM.
 */
struct iw_cm_id *rcm_iw_listen(struct rcm_id *listener,
			       struct ib_device *ibdev, int backlog)
{
	const struct sockaddr *src = (const struct sockaddr *)&listener->bind.addr;
	struct iw_cm_id *iw;
	int ret;

	iw = iw_create_cm_id(ibdev, rcm_iw_req_handler, listener);
	if (IS_ERR(iw))
		return iw;
	memcpy(&iw->local_addr, src, rdma_addr_size(src));
	iw->afonly = listener->bind.afonly;
	iw->tos = READ_ONCE(listener->tos);
	iw->tos_set = iw->tos != 0;
	ret = iw_cm_listen(iw, backlog);
	if (ret) {
		/* Not listening: no handler can run yet. */
		iw_destroy_cm_id(iw);
		/*
		 * The driver's TCP socket could not be had (sock_alloc():
		 * ENFILE; sk_alloc() in inet_create() or inet6_create():
		 * ENOBUFS): out of memory, as the header documents it.
		 */
		if (ret == -ENFILE || ret == -ENOBUFS)
			ret = -ENOMEM;
		return ERR_PTR(ret);
	}
	return iw;
}

/*
 * The connection was just reported up: iw_cm no longer waits for the
 * accept or the connect, so a disconnect userspace asked for meanwhile
 * (rcm_iw_disconnect()) can go. @id->lock held.
 */
static void rcm_iw_deferred_disconnect(struct rcm_id *id)
{
	lockdep_assert_held(&id->lock);
	if (!id->iw_disconnect)
		return;
	id->iw_disconnect = false;
	iw_cm_disconnect(id->iw, 0);
}

/* The peer answered our MPA request (@event->status 0: accepted). */
static void rcm_iw_connect_reply(struct rcm_id *id,
				 const struct iw_cm_event *event)
{
	struct rcm_conn_param conn = {
		.initiator_depth = event->ird,
		.responder_resources = event->ord,
	};
	u32 type;

	id->answered = true;
	switch (event->status) {
	case 0:
		/* No RTU on iWARP: the MPA reply means the connection is up. */
		id->accepted = true;
		id->established = true;
		rcm_conn_report(id, RCM_EVENT_ESTABLISHED, 0,
				event->private_data, event->private_data_len,
				&conn);
		rcm_iw_deferred_disconnect(id);
		return;
	case -ECONNREFUSED:	/* an MPA reject, or TCP refused */
	case -ECONNRESET:	/* an MPA reject (siw), or a reset */
		type = RCM_EVENT_REJECTED;
		break;
	case -ETIMEDOUT:
		type = RCM_EVENT_UNREACHABLE;
		break;
	default:
		type = RCM_EVENT_CONNECT_ERROR;
		break;
	}
	/* No connection to close: a disconnect asked for meanwhile is moot. */
	id->iw_disconnect = false;
	rcm_conn_report(id, type, event->status, event->private_data,
			event->private_data_len, NULL);
}

/* iw_cm says the connection we accepted is up. */
static void rcm_iw_established(struct rcm_id *id,
			       const struct iw_cm_event *event)
{
	struct rcm_conn_param conn = {
		.initiator_depth = event->ird,
		.responder_resources = event->ord,
	};

	id->established = true;
	rcm_conn_report(id, RCM_EVENT_ESTABLISHED, 0, NULL, 0, &conn);
	rcm_iw_deferred_disconnect(id);
}

/**
 * rcm_iw_conn_handler() - iw_cm's events on a connection of an id
 * @iw: the iw_cm id; its context is the rcm id
 * @event: what happened
 *
 * Every case checks the state it expects under the id's lock: after a
 * destroy's or a device removal's fence, or a second report of the same
 * fact, it does nothing.
 *
 * Return: always 0; the id destroys @iw itself.
 */
static int rcm_iw_conn_handler(struct iw_cm_id *iw, struct iw_cm_event *event)
{
	struct rcm_id *id = iw->context;

	mutex_lock(&id->lock);
	if (id->state != RCM_STATE_CONNECT || id->iw != iw)
		goto out;
	switch (event->event) {
	case IW_CM_EVENT_CONNECT_REPLY:
		if (id->active && !id->answered)
			rcm_iw_connect_reply(id, event);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		if (!id->active && id->accepted && !id->established)
			rcm_iw_established(id, event);
		break;
	case IW_CM_EVENT_CLOSE:
		/* Only the first end of a connection is reported. */
		id->state = RCM_STATE_DISCONNECT;
		rcm_conn_report(id, RCM_EVENT_DISCONNECTED, event->status,
				NULL, 0, NULL);
		break;
	default:
		/* IW_CM_EVENT_DISCONNECT: the CLOSE that follows counts. */
		break;
	}
out:
	mutex_unlock(&id->lock);
	return 0;
}

/**
 * rcm_iw_connect() - send an MPA request for an active id
 * @id: an RC id routed over an iWARP port; the caller holds its command
 *      lock and its lock, which this drops while the driver connects
 * @cmd: the connect command
 * @param: the depths the command asked for, lowered to the device's
 * @pdata: the private data, @cmd->private_data_len bytes (checked)
 * @dead: set to an iw_cm id the caller destroys once it dropped the lock
 *
 * The driver may connect TCP before this returns (siw does), so it can
 * take as long as a TCP connect. As in-tree (cma_connect_iw()), whatever
 * iw_cm_connect() returns at once is the command's answer - a refusal
 * (-ECONNREFUSED) or timeout of that TCP connect too - and the id is
 * then as before: routed, free to connect again.
 *
 * Return: 0, or the errno of iw_cm_connect() (-EINVAL: no QP
 * @cmd->qp_num on the device that the calling process created; -ENOMEM:
 * more RDMA read depth than the driver takes; a TCP bind error such as
 * -EADDRINUSE; the TCP connect's -ECONNREFUSED, -ETIMEDOUT, ...).
 */
int rcm_iw_connect(struct rcm_id *id, const struct rcm_connect *cmd,
		   const struct rcm_wire_conn_param *param, const void *pdata,
		   struct iw_cm_id **dead)
{
	const struct sockaddr *src = (const struct sockaddr *)&id->bind.addr;
	const struct sockaddr *dst = (const struct sockaddr *)&id->dst_addr;
	struct iw_cm_conn_param p;
	struct iw_cm_id *iw;
	struct ib_qp *qp;
	int ret;

	lockdep_assert_held(&id->lock);
	ret = rcm_iw_conn_param(id->rdev->ibdev, cmd->qp_num, param, pdata,
				cmd->private_data_len, &p, &qp);
	if (ret)
		return ret;
	iw = iw_create_cm_id(id->rdev->ibdev, rcm_iw_conn_handler, id);
	if (IS_ERR(iw)) {
		rcm_iw_qp_put(qp);
		return PTR_ERR(iw);
	}
	memcpy(&iw->local_addr, src, rdma_addr_size(src));
	memcpy(&iw->remote_addr, dst, rdma_addr_size(dst));
	iw->tos = id->tos;
	iw->tos_set = id->tos != 0;
	/*
	 * Publish the connection first: its handler may run as soon as the
	 * request leaves. The driver may take as long as a TCP connect, so
	 * the lock is dropped meanwhile (the command lock still keeps other
	 * commands out); whoever would take @iw away waits for
	 * @id->iw_connecting instead (rcm_iw_lock_settled()).
	 */
	id->iw = iw;
	id->active = true;
	id->state = RCM_STATE_CONNECT;
	id->iw_connecting = true;
	mutex_unlock(&id->lock);
	ret = iw_cm_connect(iw, &p);
	rcm_iw_qp_put(qp);
	mutex_lock(&id->lock);
	/*
	 * The store and wake_up_var()'s look at the wait queue need a full
	 * barrier between them, or a waiter that queued itself and then
	 * saw the old value is never woken (rcm_iw_lock_settled()).
	 */
	store_release_wake_up(&id->iw_connecting, false);
	if (!ret)
		return 0;

	/* iw_cm reports nothing after a failed connect: the id is ours. */
	id->iw = NULL;
	*dead = iw;
	id->active = false;
	id->state = RCM_STATE_ROUTE_RESOLVED;
	return ret;
}

/**
 * rcm_iw_lock_settled() - lock an id once no iWARP connect is under way
 * @id: the id
 *
 * For those that take an id's iw_cm id away to destroy it (destroy,
 * device removal): iw_destroy_cm_id() must not meet an iw_cm_connect()
 * that has not yet marked the iw_cm id busy, so they wait until
 * rcm_iw_connect() has its answer from the driver. Without the command
 * lock, nothing else can start a connect once this returns.
 */
void rcm_iw_lock_settled(struct rcm_id *id)
{
	mutex_lock(&id->lock);
	while (id->iw_connecting) {
		mutex_unlock(&id->lock);
		wait_var_event(&id->iw_connecting,
			       !READ_ONCE(id->iw_connecting));
		mutex_lock(&id->lock);
	}
}

/**
 * rcm_iw_accept() - accept an MPA request with an MPA reply
 * @id: an unanswered iWARP request id; the caller holds its lock
 * @cmd: the accept command
 * @param: the depths to use, lowered to the device's and the peer's
 * @pdata: the private data, @cmd->private_data_len bytes (checked)
 *
 * The driver moves the QP to RTS and reports the connection up
 * (RCM_EVENT_ESTABLISHED) once the reply went.
 *
 * Return: 0, -EINVAL (no QP @cmd->qp_num on the device that the calling
 * process created, or the request is gone), -ECONNRESET (the peer gave
 * up), or another driver errno; the request is then still unanswered,
 * for reject or destroy.
 */
int rcm_iw_accept(struct rcm_id *id, const struct rcm_accept *cmd,
		  const struct rcm_wire_conn_param *param, const void *pdata)
{
	struct iw_cm_conn_param p;
	struct ib_qp *qp;
	int ret;

	lockdep_assert_held(&id->lock);
	ret = rcm_iw_conn_param(id->iw->device, cmd->qp_num, param, pdata,
				cmd->private_data_len, &p, &qp);
	if (ret)
		return ret;
	ret = iw_cm_accept(id->iw, &p);
	rcm_iw_qp_put(qp);
	return ret;
}

/**
 * rcm_iw_reject() - refuse an MPA request with an MPA reject
 * @id: an unanswered iWARP request id; the caller holds its lock
 * @pdata: private data for the peer
 * @len: its length (checked)
 *
 * The peer sees its connect refused (REJECTED) with the data.
 *
 * Return: 0 or the driver's errno.
 */
int rcm_iw_reject(struct rcm_id *id, const void *pdata, u8 len)
{
	lockdep_assert_held(&id->lock);
	return iw_cm_reject(id->iw, pdata, len);
}

/**
 * rcm_iw_disconnect() - close an iWARP connection gracefully
 * @id: an id whose connection was accepted, or whose connect waits for
 *      its reply; the caller holds its lock
 *
 * iw_cm moves the QP to SQD and the driver closes the stream once the
 * QP's work is done; both sides then report RCM_EVENT_DISCONNECTED.
 * iw_cm_disconnect() waits while iw_cm still handles the accept or the
 * connect, whose handlers need our lock: until the connection is up,
 * the handler that reports it (ESTABLISHED on the passive side, the
 * MPA reply on the active side) disconnects instead, as in-tree's
 * disconnect does once its wait ends.
 *
 * Return: 0.
 */
int rcm_iw_disconnect(struct rcm_id *id)
{
	lockdep_assert_held(&id->lock);
	if (!id->established) {
		id->iw_disconnect = true;
		return 0;
	}
	/* 0 also when the peer closed first or the connection is gone. */
	return iw_cm_disconnect(id->iw, 0);
}

/**
 * rcm_iw_qp_attr() - QP attributes iw_cm gives for a transition
 * @id: an id with an iWARP connection; the caller holds its lock
 * @attr: in: the state wanted; out: the attributes
 * @mask: out: which attributes are valid
 *
 * Return: 0, or -EINVAL when the connection is closing.
 */
int rcm_iw_qp_attr(struct rcm_id *id, struct ib_qp_attr *attr, int *mask)
{
	lockdep_assert_held(&id->lock);
	return iw_cm_init_qp_attr(id->iw, attr, mask);
}
