// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: id options (RCM_IOCTL_SET_OPTION), with the in-tree rdma_cm's
 * rules on when each may change. rcm's own options: the connect timeout
 * and Q_Key apply until the id sends its request or its answer;
 * RESOLVE_TIMEOUT is only stored here, and the resolutions read it
 * (rcm_addr.c, rcm_route.c). RCM_OPTION_IB_PATH resolves the route with
 * userspace's path (rcm_route.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_user_sa.h>

#include "rcm_priv.h"

/* The IB local ACK timeout field is five bits wide. */
#define RCM_ACK_TIMEOUT_MAX 31

/* Q_Keys with bit 31 set are controlled ones (IBA 10.2.4). */
#define RCM_QKEY_MAX 0x7fffffff

/*
 * The id connected or accepted already (a request id not answered yet
 * has not): too late for the CM timers and the Q_Key. For the Q_Key, a
 * joined group (its events announced the old one) is too late as well.
 */
static bool rcm_option_answered(struct rcm_id *id)
{
	switch (id->state) {
	case RCM_STATE_CONNECT:
		return id->active || id->answered;
	case RCM_STATE_DISCONNECT:
		return true;
	default:
		return false;
	}
}

/* Apply one option; @id->lock held. */
static int rcm_option_id(struct rcm_id *id, u32 optname, u64 value)
{
	bool bound = id->state != RCM_STATE_IDLE;

	switch (optname) {
	case RCM_OPTION_ID_TOS:
		if (value > U8_MAX)
			return -EINVAL;
		id->tos = value;
		return 0;
	case RCM_OPTION_ID_REUSEADDR:
		/* As in-tree: on, until the id listens; off, until it binds. */
		if (value > 1 || (!value && bound) ||
		    (value && id->state == RCM_STATE_LISTEN))
			return -EINVAL;
		rcm_ps_set_sharing(id, value, id->bind.afonly);
		return 0;
	case RCM_OPTION_ID_AFONLY:
		if (value > 1 || (id->state != RCM_STATE_IDLE &&
				  id->state != RCM_STATE_ADDR_BOUND))
			return -EINVAL;
		rcm_ps_set_sharing(id, id->bind.reuseaddr, value);
		id->afonly_set = true;
		return 0;
	case RCM_OPTION_ID_ACK_TIMEOUT:
		/* As in-tree rdma_set_ack_timeout(): RC and XRC_INI ids. */
		if (value > RCM_ACK_TIMEOUT_MAX ||
		    (id->qp_type != RCM_QPT_RC &&
		     id->qp_type != RCM_QPT_XRC_SEND))
			return -EINVAL;
		id->ack_timeout = value;
		id->ack_timeout_set = true;
		return 0;
	case RCM_OPTION_ID_CONNECT_TIMEOUT:
		if (value > RCM_MAX_TIMEOUT_MS || rcm_option_answered(id))
			return -EINVAL;
		id->connect_timeout_ms = value;
		return 0;
	case RCM_OPTION_ID_QKEY:
		/* Bit 31 marks a controlled Q_Key, which only IB may use. */
		if (value > RCM_QKEY_MAX || !rcm_id_is_ud(id) ||
		    rcm_option_answered(id) || !list_empty(&id->mcasts))
			return -EINVAL;
		id->qkey = value;
		return 0;
	case RCM_OPTION_ID_RESOLVE_TIMEOUT:
		if (value > RCM_MAX_TIMEOUT_MS)
			return -EINVAL;
		id->resolve_timeout_ms = value;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

/*
 * RCM_OPTION_IB_PATH: the records are read before the id is locked, then
 * the route is set and ROUTE_RESOLVED queued (ucma_set_ib_path()).
 */
static int rcm_option_ib_path(struct rcm_file *file,
			      const struct rcm_set_option *cmd)
{
	struct ib_path_rec_data data;
	int ret;

	ret = rcm_route_ib_path_from_user(cmd->value, cmd->optlen, &data);
	if (ret)
		return ret;
	return rcm_route_set_ib_path(file, cmd->id, &data);
}

int rcm_cmd_set_option(struct file *filp, void *arg)
{
	struct rcm_file *file = filp->private_data;
	struct rcm_set_option *cmd = arg;
	struct rcm_id *id;
	int ret;

	if (cmd->level == RCM_OPTION_IB)
		return cmd->optname == RCM_OPTION_IB_PATH ?
		       rcm_option_ib_path(file, cmd) : -ENOPROTOOPT;
	if (cmd->optlen)
		return -EINVAL;
	if (cmd->level != RCM_OPTION_ID)
		return -ENOPROTOOPT;
	id = rcm_id_lock(file, cmd->id);
	if (!id)
		return -ENOENT;
	if (id->state == RCM_STATE_DESTROYING ||
	    id->state == RCM_STATE_DEVICE_REMOVAL)
		ret = rcm_id_state_errno(id);
	else
		ret = rcm_option_id(id, cmd->optname, cmd->value);
	rcm_id_unlock(id);
	return ret;
}
