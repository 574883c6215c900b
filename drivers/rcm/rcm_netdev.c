// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: RCM_EVENT_ADDR_CHANGE - a bond failed over to a slave with
 * another link-layer address.
 *
 * As the in-tree rdma_cm (cma_netdev_callback(), the same on 6.1 and
 * 6.12): a netdevice notifier watches NETDEV_BONDING_FAILOVER of bond
 * masters, and nothing else - a MAC address an administrator sets, or
 * any other netdev event, reports nothing. Every id attached to a device
 * through the bond (dev_addr.bound_dev_if, in the id's network
 * namespace) whose recorded MAC differs from the bond's new one gets one
 * RCM_EVENT_ADDR_CHANGE (status 0): bound to a specific address,
 * resolved, routed, listening on a specific address, and connected ids,
 * both sides. The recorded MAC is the one the id was attached with and
 * stays so, as in-tree: a failover back to that slave reports nothing,
 * one to another slave reports again. Not attached ids (idle, wildcard
 * bound or listening) have no netdev and get none; an id whose address
 * resolution is in flight gets none either (ib_core owns its dev_addr
 * until the resolution ends, which reports the netdev as it is then).
 *
 * Locking: the notifier runs under RTNL and only takes a snapshot of the
 * netdev (namespace, ifindex, address) into a work item; the work runs
 * on an ordered workqueue, without RTNL, so changes are applied in the
 * order they happened and no rcm lock is ever taken under RTNL (a
 * multicast join may take RTNL under an id's lock). The work holds
 * rcm_devices_lock and each device's ids_lock only to collect the ids,
 * with a reference each, on a list of its own (struct
 * rcm_id.change_node, used by this work only, one work at a time); then
 * it takes each id's lock alone, checks the id's state, and allocates
 * and queues the event under it (a mutex: GFP_KERNEL is fine). Holding
 * references on ids it has not locked yet, the work may wait for a
 * listener's lock with a reference on the listener's request id: no
 * holder of a listener's lock waits for its request ids' references
 * (rcm_request_abort()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "rcm_priv.h"

/**
 * struct rcm_netdev_change - one address change, on its way to the ids
 * @work: runs rcm_netdev_change_work() on rcm_netdev_wq
 * @net: the netdev's namespace (a reference held)
 * @ifindex: the netdev's index in @net
 * @addr_len: bytes of @addr that count
 * @addr: the netdev's address after the failover
 * @ids: the ids the work collected (struct rcm_id.change_node)
 */
struct rcm_netdev_change {
	struct work_struct work;
	struct net *net;
	int ifindex;
	unsigned char addr_len;
	u8 addr[MAX_ADDR_LEN];
	struct list_head ids;
};

static struct workqueue_struct *rcm_netdev_wq;

/* Ids of @rdev in @chg's namespace onto @ids, each with a reference. */
static int rcm_netdev_collect(struct rcm_device *rdev, void *arg)
{
	struct rcm_netdev_change *chg = arg;
	struct rcm_id *id;

	mutex_lock(&rdev->ids_lock);
	list_for_each_entry(id, &rdev->ids, dev_node) {
		if (!net_eq(id->net, chg->net))
			continue;
		/* On the list: its base reference is not dropped yet. */
		refcount_inc(&id->ref);
		list_add_tail(&id->change_node, &chg->ids);
	}
	mutex_unlock(&rdev->ids_lock);
	return 0;
}

/* Report @chg to @id if it concerns it; @id->lock held. */
static void rcm_netdev_change_id(struct rcm_id *id,
				 const struct rcm_netdev_change *chg)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	struct rcm_uevent *ev;

	lockdep_assert_held(&id->lock);
	if (!id->rdev || id->resolve_ev ||
	    id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL ||
	    da->bound_dev_if != chg->ifindex ||
	    !memcmp(da->src_dev_addr, chg->addr, chg->addr_len))
		return;
	ev = rcm_event_alloc(id, RCM_EVENT_ADDR_CHANGE, GFP_KERNEL);
	if (!ev) {
		pr_warn_ratelimited("no memory to report an address change\n");
		return;
	}
	rcm_event_queue(id->file, ev);
}

static void rcm_netdev_change_work(struct work_struct *work)
{
	struct rcm_netdev_change *chg = container_of(work,
						     struct rcm_netdev_change,
						     work);
	struct rcm_id *id, *tmp;

	rcm_device_for_each(rcm_netdev_collect, chg);
	list_for_each_entry_safe(id, tmp, &chg->ids, change_node) {
		list_del_init(&id->change_node);
		mutex_lock(&id->lock);
		rcm_netdev_change_id(id, chg);
		mutex_unlock(&id->lock);
		rcm_id_put(id);
	}
	put_net(chg->net);
	kfree(chg);
}

static int rcm_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct rcm_netdev_change *chg;
	struct net *net;

	if (event != NETDEV_BONDING_FAILOVER || !netif_is_bond_master(ndev))
		return NOTIFY_DONE;
	/* A namespace on its way out holds no id: every id holds its net. */
	net = maybe_get_net(dev_net(ndev));
	if (!net)
		return NOTIFY_DONE;
	chg = kzalloc(sizeof(*chg), GFP_KERNEL);
	if (!chg) {
		put_net(net);
		pr_warn_ratelimited("no memory to report an address change of %s\n",
				    ndev->name);
		return NOTIFY_DONE;
	}
	chg->net = net;
	chg->ifindex = ndev->ifindex;
	chg->addr_len = min_t(unsigned char, ndev->addr_len, MAX_ADDR_LEN);
	memcpy(chg->addr, ndev->dev_addr, chg->addr_len);
	INIT_LIST_HEAD(&chg->ids);
	INIT_WORK(&chg->work, rcm_netdev_change_work);
	queue_work(rcm_netdev_wq, &chg->work);
	return NOTIFY_OK;
}

