// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: the passive side, rdma_listen(), rdma_get_request(),
 * rdma_reject() and rdma_reject_ece().
 *
 * Connection requests arrive as RDMA_CM_EVENT_CONNECT_REQUEST, each with
 * a new id (see rcm_request_new() and rdma_get_cm_event()).
 */
#include <sys/ioctl.h>

#include "rcm_lib.h"

/**
 * rdma_listen() - listen for connection requests
 * @id: a bound id, or an unbound one (the kernel binds it to the IPv4
 *      wildcard with an ephemeral port first)
 * @backlog: requests that may wait for an answer at once; 0, a negative
 *           value or one above RCM_MAX_BACKLOG means RCM_MAX_BACKLOG
 *
 * Then refreshes the id's address from the kernel, as librdmacm does, so
 * that route.addr.src_addr shows the port. Never waits for an event,
 * also in synchronous mode.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id), the errors of
 * RCM_IOCTL_LISTEN (EINVAL for a state that cannot listen, EADDRINUSE,
 * ENODEV), or those of the refresh. A UD id listens for SIDR requests.
 */
RCM_EXPORT int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rcm_listen cmd = { .size = sizeof(cmd) };
	struct rcm_id_private *rid;

	if (!id)
		return rcm_err(EINVAL);
	rid = rcm_id(id);

	cmd.id = rid->handle;
	/* As librdmacm: the kernel takes a negative value as too large. */
	cmd.backlog = (uint32_t)backlog;
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_LISTEN, &cmd))
		return -1;
	return rcm_id_refresh(rid, false);
}

/**
 * rdma_get_request() - the next connection request of a synchronous
 *                      listener
 * @listen: a listening id created with a NULL channel
 * @id: where to store the request's id
 *
 * Acks the event a previous failed call left in listen->event, then
 * waits for the next event on the listener's private channel. A
 * CONNECT_REQUEST returns its new id, with the event in (*id)->event
 * until the next call on that id or rdma_destroy_id(). Another event of
 * the listener fails the call and stays in listen->event, as in
 * librdmacm: REJECTED gives ECONNREFUSED, a non-zero status errno
 * -status, anything else EINVAL.
 *
 * Each request id is synchronous on a private channel of its own, as in
 * librdmacm: its events (ESTABLISHED, DISCONNECTED, ...) never reach the
 * listener's channel, and O_NONBLOCK on one fd leaves the others alone.
 *
 * A listener from rdma_create_ep() with QP attributes gives the request
 * id a QP (rdma_create_qp() on the listener's id->pd, or the request's
 * default PD). If that fails, the request id is destroyed, which
 * rejects the request, and the call fails with the error.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument, @listen not
 * synchronous, or see above), ECONNREFUSED, the errors of
 * rdma_get_cm_event() (EAGAIN when the private channel's fd was made
 * O_NONBLOCK) and of rdma_create_qp().
 */
RCM_EXPORT int rdma_get_request(struct rdma_cm_id *listen,
				struct rdma_cm_id **id)
{
	struct rdma_cm_event *event;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *req;
	struct rcm_id_private *rl;
	int err;

	if (!listen || !id)
		return rcm_err(EINVAL);
	rl = rcm_id(listen);
	if (!rl->sync)
		return rcm_err(EINVAL);

	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}

	if (rdma_get_cm_event(listen->channel, &event))
		return -1;

	if (event->event == RDMA_CM_EVENT_REJECTED) {
		err = ECONNREFUSED;
		goto err;
	}
	if (event->status) {
		err = -event->status;
		goto err;
	}
	if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		err = EINVAL;
		goto err;
	}

	req = event->id;
	if (rl->qp_init_attr) {
		attr = *rl->qp_init_attr;
		if (rdma_create_qp(req, listen->pd, &attr)) {
			err = errno;
			rdma_ack_cm_event(event);
			rdma_destroy_id(req);
			return rcm_err(err);
		}
	}
	*id = req;
	req->event = event;
	return 0;

err:
	listen->event = event;
	return rcm_err(err);
}

static int rcm_reject(struct rdma_cm_id *id, const void *private_data,
		      uint8_t private_data_len, uint32_t reason)
{
	struct rcm_reject cmd = { .size = sizeof(cmd) };
	struct rcm_id_private *rid;

	if (!id)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	/* As librdmacm: no data without a pointer. */
	if (!private_data)
		private_data_len = 0;
	/* A UD request is refused with a SIDR REP (status 2). */
	if (private_data_len > rcm_pdata_max(id, RCM_PDATA_REJECT))
		return rcm_err(EINVAL);

	cmd.id = rid->handle;
	cmd.reason = reason;
	cmd.private_data_len = private_data_len;
	if (private_data_len)
		cmd.private_data = (uintptr_t)private_data;
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_REJECT, &cmd))
		return -1;
	return 0;
}

/**
 * rdma_reject() - refuse a connection request
 * @id: the id of a CONNECT_REQUEST, not answered yet
 * @private_data: data for the peer, or NULL
 * @private_data_len: its length, at most RCM_REJECT_PRIVATE_DATA_MAX
 *                    (148, the IB CM REJ area)
 *
 * The peer gets REJECTED with reason 28 (consumer defined; the kernel
 * command carries 0, which means it, as librdmacm's). The id stays
 * valid: destroy it with rdma_destroy_id(). A UD request (SIDR) is
 * refused with a SIDR REP of status 2 and at most
 * RCM_UD_ACCEPT_PRIVATE_DATA_MAX (136) bytes: the peer gets UNREACHABLE
 * with status 2.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, too much private data,
 * an id that is not an unanswered request), ENOENT, EFAULT.
 */
RCM_EXPORT int rdma_reject(struct rdma_cm_id *id, const void *private_data,
			   uint8_t private_data_len)
{
	return rcm_reject(id, private_data, private_data_len, 0);
}

/**
 * rdma_reject_ece() - refuse a connection request for its ECE options
 * @id: the id of a CONNECT_REQUEST, not answered yet
 * @private_data: data for the peer, or NULL
 * @private_data_len: its length, at most RCM_REJECT_PRIVATE_DATA_MAX
 *
 * As rdma_reject(), with reason 35 (vendor option not supported).
 *
 * Return: as rdma_reject().
 */
RCM_EXPORT int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
			       uint8_t private_data_len)
{
	return rcm_reject(id, private_data, private_data_len,
			  RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED);
}
