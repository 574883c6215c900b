// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: the verbs device table, rdma_get_devices() and
 * rdma_free_devices(). Lifetime and locking rules: see struct rcm_verbs_device.
 */
#include <fcntl.h>
#include <stdlib.h>

#include "rcm_lib.h"

static pthread_mutex_t rcm_dev_lock = PTHREAD_MUTEX_INITIALIZER;
/* The entries, each allocated once and never freed (see struct rcm_verbs_device). */
static struct rcm_verbs_device **rcm_devs;
static int rcm_num_devs;

/*
 * The latest list from ibv_get_device_list(), kept until the next
 * re-sync: it holds the ibv_device of every device not opened yet.
 */
static struct ibv_device **rcm_dev_list;

/* The entry of @dev, or NULL. Caller holds rcm_dev_lock. */
static struct rcm_verbs_device *rcm_device_find_dev(struct ibv_device *dev)
{
	int i;

	for (i = 0; i < rcm_num_devs; i++)
		if (rcm_devs[i]->dev == dev)
			return rcm_devs[i];
	return NULL;
}

/* A new entry for @dev at the table's end. Caller holds rcm_dev_lock. */
static int rcm_device_add(struct ibv_device *dev)
{
	struct rcm_verbs_device **devs, *d;

	d = calloc(1, sizeof(*d));
	if (!d)
		return ENOMEM;
	devs = realloc(rcm_devs, (rcm_num_devs + 1) * sizeof(*devs));
	if (!devs) {
		free(d);
		return ENOMEM;
	}
	d->dev = dev;
	d->guid = ibv_get_device_guid(dev);
	d->index = ibv_get_device_index(dev);
	devs[rcm_num_devs++] = d;
	rcm_devs = devs;
	return 0;
}

static void rcm_device_close_dead(struct rcm_verbs_device *d);

/* A device that is gone: nothing matches it, and it closes when free. */
static void rcm_device_dead(struct rcm_verbs_device *d)
{
	d->dead = true;
	rcm_device_close_dead(d);
}

/*
 * Bring the table up to date with ibv_get_device_list(), as librdmacm's
 * sync_devices_list() does: a device added since the last look gets an
 * entry, one that is gone is marked dead (its entry stays for the ids
 * that still hold its context, but nothing matches it any more) and
 * closed once nobody holds it. An empty list makes every device dead,
 * where librdmacm keeps its table as it was: the removal of a
 * process's last device then completes once the process lets go of it.
 * Caller holds rcm_dev_lock. Returns 0 or an errno value: ENODEV when
 * libibverbs lists no device, ENOMEM (the table is then left as it was,
 * but for the entries already added).
 */
static int rcm_devices_sync(void)
{
	struct ibv_device **list;
	int i, n = 0, err = 0;

	list = ibv_get_device_list(&n);
	if (!list || n <= 0) {
		if (list) {
			ibv_free_device_list(list);
			for (i = 0; i < rcm_num_devs; i++)
				rcm_device_dead(rcm_devs[i]);
		}
		return ENODEV;
	}
	for (i = 0; i < n && !err; i++)
		if (!rcm_device_find_dev(list[i]))
			err = rcm_device_add(list[i]);
	if (err) {
		ibv_free_device_list(list);
		return err;
	}
	for (i = 0; i < rcm_num_devs; i++) {
		struct ibv_device **p;

		for (p = list; *p && *p != rcm_devs[i]->dev; p++)
			;
		if (!*p)
			rcm_device_dead(rcm_devs[i]);
	}
	/*
	 * A device in both lists is the same ibv_device, which the new list
	 * holds now; an opened one is held by its context.
	 */
	if (rcm_dev_list)
		ibv_free_device_list(rcm_dev_list);
	rcm_dev_list = list;
	return 0;
}

/**
 * rcm_devices_init() - fill the device table on first use
 *
 * A call that finds no device leaves the table empty, so that a later
 * call looks again (a device may be added after the process started).
 * Later changes are picked up by rcm_device_get() and rdma_get_devices().
 *
 * Return: 0, or -1 with errno ENODEV (no device) or ENOMEM.
 */
int rcm_devices_init(void)
{
	int err = 0;

	pthread_mutex_lock(&rcm_dev_lock);
	if (!rcm_num_devs)
		err = rcm_devices_sync();
	pthread_mutex_unlock(&rcm_dev_lock);
	return err ? rcm_err(err) : 0;
}

/* Open the device and cache its limits. Caller holds rcm_dev_lock. */
static int rcm_device_open(struct rcm_verbs_device *d)
{
	struct ibv_device_attr attr;
	struct ibv_context *verbs;
	int ret;

	if (d->verbs)
		return 0;

	verbs = ibv_open_device(d->dev);
	if (!verbs)
		return -1;
	ret = ibv_query_device(verbs, &attr);
	if (ret) {
		ibv_close_device(verbs);
		return rcm_err(ret);
	}
	d->port_cnt = attr.phys_port_cnt;
	d->max_qp_wr = attr.max_qp_wr;
	d->max_qp_rd_atom = attr.max_qp_rd_atom;
	d->max_qp_init_rd_atom = attr.max_qp_init_rd_atom;
	d->verbs = verbs;
	return 0;
}

