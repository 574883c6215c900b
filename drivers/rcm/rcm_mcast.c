// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: multicast groups of UD ids - RCM_IOCTL_JOIN_MCAST and
 * RCM_IOCTL_LEAVE_MCAST.
 *
 * On RoCE there is no subnet administrator to join: a join is local, as
 * in the in-tree CM (cma.c:cma_iboe_join_multicast()). The group's MGID
 * comes from its IP address (rcm_wire_mcast_mgid()), the address vector
 * from the id's GID entry and netdev, and a full member on RoCE v2 also
 * joins the IPv4 group on the id's netdev (ip_mc_inc_group(), as
 * cma.c:cma_igmp_send()), so that IGMP snooping switches forward the
 * group's RoCE v2 packets to us. The result is reported as an event
 * queued before the ioctl returns. iWARP has no multicast.
 *
 * On InfiniBand a join is an MCMemberRecord Set to the subnet
 * administrator through ib_sa's multicast layer (ib_sa_join_multicast()
 * with the module's SA client), built as cma.c:cma_join_ib_multicast()
 * builds it (rcm_mcast_ib_rec()); the SA's answer, in the membership's
 * callback, is the MULTICAST_JOIN (its MLID the DLID, its MGID the DGID,
 * its Q_Key, SL, rate, flow label and traffic class) or the
 * MULTICAST_ERROR with ib_sa's status. ib_sa may call back again later
 * (an SM change: -ENETRESET), and each call is an event, as in-tree.
 *
 * Lifetime and locking of a group are written beside struct rcm_mcast
 * and struct rcm_mcast_igmp in rcm_priv.h. Lock order here: the id's
 * command lock, then RTNL or the id's lock (never one inside the other:
 * a device's removal may run under RTNL for some drivers and takes the
 * id's lock), then the file's read mutex without the id's lock. An SA
 * membership is joined under the id's lock (ib_sa only queues work) and
 * freed without it (ib_sa_free_multicast() waits for its callback,
 * which takes the lock).
 *
 * The in-tree ucma had use-after-frees where a leave freed a group while
 * an event of it was being delivered or read, and where a destroy and a
 * leave both freed it (kernel-cm-facts.md section 5). Here:
 * - a group is freed only by its leave or by its id's destroy, and the
 *   leave unlinks it from the id under the id's lock first, so exactly
 *   one of them finds it (the destroy walks the list only after every
 *   command on the id, a leave included, has dropped its reference);
 * - on RoCE a group's events are produced only by its join, inside the
 *   ioctl, under the command lock the leave also holds, so none can be
 *   in the making while a leave runs;
 * - on InfiniBand they are produced by the SA callback under the id's
 *   lock, and only while the group still holds the membership called
 *   back for; the leave, a device removal and the destroy take the
 *   membership under that lock, then free it, which returns only once
 *   no callback of it runs or will run: the callback never sees a freed
 *   group, and none queues an event after the leave's purge;
 * - queued events point at their group, and the leave (or the destroy)
 *   purges them under the file's read mutex before freeing it, so no
 *   read() is copying one or can find one afterwards;
 * - an IP membership is taken off its group under the id's lock by the
 *   one thread that drops it (leave, device removal, destroy).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>

#include <linux/moduleparam.h>
#include <kunit/visibility.h>

#include "rcm_priv.h"

static unsigned int max_mcast_per_file = 65536;
module_param(max_mcast_per_file, uint, 0644);
MODULE_PARM_DESC(max_mcast_per_file,
		 "Multicast groups the ids of one file may hold at once (default 65536)");

/* Hop limit of RoCE v1 and IPv6 groups; RoCE v2 IPv4 takes the IPv6 default. */
#define RCM_MCAST_HOP_LIMIT 1

