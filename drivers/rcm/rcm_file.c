// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: file operations of /dev/infiniband/rcm and the ioctl dispatcher.
 *
 * Every command struct starts with { __u32 size; __u32 flags; }. The
 * dispatcher owns the rules the uapi header states once for all commands
 * (size window, zeroed tail, known flags), so that a handler only ever
 * sees a kernel copy that passed them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rcm_priv.h"

#define RCM_OP(_nr, _execute, _struct, _last)                            \
	[(_nr) - RCM_CMD_BASE] = {                                       \
		.execute = _execute,                                     \
		.size = sizeof(_struct),                                 \
		.min_size = offsetofend(_struct, _last),                 \
	}

const struct rcm_ioctl_op rcm_ioctl_ops[] = {
	RCM_OP(RCM_CMD_QUERY, rcm_cmd_query, struct rcm_query, out_num_devices),
	RCM_OP(RCM_CMD_CREATE_ID, rcm_cmd_create_id, struct rcm_create_id,
	       out_id),
	RCM_OP(RCM_CMD_DESTROY_ID, rcm_cmd_destroy_id, struct rcm_destroy_id,
	       out_events_reported),
	RCM_OP(RCM_CMD_BIND_ADDR, rcm_cmd_bind_addr, struct rcm_bind_addr, addr),
	RCM_OP(RCM_CMD_RESOLVE_ADDR, rcm_cmd_resolve_addr,
	       struct rcm_resolve_addr, dst),
	RCM_OP(RCM_CMD_QUERY_ID, rcm_cmd_query_id, struct rcm_query_id, out_dst),
	RCM_OP(RCM_CMD_RESOLVE_ROUTE, rcm_cmd_resolve_route,
	       struct rcm_resolve_route, timeout_ms),
	RCM_OP(RCM_CMD_SET_OPTION, rcm_cmd_set_option, struct rcm_set_option,
	       value),
	RCM_OP(RCM_CMD_LISTEN, rcm_cmd_listen, struct rcm_listen, backlog),
	RCM_OP(RCM_CMD_REJECT, rcm_cmd_reject, struct rcm_reject, private_data),
	RCM_OP(RCM_CMD_ACCEPT, rcm_cmd_accept, struct rcm_accept, private_data),
	RCM_OP(RCM_CMD_DISCONNECT, rcm_cmd_disconnect, struct rcm_disconnect,
	       reserved),
	RCM_OP(RCM_CMD_CONNECT, rcm_cmd_connect, struct rcm_connect,
	       private_data),
	RCM_OP(RCM_CMD_ESTABLISH, rcm_cmd_establish, struct rcm_establish,
	       reserved),
	RCM_OP(RCM_CMD_INIT_QP_ATTR, rcm_cmd_init_qp_attr,
	       struct rcm_init_qp_attr, out_attr),
	RCM_OP(RCM_CMD_NOTIFY, rcm_cmd_notify, struct rcm_notify, event),
	RCM_OP(RCM_CMD_MIGRATE_ID, rcm_cmd_migrate_id, struct rcm_migrate_id,
	       out_events_reported),
	RCM_OP(RCM_CMD_JOIN_MCAST, rcm_cmd_join_mcast, struct rcm_join_mcast,
	       addr),
	RCM_OP(RCM_CMD_LEAVE_MCAST, rcm_cmd_leave_mcast, struct rcm_leave_mcast,
	       addr),
};

const unsigned int rcm_ioctl_num_ops = ARRAY_SIZE(rcm_ioctl_ops);

/**
 * rcm_ioctl_lookup() - find the table entry of an ioctl number
 * @cmd: the ioctl number as passed to unlocked_ioctl
 *
 * Return: the entry, or NULL when @cmd is not an rcm command.
 */
const struct rcm_ioctl_op *rcm_ioctl_lookup(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);

	if (cmd != _IO(RCM_IOCTL_MAGIC, nr) || nr < RCM_CMD_BASE ||
	    nr - RCM_CMD_BASE >= rcm_ioctl_num_ops)
		return NULL;
	nr = array_index_nospec(nr - RCM_CMD_BASE, rcm_ioctl_num_ops);
	if (!rcm_ioctl_ops[nr].execute)
		return NULL;
	return &rcm_ioctl_ops[nr];
}

/**
 * rcm_ioctl_check_header() - apply the size and flags rules of the uapi
 * @op: the command
 * @user_size: the size member userspace passed
 * @flags: the flags member userspace passed
 *
 * Return: 0, -EINVAL for a size below the command's first release,
 * -E2BIG for a size above RCM_MAX_CMD_SIZE, or -EOPNOTSUPP for unknown
 * flag bits. A size between the kernel's struct and RCM_MAX_CMD_SIZE is
 * accepted here; the caller checks that the extra bytes are zero.
 */
int rcm_ioctl_check_header(const struct rcm_ioctl_op *op, u32 user_size,
			   u32 flags)
{
	if (user_size < op->min_size)
		return -EINVAL;
	if (user_size > RCM_MAX_CMD_SIZE)
		return -E2BIG;
	if (flags & ~op->flags_mask)
		return -EOPNOTSUPP;
	return 0;
}

static long rcm_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct rcm_ioctl_op *op;
	u32 hdr[2];	/* size, flags */
	void *karg;
	long ret;

	op = rcm_ioctl_lookup(cmd);
	if (!op)
		return -ENOTTY;
	if (copy_from_user(hdr, uarg, sizeof(hdr)))
		return -EFAULT;
	ret = rcm_ioctl_check_header(op, hdr[0], hdr[1]);
	if (ret)
		return ret;

	karg = kzalloc(op->size, GFP_KERNEL);
	if (!karg)
		return -ENOMEM;
	/* Zero-fills what userspace did not send; E2BIG on a non-zero tail. */
	ret = copy_struct_from_user(karg, op->size, uarg, hdr[0]);
	if (ret)
		goto out;
	ret = op->execute(filp, karg);
	if (ret)
		goto out;
	if (copy_to_user(uarg, karg, min_t(u32, hdr[0], op->size)))
		ret = -EFAULT;
out:
	kfree(karg);
	return ret;
}

static int rcm_open(struct inode *inode, struct file *filp)
{
	struct rcm_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file)
		return -ENOMEM;
	xa_init_flags(&file->ids, XA_FLAGS_ALLOC1);
	spin_lock_init(&file->event_lock);
	INIT_LIST_HEAD(&file->events);
	mutex_init(&file->read_mutex);
	init_waitqueue_head(&file->poll_wait);
	filp->private_data = file;
	return nonseekable_open(inode, filp);
}

static int rcm_release(struct inode *inode, struct file *filp)
{
	struct rcm_file *file = filp->private_data;

	rcm_file_destroy_ids(file);
	xa_destroy(&file->ids);
	mutex_destroy(&file->read_mutex);
	kfree(file);
	return 0;
}

const struct file_operations rcm_fops = {
	.owner = THIS_MODULE,
	.open = rcm_open,
	.release = rcm_release,
	.read = rcm_read,
	.poll = rcm_poll,
	.unlocked_ioctl = rcm_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};
