// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: id lifetime, rdma_create_id() and rdma_destroy_id(), the
 * id's view of its kernel state, and synchronous mode.
 *
 * The kernel returns every event of an id with the context it was created
 * with; the library uses the address of its struct rcm_id_private as that
 * context, and finds the id of a record by looking the value up in the
 * channel's table (never by dereferencing it).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "rcm_lib.h"

static void rcm_id_free(struct rcm_id_private *rid);

/*
 * The options $RCM_RESOLVE_TIMEOUT_MS and $RCM_CONNECT_TIMEOUT_MS ask
 * for, on a new id (kernel handle @handle on @fd). They only tune: a
 * kernel that refuses one (an older module: ENOPROTOOPT; CONNECT_TIMEOUT
 * on an iWARP request id: EINVAL) leaves the id with the kernel's
 * default, silently, and errno is left alone.
 */
static void rcm_id_env_options(int fd, uint32_t handle)
{
	struct rcm_set_option cmd = {
		.size = sizeof(cmd), .id = handle, .level = RCM_OPTION_ID,
	};
	int saved = errno;

	cmd.value = rcm_resolve_timeout_ms();
	if (cmd.value) {
		cmd.optname = RCM_OPTION_ID_RESOLVE_TIMEOUT;
		ioctl(fd, RCM_IOCTL_SET_OPTION, &cmd);
	}
	cmd.value = rcm_connect_timeout_ms();
	if (cmd.value) {
		cmd.optname = RCM_OPTION_ID_CONNECT_TIMEOUT;
		ioctl(fd, RCM_IOCTL_SET_OPTION, &cmd);
	}
	errno = saved;
}

/*
 * rcm_create_id() - rdma_create_id() with an explicit QP type, which
 * rdma_create_ep() takes from its rdma_addrinfo.
 */
int rcm_create_id(struct rdma_event_channel *channel,
		  struct rdma_cm_id **out, void *context,
		  enum rdma_port_space ps, enum ibv_qp_type qp_type)
{
	struct rcm_create_id cmd = { .size = sizeof(cmd) };
	struct rcm_channel *chan;
	struct rcm_id_private *id;
	int err;

	if (!out)
		return rcm_err(EINVAL);

	id = calloc(1, sizeof(*id));
	if (!id)
		return rcm_err(ENOMEM);
	pthread_cond_init(&id->acked, NULL);

	if (channel) {
		chan = rcm_channel(channel);
	} else {
		chan = rcm_channel_open();
		if (!chan) {
			err = errno;
			goto out_free;
		}
		chan->sync = true;
		id->sync = true;
	}
	id->chan = chan;
	rcm_channel_get(chan);
	id->id.channel = &chan->ch;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = qp_type;

	/* In the table before the kernel can report anything for it. */
	rcm_channel_add_id(chan, id);

	cmd.context = (uintptr_t)id;
	cmd.port_space = ps;
	cmd.qp_type = qp_type;
	if (ioctl(chan->ch.fd, RCM_IOCTL_CREATE_ID, &cmd)) {
		err = errno;
		pthread_mutex_lock(&chan->lock);
		rcm_channel_del_id(chan, id);
		pthread_mutex_unlock(&chan->lock);
		goto out_close;
	}
	pthread_mutex_lock(&chan->lock);
	rcm_channel_set_handle_locked(chan, id, cmd.out_id);
	pthread_mutex_unlock(&chan->lock);
	rcm_id_env_options(chan->ch.fd, cmd.out_id);

	*out = &id->id;
	return 0;

out_close:
	if (id->sync)
		rcm_channel_close(chan);
	rcm_channel_put(chan);
out_free:
	pthread_cond_destroy(&id->acked);
	free(id);
	return rcm_err(err);
}

/**
 * rdma_create_id() - create a communication identifier
 * @channel: where the id's events are reported; NULL for synchronous mode
 * @id: where to store the new id
 * @context: the application's value, in id->context
 * @ps: the port space
 *
 * The QP type follows from the port space: UD for RDMA_PS_UDP and
 * RDMA_PS_IPOIB, RC otherwise (RDMA_PS_TCP, RDMA_PS_IB), as in librdmacm.
 * In synchronous mode the id gets a private channel. With
 * $RCM_RESOLVE_TIMEOUT_MS or $RCM_CONNECT_TIMEOUT_MS set (read once per
 * process, 1..600000), the id gets that option (rcm_id_env_options()).
 *
 * Return: 0, or -1 with errno: EINVAL (NULL @id, or a port space the
 * kernel does not know), EMFILE (the channel holds RCM_MAX_IDS ids),
 * ENOMEM, and in synchronous mode the errors of
 * rdma_create_event_channel().
 */