/* An IP group must be a multicast address; an AF_IB one is any MGID. */
static bool rcm_mcast_addr_ok(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_IB)
		return true;
	if (ss->ss_family == AF_INET)
		return ipv4_is_multicast(((const struct sockaddr_in *)ss)->sin_addr.s_addr);
	return ipv6_addr_is_multicast(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* Same group: family and IP address; the port does not count. */
static bool rcm_mcast_same(const struct sockaddr_storage *a,
			   const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_IB)
		return !memcmp(&((const struct sockaddr_ib *)a)->sib_addr,
			       &((const struct sockaddr_ib *)b)->sib_addr,
			       sizeof(struct ib_addr));
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/*
 * The latest join of @addr by @id: an id may join a group more than
 * once (as in-tree), and a leave ends the latest, as librdmacm's leave
 * takes the latest join of its list.
 */
static struct rcm_mcast *rcm_mcast_find(struct rcm_id *id,
					const struct sockaddr_storage *addr)
{
	struct rcm_mcast *mc;

	lockdep_assert_held(&id->lock);
	list_for_each_entry_reverse(mc, &id->mcasts, node)
		if (rcm_mcast_same(&mc->addr, addr))
			return mc;
	return NULL;
}

/*
 * Drop and free the IP memberships on @list (struct rcm_mcast_igmp),
 * taken off their groups by the caller. No rcm lock may be held: this
 * takes RTNL. A netdev that is gone took its memberships with it.
 * Ifindexes are allocated upwards, so a gone netdev's is not reused by
 * another one in the meantime.
 */
static void rcm_mcast_igmp_drop(struct net *net, struct list_head *list)
{
	struct rcm_mcast_igmp *igmp, *tmp;
	struct net_device *ndev;
	struct in_device *in_dev;

	if (list_empty(list))
		return;
	rtnl_lock();
	list_for_each_entry(igmp, list, node) {
		ndev = __dev_get_by_index(net, igmp->ifindex);
		in_dev = ndev ? __in_dev_get_rtnl(ndev) : NULL;
		if (in_dev)
			ip_mc_dec_group(in_dev, igmp->group);
	}
	rtnl_unlock();
	list_for_each_entry_safe(igmp, tmp, list, node)
		kfree(igmp);
}

/**
 * struct rcm_mcast_view - what a join needs of its id, taken under its lock
 * @ifindex: the id's netdev
 * @gid_type: the GID type of the id's source GID entry
 * @sgid_index: that entry's index
 * @port_num: the id's port
 * @tos: the id's type of service
 * @qkey: the id's Q_Key
 * @ib: the port is InfiniBand: the join goes to the SA
 */
struct rcm_mcast_view {
	int ifindex;
	enum ib_gid_type gid_type;
	u8 sgid_index;
	u32 port_num;
	u8 tos;
	u32 qkey;
	bool ib;
};

/*
 * Reserve one group of @file's max_mcast_per_file: -ENOBUFS beyond. The
 * in-tree CM has no bound but memory; this one is far above what a
 * receiver joins (the groups' memory is charged to the joiner's memory
 * cgroup, the IP memberships on the netdev are not).
 */
static int rcm_mcast_reserve(struct rcm_file *file)
{
	if (atomic_inc_return(&file->nr_mcasts) >
	    READ_ONCE(max_mcast_per_file)) {
		atomic_dec(&file->nr_mcasts);
		return -ENOBUFS;
	}
	return 0;
}

/* Give back a group of @file's: a failed join, a leave or a destroy. */
static void rcm_mcast_unreserve(struct rcm_file *file)
{
	atomic_dec(&file->nr_mcasts);
}

/* May @id join @mc's group? Takes the view of the id; @id->lock held. */
static int rcm_mcast_check(struct rcm_id *id, struct rcm_mcast *mc,
			   struct rcm_mcast_view *view)
{
	const struct ib_gid_attr *sgid;

	lockdep_assert_held(&id->lock);
	if (id->qp_type != RCM_QPT_UD)
		return -EINVAL;
	switch (id->state) {
	case RCM_STATE_ADDR_BOUND:
	case RCM_STATE_ADDR_RESOLVED:
	case RCM_STATE_ROUTE_RESOLVED:
		break;
	default:
		return rcm_id_state_errno(id);
	}
	if (!id->rdev)
		return -EINVAL;		/* bound to a wildcard address */
	view->ib = !rdma_protocol_roce(id->rdev->ibdev, id->port_num);
	if (view->ib)
		/* SA joins; iWARP has no multicast (-ENOSYS in-tree) */
		return rdma_cap_ib_mcast(id->rdev->ibdev, id->port_num) ?
		       0 : -EOPNOTSUPP;
	if (mc->addr.ss_family == AF_IB)
		return -EINVAL;		/* no MGID of RoCE's from a GID */
	sgid = id->dev_addr.sgid_attr;
	if (mc->addr.ss_family == AF_INET6 &&
	    sgid->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EOPNOTSUPP;	/* as 6.1's cma.c (-ENOTSUPP there) */
	view->ifindex = id->dev_addr.bound_dev_if;
	view->gid_type = sgid->gid_type;
	view->sgid_index = sgid->index;
	view->port_num = id->port_num;
	view->tos = id->tos;
	view->qkey = id->qkey;
	rcm_wire_mcast_mgid((struct sockaddr *)&mc->addr, sgid->gid_type,
			    &mc->mgid);
	return 0;
}

/*
 * The netdev part of a join, under RTNL and no rcm lock: the service
 * level of the id's TOS, and for a full member on RoCE v2 the IPv4
 * group's membership, which @igmp records (moved to @mc->igmp).
 * Return: 0 or -ENODEV / -EINVAL for the ioctl; *@status is what the
 * event reports (-ENODEV when the netdev has no IPv4 to join on).
 */
static int rcm_mcast_netdev(struct rcm_id *id, struct rcm_mcast *mc,
			    const struct rcm_mcast_view *view,
			    struct rcm_mcast_igmp **igmp, u8 *sl, int *status)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&mc->addr;
	struct net_device *ndev;
	struct in_device *in_dev;
	int ret = 0;

	*status = 0;
	rtnl_lock();
	ndev = view->ifindex ? __dev_get_by_index(id->net, view->ifindex) :
			       NULL;
	if (!ndev) {
		ret = -ENODEV;
		goto out;
	}
	if (!iboe_get_mtu(ndev->mtu)) {
		/* Below the smallest RoCE MTU, as cma.c refuses it. */
		ret = -EINVAL;
		goto out;
	}
	*sl = rcm_route_tos_to_sl(ndev, view->tos);
	if (mc->addr.ss_family != AF_INET ||
	    view->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
	    mc->join_flags != RCM_MC_JOIN_FULLMEMBER)
		goto out;
	in_dev = __in_dev_get_rtnl(ndev);
	if (!in_dev) {
		*status = -ENODEV;
		goto out;
	}
	ip_mc_inc_group(in_dev, sin->sin_addr.s_addr);
	(*igmp)->ifindex = view->ifindex;
	(*igmp)->group = sin->sin_addr.s_addr;
	mc->igmp = *igmp;
	*igmp = NULL;
out:
	rtnl_unlock();
	return ret;
}

/* The MULTICAST_JOIN (or, with @status, MULTICAST_ERROR) of @mc. */
static void rcm_mcast_event_fill(struct rcm_uevent *ev, struct rcm_mcast *mc,
				 const struct rcm_mcast_view *view, u8 sl,
				 int status)
{
	struct rcm_ud_param *ud = &ev->ev.ud;
	struct rcm_ah_attr *ah = &ud->ah_attr;

	ev->mc = mc;
	if (status) {
		ev->ev.event = RCM_EVENT_MULTICAST_ERROR;
		ev->ev.status = status;
		return;
	}
	ev->ev.event = RCM_EVENT_MULTICAST_JOIN;
	ud->qp_num = RCM_MCAST_QPN;
	ud->qkey = view->qkey;
	memcpy(ah->dgid, mc->mgid.raw, sizeof(ah->dgid));
	ah->flow_label = 0;
	ah->sgid_index = view->sgid_index;
	ah->hop_limit = RCM_MCAST_HOP_LIMIT;
	if (mc->addr.ss_family == AF_INET &&
	    view->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		ah->hop_limit = IPV6_DEFAULT_HOPLIMIT;
	/*
	 * The in-tree CM leaves the traffic class and service level 0; rcm
	 * gives a group the id's TOS as a route does, so a TOS set on the
	 * id applies to its multicast traffic too.
	 */
	ah->traffic_class = view->tos;
	ah->sl = sl;
	ah->dlid = 0;
	/* As 6.1's cma.c: the port's current rate. */
	ah->static_rate = IB_RATE_PORT_CURRENT;
	ah->is_global = 1;
	ah->port_num = view->port_num;
}

/**
 * rcm_mcast_ib_rec() - the MCMemberRecord of an InfiniBand join, as in-tree
 * @group: the group's address: an IP address maps to an MGID as IPoIB
 *         maps it (with the rdma_cm signature for RCM_PS_UDP), an IPv6
 *         address that is an SA-assigned MGID and an AF_IB address are
 *         the MGID, a wildcard asks the SA to assign one
 * @ps: the id's port space
 * @broadcast: the id's broadcast hardware address (scope and P_Key of
 *             the IP-mapped MGIDs)
 * @port_gid: the id's GID
 * @pkey: the id's P_Key
 * @qkey: the Q_Key to ask for; 0 leaves it to the SA
 * @join_flags: enum rcm_mcast_join_flags
 * @rec: the record, holding the template the caller found (the port's
 *       broadcast group's record) or zeros; the join's fields are set
 *
 * The component mask and fields of cma.c:cma_join_ib_multicast(): full
 * member or send-only full member (ucma's join states), the template's
 * SL, flow label and traffic class, and for RCM_PS_IPOIB its rate, MTU
 * and hop limit too.
 *
 * Return: the component mask of the Set.
 */
VISIBLE_IF_KUNIT ib_sa_comp_mask
rcm_mcast_ib_rec(const struct sockaddr *group, u16 ps, const u8 *broadcast,
		 const union ib_gid *port_gid, u16 pkey, u32 qkey,
		 u32 join_flags, struct ib_sa_mcmember_rec *rec)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)group;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)group;
	ib_sa_comp_mask mask = IB_SA_MCMEMBER_REC_MGID |
			       IB_SA_MCMEMBER_REC_PORT_GID |
			       IB_SA_MCMEMBER_REC_PKEY |
			       IB_SA_MCMEMBER_REC_JOIN_STATE |
			       IB_SA_MCMEMBER_REC_SL |
			       IB_SA_MCMEMBER_REC_FLOW_LABEL |
			       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;
	char map[MAX_ADDR_LEN];

	if (rcm_addr_is_any(group)) {
		memset(&rec->mgid, 0, sizeof(rec->mgid));
	} else if (group->sa_family == AF_IB) {
		memcpy(&rec->mgid, &((const struct sockaddr_ib *)group)->sib_addr,
		       sizeof(rec->mgid));
	} else if (group->sa_family == AF_INET6 &&
		   (be32_to_cpu(sin6->sin6_addr.s6_addr32[0]) & 0xfff0ffff) ==
		   0xff10a01b) {
		/* An MGID the SA assigned, given back as an IPv6 address. */
		memcpy(&rec->mgid, &sin6->sin6_addr, sizeof(rec->mgid));
	} else {
		if (group->sa_family == AF_INET6)
			ipv6_ib_mc_map(&sin6->sin6_addr, broadcast, map);
		else
			ip_ib_mc_map(sin->sin_addr.s_addr, broadcast, map);
		if (ps == RCM_PS_UDP)
			map[7] = 0x01;	/* the rdma_cm signature */
		memcpy(&rec->mgid, map + 4, sizeof(rec->mgid));
	}
	rec->port_gid = *port_gid;
	rec->pkey = cpu_to_be16(pkey);
	rec->qkey = cpu_to_be32(qkey);
	if (qkey)
		mask |= IB_SA_MCMEMBER_REC_QKEY;
	rec->join_state = join_flags == RCM_MC_JOIN_SENDONLY_FULLMEMBER ?
			  BIT(SENDONLY_FULLMEMBER_JOIN) : BIT(FULLMEMBER_JOIN);
	if (ps == RCM_PS_IPOIB)
		mask |= IB_SA_MCMEMBER_REC_RATE |
			IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU |
			IB_SA_MCMEMBER_REC_HOP_LIMIT;
	return mask;
}

