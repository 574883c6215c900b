// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: local addresses and address resolution.
 *
 * RCM_IOCTL_BIND_ADDR binds an id to a local address and a port of its
 * port space; RCM_IOCTL_RESOLVE_ADDR asks ib_core's address service
 * (rdma_resolve_ip()) for the route, next hop and netdev towards a
 * destination and reports the outcome as an event. A specific address,
 * or a resolved one, attaches the id to the RDMA device and port whose
 * GID table carries the source address (rcm_device_attach()).
 *
 * A resolution in flight holds a reference on its id and owns the event
 * it will deliver (id->resolve_ev). Exactly one of the callback and the
 * canceller (destroy, device removal) takes that event, and with it the
 * duty to drop the reference: rdma_addr_cancel() returns only once the
 * callback has finished or can no longer start, and neither side holds
 * the id's lock across the other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

/**
 * rcm_addr_from_user() - take an AF_INET/AF_INET6 address from userspace
 * @kss: the uapi storage
 * @out: the kernel copy; bytes past the family's sockaddr are zeroed
 *
 * Return: 0, -EAFNOSUPPORT for another family, -EINVAL when bytes past
 * the family's sockaddr are not zero.
 */
int rcm_addr_from_user(const struct __kernel_sockaddr_storage *kss,
		       struct sockaddr_storage *out)
{
	size_t len;

	switch (kss->ss_family) {
	case AF_INET:
		len = sizeof(struct sockaddr_in);
		break;
	case AF_INET6:
		len = sizeof(struct sockaddr_in6);
		break;
	default:
		return -EAFNOSUPPORT;
	}
	if (memchr_inv((const u8 *)kss + len, 0, sizeof(*kss) - len))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out, kss, len);
	return 0;
}

/*
 * An id's address from userspace (bind, resolve): AF_INET, AF_INET6 or
 * AF_IB, checked as rcm_addr_from_user() checks the IP families.
 */
int rcm_addr_from_user_id(const struct __kernel_sockaddr_storage *kss,
			  struct sockaddr_storage *out)
{
	const size_t len = sizeof(struct sockaddr_ib);

	if (kss->ss_family != AF_IB)
		return rcm_addr_from_user(kss, out);
	if (memchr_inv((const u8 *)kss + len, 0, sizeof(*kss) - len))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out, kss, len);
	return 0;
}

/* What an AF_IB address gives the id's device address, as cma.c's. */
static void rcm_addr_translate_ib(struct rcm_id *id,
				  const struct sockaddr_ib *sib)
{
	id->dev_addr.dev_type = ARPHRD_INFINIBAND;
	rdma_addr_set_sgid(&id->dev_addr, (union ib_gid *)&sib->sib_addr);
	ib_addr_set_pkey(&id->dev_addr, ntohs(sib->sib_pkey));
}

/**
 * rcm_ipoib_hw_gid() - the GID in an IPoIB hardware address
 * @hw: the netdev's hardware address: flags and QPN (4 bytes), then the
 *      port's GID (RFC 4391; rdma_addr_gid_offset() of ARPHRD_INFINIBAND)
 * @len: its length
 * @gid: set to the GID
 *
 * Return: 0, or -EINVAL when @len is not an IPoIB address's 20 bytes.
 */
int rcm_ipoib_hw_gid(const u8 *hw, unsigned int len, union ib_gid *gid)
{
	if (len != INFINIBAND_ALEN)
		return -EINVAL;
	memcpy(gid, hw + INFINIBAND_ALEN - sizeof(*gid), sizeof(*gid));
	return 0;
}

/**
 * rcm_addr_set() - keep an address in an id
 * @to: the id's address
 * @from: the address: AF_INET, AF_INET6 or AF_IB; any other family
 *        leaves @to cleared
 *
 * Copies as much as @from's family uses and clears the rest of @to.
 */
void rcm_addr_set(union rcm_sockaddr *to, const struct sockaddr *from)
{
	size_t len = rdma_addr_size(from);

	memset(to, 0, sizeof(*to));
	memcpy(to, from, min(len, sizeof(*to)));
}

static bool rcm_addr_v6_link_local(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 &&
	       (ipv6_addr_type(&((const struct sockaddr_in6 *)sa)->sin6_addr) &
		IPV6_ADDR_LINKLOCAL);
}

