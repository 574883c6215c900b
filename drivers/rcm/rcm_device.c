// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: per-RDMA-device state, kept through an ib_client.
 *
 * ib_core calls rcm_add_one() for every registered device (and for each
 * one registered later) and rcm_remove_one() before the device goes away,
 * or when rcm unregisters. Devices without any CM-capable port are
 * declined, so ib_core never calls rcm_remove_one() for them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include <kunit/visibility.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

/* Protects rcm_devices. Never held across a wait on a device's @done. */
static DEFINE_MUTEX(rcm_devices_lock);
static LIST_HEAD(rcm_devices);

/**
 * rcm_port_cm_from_caps() - which CM serves a port with these capabilities
 * @core_cap_flags: the port's RDMA_CORE_CAP_* immutable flags
 *
 * An IB CM port (InfiniBand, RoCE v1/v2) wins over an iWARP one; no
 * device announces both on one port.
 */
VISIBLE_IF_KUNIT enum rcm_port_cm rcm_port_cm_from_caps(u32 core_cap_flags)
{
	if (core_cap_flags & RDMA_CORE_CAP_IB_CM)
		return RCM_PORT_CM_IB;
	if (core_cap_flags & RDMA_CORE_CAP_IW_CM)
		return RCM_PORT_CM_IW;
	return RCM_PORT_CM_NONE;
}

static void rcm_device_release(struct kref *ref)
{
	struct rcm_device *rdev = container_of(ref, struct rcm_device, ref);

	complete(&rdev->done);
}

/**
 * rcm_device_get() - hold a device once more
 * @rdev: a device the caller already holds: an attached id's, under the
 *        id's lock, or the device list's, under rcm_devices_lock
 *
 * rcm_remove_one() waits for the matching rcm_device_put(): whatever the
 * holder still has of the device (a CM id and its GID table entries) is
 * gone before ib_core tears the device down.
 */
void rcm_device_get(struct rcm_device *rdev)
{
	kref_get(&rdev->ref);
}

void rcm_device_put(struct rcm_device *rdev)
{
	kref_put(&rdev->ref, rcm_device_release);
}

/**
 * rcm_device_put_cm() - destroy CM ids, then drop the device they are on
 * @rdev: the device, held by the caller; NULL when the caller needs no
 *        reference (both ids NULL, or the device's removal itself)
 * @cm_id: an ib_cm id on @rdev, or NULL
 * @iw: an iw_cm id on @rdev, or NULL
 *
 * A CM id holds the device's GID table entries (ib_cm's address vectors)
 * and the driver's resources. rcm_remove_one() waits for the put, so
 * they are gone before ib_core tears the device down. The caller holds
 * none of rcm's locks: ib_cm and iw_cm wait for rcm's handlers, which
 * take them.
 */
void rcm_device_put_cm(struct rcm_device *rdev, struct ib_cm_id *cm_id,
		       struct iw_cm_id *iw)
{
	if (cm_id)
		ib_destroy_cm_id(cm_id);
	if (iw)
		iw_destroy_cm_id(iw);
	if (rdev)
		rcm_device_put(rdev);
}

/**
 * rcm_port_gid_type() - the GID type rcm uses on a port
 * @ibdev: the device
 * @port: the port
 *
 * RoCE v2 where the port has it, else RoCE v1, else IB (InfiniBand and
 * iWARP), as the in-tree CM chooses by default.
 */
static enum ib_gid_type rcm_port_gid_type(struct ib_device *ibdev, u32 port)
{
	if (rdma_protocol_roce_udp_encap(ibdev, port))
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	if (rdma_protocol_roce(ibdev, port))
		return IB_GID_TYPE_ROCE;
	return IB_GID_TYPE_IB;
}

/*
 * The GID table entry of @port that carries @id's source address, if the
 * port can serve the id (the in-tree CM's rules: netns access, link type,
 * and for RoCE the netdev the address is bound to).
 */
static const struct ib_gid_attr *
rcm_port_find_gid(struct rcm_device *rdev, u32 port, struct rcm_id *id,
		  union ib_gid *gid)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	struct ib_device *ibdev = rdev->ibdev;
	enum ib_gid_type type = IB_GID_TYPE_IB;
	const struct ib_gid_attr *attr;
	struct net_device *ndev = NULL;
	bool is_ib;

	if (rdev->port_cm[port - 1] == RCM_PORT_CM_NONE ||
	    !rdma_dev_access_netns(ibdev, id->net))
		return ERR_PTR(-ENODEV);
	is_ib = da->dev_type == ARPHRD_INFINIBAND;
	if (is_ib != rdma_protocol_ib(ibdev, port))
		return ERR_PTR(-ENODEV);
	if (da->dev_type == ARPHRD_ETHER && rdma_protocol_roce(ibdev, port)) {
		ndev = dev_get_by_index(id->net, da->bound_dev_if);
		if (!ndev)
			return ERR_PTR(-ENODEV);
		type = rcm_port_gid_type(ibdev, port);
	}
	attr = rdma_find_gid_by_port(ibdev, gid, type, port, ndev);
	dev_put(ndev);
	return attr;
}

