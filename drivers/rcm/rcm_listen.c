// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: the passive side - listening, connection requests, reject.
 *
 * A listening id registers one CM listen per device it listens on
 * (struct rcm_listen_dev): an IB CM listen for the service ID of its
 * port space and port, or on an iWARP device an iw_cm listen on its
 * address and port (rcm_iw.c), whose requests arrive on the listener
 * itself. ib_cm shares a listen between every listener of one (device,
 * service ID) only when they use the same handler and a NULL context,
 * so all of rcm's listens use rcm_ib_req_handler() and find their rcm
 * listener from the request itself: the service ID names the port, the
 * CMA header the address that was dialled, the GID the netns.
 *
 * A request becomes a new id (a "request id") in the listener's file,
 * reported by RCM_EVENT_CONNECT_REQUEST. It owns the ib_cm connection id
 * that ib_cm created for the request. Until userspace answers, the
 * request holds a slot of the listener's backlog (struct rcm_backlog,
 * shared so that neither side outlives the other's accounting).
 *
 * Locking: rcm_listeners_lock protects rcm_listeners and every id's
 * @listens. Order: id->lock -> rcm_listeners_lock -> rcm_devices_lock.
 * ib_destroy_cm_id() and iw_destroy_cm_id() wait for the handlers of
 * their cm_id, which take id locks, so they are only ever called with
 * none of rcm's locks held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/random.h>
#include <net/ip_fib.h>
#include <net/ip6_route.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "rcm_priv.h"

/* The ib_cm service timeout of the delayed MRA: 2^24 * 4.096 us = 68 s. */
#define RCM_MRA_SERVICE_TIMEOUT 24

static DEFINE_MUTEX(rcm_listeners_lock);
/* Every listening id (struct rcm_id.listener_node). */
static LIST_HEAD(rcm_listeners);

/**
 * struct rcm_backlog - the answer slots of one listener
 * @ref: the listener holds one, and each request id holding a slot
 * @avail: slots left; a request takes one until it is answered
 * @max: the listener's backlog
 */
struct rcm_backlog {
	refcount_t ref;
	atomic_t avail;
	u32 max;
};

/**
 * struct rcm_listen_dev - a listener's CM listen on one device
 * @node: in the listener's @listens, under rcm_listeners_lock
 * @rdev: the device (reference held)
 * @cm_id: the shared ib_cm listen, or NULL
 * @iw: the listener's own iw_cm listen (an iWARP device), or NULL
 */
struct rcm_listen_dev {
	struct list_head node;
	struct rcm_device *rdev;
	struct ib_cm_id *cm_id;
	struct iw_cm_id *iw;
};

static int rcm_ib_req_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event);

static void rcm_backlog_put(struct rcm_backlog *bl)
{
	if (refcount_dec_and_test(&bl->ref))
		kfree(bl);
}

/* The CM a listen on @rdev uses: IB CM if a port has it, else iWARP. */
static enum rcm_port_cm rcm_listen_cm(struct rcm_device *rdev)
{
	enum rcm_port_cm cm = RCM_PORT_CM_NONE;
	u32 port;

	rdma_for_each_port(rdev->ibdev, port) {
		if (rdev->port_cm[port - 1] == RCM_PORT_CM_IB)
			return RCM_PORT_CM_IB;
		if (rdev->port_cm[port - 1] == RCM_PORT_CM_IW)
			cm = RCM_PORT_CM_IW;
	}
	return cm;
}

/* The shared IB CM listen of @id's service ID on @rdev. */
static struct ib_cm_id *rcm_listen_ib(struct rcm_id *id,
				      struct rcm_device *rdev)
{
	struct ib_cm_id *cm_id;
	__be64 sid;
	int ret;

	ret = rcm_wire_sid_compose(id->ps, id->port, &sid);
	if (ret)
		return ERR_PTR(ret);
	cm_id = ib_cm_insert_listen(rdev->ibdev, rcm_ib_req_handler, sid);
	/* Someone with another handler listens on that SID. */
	if (cm_id == ERR_PTR(-EINVAL))
		return ERR_PTR(-EADDRINUSE);
	return cm_id;
}

