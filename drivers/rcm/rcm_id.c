// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: communication identifiers - creation, lookup and destruction.
 *
 * The lifetime rules are written beside struct rcm_id in rcm_priv.h. In
 * short: the file's xarray entry holds the base reference; erasing the
 * entry is how a destroyer claims the id, so exactly one thread destroys
 * it; the destroyer fences callbacks by setting RCM_STATE_DESTROYING under
 * the id's lock, purges the id's queued events, drops the base reference
 * and waits until every command and operation in flight has dropped
 * theirs; then it leaves the id's multicast groups.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include <kunit/visibility.h>

#include "rcm_priv.h"
#include "rcm_trace.h"

static unsigned int max_ids_per_file = RCM_MAX_IDS;
module_param(max_ids_per_file, uint, 0644);
MODULE_PARM_DESC(max_ids_per_file,
		 "Ids one open file may hold at once (default 1048576)");

/**
 * rcm_id_qp_type() - the QP type of an id of this port space
 * @ps: enum rcm_port_space
 * @qp_type: enum rcm_qp_type, as CREATE_ID asked
 *
 * The rules of the in-tree ucma_get_qp_type(), which librdmacm relies
 * on: TCP ids are RC and UDP and IPoIB ids UD whatever was asked (an
 * rdma_create_ep() of a TCP address with a UC hint is RC in the
 * kernel), IB ids take the type asked: RC, UC, UD or XRC.
 *
 * Return: the type, or -EINVAL for an unknown port space or a type an
 * IB id cannot have.
 */