/* The MULTICAST_JOIN of the SA's @rec, as ib_init_ah_from_mcmember(). */
static void rcm_mcast_ib_event_fill(struct rcm_uevent *ev, struct rcm_id *id,
				    const struct ib_sa_mcmember_rec *rec)
{
	struct rcm_ud_param *ud = &ev->ev.ud;
	struct rcm_ah_attr *ah = &ud->ah_attr;

	ud->qp_num = RCM_MCAST_QPN;
	ud->qkey = id->qkey;
	memcpy(ah->dgid, rec->mgid.raw, sizeof(ah->dgid));
	ah->flow_label = be32_to_cpu(rec->flow_label);
	ah->sgid_index = id->dev_addr.sgid_attr->index;
	ah->hop_limit = rec->hop_limit;
	ah->traffic_class = rec->traffic_class;
	ah->sl = rec->sl;
	ah->dlid = be16_to_cpu(rec->mlid);
	ah->static_rate = rec->rate;
	ah->is_global = 1;
	ah->port_num = id->port_num;
}

/*
 * ib_sa's callback of a membership: the SA's answer (@status 0 and
 * @multicast->rec), its error, or a later reset. Reported while the
 * group still holds @multicast and the id is attached; see the top of
 * this file for why @mc is never freed under it. Returns 0 always: the
 * membership is freed by whoever takes it from the group.
 */