/* Release what attaching took; @id->lock held, @id unlinked from @rdev. */
static void rcm_addr_release_device(struct rcm_id *id)
{
	if (id->dev_addr.sgid_attr) {
		rdma_put_gid_attr(id->dev_addr.sgid_attr);
		id->dev_addr.sgid_attr = NULL;
	}
	rcm_event_free(id->removal_ev);
	id->removal_ev = NULL;
	rcm_device_put(id->rdev);
	id->rdev = NULL;
	id->port_num = 0;
}

/**
 * rcm_addr_detach() - detach an id from its device, if attached
 * @id: the id; the caller holds its lock
 *
 * Unlinking from the device's list is the claim on the release: when the
 * device's removal has already unlinked the id, the removal releases it
 * (rcm_addr_device_removed()), so nothing is released twice.
 */
void rcm_addr_detach(struct rcm_id *id)
{
	struct rcm_device *rdev = id->rdev;
	bool claimed;

	lockdep_assert_held(&id->lock);
	if (!rdev)
		return;
	mutex_lock(&rdev->ids_lock);
	claimed = !list_empty(&id->dev_node);
	if (claimed)
		list_del_init(&id->dev_node);
	mutex_unlock(&rdev->ids_lock);
	if (claimed)
		rcm_addr_release_device(id);
}

/**
 * rcm_addr_cancel() - stop an address resolution in flight, if any
 * @id: the id; the caller holds neither its lock nor its command lock
 *      in a way the callback could wait on (the callback takes @id->lock)
 */
void rcm_addr_cancel(struct rcm_id *id)
{
	struct rcm_uevent *ev;

	rdma_addr_cancel(&id->dev_addr);
	/* The callback has run to its end, or never will. */
	mutex_lock(&id->lock);
	ev = id->resolve_ev;
	id->resolve_ev = NULL;
	mutex_unlock(&id->lock);
	if (!ev)
		return;
	rcm_event_free(ev);
	rcm_id_put(id);
}

/**
 * rcm_addr_device_removed() - the device of an id is going away
 * @id: the id, claimed from the device's list with a reference held
 *
 * Releases the device at once, so that the removal need not wait for
 * userspace, and reports RCM_EVENT_DEVICE_REMOVAL unless the id is being
 * destroyed. The id is then only good for RCM_IOCTL_DESTROY_ID.
 */
void rcm_addr_device_removed(struct rcm_id *id)
{
	struct ib_cm_id *cm_id;
	struct iw_cm_id *iw;
	struct rcm_uevent *ev;
	bool cancel, stop;

	rcm_iw_lock_settled(id);
	ev = id->removal_ev;
	id->removal_ev = NULL;
	rcm_addr_release_device(id);
	cancel = id->resolve_ev;
	rcm_route_cancel(id);
	stop = id->state != RCM_STATE_DESTROYING;
	/* A connection's ib_cm or iw_cm id holds the device too: end it. */
	cm_id = id->cm_id;
	id->cm_id = NULL;
	iw = id->iw;
	id->iw = NULL;
	rcm_listen_release_slot(id);
	if (id->state == RCM_STATE_DESTROYING) {
		rcm_event_free(ev);
	} else {
		id->state = RCM_STATE_DEVICE_REMOVAL;
		rcm_event_queue(id->file, ev);
	}
	mutex_unlock(&id->lock);
	/* The removal itself: the device stays until it returns. */
	rcm_device_put_cm(NULL, cm_id, iw);
	if (cancel)
		rcm_addr_cancel(id);
	/* A listener bound to the device stops (a destroy does it itself). */
	if (stop)
		rcm_listen_stop(id);
	/* Its groups' IP memberships go with the device. */
	rcm_mcast_device_removed(id);
}

/* A socket address in the 28 bytes struct rcm_id_info gives it. */
static void rcm_addr_to_info(u8 *out, const union rcm_sockaddr *addr)
{
	static_assert(sizeof(struct sockaddr_in6) == 28);
	if (addr->sa.sa_family == AF_INET || addr->sa.sa_family == AF_INET6)
		memcpy(out, addr, rdma_addr_size(&addr->sa));
}

