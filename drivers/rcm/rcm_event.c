// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: the per-file event queue, read() and poll().
 *
 * An operation that will complete with an event allocates that event when
 * it starts (rcm_event_alloc()), so delivering it can never fail for lack
 * of memory: rcm never loses an event silently. Events are queued in the
 * order they happen and read() returns them oldest first, several per
 * call, whole records only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

/*
 * Event records come from their own cache: at 400 bytes a kmalloc would
 * round each up to 512, and every id attached to a device holds one (its
 * DEVICE_REMOVAL record) for its whole life. read() copies @ev, whole or
 * its first bytes, to userspace: the cache whitelists it for hardened
 * usercopy, which checks every copy whose size is not a constant. The
 * QP attribute sets of the few events that carry them, and the request
 * id's view a CONNECT_REQUEST carries, are kmallocs of their own (struct
 * rcm_uevent), held only until the event is read.
 */
static struct kmem_cache *rcm_uevent_cache;

static unsigned int max_events_per_file = 1 << 20;
module_param(max_events_per_file, uint, 0644);
MODULE_PARM_DESC(max_events_per_file,
		 "Unread events past which a file's new resolutions, connects and joins fail with ENOBUFS (default 1048576)");

/**
 * rcm_event_room() - may a command start an operation that queues an event?
 * @file: the file the event would be queued on
 *
 * Every event comes from an operation or a peer's action on one of the
 * file's ids, most of them bounded by the ids' states; only operations
 * that userspace can repeat without reading (an address resolution that
 * fails, again and again) could queue without bound. Their commands ask
 * here first. Events queued meanwhile may pass the bound by the number
 * of operations in flight, never by more.
 *
 * Return: 0, or -ENOBUFS when max_events_per_file events are unread.
 */
int rcm_event_room(struct rcm_file *file)
{
	return READ_ONCE(file->nr_events) < READ_ONCE(max_events_per_file) ?
	       0 : -ENOBUFS;
}

/**
 * rcm_event_init() - create the cache of event records, once
 *
 * Called by the module's init, and by the KUnit event suite, which the
 * kernel runs when the module is coming - before its init.
 *
 * Return: 0 or -ENOMEM.
 */
int rcm_event_init(void)
{
	if (!rcm_uevent_cache)
		rcm_uevent_cache = KMEM_CACHE_USERCOPY(rcm_uevent,
						       SLAB_ACCOUNT, ev);
	return rcm_uevent_cache ? 0 : -ENOMEM;
}

/**
 * rcm_event_exit() - destroy the cache, if it was made
 */
void rcm_event_exit(void)
{
	kmem_cache_destroy(rcm_uevent_cache);
	rcm_uevent_cache = NULL;
}

/**
 * rcm_event_free() - free an event record that is not queued
 * @uevent: the record, or NULL
 */
void rcm_event_free(struct rcm_uevent *uevent)
{
	if (!uevent)
		return;
	kfree(uevent->qp);
	kfree(uevent->info);
	kmem_cache_free(rcm_uevent_cache, uevent);
}

/**
 * rcm_event_alloc() - allocate an event record for an id
 * @id: the id the event will be about
 * @type: enum rcm_event_type
 * @gfp: allocation flags
 *
 * Charged to the id's memory cgroup, whoever allocates it.
 *
 * Return: the event, not yet queued, or NULL.
 */
struct rcm_uevent *rcm_event_alloc(struct rcm_id *id, u32 type, gfp_t gfp)
{
	struct mem_cgroup *old = rcm_charge_begin(id);
	struct rcm_uevent *uevent = kmem_cache_zalloc(rcm_uevent_cache, gfp);

	rcm_charge_end(old);
	if (!uevent)
		return NULL;
	uevent->id = id;
	uevent->ev.event = type;
	return uevent;
}

/**
 * rcm_event_set_private_data() - put the peer's private data in a record
 * @uevent: the event, not yet queued
 * @pdata: the private data
 * @len: its length (at most 255, what a u8 carries)
 *
 * RCM_EVENT_PRIVATE_DATA_MAX, the largest a u8 counts, is what every
 * record holds.
 */
void rcm_event_set_private_data(struct rcm_uevent *uevent, const void *pdata,
				u8 len)
{
	static_assert(RCM_EVENT_PRIVATE_DATA_MAX == U8_MAX);
	memcpy(uevent->ev.private_data, pdata, len);
	uevent->ev.private_data_len = len;
}

