// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: file operations of /dev/infiniband/rcm and the ioctl dispatcher.
 *
 * Every command struct starts with { __u32 size; __u32 flags; }. The
 * dispatcher owns the rules the uapi header states once for all commands
 * (size window, zeroed tail, known flags), so that a handler only ever
 * sees a kernel copy that passed them, and it writes back the command's
 * out_ members, and nothing else, once the handler succeeded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include <kunit/visibility.h>

#include "rcm_priv.h"

/*
 * Every command struct, so that one stack buffer holds any of them: its
 * size is fixed at build time, and RCM_OP() refuses a struct that does
 * not fit.
 */
union rcm_ucmd_buffer {
	struct rcm_query query;
	struct rcm_create_id_call create_id;
	struct rcm_destroy_id destroy_id;
	struct rcm_bind_addr bind_addr;
	struct rcm_resolve_addr resolve_addr;
	struct rcm_query_id query_id;
	struct rcm_resolve_route resolve_route;
	struct rcm_set_option set_option;
	struct rcm_listen listen;
	struct rcm_reject reject;
	struct rcm_accept accept;
	struct rcm_disconnect disconnect;
	struct rcm_connect connect;
	struct rcm_establish establish;
	struct rcm_init_qp_attr init_qp_attr;
	struct rcm_notify notify;
	struct rcm_migrate_id migrate_id;
	struct rcm_join_mcast join_mcast;
	struct rcm_leave_mcast leave_mcast;
};

#define RCM_OP_ENTRY(_nr, _execute, _struct, _last, _out_offset, _out_end, \
		     _finish)						\
	[(_nr) - RCM_CMD_BASE] = {					\
		.execute = _execute,					\
		.finish = _finish,					\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(_struct) >		\
					  sizeof(union rcm_ucmd_buffer)), \
		.min_size = offsetofend(_struct, _last),		\
		.out_offset = _out_offset,				\
		.out_end = _out_end,					\
	}

/* A command without outputs: nothing is ever written back. */
#define RCM_OP(_nr, _execute, _struct, _last)				\
	RCM_OP_ENTRY(_nr, _execute, _struct, _last, 0, 0, NULL)

/*
 * A command whose outputs are _first_out.._last_out (in declaration
 * order, with no input between them): only those bytes, as far as
 * userspace's size reaches, are written back, and only once the handler
 * succeeded. (typeof() of a type is the type; it tells checkpatch that
 * _struct is no expression with side effects.)
 */
#define RCM_OP_OUT(_nr, _execute, _struct, _last, _first_out, _last_out) \
	RCM_OP_OUT_FINISH(_nr, _execute, _struct, _last, _first_out,	\
			  _last_out, NULL)

/* The same, with a finish hook that sees whether the copy-out worked. */
#define RCM_OP_OUT_FINISH(_nr, _execute, _struct, _last, _first_out,	\
			  _last_out, _finish)				\
	RCM_OP_ENTRY(_nr, _execute, _struct, _last,			\
		     offsetof(_struct, _first_out),			\
		     offsetofend(typeof(_struct), _last_out), _finish)

