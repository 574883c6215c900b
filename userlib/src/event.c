// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: events, rdma_get_cm_event() and rdma_ack_cm_event().
 *
 * One read() returns up to RCM_READ_BATCH records; they wait in the
 * channel's queue and are handed out one per rdma_get_cm_event(). Event
 * accounting (see struct rcm_id): the kernel counts an event as reported
 * once read() returned it; the library counts it as completed when the
 * application acks it, or when the library drops it because its id is
 * being destroyed. rdma_destroy_id() waits for the two counts to meet.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rcm_lib.h"

/*
 * A CONNECT_REQUEST: make the request's id and queue the record charged
 * to the listener. If the listener is gone or being destroyed, or there
 * is no memory for the id, destroy the kernel's request id instead (which
 * rejects the request): nobody would ever answer or destroy it.
 */
static void rcm_queue_add_request(struct rcm_channel *chan,
				  const struct rcm_event *rec)
{
	struct rcm_id *listener = NULL, *req = NULL;
	struct rcm_queued *q;

	if (rec->context)
		listener = rcm_channel_find_id(chan, rec->context, 0);
	if (listener && listener->handle == rec->listen_id &&
	    !listener->destroyed && !listener->request)
		req = rcm_request_new(chan, listener, rec->id);
	if (!req) {
		rcm_kernel_destroy_id(chan, rec->id);
		return;
	}
	listener->events_charged++;
	q = &chan->queue[chan->head + chan->count++];
	q->rec = *rec;
	q->id = listener;
	q->req = req;
	q->mc = NULL;
}

/*
 * Queue one record read from the kernel, or drop it: records of an id
 * being destroyed are completed at once, records naming no id of the
 * channel are ignored. Caller holds chan->read_lock and chan->lock.
 */
static void rcm_queue_add(struct rcm_channel *chan,
			  const struct rcm_event *rec)
{
	struct rcm_mcast *mc = NULL;
	struct rcm_id *id;
	struct rcm_queued *q;

	if (rec->event == RCM_EVENT_CONNECT_REQUEST) {
		rcm_queue_add_request(chan, rec);
		return;
	}
	if (rcm_mcast_event(rec->event)) {
		/* A group's: its context is the group, see mcast.c. */
		mc = rcm_mcast_find(chan, rec->context, rec->id);
		if (!mc)
			return;
		id = mc->id;
	} else {
		id = rcm_channel_find_id(chan, rec->context, rec->id);
		/* A handle is known once RCM_IOCTL_CREATE_ID returned. */
		if (!id || (id->handle && id->handle != rec->id))
			return;
	}
	/* For a migration waiting for this record to arrive. */
	id->events_read++;
	pthread_cond_broadcast(&id->acked);
	if (id->destroyed || (mc && mc->leaving)) {
		if (mc)
			rcm_mcast_complete_locked(mc);
		else
			rcm_id_complete_locked(id);
		return;
	}
	q = &chan->queue[chan->head + chan->count++];
	q->rec = *rec;
	q->id = id;
	q->req = NULL;
	q->mc = mc;
}

/*
 * Take the records of @id out of @rec[@head, @head + *@count), keeping
 * the order of the others; CONNECT_REQUESTs charged to @id stay. Up to
 * @max taken records are copied to @out, in order, if it is not NULL;
 * with @out, records beyond @max stay. Returns the number taken.
 */
static unsigned int rcm_records_take(struct rcm_queued *rec,
				     unsigned int head, unsigned int *count,
				     const struct rcm_id *id,
				     struct rcm_queued *out, unsigned int max)
{
	unsigned int i, end = head + *count, to = head, n = 0;

	for (i = head; i < end; i++) {
		if (rec[i].id == id && !rec[i].req && (!out || n < max)) {
			if (out)
				out[n] = rec[i];
			n++;
			continue;
		}
		if (to != i)
			rec[to] = rec[i];
		to++;
	}
	*count = to - head;
	return n;
}

/*
 * Take the records of @id out of the channel's moved batches (see
 * rcm_records_take()), freeing batches left empty. Caller holds
 * chan->lock.
 */
static unsigned int rcm_moved_take(struct rcm_channel *chan,
				   const struct rcm_id *id,
				   struct rcm_queued *out, unsigned int max)
{
	struct rcm_moved **p = &chan->moved, *m;
	unsigned int n = 0;

	while ((m = *p)) {
		n += rcm_records_take(m->rec, m->head, &m->count, id,
				      out ? out + n : NULL, max - n);
		if (m->count) {
			p = &m->next;
			continue;
		}
		*p = m->next;
		free(m);
	}
	return n;
}

