// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: event channels, i.e. open files of the rcm device.
 *
 * Every channel is its own open file: the module keeps everything an open
 * file creates private to that file, exactly as rdma_ucm does per channel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/rcm_user.h>

#include "rcm_lib.h"

/* A channel of this process found a device (inherited across fork()). */
static bool rcm_devices_seen;

/*
 * Ask the module which ABI it speaks and how many devices it manages, and
 * have the channel's records be struct rcm_event as this library knows
 * it. Every module of ABI version 2 is accepted: the record grows at its
 * end and the kernel cuts it to the size asked for, so a module's is
 * never smaller than RCM_EVENT_SIZE. Stores the record size in
 * *@event_size. Returns 0, or an errno value.
 */
static int rcm_check_abi(int fd, uint32_t *event_size)
{
	struct rcm_query q = {
		.size = sizeof(q),
		.event_size = sizeof(struct rcm_event),
	};
	int ret;

	ret = ioctl(fd, RCM_IOCTL_QUERY, &q);
	if (ret) {
		switch (errno) {
		case ENOTTY:		/* not an rcm file, or no QUERY */
		case EINVAL:		/* our size is below its minimum */
		case E2BIG:
		case EOPNOTSUPP:
			rcm_hint("%s is not an rcm device this library can talk to (ABI %u): install a module and library of one rcm version",
				 rcm_device_path(), RCM_ABI_VERSION);
			return RCM_EABI;
		default:
			return errno;
		}
	}
	if (q.out_abi_version != RCM_ABI_VERSION ||
	    q.out_event_size < RCM_EVENT_SIZE ||
	    q.out_event_size > sizeof(struct rcm_event)) {
		rcm_hint("the loaded rcm module speaks ABI %u (events of %u bytes); this library needs ABI %u with events of %u to %zu bytes: install a module and library of one rcm version",
			 q.out_abi_version, q.out_event_size, RCM_ABI_VERSION,
			 RCM_EVENT_SIZE, sizeof(struct rcm_event));
		return RCM_EABI;
	}
	*event_size = q.out_event_size;
	/*
	 * librdmacm fails with ENODEV when there is no RDMA device, but only
	 * until its first success in the process: from then on it never
	 * looks again (ucma_init() keeps its device list), so a process
	 * that made a channel makes more while a device is removed and
	 * re-added.
	 */
	if (__atomic_load_n(&rcm_devices_seen, __ATOMIC_RELAXED))
		return 0;
	if (!q.out_num_devices) {
		rcm_hint("the rcm module manages no RDMA device (none with an IB CM or iWARP port; see rdma link)");
		return ENODEV;
	}
	/*
	 * And, as ucma_init(), the first channel reads libibverbs' device
	 * list (ENODEV when it has none), so that the cost of reading it
	 * falls where librdmacm puts it and not on a first resolve.
	 */
	if (rcm_devices_init())
		return errno;
	__atomic_store_n(&rcm_devices_seen, true, __ATOMIC_RELAXED);
	return 0;
}

/* The chain link of an id in @t. */
static struct rcm_id_private **rcm_id_link(const struct rcm_id_table *t,
					   struct rcm_id_private *id)
{
	return t->by_handle ? &id->hnext_handle : &id->hnext;
}

/* What @t hashes an id by: its handle, or its address. */
static uint64_t rcm_id_key(const struct rcm_id_table *t,
			   const struct rcm_id_private *id)
{
	return t->by_handle ? id->handle : (uintptr_t)id;
}

/*
 * The bucket of @key among 1 << @bits: the top bits of the key times
 * 2^64 / phi (Fibonacci hashing), which spreads malloc'd addresses (whose
 * low bits carry no information) as evenly as dense handles.
 */
static uint32_t rcm_id_hash(uint64_t key, uint32_t bits)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

/* The chain of @t where an id with @key is, or goes. */
static struct rcm_id_private **rcm_id_table_head(const struct rcm_id_table *t,
						 uint64_t key)
{
	return &t->buckets[rcm_id_hash(key, t->bits)];
}

/* Give @t its first buckets. Returns false without the memory. */
static bool rcm_id_table_init(struct rcm_id_table *t, bool by_handle)
{
	t->buckets = calloc((size_t)1 << RCM_ID_BITS, sizeof(*t->buckets));
	t->bits = RCM_ID_BITS;
	t->count = 0;
	t->by_handle = by_handle;
	return t->buckets;
}

/*
 * Double the buckets of @t and rehash its ids into them. Without the
 * memory for them the table keeps its buckets, which stay correct.
 *
 * Bucket b splits into 2b and 2b + 1 (the hash is the key's top bits),
 * and each keeps the order of the chain it came from: newest first, as
 * rcm_id_table_add() puts them. The order matters in the handle table:
 * a destroyed id waiting for its acks stays in it while the kernel may
 * give its handle to a new id, and a lookup must find the new one.
 */
