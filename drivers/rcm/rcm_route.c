// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: route resolution.
 *
 * On RoCE the path is built locally from what address resolution found,
 * as the in-tree CM does: GIDs from the IP addresses, next-hop MAC, MTU
 * of the netdev, traffic class from the TOS and a service level from the
 * netdev's priority map. iWARP needs no path: the TCP connection of the
 * MPA exchange finds its own way. On InfiniBand the path is the subnet
 * administrator's answer to a PathRecord query (ib_sa_path_rec_get()),
 * asked as cma.c:cma_query_ib_route() asks it.
 *
 * An SA query in flight holds a reference on its id and owns the event
 * it will deliver (id->route_ev); its callback, which ib_sa calls exactly
 * once - with the answer, an error, -ETIMEDOUT, or -EINTR once cancelled
 * - takes the event under the id's lock and drops the reference. Destroy
 * and device removal cancel the query under the id's lock: while the
 * event is there the callback has not finished, and ib_sa frees the
 * query only after its callback returns, so the query cancelled is
 * always still there. They never wait for the callback under the lock;
 * destroy waits for the id's last reference, the query's among them.
 *
 * Userspace may also give the path itself (RCM_OPTION_IB_PATH, what
 * librdmacm does with the path records of ibacm or of rdma_getaddrinfo()),
 * as the in-tree rdma_set_ib_path() takes it: the route is then resolved
 * at once, on InfiniBand and on RoCE alike.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/route.h>
#include <linux/uaccess.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_user_sa.h>

#include <kunit/visibility.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

/**
 * rcm_route_flow_label() - RoCE v2 flow label of a connection
 * @src: local address and port
 * @dst: remote address and port
 *
 * An IPv6 source with a flow label of its own keeps it; otherwise the
 * label is a hash of the two ports, as the in-tree CM derives it, so
 * that connections between the same hosts spread over ECMP paths.
 */
VISIBLE_IF_KUNIT u32 rcm_route_flow_label(const struct sockaddr *src,
					  const struct sockaddr *dst)
{
	u32 fl = 0;

	if (src->sa_family == AF_INET6)
		fl = be32_to_cpu(((const struct sockaddr_in6 *)src)->sin6_flowinfo) &
		     IB_GRH_FLOWLABEL_MASK;
	if (!fl)
		fl = ((u32)rcm_addr_port(src) * 31 + rcm_addr_port(dst)) &
		     IB_GRH_FLOWLABEL_MASK;
	return fl;
}

/* Service level of @tos on @ndev: its VLAN egress map or its TC map. */
u8 rcm_route_tos_to_sl(struct net_device *ndev, u8 tos)
{
	int prio = rt_tos2priority(tos);

	if (is_vlan_dev(ndev))
		return (vlan_dev_get_egress_qos_mask(ndev, prio) &
			VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
	if (ndev->num_tc)
		return netdev_get_prio_tc_map(ndev, prio);
	return 0;
}

/* Build the RoCE path of @id; @id->lock held, address resolved. */
static int rcm_route_roce(struct rcm_id *id)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	struct net_device *ndev;
	struct sa_path_rec *path;

	path = kzalloc(sizeof(*path), GFP_KERNEL_ACCOUNT);
	if (!path)
		return -ENOMEM;
	ndev = dev_get_by_index(id->net, da->bound_dev_if);
	if (!ndev) {
		kfree(path);
		return -ENODEV;
	}
	path->rec_type = sa_conv_gid_to_pathrec_type(da->sgid_attr->gid_type);
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, da->dst_dev_addr);
	rdma_ip2gid((struct sockaddr *)&id->bind.addr, &path->sgid);
	rdma_ip2gid((struct sockaddr *)&id->dst_addr, &path->dgid);
	path->hop_limit = da->hoplimit;
	path->reversible = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = iboe_get_mtu(ndev->mtu);
	path->sl = rcm_route_tos_to_sl(ndev, id->tos);
	path->traffic_class = id->tos;
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	/*
	 * With an ACK timeout set, take half of it as the packet lifetime:
	 * local ACK timeout = 2 * packet lifetime + the CA's ACK delay
	 * (IBTA 12.7.34), the delay being negligible on RoCE.
	 */
	if (id->ack_timeout_set && id->ack_timeout)
		path->packet_life_time = id->ack_timeout - 1;
	else
		path->packet_life_time = RCM_ROCE_PACKET_LIFETIME;
	dev_put(ndev);
	if (!path->mtu) {
		/* The netdev's MTU is below the smallest RoCE MTU. */
		kfree(path);
		return -EINVAL;
	}
	if (rdma_protocol_roce_udp_encap(id->rdev->ibdev, id->port_num))
		path->flow_label =
			cpu_to_be32(rcm_route_flow_label((struct sockaddr *)&id->bind.addr,
							 (struct sockaddr *)&id->dst_addr));
	id->path = path;
	return 0;
}