/**
 * rcm_event_queue() - make an event visible to read() and poll()
 * @file: the file of the event's id
 * @uevent: from rcm_event_alloc(); the queue owns it from now on
 *
 * The caller holds the id's lock and has checked that the id is not
 * being destroyed, so the destroy's purge runs after this and removes
 * the event if nobody read it.
 *
 * The record takes the id's handle and context as they are now (an
 * event allocated early, such as DEVICE_REMOVAL, may be queued after an
 * accept changed the context); a CONNECT_REQUEST keeps the context of
 * its listener, which its filler set, and an event of a multicast group
 * takes the group's context.
 */
void rcm_event_queue(struct rcm_file *file, struct rcm_uevent *uevent)
{
	struct rcm_id *id = uevent->id;

	lockdep_assert_held(&id->lock);
	uevent->ev.id = id->handle;
	if (uevent->mc)
		uevent->ev.context = uevent->mc->context;
	else if (uevent->ev.event != RCM_EVENT_CONNECT_REQUEST)
		uevent->ev.context = id->context;
	trace_cm_event_queued(uevent);

	spin_lock(&file->event_lock);
	list_add_tail(&uevent->list, &file->events);
	WRITE_ONCE(file->nr_events, file->nr_events + 1);
	WRITE_ONCE(id->events_queued, id->events_queued + 1);
	spin_unlock(&file->event_lock);
	wake_up_interruptible(&file->poll_wait);
}

/**
 * rcm_event_pending() - events of an id waiting in its file's queue
 * @id: the id; the caller holds its lock, so it stays in its file
 *
 * Return: how many, counted as they are queued and unlinked: a listing
 * of every id must not walk the queue once per id (a file may hold
 * both ids and events by the ten thousand).
 */
u32 rcm_event_pending(struct rcm_id *id)
{
	lockdep_assert_held(&id->lock);
	return READ_ONCE(id->events_queued);
}

/* Unlink a queued event; @file->event_lock held. */
static void rcm_event_unlink(struct rcm_file *file, struct rcm_uevent *uevent,
			     struct list_head *to)
{
	lockdep_assert_held(&file->event_lock);
	if (to)
		list_move_tail(&uevent->list, to);
	else
		list_del(&uevent->list);
	WRITE_ONCE(file->nr_events, file->nr_events - 1);
	WRITE_ONCE(uevent->id->events_queued, uevent->id->events_queued - 1);
}

/*
 * Move the queued events whose pointer member at @offset (id, mc or
 * listener) is @key to @to. @file->read_mutex held, so no read() is
 * copying one of them.
 */
static void rcm_event_take(struct rcm_file *file, size_t offset,
			   const void *key, struct list_head *to)
{
	struct rcm_uevent *uevent, *tmp;

	lockdep_assert_held(&file->read_mutex);
	spin_lock(&file->event_lock);
	list_for_each_entry_safe(uevent, tmp, &file->events, list)
		if (*(void **)((u8 *)uevent + offset) == key)
			rcm_event_unlink(file, uevent, to);
	spin_unlock(&file->event_lock);
}

static void rcm_event_free_list(struct list_head *dead)
{
	struct rcm_uevent *uevent, *tmp;

	list_for_each_entry_safe(uevent, tmp, dead, list)
		rcm_event_free(uevent);
}

/* rcm_event_take() under the read mutex, and free what it took. */
static void rcm_event_purge_key(struct rcm_file *file, size_t offset,
				const void *key)
{
	LIST_HEAD(dead);

	mutex_lock(&file->read_mutex);
	rcm_event_take(file, offset, key, &dead);
	mutex_unlock(&file->read_mutex);
	rcm_event_free_list(&dead);
}

/**
 * rcm_event_purge() - discard the queued events of one id
 * @file: the id's file
 * @id: the id, already marked as being destroyed
 *
 * Takes the read mutex, so no read() is copying one of these events
 * while it is freed.
 */
void rcm_event_purge(struct rcm_file *file, struct rcm_id *id)
{
	rcm_event_purge_key(file, offsetof(struct rcm_uevent, id), id);
}