static int rcm_mcast_ib_handler(int status, struct ib_sa_multicast *multicast)
{
	struct rcm_mcast *mc = multicast->context;
	struct rcm_id *id = mc->id;
	struct rcm_uevent *ev;
	u32 qkey;

	mutex_lock(&id->lock);
	if (mc->sa_mc != multicast || id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL)
		goto out;
	ev = rcm_event_alloc(id, RCM_EVENT_MULTICAST_JOIN, GFP_KERNEL);
	if (!ev) {
		pr_warn_ratelimited("id %u: no memory for a multicast event\n",
				    id->num);
		goto out;
	}
	ev->mc = mc;
	if (!status) {
		/*
		 * cma_set_qkey(): the SA's Q_Key becomes the id's if it had
		 * none; another one than the id's is an error (the in-tree
		 * CM then reports nothing and warns).
		 */
		qkey = be32_to_cpu(multicast->rec.qkey);
		if (!qkey || (id->qkey && id->qkey != qkey))
			status = -EINVAL;
		else
			id->qkey = qkey;
	}
	if (status) {
		ev->ev.event = RCM_EVENT_MULTICAST_ERROR;
		ev->ev.status = status;
	} else {
		rcm_mcast_ib_event_fill(ev, id, &multicast->rec);
	}
	rcm_event_queue(id->file, ev);
out:
	mutex_unlock(&id->lock);
	return 0;
}

