// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: connections, rdma_connect(), rdma_accept(),
 * rdma_establish(), rdma_notify(), rdma_disconnect(), the ECE calls
 * rdma_set_local_ece() and rdma_get_remote_ece(), and what
 * rdma_get_cm_event() does with connection events (rcm_conn_event()).
 *
 * The kernel speaks the IB CM; the QP is the library's (or the
 * application's) to move, at the points librdmacm moves it:
 *
 *   active:  rdma_connect()            CONNECT (REQ)
 *            CONNECT_RESPONSE (REP)    QP to INIT, RTR, RTS; ESTABLISH
 *                                      (RTU); the application sees
 *                                      ESTABLISHED
 *   passive: CONNECT_REQUEST (REQ)     a new id
 *            rdma_accept()             QP to INIT, RTR, RTS; ACCEPT (REP)
 *            ESTABLISHED (RTU)
 *   either:  rdma_disconnect()         QP to ERR; DISCONNECT (DREQ)
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "rcm_lib.h"

/* A device limit as the 8-bit value of struct rdma_conn_param. */
static uint8_t rcm_u8(int v)
{
	return v < 0 ? 0 : v > UINT8_MAX ? UINT8_MAX : v;
}

static uint8_t rcm_min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/*
 * librdmacm's checks of a connect or accept, for RDMA_PS_TCP ids only:
 * a QP on the id or parameters, and explicit responder resources and
 * initiator depth within the device's limits.
 */
static int rcm_check_param(struct rdma_cm_id *id, const struct rcm_verbs_device *dev,
			   const struct rdma_conn_param *param)
{
	if (id->ps != RDMA_PS_TCP)
		return 0;
	if (!param)
		return id->qp ? 0 : rcm_err(EINVAL);
	if (param->responder_resources != RDMA_MAX_RESP_RES &&
	    param->responder_resources > rcm_u8(dev->max_qp_rd_atom))
		return rcm_err(EINVAL);
	if (param->initiator_depth != RDMA_MAX_INIT_DEPTH &&
	    param->initiator_depth > rcm_u8(dev->max_qp_init_rd_atom))
		return rcm_err(EINVAL);
	return 0;
}

/**
 * rcm_pdata_max() - private data a connect, accept or reject carries at most
 * @id: the id
 * @op: which of the three
 *
 * What the in-tree CM lets through: on iWARP what the u8 length carries,
 * RCM_IWARP_PRIVATE_DATA_MAX (the driver may refuse less, as in-tree);
 * on the IB CM the message's area (a SIDR REQ's or REP's on UD ids).
 */
unsigned int rcm_pdata_max(const struct rdma_cm_id *id, enum rcm_pdata_op op)
{
	static const unsigned int ib[][2] = {
		[RCM_PDATA_CONNECT] = { RCM_CONNECT_PRIVATE_DATA_MAX,
					RCM_UD_CONNECT_PRIVATE_DATA_MAX },
		[RCM_PDATA_ACCEPT] = { RCM_ACCEPT_PRIVATE_DATA_MAX,
				       RCM_UD_ACCEPT_PRIVATE_DATA_MAX },
		[RCM_PDATA_REJECT] = { RCM_REJECT_PRIVATE_DATA_MAX,
				       RCM_UD_ACCEPT_PRIVATE_DATA_MAX },
	};

	if (id->verbs &&
	    id->verbs->device->transport_type == IBV_TRANSPORT_IWARP)
		return RCM_IWARP_PRIVATE_DATA_MAX;
	return ib[op][id->qp_type == IBV_QPT_UD];
}

/* The private data length of @param: none without a pointer. */
static unsigned int rcm_pdata_len(const struct rdma_conn_param *param)
{
	return param && param->private_data ? param->private_data_len : 0;
}

