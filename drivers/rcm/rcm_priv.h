/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rcm: private definitions shared by the files of rcm.ko.
 *
 * Map of the module (one concern per file):
 *   rcm_main.c    module init/exit, the misc device
 *   rcm_device.c  ib_client: per-RDMA-device state
 *   rcm_file.c    file operations: open/release, ioctl dispatch table
 *   rcm_cmd.c     handlers of the global (id-less) commands
 *   rcm_kunit.c   KUnit suites (built only when the kernel has KUnit)
 */
#ifndef _RCM_PRIV_H
#define _RCM_PRIV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rcm_user.h>

/**
 * enum rcm_port_cm - which connection manager serves a port
 * @RCM_PORT_CM_NONE: the port has no CM (e.g. a raw Ethernet port)
 * @RCM_PORT_CM_IB: IB CM over MADs on QP1 (InfiniBand and RoCE)
 * @RCM_PORT_CM_IW: iWARP CM (MPA over TCP)
 */
enum rcm_port_cm {
	RCM_PORT_CM_NONE,
	RCM_PORT_CM_IB,
	RCM_PORT_CM_IW,
};

/**
 * struct rcm_device - rcm's state for one RDMA device
 * @ibdev: the ib_core device
 * @ref: lifetime count. The ib_client holds the initial reference from
 *       rcm_add_one() until rcm_remove_one(); every user that found the
 *       device through rcm_device_get() holds one more. The last put
 *       completes @done.
 * @done: completed when @ref drops to zero; rcm_remove_one() waits for
 *        it, so ib_core never frees @ibdev under a user of this struct.
 * @list: entry in the global device list, protected by rcm_devices_lock
 * @num_ports: rdma_end_port(@ibdev)
 * @port_cm: per-port CM, indexed by port number - 1
 *
 * Created by the ib_client add callback and published on the device
 * list only when complete. Unpublished under rcm_devices_lock before the
 * remove callback waits, so no new reference can be taken after that.
 */
struct rcm_device {
	struct ib_device *ibdev;
	struct kref ref;
	struct completion done;
	struct list_head list;
	u32 num_ports;
	enum rcm_port_cm port_cm[];
};

/* rcm_device.c */
extern struct ib_client rcm_ib_client;
int rcm_device_init(void);
void rcm_device_exit(void);
u32 rcm_device_count(void);
enum rcm_port_cm rcm_port_cm_from_caps(u32 core_cap_flags);

/* rcm_file.c */

/* No command struct is larger than this; bigger sizes fail with E2BIG. */
#define RCM_MAX_CMD_SIZE PAGE_SIZE

extern const struct file_operations rcm_fops;

/**
 * struct rcm_ioctl_op - one entry of the ioctl dispatch table
 * @execute: handler; @arg is a kernel copy of the command struct, of
 *           @size bytes, with user bytes beyond the kernel's size checked
 *           zero and bytes the user did not supply zeroed
 * @size: sizeof the kernel's command struct
 * @min_size: size of the command's first release (offsetofend of its
 *            last member then)
 * @flags_mask: flag bits the command accepts
 */
struct rcm_ioctl_op {
	int (*execute)(struct file *filp, void *arg);
	u32 size;
	u32 min_size;
	u32 flags_mask;
};

const struct rcm_ioctl_op *rcm_ioctl_lookup(unsigned int cmd);
int rcm_ioctl_check_header(const struct rcm_ioctl_op *op, u32 user_size,
			   u32 flags);
extern const struct rcm_ioctl_op rcm_ioctl_ops[];
extern const unsigned int rcm_ioctl_num_ops;

/* rcm_cmd.c */
int rcm_cmd_query(struct file *filp, void *arg);

#endif /* _RCM_PRIV_H */
