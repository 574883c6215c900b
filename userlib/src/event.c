// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: events, rdma_get_cm_event() and rdma_ack_cm_event().
 *
 * Each rdma_get_cm_event() reads one record from the channel's fd and
 * makes the event of it, so that the fd is readable exactly while the
 * kernel holds an event, as librdmacm's is: a program that polls the
 * fd and gets one event per wake-up never leaves one behind. Event
 * accounting (see struct rcm_id_private): the kernel counts an event as
 * reported once read() returned it; the library counts it as completed
 * when the application acks it, or when the library drops it because
 * its id is being destroyed. rdma_destroy_id() waits for the two counts
 * to meet.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcm_lib.h"

/*
 * struct rcm_record - a record read from the kernel, and whose it is
 * @rec: the record
 * @id: the id it is charged to: for RCM_EVENT_CONNECT_REQUEST the
 *      listener, as in librdmacm
 * @req: for RCM_EVENT_CONNECT_REQUEST, the id the library made for the
 *       request
 * @req_private: @req is a synchronous listener's: it gets a channel of
 *               its own before it is handed out (rcm_request_private())
 * @mc: for a multicast group's events, the group (of @id)
 */
struct rcm_record {
	struct rcm_event	rec;
	struct rcm_id_private		*id;
	struct rcm_id_private		*req;
	bool			req_private;
	struct rcm_mcast_private	*mc;
};

/*
 * A CONNECT_REQUEST: make the request's id and charge the record to the
 * listener. If the listener is gone or being destroyed, or there is no
 * memory for the id, destroy the kernel's request id instead (which
 * rejects the request): nobody would ever answer or destroy it. Returns
 * whether the record is to be handed out. Caller holds chan->lock.
 */
static bool rcm_record_claim_request(struct rcm_channel *chan,
				     struct rcm_record *r)
{
	struct rcm_id_private *listener = NULL, *req = NULL;

	if (r->rec.context)
		listener = rcm_channel_find_id(chan, r->rec.context, 0);
	if (listener && listener->handle == r->rec.listen_id &&
	    !listener->destroyed && !listener->request)
		req = rcm_request_new(chan, listener, r->rec.id);
	if (!req) {
		rcm_kernel_destroy_id(chan, r->rec.id);
		return false;
	}
	listener->events_charged++;
	rcm_qp_attr_keep(req, &r->rec);
	r->id = listener;
	r->req = req;
	r->req_private = listener->sync;
	r->mc = NULL;
	return true;
}

/*
 * Find the id (and group) a record read from @chan is for, and account
 * for it. Records of an id being destroyed, or of a group being left,
 * are completed at once; records naming no id of the channel are
 * ignored. Returns whether the record is to be handed out. Caller holds
 * chan->lock.
 */
static bool rcm_record_claim(struct rcm_channel *chan, struct rcm_record *r)
{
	const struct rcm_event *rec = &r->rec;
	struct rcm_mcast_private *mc = NULL;
	struct rcm_id_private *id;

	if (rec->event == RCM_EVENT_CONNECT_REQUEST)
		return rcm_record_claim_request(chan, r);
	if (rcm_mcast_event(rec->event)) {
		/* A group's: its context is the group, see mcast.c. */
		mc = rcm_mcast_find(chan, rec->context, rec->id);
		if (!mc)
			return false;
		id = mc->id;
	} else {
		id = rcm_channel_find_id(chan, rec->context, rec->id);
		/* A handle is known once RCM_IOCTL_CREATE_ID returned. */
		if (!id || (id->handle && id->handle != rec->id))
			return false;
	}
	/* For a migration waiting for this record to be claimed. */
	id->events_read++;
	pthread_cond_broadcast(&id->acked);
	if (id->destroyed || (mc && mc->leaving)) {
		if (mc)
			rcm_mcast_complete_locked(mc);
		else
			rcm_id_complete_locked(id);
		return false;
	}
	if (!mc)
		rcm_qp_attr_keep(id, rec);
	r->id = id;
	r->req = NULL;
	r->mc = mc;
	return true;
}