/*
 * Close a device that is gone and that nobody holds any more, as
 * librdmacm's remove_cma_dev(): a driver that cannot disassociate its
 * user contexts (Soft-RoCE) finishes removing the device only once every
 * context of it is closed. The entry stays (entries never move), dead
 * and unopened. Caller holds rcm_dev_lock.
 */
static void rcm_device_close_dead(struct rcm_verbs_device *d)
{
	if (!d->dead || d->refcnt || !d->verbs)
		return;
	ibv_close_device(d->verbs);
	d->verbs = NULL;
}

/*
 * Drop one reference; the last one frees the default PD and closes a
 * device that is gone. Caller holds rcm_dev_lock.
 */
static void rcm_device_unref(struct rcm_verbs_device *d)
{
	if (!d->refcnt || --d->refcnt)
		return;
	if (d->xrcd) {
		ibv_close_xrcd(d->xrcd);
		d->xrcd = NULL;
	}
	if (d->pd) {
		ibv_dealloc_pd(d->pd);
		d->pd = NULL;
	}
	rcm_device_close_dead(d);
}

/**
 * rcm_device_xrcd() - the device's default XRC domain
 * @verbs: a context the caller holds a reference on (an id's verbs)
 *
 * Opened on first use, as librdmacm's ucma_get_xrcd() opens it (no file,
 * O_CREAT), and closed with the default PD when the device's last
 * reference goes.
 *
 * Return: the domain, or NULL with errno of ibv_open_xrcd() (EINVAL for
 * a context that is not the library's).
 */
struct ibv_xrcd *rcm_device_xrcd(struct ibv_context *verbs)
{
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct rcm_verbs_device *d = rcm_device_of(verbs);
	struct ibv_xrcd *xrcd;

	if (!d) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&rcm_dev_lock);
	if (!d->xrcd) {
		errno = 0;
		d->xrcd = ibv_open_xrcd(verbs, &attr);
		if (!d->xrcd && !errno)
			errno = EOPNOTSUPP;
	}
	xrcd = d->xrcd;
	pthread_mutex_unlock(&rcm_dev_lock);
	return xrcd;
}

/**
 * rdma_get_devices() - list the RDMA devices, opened
 * @num_devices: where to store the number of entries, or NULL
 *
 * Re-reads libibverbs' device list first, as librdmacm does, so that a
 * device added since the last call is listed and one removed is not.
 * Opens every device not open yet. A device that cannot be opened (e.g.
 * its uverbs node is not accessible) is left out instead of failing the
 * call. The contexts are the library's own: they are shared with the ids
 * and stay open after rdma_free_devices().
 *
 * Return: a NULL-terminated array for rdma_free_devices(), or NULL with
 * errno ENODEV (no device could be opened) or ENOMEM, and *@num_devices
 * set to 0.
 */
RCM_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	int i, n = 0, err;

	pthread_mutex_lock(&rcm_dev_lock);
	err = rcm_devices_sync();
	if (err) {
		pthread_mutex_unlock(&rcm_dev_lock);
		goto err;
	}
	list = calloc(rcm_num_devs + 1, sizeof(*list));
	if (!list) {
		pthread_mutex_unlock(&rcm_dev_lock);
		err = ENOMEM;
		goto err;
	}
	for (i = 0; i < rcm_num_devs; i++) {
		if (rcm_devs[i]->dead || rcm_device_open(rcm_devs[i]))
			continue;
		rcm_devs[i]->refcnt++;
		list[n++] = rcm_devs[i]->verbs;
	}
	pthread_mutex_unlock(&rcm_dev_lock);

	if (!n) {
		free(list);
		err = ENODEV;
		goto err;
	}
	if (num_devices)
		*num_devices = n;
	return list;

err:
	if (num_devices)
		*num_devices = 0;
	errno = err;
	return NULL;
}

/**
 * rdma_free_devices() - release a list from rdma_get_devices()
 * @list: the list, or NULL
 *
 * Drops the list's references; the devices stay open.
 */
RCM_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	struct ibv_context **p;
	int i;

	if (!list)
		return;

	pthread_mutex_lock(&rcm_dev_lock);
	for (p = list; *p; p++) {
		for (i = 0; i < rcm_num_devs; i++) {
			if (rcm_devs[i]->verbs == *p && rcm_devs[i]->refcnt) {
				rcm_device_unref(rcm_devs[i]);
				break;
			}
		}
	}
	pthread_mutex_unlock(&rcm_dev_lock);
	free(list);
}

