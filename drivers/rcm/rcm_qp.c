// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: the attributes a user QP needs for each state transition.
 *
 * rcm never touches a user's QP: it tells userspace, through
 * RCM_IOCTL_INIT_QP_ATTR, what to pass to ibv_modify_qp(). Once an id has
 * a connection, ib_cm knows every value (the path, the peer's QP number
 * and PSN, the negotiated RDMA read depths) and fills them in; before
 * that only INIT is possible, from the device and port the id is
 * attached to. A UD QP needs no peer: its attributes come from the id
 * alone (rcm_qp_ud_attr()). On iWARP iw_cm has little to say (access flags for INIT
 * and RTR, nothing for RTS): the driver readies the QP itself when the
 * MPA exchange completes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include <kunit/visibility.h>

#include "rcm_priv.h"

/* RoCE and iWARP have one partition, the default full-member key. */
#define RCM_DEFAULT_PKEY 0xffff

/*
 * INIT before there is a connection; @id->lock held, id attached. As
 * cma.c:cma_ib_init_qp_attr(): the P_Key index is that of the id's P_Key
 * on its port, the default key on RoCE.
 */
static int rcm_qp_init_local(struct rcm_id *id, struct ib_qp_attr *attr,
			     int *mask)
{
	u16 pkey = RCM_DEFAULT_PKEY;
	int ret;

	attr->qp_access_flags = 0;
	*mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	if (id->rdev->port_cm[id->port_num - 1] != RCM_PORT_CM_IB)
		return 0;
	if (!rdma_cap_eth_ah(id->rdev->ibdev, id->port_num))
		pkey = ib_addr_get_pkey(&id->dev_addr);
	ret = ib_find_cached_pkey(id->rdev->ibdev, id->port_num, pkey,
				  &attr->pkey_index);
	if (ret)
		return ret;
	attr->port_num = id->port_num;
	*mask |= IB_QP_PKEY_INDEX | IB_QP_PORT;
	return 0;
}

static void rcm_qp_ah_to_user(const struct rdma_ah_attr *ah,
			      struct rcm_ah_attr *out)
{
	const struct ib_global_route *grh;

	out->sl = rdma_ah_get_sl(ah);
	out->static_rate = rdma_ah_get_static_rate(ah);
	out->port_num = rdma_ah_get_port_num(ah);
	out->src_path_bits = rdma_ah_get_path_bits(ah);
	if (ah->type == RDMA_AH_ATTR_TYPE_IB)
		out->dlid = rdma_ah_get_dlid(ah);
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return;
	grh = rdma_ah_read_grh(ah);
	out->is_global = 1;
	memcpy(out->dgid, grh->dgid.raw, sizeof(out->dgid));
	out->flow_label = grh->flow_label;
	out->sgid_index = grh->sgid_attr ? grh->sgid_attr->index :
					   grh->sgid_index;
	out->hop_limit = grh->hop_limit;
	out->traffic_class = grh->traffic_class;
}

/**
 * rcm_qp_attr_to_user() - the uapi form of a QP attribute set
 * @attr: the attributes, as ib_cm or rcm filled them
 * @mask: the valid ones (IB_QP_* bits, the same as libibverbs')
 * @out: zeroed by the caller; the address vector only with IB_QP_AV
 */
VISIBLE_IF_KUNIT void rcm_qp_attr_to_user(const struct ib_qp_attr *attr, int mask,
					  struct rcm_qp_attr *out)
{
	out->qp_attr_mask = mask;
	out->qp_state = attr->qp_state;
	out->path_mtu = attr->path_mtu;
	out->qkey = attr->qkey;
	out->rq_psn = attr->rq_psn;
	out->sq_psn = attr->sq_psn;
	out->dest_qp_num = attr->dest_qp_num;
	out->qp_access_flags = attr->qp_access_flags;
	out->pkey_index = attr->pkey_index;
	out->port_num = attr->port_num;
	out->max_rd_atomic = attr->max_rd_atomic;
	out->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	out->min_rnr_timer = attr->min_rnr_timer;
	out->timeout = attr->timeout;
	out->retry_cnt = attr->retry_cnt;
	out->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_AV)
		rcm_qp_ah_to_user(&attr->ah_attr, &out->ah_attr);
}

/*
 * A UD id's attributes (what librdmacm's ucma_init_ud_qp() asks for):
 * INIT with the partition, port and the id's Q_Key, RTR with the state
 * alone, RTS with send PSN 0. A UD QP has no peer: any attached id on an
 * IB CM port, whatever its state. @id->lock held, attached.
 */
static int rcm_qp_ud_attr(struct rcm_id *id, struct ib_qp_attr *attr,
			  int *mask)
{
	int ret;

	if (id->rdev->port_cm[id->port_num - 1] != RCM_PORT_CM_IB)
		return -EINVAL;	/* no UD on iWARP */
	switch (attr->qp_state) {
	case IB_QPS_INIT:
		ret = rcm_qp_init_local(id, attr, mask);
		if (ret)
			return ret;
		attr->qkey = id->qkey;
		*mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			IB_QP_QKEY;
		return 0;
	case IB_QPS_RTR:
		*mask = IB_QP_STATE;
		return 0;
	default:
		attr->sq_psn = 0;
		*mask = IB_QP_STATE | IB_QP_SQ_PSN;
		return 0;
	}
}