/*
 * The one SA client of the module: ib_sa counts its path queries and
 * multicast memberships (rcm_mcast.c) in flight.
 */
struct ib_sa_client rcm_sa_client;

/**
 * rcm_route_init() - register rcm's SA client
 *
 * Return: 0.
 */
int rcm_route_init(void)
{
	ib_sa_register_client(&rcm_sa_client);
	return 0;
}

/**
 * rcm_route_exit() - unregister it
 *
 * Every id is gone by then, and each waited for its query's callback;
 * ib_sa_unregister_client() waits for ib_sa to be done with the client.
 */
void rcm_route_exit(void)
{
	ib_sa_unregister_client(&rcm_sa_client);
}

/**
 * rcm_route_ib_mask() - the PathRecord query of an id, as in-tree
 * @family: the id's address family
 * @src: its source address
 * @tos: its type of service
 * @rec: the query's record: its traffic class or QoS class is set here
 *
 * cma.c:cma_query_ib_route(): DGID, SGID, P_Key, one path, reversible,
 * the service ID; an AF_INET id adds its TOS as the QoS class, an
 * AF_INET6 or AF_IB one the traffic class of its source's flow info.
 *
 * Return: the component mask.
 */
VISIBLE_IF_KUNIT ib_sa_comp_mask
rcm_route_ib_mask(sa_family_t family, const struct sockaddr *src, u8 tos,
		  struct sa_path_rec *rec)
{
	ib_sa_comp_mask mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
			       IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
			       IB_SA_PATH_REC_REVERSIBLE |
			       IB_SA_PATH_REC_SERVICE_ID;
	__be32 flowinfo;

	switch (family) {
	case AF_INET:
		rec->qos_class = cpu_to_be16(tos);
		return mask | IB_SA_PATH_REC_QOS_CLASS;
	case AF_INET6:
		flowinfo = ((const struct sockaddr_in6 *)src)->sin6_flowinfo;
		break;
	case AF_IB:
		flowinfo = ((const struct sockaddr_ib *)src)->sib_flowinfo;
		break;
	default:
		return mask;
	}
	rec->traffic_class = (u8)(be32_to_cpu(flowinfo) >> 20);
	return mask | IB_SA_PATH_REC_TRAFFIC_CLASS;
}

/* ib_sa is done with the path query of @context (an id). */
static void rcm_route_sa_done(int status, struct sa_path_rec *rec,
			      RCM_SA_NUM_PRS num_prs, void *context)
{
	struct rcm_id *id = context;
	struct sa_path_rec *path = NULL;
	struct rcm_uevent *ev;
	struct mem_cgroup *old;

	mutex_lock(&id->lock);
	ev = id->route_ev;
	id->route_ev = NULL;
	id->sa_query = NULL;
	if (WARN_ON_ONCE(!ev)) {
		/* ib_sa calls back once: nothing holds the id for this. */
		mutex_unlock(&id->lock);
		return;
	}
	if (id->state != RCM_STATE_ROUTE_QUERY) {
		/* Destroy or device removal won; they report what counts. */
		rcm_event_free(ev);
		goto out;
	}
	if (!status && (!rec || num_prs < 1))
		status = -ENODATA;
	if (!status) {
		old = rcm_charge_begin(id);
		path = kmemdup(rec, sizeof(*rec), GFP_KERNEL_ACCOUNT);
		rcm_charge_end(old);
		if (!path)
			status = -ENOMEM;
	}
	if (!status) {
		id->path = path;
		id->state = RCM_STATE_ROUTE_RESOLVED;
		trace_cm_resolve_route(id);
	}
	/* As in-tree: a failure goes back to ADDR_RESOLVED, ib_sa's status. */
	rcm_id_resolved(id, ev, status, RCM_EVENT_ROUTE_ERROR,
			RCM_STATE_ADDR_RESOLVED, RCM_STATE_ROUTE_RESOLVED);
out:
	mutex_unlock(&id->lock);
	rcm_id_put(id);
}