/*
 * Whether @d is the device the kernel names, as librdmacm's match(): by
 * node GUID and device index, or by GUID alone when either index is
 * unknown (RCM_DEVICE_INDEX_NONE).
 */
static bool rcm_device_match(const struct rcm_verbs_device *d, __be64 guid,
			     uint32_t index)
{
	if (d->dead || d->guid != guid)
		return false;
	return index == RCM_DEVICE_INDEX_NONE ||
	       d->index == RCM_DEVICE_INDEX_NONE || d->index == index;
}

/* The live entry the kernel names, or NULL. Caller holds rcm_dev_lock. */
static struct rcm_verbs_device *rcm_device_lookup(__be64 guid, uint32_t index)
{
	int i;

	for (i = 0; i < rcm_num_devs; i++)
		if (rcm_device_match(rcm_devs[i], guid, index))
			return rcm_devs[i];
	return NULL;
}

/**
 * rcm_device_get() - the library's context of a device the kernel names
 * @guid: node GUID in network byte order, as RCM_IOCTL_QUERY_ID gives it
 * @index: the kernel's device index, or RCM_DEVICE_INDEX_NONE
 *
 * A device the table does not know (added after it was filled) makes
 * the table re-read libibverbs' list, as librdmacm does. Opens the
 * device if needed, allocates its default PD if it has none, and takes
 * a reference for an id's verbs.
 *
 * Return: the context, or NULL with errno ENODEV (no such device), the
 * error of opening it, or ENOMEM (no PD; librdmacm's error too).
 */
struct ibv_context *rcm_device_get(__be64 guid, uint32_t index)
{
	struct ibv_context *verbs = NULL;
	struct rcm_verbs_device *d;
	int err = ENODEV;

	if (rcm_devices_init())
		return NULL;

	pthread_mutex_lock(&rcm_dev_lock);
	d = rcm_device_lookup(guid, index);
	if (!d && !rcm_devices_sync())
		d = rcm_device_lookup(guid, index);
	if (!d)
		goto out;
	if (rcm_device_open(d)) {
		err = errno;
		goto out;
	}
	if (!d->pd) {
		d->pd = ibv_alloc_pd(d->verbs);
		if (!d->pd) {
			err = ENOMEM;
			goto out;
		}
	}
	d->refcnt++;
	verbs = d->verbs;
out:
	pthread_mutex_unlock(&rcm_dev_lock);
	if (!verbs)
		errno = err;
	return verbs;
}

/*
 * Drop a reference from rcm_device_get(); the device stays open, its
 * default PD goes with the last reference, and a device that is gone is
 * closed with it.
 */
void rcm_device_put(struct ibv_context *verbs)
{
	int i;

	pthread_mutex_lock(&rcm_dev_lock);
	for (i = 0; i < rcm_num_devs; i++) {
		if (rcm_devs[i]->verbs == verbs && rcm_devs[i]->refcnt) {
			rcm_device_unref(rcm_devs[i]);
			break;
		}
	}
	pthread_mutex_unlock(&rcm_dev_lock);
}

/**
 * rcm_device_removed() - the kernel reported the removal of a device
 * @verbs: the context of an id that got RDMA_CM_EVENT_DEVICE_REMOVAL,
 *         or NULL
 *
 * librdmacm learns that a device is gone only when it reads libibverbs'
 * list again with another device present, and keeps the device open
 * until then; a driver that cannot disassociate its user contexts
 * (Soft-RoCE, siw) finishes the removal only once every context is
 * closed, so the removal waits for each process that ever used the
 * device to list the devices again or exit. rcm marks the device dead
 * at the first DEVICE_REMOVAL instead: it closes once its last id and
 * list let go of it, and a device added later is a new entry.
 */
void rcm_device_removed(struct ibv_context *verbs)
{
	int i;

	if (!verbs)
		return;
	pthread_mutex_lock(&rcm_dev_lock);
	for (i = 0; i < rcm_num_devs; i++)
		if (rcm_devs[i]->verbs == verbs)
			rcm_device_dead(rcm_devs[i]);
	pthread_mutex_unlock(&rcm_dev_lock);
}

/**
 * rcm_device_of() - the table entry of an opened device
 * @verbs: a context the caller holds a reference on (an id's verbs)
 *
 * Entries never move, and what a reference holder reads (pd and the
 * cached attributes) does not change while the reference is held.
 *
 * Return: the entry, or NULL if @verbs is not the library's.
 */
struct rcm_verbs_device *rcm_device_of(struct ibv_context *verbs)
{
	struct rcm_verbs_device *d = NULL;
	int i;

	if (!verbs)
		return NULL;
	pthread_mutex_lock(&rcm_dev_lock);
	for (i = 0; i < rcm_num_devs; i++) {
		if (rcm_devs[i]->verbs == verbs) {
			d = rcm_devs[i];
			break;
		}
	}
	pthread_mutex_unlock(&rcm_dev_lock);
	return d;
}