/*
 * Attach @id to the first device, port and GID table entry @find yields
 * (an entry it returns is owned by the id from then on). @id->lock held.
 */
static int rcm_device_attach_found(struct rcm_id *id,
				   const struct ib_gid_attr *(*find)(struct rcm_device *rdev,
								     u32 *port,
								     void *arg),
				   void *arg)
{
	const struct ib_gid_attr *attr;
	struct rcm_device *rdev;
	struct rcm_uevent *ev;
	u32 port;

	lockdep_assert_held(&id->lock);
	ev = rcm_event_alloc(id, RCM_EVENT_DEVICE_REMOVAL, GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	mutex_lock(&rcm_devices_lock);
	list_for_each_entry(rdev, &rcm_devices, list) {
		attr = find(rdev, &port, arg);
		if (IS_ERR(attr))
			continue;
		rcm_device_get(rdev);
		id->dev_addr.sgid_attr = attr;
		id->rdev = rdev;
		id->port_num = port;
		id->removal_ev = ev;
		mutex_lock(&rdev->ids_lock);
		list_add_tail(&id->dev_node, &rdev->ids);
		mutex_unlock(&rdev->ids_lock);
		mutex_unlock(&rcm_devices_lock);
		trace_cm_id_attach(id, rdev->ibdev);
		return 0;
	}
	mutex_unlock(&rcm_devices_lock);
	rcm_event_free(ev);
	return -ENODEV;
}

/* The port of @rdev whose GID table carries the source of @arg (an id). */
static const struct ib_gid_attr *rcm_find_by_source(struct rcm_device *rdev,
						    u32 *port, void *arg)
{
	struct rcm_id *id = arg;
	const struct sockaddr *src = (const struct sockaddr *)&id->bind.addr;
	struct rdma_dev_addr *da = &id->dev_addr;
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	u32 p;

	rdma_for_each_port(rdev->ibdev, p) {
		if (rdma_protocol_roce(rdev->ibdev, p))
			rdma_ip2gid((struct sockaddr *)src, &gid);
		else
			memcpy(&gid, da->src_dev_addr + rdma_addr_gid_offset(da),
			       sizeof(gid));
		attr = rcm_port_find_gid(rdev, p, id, &gid);
		if (!IS_ERR(attr)) {
			*port = p;
			return attr;
		}
	}
	return ERR_PTR(-ENODEV);
}

/**
 * rcm_device_attach() - attach an id to the device and port of its source
 * @id: the id; @id->bind.addr is its source address and @id->dev_addr
 *      describes the netdev behind it. The caller holds @id->lock.
 *
 * Takes a reference on the device, the GID table entry of the source,
 * and allocates the DEVICE_REMOVAL event the id may need later.
 *
 * Return: 0, -ENODEV when no managed device owns the address, -ENOMEM.
 */
int rcm_device_attach(struct rcm_id *id)
{
	return rcm_device_attach_found(id, rcm_find_by_source, id);
}

struct rcm_attach_dev {
	struct rcm_id *id;
	struct ib_device *ibdev;
};

static const struct ib_gid_attr *rcm_find_on_dev(struct rcm_device *rdev,
						 u32 *port, void *arg)
{
	struct rcm_attach_dev *on = arg;

	if (rdev->ibdev != on->ibdev)
		return ERR_PTR(-ENODEV);
	return rcm_find_by_source(rdev, port, on->id);
}

/**
 * rcm_device_attach_dev() - attach an id to the port of a given device
 *                           that carries its source address
 * @id: the id (an iWARP request's new id); as for rcm_device_attach(),
 *      @id->bind.addr and @id->dev_addr describe the source. The caller
 *      holds @id->lock.
 * @ibdev: the device the id must use (the one the request came in on)
 *
 * Return: 0, -ENODEV when rcm does not manage @ibdev or no port of it
 * owns the address, -ENOMEM.
 */
int rcm_device_attach_dev(struct rcm_id *id, struct ib_device *ibdev)
{
	struct rcm_attach_dev on = { .id = id, .ibdev = ibdev };

	return rcm_device_attach_found(id, rcm_find_on_dev, &on);
}

struct rcm_attach_at {
	struct ib_device *ibdev;
	u32 port;
	const struct ib_gid_attr *attr;
};

static const struct ib_gid_attr *rcm_find_at(struct rcm_device *rdev,
					     u32 *port, void *arg)
{
	struct rcm_attach_at *at = arg;

	if (rdev->ibdev != at->ibdev)
		return ERR_PTR(-ENODEV);
	*port = at->port;
	rdma_hold_gid_attr(at->attr);
	return at->attr;
}

/**
 * rcm_device_attach_at() - attach an id to a given device, port and GID
 * @id: the id (a request's new id); the caller holds @id->lock
 * @ibdev: the device the request arrived on
 * @port: its port
 * @attr: the GID table entry the request targets; a reference is taken
 *
 * The id takes its netdev and MAC from @attr's netdev (for ADDR_CHANGE).
 *
 * Return: 0, -ENODEV when rcm no longer manages @ibdev, -ENOMEM.
 */
int rcm_device_attach_at(struct rcm_id *id, struct ib_device *ibdev,
			 u32 port, const struct ib_gid_attr *attr)
{
	struct rcm_attach_at at = { .ibdev = ibdev, .port = port,
				    .attr = attr };
	int ret;

	ret = rcm_device_attach_found(id, rcm_find_at, &at);
	if (!ret)
		rcm_netdev_record(id);
	return ret;
}

/* Which port an AF_IB id takes (struct rcm_attach_ib's @how). */
enum rcm_attach_ib_how {
	RCM_ATTACH_IB_EXACT,		/* the one with the destination GID */
	RCM_ATTACH_IB_SUBNET,		/* one of its subnet prefix */
	RCM_ATTACH_IB_ACTIVE,		/* loopback: an ACTIVE port, GID 0 */
	RCM_ATTACH_IB_ANY,		/* loopback: any port, GID 0 */
};

struct rcm_attach_ib {
	struct rcm_id *id;
	const union ib_gid *dgid;
	u16 pkey;
	enum rcm_attach_ib_how how;
};

/* Loopback: GID 0 of @p, which must be ACTIVE unless any will do. */
static const struct ib_gid_attr *rcm_find_ib_loopback(struct ib_device *ibdev,
						      u32 p, bool active)
{
	enum ib_port_state state;

	if (active && (ib_get_cached_port_state(ibdev, p, &state) ||
		       state != IB_PORT_ACTIVE))
		return ERR_PTR(-ENODEV);
	return rdma_get_gid_attr(ibdev, p, 0);
}

/*
 * A GID table entry of an AF_IB port of @rdev with the P_Key that is the
 * destination itself or shares its subnet prefix; for a loopback
 * destination the port's first GID, whatever its P_Keys.
 */
static const struct ib_gid_attr *rcm_find_ib(struct rcm_device *rdev,
					     u32 *port, void *arg)
{
	struct rcm_attach_ib *on = arg;
	struct ib_device *ibdev = rdev->ibdev;
	const struct ib_gid_attr *attr;
	u16 index;
	u32 p;
	int i;

	if (!rdma_dev_access_netns(ibdev, on->id->net))
		return ERR_PTR(-ENODEV);
	rdma_for_each_port(ibdev, p) {
		if (!rdma_cap_af_ib(ibdev, p) ||
		    rdev->port_cm[p - 1] != RCM_PORT_CM_IB)
			continue;
		if (on->how >= RCM_ATTACH_IB_ACTIVE) {
			if (!rdma_protocol_ib(ibdev, p))
				continue;
			attr = rcm_find_ib_loopback(ibdev, p, on->how ==
						    RCM_ATTACH_IB_ACTIVE);
			if (IS_ERR(attr))
				continue;
			*port = p;
			return attr;
		}
		if (ib_find_cached_pkey(ibdev, p, on->pkey, &index))
			continue;
		for (i = 0; i < ibdev->port_data[p].immutable.gid_tbl_len; i++) {
			attr = rdma_get_gid_attr(ibdev, p, i);
			if (IS_ERR(attr))
				continue;
			if (on->how == RCM_ATTACH_IB_EXACT ?
			    !memcmp(&attr->gid, on->dgid, sizeof(*on->dgid)) :
			    attr->gid.global.subnet_prefix ==
			    on->dgid->global.subnet_prefix) {
				*port = p;
				return attr;
			}
			rdma_put_gid_attr(attr);
		}
	}
	return ERR_PTR(-ENODEV);
}

/* Attach @id as @on asks; when no port qualifies, as @then asks. */
static int rcm_device_attach_ib_then(struct rcm_id *id,
				     struct rcm_attach_ib *on,
				     enum rcm_attach_ib_how then)
{
	int ret = rcm_device_attach_found(id, rcm_find_ib, on);

	if (ret == -ENODEV) {
		on->how = then;
		ret = rcm_device_attach_found(id, rcm_find_ib, on);
	}
	return ret;
}

/**
 * rcm_device_attach_ib() - attach an AF_IB id to a port towards a GID
 * @id: the id, not attached; the caller holds @id->lock
 * @dgid: the destination GID
 * @pkey: the P_Key the port must have
 *
 * As cma.c:cma_resolve_ib_dev(): among the ports with AF_IB, one whose
 * GID table holds @dgid itself (the destination is local), else the
 * first with a GID of @dgid's subnet prefix. That GID becomes the id's
 * source GID.
 *
 * Return: 0, -ENODEV when no port qualifies, -ENOMEM.
 */
int rcm_device_attach_ib(struct rcm_id *id, const union ib_gid *dgid,
			 u16 pkey)
{
	struct rcm_attach_ib on = { .id = id, .dgid = dgid, .pkey = pkey,
				    .how = RCM_ATTACH_IB_EXACT };

	return rcm_device_attach_ib_then(id, &on, RCM_ATTACH_IB_SUBNET);
}

/**
 * rcm_device_attach_ib_loopback() - attach an AF_IB id for a loopback
 * @id: the id, not attached; the caller holds @id->lock
 *
 * As cma.c:cma_bind_loopback() for AF_IB: the first port with an ACTIVE
 * state, else the first port at all, and its first GID. In-tree looks at
 * every device with the IB CM, RoCE ones among them (whose GIDs an AF_IB
 * bind refuses); rcm takes only InfiniBand ports, as its bind does.
 *
 * Return: 0, -ENODEV when there is no such port, -ENOMEM.
 */
int rcm_device_attach_ib_loopback(struct rcm_id *id)
{
	struct rcm_attach_ib on = { .id = id, .how = RCM_ATTACH_IB_ACTIVE };

	return rcm_device_attach_ib_then(id, &on, RCM_ATTACH_IB_ANY);
}

/**
 * rcm_device_for_each() - call @fn for every managed device
 * @fn: called with rcm_devices_lock held; must not sleep on ids
 * @arg: passed to @fn
 *
 * Return: the first non-zero value @fn returned, or 0.
 */
int rcm_device_for_each(int (*fn)(struct rcm_device *rdev, void *arg),
			void *arg)
{
	struct rcm_device *rdev;
	int ret = 0;

	mutex_lock(&rcm_devices_lock);
	list_for_each_entry(rdev, &rcm_devices, list) {
		ret = fn(rdev, arg);
		if (ret)
			break;
	}
	mutex_unlock(&rcm_devices_lock);
	return ret;
}

/*
 * Whether @net has an IPoIB netdev of @port of @ibdev: one whose
 * hardware address carries a GID of the port (an InfiniBand GID entry
 * names no netdev).
 */
static bool rcm_net_has_ipoib_of(struct net *net, struct ib_device *ibdev,
				 u32 port)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	bool found = false;
	union ib_gid gid;

	rcu_read_lock();
	for_each_netdev_rcu(net, ndev) {
		if (ndev->type != ARPHRD_INFINIBAND ||
		    rcm_ipoib_hw_gid(ndev->dev_addr, ndev->addr_len, &gid))
			continue;
		attr = rdma_find_gid_by_port(ibdev, &gid, IB_GID_TYPE_IB, port,
					     NULL);
		if (!IS_ERR(attr)) {
			rdma_put_gid_attr(attr);
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * rcm_device_serves_net() - may a listener of @net take @rdev's service IDs?
 * @rdev: the device
 * @net: the listener's network namespace
 *
 * An ib_cm listen takes a service ID on the whole device, from everyone:
 * the in-tree rdma_cm and kernel services (NVMe-oF, NFS/RDMA, iSER) of
 * every namespace. A listener of the initial namespace listens on every
 * device, as the in-tree CM's do; one of another namespace only on a
 * device whose GID table holds an entry of a netdev in its namespace, or
 * on InfiniBand whose port has an IPoIB netdev there (in exclusive
 * netns mode, only on devices of its namespace), so that
 * a container cannot keep the host's services from their ports. The
 * table is read when the listen starts, and when a device is added
 * (whose GIDs come later: such a listener misses devices added after
 * it started).
 *
 * Return: whether it may.
 */
bool rcm_device_serves_net(struct rcm_device *rdev, struct net *net)
{
	struct ib_device *ibdev = rdev->ibdev;
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	bool found = false;
	u32 port;
	int i;

	if (!rdma_dev_access_netns(ibdev, net))
		return false;
	if (net_eq(net, &init_net))
		return true;
	rdma_for_each_port(ibdev, port) {
		if (!found && rdma_protocol_ib(ibdev, port))
			found = rcm_net_has_ipoib_of(net, ibdev, port);
		for (i = 0; !found &&
		     i < ibdev->port_data[port].immutable.gid_tbl_len; i++) {
			attr = rdma_get_gid_attr(ibdev, port, i);
			if (IS_ERR(attr))
				continue;
			rcu_read_lock();
			ndev = rdma_read_gid_attr_ndev_rcu(attr);
			found = !IS_ERR(ndev) && net_eq(dev_net(ndev), net);
			rcu_read_unlock();
			rdma_put_gid_attr(attr);
		}
	}
	return found;
}

/**
 * rcm_device_count() - number of devices rcm currently manages
 */
u32 rcm_device_count(void)
{
	struct rcm_device *rdev;
	u32 n = 0;

	mutex_lock(&rcm_devices_lock);
	list_for_each_entry(rdev, &rcm_devices, list)
		n++;
	mutex_unlock(&rcm_devices_lock);
	return n;
}

static int rcm_add_one(struct ib_device *ibdev)
{
	u32 num_ports = rdma_end_port(ibdev);
	struct rcm_device *rdev;
	bool any_cm = false;
	u32 port;

	rdev = kzalloc(struct_size(rdev, port_cm, num_ports), GFP_KERNEL);
	if (!rdev)
		return -ENOMEM;

	rdev->ibdev = ibdev;
	rdev->num_ports = num_ports;
	kref_init(&rdev->ref);
	init_completion(&rdev->done);
	mutex_init(&rdev->ids_lock);
	INIT_LIST_HEAD(&rdev->ids);
	rdma_for_each_port(ibdev, port) {
		u32 caps = ibdev->port_data[port].immutable.core_cap_flags;

		rdev->port_cm[port - 1] = rcm_port_cm_from_caps(caps);
		if (rdev->port_cm[port - 1] != RCM_PORT_CM_NONE)
			any_cm = true;
	}
	if (!any_cm) {
		kfree(rdev);
		return -EOPNOTSUPP;
	}

	ib_set_client_data(ibdev, &rcm_ib_client, rdev);
	mutex_lock(&rcm_devices_lock);
	list_add_tail(&rdev->list, &rcm_devices);
	mutex_unlock(&rcm_devices_lock);
	rcm_listen_device_added(rdev);
	trace_cm_add_one(ibdev);
	dev_dbg(&ibdev->dev, "rcm: managing %u port(s)\n", num_ports);
	return 0;
}

static void rcm_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct rcm_device *rdev = client_data;
	struct rcm_id *id;

	trace_cm_remove_one(ibdev);
	mutex_lock(&rcm_devices_lock);
	list_del(&rdev->list);
	mutex_unlock(&rcm_devices_lock);
	/* No new listen can start on it now; end the ones running. */
	rcm_listen_device_removed(rdev);

	/*
	 * No id can attach any more. Claim the attached ones one at a time
	 * (unlinking is the claim: a racing destroy then leaves the release
	 * to us) and detach each, which reports DEVICE_REMOVAL. An id on the
	 * list has not dropped its base reference yet, so taking one is safe.
	 */
	for (;;) {
		mutex_lock(&rdev->ids_lock);
		id = list_first_entry_or_null(&rdev->ids, struct rcm_id,
					      dev_node);
		if (id) {
			list_del_init(&id->dev_node);
			refcount_inc(&id->ref);
		}
		mutex_unlock(&rdev->ids_lock);
		if (!id)
			break;
		rcm_addr_device_removed(id);
		rcm_id_put(id);
	}

	/* Drop the client's reference and wait out every other holder. */
	rcm_device_put(rdev);
	wait_for_completion(&rdev->done);
	mutex_destroy(&rdev->ids_lock);
	kfree(rdev);
}

struct ib_client rcm_ib_client = {
	.name = "rcm",
	.add = rcm_add_one,
	.remove = rcm_remove_one,
};

int rcm_device_init(void)
{
	return ib_register_client(&rcm_ib_client);
}

void rcm_device_exit(void)
{
	ib_unregister_client(&rcm_ib_client);
}