/**
 * rdma_connect() - send a connection request
 * @id: an id whose route is resolved
 * @conn_param: the connection's parameters, or NULL
 *
 * Sends the request (an IB CM REQ) with librdmacm's values: responder
 * resources and initiator depth from @conn_param, or the device's
 * max_qp_rd_atom and max_qp_init_rd_atom when @conn_param is NULL or
 * says RDMA_MAX_RESP_RES/RDMA_MAX_INIT_DEPTH (the kernel lowers them to
 * the device's limits anyway); flow control, retry and RNR retry counts
 * from @conn_param, or 0, 7 and 7 (the kernel takes counts above 7 as 7,
 * as the in-tree one does). The QP number and SRQ flag come from
 * id->qp when the id has a QP, else from @conn_param. The private data
 * of an rdma_create_ep() address (ai_connect) goes in front of
 * @conn_param's, once.
 *
 * The answer arrives as an event: ESTABLISHED (with a QP: the library
 * made it so, see rcm_conn_event()), CONNECT_RESPONSE (without a QP: the
 * application readies its QP and calls rdma_establish()), REJECTED,
 * UNREACHABLE or CONNECT_ERROR. In synchronous mode the call waits for
 * it and leaves it in id->event.
 *
 * A UD id (RDMA_PS_UDP, or RDMA_PS_IB with IBV_QPT_UD) resolves the
 * peer's QP instead (a SIDR REQ, up to RCM_UD_CONNECT_PRIVATE_DATA_MAX
 * bytes of private data): the answer is ESTABLISHED with the peer's QP
 * number, Q_Key and address vector in param.ud, or UNREACHABLE with the
 * SIDR status (positive) or -ETIMEDOUT. Its QP is ready since
 * rdma_create_qp(): nothing is done with it.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, no device, an
 * RDMA_PS_TCP id with neither QP nor @conn_param, values above the
 * device's limits, more than RCM_CONNECT_PRIVATE_DATA_MAX bytes of
 * private data, RCM_UD_CONNECT_PRIVATE_DATA_MAX on UD), the errors of RCM_IOCTL_CONNECT, and in synchronous
 * mode ECONNREFUSED (REJECTED), ETIMEDOUT (UNREACHABLE) and the other
 * failures of rcm_sync_complete().
 */
RCM_EXPORT int rdma_connect(struct rdma_cm_id *id,
			    struct rdma_conn_param *conn_param)
{
	struct rcm_connect cmd = { .size = sizeof(cmd) };
	uint8_t data[RCM_IWARP_PRIVATE_DATA_MAX];	/* the largest */
	const struct rdma_conn_param *p = conn_param;
	const struct rcm_verbs_device *dev;
	unsigned int hlen, len;
	struct rcm_id_private *rid;

	if (!id)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	dev = rcm_device_of(id->verbs);
	if (!dev || rcm_check_param(id, dev, p))
		return rcm_err(EINVAL);
	hlen = rid->connect_hdr_len;
	len = rcm_pdata_len(p);
	if (hlen + len > rcm_pdata_max(id, RCM_PDATA_CONNECT))
		return rcm_err(EINVAL);
	if (hlen)
		memcpy(data, rid->connect_hdr, hlen);
	if (len)
		memcpy(data + hlen, p->private_data, len);
	len += hlen;