/**
 * rcm_queue_drop_id() - drop the queued events of an id being destroyed
 * @chan: the id's channel
 * @id: the id
 *
 * The events were read from the kernel but never handed out, so they
 * count as completed: rdma_destroy_id() never waits for them. That
 * includes records another channel had read and rdma_migrate_id()
 * brought here. The request ids of dropped CONNECT_REQUESTs are
 * destroyed. The order of the other events is kept. Caller holds
 * chan->lock.
 */
void rcm_queue_drop_id(struct rcm_channel *chan, struct rcm_id *id)
{
	unsigned int i, end = chan->head + chan->count, to = chan->head;
	struct rcm_id *reqs[RCM_READ_BATCH];
	unsigned int nreqs = 0;

	/* Moved records are never CONNECT_REQUESTs. */
	for (i = rcm_moved_take(chan, id, NULL, 0); i; i--)
		rcm_id_complete_locked(id);

	for (i = chan->head; i < end; i++) {
		if (chan->queue[i].id == id) {
			if (chan->queue[i].req)
				reqs[nreqs++] = chan->queue[i].req;
			if (chan->queue[i].mc)
				rcm_mcast_complete_locked(chan->queue[i].mc);
			else
				rcm_id_complete_locked(id);
			continue;
		}
		if (to != i)
			chan->queue[to] = chan->queue[i];
		to++;
	}
	chan->count = to - chan->head;
	if (!chan->count)
		chan->head = 0;
	for (i = 0; i < nreqs; i++)
		rcm_request_discard(chan, reqs[i]);
}

/*
 * Take the records of group @mc out of @rec[@head, @head + *@count),
 * keeping the order of the others, and complete them. Caller holds the
 * channel's lock.
 */
static void rcm_records_drop_mcast(struct rcm_queued *rec, unsigned int head,
				   unsigned int *count, struct rcm_mcast *mc)
{
	unsigned int i, end = head + *count, to = head;

	for (i = head; i < end; i++) {
		if (rec[i].mc == mc) {
			rcm_mcast_complete_locked(mc);
			continue;
		}
		if (to != i)
			rec[to] = rec[i];
		to++;
	}
	*count = to - head;
}

/**
 * rcm_queue_drop_mcast() - drop the queued events of a group being left
 * @chan: the channel of the group's id
 * @mc: the group
 *
 * As rcm_queue_drop_id(), for one group: its records read from the
 * kernel but not handed out count as completed, for the group and the
 * id. Caller holds chan->lock.
 */
void rcm_queue_drop_mcast(struct rcm_channel *chan, struct rcm_mcast *mc)
{
	struct rcm_moved **p = &chan->moved, *m;

	while ((m = *p)) {
		rcm_records_drop_mcast(m->rec, m->head, &m->count, mc);
		if (m->count) {
			p = &m->next;
			continue;
		}
		*p = m->next;
		free(m);
	}
	rcm_records_drop_mcast(chan->queue, chan->head, &chan->count, mc);
	if (!chan->count)
		chan->head = 0;
}

/**
 * rcm_queue_count_id() - records of an id that a channel read and holds
 * @chan: the channel
 * @id: an id of the channel
 *
 * Caller holds chan->lock.
 *
 * Return: the number of records of @id queued or moved here, or -1 if
 * one of them is a CONNECT_REQUEST charged to @id (a listener's request
 * the application has not got yet).
 */
int rcm_queue_count_id(struct rcm_channel *chan, const struct rcm_id *id)
{
	unsigned int i, end = chan->head + chan->count;
	struct rcm_moved *m;
	int n = 0;

	for (m = chan->moved; m; m = m->next)
		for (i = m->head; i < m->head + m->count; i++)
			n += m->rec[i].id == id;
	for (i = chan->head; i < end; i++) {
		if (chan->queue[i].id != id)
			continue;
		if (chan->queue[i].req)
			return -1;
		n++;
	}
	return n;
}

/**
 * rcm_queue_take_id() - take an id's records out of a channel
 * @chan: the channel
 * @id: the id
 * @into: a batch with room for @max records after its last one
 * @max: the room
 *
 * Moves the records of @id that @chan read and has not handed out, from
 * its moved batches and then its queue (the order they would have been
 * handed out in), to the end of @into. CONNECT_REQUESTs charged to @id
 * stay (their request ids belong to @chan's file). Caller holds
 * chan->lock.
 *
 * Return: the number of records moved.
 */
unsigned int rcm_queue_take_id(struct rcm_channel *chan,
			       const struct rcm_id *id,
			       struct rcm_moved *into, unsigned int max)
{
	struct rcm_queued *out = into->rec + into->head + into->count;
	unsigned int n;

