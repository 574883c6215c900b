// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: rdma_migrate_id(), moving an id to another channel.
 *
 * The kernel moves the id and the events read() has not returned yet to
 * the other file, and gives the id a new handle there
 * (RCM_IOCTL_MIGRATE_ID). The library reads one record per event it
 * hands out, so it holds no event of the id: they all come out of the
 * new channel in the order they happened; only an event another thread
 * was reading from the old one at that moment comes out of the old
 * one, as in librdmacm.
 */
#include <sys/ioctl.h>

#include "rcm_lib.h"

/*
 * Serialises the switch of migrations. A migration is the only path that
 * holds two channel locks (taken in address order); while it waits for a
 * record another thread is claiming on the old channel it keeps the new
 * channel's lock and retakes the old one's, whatever their order. Only
 * another migration could hold the old lock while waiting for the new
 * one, and none runs meanwhile. Never held while waiting for acks.
 */
static pthread_mutex_t rcm_migrate_mutex = PTHREAD_MUTEX_INITIALIZER;

static void rcm_lock_pair(struct rcm_channel *a, struct rcm_channel *b)
{
	struct rcm_channel *t;

	if ((uintptr_t)a > (uintptr_t)b) {
		t = a;
		a = b;
		b = t;
	}
	pthread_mutex_lock(&a->lock);
	pthread_mutex_lock(&b->lock);
}

static void rcm_unlock_pair(struct rcm_channel *a, struct rcm_channel *b)
{
	pthread_mutex_unlock(&a->lock);
	pthread_mutex_unlock(&b->lock);
}

/*
 * Move the id from @from to @to in the library, after the kernel did:
 * the tables (@to->handles files the id under its new handle), handle,
 * channel and synchronous state; the id keeps @to's memory, and the
 * caller drops its reference on @from once it unlocked it. Returns
 * whether @from was the id's private channel, to be closed. Caller
 * holds both locks.
 */
static bool rcm_migrate_switch(struct rcm_channel *from,
			       struct rcm_channel *to, struct rcm_id_private *rid,
			       uint32_t handle, bool to_sync)
{
	bool was_sync = rid->sync;

	rcm_channel_del_id(from, rid);
	rid->sync = to_sync;
	rid->handle = handle;
	rid->id.channel = &to->ch;
	rcm_channel_get(to);
	__atomic_store_n(&rid->chan, to, __ATOMIC_RELEASE);
	rcm_channel_add_id_locked(to, rid);
	return was_sync;
}

/**
 * rdma_migrate_id() - move an id to another event channel
 * @id: the id
 * @channel: the channel to report its events on from now on; NULL makes
 *           the id synchronous, with a private channel of its own
 *
 * The kernel moves the id with its unread events to @channel's file and
 * gives it a new handle there, so that every event of the id not yet
 * handed out comes from @channel. A synchronous id's held event
 * (id->event) is acked, and its old private channel closed, as librdmacm
 * does.
 *
 * Then, as in librdmacm, the call waits until the events of the id that
 * were handed out (on the old channel) are acked. It never waits for
 * the kernel, or for a reader blocked on either channel.
 *
 * A record of the id that another thread had read from the old file
 * when the kernel moved the id is handed out on the old channel, as in
 * librdmacm; the call waits for that thread to claim it and for its
 * ack. A connection request for a listener that another thread has read
 * from the old file at that moment, and not claimed yet, is rejected.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, NULL @channel for a
 * synchronous id, or @channel another synchronous id's private one),
 * ENOMEM, the errors of RCM_IOCTL_MIGRATE_ID (ENOENT, EMFILE, ...), and
 * with a NULL @channel those of rdma_create_event_channel(). The id is
 * unchanged then.
 */
RCM_EXPORT int rdma_migrate_id(struct rdma_cm_id *id,
			       struct rdma_event_channel *channel)
{
	struct rcm_migrate_id cmd = { .size = sizeof(cmd) };
	struct rcm_channel *from, *to;
	bool to_sync = !channel, was_sync, last;
	struct rcm_id_private *rid;
	uint32_t target;
	int err;

	if (!id)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	if (rid->sync && to_sync)
		return rcm_err(EINVAL);
	from = rid->chan;
	if (channel == &from->ch)
		return 0;	/* the kernel's no-op, without a call */
	was_sync = rid->sync;

	if (to_sync) {
		to = rcm_channel_open();
		if (!to)
			return -1;
		to->sync = true;
	} else {
		to = rcm_channel(channel);
	}

	pthread_mutex_lock(&rcm_migrate_mutex);
	rcm_lock_pair(from, to);
	/*
	 * Another synchronous id's private channel: its synchronous calls
	 * take every event of the channel as theirs, or keep it for a
	 * synchronous id; an asynchronous one would get neither.
	 */
	if (!to_sync && to->sync) {
		err = EINVAL;
		goto fail;
	}

	cmd.id = rid->handle;
	cmd.fd = to->ch.fd;
	if (ioctl(from->ch.fd, RCM_IOCTL_MIGRATE_ID, &cmd)) {
		err = errno;
		goto fail;
	}

	/*
	 * Records of the id that read() returned to another thread which
	 * has not claimed them yet: they come with the old handle and are
	 * only found in the old table. That thread is past read() and
	 * needs only the old channel's lock.
	 */
	while ((int32_t)(cmd.out_events_reported - rid->events_read) > 0)
		pthread_cond_wait(&rid->acked, &from->lock);

	last = rcm_migrate_switch(from, to, rid, cmd.out_id, to_sync);
	target = cmd.out_events_reported + rid->events_charged;
	rcm_unlock_pair(from, to);
	pthread_mutex_unlock(&rcm_migrate_mutex);

	if (was_sync && id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}

	/* The events handed out are acked (counters wrap). */
	pthread_mutex_lock(&to->lock);
	while ((int32_t)(target - rid->events_completed) > 0)
		pthread_cond_wait(&rid->acked, &to->lock);
	pthread_mutex_unlock(&to->lock);

	if (last)
		rcm_channel_close(from);
	rcm_channel_put(from);
	return 0;

fail:
	rcm_unlock_pair(from, to);
	pthread_mutex_unlock(&rcm_migrate_mutex);
	if (to_sync)
		rcm_channel_close(to);
	return rcm_err(err);
}
