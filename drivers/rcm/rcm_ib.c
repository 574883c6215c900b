// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: the IB CM transport (InfiniBand and RoCE) of connected ids - the
 * REQ, REP, RTU, REJ and DREQ/DREP an RC connection exchanges through
 * ib_cm, the shared ib_cm listens of rcm's listeners, and incoming REQs
 * checked against the netdev they arrived on as the in-tree CM checks
 * them. rcm_conn.c and rcm_listen.c hold what every transport shares and
 * call here for an id on an IB CM port; rcm_iw.c is the iWARP
 * counterpart, rcm_sidr.c the IB CM's datagram service.
 *
 * One ib_cm id carries a connection, on either side: the one ib_cm made
 * for a request (handed over by rcm_ib_new_request()) or the one connect
 * creates. It lives in @id->cm_id until the id is destroyed or its
 * device goes away; both destroy it without holding @id->lock, because
 * ib_destroy_cm_id() waits for rcm_ib_conn_handler(), which takes it.
 *
 * ib_cm shares a listen between every listener of one (device, service
 * ID) only when they use the same handler and a NULL context, so all of
 * rcm's listens use rcm_ib_req_handler() and find their rcm listener from
 * the request itself: the service ID names the port, the CMA header the
 * address that was dialled, the GID the netns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <net/ip_fib.h>
#include <net/ip6_route.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include <kunit/visibility.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

/* The ib_cm service timeout of the delayed MRA: 2^24 * 4.096 us = 68 s. */
#define RCM_MRA_SERVICE_TIMEOUT 24

/**
 * rcm_ib_cm_timers() - the IB CM timers of an id's request
 * @id: the id; the caller holds its lock
 * @fixed_ms: what ib_cm adds to each try (see rcm_wire_cm_timeout())
 * @timeout: the CM response timeout exponent to use
 * @retries: max_cm_retries to use
 *
 * The in-tree rdma_cm's values, or with RCM_OPTION_ID_CONNECT_TIMEOUT
 * set, those that keep the exchange within it; a bound shorter than one
 * try gets the shortest exchange ib_cm can do.
 */
void rcm_ib_cm_timers(struct rcm_id *id, u32 fixed_ms, u8 *timeout,
		      u8 *retries)
{
	if (!id->connect_timeout_ms) {
		*timeout = RCM_CM_RESPONSE_TIMEOUT;
		*retries = RCM_MAX_CM_RETRIES;
		return;
	}
	rcm_wire_cm_timeout(id->connect_timeout_ms, fixed_ms, timeout, retries);
}