VISIBLE_IF_KUNIT const struct rcm_ioctl_op rcm_ioctl_ops[] = {
	RCM_OP_OUT(RCM_CMD_QUERY, rcm_cmd_query, struct rcm_query,
		   event_size, out_abi_version, out_event_size),
	RCM_OP_OUT_FINISH(RCM_CMD_CREATE_ID, rcm_cmd_create_id,
			  struct rcm_create_id, out_id, out_id, out_id,
			  rcm_cmd_create_id_finish),
	RCM_OP_OUT(RCM_CMD_DESTROY_ID, rcm_cmd_destroy_id,
		   struct rcm_destroy_id, out_events_reported,
		   out_events_reported, out_events_reported),
	RCM_OP_OUT(RCM_CMD_BIND_ADDR, rcm_cmd_bind_addr, struct rcm_bind_addr,
		   out_info, out_info, out_info),
	RCM_OP(RCM_CMD_RESOLVE_ADDR, rcm_cmd_resolve_addr,
	       struct rcm_resolve_addr, dst),
	RCM_OP_OUT(RCM_CMD_QUERY_ID, rcm_cmd_query_id, struct rcm_query_id,
		   out_ibdev_index, out_port_num, out_ibdev_index),
	RCM_OP(RCM_CMD_RESOLVE_ROUTE, rcm_cmd_resolve_route,
	       struct rcm_resolve_route, timeout_ms),
	RCM_OP(RCM_CMD_SET_OPTION, rcm_cmd_set_option, struct rcm_set_option,
	       value),
	RCM_OP(RCM_CMD_LISTEN, rcm_cmd_listen, struct rcm_listen, backlog),
	RCM_OP(RCM_CMD_REJECT, rcm_cmd_reject, struct rcm_reject, private_data),
	RCM_OP(RCM_CMD_ACCEPT, rcm_cmd_accept, struct rcm_accept, ece_attr_mod),
	RCM_OP(RCM_CMD_DISCONNECT, rcm_cmd_disconnect, struct rcm_disconnect,
	       reserved),
	RCM_OP(RCM_CMD_CONNECT, rcm_cmd_connect, struct rcm_connect,
	       ece_attr_mod),
	RCM_OP(RCM_CMD_ESTABLISH, rcm_cmd_establish, struct rcm_establish,
	       reserved),
	RCM_OP_OUT(RCM_CMD_INIT_QP_ATTR, rcm_cmd_init_qp_attr,
		   struct rcm_init_qp_attr, reserved, out_attr, out_attr),
	RCM_OP(RCM_CMD_NOTIFY, rcm_cmd_notify, struct rcm_notify, event),
	RCM_OP_OUT(RCM_CMD_MIGRATE_ID, rcm_cmd_migrate_id,
		   struct rcm_migrate_id, out_events_reported, out_id,
		   out_events_reported),
	RCM_OP(RCM_CMD_JOIN_MCAST, rcm_cmd_join_mcast, struct rcm_join_mcast,
	       addr),
	RCM_OP_OUT(RCM_CMD_LEAVE_MCAST, rcm_cmd_leave_mcast,
		   struct rcm_leave_mcast, addr, out_events_reported,
		   out_events_reported),
};

VISIBLE_IF_KUNIT const unsigned int rcm_ioctl_num_ops = ARRAY_SIZE(rcm_ioctl_ops);

/**
 * rcm_ioctl_lookup() - find the table entry of an ioctl number
 * @cmd: the ioctl number as passed to unlocked_ioctl
 *
 * Return: the entry, or NULL when @cmd is not an rcm command.
 */
VISIBLE_IF_KUNIT const struct rcm_ioctl_op *rcm_ioctl_lookup(unsigned int cmd)
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
 * Return: 0, -EINVAL for a size below the command's @min_size,
 * -E2BIG for a size above RCM_MAX_CMD_SIZE, or -EOPNOTSUPP for any
 * flag bit (no command defines one yet). A size between the kernel's
 * struct and RCM_MAX_CMD_SIZE is accepted here; the caller checks that
 * the extra bytes are zero.
 */
VISIBLE_IF_KUNIT int rcm_ioctl_check_header(const struct rcm_ioctl_op *op,
					    u32 user_size, u32 flags)
{
	if (user_size < op->min_size)
		return -EINVAL;
	if (user_size > RCM_MAX_CMD_SIZE)
		return -E2BIG;
	/* No command takes a flag yet. */
	if (flags)
		return -EOPNOTSUPP;
	return 0;
}

static long rcm_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct rcm_ioctl_op *op;
	/*
	 * Not zeroed first (as CONFIG_INIT_STACK_ALL_ZERO would on every
	 * call): copy_struct_from_user() fills the command's op->size
	 * bytes, and neither the handler nor the copy-out reaches past them.
	 */
	union rcm_ucmd_buffer buf __uninitialized;
	u32 hdr[2];	/* size, flags */
	u32 out_end;
	int ret;

	op = rcm_ioctl_lookup(cmd);
	if (!op)
		return -ENOTTY;
	if (copy_from_user(hdr, uarg, sizeof(hdr)))
		return -EFAULT;
	ret = rcm_ioctl_check_header(op, hdr[0], hdr[1]);
	if (ret)
		return ret;

	/* Zero-fills what userspace did not send; E2BIG on a non-zero tail. */
	ret = copy_struct_from_user(&buf, op->size, uarg, hdr[0]);
	if (ret)
		return ret;
	ret = op->execute(filp, &buf);
	if (ret)
		return ret;

	/* Outputs only: an input-only command never writes to userspace. */
	out_end = min(hdr[0], op->out_end);
	if (out_end > op->out_offset &&
	    copy_to_user(uarg + op->out_offset, (u8 *)&buf + op->out_offset,
			 out_end - op->out_offset))
		ret = -EFAULT;
	if (op->finish)
		op->finish(filp, &buf, !ret);
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
	file->event_size = RCM_EVENT_SIZE;
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
	.llseek = RCM_NO_LLSEEK,
	.show_fdinfo = rcm_show_fdinfo,
};