/* The attributes into @state; @id->lock held. */
static int rcm_qp_attr(struct rcm_id *id, enum ib_qp_state state,
		       struct rcm_qp_attr *out)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask = 0;
	int ret;

	if (!id->rdev)
		return rcm_id_state_errno(id);
	if (rcm_id_is_ud(id))
		ret = rcm_qp_ud_attr(id, &attr, &mask);
	else if (id->iw && (id->state == RCM_STATE_CONNECT ||
			    id->state == RCM_STATE_DISCONNECT))
		ret = rcm_iw_qp_attr(id, &attr, &mask);
	else if (id->cm_id && (id->state == RCM_STATE_CONNECT ||
			       id->state == RCM_STATE_DISCONNECT))
		ret = ib_cm_init_qp_attr(id->cm_id, &attr, &mask);
	else if (state == IB_QPS_INIT)
		ret = rcm_qp_init_local(id, &attr, &mask);
	else
		ret = -EINVAL;
	if (ret)
		return ret;
	/*
	 * The starting PSN a REQ or REP announces is the sender's receive
	 * PSN. ib_cm learns a passive side's only when the REP goes, but
	 * userspace readies its QP before it accepts: take it from the id,
	 * as the in-tree rdma_cm does.
	 */
	if (state == IB_QPS_RTR && id->cm_id && !rcm_id_is_ud(id))
		attr.rq_psn = id->seq_num;
	if ((mask & IB_QP_TIMEOUT) && id->ack_timeout_set)
		attr.timeout = id->ack_timeout;
	rcm_qp_attr_to_user(&attr, mask, out);
	return 0;
}

static_assert((int)RCM_QPS_INIT == (int)IB_QPS_INIT &&
	      (int)RCM_QPS_RTR == (int)IB_QPS_RTR &&
	      (int)RCM_QPS_RTS == (int)IB_QPS_RTS);
static_assert(IB_QP_STATE == 1 && IB_QP_AV == 1 << 7 &&
	      IB_QP_DEST_QPN == 1 << 20, "ibv_qp_attr_mask values");

/**
 * rcm_qp_event_attrs() - carry an id's QP attribute sets in its event
 * @uevent: the event, not queued yet
 * @id: the id the sets are for (a CONNECT_REQUEST's request id); the
 *      caller holds its lock
 * @states: the states wanted, a mask of BIT(RCM_QPS_*) bits
 *
 * Each state's set is what RCM_IOCTL_INIT_QP_ATTR would return for @id
 * now (rcm_qp_attr(), the ioctl's own code), so that userspace readies
 * its QP without asking. A state the ioctl would refuse is left out of
 * @qp_attr_valid. Nothing is carried when the id's file reads records
 * too small to hold the sets, or without memory: both are only the
 * loss of a shortcut, since the ioctl still answers.
 */
void rcm_qp_event_attrs(struct rcm_uevent *uevent, struct rcm_id *id,
			u32 states)
{
	struct rcm_event_qp *qp;
	struct mem_cgroup *old;
	u32 valid = 0, state;

	lockdep_assert_held(&id->lock);
	if (READ_ONCE(id->file->event_size) <
	    offsetofend(struct rcm_event, qp_attr))
		return;
	old = rcm_charge_begin(id);
	qp = kzalloc(sizeof(*qp), GFP_KERNEL_ACCOUNT);
	rcm_charge_end(old);
	if (!qp)
		return;
	for (state = RCM_QPS_INIT; state <= RCM_QPS_RTS; state++) {
		if (!(states & BIT(state)))
			continue;
		if (rcm_qp_attr(id, state, &qp->attr[state - 1]))
			memset(&qp->attr[state - 1], 0, sizeof(qp->attr[0]));
		else
			valid |= BIT(state);
	}
	if (!valid) {
		kfree(qp);
		return;
	}
	kfree(uevent->qp);
	uevent->qp = qp;
	uevent->ev.qp_attr_valid = valid;
}

int rcm_cmd_init_qp_attr(struct file *filp, void *arg)
{
	struct rcm_init_qp_attr *cmd = arg;
	struct rcm_id *id;
	u32 state;
	int ret = 0;

	if (!cmd->qp_states || (cmd->qp_states & ~RCM_QP_STATES) ||
	    cmd->reserved)
		return -EINVAL;
	id = rcm_id_lock(filp->private_data, cmd->id);
	if (!id)
		return -ENOENT;
	memset(cmd->out_attr, 0, sizeof(cmd->out_attr));
	for (state = RCM_QPS_INIT; state <= RCM_QPS_RTS && !ret; state++)
		if (cmd->qp_states & BIT(state))
			ret = rcm_qp_attr(id, state, &cmd->out_attr[state - 1]);
	rcm_id_unlock(id);
	return ret;
}