/* The peer accepted our request: CONNECT_RESPONSE with its REP. */
static void rcm_ib_rep_received(struct rcm_id *id,
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
	rcm_conn_report_ece(id, RCM_EVENT_CONNECT_RESPONSE, 0,
			    event->private_data, IB_CM_REP_PRIVATE_DATA_SIZE,
			    &conn, &rep->ece);
	/*
	 * Userspace readies its QP and sends the RTU later: as in-tree, a
	 * repeated REP is answered with an MRA, so the peer waits instead
	 * of timing out.
	 */
	if (!rcm_id_is_ud(id))
		ib_send_cm_mra(id->cm_id, IB_CM_MRA_FLAG_DELAY |
			       RCM_MRA_SERVICE_TIMEOUT, NULL, 0);
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
static int rcm_ib_conn_handler(struct ib_cm_id *cm_id,
			       const struct ib_cm_event *event)
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
			rcm_ib_rep_received(id, event);
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
static int rcm_ib_req_param(struct rcm_id *id, const struct rcm_connect *cmd,
			    const struct rcm_wire_conn_param *param,
			      const void *udata, void *pdata,
			      struct ib_cm_req_param *req)
{
	bool af_ib = id->dst_addr.sa.sa_family == AF_IB;
	u8 timeout, retries;
	int len;

	/* ib_cm waits twice the packet lifetime more on each try. */
	rcm_ib_cm_timers(id, 2 * (1U << max(id->path->packet_life_time - 8,
					    0)), &timeout, &retries);
	if (af_ib) {
		/*
		 * No CMA header: the user's bytes alone (checked to fit), but
		 * byte 0 is the CMA version whatever the user gave, as in-tree
		 * (cma_format_hdr() sets it for AF_IB too): listeners read it.
		 */
		memset(pdata, 0, IB_CM_REQ_PRIVATE_DATA_SIZE);
		memcpy(pdata, udata, cmd->private_data_len);
		*(u8 *)pdata = RCM_WIRE_CMA_VERSION;
		len = cmd->private_data_len;
	} else {
		len = rcm_wire_req_pdata_build(pdata,
					       IB_CM_REQ_PRIVATE_DATA_SIZE,
					       (enum ib_qp_type)id->qp_type,
					       (struct sockaddr *)&id->bind.addr,
					       (struct sockaddr *)&id->dst_addr,
					       udata, cmd->private_data_len);
		if (len < 0)
			return len;
	}
	memset(req, 0, sizeof(*req));
	req->primary_path = id->path;
	req->ppath_sgid_attr = id->dev_addr.sgid_attr;
	req->qp_num = cmd->qp_num;
	/* RC, UC or XRC_INI (RCM_QPT_XRC_SEND): the id's, as in-tree. */
	req->qp_type = (enum ib_qp_type)id->qp_type;
	req->starting_psn = id->seq_num;
	req->ece.vendor_id = cmd->ece_vendor_id;
	req->ece.attr_mod = cmd->ece_attr_mod;
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
	/* rdma_get_service_id(): an AF_IB destination names its own. */
	if (af_ib) {
		req->service_id = id->dst_addr.ib.sib_sid;
		return 0;
	}
	return rcm_wire_sid_compose(id->ps,
				    rcm_addr_port((struct sockaddr *)&id->dst_addr),
				    &req->service_id);
}

/**
 * rcm_ib_connect() - send the REQ of an active RC id
 * @id: an RC id routed over an IB CM port; the caller holds its lock
 * @cmd: the connect command
 * @param: the depths and retries, lowered to the device's
 * @udata: the user's private data, @cmd->private_data_len bytes
 *         (checked); the CMA header goes before it
 * @dead: set to an ib_cm id the caller destroys once it dropped the lock
 *
 * Return: 0, -EOPNOTSUPP (no path record on this port type) or the
 * errno of building or sending the REQ, the id then being as before.
 */
int rcm_ib_connect(struct rcm_id *id, const struct rcm_connect *cmd,
		   const struct rcm_wire_conn_param *param, const void *udata,
		   struct ib_cm_id **dead)
{
	/* The CMA header, then the user's bytes, as they go on the wire. */
	u8 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct ib_cm_req_param req;
	struct ib_cm_id *cm_id;
	int ret;

	lockdep_assert_held(&id->lock);
	if (!id->path)
		return -EOPNOTSUPP;	/* no route on this port type */
	id->seq_num = get_random_u32() & 0xffffff;
	ret = rcm_ib_req_param(id, cmd, param, udata, pdata, &req);
	if (ret)
		return ret;
	cm_id = ib_create_cm_id(id->rdev->ibdev, rcm_ib_conn_handler, id);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	/*
	 * Publish the connection before the REQ leaves: its handler may run
	 * as soon as it is sent, and waits for our lock.
	 */
	id->cm_id = cm_id;
	id->active = true;
	id->state = RCM_STATE_CONNECT;
	ret = ib_send_cm_req(cm_id, &req);
	if (ret) {
		/* Never sent: no handler can be running. */
		id->cm_id = NULL;
		id->active = false;
		id->state = RCM_STATE_ROUTE_RESOLVED;
		*dead = cm_id;
	}
	return ret;
}

/**
 * rcm_ib_accept() - answer a REQ with a REP
 * @id: an unanswered RC request id; the caller holds its lock
 * @cmd: the accept command
 * @param: the depths to use, lowered to the device's and the peer's
 * @pdata: the private data, @cmd->private_data_len bytes (checked)
 *
 * Return: 0 or ib_cm's errno (-EINVAL: the peer gave up meanwhile).
 */
int rcm_ib_accept(struct rcm_id *id, const struct rcm_accept *cmd,
		  const struct rcm_wire_conn_param *param, const void *pdata)
{
	struct ib_cm_rep_param rep = {
		.qp_num = cmd->qp_num,
		.starting_psn = id->seq_num,
		.private_data = pdata,
		.private_data_len = cmd->private_data_len,
		.responder_resources = param->responder_resources,
		.initiator_depth = param->initiator_depth,
		.flow_control = cmd->flow_control,
		.rnr_retry_count = param->rnr_retry_count,
		.srq = cmd->srq,
	};

	lockdep_assert_held(&id->lock);
	/* As in-tree: the ECE userspace answers with (ib_cm sends 24 bits). */
	rep.ece.vendor_id = cmd->ece_vendor_id;
	rep.ece.attr_mod = cmd->ece_attr_mod;
	return ib_send_cm_rep(id->cm_id, &rep);
}

/**
 * rcm_ib_establish() - send the RTU the peer's REP waits for
 * @id: an active id whose REP came (rcm_id_awaits_rtu()); lock held
 *
 * Return: 0 or ib_cm's errno.
 */
int rcm_ib_establish(struct rcm_id *id)
{
	int ret;

	lockdep_assert_held(&id->lock);
	ret = ib_send_cm_rtu(id->cm_id, NULL, 0);
	if (!ret)
		id->established = true;
	return ret;
}

/**
 * rcm_ib_notify() - a QP's asynchronous event, for the IB CM
 * @id: an id with an ib_cm id, not being destroyed nor without device;
 *      lock held
 * @event: the event (enum ib_event_type, from userspace: any value)
 *
 * The answers of the in-tree rdma_notify() and of ib_cm's. COMM_EST:
 * traffic came before the RTU, so the connection is up. Any other event
 * goes to ib_cm as in-tree: PATH_MIG switches an established connection
 * to its alternate path, the rest are EINVAL.
 *
 * Return: 0 (for COMM_EST ib_cm then reports IB_CM_USER_ESTABLISHED:
 * ESTABLISHED), -EISCONN (already up), -EINVAL (no accepted request of
 * an RC connection, an event ib_cm does not take), or ib_cm's errno.
 */
int rcm_ib_notify(struct rcm_id *id, u32 event)
{
	lockdep_assert_held(&id->lock);
	if (event != RCM_NOTIFY_COMM_EST)
		return ib_cm_notify(id->cm_id, (enum ib_event_type)event);
	if (id->state != RCM_STATE_CONNECT || rcm_id_is_ud(id))
		return -EINVAL;
	if (id->established)
		return -EISCONN;
	if (id->active || !id->accepted)
		return -EINVAL;
	return ib_cm_notify(id->cm_id, IB_EVENT_COMM_EST);
}

/**
 * rcm_ib_reject() - refuse a REQ, or a REP we will not answer with an RTU
 * @id: the id; the caller holds its lock
 * @reason: the REJ reason (consumer defined or vendor option)
 * @pdata: private data for the peer
 * @len: its length (checked)
 *
 * Return: 0 or ib_cm's errno.
 */
int rcm_ib_reject(struct rcm_id *id, u32 reason, const void *pdata, u8 len)
{
	lockdep_assert_held(&id->lock);
	return ib_send_cm_rej(id->cm_id, reason, NULL, 0, pdata, len);
}

/**
 * rcm_ib_disconnect() - send a DREQ, or answer the peer's with a DREP
 * @id: an id with a connection's ib_cm id; the caller holds its lock
 *
 * Nothing is sent when the connection is not up or already down. A
 * connection that is up but whose DREQ could not even be allocated is
 * one ib_cm has put in timewait without a word to the peer (as it does
 * for the in-tree CM, whose user then never hears DISCONNECTED): rcm
 * reports DISCONNECTED itself, status -ENOMEM, from a record taken
 * first, so the completion of a disconnect is never lost.
 *
 * Return: 0, or -ENOMEM when not even that record could be had (nothing
 * sent, nothing changed).
 */
int rcm_ib_disconnect(struct rcm_id *id)
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

/* Fill the CONNECT_REQUEST event of @child from the REQ. */
static void rcm_ib_req_event(struct rcm_uevent *ev, struct rcm_id *listener,
			     const struct ib_cm_event *event)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;

	ev->ev.conn.qp_num = req->remote_qpn;
	/* ib_cm already turned the peer's values into ours. */
	ev->ev.conn.responder_resources = req->responder_resources;
	ev->ev.conn.initiator_depth = req->initiator_depth;
	ev->ev.conn.flow_control = req->flow_control;
	ev->ev.conn.retry_count = req->retry_count;
	ev->ev.conn.rnr_retry_count = req->rnr_retry_count;
	ev->ev.conn.srq = req->srq;
	ev->ev.ece_vendor_id = req->ece.vendor_id;
	ev->ev.ece_attr_mod = req->ece.attr_mod;
	/* An AF_IB REQ has no CMA header: its data is the user's. */
	if (listener->bind.addr.sa.sa_family == AF_IB)
		rcm_event_set_private_data(ev, event->private_data,
					   IB_CM_REQ_PRIVATE_DATA_SIZE);
	else
		rcm_event_set_private_data(ev, (const u8 *)event->private_data +
					   RCM_WIRE_HDR_SIZE,
					   IB_CM_REQ_PRIVATE_DATA_SIZE -
					   RCM_WIRE_HDR_SIZE);
}