RCM_EXPORT int rdma_create_id(struct rdma_event_channel *channel,
			      struct rdma_cm_id **id, void *context,
			      enum rdma_port_space ps)
{
	enum ibv_qp_type qp_type;

	qp_type = (ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB) ?
		  IBV_QPT_UD : IBV_QPT_RC;
	return rcm_create_id(channel, id, context, ps, qp_type);
}

/**
 * rdma_destroy_id() - destroy a communication identifier
 * @id: the id, also one from RDMA_CM_EVENT_CONNECT_REQUEST
 *
 * Destroys the kernel's id, which discards the events read() has not
 * returned yet and reports how many it did return; the kernel rejects a
 * connection request that was not answered. The event a synchronous call
 * left in id->event is acked. Records of the id that another thread
 * read meanwhile are dropped and count as acked; so do such
 * CONNECT_REQUESTs of a listener, whose request ids are destroyed. The
 * call then waits until the application has acked every event of the id
 * that rdma_get_cm_event() returned (for a listener: also its
 * CONNECT_REQUESTs, which librdmacm charges to the listener); it never
 * waits for anything else. A synchronous id's private channel is closed.
 *
 * The kernel leaves the multicast groups the id joined; their events are
 * the id's too, and the groups are forgotten once they are accounted for
 * (the QP is not detached, as in librdmacm).
 *
 * The QP, SRQ and CQs of the id are the application's to destroy first
 * (rdma_destroy_qp(), rdma_destroy_srq()), as in librdmacm.
 *
 * Return: 0, or -1 with errno from RCM_IOCTL_DESTROY_ID (the id stays
 * valid then).
 */
RCM_EXPORT int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rcm_destroy_id cmd = { .size = sizeof(cmd) };
	struct rcm_channel *chan;
	struct rcm_id_private *rid;

	if (!id)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	chan = rid->chan;

	cmd.id = rid->handle;
	if (ioctl(chan->ch.fd, RCM_IOCTL_DESTROY_ID, &cmd))
		return -1;

	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}

	pthread_mutex_lock(&chan->lock);
	rid->destroyed = true;
	/* Counters wrap; compare their distance. */
	while ((int32_t)(cmd.out_events_reported + rid->events_charged -
			 rid->events_completed) > 0)
		pthread_cond_wait(&rid->acked, &chan->lock);
	rcm_channel_del_id(chan, rid);
	pthread_mutex_unlock(&chan->lock);

	rcm_id_free(rid);
	return 0;
}

/* Free what an id owns, and the id; it is out of its channel's table. */
static void rcm_id_free(struct rcm_id_private *rid)
{
	struct rcm_channel *chan = rid->chan;
	bool sync = rid->sync;

	if (rid->id.verbs)
		rcm_device_put(rid->id.verbs);
	free(rid->id.route.path_rec);
	free(rid->qp_init_attr);
	free(rid->connect_hdr);
	rcm_mcast_free_all(rid);
	pthread_cond_destroy(&rid->acked);
	free(rid);
	if (sync)
		rcm_channel_close(chan);
	rcm_channel_put(chan);
}

/**
 * rcm_kernel_destroy_id() - destroy a kernel id the application never saw
 * @chan: the channel whose file holds it
 * @handle: its handle
 *
 * For a request id this rejects the request. Errors are ignored: the id
 * is gone either way (ENOENT), or goes when the file is closed.
 *
 * Return: the events read() returned for the id, 0 on an error.
 */
uint32_t rcm_kernel_destroy_id(struct rcm_channel *chan, uint32_t handle)
{
	struct rcm_destroy_id cmd = { .size = sizeof(cmd), .id = handle };
	int err = errno;

	if (ioctl(chan->ch.fd, RCM_IOCTL_DESTROY_ID, &cmd))
		cmd.out_events_reported = 0;
	errno = err;
	return cmd.out_events_reported;
}