static void rcm_id_table_grow(struct rcm_id_table *t)
{
	struct rcm_id_private **buckets, **tail[2], *id;
	uint32_t bits = t->bits + 1, b, half;

	buckets = calloc((size_t)1 << bits, sizeof(*buckets));
	if (!buckets)
		return;
	for (b = 0; b < 1u << t->bits; b++) {
		tail[0] = &buckets[2 * b];
		tail[1] = &buckets[2 * b + 1];
		for (id = t->buckets[b]; id; id = *rcm_id_link(t, id)) {
			half = rcm_id_hash(rcm_id_key(t, id), bits) & 1;
			*tail[half] = id;
			tail[half] = rcm_id_link(t, id);
		}
		*tail[0] = NULL;
		*tail[1] = NULL;
	}
	free(t->buckets);
	t->buckets = buckets;
	t->bits = bits;
}

/* Put @id into @t, which grows past two ids per bucket. */
static void rcm_id_table_add(struct rcm_id_table *t, struct rcm_id_private *id)
{
	struct rcm_id_private **head = rcm_id_table_head(t, rcm_id_key(t, id));

	*rcm_id_link(t, id) = *head;
	*head = id;
	t->count++;
	if (t->count > 2u << t->bits && t->bits < RCM_ID_BITS_MAX)
		rcm_id_table_grow(t);
}

/* Take @id out of @t, if it is there. */
static void rcm_id_table_del(struct rcm_id_table *t, struct rcm_id_private *id)
{
	struct rcm_id_private **p = rcm_id_table_head(t, rcm_id_key(t, id));

	for (; *p; p = rcm_id_link(t, *p)) {
		if (*p == id) {
			*p = *rcm_id_link(t, id);
			t->count--;
			return;
		}
	}
}

/**
 * rcm_channel_open() - open the rcm device as a new channel
 *
 * Return: the channel, or NULL with errno set: ENODEV when the rcm module
 * is not loaded or manages no device, EPERM when it speaks another ABI
 * (as librdmacm), else the error of open(2) or ENOMEM.
 */
struct rcm_channel *rcm_channel_open(void)
{
	struct rcm_channel *chan;
	int fd, err;
	uint32_t event_size = RCM_EVENT_SIZE;

	fd = open(rcm_device_path(), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		/* No node, or a node without its driver: no module. */
		if (err == ENOENT || err == ENXIO || err == ENODEV) {
			rcm_hint("%s is missing: the rcm kernel module is not loaded (modprobe rcm, as root)",
				 rcm_device_path());
			err = ENODEV;
		}
		goto out;
	}

	err = rcm_check_abi(fd, &event_size);
	if (err)
		goto out_close;

	chan = calloc(1, sizeof(*chan));
	if (!chan) {
		err = ENOMEM;
		goto out_close;
	}
	if (!rcm_id_table_init(&chan->ids, false) ||
	    !rcm_id_table_init(&chan->handles, true)) {
		err = ENOMEM;
		goto out_free;
	}
	chan->ch.fd = fd;
	chan->event_size = event_size;
	chan->refs = 1;
	pthread_mutex_init(&chan->lock, NULL);
	return chan;

out_free:
	free(chan->ids.buckets);
	free(chan);
out_close:
	close(fd);
out:
	errno = err;
	return NULL;
}

/**
 * rcm_channel_get() - keep a channel's memory, for an id on it
 * @chan: the channel
 */
void rcm_channel_get(struct rcm_channel *chan)
{
	__atomic_add_fetch(&chan->refs, 1, __ATOMIC_RELAXED);
}

/**
 * rcm_channel_put() - drop a reference; the last one frees the channel
 * @chan: the channel; its lock not held
 */