/*
 * Make the request id for a REQ or SIDR REQ that @listener (locked,
 * LISTEN) accepts to see, received on @port of @cm_id's device through
 * @sgid_attr, publish it in the listener's file and report it. On
 * success the request id owns @cm_id; on failure ib_cm destroys @cm_id
 * (a SIDR request is then answered with a reject).
 */
static int rcm_ib_new_request(struct rcm_id *listener,
			      struct ib_cm_id *cm_id,
				  const struct ib_cm_event *event,
				  u32 port, const struct ib_gid_attr *sgid_attr,
				  struct net_device *ndev,
				  const struct rcm_wire_req_addrs *addrs)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	struct rcm_uevent *ev;
	struct rcm_id *child;
	int ret;

	/* A full backlog: ib_cm drops the REQ (-ENOMEM); the peer retries. */
	child = rcm_request_begin(listener);
	if (IS_ERR(child))
		return PTR_ERR(child);
	memcpy(&child->bind.addr, &addrs->listen, sizeof(addrs->listen));
	memcpy(&child->dst_addr, &addrs->peer, sizeof(addrs->peer));
	ret = rcm_device_attach_at(child, cm_id->device, port, sgid_attr);
	if (ret)
		goto err_child;
	/* IPoIB's: its hardware address and broadcast, as in-tree. */
	if (ndev)
		rcm_netdev_record_ndev(child, ndev);
	if (event->event == IB_CM_REQ_RECEIVED) {
		/* The request id's route is the REQ's path, as in-tree. */
		child->path = kmemdup(req->primary_path, sizeof(*child->path),
				      GFP_KERNEL_ACCOUNT);
		if (!child->path) {
			ret = -ENOMEM;
			goto err_child;
		}
	}
	ev = rcm_request_publish(child, listener);
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		goto err_child;
	}
	child->cm_id = cm_id;
	cm_id->context = child;
	cm_id->cm_handler = rcm_ib_conn_handler;
	if (event->event == IB_CM_SIDR_REQ_RECEIVED) {
		/* ib_cm reports nothing more on a SIDR request's cm_id. */
		rcm_sidr_req_event(ev, listener, event);
		rcm_id_info_event(child, ev);
		rcm_event_queue(listener->file, ev);
		mutex_unlock(&child->lock);
		return 0;
	}
	rcm_ib_req_event(ev, listener, event);
	child->req_param.responder_resources = req->responder_resources;
	child->req_param.initiator_depth = req->initiator_depth;
	child->req_param.retry_count = req->retry_count;
	child->req_param.rnr_retry_count = req->rnr_retry_count;
	child->seq_num = get_random_u32() & 0xffffff;
	/* Once the RTR's PSN is known: the QP is readied before accept. */
	rcm_qp_event_attrs(ev, child, RCM_QP_STATES);
	rcm_id_info_event(child, ev);
	rcm_event_queue(listener->file, ev);
	/*
	 * Userspace answers later: if the peer repeats its REQ meanwhile,
	 * ib_cm answers with an MRA so it waits instead of timing out.
	 */
	ib_send_cm_mra(cm_id, IB_CM_MRA_FLAG_DELAY | RCM_MRA_SERVICE_TIMEOUT,
		       NULL, 0);
	mutex_unlock(&child->lock);
	return 0;