/*
 * ADDR_RESOLVED, ROUTE_RESOLVED and CONNECT_REQUEST carry their id's view
 * (struct rcm_id_info): applied to @id, the route with it when @route.
 * An event without it (the kernel had no memory for it) is a query.
 */
static int rcm_event_refresh(struct rcm_id_private *id,
			     const struct rcm_event *rec, bool route)
{
	if (!rec->id_info_len)
		return rcm_id_refresh(id, route);
	return rcm_id_apply(id, &rec->id_info, route);
}

/*
 * Read the channel's next record and claim it (rcm_record_claim()),
 * until one is to be handed out. One record per read(): the others stay
 * in the kernel, so the fd stays readable while events are pending, as
 * librdmacm's does. Returns 0, or an errno value: that of read(2)
 * (EAGAIN on an O_NONBLOCK channel, EINTR), or ENODATA when the kernel
 * returned something that is not one whole record.
 */
static int rcm_channel_next(struct rcm_channel *chan, struct rcm_record *r)
{
	ssize_t n;
	bool claimed;

	do {
		n = read(chan->ch.fd, &r->rec, chan->event_size);
		if (n < 0)
			return errno;
		if (n != chan->event_size)
			return ENODATA;
		/*
		 * rcm_check_abi() takes a module whose record is shorter
		 * than this library's struct (RCM_EVENT_SIZE at least): the
		 * members past it read as zero.
		 */
		memset((char *)&r->rec + n, 0, sizeof(r->rec) - n);
		pthread_mutex_lock(&chan->lock);
		claimed = rcm_record_claim(chan, r);
		pthread_mutex_unlock(&chan->lock);
	} while (!claimed);
	return 0;
}

/**
 * rcm_ah_attr_convert() - a kernel address vector as libibverbs takes it
 * @to: the libibverbs address vector
 * @from: the kernel's (the same members under the same names, the GRH's
 *        in @to->grh), as librdmacm's ucma_convert_to_ah_attr() does
 */
void rcm_ah_attr_convert(struct ibv_ah_attr *to, const struct rcm_ah_attr *from)
{
	memset(to, 0, sizeof(*to));
	memcpy(to->grh.dgid.raw, from->dgid, sizeof(from->dgid));
	to->grh.flow_label = from->flow_label;
	to->grh.sgid_index = from->sgid_index;
	to->grh.hop_limit = from->hop_limit;
	to->grh.traffic_class = from->traffic_class;
	to->dlid = from->dlid;
	to->sl = from->sl;
	to->src_path_bits = from->src_path_bits;
	to->static_rate = from->static_rate;
	to->is_global = from->is_global;
	to->port_num = from->port_num;
}

/* The connection parameters of an RC id's event (ucma_copy_conn_event). */
static void rcm_event_conn(struct rdma_conn_param *to,
			   const struct rcm_conn_param *from)
{
	/* The kernel reports zeros where it has nothing. */
	to->responder_resources = from->responder_resources;
	to->initiator_depth = from->initiator_depth;
	to->flow_control = from->flow_control;
	to->retry_count = from->retry_count;
	to->rnr_retry_count = from->rnr_retry_count;
	to->srq = from->srq;
	to->qp_num = from->qp_num;
}

/*
 * The datagram parameters of a UD id's event (ucma_copy_ud_event): the
 * peer's or the group's QP number, Q_Key and address vector. Zero for a
 * CONNECT_REQUEST and the events that have none (UNREACHABLE).
 */
static void rcm_event_ud(struct rdma_ud_param *to,
			 const struct rcm_ud_param *from)
{
	rcm_ah_attr_convert(&to->ah_attr, &from->ah_attr);
	to->qp_num = from->qp_num;
	to->qkey = from->qkey;
}

/*
 * The event the application gets for a record: param.conn for the
 * events of RC ids, param.ud for those of UD ids, as librdmacm decides
 * by the id's QP type. A group's events carry the join's context in
 * param.ud.private_data instead of data, as librdmacm's do.
 */