	cmd.id = rid->handle;
	if (p && p->responder_resources != RDMA_MAX_RESP_RES)
		cmd.responder_resources = p->responder_resources;
	else
		cmd.responder_resources = rcm_u8(dev->max_qp_rd_atom);
	if (p && p->initiator_depth != RDMA_MAX_INIT_DEPTH)
		cmd.initiator_depth = p->initiator_depth;
	else
		cmd.initiator_depth = rcm_u8(dev->max_qp_init_rd_atom);
	if (id->qp) {
		cmd.qp_num = id->qp->qp_num;
		cmd.srq = id->qp->srq != NULL;
	} else if (p) {
		cmd.qp_num = p->qp_num;
		cmd.srq = p->srq != 0;
	}
	if (p) {
		cmd.flow_control = p->flow_control != 0;
		cmd.retry_count = p->retry_count;
		cmd.rnr_retry_count = p->rnr_retry_count;
	} else {
		cmd.retry_count = 7;
		cmd.rnr_retry_count = 7;
	}
	if (len) {
		cmd.private_data_len = len;
		cmd.private_data = (uintptr_t)data;
	}
	/* The ECE rdma_set_local_ece() or the QP gave, as librdmacm. */
	cmd.ece_vendor_id = rid->local_ece.vendor_id;
	cmd.ece_attr_mod = rid->local_ece.options;
	/* Once connecting, the IB CM gives the attributes, not the route. */
	rcm_qp_attr_forget(rid);
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_CONNECT, &cmd))
		return -1;

	free(rid->connect_hdr);
	rid->connect_hdr = NULL;
	rid->connect_hdr_len = 0;
	return rid->sync ? rcm_sync_complete(rid) : 0;
}

/**
 * rdma_accept() - accept a connection request
 * @id: the id of a CONNECT_REQUEST, not answered yet
 * @conn_param: the connection's parameters, or NULL (only with a QP)
 *
 * Responder resources and initiator depth: @conn_param's as given, or,
 * when it is NULL or says RDMA_MAX_RESP_RES/RDMA_MAX_INIT_DEPTH, the
 * request's (event param.conn) capped at the device's limits, as
 * librdmacm does; the QP and the reply get the same values.
 *
 * With a QP on an RC id, one RCM_IOCTL_INIT_QP_ATTR gives the INIT, RTR
 * and RTS attributes; the QP goes to INIT again (the CM's access flags),
 * RTR (max_dest_rd_atomic: the responder resources) and RTS
 * (max_rd_atomic: the initiator depth) before the kernel sends the
 * reply (an IB CM REP) with the QP's number, the id's address as the
 * context of its later events, flow control and RNR
 * retry count from @conn_param (or 0 and 7) and the private data. If any
 * of that fails, the QP is moved to ERR.
 *
 * In synchronous mode the call waits for ESTABLISHED (the peer's RTU)
 * and leaves it in id->event; the CONNECT_REQUEST held there is acked
 * first, after the kernel copied @conn_param.
 *
 * A UD request id (a SIDR REQ) is answered with a SIDR REP carrying the
 * QP's number (or @conn_param's qp_num), the id's Q_Key and up to
 * RCM_UD_ACCEPT_PRIVATE_DATA_MAX bytes of private data; its QP is not
 * touched (it is in RTS since rdma_create_qp()) and no event follows:
 * in synchronous mode the call returns at once and the CONNECT_REQUEST
 * stays in id->event, as in librdmacm.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, not a request id or
 * one accepted already, no device, no QP and no @conn_param, values
 * above the device's limits, more than RCM_ACCEPT_PRIVATE_DATA_MAX bytes
 * of private data, RCM_UD_ACCEPT_PRIVATE_DATA_MAX on UD), the errors of the QP transitions and of
 * RCM_IOCTL_ACCEPT, and in synchronous mode those of rcm_sync_complete().
 */
RCM_EXPORT int rdma_accept(struct rdma_cm_id *id,
			   struct rdma_conn_param *conn_param)
{
	struct rcm_accept cmd = { .size = sizeof(cmd) };
	const struct rdma_conn_param *p = conn_param;
	const struct rcm_verbs_device *dev;
	uint8_t resp, init;
	struct rcm_id_private *rid;
	unsigned int len;
	int err;

	if (!id)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	dev = rcm_device_of(id->verbs);
	if (!rid->request || rid->accepted || !dev || (!id->qp && !p) ||
	    rcm_check_param(id, dev, p))
		return rcm_err(EINVAL);
	len = rcm_pdata_len(p);
	if (len > rcm_pdata_max(id, RCM_PDATA_ACCEPT))
		return rcm_err(EINVAL);