err_child:
	rcm_request_abort(child);
	return ret;
}

static bool rcm_ib_ip6_unicast(const struct in6_addr *a)
{
	return !ipv6_addr_any(a) &&
	       !(ipv6_addr_type(a) & (IPV6_ADDR_LOOPBACK | IPV6_ADDR_MULTICAST));
}

/**
 * rcm_ib_addrs_plausible() - may a request's CMA header carry these?
 * @addrs: the listener's address and the peer's, from the header
 *
 * The address classes the in-tree CM's validate_net_dev() refuses: a
 * peer that claims a loopback, zero, broadcast or multicast source, or
 * dials such an address, is lying about where it is.
 *
 * Return: true when both addresses may be real unicast endpoints.
 */
VISIBLE_IF_KUNIT bool
rcm_ib_addrs_plausible(const struct rcm_wire_req_addrs *addrs)
{
	if (addrs->peer.sa.sa_family == AF_INET) {
		__be32 s = addrs->peer.in.sin_addr.s_addr;
		__be32 d = addrs->listen.in.sin_addr.s_addr;

		return !ipv4_is_multicast(s) && !ipv4_is_lbcast(s) &&
		       !ipv4_is_zeronet(s) && !ipv4_is_loopback(s) &&
		       !ipv4_is_multicast(d) && !ipv4_is_lbcast(d) &&
		       !ipv4_is_zeronet(d) && !ipv4_is_loopback(d);
	}
	return rcm_ib_ip6_unicast(&addrs->peer.in6.sin6_addr) &&
	       rcm_ib_ip6_unicast(&addrs->listen.in6.sin6_addr);
}

