/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rcm: the kernel interfaces that differ between the kernels rcm builds
 * for, Linux 6.1 to 6.12 (the Kbuild file refuses the others). This is
 * the one place that looks at the kernel's version: every other file
 * uses the names defined here, which mean the same on every kernel.
 *
 * Each entry names the kernel change it adapts.
 */
#ifndef _RCM_COMPAT_H
#define _RCM_COMPAT_H

#include <linux/fs.h>
#include <linux/version.h>

/*
 * 6.10, "tracing/treewide: Remove second parameter of __assign_str()":
 * the string's source is given once, to __string(), and __assign_str()
 * takes the field alone.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define rcm_assign_str(dst, src) __assign_str(dst)
#else
#define rcm_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * 6.12, "[tree-wide] finally take no_llseek out": a file without an
 * llseek method is not seekable (FMODE_LSEEK is set only for those that
 * have one), which is what no_llseek said before. Both give ESPIPE.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define RCM_NO_LLSEEK NULL
#else
#define RCM_NO_LLSEEK no_llseek
#endif

/*
 * 6.2, "infiniband:cma: change iboe packet life time from 18 to 16": the
 * packet lifetime the in-tree CM puts in a RoCE path (2^n * 4.096 us),
 * which sets the REQ's retry interval, the QP's local ACK timeout and
 * the time wait. rcm follows the kernel it runs on, so that a connection
 * times out, and its QP retries, as the in-tree CM's would there.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define RCM_ROCE_PACKET_LIFETIME 16
#else
#define RCM_ROCE_PACKET_LIFETIME 18
#endif

/*
 * 6.3, "RDMA/core: Support multiple path records in ib_sa path
 * queries": the count of records an SA path query's callback gets is
 * unsigned.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define RCM_SA_NUM_PRS unsigned int
#else
#define RCM_SA_NUM_PRS int
#endif

#endif /* _RCM_COMPAT_H */