	if (!p || p->responder_resources == RDMA_MAX_RESP_RES)
		resp = rcm_min_u8(rid->req_responder_resources,
				  rcm_u8(dev->max_qp_rd_atom));
	else
		resp = p->responder_resources;
	if (!p || p->initiator_depth == RDMA_MAX_INIT_DEPTH)
		init = rcm_min_u8(rid->req_initiator_depth,
				  rcm_u8(dev->max_qp_init_rd_atom));
	else
		init = p->initiator_depth;

	if (id->qp_type != IBV_QPT_UD && rcm_qp_ready(rid, resp, init))
		goto err;
	rcm_qp_attr_forget(rid);

	cmd.id = rid->handle;
	cmd.qp_num = id->qp ? id->qp->qp_num : p->qp_num;
	cmd.context = (uintptr_t)rid;
	cmd.responder_resources = resp;
	cmd.initiator_depth = init;
	cmd.srq = id->qp ? id->qp->srq != NULL : p->srq != 0;
	if (p) {
		cmd.flow_control = p->flow_control != 0;
		cmd.rnr_retry_count = p->rnr_retry_count;
	} else {
		cmd.rnr_retry_count = 7;
	}
	if (len) {
		cmd.private_data_len = len;
		cmd.private_data = (uintptr_t)p->private_data;
	}
	/* As librdmacm: the request's vendor ID back, with our options. */
	cmd.ece_vendor_id = rid->remote_ece.vendor_id;
	cmd.ece_attr_mod = rid->local_ece.options;
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_ACCEPT, &cmd))
		goto err;
	rid->accepted = true;

	/*
	 * No event follows a SIDR reply. As in librdmacm, a synchronous
	 * id's CONNECT_REQUEST stays in id->event (the next synchronous
	 * call or rdma_destroy_id() acks it): the application may still
	 * read it.
	 */
	if (id->qp_type == IBV_QPT_UD)
		return 0;
	return rid->sync ? rcm_sync_complete(rid) : 0;

err:
	err = errno;
	rcm_qp_move(id, IBV_QPS_ERR);
	return rcm_err(err);
}

/**
 * rdma_establish() - complete a connection whose QP is the application's
 * @id: an id without a QP that reported CONNECT_RESPONSE
 *
 * Sends the RTU once the application moved its QP to RTS
 * (rdma_init_qp_attr()). No event follows; the passive side gets
 * ESTABLISHED.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, an id with a QP: the
 * library established that one already, no CONNECT_RESPONSE awaiting
 * its RTU), ENOENT.
 */
RCM_EXPORT int rdma_establish(struct rdma_cm_id *id)
{
	struct rcm_establish cmd = { .size = sizeof(cmd) };

	if (!id || id->qp)
		return rcm_err(EINVAL);
	cmd.id = rcm_id(id)->handle;
	if (ioctl(rcm_id(id)->chan->ch.fd, RCM_IOCTL_ESTABLISH, &cmd))
		return -1;
	return 0;
}

/**
 * rdma_notify() - pass a QP's asynchronous event to the CM
 * @id: the id of a connection
 * @event: the event; IBV_EVENT_COMM_EST: the QP received data first
 *
 * The kernel takes the event as the in-tree rdma_notify() does: on an
 * accepted id (passive side) whose RTU has not arrived, COMM_EST counts
 * the connection as established and ESTABLISHED follows, as if the RTU
 * had come; on IB and RoCE, IBV_EVENT_PATH_MIG moves an established
 * connection to its alternate path and other events are EINVAL; on
 * iWARP, which has no RTU, every event is 0.
 *
 * Return: 0, or -1 with errno: EISCONN (COMM_EST on a connection
 * established already, either side), EINVAL (NULL @id, no connection,
 * no accepted connection waiting for its RTU, an event the IB CM does
 * not take), ENOENT, ENXIO (device removed).
 */