/**
 * rcm_event_purge_mcast() - discard the queued events of one group
 * @file: the file of the group's id
 * @mc: the group, already off its id's list (so no new event of it can
 *      be queued: see struct rcm_mcast)
 *
 * Like rcm_event_purge(), under the read mutex: once this returns no
 * read() holds or can find an event pointing at @mc, so the caller may
 * free it.
 */
void rcm_event_purge_mcast(struct rcm_file *file, struct rcm_mcast *mc)
{
	rcm_event_purge_key(file, offsetof(struct rcm_uevent, mc), mc);
}

/**
 * rcm_event_readers_lock() - keep read() out of two files
 * @a: a file
 * @b: another file
 *
 * For moving events between them; taken in address order, so two moves
 * in opposite directions cannot deadlock. Nothing holds an id's lock
 * while taking a read mutex, so an id's lock may be taken inside.
 */
void rcm_event_readers_lock(struct rcm_file *a, struct rcm_file *b)
{
	if (a > b)
		swap(a, b);
	mutex_lock(&a->read_mutex);
	mutex_lock_nested(&b->read_mutex, SINGLE_DEPTH_NESTING);
}

/**
 * rcm_event_readers_unlock() - undo rcm_event_readers_lock()
 * @a: a file
 * @b: the other file
 */
void rcm_event_readers_unlock(struct rcm_file *a, struct rcm_file *b)
{
	mutex_unlock(&a->read_mutex);
	mutex_unlock(&b->read_mutex);
}

/**
 * rcm_event_take_requests() - take a dead listener's unread requests
 * @file: the listener's file
 * @listener: the listener, past its destroy's fence and its listens'
 *            end, so no new request of it can be queued
 * @claimed: where the events of the request ids this call claimed from
 *           @file go (uevent->id is the request id)
 *
 * Under the read mutex, so none of these events is being read. Every
 * unread CONNECT_REQUEST of @listener leaves the queue. Its request id
 * is claimed from @file (rcm_id_claim()): the caller destroys it, which
 * refuses the request, and frees the event. A request id that a racing
 * destroy claimed first is that destroy's; its event is freed here.
 */
void rcm_event_take_requests(struct rcm_file *file, struct rcm_id *listener,
			     struct list_head *claimed)
{
	struct rcm_uevent *uevent, *tmp;
	LIST_HEAD(taken);

	mutex_lock(&file->read_mutex);
	rcm_event_take(file, offsetof(struct rcm_uevent, listener), listener,
		       &taken);
	list_for_each_entry_safe(uevent, tmp, &taken, list) {
		if (xa_cmpxchg(&file->ids, uevent->id->handle, uevent->id,
			       NULL, GFP_KERNEL) == uevent->id) {
			list_move_tail(&uevent->list, claimed);
		} else {
			list_del(&uevent->list);
			rcm_event_free(uevent);
		}
	}
	mutex_unlock(&file->read_mutex);
}

/**
 * rcm_event_can_move() - may an id's queued events move to another file?
 * @src: the id's file
 * @id: the id; its lock held, and its file's readers kept out
 *      (rcm_event_readers_lock())
 *
 * A request id whose own CONNECT_REQUEST is unread belongs to its
 * listener's record, which stays (userspace cannot know its handle yet).
 * A listener's unread requests do not stop it: they move with it (see
 * rcm_event_requests_of()).
 *
 * Return: 0, or -EBUSY for such an unread request.
 */
int rcm_event_can_move(struct rcm_file *src, struct rcm_id *id)
{
	struct rcm_uevent *uevent;
	int ret = 0;

	lockdep_assert_held(&id->lock);
	spin_lock(&src->event_lock);
	list_for_each_entry(uevent, &src->events, list) {
		if (uevent->ev.event == RCM_EVENT_CONNECT_REQUEST &&
		    uevent->id == id) {
			ret = -EBUSY;
			break;
		}
	}
	spin_unlock(&src->event_lock);
	return ret;
}

/**
 * rcm_event_requests_of() - the request ids of a listener's unread
 *                           connection requests
 * @src: the listener's file
 * @listener: the listener; its lock held (no request of it can be
 *            queued) and @src's readers kept out (none can be read, and
 *            no destroy can purge one: the request ids stay)
 * @reqs: where to store them, in the order their requests were queued,
 *        each with a reference for the caller; or NULL to count only
 * @max: room in @reqs
 *
 * Return: how many there are (more than @max: only @max are stored).
 */