static void rcm_event_fill(struct rcm_cm_event *ev,
			   const struct rcm_record *q)
{
	struct rdma_cm_id *id = q->req ? &q->req->id : &q->id->id;
	unsigned int len = q->rec.private_data_len;

	memset(ev, 0, sizeof(*ev));
	ev->id = q->id;
	ev->mc = q->mc;
	ev->event.id = id;
	ev->event.listen_id = q->req ? &q->id->id : NULL;
	ev->event.event = q->rec.event;
	ev->event.status = q->rec.status;

	memcpy(ev->private_data, q->rec.private_data, len);
	/* As librdmacm: no data is a NULL pointer, not an empty buffer. */
	if (id->qp_type != IBV_QPT_UD) {
		ev->event.param.conn.private_data = len ? ev->private_data : NULL;
		ev->event.param.conn.private_data_len = len;
		rcm_event_conn(&ev->event.param.conn, &q->rec.conn);
		return;
	}
	ev->event.param.ud.private_data = len ? ev->private_data : NULL;
	ev->event.param.ud.private_data_len = len;
	rcm_event_ud(&ev->event.param.ud, &q->rec.ud);
	if (q->mc)
		ev->event.param.ud.private_data = q->mc->context;
}

/**
 * rdma_get_cm_event() - the next event of a channel
 * @channel: the channel
 * @event: where to store the event, to be acked with rdma_ack_cm_event()
 *
 * Reads one record from the channel's fd (more records stay in the
 * kernel: the fd is readable exactly while an event is pending, as in
 * librdmacm) and blocks while there is none, unless the fd is
 * O_NONBLOCK. Before an ADDR_RESOLVED event is handed out, the id's
 * addresses, device and port are refreshed from the kernel; if that
 * fails, the event becomes ADDR_ERROR with status -1 (errno says why),
 * as librdmacm's ucma_process_addr_resolved() makes it. Before a
 * ROUTE_RESOLVED event, the same refresh also takes the path into
 * route.path_rec and route.num_paths; on failure the event becomes
 * ROUTE_ERROR with status -1.
 *
 * A CONNECT_REQUEST comes with a new id for the request (see
 * rcm_request_new()) in event->id, and the listener
 * in event->listen_id; the request id gets its addresses, device, port
 * and path from the kernel first (those the event carries, else a
 * query), and the event param.conn the peer's
 * parameters and the request's private data. A request that cannot be
 * queried, or whose listener is being destroyed, is rejected by
 * destroying its id, and skipped. Later events of the request id (such
 * as REJECTED when the peer gives up) are that id's.
 *
 * Connection events (see rcm_conn_event()): a CONNECT_RESPONSE of an id
 * with a QP readies the QP and completes the connection, and is handed
 * out as ESTABLISHED, or CONNECT_ERROR if that failed; REJECTED moves
 * the id's QP to the error state. After such a
 * CONNECT_ERROR, the id's REJECTED and DISCONNECTED are dropped, as in
 * librdmacm. The CONNECT_REQUEST's responder resources and initiator
 * depth are kept in the request id for rdma_accept(). A synchronous
 * listener's request id moves to a private channel of its own first, as
 * in librdmacm (see rcm_request_private()).
 *
 * Events of a UD id carry param.ud: the peer's QP number, Q_Key and
 * address vector after a SIDR exchange (ESTABLISHED), the private data
 * of a SIDR request (CONNECT_REQUEST) or reply. A group's
 * MULTICAST_JOIN attaches the id's QP to the group first (see
 * rcm_mcast_joined()); it and MULTICAST_ERROR carry the join's context
 * in param.ud.private_data, as in librdmacm.
 *
 * A DEVICE_REMOVAL marks the id's device gone (rcm_device_removed()),
 * whether or not it is handed out.
 *
 * Events of an id that rdma_destroy_id() is destroying, or of a group
 * that rdma_leave_multicast() is leaving, are dropped, and the next
 * record is read.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument), ENOMEM, EAGAIN
 * (O_NONBLOCK and nothing pending), EINTR, ENODATA (the kernel returned
 * a partial record), or another error of read(2).
 */
RCM_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel,
				 struct rdma_cm_event **event)
{
	struct rcm_channel *chan, *idchan;
	struct rcm_cm_event *ev;
	struct rcm_record q;
	bool drop;
	int err;

	if (!channel || !event)
		return rcm_err(EINVAL);
	chan = rcm_channel(channel);