/**
 * rcm_request_new() - the id of a connection request
 * @chan: the listener's channel
 * @listener: the listening id the kernel reported the request for
 * @handle: the kernel's request id
 *
 * Makes the id librdmacm makes for RDMA_CM_EVENT_CONNECT_REQUEST: on the
 * listener's channel, with its context, port space and QP type (a
 * synchronous listener's request then moves to a channel of its own, see
 * rcm_request_private()). It goes into @chan->handles at once, so
 * that the request's later events (reported with context 0) find it.
 * The CONNECT_REQUEST, which the kernel counts for the request id, is
 * charged to the listener (as librdmacm does), so for the request id it
 * counts as completed from the start. It gets the options of the
 * environment, as rdma_create_id() gives them. Caller holds @chan->lock.
 *
 * Return: the id, or NULL (ENOMEM).
 */
struct rcm_id_private *rcm_request_new(struct rcm_channel *chan,
				       struct rcm_id_private *listener, uint32_t handle)
{
	struct rcm_id_private *req = calloc(1, sizeof(*req));

	if (!req)
		return NULL;
	pthread_cond_init(&req->acked, NULL);
	req->chan = chan;
	rcm_channel_get(chan);
	req->handle = handle;
	req->request = true;
	req->events_completed = 1;
	req->events_read = 1;
	req->id.channel = &chan->ch;
	req->id.context = listener->id.context;
	req->id.ps = listener->id.ps;
	req->id.qp_type = listener->id.qp_type;
	rcm_channel_add_id_locked(chan, req);
	rcm_id_env_options(chan->ch.fd, handle);
	return req;
}

/**
 * rcm_request_private() - give a synchronous listener's request its own
 *                         channel
 * @req: the request id, on the listener's channel, not handed out yet
 *
 * As librdmacm's ucma_process_conn_req(): the request id becomes
 * synchronous on a new private channel (rdma_migrate_id() with none), so
 * that its events never wake the listener, and O_NONBLOCK on one fd
 * leaves the other alone.
 *
 * Return: 0, or -1 with errno of rdma_migrate_id() (the id stays on the
 * listener's channel then).
 */
int rcm_request_private(struct rcm_id_private *req)
{
	return rdma_migrate_id(&req->id, NULL);
}

/**
 * rcm_request_discard() - destroy a request id never handed out
 * @req: the id
 *
 * Destroys the kernel's id (which rejects the request) and frees it, with
 * the private channel rcm_request_private() gave it. Another thread may
 * have handed out a later event of the id (REJECTED) while its
 * CONNECT_REQUEST was being worked on: that one is waited for, as
 * rdma_destroy_id() would. Caller holds no channel lock.
 */
void rcm_request_discard(struct rcm_id_private *req)
{
	struct rcm_channel *chan = rcm_id_channel_lock(req);
	uint32_t reported = rcm_kernel_destroy_id(chan, req->handle);

	req->destroyed = true;
	if (reported)
		while ((int32_t)(reported - req->events_completed) > 0)
			pthread_cond_wait(&req->acked, &chan->lock);
	rcm_channel_del_id(chan, req);
	pthread_mutex_unlock(&chan->lock);
	rcm_id_free(req);
}

/* Copy a kernel sockaddr into one of the id's, unless it is unset. */
/* A 28-byte address of struct rcm_id_info (family 0: none) into @to. */
static void rcm_copy_addr(struct sockaddr_storage *to, const uint8_t *from)
{
	sa_family_t family;

	memcpy(&family, from, sizeof(family));
	if (family == AF_INET || family == AF_INET6) {
		memset(to, 0, sizeof(*to));
		memcpy(to, from, family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	}
}

/*
 * The GID of a 28-byte address of struct rcm_id_info, as the in-tree
 * rdma_ip2gid() makes it: IPv4-mapped for IPv4, the address for IPv6,
 * zero for none.
 */
static void rcm_ip2gid(union ibv_gid *gid, const uint8_t *addr)
{
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	sa_family_t family;

	memset(gid, 0, sizeof(*gid));
	memcpy(&family, addr, sizeof(family));
	if (family == AF_INET) {
		memcpy(&sin, addr, sizeof(sin));
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &sin.sin_addr, 4);
	} else if (family == AF_INET6) {
		memcpy(&sin6, addr, sizeof(sin6));
		memcpy(gid->raw, &sin6.sin6_addr, sizeof(gid->raw));
	}
}

/*
 * The path-record flags (struct ib_path_rec_data) that the in-tree
 * ucma_query_path() reports for a resolved route: IB_PATH_GMP,
 * IB_PATH_PRIMARY and IB_PATH_BIDIRECTIONAL (OUTBOUND | INBOUND_REVERSE).
 * librdmacm's ucma_convert_path() puts their low byte in preference.
 */