/* Listen on @rdev unless already; rcm_listeners_lock held. */
static int rcm_listen_on(struct rcm_id *id, struct rcm_device *rdev)
{
	struct rcm_listen_dev *ld;
	void *cm;

	lockdep_assert_held(&rcm_listeners_lock);
	/*
	 * As in-tree: an ib_cm listen covers a service ID on the whole
	 * device, so a listener never listens on a device its namespace
	 * cannot use (in exclusive netns mode) - it would take that
	 * service ID from everyone who can.
	 */
	if (!rdma_dev_access_netns(rdev->ibdev, id->net))
		return 0;
	list_for_each_entry(ld, &id->listens, node)
		if (ld->rdev == rdev)
			return 0;
	ld = kzalloc(sizeof(*ld), GFP_KERNEL_ACCOUNT);
	if (!ld)
		return -ENOMEM;
	switch (rcm_listen_cm(rdev)) {
	case RCM_PORT_CM_IB:
		ld->cm_id = rcm_listen_ib(id, rdev);
		cm = ld->cm_id;
		break;
	case RCM_PORT_CM_IW:
		/*
		 * iWARP has no datagram service: a UD listener bound to an
		 * iWARP device fails, a wildcard one leaves the device out.
		 */
		if (rcm_id_is_ud(id)) {
			cm = id->rdev ? ERR_PTR(-EOPNOTSUPP) : NULL;
			break;
		}
		ld->iw = rcm_iw_listen(id, rdev->ibdev, id->backlog->max);
		cm = ld->iw;
		break;
	default:
		cm = NULL;	/* no CM port: nothing to listen on */
		break;
	}
	if (IS_ERR_OR_NULL(cm)) {
		kfree(ld);
		return PTR_ERR_OR_ZERO(cm);
	}
	kref_get(&rdev->ref);
	ld->rdev = rdev;
	list_add_tail(&ld->node, &id->listens);
	return 0;
}

static int rcm_listen_on_cb(struct rcm_device *rdev, void *arg)
{
	return rcm_listen_on(arg, rdev);
}

static void rcm_listen_free(struct list_head *dead)
{
	struct rcm_listen_dev *ld, *tmp;

	list_for_each_entry_safe(ld, tmp, dead, node) {
		if (ld->cm_id)
			ib_destroy_cm_id(ld->cm_id);
		if (ld->iw)
			iw_destroy_cm_id(ld->iw);
		rcm_device_put(ld->rdev);
		kfree(ld);
	}
}

/**
 * rcm_listen_stop() - end every listen of an id, if it listens
 * @id: the id; the caller holds none of rcm's locks (ib_cm and iw_cm
 *      wait for request handlers, which take them)
 */
void rcm_listen_stop(struct rcm_id *id)
{
	LIST_HEAD(dead);

	mutex_lock(&rcm_listeners_lock);
	if (!list_empty(&id->listener_node))
		list_del_init(&id->listener_node);
	list_splice_init(&id->listens, &dead);
	mutex_unlock(&rcm_listeners_lock);
	rcm_listen_free(&dead);
}

/**
 * rcm_listen_drop_backlog() - a destroyed listener lets go of its backlog
 * @id: the id, past its destroy's fence; only the destroy calls this
 *
 * Its unanswered requests keep the backlog alive until they are answered.
 */
void rcm_listen_drop_backlog(struct rcm_id *id)
{
	if (!id->backlog)
		return;
	rcm_backlog_put(id->backlog);
	id->backlog = NULL;
}

/**
 * rcm_listen_device_added() - wildcard listeners listen on a new device
 * @rdev: the device, already on the device list
 */
void rcm_listen_device_added(struct rcm_device *rdev)
{
	struct rcm_id *id;

	mutex_lock(&rcm_listeners_lock);
	list_for_each_entry(id, &rcm_listeners, listener_node) {
		if (id->rdev)
			continue;
		if (rcm_listen_on(id, rdev))
			dev_warn(&rdev->ibdev->dev,
				 "rcm: a wildcard listener cannot listen here\n");
	}
	mutex_unlock(&rcm_listeners_lock);
}

/**
 * rcm_listen_device_removed() - end every listen on a departing device
 * @rdev: the device, already off the device list
 */