	n = rcm_moved_take(chan, id, out, max);
	n += rcm_records_take(chan->queue, chan->head, &chan->count, id,
			      out + n, max - n);
	if (!chan->count)
		chan->head = 0;
	into->count += n;
	return n;
}

/* Append an event made already to the channel's ready list. */
void rcm_ready_add_locked(struct rcm_channel *chan, struct rcm_cm_event *ev)
{
	struct rcm_cm_event **p;

	for (p = &chan->ready; *p; p = &(*p)->next)
		;
	ev->next = NULL;
	*p = ev;
}

/**
 * rcm_ready_take_id() - take an id's events out of a channel's ready list
 * @chan: the channel
 * @id: the id the events are charged to
 *
 * Caller holds chan->lock.
 *
 * Return: the events, oldest first, linked by next; NULL if none.
 */
struct rcm_cm_event *rcm_ready_take_id(struct rcm_channel *chan,
				       struct rcm_id *id)
{
	struct rcm_cm_event **p = &chan->ready, *ev, *taken = NULL;
	struct rcm_cm_event **tail = &taken;

	while ((ev = *p)) {
		if (ev->id != id) {
			p = &ev->next;
			continue;
		}
		*p = ev->next;
		ev->next = NULL;
		*tail = ev;
		tail = &ev->next;
	}
	return taken;
}

/*
 * ADDR_RESOLVED and ROUTE_RESOLVED carry the id's view (struct
 * rcm_id_info) in their private data; a kernel that sends none is
 * queried instead.
 */
static int rcm_event_refresh(struct rcm_id *id, const struct rcm_event *rec,
			     bool route)
{
	struct rcm_id_info info;

	if (rec->private_data_len != sizeof(info))
		return rcm_id_refresh(id, route);
	memcpy(&info, rec->private_data, sizeof(info));
	return rcm_id_apply(id, &info, route);
}

/*
 * Read one batch into the empty queue. Returns 0, or an errno value:
 * that of read(2) (EAGAIN on an O_NONBLOCK channel, EINTR), or ENODATA
 * when the kernel returned something that is not whole records.
 */
static int rcm_channel_fill(struct rcm_channel *chan)
{
	size_t rec = sizeof(chan->rbuf[0]);
	bool empty;
	ssize_t n;
	int i, err = 0;

	pthread_mutex_lock(&chan->read_lock);
	pthread_mutex_lock(&chan->lock);
	empty = !chan->count && !chan->moved;
	pthread_mutex_unlock(&chan->lock);
	if (!empty)		/* another thread filled it meanwhile */
		goto out;

	n = read(chan->ch.fd, chan->rbuf, sizeof(chan->rbuf));
	if (n < 0) {
		err = errno;
		goto out;
	}
	if (n == 0 || n % rec) {
		err = ENODATA;
		goto out;
	}
	pthread_mutex_lock(&chan->lock);
	chan->head = 0;
	for (i = 0; i < n / (ssize_t)rec; i++)
		rcm_queue_add(chan, &chan->rbuf[i]);
	pthread_mutex_unlock(&chan->lock);
out:
	pthread_mutex_unlock(&chan->read_lock);
	return err;
}

/*
 * Take the oldest record: a moved one first, else the oldest queued one,
 * reading a batch if there is none.
 */