/**
 * rcm_id_info_fill() - what userspace sees of an id
 * @id: the id; the caller holds its lock
 * @info: filled whole: what the caller's buffer held before (a command's
 *        output member holds what userspace passed in) is overwritten
 */
static void rcm_id_info_fill(struct rcm_id *id, struct rcm_id_info *info)
{
	lockdep_assert_held(&id->lock);
	memset(info, 0, sizeof(*info));
	rcm_addr_to_info(info->src, &id->bind.addr);
	rcm_addr_to_info(info->dst, &id->dst_addr);
	rcm_route_fill(id, &info->num_paths, &info->path);
	if (id->rdev) {
		info->port_num = id->port_num;
		info->node_guid = id->rdev->ibdev->node_guid;
		info->flags = RCM_ID_INFO_IBDEV_INDEX;
		info->ibdev_index = id->rdev->ibdev->index;
		memcpy(info->sgid, &id->dev_addr.sgid_attr->gid,
		       sizeof(info->sgid));
	}
}

/**
 * rcm_addr_bind() - bind an id to a local address and port
 * @id: the id, in state IDLE; the caller holds its lock
 * @addr: the address (port 0: an ephemeral one)
 *
 * Takes the port, and attaches to a device when the address is a
 * specific one. An AF_IB address (a GID, a P_Key and a service ID)
 * attaches to the InfiniBand port that has the GID - a RoCE or iWARP
 * port never does, as in-tree (-ENODEV) - and its service ID picks the
 * port space (rcm_ps_ib_select(), -EPROTONOSUPPORT).
 * Return: 0 or the errno RCM_IOCTL_BIND_ADDR documents.
 */
int rcm_addr_bind(struct rcm_id *id, const struct sockaddr_storage *addr)
{
	struct sockaddr *sa = (struct sockaddr *)addr;
	int ret;

	lockdep_assert_held(&id->lock);
	if (rcm_addr_v6_link_local(sa)) {
		u32 scope = ((struct sockaddr_in6 *)sa)->sin6_scope_id;

		if (!scope)
			return -EINVAL;
		id->dev_addr.bound_dev_if = scope;
	}
	rcm_addr_set(&id->bind.addr, sa);
	if (sa->sa_family == AF_INET6 && !id->afonly_set)
		rcm_ps_set_sharing(id, id->bind.reuseaddr,
				   READ_ONCE(id->net->ipv6.sysctl.bindv6only));

	if (sa->sa_family == AF_IB)
		rcm_addr_translate_ib(id, &id->bind.addr.ib);
	if (!rcm_addr_is_any(sa)) {
		ret = sa->sa_family == AF_IB ? 0 :
		      rdma_translate_ip(sa, &id->dev_addr);
		if (ret)
			goto err;
		ret = rcm_device_attach(id);
		if (ret)
			goto err;
	}
	if (sa->sa_family == AF_IB) {
		ret = rcm_ps_ib_select(id->ps, &id->bind.addr.ib);
		if (ret)
			goto err_detach;
	}
	ret = rcm_ps_bind(id);
	if (ret)
		goto err_detach;
	id->state = RCM_STATE_ADDR_BOUND;
	return 0;

err_detach:
	rcm_addr_detach(id);
err:
	memset(&id->bind.addr, 0, sizeof(id->bind.addr));
	id->dev_addr.bound_dev_if = 0;
	return ret;
}

int rcm_cmd_bind_addr(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_bind_addr *cmd = arg;
	struct sockaddr_storage addr;
	struct rcm_id *id;
	int ret;

	if (cmd->reserved)
		return -EINVAL;
	ret = rcm_addr_from_user_id(&cmd->addr, &addr);
	if (ret)
		return ret;
	id = rcm_id_lock(file, cmd->id);
	if (!id)
		return -ENOENT;
	if (id->state == RCM_STATE_IDLE)
		ret = rcm_addr_bind(id, &addr);
	else
		ret = rcm_id_state_errno(id);
	if (!ret)
		rcm_id_info_fill(id, &cmd->out_info);
	rcm_id_unlock(id);
	return ret;
}

/* What an id's dst_addr holds before it has a destination. */
static const struct sockaddr_storage rcm_no_addr;