#define RCM_INTREE_PATH_FLAGS	(0x01 | 0x02 | 0x08 | 0x20)

/*
 * Convert the kernel's path into the path record librdmacm 44 makes on
 * the in-tree CM (ucma_query_path() packs the kernel's path as an IB SA
 * PathRecord, ucma_convert_path() unpacks it): flow label and P_Key in
 * network byte order, one reversible path, the selectors of the MTU,
 * rate and packet lifetime all "exactly" (2), preference the path flags.
 * On RoCE the in-tree kernel packs its RoCE members where the IB ones
 * sit: the DLID holds "route resolved" (1) and the next hop's MAC byte
 * 0, the SLID MAC bytes 1 and 2, and the raw-traffic bit (bit 23 of the
 * 24 bits librdmacm gives as flow label) the low bit of MAC byte 3; the
 * record's raw_traffic stays 0. Applications see exactly that, so rcm
 * reproduces it.
 */
static void rcm_path_to_sa(struct ibv_sa_path_rec *rec,
			   const struct rcm_path *path)
{
	uint32_t raw = 0;

	memset(rec, 0, sizeof(*rec));
	memcpy(rec->dgid.raw, path->dgid, sizeof(rec->dgid.raw));
	memcpy(rec->sgid.raw, path->sgid, sizeof(rec->sgid.raw));
	if (path->rec_type != 0) {	/* RoCE v1 or v2 */
		rec->dlid = htobe16(0x0100 | path->dmac[0]);
		rec->slid = htobe16(path->dmac[1] << 8 | path->dmac[2]);
		raw = (uint32_t)(path->dmac[3] & 1) << 23;
	} else {			/* InfiniBand: the SA's LIDs */
		rec->dlid = htobe16(path->dlid);
		rec->slid = htobe16(path->slid);
	}
	rec->raw_traffic = 0;
	rec->flow_label = htobe32(raw | (path->flow_label & 0xfffff));
	rec->hop_limit = path->hop_limit;
	rec->traffic_class = path->traffic_class;
	rec->reversible = 1;
	rec->numb_path = 1;
	rec->pkey = htobe16(path->pkey);
	rec->sl = path->sl;
	rec->mtu_selector = 2;
	rec->mtu = path->mtu;
	rec->rate_selector = 2;
	rec->rate = path->rate;
	rec->packet_life_time_selector = 2;
	rec->packet_life_time = path->packet_life_time;
	rec->preference = RCM_INTREE_PATH_FLAGS;
}

/**
 * rcm_id_apply() - update the id's fields from the kernel's view of it
 * @id: the id
 * @info: that view: what RCM_IOCTL_BIND_ADDR returns, what ADDR_RESOLVED
 *        and ROUTE_RESOLVED carry, or what a query gave
 * @route: also take the route: route.num_paths and route.path_rec
 *
 * Sets route.addr.src and dst (when the kernel knows them), port_num,
 * verbs (the library's context of the device with the kernel's node
 * GUID and, when the kernel gives it, device index; NULL while not
 * attached), the source GID, on RoCE the
 * destination GID the in-tree rdma_read_gids() gives librdmacm (the
 * destination address as a GID, zero before there is one), and the
 * P_Key, 0:
 * what librdmacm reports on the in-tree CM for RoCE and iWARP (the
 * in-tree ucma_query_addr() reads it from the Ethernet broadcast
 * address, whose bytes 8 and 9 are 0). When verbs changes, pd becomes the device's default
 * PD (NULL without a device); otherwise pd is left alone, so that the PD
 * rdma_create_ep() or rdma_create_qp() put there stays, as in librdmacm.
 *
 * With @route, the kernel's path (RoCE) replaces route.path_rec, a
 * one-entry array the library allocates and rdma_destroy_id() frees, and
 * its destination GID goes into route.addr.addr.ibaddr, as librdmacm's
 * does after ROUTE_RESOLVED (its P_Key stays, as there). Without a path (iWARP) num_paths
 * is 0 and path_rec NULL. The id is left unchanged on failure.
 *
 * Return: 0, or -1 with errno: ENODEV when no verbs device has the
 * kernel's node GUID, EPROTO, ENOMEM.
 */