/* Does the route from @from to @to leave through @ndev? */
static bool rcm_ib_route_via(struct net_device *ndev,
			     const union rcm_wire_addr *to,
				 const union rcm_wire_addr *from)
{
	bool ok = false;

	if (to->sa.sa_family == AF_INET) {
		struct fib_result res;
		struct flowi4 fl4 = {
			.flowi4_oif = ndev->ifindex,
			.daddr = to->in.sin_addr.s_addr,
			.saddr = from->in.sin_addr.s_addr,
		};

		rcu_read_lock();
		ok = !fib_lookup(dev_net(ndev), &fl4, &res, 0) &&
		     FIB_RES_DEV(res) == ndev;
		rcu_read_unlock();
	} else {
		const struct in6_addr *d = &to->in6.sin6_addr;
		struct rt6_info *rt;

		rt = rt6_lookup(dev_net(ndev), d, &from->in6.sin6_addr,
				ndev->ifindex, NULL,
				!(ipv6_addr_type(d) & IPV6_ADDR_LINKLOCAL));
		if (rt) {
			ok = rt->rt6i_idev && rt->rt6i_idev->dev == ndev;
			ip6_rt_put(rt);
		}
	}
	return ok;
}

/*
 * Does @ndev route between the request's addresses? The route back to
 * the peer must leave through @ndev, as the in-tree CM's
 * validate_net_dev() requires, so a peer cannot claim an address that
 * lies behind another netdev, or nowhere; and the dialled address must
 * be reached through @ndev too, so a peer cannot reach a listener of one
 * netdev (or VLAN) through another netdev of the same RDMA device.
 */
static bool rcm_ib_routes(struct net_device *ndev,
			  const struct rcm_wire_req_addrs *addrs)
{
	return rcm_ib_route_via(ndev, &addrs->peer, &addrs->listen) &&
	       rcm_ib_route_via(ndev, &addrs->listen, &addrs->peer);
}

/*
 * The namespace of @ndev, the netdev a request arrived on, with a
 * reference, once the request's addresses pass the in-tree CM's checks
 * against it: the netdev is up and routes between them. Else an
 * ERR_PTR: -EHOSTUNREACH, -ENETUNREACH.
 */
static struct net *rcm_ib_req_net_of(struct net_device *ndev,
				     const struct rcm_wire_req_addrs *addrs)
{
	struct net *net;
	int ret = 0;

	if (!(ndev->flags & IFF_UP))
		ret = -ENETUNREACH;
	else if (!rcm_ib_routes(ndev, addrs))
		ret = -EHOSTUNREACH;
	net = ret ? ERR_PTR(ret) : maybe_get_net(dev_net(ndev));
	return net ?: ERR_PTR(-EHOSTUNREACH);
}