VISIBLE_IF_KUNIT int rcm_id_qp_type(u16 ps, u8 qp_type)
{
	switch (ps) {
	case RCM_PS_TCP:
		return RCM_QPT_RC;
	case RCM_PS_UDP:
	case RCM_PS_IPOIB:
		return RCM_QPT_UD;
	case RCM_PS_IB:
		switch (qp_type) {
		case RCM_QPT_RC:
		case RCM_QPT_UC:
		case RCM_QPT_UD:
		case RCM_QPT_XRC_SEND:
		case RCM_QPT_XRC_RECV:
			return qp_type;
		}
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

/**
 * rcm_id_state_errno() - errno of a command an id's state cannot take
 * @id: the id; the caller holds its lock
 *
 * Return: -ENOENT while it is being destroyed, -ENXIO after its device
 * was removed (as ucma, which closes the id then: every command that
 * names it fails so), else -EINVAL.
 */
int rcm_id_state_errno(struct rcm_id *id)
{
	lockdep_assert_held(&id->lock);
	switch (id->state) {
	case RCM_STATE_DESTROYING:
		return -ENOENT;
	case RCM_STATE_DEVICE_REMOVAL:
		return -ENXIO;
	default:
		return -EINVAL;
	}
}

/**
 * rcm_id_lock() - find an id of a file for a command and lock it
 * @file: the caller's file
 * @handle: the id userspace named
 *
 * Return: the id with a reference, its command lock and its lock held,
 * or NULL when the file has no such id. Undo with rcm_id_unlock().
 */
struct rcm_id *rcm_id_lock(struct rcm_file *file, u32 handle)
{
	struct rcm_id *id = rcm_id_get(file, handle);

	if (!id)
		return NULL;
	mutex_lock(&id->cmd_lock);
	mutex_lock(&id->lock);
	return id;
}

/**
 * rcm_id_unlock() - undo rcm_id_lock()
 * @id: the id it returned
 */
void rcm_id_unlock(struct rcm_id *id)
{
	mutex_unlock(&id->lock);
	mutex_unlock(&id->cmd_lock);
	rcm_id_put(id);
}

/**
 * rcm_id_get() - find an id of a file and take a reference on it
 * @file: the file the caller acts on
 * @handle: the handle userspace passed
 *
 * Handles are per file, so an id of another file can never be named.
 *
 * Return: the id, or NULL if @handle names no live id of @file.
 */
struct rcm_id *rcm_id_get(struct rcm_file *file, u32 handle)
{
	struct rcm_id *id;

	xa_lock(&file->ids);
	id = xa_load(&file->ids, handle);
	/* The entry holds the base reference: the count cannot be zero. */
	if (id)
		refcount_inc(&id->ref);
	xa_unlock(&file->ids);
	return id;
}

void rcm_id_put(struct rcm_id *id)
{
	if (!refcount_dec_and_test(&id->ref))
		return;
	/*
	 * A request id that was never published was aborted
	 * (rcm_request_abort()), which waits for nobody: the last holder
	 * frees it. Any other id's destroyer waits for @done.
	 */
	if (!id->handle)
		rcm_id_free(id);
	else
		complete(&id->done);
}

/* Ids come from their own cache: a kmalloc would round each up to 1 KiB. */
static struct kmem_cache *rcm_id_cache;
/* The last id number given (struct rcm_id's @num). */
static atomic_t rcm_id_count = ATOMIC_INIT(0);

int rcm_id_init(void)
{
	rcm_id_cache = KMEM_CACHE(rcm_id, SLAB_ACCOUNT);
	return rcm_id_cache ? 0 : -ENOMEM;
}

void rcm_id_exit(void)
{
	kmem_cache_destroy(rcm_id_cache);
	rcm_id_cache = NULL;
}

/**
 * rcm_id_alloc() - a new id, not yet visible to anyone
 * @file: the file that will own it
 * @context: the user's value for its events
 * @ps: port space
 * @qp_type: QP type
 * @net: its network namespace (a reference is taken)
 *
 * The id is charged to the memory cgroup of the caller's scope
 * (rcm_charge_begin(): a request id's listener's) or, outside one, of
 * the calling process; it keeps a reference to it for what it allocates
 * later in the CMs' threads.
 *
 * Return: the id in state IDLE holding its base reference, or NULL.
 */
struct rcm_id *rcm_id_alloc(struct rcm_file *file, u64 context, u16 ps,
			    u8 qp_type, struct net *net)
{
	struct mem_cgroup *memcg = get_mem_cgroup_from_mm(NULL);
	struct mem_cgroup *old = set_active_memcg(memcg);
	struct rcm_id *id = kmem_cache_zalloc(rcm_id_cache, GFP_KERNEL);

	set_active_memcg(old);
	if (!id) {
		mem_cgroup_put(memcg);
		return NULL;
	}
	id->memcg = memcg;
	id->num = atomic_inc_return(&rcm_id_count);
	id->file = file;
	id->context = context;
	id->ps = ps;
	id->qp_type = qp_type;
	/* In-tree RDMA_UDP_QKEY; IPoIB's would be its broadcast group's. */
	if (qp_type == RCM_QPT_UD && ps != RCM_PS_IPOIB)
		id->qkey = RCM_UDP_QKEY;
	id->state = RCM_STATE_IDLE;
	refcount_set(&id->ref, 1);
	init_completion(&id->done);
	mutex_init(&id->cmd_lock);
	mutex_init(&id->lock);
	INIT_LIST_HEAD(&id->dev_node);
	INIT_LIST_HEAD(&id->change_node);
	INIT_LIST_HEAD(&id->listens);
	INIT_LIST_HEAD(&id->listener_node);
	INIT_LIST_HEAD(&id->mcasts);
	id->net = get_net(net);
	id->dev_addr.net = id->net;
	return id;
}

/**
 * rcm_id_free() - free an id that holds nothing any more
 * @id: never published, or destroyed and waited for
 */
void rcm_id_free(struct rcm_id *id)
{
	kfree(id->path);
	put_net(id->net);
	mem_cgroup_put(id->memcg);
	mutex_destroy(&id->lock);
	mutex_destroy(&id->cmd_lock);
	kmem_cache_free(rcm_id_cache, id);
}

/**
 * rcm_id_publish() - make a complete id visible in its file
 * @id: the id; nothing can find it before this
 *
 * Return: 0 with @id->handle set, -EMFILE when the file holds
 * max_ids_per_file ids, -ENOMEM.
 */
int rcm_id_publish(struct rcm_id *id)
{
	int ret;

	ret = xa_alloc(&id->file->ids, &id->handle, id,
		       XA_LIMIT(1, max(READ_ONCE(max_ids_per_file), 1U)),
		       GFP_KERNEL_ACCOUNT);
	if (ret) {
		/* xa_alloc() may have set it before failing for memory. */
		id->handle = 0;
		return ret == -EBUSY ? -EMFILE : ret;
	}
	trace_cm_id_create(id);
	return 0;
}

int rcm_cmd_create_id(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_create_id *cmd = arg;
	struct rcm_id *id;
	int ret, qp_type;

	qp_type = rcm_id_qp_type(cmd->port_space, cmd->qp_type);
	if (cmd->reserved || qp_type < 0)
		return -EINVAL;
	id = rcm_id_alloc(file, cmd->context, cmd->port_space, qp_type,
			  current->nsproxy->net_ns);
	if (!id)
		return -ENOMEM;
	/*
	 * Once published, another thread may guess the handle and destroy
	 * the id: a reference of our own keeps it (and its memory, which
	 * rcm_cmd_create_id_finish() compares) until the handle is out.
	 */
	refcount_inc(&id->ref);
	ret = rcm_id_publish(id);
	if (ret) {
		rcm_id_free(id);
		return ret;
	}
	cmd->out_id = id->handle;
	container_of(cmd, struct rcm_create_id_call, cmd)->id = id;
	return 0;
}

/**
 * rcm_cmd_create_id_finish() - CREATE_ID after its handle was copied out
 * @filp: the file
 * @arg: the command, as rcm_cmd_create_id() left it
 * @copied: userspace has the handle; else it never learns it (EFAULT)
 *
 * As ucma: an id whose handle could not be given to userspace is
 * destroyed, unless another thread already did. The reference taken at
 * create keeps the id's memory, so comparing the entry with it is safe.
 */
void rcm_cmd_create_id_finish(struct file *filp, void *arg, bool copied)
{
	struct rcm_create_id_call *call = arg;
	struct rcm_file *file = filp->private_data;
	struct rcm_id *id = call->id;
	bool claimed;

	claimed = !copied &&
		  xa_cmpxchg(&file->ids, call->cmd.out_id, id, NULL,
			     GFP_KERNEL) == id;
	rcm_id_put(id);
	if (claimed)
		rcm_id_destroy(id);
}

/*
 * The events of @id that read() returned. Only a migration (under the
 * command lock) changes id->file: the caller holds that lock or has
 * claimed the id.
 */
static u32 rcm_id_events_reported(struct rcm_id *id)
{
	u32 reported;

	spin_lock(&id->file->event_lock);
	reported = id->events_reported;
	spin_unlock(&id->file->event_lock);
	return reported;
}

/**
 * rcm_id_destroy() - destroy a claimed id
 * @id: an id the caller has just erased from its file's xarray
 *      (rcm_id_claim()), which hands it the base reference
 *
 * Return: the number of events read() has returned for the id.
 */
u32 rcm_id_destroy(struct rcm_id *id)
{
	struct rcm_device *rdev;
	struct ib_cm_id *cm_id;
	struct iw_cm_id *iw;
	bool resolving;
	u32 reported;

	/* The fence: every callback that starts after this does nothing. */
	rcm_iw_lock_settled(id);
	trace_cm_id_destroy(id);
	id->state = RCM_STATE_DESTROYING;
	resolving = id->resolve_ev;
	/* Its callback, which the reference of the query waits for, is harmless now. */
	rcm_route_cancel(id);
	/*
	 * Taking the CM ids is the claim on destroying them: a device
	 * removal that unlinked the id before this finds them gone.
	 */
	cm_id = id->cm_id;
	id->cm_id = NULL;
	iw = id->iw;
	id->iw = NULL;
	rcm_listen_release_slot(id);
	/*
	 * The CM ids hold the device's GID table entries (ib_cm's address
	 * vectors): the device's removal must wait until they are gone, so
	 * hold the device past detaching, which may let the removal by.
	 */
	rdev = id->rdev;
	if (rdev)
		rcm_device_get(rdev);
	rcm_addr_detach(id);
	mutex_unlock(&id->lock);

	/*
	 * These wait for callbacks, which take the lock: not held here.
	 * Destroying an unanswered request's cm_id rejects the request; an
	 * iWARP connect in flight is waited for (iw_cm's rule), at most
	 * until the driver gives up on the MPA exchange.
	 */
	rcm_listen_stop(id);
	/* A listener's unread requests are refused and go with it. */
	rcm_listen_destroy_requests(id);
	rcm_listen_drop_backlog(id);
	rcm_device_put_cm(rdev, cm_id, iw);
	if (resolving)
		rcm_addr_cancel(id);
	rcm_ps_release(id);

	rcm_event_purge(id->file, id);
	rcm_id_put(id);
	wait_for_completion(&id->done);
	/* Nothing reaches the id now; its groups' events went with its own. */
	rcm_mcast_destroy(id);

	reported = rcm_id_events_reported(id);
	rcm_id_free(id);
	return reported;
}

/**
 * rcm_id_claim() - take an id out of its file, to destroy it
 * @file: the file
 * @handle: the id's handle
 *
 * Erasing the entry hands the caller the base reference. A handle that a
 * migration has reserved (an entry that holds no id yet) is left alone:
 * the migration stores its id there later.
 *
 * Return: the id, or NULL when @handle names no id of @file.
 */
struct rcm_id *rcm_id_claim(struct rcm_file *file, u32 handle)
{
	struct rcm_id *id;

	xa_lock(&file->ids);
	id = xa_load(&file->ids, handle);
	if (id)
		__xa_erase(&file->ids, handle);
	xa_unlock(&file->ids);
	return id;
}

int rcm_cmd_destroy_id(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_destroy_id *cmd = arg;
	struct rcm_id *id;

	id = rcm_id_claim(file, cmd->id);
	if (!id)
		return -ENOENT;
	cmd->out_events_reported = rcm_id_destroy(id);
	return 0;
}

/*
 * Move @id's entry from @src's index @old to @dst's reserved index
 * @handle, both xarray locks held, so no lookup or destroy of either
 * file sees the id in both or in neither. The claim from @src is checked
 * (a destroy that erased the entry first keeps the id), and so is the
 * store: it goes only into an index that holds no other id.
 */
static int rcm_id_swap(struct rcm_file *src, u32 old, struct rcm_file *dst,
		       u32 handle, struct rcm_id *id)
{
	struct xarray *a = &src->ids, *b = &dst->ids;
	int ret = 0;

	if (a > b)
		swap(a, b);
	xa_lock(a);
	spin_lock_nested(&b->xa_lock, SINGLE_DEPTH_NESTING);
	if (xa_load(&src->ids, old) != id)
		ret = -ENOENT;
	else if (xa_load(&dst->ids, handle))
		ret = -EBUSY;
	else
		ret = xa_err(__xa_store(&dst->ids, handle, id, GFP_NOWAIT));
	if (!ret)
		__xa_erase(&src->ids, old);
	spin_unlock(&b->xa_lock);
	xa_unlock(a);
	return ret;
}

/* A new handle reserved in @file, as CREATE_ID takes one. */
static int rcm_id_reserve(struct rcm_file *file, u32 *handle)
{
	int ret = xa_alloc(&file->ids, handle, NULL,
			   XA_LIMIT(1, max(READ_ONCE(max_ids_per_file), 1U)),
			   GFP_KERNEL_ACCOUNT);

	return ret == -EBUSY ? -EMFILE : ret;
}

/*
 * The request ids of a migrating listener's unread connection requests,
 * with a handle reserved for each in @dst (as in-tree, a listener's
 * migration never fails for them: they go along).
 */
struct rcm_id_move_reqs {
	unsigned int n;
	struct rcm_id **ids;
	u32 *handles;
};

static void rcm_id_move_reqs_free(struct rcm_file *dst,
				  struct rcm_id_move_reqs *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		if (r->handles[i])
			xa_release(&dst->ids, r->handles[i]);
		rcm_id_put(r->ids[i]);
	}
	kfree(r->ids);
	kfree(r->handles);
}

/*
 * Collect @listener's unread requests and reserve their handles; the
 * caller holds the listener's lock and both files' readers out. On
 * failure nothing is left reserved.
 */
static int rcm_id_move_reqs_get(struct rcm_file *src, struct rcm_file *dst,
				struct rcm_id *listener,
				struct rcm_id_move_reqs *r)
{
	unsigned int n, i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	n = rcm_event_requests_of(src, listener, NULL, 0);
	if (!n)
		return 0;
	r->ids = kcalloc(n, sizeof(*r->ids), GFP_KERNEL);
	r->handles = kcalloc(n, sizeof(*r->handles), GFP_KERNEL);
	if (!r->ids || !r->handles) {
		kfree(r->ids);
		kfree(r->handles);
		return -ENOMEM;
	}
	/* The set cannot change while the locks are held. */
	r->n = rcm_event_requests_of(src, listener, r->ids, n);
	for (i = 0; i < r->n && !ret; i++)
		ret = rcm_id_reserve(dst, &r->handles[i]);
	if (ret)
		rcm_id_move_reqs_free(dst, r);
	return ret;
}

/*
 * Move the collected request ids after their listener: each is claimed
 * from @src and published in @dst under its lock (nested in the
 * listener's, as when it was made), with its queued events, whose
 * CONNECT_REQUEST names the listener's new handle.
 */
static void rcm_id_move_reqs(struct rcm_file *src, struct rcm_file *dst,
			     struct rcm_id_move_reqs *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		struct rcm_id *req = r->ids[i];

		mutex_lock_nested(&req->lock, SINGLE_DEPTH_NESTING);
		if (!rcm_id_swap(src, req->handle, dst, r->handles[i], req)) {
			rcm_event_move(src, dst, req, r->handles[i]);
			req->file = dst;
			req->handle = r->handles[i];
			r->handles[i] = 0;
		}
		mutex_unlock(&req->lock);
	}
	rcm_id_move_reqs_free(dst, r);
}