/*
 * Ask the SA for @id's path; @id->lock held, state ADDR_RESOLVED on an
 * InfiniBand port. @ev is the event the callback will deliver.
 */
static int rcm_route_ib(struct rcm_id *id, u32 timeout_ms,
			struct rcm_uevent *ev)
{
	const struct sockaddr *dst = &id->dst_addr.sa;
	struct rdma_dev_addr *da = &id->dev_addr;
	struct sa_path_rec rec = {};
	ib_sa_comp_mask mask;
	int ret;

	rec.rec_type = rdma_cap_opa_ah(id->rdev->ibdev, id->port_num) ?
		       SA_PATH_REC_TYPE_OPA : SA_PATH_REC_TYPE_IB;
	rdma_addr_get_sgid(da, &rec.sgid);
	rdma_addr_get_dgid(da, &rec.dgid);
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(da));
	rec.numb_path = 1;
	rec.reversible = 1;
	/* rdma_get_service_id(): an AF_IB destination names its own. */
	if (dst->sa_family == AF_IB)
		rec.service_id = id->dst_addr.ib.sib_sid;
	else if (rcm_wire_sid_compose(id->ps, rcm_addr_port(dst),
				      &rec.service_id))
		return -EINVAL;
	mask = rcm_route_ib_mask(id->bind.addr.sa.sa_family, &id->bind.addr.sa,
				 id->tos, &rec);

	id->route_ev = ev;
	refcount_inc(&id->ref);		/* the query's */
	id->state = RCM_STATE_ROUTE_QUERY;
	/* Its callback takes our lock: it cannot finish before we store. */
	ret = ib_sa_path_rec_get(&rcm_sa_client, id->rdev->ibdev, id->port_num,
				 &rec, mask, timeout_ms, GFP_KERNEL,
				 rcm_route_sa_done, id, &id->sa_query);
	if (ret < 0) {
		/* The callback will not run: undo. The caller holds a ref. */
		id->route_ev = NULL;
		id->sa_query = NULL;
		refcount_dec(&id->ref);
		id->state = RCM_STATE_ADDR_RESOLVED;
		return ret;
	}
	id->sa_query_id = ret;
	return 0;
}

/**
 * rcm_route_cancel() - cancel an id's SA path query, if one is in flight
 * @id: the id, which destroy or device removal has taken out of
 *      ROUTE_QUERY; the caller holds its lock
 *
 * The callback still comes (-EINTR, or the answer that beat the cancel),
 * frees the event and drops the query's reference; an answer the SA
 * sends later finds no query and ib_mad drops it.
 */
void rcm_route_cancel(struct rcm_id *id)
{
	lockdep_assert_held(&id->lock);
	if (id->route_ev && id->sa_query)
		ib_sa_cancel_query(id->sa_query_id, id->sa_query);
}

/* The flags of the one record a route takes (ucma_set_ib_path()'s). */
#define RCM_IB_PATH_FLAGS (IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL)

/**
 * rcm_route_path_unpack() - the path of an RCM_OPTION_IB_PATH record
 * @data: the record as userspace gave it (struct ib_path_rec_data,
 *        librdmacm's struct ibv_path_data): flags, then a PathRecord in
 *        the SA's wire layout (IBA 15.2.5.16)
 * @opa: the id's port is an OPA one
 * @path: set to the path when the record is taken
 *
 * As ucma.c:ucma_set_ib_path(): only a record whose flags are exactly
 * GMP, primary and bidirectional is a route; its PathRecord is unpacked
 * as an IB record (ib_sa_unpack_path()), converted for an OPA port.
 *
 * Return: true when @data is a route's record and @path was set.
 */
VISIBLE_IF_KUNIT bool rcm_route_path_unpack(const struct ib_path_rec_data *data,
					    bool opa, struct sa_path_rec *path)
{
	struct sa_path_rec ib = { .rec_type = SA_PATH_REC_TYPE_IB };

	if (data->flags != RCM_IB_PATH_FLAGS)
		return false;
	ib_sa_unpack_path((void *)data->path_rec, &ib);
	if (opa)
		sa_convert_path_ib_to_opa(path, &ib);
	else
		*path = ib;
	return true;
}