unsigned int rcm_event_requests_of(struct rcm_file *src,
				   struct rcm_id *listener,
				   struct rcm_id **reqs, unsigned int max)
{
	struct rcm_uevent *uevent;
	unsigned int n = 0;

	lockdep_assert_held(&listener->lock);
	lockdep_assert_held(&src->read_mutex);
	spin_lock(&src->event_lock);
	list_for_each_entry(uevent, &src->events, list) {
		if (uevent->ev.event != RCM_EVENT_CONNECT_REQUEST ||
		    uevent->listener != listener)
			continue;
		if (reqs && n < max) {
			refcount_inc(&uevent->id->ref);
			reqs[n] = uevent->id;
		}
		n++;
	}
	spin_unlock(&src->event_lock);
	return n;
}

/**
 * rcm_event_move() - move an id's queued events to another file
 * @src: the id's file
 * @dst: the file it moves to
 * @id: the id, as for rcm_event_can_move(), which said yes
 * @handle: the id's handle in @dst, which the moved records take
 *
 * The events keep their order and go behind those already queued in
 * @dst. Events of the id's multicast groups move with it and stay
 * attached to their groups, which belong to the id. A CONNECT_REQUEST
 * (of a request id moving with its listener) takes the listener's
 * handle, which the listener's move set already.
 */
void rcm_event_move(struct rcm_file *src, struct rcm_file *dst,
		    struct rcm_id *id, u32 handle)
{
	struct rcm_uevent *uevent, *tmp;
	LIST_HEAD(moved);
	u32 n = 0;

	lockdep_assert_held(&id->lock);
	spin_lock(&src->event_lock);
	list_for_each_entry_safe(uevent, tmp, &src->events, list) {
		if (uevent->id != id)
			continue;
		uevent->ev.id = handle;
		if (uevent->listener)
			uevent->ev.listen_id = uevent->listener->handle;
		rcm_event_unlink(src, uevent, &moved);
		n++;
	}
	spin_unlock(&src->event_lock);

	if (list_empty(&moved))
		return;
	spin_lock(&dst->event_lock);
	list_splice_tail(&moved, &dst->events);
	WRITE_ONCE(dst->nr_events, dst->nr_events + n);
	WRITE_ONCE(id->events_queued, id->events_queued + n);
	spin_unlock(&dst->event_lock);
	wake_up_interruptible(&dst->poll_wait);
}

static bool rcm_events_pending(struct rcm_file *file)
{
	bool pending;

	spin_lock(&file->event_lock);
	pending = !list_empty(&file->events);
	spin_unlock(&file->event_lock);
	return pending;
}

/**
 * rcm_read_set_size() - set the size of the records read() returns
 * @file: the rcm file
 * @size: the size the reader asks for, checked by the caller (a multiple
 *        of 8, at least RCM_EVENT_SIZE_MIN); 0 changes nothing
 *
 * A reader that knows a larger record than this module gets the
 * module's; one that knows a smaller one gets records cut to its size.
 *
 * Return: the file's record size from now on.
 */
u32 rcm_read_set_size(struct rcm_file *file, u32 size)
{
	u32 ret;

	BUILD_BUG_ON(sizeof(struct rcm_event) != RCM_EVENT_SIZE);
	BUILD_BUG_ON(offsetof(struct rcm_event, private_data) !=
		     RCM_EVENT_SIZE_MIN);
	BUILD_BUG_ON(RCM_EVENT_PRIVATE_DATA_MAX < RCM_IWARP_PRIVATE_DATA_MAX);

	mutex_lock(&file->read_mutex);
	if (size)
		file->event_size = min_t(u32, size, sizeof(struct rcm_event));
	ret = file->event_size;
	mutex_unlock(&file->read_mutex);
	return ret;
}

/*
 * Copy the bytes of one part of a record that fall in its first @rec:
 * the part's @len bytes at @off from @src, or zeros when @src is NULL.
 * Inlined, so that @len is each caller's constant: a part that fits
 * whole (every record of a reader that knows struct rcm_event) is a
 * copy of constant size, which hardened usercopy checks when the module
 * is built instead of on every copy; a record cut short (an older
 * reader's) copies what fits, checked at run time.
 */