void rcm_listen_device_removed(struct rcm_device *rdev)
{
	struct rcm_listen_dev *ld, *tmp;
	struct rcm_id *id;
	LIST_HEAD(dead);

	mutex_lock(&rcm_listeners_lock);
	list_for_each_entry(id, &rcm_listeners, listener_node)
		list_for_each_entry_safe(ld, tmp, &id->listens, node)
			if (ld->rdev == rdev)
				list_move_tail(&ld->node, &dead);
	mutex_unlock(&rcm_listeners_lock);
	rcm_listen_free(&dead);
}

int rcm_cmd_listen(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_listen *cmd = arg;
	struct sockaddr_storage any = { .ss_family = AF_INET };
	struct rcm_backlog *bl;
	struct rcm_id *id;
	u32 backlog = cmd->backlog;
	bool started = false;
	int ret = 0;

	if (!backlog || backlog > RCM_MAX_BACKLOG)
		backlog = RCM_MAX_BACKLOG;
	id = rcm_id_get(file, cmd->id);
	if (!id)
		return -ENOENT;
	bl = kzalloc(sizeof(*bl), GFP_KERNEL_ACCOUNT);
	if (!bl) {
		rcm_id_put(id);
		return -ENOMEM;
	}
	refcount_set(&bl->ref, 1);
	atomic_set(&bl->avail, backlog);
	bl->max = backlog;

	mutex_lock(&id->cmd_lock);
	mutex_lock(&id->lock);
	if (id->state == RCM_STATE_IDLE)
		ret = rcm_addr_bind(id, &any);
	else if (id->state != RCM_STATE_ADDR_BOUND)
		ret = rcm_id_state_errno(id);
	if (ret)
		goto out;
	if (id->ps == RCM_PS_IPOIB) {
		ret = -EOPNOTSUPP;	/* no IPoIB Q_Key on RoCE */
		goto out;
	}
	ret = rcm_port_listen_exclusive(id);
	if (ret)
		goto out;

	started = true;
	mutex_lock(&rcm_listeners_lock);
	/*
	 * Set before listening (iw_cm listens take their size from it). A
	 * request cannot use it yet: its handler waits for our lock and
	 * then checks for RCM_STATE_LISTEN.
	 */
	id->backlog = bl;
	if (id->rdev) {
		WRITE_ONCE(id->listen_ibdev, id->rdev->ibdev);
		ret = rcm_listen_on(id, id->rdev);
	} else {
		ret = rcm_device_for_each(rcm_listen_on_cb, id);
	}
	if (!ret) {
		list_add_tail(&id->listener_node, &rcm_listeners);
		bl = NULL;
		WRITE_ONCE(id->state, RCM_STATE_LISTEN);
	} else {
		id->backlog = NULL;
	}
	mutex_unlock(&rcm_listeners_lock);
out:
	mutex_unlock(&id->lock);
	/*
	 * Listens this call made before a failure; never those of an id
	 * that listened already (a second LISTEN fails with EINVAL).
	 */
	if (ret && started)
		rcm_listen_stop(id);
	mutex_unlock(&id->cmd_lock);
	kfree(bl);
	rcm_id_put(id);
	return ret;
}

/* Fill the CONNECT_REQUEST event of @child from the REQ. */
static void rcm_listen_req_event(struct rcm_uevent *ev, struct rcm_id *listener,
				 const struct ib_cm_event *event)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;

	ev->ev.conn.qp_num = req->remote_qpn;
	/* ib_cm already turned the peer's values into ours. */
	ev->ev.conn.responder_resources = req->responder_resources;
	ev->ev.conn.initiator_depth = req->initiator_depth;
	ev->ev.conn.flow_control = req->flow_control;
	ev->ev.conn.retry_count = req->retry_count;
	ev->ev.conn.rnr_retry_count = req->rnr_retry_count;
	ev->ev.conn.srq = req->srq;
	ev->ev.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE -
				  RCM_WIRE_HDR_SIZE;
	memcpy(ev->ev.private_data,
	       (const u8 *)event->private_data + RCM_WIRE_HDR_SIZE,
	       ev->ev.private_data_len);
}