/**
 * rcm_route_ib_path_from_user() - find the route among userspace's records
 * @uptr: user address of an array of struct ib_path_rec_data
 * @len: its length in bytes
 * @data: set to the first record with a route's flags
 *
 * Read before the id is locked, a record at a time: ucma takes up to
 * KMALLOC_MAX_SIZE bytes of them, so does rcm, without holding them.
 *
 * Return: 0, -EINVAL (a length of no whole records, too long, or no
 * route's record among them), -EFAULT.
 */
int rcm_route_ib_path_from_user(u64 uptr, u32 len,
				struct ib_path_rec_data *data)
{
	if (!len || len % sizeof(*data) || len > KMALLOC_MAX_SIZE)
		return -EINVAL;
	for (; len; len -= sizeof(*data), uptr += sizeof(*data)) {
		if (copy_from_user(data, u64_to_user_ptr(uptr), sizeof(*data)))
			return -EFAULT;
		if (data->flags == RCM_IB_PATH_FLAGS)
			return 0;
		cond_resched();
	}
	return -EINVAL;
}

/*
 * Take an id of @file for a route command, with the ROUTE_RESOLVED event
 * the command may queue in *@ev: the id with its command lock and lock
 * held, or an ERR_PTR (-ENOENT, -ENOMEM).
 */
static struct rcm_id *rcm_route_lock(struct rcm_file *file, u32 handle,
				     struct rcm_uevent **ev)
{
	struct rcm_id *id = rcm_id_get(file, handle);

	if (!id)
		return ERR_PTR(-ENOENT);
	*ev = rcm_event_alloc(id, RCM_EVENT_ROUTE_RESOLVED, GFP_KERNEL);
	if (!*ev) {
		rcm_id_put(id);
		return ERR_PTR(-ENOMEM);
	}
	mutex_lock(&id->cmd_lock);
	mutex_lock(&id->lock);
	return id;
}

/* Undo rcm_route_lock(); @ev, unless the command queued it, is freed. */
static void rcm_route_unlock(struct rcm_id *id, struct rcm_uevent *ev)
{
	mutex_unlock(&id->lock);
	mutex_unlock(&id->cmd_lock);
	rcm_event_free(ev);
	rcm_id_put(id);
}

/* The route is resolved: the state, the trace and the event. */
static void rcm_route_resolved(struct rcm_id *id, struct rcm_uevent *ev)
{
	id->state = RCM_STATE_ROUTE_RESOLVED;
	trace_cm_resolve_route(id);
	rcm_id_resolved(id, ev, 0, 0, 0, RCM_STATE_ROUTE_RESOLVED);
}

/* Make @data the route of @id; see rcm_route_set_ib_path(). */
static int rcm_route_take_ib_path(struct rcm_id *id,
				  const struct ib_path_rec_data *data)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	struct net_device *ndev;
	struct sa_path_rec *path;
	struct mem_cgroup *old;

	if (id->state != RCM_STATE_ADDR_RESOLVED || !id->rdev ||
	    rdma_protocol_iwarp(id->rdev->ibdev, id->port_num))
		return -EINVAL;
	old = rcm_charge_begin(id);
	path = kzalloc(sizeof(*path), GFP_KERNEL_ACCOUNT);
	rcm_charge_end(old);
	if (!path)
		return -ENOMEM;
	rcm_route_path_unpack(data, rdma_cap_opa_ah(id->rdev->ibdev,
						    id->port_num), path);
	if (rdma_protocol_roce(id->rdev->ibdev, id->port_num)) {
		ndev = dev_get_by_index(id->net, da->bound_dev_if);
		if (!ndev) {
			kfree(path);
			return -ENODEV;
		}
		dev_put(ndev);
		path->rec_type =
			sa_conv_gid_to_pathrec_type(da->sgid_attr->gid_type);
		path->roce.route_resolved = true;
		sa_path_set_dmac(path, da->dst_dev_addr);
	}
	kfree(id->path);
	id->path = path;
	return 0;
}