/* ib_core's address service is done with a resolution of @context. */
static void rcm_addr_resolved(int status, struct sockaddr *src,
			      struct rdma_dev_addr *dev_addr, void *context)
{
	struct rcm_id *id = context;
	struct rcm_uevent *ev;

	mutex_lock(&id->lock);
	/* Never NULL here: a canceller takes it only after we are done. */
	ev = id->resolve_ev;
	id->resolve_ev = NULL;
	if (!ev) {
		mutex_unlock(&id->lock);
		return;
	}
	if (id->state != RCM_STATE_ADDR_QUERY) {
		/* Destroy or device removal won; they report what counts. */
		rcm_event_free(ev);
		goto out;
	}
	if (!status) {
		rcm_ps_set_addrs(id, src, NULL);
		if (!id->rdev)
			status = rcm_device_attach(id);
	}
	rcm_id_resolved(id, ev, status, RCM_EVENT_ADDR_ERROR,
			RCM_STATE_ADDR_BOUND, RCM_STATE_ADDR_RESOLVED);
out:
	mutex_unlock(&id->lock);
	rcm_id_put(id);
}

/*
 * A loopback AF_IB destination (GID zero or ::1), as cma.c's
 * cma_resolve_loopback(): an id bound to no GID takes a port of its own
 * (rcm_device_attach_ib_loopback()), that port's first GID and first
 * P_Key, and ::1 as its source address; the destination GID is the
 * source's. @id->lock held.
 */
static int rcm_addr_resolve_ib_loopback(struct rcm_id *id, union ib_gid *dgid)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	struct sockaddr_ib src;
	u16 pkey;
	int ret;

	if (!id->rdev) {
		ret = rcm_device_attach_ib_loopback(id);
		if (ret)
			return ret;
		if (ib_get_cached_pkey(id->rdev->ibdev, id->port_num, 0, &pkey))
			pkey = 0xffff;
		src = id->bind.addr.ib;
		memcpy(&src.sib_addr, &in6addr_loopback, sizeof(src.sib_addr));
		rcm_ps_set_addrs(id, (struct sockaddr *)&src, NULL);
		da->dev_type = ARPHRD_INFINIBAND;
		*dgid = da->sgid_attr->gid;
		rdma_addr_set_sgid(da, dgid);
		ib_addr_set_pkey(da, pkey);
	}
	rdma_addr_get_sgid(da, dgid);
	return 0;
}

/*
 * Resolve an AF_IB destination; @id->lock held, state ADDR_BOUND, @ev its
 * ADDR_RESOLVED. As cma.c:cma_resolve_ib_addr(): no ARP, the GID is the
 * destination; an id not bound to a GID takes the port that has the
 * destination's GID, else one of its subnet (rcm_device_attach_ib()),
 * and that port's GID as its source. The event is queued at once.
 */
static int rcm_addr_resolve_ib(struct rcm_id *id,
			       const struct sockaddr_storage *dst,
			       struct rcm_uevent *ev)
{
	const struct sockaddr_ib *dib = (const struct sockaddr_ib *)dst;
	struct sockaddr_ib src;
	union ib_gid dgid;
	int ret;

	if (rcm_addr_is_any((const struct sockaddr *)dst)) {
		ret = rcm_addr_resolve_ib_loopback(id, &dgid);
		if (ret)
			return ret;
	} else {
		if (!id->rdev) {
			ret = rcm_device_attach_ib(id, (const union ib_gid *)&dib->sib_addr,
						   ntohs(dib->sib_pkey));
			if (ret)
				return ret;
			src = id->bind.addr.ib;
			memcpy(&src.sib_addr, &id->dev_addr.sgid_attr->gid,
			       sizeof(src.sib_addr));
			rcm_ps_set_addrs(id, (struct sockaddr *)&src, NULL);
			rcm_addr_translate_ib(id, &src);
		}
		memcpy(&dgid, &dib->sib_addr, sizeof(dgid));
	}
	rdma_addr_set_dgid(&id->dev_addr, &dgid);
	rcm_ps_set_addrs(id, NULL, dst);
	rcm_id_resolved(id, ev, 0, 0, 0, RCM_STATE_ADDR_RESOLVED);
	return 0;
}

