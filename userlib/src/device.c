// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: the verbs device table, rdma_get_devices() and
 * rdma_free_devices(). Lifetime and locking rules: see struct rcm_device.
 */
#include <stdlib.h>

#include "rcm_lib.h"

static pthread_mutex_t rcm_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcm_device *rcm_devs;
static int rcm_num_devs;

/*
 * The list from ibv_get_device_list() is kept, never freed: freeing it
 * would invalidate the ibv_device of every device not opened yet. Nothing
 * reads the pointer; "used" keeps the compiler from dropping the store, so
 * that leak checkers see the list as reachable.
 */
static struct ibv_device **rcm_dev_list __attribute__((used));

/**
 * rcm_devices_init() - fill the device table on first use
 *
 * A call that finds no device leaves the table empty, so that a later
 * call looks again (a device may be added after the process started).
 *
 * Return: 0, or -1 with errno ENODEV (no device) or ENOMEM.
 */
int rcm_devices_init(void)
{
	struct ibv_device **list;
	struct rcm_device *devs;
	int i, n = 0, err = 0;

	pthread_mutex_lock(&rcm_dev_lock);
	if (rcm_num_devs)
		goto out;

	list = ibv_get_device_list(&n);
	if (!list || n <= 0) {
		err = ENODEV;
		goto out_free_list;
	}
	devs = calloc(n, sizeof(*devs));
	if (!devs) {
		err = ENOMEM;
		goto out_free_list;
	}
	for (i = 0; i < n; i++) {
		devs[i].dev = list[i];
		devs[i].guid = ibv_get_device_guid(list[i]);
	}
	rcm_dev_list = list;
	rcm_devs = devs;
	rcm_num_devs = n;
	goto out;

out_free_list:
	if (list)
		ibv_free_device_list(list);
out:
	pthread_mutex_unlock(&rcm_dev_lock);
	return err ? rcm_err(err) : 0;
}

/* Open the device and cache its limits. Caller holds rcm_dev_lock. */
static int rcm_device_open(struct rcm_device *d)
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
 * Drop one reference; the last one frees the default PD. Caller holds
 * rcm_dev_lock.
 */
static void rcm_device_unref(struct rcm_device *d)
{
	if (!d->refcnt)
		return;
	if (!--d->refcnt && d->pd) {
		ibv_dealloc_pd(d->pd);
		d->pd = NULL;
	}
}

/**
 * rdma_get_devices() - list the RDMA devices, opened
 * @num_devices: where to store the number of entries, or NULL
 *
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

	if (rcm_devices_init()) {
		err = errno;
		goto err;
	}

	pthread_mutex_lock(&rcm_dev_lock);
	list = calloc(rcm_num_devs + 1, sizeof(*list));
	if (!list) {
		pthread_mutex_unlock(&rcm_dev_lock);
		err = ENOMEM;
		goto err;
	}
	for (i = 0; i < rcm_num_devs; i++) {
		if (rcm_device_open(&rcm_devs[i]))
			continue;
		rcm_devs[i].refcnt++;
		list[n++] = rcm_devs[i].verbs;
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
			if (rcm_devs[i].verbs == *p && rcm_devs[i].refcnt) {
				rcm_device_unref(&rcm_devs[i]);
				break;
			}
		}
	}
	pthread_mutex_unlock(&rcm_dev_lock);
	free(list);
}

/**
 * rcm_device_get() - the library's context of a device, by node GUID
 * @guid: node GUID in network byte order, as RCM_IOCTL_QUERY_ID gives it
 *
 * Opens the device if needed, allocates its default PD if it has none,
 * and takes a reference for an id's verbs.
 *
 * Return: the context, or NULL with errno ENODEV (no device with that
 * GUID, e.g. one added after the table was filled), the error of opening
 * it, or ENOMEM (no PD; librdmacm's error too).
 */
struct ibv_context *rcm_device_get(__be64 guid)
{
	struct ibv_context *verbs = NULL;
	int i, err = ENODEV;

	if (rcm_devices_init())
		return NULL;

	pthread_mutex_lock(&rcm_dev_lock);
	for (i = 0; i < rcm_num_devs; i++) {
		if (rcm_devs[i].guid != guid)
			continue;
		if (rcm_device_open(&rcm_devs[i])) {
			err = errno;
			break;
		}
		if (!rcm_devs[i].pd) {
			rcm_devs[i].pd = ibv_alloc_pd(rcm_devs[i].verbs);
			if (!rcm_devs[i].pd) {
				err = ENOMEM;
				break;
			}
		}
		rcm_devs[i].refcnt++;
		verbs = rcm_devs[i].verbs;
		break;
	}
	pthread_mutex_unlock(&rcm_dev_lock);
	if (!verbs)
		errno = err;
	return verbs;
}

/*
 * Drop a reference from rcm_device_get(); the device stays open, its
 * default PD goes with the last reference.
 */
void rcm_device_put(struct ibv_context *verbs)
{
	int i;

	pthread_mutex_lock(&rcm_dev_lock);
	for (i = 0; i < rcm_num_devs; i++) {
		if (rcm_devs[i].verbs == verbs && rcm_devs[i].refcnt) {
			rcm_device_unref(&rcm_devs[i]);
			break;
		}
	}
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
struct rcm_device *rcm_device_of(struct ibv_context *verbs)
{
	struct rcm_device *d = NULL;
	int i;

	if (!verbs)
		return NULL;
	pthread_mutex_lock(&rcm_dev_lock);
	for (i = 0; i < rcm_num_devs; i++) {
		if (rcm_devs[i].verbs == verbs) {
			d = &rcm_devs[i];
			break;
		}
	}
	pthread_mutex_unlock(&rcm_dev_lock);
	return d;
}