static int rcm_channel_next(struct rcm_channel *chan, struct rcm_queued *q)
{
	struct rcm_moved *m;
	int err;

	pthread_mutex_lock(&chan->lock);
	while (!chan->count && !chan->moved) {
		pthread_mutex_unlock(&chan->lock);
		err = rcm_channel_fill(chan);
		if (err)
			return err;
		pthread_mutex_lock(&chan->lock);
	}
	m = chan->moved;
	if (m) {
		*q = m->rec[m->head++];
		if (!--m->count) {
			chan->moved = m->next;
			free(m);
		}
		pthread_mutex_unlock(&chan->lock);
		return 0;
	}
	*q = chan->queue[chan->head++];
	if (!--chan->count)
		chan->head = 0;
	pthread_mutex_unlock(&chan->lock);
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
static void rcm_event_fill(struct rcm_cm_event *ev, const struct rcm_queued *q)
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

	if (len > sizeof(ev->private_data))
		len = sizeof(ev->private_data);
	memcpy(ev->private_data, q->rec.private_data, len);
	if (id->qp_type != IBV_QPT_UD) {
		ev->event.param.conn.private_data = ev->private_data;
		ev->event.param.conn.private_data_len = len;
		rcm_event_conn(&ev->event.param.conn, &q->rec.conn);
		return;
	}
	ev->event.param.ud.private_data = ev->private_data;
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
 * Blocks while no event is pending, unless the channel's fd is
 * O_NONBLOCK. Before an ADDR_RESOLVED event is handed out, the id's
 * addresses, device and port are refreshed from the kernel; if that
 * fails, the event becomes ADDR_ERROR with a negative errno status.
 * Before a ROUTE_RESOLVED event, the same refresh also takes the path
 * into route.path_rec and route.num_paths; on failure the event becomes
 * ROUTE_ERROR with a negative errno status.
 *
 * A CONNECT_REQUEST comes with a new id for the request (made when the
 * record was read, see rcm_request_new()) in event->id, and the listener
 * in event->listen_id; the request id gets its addresses, device, port
 * and path from the kernel first, and the event param.conn the peer's
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
 * depth are kept in the request id for rdma_accept().
 *
 * Events of a UD id carry param.ud: the peer's QP number, Q_Key and
 * address vector after a SIDR exchange (ESTABLISHED), the private data
 * of a SIDR request (CONNECT_REQUEST) or reply. A group's
 * MULTICAST_JOIN attaches the id's QP to the group first (see
 * rcm_mcast_joined()); it and MULTICAST_ERROR carry the join's context
 * in param.ud.private_data, as in librdmacm.
 *
 * Events of an id that rdma_destroy_id() is destroying, or of a group
 * that rdma_leave_multicast() is leaving, are dropped.
 *
 * Events that rdma_migrate_id() brought along from the id's old channel
 * come first: those the old channel had made already (a synchronous
 * id's stash) as they are, then the records it had read.
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
	struct rcm_queued q;
	bool drop;
	int err;

	if (!channel || !event)
		return rcm_err(EINVAL);
	chan = rcm_channel(channel);

	/* Events a migration brought along, made already. */
	pthread_mutex_lock(&chan->lock);
	ev = chan->ready;
	if (ev)
		chan->ready = ev->next;
	pthread_mutex_unlock(&chan->lock);
	if (ev) {
		ev->next = NULL;
		*event = &ev->event;
		return 0;
	}

	/* Allocated first: a record taken from the queue is never lost. */
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
			drop = rcm_id_refresh(q.req, true) != 0;
			q.req->req_responder_resources =
				q.rec.conn.responder_resources;
			q.req->req_initiator_depth = q.rec.conn.initiator_depth;
		} else if (ev->event.event == RDMA_CM_EVENT_ADDR_RESOLVED &&
			   rcm_event_refresh(q.id, &q.rec, false)) {
			ev->event.event = RDMA_CM_EVENT_ADDR_ERROR;
			ev->event.status = -errno;
		} else if (ev->event.event == RDMA_CM_EVENT_ROUTE_RESOLVED &&
			   rcm_event_refresh(q.id, &q.rec, true)) {
			ev->event.event = RDMA_CM_EVENT_ROUTE_ERROR;
			ev->event.status = -errno;
		}

		/*
		 * q.id may have been migrated to another channel since the
		 * record was taken: its fields are under its channel's lock.
		 */
		if (!q.req) {
			idchan = rcm_id_lock(q.id);
			drop = q.id->destroyed ||
			       (q.mc && q.mc->leaving) ||
			       (q.id->connect_error &&
				(q.rec.event == RCM_EVENT_REJECTED ||
				 q.rec.event == RCM_EVENT_DISCONNECTED));
			pthread_mutex_unlock(&idchan->lock);
			if (!drop && q.rec.event == RCM_EVENT_MULTICAST_JOIN)
				rcm_mcast_joined(ev);
			else if (!drop)
				rcm_conn_event(q.id, ev);
		}

		/* Destroyed while we worked on it: never hand it out. */
		idchan = rcm_id_lock(q.id);
		if (!drop && !q.id->destroyed) {
			pthread_mutex_unlock(&idchan->lock);
			break;
		}
		pthread_mutex_unlock(&idchan->lock);
		/*
		 * The request first: the charge on the listener keeps it
		 * (and a synchronous listener's channel) alive until then.
		 */
		if (q.req) {
			pthread_mutex_lock(&chan->lock);
			rcm_request_discard(chan, q.req);
			pthread_mutex_unlock(&chan->lock);
		}
		idchan = rcm_id_lock(q.id);
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

	chan = rcm_id_lock(ev->id);
	if (ev->mc)
		rcm_mcast_complete_locked(ev->mc);
	else
		rcm_id_complete_locked(ev->id);
	pthread_mutex_unlock(&chan->lock);
	free(ev);
	return 0;
}
