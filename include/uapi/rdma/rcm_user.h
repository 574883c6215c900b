/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rcm: RDMA connection manager character device, userspace ABI.
 */
#ifndef _UAPI_RDMA_RCM_USER_H
#define _UAPI_RDMA_RCM_USER_H

#include <linux/types.h>
#include <linux/ioctl.h>

/**
 * DOC: rcm ioctl ABI
 *
 * The character device is ``/dev/infiniband/rcm``. Any user may open it;
 * everything an open file creates is private to that file.
 *
 * Every command is an ioctl numbered ``_IO(RCM_IOCTL_MAGIC, RCM_CMD_*)``
 * whose argument points to a command struct. The first member of every
 * command struct is ``__u32 size``: userspace sets it to the size of the
 * struct it was compiled with, which lets a struct grow at its end without
 * a new command number:
 *
 * - a size smaller than the struct's first release rejects the call with
 *   EINVAL;
 * - a size larger than the kernel knows is accepted only if every byte the
 *   kernel does not know is zero, else E2BIG; sizes above 4096 always fail
 *   with E2BIG;
 * - output members (``out_`` prefix) are written back only up to ``size``.
 *
 * The second member is ``__u32 flags``; unknown flag bits fail with
 * EOPNOTSUPP. Members named ``reserved`` or ``__reserved`` must be zero on
 * input, else EINVAL.
 *
 * Errors common to every command:
 *
 * ========== ==========================================================
 * ENOTTY     unknown ioctl number (or not an rcm file)
 * EFAULT     the argument, or a pointer inside it, is not accessible
 * EINVAL     size below the minimum, reserved member not zero, or a
 *            value outside its documented range
 * E2BIG      size above 4096, or above what the kernel knows with
 *            non-zero tail bytes
 * EOPNOTSUPP a flag bit this kernel does not know
 * ========== ==========================================================
 *
 * Commands add their own errno values in their own documentation.
 */

/* Bumped on any incompatible change; also in /sys/class/misc/rcm/abi_version. */
#define RCM_ABI_VERSION 1

/* Unassigned in Documentation/userspace-api/ioctl/ioctl-number.rst (6.1). */
#define RCM_IOCTL_MAGIC 0xDE

enum rcm_cmd {
	RCM_CMD_BASE = 0x80,
	RCM_CMD_QUERY = RCM_CMD_BASE,
};

/**
 * struct rcm_query - ioctl(RCM_IOCTL_QUERY)
 * @size: sizeof(struct rcm_query)
 * @flags: Must be 0
 * @out_abi_version: RCM_ABI_VERSION of the running module
 * @out_num_devices: number of RDMA devices that rcm currently manages
 *                   (those with at least one IB CM or iWARP CM port)
 *
 * Tells userspace which ABI the module speaks. Never fails on a correct
 * argument.
 */
struct rcm_query {
	__u32 size;
	__u32 flags;
	__u32 out_abi_version;
	__u32 out_num_devices;
};

#define RCM_IOCTL_QUERY _IO(RCM_IOCTL_MAGIC, RCM_CMD_QUERY)

#endif /* _UAPI_RDMA_RCM_USER_H */