/**
 * rcm_request_begin() - start the request id of a connection request
 * @listener: the listener taking the request; the caller holds its lock
 *            and has seen it in RCM_STATE_LISTEN
 *
 * Takes a slot of the listener's backlog and makes a new id of the
 * listener's file, not yet published, locked (nested in the listener's
 * lock), in RCM_STATE_CONNECT, holding the slot. The caller fills it in,
 * publishes it and unlocks it, or hands it to rcm_request_abort().
 *
 * Return: the id, or ERR_PTR(-ENOMEM) when the backlog is full or memory
 * is short.
 */
struct rcm_id *rcm_request_begin(struct rcm_id *listener)
{
	struct rcm_backlog *bl = listener->backlog;
	struct rcm_id *child;

	lockdep_assert_held(&listener->lock);
	if (!atomic_add_unless(&bl->avail, -1, 0))
		return ERR_PTR(-ENOMEM);
	child = rcm_id_alloc(listener->file, 0, listener->ps,
			     listener->qp_type, listener->net);
	if (!child) {
		atomic_inc(&bl->avail);
		return ERR_PTR(-ENOMEM);
	}
	child->qkey = listener->qkey;
	child->connect_timeout_ms = listener->connect_timeout_ms;
	refcount_inc(&bl->ref);
	child->slot = bl;
	mutex_lock_nested(&child->lock, SINGLE_DEPTH_NESTING);
	child->state = RCM_STATE_CONNECT;
	return child;
}

/**
 * rcm_request_event_alloc() - the CONNECT_REQUEST event of a request id
 * @child: the request id, from rcm_request_begin()
 * @listener: its listener; the caller holds its lock
 *
 * The event names the listener (handle and context for userspace, and
 * @listener for the listener's destroy, which purges it unread).
 *
 * Return: the event, not yet queued, or NULL.
 */
struct rcm_uevent *rcm_request_event_alloc(struct rcm_id *child,
					   struct rcm_id *listener)
{
	struct rcm_uevent *ev;

	ev = rcm_event_alloc(child, RCM_EVENT_CONNECT_REQUEST, GFP_KERNEL);
	if (!ev)
		return NULL;
	ev->listener = listener;
	ev->ev.context = listener->context;
	ev->ev.listen_id = listener->handle;
	return ev;
}

/**
 * rcm_request_abort() - undo rcm_request_begin()
 * @child: the id it returned, still locked and never published; it must
 *         not own a CM id (the CM destroys that itself)
 *
 * Frees the id and gives its backlog slot back.
 */
void rcm_request_abort(struct rcm_id *child)
{
	/*
	 * Never published, but a device removal may have claimed it from
	 * the device's list and wait for its lock: fence it as a destroy
	 * does and wait for that reference before freeing.
	 */
	child->state = RCM_STATE_DESTROYING;
	rcm_listen_release_slot(child);
	rcm_addr_detach(child);
	mutex_unlock(&child->lock);
	rcm_id_put(child);
	wait_for_completion(&child->done);
	rcm_id_free(child);
}

/*
 * Make the request id for a REQ or SIDR REQ that @listener (locked,
 * LISTEN) accepts to see, received on @port of @cm_id's device through
 * @sgid_attr, publish it in the listener's file and report it. On
 * success the request id owns @cm_id; on failure ib_cm destroys @cm_id
 * (a SIDR request is then answered with a reject).
 */
