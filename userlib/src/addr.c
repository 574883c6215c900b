// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: addresses and routes, rdma_bind_addr(),
 * rdma_resolve_addr(), rdma_resolve_route(), rdma_get_src_port() and
 * rdma_get_dst_port().
 */
#include <endian.h>
#include <string.h>
#include <sys/ioctl.h>
#include <infiniband/ib.h>

#include "rcm_lib.h"

/*
 * Length of a sockaddr the library passes to the kernel (AF_INET,
 * AF_INET6, AF_IB), or 0 for a family librdmacm does not know (EINVAL,
 * as librdmacm).
 */
size_t rcm_addr_len(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}

/**
 * rdma_bind_addr() - bind an id to a local address and port
 * @id: an unbound id
 * @addr: AF_INET or AF_INET6 address; wildcard address and port 0 allowed
 *
 * Then refreshes the id from the kernel: route.addr.src_addr shows the
 * port chosen for port 0, and a specific address sets verbs, port_num
 * and the source GID. Never waits for an event, also in synchronous mode.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument, unknown family),
 * or the errors of RCM_IOCTL_BIND_ADDR.
 */
RCM_EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rcm_bind_addr cmd = { .size = sizeof(cmd) };
	struct rcm_id_private *rid;
	size_t len;

	if (!id || !addr)
		return rcm_err(EINVAL);
	len = rcm_addr_len(addr);
	if (!len)
		return rcm_err(EINVAL);
	rid = rcm_id(id);

	cmd.id = rid->handle;
	memcpy(&cmd.addr, addr, len);
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_BIND_ADDR, &cmd))
		return -1;
	/* The bind answered with the id's view: no query. */
	return rcm_id_apply(rid, &cmd.out_info, false);
}

/**
 * rdma_resolve_addr() - resolve a destination to a local device and port
 * @id: an id not resolved yet
 * @src_addr: source address, or NULL
 * @dst_addr: destination address
 * @timeout_ms: how long to wait for the neighbour, 0..RCM_MAX_TIMEOUT_MS
 *
 * Copies @dst_addr into route.addr.dst_addr at once, as librdmacm does,
 * and starts the resolution, which completes with ADDR_RESOLVED or
 * ADDR_ERROR on the id's channel. In synchronous mode the call waits for
 * that event (see rcm_sync_complete()).
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id or @dst_addr, unknown
 * family), the errors of RCM_IOCTL_RESOLVE_ADDR, and in synchronous mode
 * those of the completion (ETIMEDOUT, EHOSTUNREACH, ENODEV...).
 */
RCM_EXPORT int rdma_resolve_addr(struct rdma_cm_id *id,
				 struct sockaddr *src_addr,
				 struct sockaddr *dst_addr, int timeout_ms)
{
	struct rcm_resolve_addr cmd = { .size = sizeof(cmd) };
	size_t src_len = 0, dst_len;
	struct rcm_id_private *rid;

	if (!id || !dst_addr)
		return rcm_err(EINVAL);
	dst_len = rcm_addr_len(dst_addr);
	if (!dst_len)
		return rcm_err(EINVAL);
	if (src_addr && src_addr->sa_family) {
		src_len = rcm_addr_len(src_addr);
		if (!src_len)
			return rcm_err(EINVAL);
	}
	rid = rcm_id(id);

	memcpy(&id->route.addr.dst_storage, dst_addr, dst_len);
	cmd.id = rid->handle;
	/* Negative values become huge ones, which the kernel refuses. */
	cmd.timeout_ms = (uint32_t)timeout_ms;
	if (src_len)
		memcpy(&cmd.src, src_addr, src_len);
	memcpy(&cmd.dst, dst_addr, dst_len);
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_RESOLVE_ADDR, &cmd))
		return -1;

	return rid->sync ? rcm_sync_complete(rid) : 0;
}

/**
 * rdma_resolve_route() - resolve the path to an id's destination
 * @id: an id whose address is resolved
 * @timeout_ms: bound on a path query, 0..RCM_MAX_TIMEOUT_MS
 *
 * Starts building the path, which completes with ROUTE_RESOLVED on the
 * id's channel (the kernel queues it before the ioctl returns). Before
 * the event is handed out, rdma_get_cm_event() takes the path into
 * route.path_rec and route.num_paths (see rcm_id_refresh()). In
 * synchronous mode the call waits for that event (see
 * rcm_sync_complete()), so a ROUTE_ERROR becomes -1/errno.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, address not resolved,
 * already routed, @timeout_ms out of range), EOPNOTSUPP (InfiniBand
 * port), the other errors of RCM_IOCTL_RESOLVE_ROUTE, and in synchronous
 * mode those of the completion.
 */
RCM_EXPORT int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct rcm_resolve_route cmd = { .size = sizeof(cmd) };
	struct rcm_id_private *rid;

	if (!id)
		return rcm_err(EINVAL);
	rid = rcm_id(id);

	cmd.id = rid->handle;
	/* Negative values become huge ones, which the kernel refuses. */
	cmd.timeout_ms = (uint32_t)timeout_ms;
	if (ioctl(rid->chan->ch.fd, RCM_IOCTL_RESOLVE_ROUTE, &cmd))
		return -1;

	return rid->sync ? rcm_sync_complete(rid) : 0;
}

static __be16 rcm_port_of(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	case AF_IB: {
		const struct sockaddr_ib *sib = (const void *)addr;

		return htobe16((uint16_t)be64toh(sib->sib_sid));
	}
	default:
		return 0;
	}
}

/**
 * rdma_get_src_port() - the id's local port
 * @id: the id
 *
 * Return: the port of route.addr.src_addr in network byte order, or 0
 * while the id is not bound.
 */
RCM_EXPORT __be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return rcm_port_of(&id->route.addr.src_addr);
}

/**
 * rdma_get_dst_port() - the id's remote port
 * @id: the id
 *
 * Return: the port of route.addr.dst_addr in network byte order, or 0
 * while the destination is not known.
 */
RCM_EXPORT __be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return rcm_port_of(&id->route.addr.dst_addr);
}