/*
 * Move @id from @src to @dst under the handle reserved there: claim it
 * from @src as a destroy would (so exactly one of a destroy and a
 * migration gets it), move its queued events, and publish it in @dst;
 * then the request ids of its unread connection requests, if it
 * listens. Callbacks and commands find an id's file and handle under its
 * lock, which is held across the switch.
 */
static int rcm_id_move(struct rcm_file *src, struct rcm_file *dst,
		       struct rcm_id *id, u32 old, u32 handle)
{
	struct rcm_id_move_reqs reqs;
	int ret;

	rcm_event_readers_lock(src, dst);
	mutex_lock(&id->lock);
	ret = rcm_event_can_move(src, id);
	if (ret)
		goto out;
	ret = rcm_id_move_reqs_get(src, dst, id, &reqs);
	if (ret)
		goto out;
	/*
	 * A lookup in @dst may find the id from here on; commands wait for
	 * the command lock we hold, a destroy for the id's lock.
	 */
	ret = rcm_id_swap(src, old, dst, handle, id);
	if (ret) {
		rcm_id_move_reqs_free(dst, &reqs);
		goto out;
	}
	rcm_event_move(src, dst, id, handle);
	rcm_mcast_move(id, src, dst);
	id->file = dst;
	id->handle = handle;
	rcm_id_move_reqs(src, dst, &reqs);
out:
	mutex_unlock(&id->lock);
	rcm_event_readers_unlock(src, dst);
	return ret;
}

