// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: route resolution.
 *
 * On RoCE the path is built locally from what address resolution found,
 * as the in-tree CM does: GIDs from the IP addresses, next-hop MAC, MTU
 * of the netdev, traffic class from the TOS and a service level from the
 * netdev's priority map. iWARP needs no path: the TCP connection of the
 * MPA exchange finds its own way. Native InfiniBand needs a path query to
 * the subnet administrator, which rcm does not implement (EOPNOTSUPP).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/route.h>
#include <rdma/ib_sa.h>

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

int rcm_cmd_resolve_route(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_resolve_route *cmd = arg;
	struct rcm_uevent *ev;
	struct rcm_id *id;
	int ret = 0;

	/*
	 * The timeout (or the id's RESOLVE_TIMEOUT option, which replaces
	 * it) would bound a path query to the subnet administrator; RoCE
	 * and iWARP routes are built here at once, so nothing waits on it.
	 */
	if (cmd->timeout_ms > RCM_MAX_TIMEOUT_MS)
		return -EINVAL;
	ret = rcm_event_room(file);
	if (ret)
		return ret;
	id = rcm_id_get(file, cmd->id);
	if (!id)
		return -ENOENT;
	ev = rcm_event_alloc(id, RCM_EVENT_ROUTE_RESOLVED, GFP_KERNEL);
	if (!ev) {
		rcm_id_put(id);
		return -ENOMEM;
	}
	mutex_lock(&id->cmd_lock);
	mutex_lock(&id->lock);
	if (id->state != RCM_STATE_ADDR_RESOLVED)
		ret = rcm_id_state_errno(id);
	else if (rdma_protocol_ib(id->rdev->ibdev, id->port_num))
		ret = -EOPNOTSUPP;
	else if (rdma_protocol_roce(id->rdev->ibdev, id->port_num))
		ret = rcm_route_roce(id);
	if (!ret) {
		id->state = RCM_STATE_ROUTE_RESOLVED;
		trace_cm_resolve_route(id);
		rcm_id_info_event(id, ev);
		/* What the QP a program creates now needs. */
		rcm_qp_event_attrs(ev, id, BIT(RCM_QPS_INIT));
		/*
		 * The id's file, not the command's: a migration may have
		 * moved the id between the lookup and the locks.
		 */
		rcm_event_queue(id->file, ev);
		ev = NULL;
	}
	mutex_unlock(&id->lock);
	mutex_unlock(&id->cmd_lock);
	rcm_event_free(ev);
	rcm_id_put(id);
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
	const struct sa_path_rec *path = id->path;

	*num = 0;
	if (!path)
		return;
	*num = 1;
	memcpy(out->dgid, &path->dgid, sizeof(out->dgid));
	memcpy(out->sgid, &path->sgid, sizeof(out->sgid));
	memcpy(out->dmac, path->roce.dmac, sizeof(out->dmac));
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