/*
 * Ask the SA to join @mc; @id->lock held, checked by rcm_mcast_check().
 * The callback waits for the lock, so it finds @mc->sa_mc set.
 */
static int rcm_mcast_join_ib(struct rcm_id *id, struct rcm_mcast *mc)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	struct ib_device *ibdev = id->rdev->ibdev;
	struct ib_sa_multicast *sa_mc;
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask mask;
	union ib_gid bcast;

	lockdep_assert_held(&id->lock);
	/*
	 * The template, as in-tree: the record of the port's IPoIB
	 * broadcast group, which ib_sa knows once IPoIB joined it. The
	 * in-tree CM fails the join without it (-EADDRNOTAVAIL); rcm joins
	 * with zeros (SL 0, flow label 0, traffic class 0), so that ids
	 * without IPoIB (AF_IB) can join.
	 */
	ib_addr_get_mgid(da, &bcast);
	if (ib_sa_get_mcmember_rec(ibdev, id->port_num, &bcast, &rec))
		memset(&rec, 0, sizeof(rec));
	mask = rcm_mcast_ib_rec((struct sockaddr *)&mc->addr, id->ps,
				da->broadcast, &da->sgid_attr->gid,
				ib_addr_get_pkey(da),
				id->qkey ?: be32_to_cpu(rec.qkey),
				mc->join_flags, &rec);
	mc->mgid = rec.mgid;
	sa_mc = ib_sa_join_multicast(&rcm_sa_client, ibdev, id->port_num, &rec,
				     mask, GFP_KERNEL, rcm_mcast_ib_handler, mc);
	if (IS_ERR(sa_mc))
		return PTR_ERR(sa_mc);
	mc->sa_mc = sa_mc;
	return 0;
}