RCM_EXPORT int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct rcm_notify cmd = { .size = sizeof(cmd) };

	if (!id)
		return rcm_err(EINVAL);
	cmd.id = rcm_id(id)->handle;
	/* The uapi's numbers are ibv_event_type's. */
	cmd.event = (uint32_t)event;
	if (ioctl(rcm_id(id)->chan->ch.fd, RCM_IOCTL_NOTIFY, &cmd))
		return -1;
	return 0;
}

/**
 * rdma_disconnect() - end a connection
 * @id: a request id, or an id that sent a connection request
 *
 * First moves the id's QP, as librdmacm does, to ERR on an InfiniBand or
 * RoCE device (outstanding work requests complete with flush errors) or
 * to SQD on an iWARP device; then the kernel sends the DREQ (or the DREP
 * if the peer's DREQ came first). DISCONNECTED follows on both sides, then
 * TIMEWAIT_EXIT. As with the in-tree CM, a call with nothing left to end
 * (a second one, one after the peer's DREQ or DREP, after REJECTED)
 * succeeds and sends nothing. In synchronous mode the call waits for the
 * id's next event (DISCONNECTED) and leaves it in id->event.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, no device, a transport
 * other than IB or iWARP, an id that never sent or got a connection
 * request), the error of ibv_modify_qp(), ENOENT, and in synchronous
 * mode those of rcm_sync_complete().
 */
RCM_EXPORT int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rcm_disconnect cmd = { .size = sizeof(cmd) };
	struct rcm_id_private *rid;
	int ret;

	if (!id || !id->verbs || !id->verbs->device)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	switch (id->verbs->device->transport_type) {
	case IBV_TRANSPORT_IB:
		ret = rcm_qp_move(id, IBV_QPS_ERR);
		break;
	case IBV_TRANSPORT_IWARP:
		ret = rcm_qp_move(id, IBV_QPS_SQD);
		break;
	default:
		return rcm_err(EINVAL);
	}
	if (ret)
		return -1;

	cmd.id = rid->handle;
	rcm_qp_attr_forget(rid);
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_DISCONNECT, &cmd))
		return -1;
	return rid->sync ? rcm_sync_complete(rid) : 0;
}

/**
 * rdma_set_local_ece() - set the ECE options for an external QP
 * @id: an id without a QP
 * @ece: vendor_id non-zero, comp_mask 0
 *
 * Stores the value, as librdmacm does. rcm's IB CM messages carry no ECE
 * yet, so the peer never sees it.
 *
 * Return: 0, or -1 with errno EINVAL (NULL argument, an id with a QP,
 * vendor_id 0, comp_mask not 0).
 */
RCM_EXPORT int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct rcm_id_private *rid;

	if (!id || id->qp || !ece || !ece->vendor_id || ece->comp_mask)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	rid->local_ece.vendor_id = ece->vendor_id;
	rid->local_ece.options = ece->options;
	return 0;
}

/**
 * rdma_get_remote_ece() - the peer's ECE options
 * @id: an id without a QP
 * @ece: where to store them (comp_mask 0)
 *
 * rcm's IB CM messages carry no ECE yet: the value is always zero, as
 * librdmacm reports for a peer that sent none.
 *
 * Return: 0, or -1 with errno EINVAL (NULL argument, an id with a QP).
 */
RCM_EXPORT int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	struct rcm_id_private *rid;

	if (!id || id->qp || !ece)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	ece->vendor_id = rid->remote_ece.vendor_id;
	ece->options = rid->remote_ece.options;
	ece->comp_mask = 0;
	return 0;
}

/*
 * CONNECT_RESPONSE on an id with a QP: INIT, RTR and RTS with the
 * kernel's attributes (see rcm_qp_ready()), then the RTU. If a step
 * fails, the QP goes to ERR and the application gets CONNECT_ERROR with
 * status -1, as librdmacm's ucma_process_conn_resp() gives it (the
 * return value of the failed call, errno left as that call set it); no
 * reject is sent: the peer learns of it when the id is destroyed (the
 * IB CM then rejects the reply) or its RTU wait times out. The id's
 * later REJECTED and DISCONNECTED are dropped.
 */