static int rcm_listen_new_request(struct rcm_id *listener,
				  struct ib_cm_id *cm_id,
				  const struct ib_cm_event *event,
				  u32 port, const struct ib_gid_attr *sgid_attr,
				  const struct rcm_wire_req_addrs *addrs)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	struct rcm_uevent *ev;
	struct rcm_id *child;
	int ret;

	/* A full backlog: ib_cm drops the REQ (-ENOMEM); the peer retries. */
	child = rcm_request_begin(listener);
	if (IS_ERR(child))
		return PTR_ERR(child);
	memcpy(&child->bind.addr, &addrs->listen, sizeof(addrs->listen));
	memcpy(&child->dst_addr, &addrs->peer, sizeof(addrs->peer));
	ret = rcm_device_attach_at(child, cm_id->device, port, sgid_attr);
	if (ret)
		goto err_child;
	ev = rcm_request_event_alloc(child, listener);
	if (!ev) {
		ret = -ENOMEM;
		goto err_child;
	}
	ret = rcm_id_publish(child);
	if (ret) {
		rcm_event_free(ev);
		goto err_child;
	}
	child->cm_id = cm_id;
	cm_id->context = child;
	cm_id->cm_handler = rcm_ib_conn_handler;
	if (event->event == IB_CM_SIDR_REQ_RECEIVED) {
		/* ib_cm reports nothing more on a SIDR request's cm_id. */
		rcm_sidr_req_event(ev, listener, event);
		rcm_event_queue(listener->file, ev);
		mutex_unlock(&child->lock);
		return 0;
	}
	rcm_listen_req_event(ev, listener, event);
	child->req_param.responder_resources = req->responder_resources;
	child->req_param.initiator_depth = req->initiator_depth;
	child->req_param.retry_count = req->retry_count;
	child->req_param.rnr_retry_count = req->rnr_retry_count;
	child->seq_num = get_random_u32() & 0xffffff;
	rcm_event_queue(listener->file, ev);
	/*
	 * Userspace answers later: if the peer repeats its REQ meanwhile,
	 * ib_cm answers with an MRA so it waits instead of timing out.
	 */
	ib_send_cm_mra(cm_id, IB_CM_MRA_FLAG_DELAY | RCM_MRA_SERVICE_TIMEOUT,
		       NULL, 0);
	mutex_unlock(&child->lock);
	return 0;

err_child:
	rcm_request_abort(child);
	return ret;
}

static bool rcm_listen_ip6_unicast(const struct in6_addr *a)
{
	return !ipv6_addr_any(a) &&
	       !(ipv6_addr_type(a) & (IPV6_ADDR_LOOPBACK | IPV6_ADDR_MULTICAST));
}

/**
 * rcm_listen_addrs_plausible() - may a request's CMA header carry these?
 * @addrs: the listener's address and the peer's, from the header
 *
 * The address classes the in-tree CM's validate_net_dev() refuses: a
 * peer that claims a loopback, zero, broadcast or multicast source, or
 * dials such an address, is lying about where it is.
 *
 * Return: true when both addresses may be real unicast endpoints.
 */
bool rcm_listen_addrs_plausible(const struct rcm_wire_req_addrs *addrs)
{
	if (addrs->peer.sa.sa_family == AF_INET) {
		__be32 s = addrs->peer.in.sin_addr.s_addr;
		__be32 d = addrs->listen.in.sin_addr.s_addr;

		return !ipv4_is_multicast(s) && !ipv4_is_lbcast(s) &&
		       !ipv4_is_zeronet(s) && !ipv4_is_loopback(s) &&
		       !ipv4_is_multicast(d) && !ipv4_is_lbcast(d) &&
		       !ipv4_is_zeronet(d) && !ipv4_is_loopback(d);
	}
	return rcm_listen_ip6_unicast(&addrs->peer.in6.sin6_addr) &&
	       rcm_listen_ip6_unicast(&addrs->listen.in6.sin6_addr);
}

/* Does the route from @from to @to leave through @ndev? */
static bool rcm_listen_route_via(struct net_device *ndev,
				 const union rcm_wire_addr *to,
				 const union rcm_wire_addr *from)
{
	bool ok = false;

	if (to->sa.sa_family == AF_INET) {
		struct fib_result res;
		struct flowi4 fl4 = {
			.flowi4_oif = ndev->ifindex,
			.daddr = to->in.sin_addr.s_addr,
			.saddr = from->in.sin_addr.s_addr,
		};

		rcu_read_lock();
		ok = !fib_lookup(dev_net(ndev), &fl4, &res, 0) &&
		     FIB_RES_DEV(res) == ndev;
		rcu_read_unlock();
	} else {
		const struct in6_addr *d = &to->in6.sin6_addr;
		struct rt6_info *rt;

		rt = rt6_lookup(dev_net(ndev), d, &from->in6.sin6_addr,
				ndev->ifindex, NULL,
				!(ipv6_addr_type(d) & IPV6_ADDR_LINKLOCAL));
		if (rt) {
			ok = rt->rt6i_idev && rt->rt6i_idev->dev == ndev;
			ip6_rt_put(rt);
		}
	}
	return ok;
}

/*
 * Does @ndev route between the request's addresses? The route back to
 * the peer must leave through @ndev, as the in-tree CM's
 * validate_net_dev() requires, so a peer cannot claim an address that
 * lies behind another netdev, or nowhere; and the dialled address must
 * be reached through @ndev too, so a peer cannot reach a listener of one
 * netdev (or VLAN) through another netdev of the same RDMA device.
 */