/*
 * A RoCE request's namespace: its GID entry's netdev's, checked
 * (rcm_ib_req_net_of()), the addresses plausible first (-EINVAL).
 */
static struct net *rcm_ib_req_net(const struct ib_gid_attr *sgid_attr,
				  const struct rcm_wire_req_addrs *addrs)
{
	struct net_device *ndev;
	struct net *net;

	if (!rcm_ib_addrs_plausible(addrs))
		return ERR_PTR(-EINVAL);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return ERR_PTR(-EHOSTUNREACH);
	}
	dev_hold(ndev);
	rcu_read_unlock();
	net = rcm_ib_req_net_of(ndev, addrs);
	dev_put(ndev);
	return net;
}

/*
 * An IP request on an InfiniBand port, as cma_get_net_dev() and
 * cma_ib_acquire_dev() take it: a GID entry names no netdev there, so
 * ib_core asks its clients (ib_ipoib) for the port's netdev with the
 * request's P_Key, the REQ path's local GID (a SIDR REQ names none) and
 * the dialled address; its hardware address gives the GID entry. On
 * success the namespace is returned with a reference, *@ndev and *@held
 * are the caller's to put; else an ERR_PTR: -EINVAL (implausible
 * addresses), -ENODEV (no such netdev, or its GID not on the port), or
 * rcm_ib_req_net_of()'s.
 */
static struct net *rcm_ib_req_net_ipoib(struct ib_cm_id *cm_id,
					const struct ib_cm_event *event,
					u32 port,
					const struct rcm_wire_req_addrs *addrs,
					struct net_device **ndev,
					const struct ib_gid_attr **held)
{
	const struct sa_path_rec *path = event->param.req_rcvd.primary_path;
	const union ib_gid *gid = NULL;
	const struct ib_gid_attr *attr;
	union ib_gid hw_gid;
	struct net *net;
	u16 pkey;

	if (!rcm_ib_addrs_plausible(addrs))
		return ERR_PTR(-EINVAL);
	if (event->event == IB_CM_REQ_RECEIVED) {
		if (!path)
			return ERR_PTR(-EINVAL);
		gid = &path->sgid;
		pkey = be16_to_cpu(path->pkey);
	} else {
		pkey = event->param.sidr_req_rcvd.pkey;
	}
	*ndev = ib_get_net_dev_by_params(cm_id->device, port, pkey, gid,
					 &addrs->listen.sa);
	if (!*ndev)
		return ERR_PTR(-ENODEV);
	net = rcm_ib_req_net_of(*ndev, addrs);
	if (IS_ERR(net))
		return net;
	if (rcm_ipoib_hw_gid((*ndev)->dev_addr, (*ndev)->addr_len, &hw_gid))
		attr = ERR_PTR(-ENODEV);
	else
		attr = rdma_find_gid_by_port(cm_id->device, &hw_gid,
					     IB_GID_TYPE_IB, port, NULL);
	if (IS_ERR(attr)) {
		put_net(net);
		return ERR_CAST(attr);
	}
	*held = attr;
	return net;
}

/* rcm_ib_new_request(), charged to the listener's memory cgroup. */
static int rcm_ib_charged_request(struct rcm_id *listener,
				  struct ib_cm_id *cm_id,
				  const struct ib_cm_event *event, u32 port,
				  const struct ib_gid_attr *sgid_attr,
				  struct net_device *ndev,
				  const struct rcm_wire_req_addrs *addrs)
{
	struct mem_cgroup *old = rcm_charge_begin(listener);
	int ret;

	ret = rcm_ib_new_request(listener, cm_id, event, port, sgid_attr,
				 ndev, addrs);
	rcm_charge_end(old);
	return ret;
}

/*
 * A REQ without a CMA header is an AF_IB one (cma_ib_id_from_event():
 * version 0, no IP version, no netdev): its addresses are the path's
 * GIDs and P_Key, the listener's side with the service ID
 * (cma_save_ib_info()). Such a request is for a listener of the initial
 * namespace.
 */