int rcm_cmd_join_mcast(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_join_mcast *cmd = arg;
	struct rcm_mcast_igmp *igmp;
	struct rcm_mcast_view view;
	struct rcm_uevent *ev;
	struct rcm_mcast *mc;
	struct rcm_id *id;
	LIST_HEAD(undo);
	int ret, status = 0;
	u8 sl = 0;

	if (cmd->join_flags != RCM_MC_JOIN_FULLMEMBER &&
	    cmd->join_flags != RCM_MC_JOIN_SENDONLY_FULLMEMBER)
		return -EINVAL;
	ret = rcm_event_room(file);
	if (ret)
		return ret;
	id = rcm_id_get(file, cmd->id);
	if (!id)
		return -ENOENT;
	mc = kzalloc(sizeof(*mc), GFP_KERNEL_ACCOUNT);
	igmp = kzalloc(sizeof(*igmp), GFP_KERNEL_ACCOUNT);
	ev = rcm_event_alloc(id, RCM_EVENT_MULTICAST_JOIN, GFP_KERNEL);
	if (!mc || !igmp || !ev) {
		ret = -ENOMEM;
		goto out;
	}
	if (rcm_addr_from_user_id(&cmd->addr, &mc->addr) ||
	    !rcm_mcast_addr_ok(&mc->addr)) {
		ret = -EINVAL;
		goto out;
	}
	mc->id = id;
	mc->context = cmd->context;
	mc->join_flags = cmd->join_flags;

	/*
	 * The command lock keeps other joins and leaves of the id out, and
	 * a migration: the id's file, which counts the group, stays.
	 */
	mutex_lock(&id->cmd_lock);
	mutex_lock(&id->lock);
	ret = rcm_mcast_check(id, mc, &view);
	if (!ret && view.ib) {
		/* The SA's answer is the event: none queued here. */
		ret = rcm_mcast_reserve(id->file);
		if (!ret) {
			ret = rcm_mcast_join_ib(id, mc);
			if (ret)
				rcm_mcast_unreserve(id->file);
		}
		if (!ret) {
			list_add_tail(&mc->node, &id->mcasts);
			mc = NULL;
		}
		mutex_unlock(&id->lock);
		goto out_cmd;
	}
	mutex_unlock(&id->lock);
	if (!ret)
		ret = rcm_mcast_reserve(id->file);
	if (ret)
		goto out_cmd;
	ret = rcm_mcast_netdev(id, mc, &view, &igmp, &sl, &status);
	if (ret)
		goto out_unreserve;

	mutex_lock(&id->lock);
	if (id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL) {
		/* Lost to a destroy or a removal while under RTNL: undo. */
		ret = rcm_id_state_errno(id);
		if (mc->igmp)
			list_add(&mc->igmp->node, &undo);
		mc->igmp = NULL;
	} else {
		list_add_tail(&mc->node, &id->mcasts);
		rcm_mcast_event_fill(ev, mc, &view, sl, status);
		rcm_event_queue(id->file, ev);
		ev = NULL;
		mc = NULL;
	}
	mutex_unlock(&id->lock);
	rcm_mcast_igmp_drop(id->net, &undo);
out_unreserve:
	if (ret)
		rcm_mcast_unreserve(id->file);
out_cmd:
	mutex_unlock(&id->cmd_lock);
out:
	rcm_event_free(ev);
	kfree(igmp);
	kfree(mc);
	rcm_id_put(id);
	return ret;
}

