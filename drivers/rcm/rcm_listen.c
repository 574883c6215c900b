// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: the passive side, whatever the transport - listening, the
 * backlog, request ids, reject.
 *
 * A listening id registers one CM listen per device it listens on
 * (struct rcm_listen_dev): an IB CM listen for the service ID of its
 * port space and port (rcm_ib.c, whose shared request handler finds the
 * listener), or on an iWARP device an iw_cm listen on its address and
 * port (rcm_iw.c), whose requests arrive on the listener itself.
 *
 * A request becomes a new id (a "request id") in the listener's file,
 * reported by RCM_EVENT_CONNECT_REQUEST. It owns the ib_cm or iw_cm id
 * the CM created for the request. Until its CONNECT_REQUEST is read, the
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

#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

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

/* Listen on @rdev unless already; rcm_listeners_lock held. */
static int rcm_listen_on(struct rcm_id *id, struct rcm_device *rdev)
{
	struct rcm_listen_dev *ld;
	void *cm;

	lockdep_assert_held(&rcm_listeners_lock);
	/*
	 * An ib_cm listen covers a service ID on the whole device: a
	 * listener never listens on a device its namespace does not use,
	 * or it would take that service ID from everyone who does.
	 */
	if (!rcm_device_serves_net(rdev, id->net))
		return 0;
	list_for_each_entry(ld, &id->listens, node)
		if (ld->rdev == rdev)
			return 0;
	ld = kzalloc(sizeof(*ld), GFP_KERNEL_ACCOUNT);
	if (!ld)
		return -ENOMEM;
	switch (rcm_listen_cm(rdev)) {
	case RCM_PORT_CM_IB:
		ld->cm_id = rcm_ib_listen(id, rdev);
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
	rcm_device_get(rdev);
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
		rcm_device_put_cm(ld->rdev, ld->cm_id, ld->iw);
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
 * rcm_listen_backlog() - the backlog a listener was given
 * @id: a listening id; the caller holds its lock
 *
 * Return: the number of unread requests it may hold.
 */
u32 rcm_listen_backlog(const struct rcm_id *id)
{
	return id->backlog ? id->backlog->max : 0;
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
	ret = rcm_ps_listen_exclusive(id);
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
		trace_cm_listen(id);
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
 * Return: the id, or ERR_PTR(-ENOBUFS) when the backlog is full (the
 * caller traces the reason and gives ib_cm -ENOMEM, which makes it drop
 * the REQ without a REJ), ERR_PTR(-ENOMEM) when memory is short.
 */
struct rcm_id *rcm_request_begin(struct rcm_id *listener)
{
	struct rcm_backlog *bl = listener->backlog;
	struct rcm_id *child;

	lockdep_assert_held(&listener->lock);
	if (!atomic_add_unless(&bl->avail, -1, 0))
		return ERR_PTR(-ENOBUFS);
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
 * rcm_request_publish() - publish a request id with its CONNECT_REQUEST
 * @child: the request id, from rcm_request_begin(), attached to its device
 * @listener: its listener; the caller holds its lock
 *
 * Allocates the event, which names the listener (handle and context for
 * userspace, and @listener for the listener's destroy, which purges it
 * unread), then gives @child its handle in the listener's file. The
 * caller fills the event in and queues it.
 *
 * Return: the event, not yet queued, or an ERR_PTR(): -ENOMEM, or the
 * error of rcm_id_publish(); @child is then unpublished, for
 * rcm_request_abort().
 */
struct rcm_uevent *rcm_request_publish(struct rcm_id *child,
				       struct rcm_id *listener)
{
	struct rcm_uevent *ev;
	int ret;

	ev = rcm_event_alloc(child, RCM_EVENT_CONNECT_REQUEST, GFP_KERNEL);
	if (!ev)
		return ERR_PTR(-ENOMEM);
	ev->listener = listener;
	ev->ev.context = listener->context;
	ev->ev.listen_id = listener->handle;
	ret = rcm_id_publish(child);
	if (ret) {
		rcm_event_free(ev);
		return ERR_PTR(ret);
	}
	return ev;
}

/**
 * rcm_request_abort() - undo rcm_request_begin()
 * @child: the id it returned, still locked and never published; it must
 *         not own a CM id (the CM destroys that itself)
 *
 * Gives the id's backlog slot back and drops its base reference; the id
 * is freed by whoever drops the last one (rcm_id_put()).
 *
 * Context: the caller holds the listener's lock, so this never waits: a
 * device removal or an address change may have collected @child from
 * its device's list, with a reference, and wait for the listener's lock
 * before they reach @child's (they take ids in attach order).
 */
void rcm_request_abort(struct rcm_id *child)
{
	/* Those who hold a reference find it fenced, as a destroyed id. */
	child->state = RCM_STATE_DESTROYING;
	rcm_listen_release_slot(child);
	rcm_addr_detach(child);
	mutex_unlock(&child->lock);
	rcm_id_put(child);
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
		ret = rcm_ib_reject(id, reason, pdata, cmd->private_data_len);
	if (ret)
		goto out;
	trace_cm_send_rej(id);
	if (id->active)
		id->accepted = false;	/* the connection is gone */
	else
		rcm_request_answered(id);
out:
	rcm_id_unlock(id);
	return ret;
}