static bool rcm_listen_routes(struct net_device *ndev,
			      const struct rcm_wire_req_addrs *addrs)
{
	return rcm_listen_route_via(ndev, &addrs->peer, &addrs->listen) &&
	       rcm_listen_route_via(ndev, &addrs->listen, &addrs->peer);
}

/*
 * The namespace of the netdev a request arrived on, with a reference,
 * once the request's addresses pass the in-tree CM's checks against it:
 * the netdev is up, the addresses are plausible and it routes between
 * them. Else an ERR_PTR: -EHOSTUNREACH, -ENETUNREACH, -EINVAL.
 */
static struct net *rcm_listen_req_net(const struct ib_gid_attr *sgid_attr,
				      const struct rcm_wire_req_addrs *addrs)
{
	struct net_device *ndev;
	struct net *net;
	int ret = 0;

	if (!rcm_listen_addrs_plausible(addrs))
		return ERR_PTR(-EINVAL);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return ERR_PTR(-EHOSTUNREACH);
	}
	dev_hold(ndev);
	rcu_read_unlock();
	if (!(ndev->flags & IFF_UP))
		ret = -ENETUNREACH;
	else if (!rcm_listen_routes(ndev, addrs))
		ret = -EHOSTUNREACH;
	net = ret ? ERR_PTR(ret) : maybe_get_net(dev_net(ndev));
	dev_put(ndev);
	return net ?: ERR_PTR(-EHOSTUNREACH);
}

/* ib_cm: a REQ (or SIDR REQ) arrived on one of rcm's listens. */
static int rcm_ib_req_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	const struct ib_cm_sidr_req_event_param *sidr =
		&event->param.sidr_req_rcvd;
	const struct ib_gid_attr *sgid_attr;
	struct rcm_wire_req_addrs addrs;
	struct rcm_id *listener;
	struct net *net;
	u16 ps, port;
	size_t len;
	u32 cm_port;
	int ret;

	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		if (req->qp_type != IB_QPT_RC)
			return -EINVAL;
		sgid_attr = req->ppath_sgid_attr;
		cm_port = req->port;
		len = IB_CM_REQ_PRIVATE_DATA_SIZE;
		break;
	case IB_CM_SIDR_REQ_RECEIVED:
		sgid_attr = sidr->sgid_attr;
		cm_port = sidr->port;
		len = IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (!sgid_attr)
		return -EINVAL;
	ret = rcm_wire_sid_parse(cm_id->service_id, &ps, &port);
	if (ret)
		return ret;
	ret = rcm_wire_hdr_decode(event->private_data, len, port, &addrs);
	if (ret)
		return ret;

	net = rcm_listen_req_net(sgid_attr, &addrs);
	if (IS_ERR(net))
		return PTR_ERR(net);
	/* Takes a reference on the listener it finds. */
	listener = rcm_port_find_listener(ps, port, net, &addrs.listen.sa,
					  cm_id->device);
	put_net(net);
	if (!listener)
		return -ECONNREFUSED;

	mutex_lock(&listener->lock);
	if (listener->state != RCM_STATE_LISTEN)
		ret = -ECONNABORTED;
	/* As in-tree: a REQ for an RC listener, a SIDR REQ for a UD one. */
	else if (rcm_id_is_ud(listener) !=
		 (event->event == IB_CM_SIDR_REQ_RECEIVED))
		ret = -EINVAL;
	else
		ret = rcm_listen_new_request(listener, cm_id, event, cm_port,
					     sgid_attr, &addrs);
	mutex_unlock(&listener->lock);
	rcm_id_put(listener);
	return ret;
}

/**
 * rcm_listen_release_slot() - give a request's backlog slot back
 * @id: a request id; the caller holds its lock
 */
void rcm_listen_release_slot(struct rcm_id *id)
{
	struct rcm_backlog *bl = id->slot;

	lockdep_assert_held(&id->lock);
	if (!bl)
		return;
	id->slot = NULL;
	atomic_inc(&bl->avail);
	rcm_backlog_put(bl);
}