int rcm_cmd_leave_mcast(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_leave_mcast *cmd = arg;
	struct ib_sa_multicast *sa_mc = NULL;
	struct sockaddr_storage addr;
	struct rcm_mcast *mc;
	struct rcm_id *id;
	LIST_HEAD(igmp);

	if (rcm_addr_from_user_id(&cmd->addr, &addr))
		return -EINVAL;
	id = rcm_id_lock(file, cmd->id);
	if (!id)
		return -ENOENT;
	/* The claim: once unlinked, no destroy or removal can find it. */
	mc = rcm_mcast_find(id, &addr);
	if (mc) {
		list_del(&mc->node);
		if (mc->igmp)
			list_add(&mc->igmp->node, &igmp);
		mc->igmp = NULL;
		sa_mc = mc->sa_mc;
		mc->sa_mc = NULL;
	}
	mutex_unlock(&id->lock);
	if (mc) {
		/* Waits for a callback that runs: none reports after this. */
		if (sa_mc)
			ib_sa_free_multicast(sa_mc);
		/* The command lock keeps id->file: no migration meanwhile. */
		rcm_event_purge_mcast(id->file, mc);
		spin_lock(&id->file->event_lock);
		cmd->out_events_reported = mc->events_reported;
		spin_unlock(&id->file->event_lock);
		rcm_mcast_igmp_drop(id->net, &igmp);
		kfree(mc);
		rcm_mcast_unreserve(id->file);
	}
	mutex_unlock(&id->cmd_lock);
	rcm_id_put(id);
	return mc ? 0 : -ENOENT;
}

/**
 * rcm_mcast_device_removed() - drop what an id's groups hold on a device
 * @id: the id, whose device is going away; a reference held, no lock
 *
 * The groups themselves stay until userspace leaves them or destroys
 * the id (a leave then still returns their events_reported); only what
 * they hold on the netdev (IP memberships) and on the port (SA
 * memberships, which ib_sa's removal of the device waits for) goes,
 * with the device.
 */
void rcm_mcast_device_removed(struct rcm_id *id)
{
	struct ib_sa_multicast *sa_mc;
	struct rcm_mcast *mc;
	LIST_HEAD(igmp);

	mutex_lock(&id->lock);
	list_for_each_entry(mc, &id->mcasts, node) {
		if (mc->igmp)
			list_add_tail(&mc->igmp->node, &igmp);
		mc->igmp = NULL;
	}
	mutex_unlock(&id->lock);
	rcm_mcast_igmp_drop(id->net, &igmp);

	/*
	 * One at a time, the lock dropped for each free (it waits for the
	 * callback); a leave meanwhile takes the ones it finds itself.
	 */
	for (;;) {
		sa_mc = NULL;
		mutex_lock(&id->lock);
		list_for_each_entry(mc, &id->mcasts, node) {
			if (mc->sa_mc) {
				sa_mc = mc->sa_mc;
				mc->sa_mc = NULL;
				break;
			}
		}
		mutex_unlock(&id->lock);
		if (!sa_mc)
			break;
		ib_sa_free_multicast(sa_mc);
	}
}

/**
 * rcm_mcast_destroy() - leave every group of an id being destroyed
 * @id: the id; its events are purged and every command and callback on
 *      it is done, so nothing else can reach its groups
 */
void rcm_mcast_destroy(struct rcm_id *id)
{
	struct rcm_mcast *mc, *tmp;
	LIST_HEAD(igmp);

	list_for_each_entry_safe(mc, tmp, &id->mcasts, node) {
		list_del(&mc->node);
		if (mc->igmp)
			list_add_tail(&mc->igmp->node, &igmp);
		/* Its callback finds the id DESTROYING: it reports nothing. */
		if (mc->sa_mc)
			ib_sa_free_multicast(mc->sa_mc);
		kfree(mc);
		rcm_mcast_unreserve(id->file);
	}
	rcm_mcast_igmp_drop(id->net, &igmp);
}

/**
 * rcm_mcast_move() - carry an id's groups over to the file it moves to
 * @id: the migrating id; its command lock and lock held, so no join or
 *      leave changes its groups meanwhile
 * @src: the file it leaves
 * @dst: the file it joins; the groups count there from now on, even
 *       past max_mcast_per_file (a migration does not fail for them)
 */
void rcm_mcast_move(struct rcm_id *id, struct rcm_file *src,
		    struct rcm_file *dst)
{
	struct rcm_mcast *mc;
	int n = 0;

	lockdep_assert_held(&id->lock);
	list_for_each_entry(mc, &id->mcasts, node)
		n++;
	atomic_sub(n, &src->nr_mcasts);
	atomic_add(n, &dst->nr_mcasts);
}