	/* Allocated first: a record read is never lost. */
	ev = malloc(sizeof(*ev));
	if (!ev)
		return rcm_err(ENOMEM);

	for (;;) {
		err = rcm_channel_next(chan, &q);
		if (err) {
			free(ev);
			return rcm_err(err);
		}
		rcm_event_fill(ev, &q);
		drop = false;

		if (q.req) {
			/* librdmacm skips a request it cannot query. */
			drop = rcm_event_refresh(q.req, &q.rec, true) != 0 ||
			       (q.req_private && rcm_request_private(q.req));
			q.req->req_responder_resources =
				q.rec.conn.responder_resources;
			q.req->req_initiator_depth = q.rec.conn.initiator_depth;
			q.req->remote_ece.vendor_id = q.rec.ece_vendor_id;
			q.req->remote_ece.options = q.rec.ece_attr_mod;
		} else if (ev->event.event == RDMA_CM_EVENT_ADDR_RESOLVED &&
			   rcm_event_refresh(q.id, &q.rec, false)) {
			/* As librdmacm: the failed call's -1 (errno set). */
			ev->event.event = RDMA_CM_EVENT_ADDR_ERROR;
			ev->event.status = -1;
		} else if (ev->event.event == RDMA_CM_EVENT_ROUTE_RESOLVED &&
			   rcm_event_refresh(q.id, &q.rec, true)) {
			ev->event.event = RDMA_CM_EVENT_ROUTE_ERROR;
			ev->event.status = -1;
		}

		/*
		 * q.id may have been migrated to another channel since the
		 * record was taken: its fields are under its channel's lock.
		 */
		if (!q.req) {
			struct ibv_context *gone = NULL;

			idchan = rcm_id_channel_lock(q.id);
			drop = q.id->destroyed ||
			       (q.mc && q.mc->leaving) ||
			       (q.id->connect_error &&
				(q.rec.event == RCM_EVENT_REJECTED ||
				 q.rec.event == RCM_EVENT_DISCONNECTED));
			if (q.rec.event == RCM_EVENT_DEVICE_REMOVAL)
				gone = q.id->id.verbs;
			pthread_mutex_unlock(&idchan->lock);
			/* The id's reference keeps the context until then. */
			rcm_device_removed(gone);
			if (!drop && q.rec.event == RCM_EVENT_MULTICAST_JOIN)
				rcm_mcast_joined(ev);
			else if (!drop)
				rcm_conn_event(q.id, ev, &q.rec);
		}

		/* Destroyed while we worked on it: never hand it out. */
		idchan = rcm_id_channel_lock(q.id);
		if (!drop && !q.id->destroyed) {
			pthread_mutex_unlock(&idchan->lock);
			break;
		}
		pthread_mutex_unlock(&idchan->lock);
		/*
		 * The request first: the charge on the listener keeps it
		 * (and a synchronous listener's channel) alive until then.
		 */
		if (q.req)
			rcm_request_discard(q.req);
		idchan = rcm_id_channel_lock(q.id);
		if (q.mc)
			rcm_mcast_complete_locked(q.mc);
		else
			rcm_id_complete_locked(q.id);
		pthread_mutex_unlock(&idchan->lock);
	}
	*event = &ev->event;
	return 0;
}

/**
 * rdma_ack_cm_event() - release an event from rdma_get_cm_event()
 * @event: the event
 *
 * Frees the event and its private data, and lets an rdma_destroy_id()
 * waiting for it go on; a group's event also counts for the group, for
 * an rdma_leave_multicast() waiting for it.
 *
 * Return: 0, or -1 with errno EINVAL for a NULL event.
 */
RCM_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct rcm_cm_event *ev;
	struct rcm_channel *chan;

	if (!event)
		return rcm_err(EINVAL);
	ev = container_of(event, struct rcm_cm_event, event);

	chan = rcm_id_channel_lock(ev->id);
	if (ev->mc)
		rcm_mcast_complete_locked(ev->mc);
	else
		rcm_id_complete_locked(ev->id);
	pthread_mutex_unlock(&chan->lock);
	free(ev);
	return 0;
}