/**
 * rcm_request_lock() - find an unanswered request id and lock it
 * @file: the caller's file
 * @handle: the id userspace named
 *
 * Return: the id as rcm_id_lock() returns it, or ERR_PTR(-ENOENT) (no
 * such id), ERR_PTR(-EINVAL) (not a request waiting for an answer) or
 * another state errno.
 */
struct rcm_id *rcm_request_lock(struct rcm_file *file, u32 handle)
{
	struct rcm_id *id = rcm_id_lock(file, handle);
	int ret;

	if (!id)
		return ERR_PTR(-ENOENT);
	if (rcm_id_is_request(id))
		return id;
	ret = rcm_id_state_errno(id);
	rcm_id_unlock(id);
	return ERR_PTR(ret);
}

/**
 * rcm_listen_request_read() - read() returned a request's CONNECT_REQUEST
 * @id: the request id; read() holds its file's read mutex, so a destroy
 *      of the id has not purged its events yet and the id is alive
 *
 * The request gives its backlog slot back, as ucma's does when its event
 * is read: whatever a peer does, a listener that does not read holds at
 * most its backlog of request ids.
 */
void rcm_listen_request_read(struct rcm_id *id)
{
	mutex_lock(&id->lock);
	rcm_listen_release_slot(id);
	mutex_unlock(&id->lock);
}

/**
 * rcm_listen_destroy_requests() - refuse a destroyed listener's unread
 *                                 requests
 * @listener: the listener, in its destroy, its listens already ended
 *
 * Their request ids are destroyed (which rejects each request at once,
 * as ucma does when a listener with unread requests is destroyed), so
 * no CONNECT_REQUEST outlives its listener to name an id that never
 * listened.
 */
void rcm_listen_destroy_requests(struct rcm_id *listener)
{
	struct rcm_uevent *uevent, *tmp;
	LIST_HEAD(claimed);

	if (!listener->backlog)
		return;		/* never listened */
	rcm_event_take_requests(listener->file, listener, &claimed);
	list_for_each_entry_safe(uevent, tmp, &claimed, list) {
		list_del(&uevent->list);
		rcm_id_destroy(uevent->id);
		rcm_event_free(uevent);
	}
}

/**
 * rcm_request_answered() - a request id got its answer, or its peer gave up
 * @id: the id; the caller holds its lock
 *
 * Its backlog slot stays taken until its CONNECT_REQUEST is read.
 */
void rcm_request_answered(struct rcm_id *id)
{
	id->answered = true;
}

int rcm_cmd_reject(struct file *filp, void *arg)
{
	struct rcm_reject *cmd = arg;
	u8 pdata[RCM_IWARP_PRIVATE_DATA_MAX];
	u32 reason = cmd->reason ?: RCM_REJ_CONSUMER_DEFINED;
	struct rcm_id *id;
	int ret;

	/* The limit of the id's transport is checked once it is known. */
	if (cmd->reserved || cmd->private_data_len > sizeof(pdata) ||
	    (reason != RCM_REJ_CONSUMER_DEFINED &&
	     reason != RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED))
		return -EINVAL;
	ret = rcm_private_data_from_user(pdata, cmd->private_data,
					 cmd->private_data_len);
	if (ret)
		return ret;
	id = rcm_id_lock(filp->private_data, cmd->id);
	if (!id)
		return -ENOENT;
	if (!rcm_id_is_request(id) && !rcm_id_awaits_rtu(id)) {
		ret = rcm_id_state_errno(id);
		goto out;
	}
	if (cmd->private_data_len > rcm_conn_pdata_max(id, RCM_WIRE_OP_REJECT)) {
		ret = -EINVAL;
		goto out;
	}
	if (id->iw)
		/* An MPA reject carries no reason: the peer sees a refusal. */
		ret = rcm_iw_reject(id, pdata, cmd->private_data_len);
	else if (rcm_id_is_ud(id))
		ret = rcm_sidr_reject(id, pdata, cmd->private_data_len);
	else
		ret = ib_send_cm_rej(id->cm_id, reason, NULL, 0, pdata,
				     cmd->private_data_len);
	if (ret)
		goto out;
	if (id->active)
		id->accepted = false;	/* the connection is gone */
	else
		rcm_request_answered(id);
out:
	rcm_id_unlock(id);
	return ret;
}