static int rcm_ib_req_addrs_ib(const struct ib_cm_id *cm_id,
			       const struct ib_cm_req_event_param *req,
			       struct rcm_wire_req_addrs *addrs)
{
	const struct sa_path_rec *path = req->primary_path;
	struct sockaddr_ib *l = &addrs->listen.ib, *p = &addrs->peer.ib;

	if (!path)
		return -EINVAL;
	memset(addrs, 0, sizeof(*addrs));
	l->sib_family = AF_IB;
	l->sib_pkey = path->pkey;
	l->sib_flowinfo = path->flow_label;
	memcpy(&l->sib_addr, &path->sgid, sizeof(l->sib_addr));
	l->sib_sid = cm_id->service_id;
	l->sib_sid_mask = cpu_to_be64(~0ULL);
	p->sib_family = AF_IB;
	p->sib_pkey = path->pkey;
	p->sib_flowinfo = path->flow_label;
	memcpy(&p->sib_addr, &path->dgid, sizeof(p->sib_addr));
	return 0;
}

/*
 * The listener a REQ (or SIDR REQ) is for, referenced, or NULL with
 * *@why and the error to return set: the REQ's service ID, CMA header or
 * addresses are not rcm's, or no listener of its address and namespace
 * is there. On success *@held is the GID entry of an AF_IB or IPoIB
 * request, *@ndev the IPoIB netdev of an IP request on InfiniBand (both
 * for the caller to put, even on failure), *@sgid_attr the entry the
 * request came through.
 */
static struct rcm_id *rcm_ib_req_listener(struct ib_cm_id *cm_id,
					  const struct ib_cm_event *event,
					  u32 cm_port, size_t len,
					  const struct ib_gid_attr **sgid_attr,
					  const struct ib_gid_attr **held,
					  struct net_device **ndev,
					  struct rcm_wire_req_addrs *addrs,
					  const char **why, int *err)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	const struct ib_gid_attr *attr;
	struct rcm_id *listener;
	struct net *net;
	u16 ps, port;
	int ret;

	*why = "service-id";
	ret = rcm_wire_sid_parse(cm_id->service_id, &ps, &port);
	if (ret)
		goto err;
	*why = "header";
	ret = rcm_wire_hdr_decode(event->private_data, len, port, addrs);
	/*
	 * Only a header of version 0 without an IP version is AF_IB
	 * (cma_ib_id_from_event(): -EAFNOSUPPORT); another version refuses
	 * the request, an AF_IB one whose data starts with a non-zero byte
	 * included, as in-tree.
	 */
	if (ret == -EAFNOSUPPORT && event->event == IB_CM_REQ_RECEIVED &&
	    rdma_cap_af_ib(cm_id->device, cm_port)) {
		ret = rcm_ib_req_addrs_ib(cm_id, req, addrs);
		if (ret)
			goto err;
		/*
		 * A REQ within the subnet has no GRH, so ib_cm names no GID
		 * entry: the path's local GID is ours (cma_ib_acquire_dev()).
		 */
		*why = "gid";
		attr = rdma_find_gid_by_port(cm_id->device,
					     &req->primary_path->sgid,
					     IB_GID_TYPE_IB, cm_port, NULL);
		if (IS_ERR(attr)) {
			ret = PTR_ERR(attr);
			goto err;
		}
		*held = attr;
		*sgid_attr = attr;
		net = get_net(&init_net);
	} else if (!ret && rdma_protocol_ib(cm_id->device, cm_port)) {
		*why = "netdev";
		net = rcm_ib_req_net_ipoib(cm_id, event, cm_port, addrs, ndev,
					   held);
		if (IS_ERR(net)) {
			ret = PTR_ERR(net);
			goto err;
		}
		*sgid_attr = *held;
	} else {
		if (!ret && !*sgid_attr)
			ret = -EINVAL;
		if (ret)
			goto err;
		*why = "netdev";
		net = rcm_ib_req_net(*sgid_attr, addrs);
		if (IS_ERR(net)) {
			ret = PTR_ERR(net);
			goto err;
		}
	}
	/* Takes a reference on the listener it finds. */
	listener = rcm_ps_find_listener(ps, port, net, &addrs->listen.sa,
					cm_id->device);
	put_net(net);
	if (listener)
		return listener;
	*why = "no-listener";
	ret = -ECONNREFUSED;
