/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib: declarations shared by the library's source files.
 * Not installed.
 */
#ifndef RCM_LIB_H
#define RCM_LIB_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rcm.h>

/* Marks the definition of a function that the version script exports. */
#define RCM_EXPORT __attribute__((visibility("default")))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The character device, and the environment variable that overrides it. */
#define RCM_DEFAULT_DEVICE	"/dev/infiniband/rcm"
#define RCM_DEVICE_ENV		"RCM_DEVICE"

/*
 * errno when the module answers RCM_IOCTL_QUERY with another ABI version,
 * or the file does not understand the query at all: EPERM, as librdmacm
 * reports a bad kernel ABI; see rdma_create_event_channel(3).
 */
#define RCM_EABI		EPERM

/* librdmacm's convention: set errno, return -1. */
static inline int rcm_err(int err)
{
	errno = err;
	return -1;
}

/* init.c: settings read once per process */
const char *rcm_device_path(void);

/*
 * device.c: the verbs devices the library knows.
 *
 * The table is filled from ibv_get_device_list() by the first call that
 * finds at least one device, and never shrinks. A device is opened on
 * first use and stays open while the library is loaded, so the
 * ibv_context pointers handed out (rdma_get_devices(), later id->verbs)
 * are stable. rcm_dev_lock protects the table, each entry's verbs and
 * attribute cache, and refcnt.
 */
struct rcm_device {
	struct ibv_device	*dev;
	struct ibv_context	*verbs;		/* NULL until opened */
	unsigned int		refcnt;		/* users of verbs */
	/* cached from ibv_query_device() when opened */
	uint8_t			port_cnt;
	int			max_qp_wr;
	int			max_qp_rd_atom;
	int			max_qp_init_rd_atom;
};

int rcm_devices_init(void);

#endif /* RCM_LIB_H */