/**
 * rcm_route_set_ib_path() - resolve an id's route with a given path
 * @file: the file of the id
 * @handle: the id's handle
 * @data: the record rcm_route_ib_path_from_user() found
 *
 * cma.c:rdma_set_ib_path(): an id whose address is resolved takes the
 * path as its route, and ucma reports ROUTE_RESOLVED. On RoCE the path's
 * link-layer part is the id's own (cma_iboe_set_path_rec_l2_fields()):
 * the record type of its GID and the next hop's MAC; the rest is
 * userspace's. iWARP has no path: refused there (in-tree stores one
 * that nothing reads).
 *
 * Return: 0, -ENOENT, -EINVAL (not ADDR_RESOLVED, iWARP), -ENODEV (the
 * RoCE netdev is gone), -ENXIO (the device was removed), -ENOMEM.
 */
int rcm_route_set_ib_path(struct rcm_file *file, u32 handle,
			  const struct ib_path_rec_data *data)
{
	struct rcm_uevent *ev;
	struct rcm_id *id;
	int ret;

	id = rcm_route_lock(file, handle, &ev);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL)
		ret = rcm_id_state_errno(id);
	else
		ret = rcm_route_take_ib_path(id, data);
	if (!ret) {
		rcm_route_resolved(id, ev);
		ev = NULL;
	}
	rcm_route_unlock(id, ev);
	return ret;
}

int rcm_cmd_resolve_route(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_resolve_route *cmd = arg;
	struct rcm_uevent *ev;
	struct rcm_id *id;
	int ret = 0;

	/*
	 * The timeout (or the id's RESOLVE_TIMEOUT option, which replaces
	 * it) bounds the path query to the subnet administrator on
	 * InfiniBand; RoCE and iWARP routes are built here at once.
	 */
	if (cmd->timeout_ms > RCM_MAX_TIMEOUT_MS)
		return -EINVAL;
	ret = rcm_event_room(file);
	if (ret)
		return ret;
	id = rcm_route_lock(file, cmd->id, &ev);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (id->state != RCM_STATE_ADDR_RESOLVED) {
		ret = rcm_id_state_errno(id);
	} else if (rdma_protocol_ib(id->rdev->ibdev, id->port_num)) {
		ret = rcm_route_ib(id, id->resolve_timeout_ms ?: cmd->timeout_ms,
				   ev);
		if (!ret)
			ev = NULL;	/* the query's now */
	} else if (rdma_protocol_roce(id->rdev->ibdev, id->port_num)) {
		ret = rcm_route_roce(id);
	}
	if (!ret && ev) {
		rcm_route_resolved(id, ev);
		ev = NULL;
	}
	rcm_route_unlock(id, ev);
	return ret;
}

/**
 * rcm_route_fill() - report an id's path to userspace
 * @id: the id; the caller holds its lock
 * @num: set to 1 when @id has a path, else 0
 * @out: the path in uapi form
 */
void rcm_route_fill(struct rcm_id *id, u32 *num, struct rcm_path *out)
{
	struct sa_path_rec *path = id->path;

	*num = 0;
	if (!path)
		return;
	*num = 1;
	memcpy(out->dgid, &path->dgid, sizeof(out->dgid));
	memcpy(out->sgid, &path->sgid, sizeof(out->sgid));
	if (path->rec_type != SA_PATH_REC_TYPE_IB &&
	    path->rec_type != SA_PATH_REC_TYPE_OPA) {
		memcpy(out->dmac, path->roce.dmac, sizeof(out->dmac));
	} else {
		/* As ib_copy_path_rec_to_user(): the LIDs, 16 bits of them. */
		out->dlid = (u16)be32_to_cpu(sa_path_get_dlid(path));
		out->slid = (u16)be32_to_cpu(sa_path_get_slid(path));
	}
	out->hop_limit = path->hop_limit;
	out->traffic_class = path->traffic_class;
	out->flow_label = be32_to_cpu(path->flow_label);
	out->pkey = be16_to_cpu(path->pkey);
	out->sl = path->sl;
	out->mtu = path->mtu;
	out->rate = path->rate;
	out->packet_life_time = path->packet_life_time;
	out->rec_type = path->rec_type == SA_PATH_REC_TYPE_ROCE_V2 ? 2 :
			path->rec_type == SA_PATH_REC_TYPE_ROCE_V1 ? 1 : 0;
}