int rcm_cmd_migrate_id(struct file *filp, void *arg)
{
	struct rcm_file *src = filp->private_data, *dst;
	struct rcm_migrate_id *cmd = arg;
	struct rcm_id *id;
	struct file *f;
	u32 handle;
	int ret;

	f = fget(cmd->fd);
	if (!f)
		return -EBADF;
	/* The file reference keeps @dst's release (which frees it) away. */
	if (f->f_op != &rcm_fops) {
		ret = -EINVAL;
		goto out_fd;
	}
	dst = f->private_data;
	id = rcm_id_get(src, cmd->id);
	if (!id) {
		ret = -ENOENT;
		goto out_fd;
	}
	mutex_lock(&id->cmd_lock);
	if (dst == src) {
		handle = cmd->id;
	} else {
		/* Reserve the new handle first: the move itself cannot fail. */
		ret = rcm_id_reserve(dst, &handle);
		if (ret)
			goto out_id;
		ret = rcm_id_move(src, dst, id, cmd->id, handle);
		if (ret) {
			xa_release(&dst->ids, handle);
			goto out_id;
		}
	}
	cmd->out_id = handle;
	cmd->out_events_reported = rcm_id_events_reported(id);
	ret = 0;
out_id:
	mutex_unlock(&id->cmd_lock);
	rcm_id_put(id);
out_fd:
	fput(f);
	return ret;
}

/**
 * rcm_file_destroy_ids() - destroy every id of a file that is closing
 * @file: the file; no command can run on it any more
 */
void rcm_file_destroy_ids(struct rcm_file *file)
{
	struct rcm_id *id;
	unsigned long index;

	/*
	 * A listener may add request ids below the index the walk has
	 * passed until it is destroyed itself: walk until nothing is left.
	 */
	while (!xa_empty(&file->ids)) {
		xa_for_each(&file->ids, index, id) {
			if (xa_erase(&file->ids, index) == id)
				rcm_id_destroy(id);
			cond_resched();
		}
	}
}
