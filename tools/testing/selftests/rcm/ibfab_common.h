/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The test fabric (tools/testing/ibfabric, rcm_ibfab.ko) as guest
 * programs see it: its control file and its devices' sysfs.
 */
#ifndef IBFAB_COMMON_H
#define IBFAB_COMMON_H

#include <stddef.h>
#include <netinet/in.h>

#define IBFAB_KO "/lib/rcm/rcm_ibfab.ko"
#define IBFAB_CTL "/sys/kernel/debug/rcm_ibfab/ctl"
#define IB_SYS "/sys/class/infiniband/"

/* The first line of file @path, without its newline, into @buf: 0 or -1. */
int ibfab_read_line(const char *path, char *buf, size_t len);
/* One command to the fabric's control file: 0 or -1 (errno the write's). */
int ibfab_cmd(const char *cmd);
/*
 * The rest of the control file's first line that starts with @prefix
 * ("last: ", "sent "), into @out: 0 or -1.
 */
int ibfab_line(const char *prefix, char *out, size_t len);
/* A counter of the control file, or -1. */
long ibfab_counter(const char *name);
/* GID 0 of port 1 of RDMA device @dev, from sysfs: 0 or -1. */
int ibfab_dev_gid(const char *dev, struct in6_addr *gid);

#endif