void rcm_channel_put(struct rcm_channel *chan)
{
	if (__atomic_sub_fetch(&chan->refs, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_destroy(&chan->lock);
	free(chan->ids.buckets);
	free(chan->handles.buckets);
	free(chan);
}

/**
 * rcm_channel_close() - close the file; the channel goes with its last id
 * @chan: the channel
 *
 * The kernel destroys the file's ids. Ids the application did not
 * destroy keep the channel's memory (rcm_channel.refs), and their calls
 * find no file (EBADF) rather than whatever file reuses the number.
 */
void rcm_channel_close(struct rcm_channel *chan)
{
	int fd = chan->ch.fd;

	__atomic_store_n(&chan->ch.fd, -1, __ATOMIC_RELAXED);
	close(fd);
	rcm_channel_put(chan);
}

/**
 * rcm_channel_add_id_locked() - put an id into its channel's tables
 * @chan: the channel
 * @id: the id: a request id with its handle, any other with its handle
 *      or, before RCM_IOCTL_CREATE_ID returned, with none (see
 *      rcm_channel_set_handle_locked())
 *
 * A table that is full grows; when there is no memory for that, the id
 * goes into the table as it is. Caller holds chan->lock.
 */
void rcm_channel_add_id_locked(struct rcm_channel *chan, struct rcm_id_private *id)
{
	if (!id->request)
		rcm_id_table_add(&chan->ids, id);
	if (id->handle)
		rcm_id_table_add(&chan->handles, id);
}

/**
 * rcm_channel_add_id() - put a new id into its channel's tables
 * @chan: the channel
 * @id: the id, not visible to the kernel yet
 *
 * As rcm_channel_add_id_locked(), for a caller that holds neither lock.
 */
void rcm_channel_add_id(struct rcm_channel *chan, struct rcm_id_private *id)
{
	pthread_mutex_lock(&chan->lock);
	rcm_channel_add_id_locked(chan, id);
	pthread_mutex_unlock(&chan->lock);
}

/**
 * rcm_channel_del_id() - take an id out of its channel's tables
 * @chan: the channel
 * @id: the id, with the handle it was put into them with
 *
 * Caller holds chan->lock.
 */
void rcm_channel_del_id(struct rcm_channel *chan, struct rcm_id_private *id)
{
	if (!id->request)
		rcm_id_table_del(&chan->ids, id);
	if (id->handle)
		rcm_id_table_del(&chan->handles, id);
}

/**
 * rcm_channel_set_handle_locked() - give an id of a channel its handle
 * @chan: the channel, whose tables hold @id
 * @id: the id
 * @handle: the handle RCM_IOCTL_CREATE_ID returned
 *
 * Sets id->handle and files the id under it in @chan->handles. Caller
 * holds chan->lock.
 */
void rcm_channel_set_handle_locked(struct rcm_channel *chan,
				   struct rcm_id_private *id, uint32_t handle)
{
	if (id->handle)
		rcm_id_table_del(&chan->handles, id);
	id->handle = handle;
	if (handle)
		rcm_id_table_add(&chan->handles, id);
}

/**
 * rcm_channel_find_handle() - the id of a channel with a handle
 * @chan: the channel
 * @handle: the kernel's handle, in @chan's file
 *
 * Caller holds chan->lock.
 *
 * Return: the id, a request id or any other whose RCM_IOCTL_CREATE_ID
 * returned, or NULL.
 */
struct rcm_id_private *rcm_channel_find_handle(struct rcm_channel *chan,
					       uint32_t handle)
{
	struct rcm_id_private *id = *rcm_id_table_head(&chan->handles, handle);

	while (id && id->handle != handle)
		id = id->hnext_handle;
	return id;
}

/**
 * rcm_channel_find_id() - the id a record names
 * @chan: the channel that read the record
 * @context: the record's context
 * @handle: the record's id, or 0 to look by @context only
 *
 * Finds the id by its context, or by its handle when the context is 0
 * (the later events of a request id). A request id that rdma_accept()
 * gave its own address as context is found by its handle too, if the
 * context matches. The context is only compared, never dereferenced, so
 * a record naming no id of the channel is harmless. Caller holds
 * chan->lock.
 *
 * Return: the id, or NULL.
 */
struct rcm_id_private *rcm_channel_find_id(struct rcm_channel *chan,
					   uint64_t context, uint32_t handle)
{
	struct rcm_id_private *id;

	if (context) {
		id = *rcm_id_table_head(&chan->ids, context);
		while (id && (uintptr_t)id != context)
			id = id->hnext;
		if (id || !handle)
			return id;
	}
	id = rcm_channel_find_handle(chan, handle);
	if (!id || (context ? (uintptr_t)id != context : !id->request))
		return NULL;
	return id;
}

/**
 * rcm_id_channel_lock() - lock the channel an id belongs to
 * @id: the id
 *
 * For paths that reach an id through an event rather than through a
 * call on the id (an ack, an event being worked on by another thread):
 * rdma_migrate_id() may move the id meanwhile. It changes id->chan
 * holding both channels' locks, so once the lock of the channel read is
 * held, id->chan either still names it or the id has moved on and the
 * read is repeated.
 *
 * Return: the id's channel, locked.
 */
struct rcm_channel *rcm_id_channel_lock(struct rcm_id_private *id)
{
	struct rcm_channel *chan;

	for (;;) {
		chan = __atomic_load_n(&id->chan, __ATOMIC_ACQUIRE);
		pthread_mutex_lock(&chan->lock);
		if (chan == id->chan)
			return chan;
		pthread_mutex_unlock(&chan->lock);
	}
}

/**
 * rdma_create_event_channel() - open a channel that reports CM events
 *
 * Return: the channel, or NULL with errno set, see rcm_channel_open().
 */
RCM_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rcm_channel *chan = rcm_channel_open();

	return chan ? &chan->ch : NULL;
}

/**
 * rdma_destroy_event_channel() - close a channel
 * @channel: from rdma_create_event_channel(), or NULL
 *
 * The caller must have destroyed the channel's ids and acked its events.
 */
RCM_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (channel)
		rcm_channel_close(rcm_channel(channel));
}
