/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the programs on the InfiniBand test fabric share (ib, ibref, ipoib):
 * the fabric (tools/testing/ibfabric, rcm_ibfab.ko: ibfab0 and ibfab1,
 * LIDs 1 and 2, a small SA) loaded and driven through its control file,
 * its ports' GIDs, and rcm ids with AF_IB addresses on it.
 */
#ifndef IBFAB_COMMON_H
#define IBFAB_COMMON_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef AF_IB
#define AF_IB 27
#endif

#define IBFAB_KO "/lib/rcm/rcm_ibfab.ko"
#define IBFAB_CTL "/sys/kernel/debug/rcm_ibfab/ctl"
#define IB_SYS "/sys/class/infiniband/"

/* Linux's struct sockaddr_ib (<rdma/ib.h>, not a uapi header). */
struct ib_sockaddr {
	unsigned short sib_family;
	uint16_t sib_pkey;		/* network order */
	uint32_t sib_flowinfo;		/* network order */
	struct in6_addr sib_addr;
	uint64_t sib_sid;		/* network order */
	uint64_t sib_sid_mask;		/* network order */
	uint64_t sib_scope_id;
};

/* The IP CM service ID range of a port space (RDMA_IB_IP_PS_*), its mask. */
#define SID_PS(ps) ((uint64_t)(ps) << 16)
#define PS_MASK 0xFFFFFFFFFFFF0000ULL

/* The first line of file @path, without its newline, into @buf: 0 or -1. */
int ibfab_read_line(const char *path, char *buf, size_t len);
/*
 * The rest of the control file's first line that starts with @prefix
 * ("last: ", "sent "), into @out: 0 or -1.
 */
int ibfab_line(const char *prefix, char *out, size_t len);
/* Load the fabric if needed: 0, or 1 when it cannot be had (skip). */
int fabric_up(void);
/* One command to the fabric's control file: 0 or -1. */
int fab(const char *cmd);
/* A counter of the fabric's control file, or -1. */
long fab_counter(const char *name);
/* GID 0 of port 1 of an RDMA device, from sysfs: 0 or -1. */
int dev_gid(const char *dev, struct in6_addr *gid);
/* An AF_IB address: @dev's GID (NULL: zero), P_Key 0xffff, @sid/@mask. */
int ib_addr(void *kss, const char *dev, uint64_t sid, uint64_t mask);

struct rcm_bind_addr;
/* Bind @id to @dev's GID and @sid/@mask; -2 when @dev has no GID. */
int ib_bind(int fd, unsigned int id, const char *dev, uint64_t sid,
	    uint64_t mask, struct rcm_bind_addr *b);
/* Resolve @id (bound to @src, NULL: not bound) to @dst's GID and @sid. */
int ib_resolve(int fd, unsigned int id, const char *src, const char *dst,
	       uint64_t sid);
/*
 * A listener of @fd on ibfab1's GID in the TCP range, ephemeral port:
 * its handle (0 on error); *@sid the service ID it took.
 */
unsigned int ib_listener(int fd, uint64_t *sid);
/*
 * An id of @fd in port space @ps routed from ibfab0 to service ID @sid
 * on ibfab1 (its events read), or 0.
 */
unsigned int ib_routed_ps(int fd, unsigned short ps, uint64_t sid,
			  unsigned long long ctx);

struct rcm_event;
struct rcm_path;
/*
 * Route @id of @fd through the fabric's SA, its path records set to
 * values of their own (SL 3, MTU 4, rate 7, packet life time 16: none a
 * default): 0 when ROUTE_RESOLVED (into @ev) came, status 0, after one
 * SA query; -1 with errno (EPROTO: other status or number of queries).
 */
int ib_route_by_sa(int fd, unsigned int id, struct rcm_event *ev);
/*
 * Is @p the path ib_route_by_sa() has the SA answer, from @sgid (LID 1)
 * to @dgid (LID 2) with P_Key 0xffff? NULL, or the first field that is
 * not as it should be.
 */
const char *ib_sa_path_differs(const struct rcm_path *p,
			       const struct in6_addr *sgid,
			       const struct in6_addr *dgid);

/* A UD id of @fd in RCM_PS_UDP bound to @dev's GID: its handle, or 0. */
unsigned int ib_ud_id(int fd, const char *dev, unsigned long long ctx);
/*
 * Join (@join, RCM_MC_JOIN_* @flags) or leave the AF_IB group of MGID
 * @mgid (NULL: zero, the SA assigns one): the ioctl's result.
 */
int ib_mcast(int fd, unsigned int id, const void *mgid, bool join,
	     unsigned int flags, unsigned long long ctx);
/* Every group of the fabric's SA left (ib_sa leaves asynchronously). */
bool ibfab_sa_groups_gone(void);
/*
 * RCM_OPTION_IB_PATH on @id: one route record from ibfab0 to ibfab1,
 * P_Key 0xffff, these LIDs and values: the ioctl's result.
 */
int ib_set_path(int fd, unsigned int id, uint16_t slid, uint16_t dlid,
		uint8_t sl, uint8_t mtu, uint8_t rate, uint8_t life);

#endif /* IBFAB_COMMON_H */