static __always_inline int rcm_event_copy_part(char __user *buf, size_t rec,
					       size_t off, const void *src,
					       size_t len)
{
	if (rec <= off)
		return 0;
	if (!src)
		return clear_user(buf + off, min(len, rec - off)) ? -EFAULT : 0;
	if (rec - off >= len)
		return copy_to_user(buf + off, src, len) ? -EFAULT : 0;
	return copy_to_user(buf + off, src, rec - off) ? -EFAULT : 0;
}

/*
 * Copy one record of @rec bytes: the event's head, then its QP attribute
 * sets and its id's view (zeros for what it does not carry). A record
 * too short for the sets or the view says it carries none.
 */
static int rcm_event_copy(char __user *buf, const struct rcm_uevent *uevent,
			  size_t rec)
{
	struct rcm_event __user *uev = (struct rcm_event __user *)buf;
	int ret;

	/* Every record holds the two counts zeroed below. */
	static_assert(offsetofend(struct rcm_event, id_info_len) <=
		      RCM_EVENT_SIZE_MIN &&
		      offsetofend(struct rcm_event, qp_attr_valid) <=
		      RCM_EVENT_SIZE_MIN);

	ret = rcm_event_copy_part(buf, rec, 0, &uevent->ev,
				  sizeof(uevent->ev));
	if (!ret)
		ret = rcm_event_copy_part(buf, rec,
					  offsetof(struct rcm_event, qp_attr),
					  uevent->qp, sizeof(*uevent->qp));
	if (!ret)
		ret = rcm_event_copy_part(buf, rec,
					  offsetof(struct rcm_event, id_info),
					  uevent->info, sizeof(*uevent->info));
	if (!ret && uevent->qp &&
	    rec < offsetofend(struct rcm_event, qp_attr))
		ret = put_user(0, &uev->qp_attr_valid);
	if (!ret && uevent->info &&
	    rec < offsetofend(struct rcm_event, id_info))
		ret = put_user(0, &uev->id_info_len);
	return ret;
}

/*
 * Copy out as many queued events as fit in @len, each as a record of the
 * file's record size: the first bytes of the event when that is smaller
 * than struct rcm_event (as ucma_get_event() copies min(out_len,
 * sizeof(resp))). An event leaves the queue, and counts as reported for
 * its id, only once it was copied. Returns the bytes copied, -EINVAL if
 * @len is below one record, or -EFAULT if not even the first one could
 * be copied.
 */
static ssize_t rcm_read_events(struct rcm_file *file, char __user *buf,
			       size_t len)
{
	struct rcm_uevent *uevent;
	ssize_t done = 0;
	size_t rec;

	mutex_lock(&file->read_mutex);
	rec = file->event_size;
	if (len < rec)
		done = -EINVAL;
	while (done >= 0 && len - done >= rec) {
		spin_lock(&file->event_lock);
		uevent = list_first_entry_or_null(&file->events,
						  struct rcm_uevent, list);
		spin_unlock(&file->event_lock);
		if (!uevent)
			break;
		/* Only readers and purges (both under read_mutex) unlink. */
		if (rcm_event_copy(buf + done, uevent, rec)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		trace_cm_event_read(uevent);
		spin_lock(&file->event_lock);
		rcm_event_unlink(file, uevent, NULL);
		uevent->id->events_reported++;
		if (uevent->mc)
			uevent->mc->events_reported++;
		spin_unlock(&file->event_lock);
		/* As ucma: a request holds its backlog slot until read. */
		if (uevent->listener)
			rcm_listen_request_read(uevent->id);
		rcm_event_free(uevent);
		done += rec;
	}
	mutex_unlock(&file->read_mutex);
	return done;
}

ssize_t rcm_read(struct file *filp, char __user *buf, size_t len,
		 loff_t *pos)
{
	struct rcm_file *file = filp->private_data;
	ssize_t ret;

	for (;;) {
		ret = rcm_read_events(file, buf, len);
		if (ret)
			return ret;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->poll_wait,
					     rcm_events_pending(file)))
			return -ERESTARTSYS;
	}
}

__poll_t rcm_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct rcm_file *file = filp->private_data;

	poll_wait(filp, &file->poll_wait, wait);
	return rcm_events_pending(file) ? EPOLLIN | EPOLLRDNORM : 0;
}