int rcm_id_apply(struct rcm_id_private *id, const struct rcm_id_info *info,
		 bool route)
{
	struct rdma_cm_id *cm = &id->id;
	struct ibv_context *verbs = NULL;
	struct rdma_ib_addr *ib = &cm->route.addr.addr.ibaddr;
	struct ibv_sa_path_rec *rec = NULL;

	if (route && info->num_paths) {
		/* The kernel reports at most one path. */
		if (info->num_paths != 1)
			return rcm_err(EPROTO);
		rec = malloc(sizeof(*rec));
		if (!rec)
			return rcm_err(ENOMEM);
		rcm_path_to_sa(rec, &info->path);
	}
	if (info->node_guid) {
		verbs = rcm_device_get(info->node_guid,
				       info->flags & RCM_ID_INFO_IBDEV_INDEX ?
				       info->ibdev_index :
				       RCM_DEVICE_INDEX_NONE);
		if (!verbs) {
			free(rec);
			return -1;
		}
	}

	rcm_copy_addr(&cm->route.addr.src_storage, info->src);
	rcm_copy_addr(&cm->route.addr.dst_storage, info->dst);
	if (cm->verbs != verbs)
		cm->pd = verbs ? rcm_device_of(verbs)->pd : NULL;
	if (cm->verbs)
		rcm_device_put(cm->verbs);
	cm->verbs = verbs;
	cm->port_num = info->port_num;
	memcpy(ib->sgid.raw, info->sgid, sizeof(ib->sgid.raw));
	if (verbs && verbs->device->transport_type == IBV_TRANSPORT_IB)
		rcm_ip2gid(&ib->dgid, info->dst);
	ib->pkey = 0;
	if (route) {
		free(cm->route.path_rec);
		cm->route.path_rec = rec;
		cm->route.num_paths = rec ? 1 : 0;
		if (rec)
			ib->dgid = rec->dgid;
	}
	return 0;
}

/* An address of struct rcm_query_id in the form struct rcm_id_info has. */
static void rcm_addr_to_info(uint8_t *to,
			     const struct __kernel_sockaddr_storage *from)
{
	size_t len = from->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
		     from->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
		     0;

	if (len)
		memcpy(to, from, len);
}

/**
 * rcm_id_refresh() - update the id's fields from RCM_IOCTL_QUERY_ID
 * @id: the id
 * @route: also take the route
 *
 * For what no command or event carried: see rcm_id_apply().
 *
 * Return: 0, or -1 with errno from the query or rcm_id_apply().
 */
int rcm_id_refresh(struct rcm_id_private *id, bool route)
{
	struct rcm_query_id cmd = { .size = sizeof(cmd) };
	struct rcm_id_info info = { 0 };

	cmd.id = id->handle;
	if (ioctl(id->chan->ch.fd, RCM_IOCTL_QUERY_ID, &cmd))
		return -1;
	info.port_num = cmd.out_port_num;
	info.num_paths = cmd.out_num_paths;
	info.node_guid = cmd.out_node_guid;
	memcpy(info.sgid, cmd.out_sgid, sizeof(info.sgid));
	rcm_addr_to_info(info.src, &cmd.out_src);
	rcm_addr_to_info(info.dst, &cmd.out_dst);
	info.path = cmd.out_path;
	info.flags = cmd.out_flags;
	info.ibdev_index = cmd.out_ibdev_index;
	return rcm_id_apply(id, &info, route);
}

/**
 * rcm_sync_complete() - wait for the event of a synchronous call
 * @id: a synchronous id
 *
 * Acks the event the previous call left in id->event, waits for the next
 * event of its private channel and leaves it in id->event, where the application may read it until its
 * next call on the id.
 *
 * Return: 0 if the event's status is 0, else -1 with errno: ECONNREFUSED
 * for REJECTED, -status for a negative status, status for a positive
 * one; or the errors of rdma_get_cm_event() (EAGAIN when the application
 * made the private channel's fd O_NONBLOCK).
 */
int rcm_sync_complete(struct rcm_id_private *id)
{
	struct rdma_cm_event *ev;

	if (id->id.event) {
		rdma_ack_cm_event(id->id.event);
		id->id.event = NULL;
	}
	if (rdma_get_cm_event(&id->chan->ch, &ev))
		return -1;
	id->id.event = ev;
	if (!ev->status)
		return 0;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		return rcm_err(ECONNREFUSED);
	return rcm_err(ev->status < 0 ? -ev->status : ev->status);
}