/* Start a resolution; @id->lock held, state ADDR_BOUND. */
static int rcm_addr_resolve(struct rcm_id *id,
			    const struct sockaddr_storage *dst, u32 timeout_ms)
{
	struct rcm_uevent *ev;
	int ret;

	if (id->bind.addr.sa.sa_family != dst->ss_family)
		return -EINVAL;
	ev = rcm_event_alloc(id, RCM_EVENT_ADDR_RESOLVED, GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	if (dst->ss_family == AF_IB) {
		ret = rcm_addr_resolve_ib(id, dst, ev);
		if (ret) {
			rcm_event_free(ev);
			rcm_ps_set_addrs(id, NULL, &rcm_no_addr);
		}
		return ret;
	}
	rcm_ps_set_addrs(id, NULL, dst);
	id->resolve_ev = ev;
	refcount_inc(&id->ref);		/* the resolution's */
	id->state = RCM_STATE_ADDR_QUERY;
	/* It copies the source: our lock keeps it still meanwhile. */
	ret = rdma_resolve_ip(&id->bind.addr.sa,
			      (const struct sockaddr *)dst, &id->dev_addr,
			      timeout_ms, rcm_addr_resolved, false, id);
	if (ret) {
		/*
		 * ENOBUFS is the route lookup's "no memory" (dst_alloc()):
		 * the header's errno for that is ENOMEM.
		 */
		if (ret == -ENOBUFS)
			ret = -ENOMEM;
		/* The callback will not run: undo. The caller holds a ref. */
		id->resolve_ev = NULL;
		rcm_event_free(ev);
		refcount_dec(&id->ref);
		id->state = RCM_STATE_ADDR_BOUND;
		rcm_ps_set_addrs(id, NULL, &rcm_no_addr);
	}
	return ret;
}

int rcm_cmd_resolve_addr(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_resolve_addr *cmd = arg;
	struct sockaddr_storage src, dst;
	struct rcm_id *id;
	bool in_flight;
	int ret;

	if (cmd->timeout_ms > RCM_MAX_TIMEOUT_MS)
		return -EINVAL;
	ret = rcm_event_room(file);
	if (ret)
		return ret;
	ret = rcm_addr_from_user_id(&cmd->dst, &dst);
	if (ret)
		return ret;
	if (cmd->src.ss_family) {
		ret = rcm_addr_from_user_id(&cmd->src, &src);
		if (ret)
			return ret;
		if (src.ss_family != dst.ss_family)
			return -EINVAL;
	} else {
		memset(&src, 0, sizeof(src));
		src.ss_family = dst.ss_family;
		if (rcm_addr_v6_link_local((struct sockaddr *)&dst))
			((struct sockaddr_in6 *)&src)->sin6_scope_id =
				((struct sockaddr_in6 *)&dst)->sin6_scope_id;
		/* As cma_bind_addr(): the destination's P_Key. */
		if (dst.ss_family == AF_IB)
			((struct sockaddr_ib *)&src)->sib_pkey =
				((struct sockaddr_ib *)&dst)->sib_pkey;
	}

	id = rcm_id_get(file, cmd->id);
	if (!id)
		return -ENOENT;
	mutex_lock(&id->cmd_lock);
	/*
	 * A request of an earlier resolution may still sit in ib_core's
	 * list for a moment after its callback ran: retire it before the
	 * same rdma_dev_addr is used again, without the id's lock (the
	 * callback takes it). Only commands start resolutions and we hold
	 * the command lock, so none can start in between.
	 */
	mutex_lock(&id->lock);
	in_flight = id->resolve_ev;
	mutex_unlock(&id->lock);
	if (id->resolve_used && !in_flight)
		rdma_addr_cancel(&id->dev_addr);
	mutex_lock(&id->lock);
	if (id->state == RCM_STATE_IDLE) {
		/*
		 * Bind on the way to @dst, as the in-tree CM does: the
		 * ephemeral port may be one that ids with other
		 * destinations hold.
		 */
		rcm_addr_set(&id->dst_addr, (struct sockaddr *)&dst);
		ret = rcm_addr_bind(id, &src);
		if (ret)
			memset(&id->dst_addr, 0, sizeof(id->dst_addr));
	} else if (id->state != RCM_STATE_ADDR_BOUND) {
		ret = rcm_id_state_errno(id);
	}
	/* The id's RESOLVE_TIMEOUT option, when set, wins over the command. */
	if (!ret)
		ret = rcm_addr_resolve(id, &dst, id->resolve_timeout_ms ?:
					cmd->timeout_ms);
	if (!ret) {
		id->resolve_used = true;
		trace_cm_resolve_addr(id);
	}
	mutex_unlock(&id->lock);
	mutex_unlock(&id->cmd_lock);
	rcm_id_put(id);
	return ret;
}

/**
 * rcm_id_info_event() - an event carries its id's view
 * @id: the id (for a CONNECT_REQUEST, the request id); the caller holds
 *      its lock
 * @ev: its ADDR_RESOLVED, ROUTE_RESOLVED or CONNECT_REQUEST, not queued
 *
 * What RCM_IOCTL_QUERY_ID would return for @id now (rcm_id_info_fill(),
 * the ioctl's own code), so that userspace learns the id without asking.
 * Nothing is carried when the id's file reads records too small to hold
 * it, or without memory: both are only the loss of a shortcut, since the
 * ioctl still answers.
 */
void rcm_id_info_event(struct rcm_id *id, struct rcm_uevent *ev)
{
	struct rcm_id_info *info;
	struct mem_cgroup *old;

	lockdep_assert_held(&id->lock);
	if (READ_ONCE(id->file->event_size) <
	    offsetofend(struct rcm_event, id_info))
		return;
	old = rcm_charge_begin(id);
	info = kzalloc(sizeof(*info), GFP_KERNEL_ACCOUNT);
	rcm_charge_end(old);
	if (!info)
		return;
	rcm_id_info_fill(id, info);
	kfree(ev->info);
	ev->info = info;
	ev->ev.id_info_len = sizeof(*info);
}

/**
 * rcm_id_resolved() - report the end of an address or route resolution
 * @id: the id; the caller holds its lock
 * @ev: the resolution's event, of the success type, not queued; queued
 *      here (in the id's file: a migration may have moved the id)
 * @status: 0, or the errno the failure reports
 * @err_type: the event type of a failure (ADDR_ERROR, ROUTE_ERROR)
 * @back: the state a failure returns to
 * @next: the state a success enters
 *
 * A success carries the id's view and the attributes of the QP's INIT
 * transition, which a program creating its QP now needs.
 */
void rcm_id_resolved(struct rcm_id *id, struct rcm_uevent *ev, int status,
		     u32 err_type, enum rcm_state back, enum rcm_state next)
{
	lockdep_assert_held(&id->lock);
	if (status) {
		id->state = back;
		ev->ev.event = err_type;
		ev->ev.status = status;
	} else {
		id->state = next;
		rcm_id_info_event(id, ev);
		rcm_qp_event_attrs(ev, id, BIT(RCM_QPS_INIT));
	}
	rcm_event_queue(id->file, ev);
}

int rcm_cmd_query_id(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_query_id *cmd = arg;
	struct rcm_id_info info = {};
	struct rcm_id *id;

	id = rcm_id_get(file, cmd->id);
	if (!id)
		return -ENOENT;
	/* Every output member, not only the ones that apply to the id. */
	memset((u8 *)cmd + offsetof(struct rcm_query_id, out_port_num), 0,
	       sizeof(*cmd) - offsetof(struct rcm_query_id, out_port_num));
	mutex_lock(&id->lock);
	rcm_id_info_fill(id, &info);
	/* The storage forms of the addresses, as the id keeps them. */
	static_assert(sizeof(cmd->out_src) >= sizeof(id->bind.addr));
	memcpy(&cmd->out_src, &id->bind.addr, sizeof(id->bind.addr));
	memcpy(&cmd->out_dst, &id->dst_addr, sizeof(id->dst_addr));
	mutex_unlock(&id->lock);
	cmd->out_port_num = info.port_num;
	cmd->out_node_guid = info.node_guid;
	memcpy(cmd->out_sgid, info.sgid, sizeof(cmd->out_sgid));
	cmd->out_num_paths = info.num_paths;
	cmd->out_path = info.path;
	cmd->out_flags = info.flags;
	cmd->out_ibdev_index = info.ibdev_index;
	rcm_id_put(id);
	return 0;
}