static void rcm_connect_response(struct rcm_id_private *id, struct rdma_cm_event *ev,
				 const struct rcm_event *rec)
{
	struct rcm_establish est = { .size = sizeof(est), .id = id->handle };
	struct ibv_ece ece = {
		.vendor_id = rec->ece_vendor_id, .options = rec->ece_attr_mod,
	};
	struct ibv_qp *qp = id->id.qp;
	struct rcm_channel *chan;
	int fd = id->chan->ch.fd, err, status = -1;

	/*
	 * The reply's ECE first, as librdmacm's ucma_process_conn_resp_ece():
	 * none takes ours without options, another vendor's fails (EINVAL),
	 * the QP gets it (a provider without ECE: EOPNOTSUPP, ignored).
	 */
	if (!ece.vendor_id) {
		ece.vendor_id = id->local_ece.vendor_id;
		ece.options = 0;
	} else if (ece.vendor_id != id->local_ece.vendor_id) {
		rcm_qp_move(&id->id, IBV_QPS_ERR);
		errno = EINVAL;
		goto fail;
	}
	id->remote_ece.vendor_id = rec->ece_vendor_id;
	err = ibv_set_ece(qp, &ece);
	if (err && err != EOPNOTSUPP) {
		status = err;	/* librdmacm's: the positive value */
		goto fail;
	}

	if (rcm_qp_ready(id, -1, -1) || ioctl(fd, RCM_IOCTL_ESTABLISH, &est)) {
		err = errno;
		rcm_qp_move(&id->id, IBV_QPS_ERR);
		errno = err;
		goto fail;
	}
	memset(&ece, 0, sizeof(ece));
	err = ibv_query_ece(qp, &ece);
	if (err && err != EOPNOTSUPP) {
		rcm_qp_move(&id->id, IBV_QPS_ERR);
		status = err;
		goto fail;
	}
	id->local_ece.options = err ? 0 : ece.options;
	ev->event = RDMA_CM_EVENT_ESTABLISHED;
	return;

fail:
	chan = rcm_id_channel_lock(id);
	id->connect_error = true;
	pthread_mutex_unlock(&chan->lock);
	ev->event = RDMA_CM_EVENT_CONNECT_ERROR;
	ev->status = status;
}

/**
 * rcm_conn_event() - what a connection event does before it is handed out
 * @id: the event's id (not a CONNECT_REQUEST's listener)
 * @ev: the event, filled from the kernel's record
 *
 * CONNECT_RESPONSE on an id with a QP completes the connection (see
 * rcm_connect_response()); without a QP it is handed out as is. REJECTED
 * moves the id's QP, if any, to ERR, as librdmacm does. DISCONNECTED
 * leaves the QP alone, as librdmacm does too: rdma_disconnect() already
 * moved it, and programs (rping among them) destroy a QP that
 * rdma_create_qp() made with ibv_destroy_qp() before the event arrives,
 * so id->qp may point to freed memory by then. The other events pass
 * unchanged.
 */
void rcm_conn_event(struct rcm_id_private *id, struct rcm_cm_event *ev,
		    const struct rcm_event *rec)
{
	switch (ev->event.event) {
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		id->answered = true;
		if (id->id.qp) {
			rcm_connect_response(id, &ev->event, rec);
		} else {
			/* For rdma_get_remote_ece(), as librdmacm. */
			id->remote_ece.vendor_id = rec->ece_vendor_id;
			id->remote_ece.options = rec->ece_attr_mod;
		}
		break;
	case RDMA_CM_EVENT_REJECTED:
		rcm_qp_move(&id->id, IBV_QPS_ERR);
		break;
	default:
		break;
	}
}