static struct notifier_block rcm_netdev_nb = {
	.notifier_call = rcm_netdev_event,
};

/**
 * rcm_netdev_record() - record the netdev of a request id's GID entry
 * @id: a request id just attached (rcm_device_attach_at()); its lock held
 *
 * An id attached by its own address has its netdev and MAC from
 * ib_core's address service; a request id gets them here, from the GID
 * table entry the request came in on, so that it sees ADDR_CHANGE too.
 */
void rcm_netdev_record(struct rcm_id *id)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	struct net_device *ndev;

	lockdep_assert_held(&id->lock);
	if (da->bound_dev_if || !da->sgid_attr)
		return;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(da->sgid_attr);
	if (!IS_ERR(ndev))
		rcm_netdev_record_ndev(id, ndev);
	rcu_read_unlock();
}

/**
 * rcm_netdev_record_ndev() - record a request id's netdev
 * @id: a request id; its lock held
 * @ndev: the netdev the request came through (an IPoIB one, which no
 *        GID entry names)
 *
 * Its type, hardware and broadcast addresses (an IPoIB broadcast address
 * carries the P_Key) and index, as rdma_copy_src_l2_addr() gives them.
 */
void rcm_netdev_record_ndev(struct rcm_id *id, const struct net_device *ndev)
{
	struct rdma_dev_addr *da = &id->dev_addr;
	unsigned int len = min_t(unsigned char, ndev->addr_len, MAX_ADDR_LEN);

	lockdep_assert_held(&id->lock);
	da->dev_type = ndev->type;
	memcpy(da->src_dev_addr, ndev->dev_addr, len);
	memcpy(da->broadcast, ndev->broadcast, len);
	da->bound_dev_if = ndev->ifindex;
}

/**
 * rcm_netdev_init() - start watching netdevs
 *
 * Return: 0 or a negative errno.
 */
int rcm_netdev_init(void)
{
	int ret;

	rcm_netdev_wq = alloc_ordered_workqueue("rcm_netdev", 0);
	if (!rcm_netdev_wq)
		return -ENOMEM;
	ret = register_netdevice_notifier(&rcm_netdev_nb);
	if (ret)
		destroy_workqueue(rcm_netdev_wq);
	return ret;
}

/**
 * rcm_netdev_exit() - stop watching; waits for the changes in flight
 */
void rcm_netdev_exit(void)
{
	unregister_netdevice_notifier(&rcm_netdev_nb);
	destroy_workqueue(rcm_netdev_wq);
}