err:
	*err = ret;
	return NULL;
}

/*
 * ib_cm: a REQ (or SIDR REQ) arrived on one of rcm's listens. A request
 * no id takes is traced with the reason (cm_req_refused).
 */
static int rcm_ib_req_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	const struct ib_cm_sidr_req_event_param *sidr =
		&event->param.sidr_req_rcvd;
	const struct ib_gid_attr *sgid_attr, *held = NULL;
	struct rcm_wire_req_addrs addrs;
	struct net_device *ndev = NULL;
	struct rcm_id *listener = NULL;
	const char *why = "qp-type";
	size_t len;
	u32 cm_port;
	int ret;

	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		sgid_attr = req->ppath_sgid_attr;
		cm_port = req->port;
		len = IB_CM_REQ_PRIVATE_DATA_SIZE;
		/* ib_cm reports an XRC REQ as XRC_TGT, our XRC_RECV. */
		if (req->qp_type != IB_QPT_RC && req->qp_type != IB_QPT_UC &&
		    req->qp_type != IB_QPT_XRC_TGT) {
			ret = -EINVAL;
			goto out;
		}
		break;
	case IB_CM_SIDR_REQ_RECEIVED:
		sgid_attr = sidr->sgid_attr;
		cm_port = sidr->port;
		len = IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE;
		break;
	default:
		return -EOPNOTSUPP;
	}
	listener = rcm_ib_req_listener(cm_id, event, cm_port, len, &sgid_attr,
				       &held, &ndev, &addrs, &why, &ret);
	if (!listener)
		goto out;

	mutex_lock(&listener->lock);
	why = NULL;
	if (listener->state != RCM_STATE_LISTEN) {
		why = "not-listening";
		ret = -ECONNABORTED;
	/*
	 * As in-tree (cma_check_req_qp_type()): a REQ for a listener of its
	 * QP type, a SIDR REQ for a UD one.
	 */
	} else if (rcm_id_is_ud(listener) !=
		   (event->event == IB_CM_SIDR_REQ_RECEIVED) ||
		   (event->event == IB_CM_REQ_RECEIVED &&
		    listener->qp_type != req->qp_type)) {
		why = "qp-type";
		ret = -EINVAL;
	} else {
		ret = rcm_ib_charged_request(listener, cm_id, event, cm_port,
					     sgid_attr, ndev, &addrs);
		why = ret == -ENOBUFS ? "backlog-full" : "no-request";
		/* ib_cm drops a REQ without a REJ only for -ENOMEM. */
		if (ret == -ENOBUFS)
			ret = -ENOMEM;
	}
	trace_cm_req_handler(listener, ret);
	mutex_unlock(&listener->lock);
out:
	if (ret && why)
		trace_cm_req_refused(cm_id->device, cm_port, listener, why,
				     ret);
	if (listener)
		rcm_id_put(listener);
	if (held)
		rdma_put_gid_attr(held);
	dev_put(ndev);
	return ret;
}

/**
 * rcm_ib_listen() - the shared IB CM listen of an id's service ID
 * @id: the listener; its port space and port make the service ID
 * @rdev: the device to listen on
 *
 * Return: the ib_cm listen, or an ERR_PTR: -EADDRINUSE when someone
 * else (another handler: the in-tree CM, say) listens on that service
 * ID, or ib_cm's errno.
 */
struct ib_cm_id *rcm_ib_listen(struct rcm_id *id, struct rcm_device *rdev)
{
	struct ib_cm_id *cm_id;
	__be64 sid;
	int ret = 0;

	/* An AF_IB listener's service ID is its address's (bound: whole). */
	if (id->bind.addr.sa.sa_family == AF_IB)
		sid = id->bind.addr.ib.sib_sid;
	else
		ret = rcm_wire_sid_compose(id->ps, id->port, &sid);
	if (ret)
		return ERR_PTR(ret);
	cm_id = ib_cm_insert_listen(rdev->ibdev, rcm_ib_req_handler, sid);
	/* Someone with another handler listens on that SID. */
	if (cm_id == ERR_PTR(-EINVAL))
		return ERR_PTR(-EADDRINUSE);
	return cm_id;
}
