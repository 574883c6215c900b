// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: an id's QP and SRQ, rdma_create_qp(), rdma_create_qp_ex(),
 * rdma_destroy_qp(), rdma_create_srq(), rdma_create_srq_ex(),
 * rdma_destroy_srq(), and the QP attributes the kernel computes,
 * rdma_init_qp_attr().
 *
 * The kernel never touches a QP. It hands out the attributes of each
 * transition (RCM_IOCTL_INIT_QP_ATTR, or carried by the event that
 * precedes the transition), and the library moves the QP with
 * ibv_modify_qp() where librdmacm does: to INIT (connected) or RTS (UD)
 * on creation, to RTR and RTS (after an INIT refresh) once the peer's
 * answer is in, to ERR when the connection fails or ends.
 */
#include <string.h>
#include <sys/ioctl.h>

#include <rdma/rdma_verbs.h>

#include "rcm_lib.h"

/* errno for a verbs call that failed: its own, or @fallback if unset. */
static int rcm_verbs_errno(int fallback)
{
	return errno ? errno : fallback;
}

/*
 * ibv_modify_qp() returns an errno value (0 on success); turn it into
 * librdmacm's -1/errno.
 */
static int rcm_modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int ret = ibv_modify_qp(qp, attr, mask);

	if (!ret)
		return 0;
	return rcm_err(ret > 0 ? ret : rcm_verbs_errno(EINVAL));
}

/*
 * The kernel's attributes of one transition as libibverbs takes them:
 * the members have the same names and meanings, the mask is already
 * made of enum ibv_qp_attr_mask bits.
 */
static void rcm_qp_attr_convert(struct ibv_qp_attr *to, int *mask,
				const struct rcm_qp_attr *from)
{
	memset(to, 0, sizeof(*to));
	to->qp_state = from->qp_state;
	to->path_mtu = from->path_mtu;
	to->qkey = from->qkey;
	to->rq_psn = from->rq_psn;
	to->sq_psn = from->sq_psn;
	to->dest_qp_num = from->dest_qp_num;
	to->qp_access_flags = from->qp_access_flags;
	to->pkey_index = from->pkey_index;
	to->port_num = from->port_num;
	to->max_rd_atomic = from->max_rd_atomic;
	to->max_dest_rd_atomic = from->max_dest_rd_atomic;
	to->min_rnr_timer = from->min_rnr_timer;
	to->timeout = from->timeout;
	to->retry_cnt = from->retry_cnt;
	to->rnr_retry = from->rnr_retry;
	rcm_ah_attr_convert(&to->ah_attr, &from->ah_attr);
	*mask = (int)from->qp_attr_mask;
}

/* Every state a connected QP goes through, as 1 << RCM_QPS_* bits. */
#define RCM_QP_SETS_ALL							\
	((1u << RCM_QPS_INIT) | (1u << RCM_QPS_RTR) | (1u << RCM_QPS_RTS))

/*
 * The sets of @states (1 << RCM_QPS_* bits) in @sets, indexed by state -
 * 1, each for its own state: 0, or -1 with errno EPROTO when the kernel
 * did not fill one in.
 */
static int rcm_qp_sets_check(uint32_t states, const struct rcm_qp_attr *sets)
{
	uint32_t s;

	for (s = RCM_QPS_INIT; s <= RCM_QPS_RTS; s++)
		if ((states & (1u << s)) && sets[s - 1].qp_state != s)
			return rcm_err(EPROTO);
	return 0;
}

/*
 * RCM_IOCTL_INIT_QP_ATTR for @states (a mask of 1 << RCM_QPS_* bits).
 * A state the kernel did not fill in is a protocol error (EPROTO).
 */
static int rcm_get_qp_attr(struct rcm_id_private *id, uint32_t states,
			   struct rcm_init_qp_attr *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->size = sizeof(*cmd);
	cmd->id = id->handle;
	cmd->qp_states = states;
	if (ioctl(id->chan->ch.fd, RCM_IOCTL_INIT_QP_ATTR, cmd))
		return -1;
	return rcm_qp_sets_check(states, cmd->out_attr);
}

/**
 * rcm_qp_attr_keep() - keep the QP attribute sets an event carried
 * @id: the id the record is for (a CONNECT_REQUEST's request id)
 * @rec: the record; when it carries no sets (qp_attr_valid 0), the id
 *       keeps none
 *
 * Caller holds the id's channel lock. The sets replace whatever the id
 * kept: they describe the id as of this event.
 */
void rcm_qp_attr_keep(struct rcm_id_private *id, const struct rcm_event *rec)
{
	id->ev_qp_attr_valid = rec->qp_attr_valid & RCM_QP_SETS_ALL;
	if (id->ev_qp_attr_valid)
		memcpy(id->ev_qp_attr, rec->qp_attr, sizeof(id->ev_qp_attr));
}

/**
 * rcm_qp_attr_forget() - drop the sets kept from the id's last event
 * @id: the id, about to change in a way that may change its attributes
 */
void rcm_qp_attr_forget(struct rcm_id_private *id)
{
	struct rcm_channel *chan = rcm_id_channel_lock(id);

	id->ev_qp_attr_valid = 0;
	pthread_mutex_unlock(&chan->lock);
}

/*
 * The attribute sets of @states (1 << RCM_QPS_* bits) in @out, indexed
 * by state - 1: those the id's last event carried if it carried them
 * all (rcm_qp_attr_keep()), else from RCM_IOCTL_INIT_QP_ATTR. Returns 0,
 * or -1 with errno (see rcm_get_qp_attr()).
 */
static int rcm_qp_attr_sets(struct rcm_id_private *id, uint32_t states,
			    struct rcm_qp_attr out[3])
{
	struct rcm_init_qp_attr cmd;
	struct rcm_channel *chan;
	bool kept;

	chan = rcm_id_channel_lock(id);
	kept = (id->ev_qp_attr_valid & states) == states;
	if (kept)
		memcpy(out, id->ev_qp_attr, sizeof(id->ev_qp_attr));
	pthread_mutex_unlock(&chan->lock);
	if (kept)
		return rcm_qp_sets_check(states, out);
	if (rcm_get_qp_attr(id, states, &cmd))
		return -1;
	memcpy(out, cmd.out_attr, sizeof(cmd.out_attr));
	return 0;
}

/*
 * A new QP to where librdmacm leaves it: INIT for a connected id, RTS for
 * a UD id (INIT with the kernel's attributes, qkey included, then RTR
 * and RTS with SQ PSN 0), so that a UD QP sends at once.
 */
static int rcm_qp_init(struct rcm_id_private *id, struct ibv_qp *qp)
{
	struct rcm_qp_attr sets[3];
	struct ibv_qp_attr attr;
	int mask;

	if (rcm_qp_attr_sets(id, 1u << RCM_QPS_INIT, sets))
		return -1;
	rcm_qp_attr_convert(&attr, &mask, &sets[RCM_QPS_INIT - 1]);
	if (rcm_modify(qp, &attr, mask))
		return -1;
	if (id->id.qp_type != IBV_QPT_UD)
		return 0;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	if (rcm_modify(qp, &attr, IBV_QP_STATE))
		return -1;
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	return rcm_modify(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/**
 * rcm_qp_ready() - move the id's QP through INIT to RTR, then RTS
 * @id: a request id, or an active id that reported CONNECT_RESPONSE
 * @responder_resources: max_dest_rd_atomic for RTR, or -1 for the
 *                       kernel's value
 * @initiator_depth: max_rd_atomic for RTS, or -1 for the kernel's value
 *
 * The three attribute sets, now that the kernel knows the connection,
 * come with the event that said so (CONNECT_REQUEST, CONNECT_RESPONSE),
 * or, from a module that does not carry them, from one
 * RCM_IOCTL_INIT_QP_ATTR (see rcm_qp_attr_sets()). The QP first goes from INIT to INIT
 * again, as librdmacm's RTR step does: the access flags the QP got when
 * it was created (none: there was no connection yet) are replaced by the
 * CM's, which allow the peer's RDMA writes, and reads and atomics when
 * there are responder resources. RTR and RTS carry no access flags.
 * The overrides are librdmacm's: on the passive side the kernel cannot
 * know yet what rdma_accept() will agree to. Does nothing without a QP.
 *
 * Return: 0, or -1 with errno of the ioctl or of ibv_modify_qp().
 */
int rcm_qp_ready(struct rcm_id_private *id, int responder_resources,
		 int initiator_depth)
{
	struct ibv_qp *qp = id->id.qp;
	struct rcm_qp_attr sets[3];
	struct ibv_qp_attr attr;
	int mask;

	if (!qp)
		return 0;
	if (rcm_qp_attr_sets(id, RCM_QP_SETS_ALL, sets))
		return -1;

	rcm_qp_attr_convert(&attr, &mask, &sets[RCM_QPS_INIT - 1]);
	if (rcm_modify(qp, &attr, mask))
		return -1;

	rcm_qp_attr_convert(&attr, &mask, &sets[RCM_QPS_RTR - 1]);
	if (responder_resources >= 0)
		attr.max_dest_rd_atomic = responder_resources;
	if (rcm_modify(qp, &attr, mask))
		return -1;

	rcm_qp_attr_convert(&attr, &mask, &sets[RCM_QPS_RTS - 1]);
	if (initiator_depth >= 0)
		attr.max_rd_atomic = initiator_depth;
	return rcm_modify(qp, &attr, mask);
}

/**
 * rcm_qp_move() - move the id's QP to a state that needs no attributes
 * @id: the id
 * @state: IBV_QPS_ERR, or IBV_QPS_SQD (iWARP disconnect)
 *
 * Return: 0 (also without a QP), or -1 with errno of ibv_modify_qp().
 * errno is left alone on success.
 */
int rcm_qp_move(struct rdma_cm_id *id, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr;

	if (!id->qp)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = state;
	return rcm_modify(id->qp, &attr, IBV_QP_STATE);
}

/* A completion channel and a CQ of @size entries whose context is @id. */
static int rcm_cq_create(struct rdma_cm_id *id, int size,
			 struct ibv_comp_channel **channel, struct ibv_cq **cq)
{
	int err;

	errno = 0;
	*channel = ibv_create_comp_channel(id->verbs);
	if (!*channel)
		return rcm_err(rcm_verbs_errno(ENOMEM));
	errno = 0;
	*cq = ibv_create_cq(id->verbs, size, id, *channel, 0);
	if (!*cq) {
		err = rcm_verbs_errno(ENOMEM);
		ibv_destroy_comp_channel(*channel);
		*channel = NULL;
		return rcm_err(err);
	}
	return 0;
}

static void rcm_cq_destroy(struct ibv_comp_channel *channel, struct ibv_cq *cq)
{
	if (cq)
		ibv_destroy_cq(cq);
	if (channel)
		ibv_destroy_comp_channel(channel);
}

/*
 * Destroy the CQs and completion channels in the id's fields, whoever
 * made them, as librdmacm does: rsockets puts its own there and relies
 * on rdma_destroy_qp() to destroy them. An XRC_RECV id's CQ stays while
 * its SRQ (whose CQ it is) does, as librdmacm's ucma_destroy_cqs().
 */
static void rcm_destroy_cqs(struct rdma_cm_id *id)
{
	if (id->qp_type == IBV_QPT_XRC_RECV && id->srq)
		return;
	if (id->recv_cq)
		ibv_destroy_cq(id->recv_cq);
	if (id->send_cq && id->send_cq != id->recv_cq)
		ibv_destroy_cq(id->send_cq);
	id->recv_cq = NULL;
	id->send_cq = NULL;
	if (id->recv_cq_channel)
		ibv_destroy_comp_channel(id->recv_cq_channel);
	if (id->send_cq_channel && id->send_cq_channel != id->recv_cq_channel)
		ibv_destroy_comp_channel(id->send_cq_channel);
	id->recv_cq_channel = NULL;
	id->send_cq_channel = NULL;
}

/*
 * The new QP's ECE, as librdmacm's init_ece(): the id's local ECE
 * becomes the QP's (zero on a provider without ECE, EOPNOTSUPP); for a
 * request's QP the peer's options go to the QP (only ours without
 * options when the vendors differ). Returns 0, or -1 with errno.
 */
static int rcm_qp_ece_init(struct rcm_id_private *id, struct ibv_qp *qp)
{
	struct ibv_ece ece = { 0 };
	int ret = ibv_query_ece(qp, &ece);

	if (ret && ret != EOPNOTSUPP)
		return rcm_err(ret);
	id->local_ece.vendor_id = ece.vendor_id;
	id->local_ece.options = ece.options;
	if (!id->remote_ece.vendor_id)
		return 0;
	if (id->remote_ece.vendor_id != id->local_ece.vendor_id) {
		ece.vendor_id = id->local_ece.vendor_id;
		ece.options = 0;
	} else {
		ece = id->remote_ece;
	}
	ret = ibv_set_ece(qp, &ece);
	return ret && ret != EOPNOTSUPP ? rcm_err(ret) : 0;
}

/* What the QP agreed to, once readied (librdmacm's set_local_ece()). */
static int rcm_qp_ece_agreed(struct rcm_id_private *id, struct ibv_qp *qp)
{
	struct ibv_ece ece = { 0 };
	int ret;

	if (!id->remote_ece.vendor_id)
		return 0;
	ret = ibv_query_ece(qp, &ece);
	if (ret && ret != EOPNOTSUPP)
		return rcm_err(ret);
	id->local_ece.options = ece.options;
	return 0;
}

/**
 * rdma_create_qp_ex() - create the id's QP
 * @id: an id attached to a device
 * @attr: the QP's attributes; comp_mask as for ibv_create_qp_ex()
 *
 * librdmacm's defaults: without IBV_QP_INIT_ATTR_PD (or with a NULL pd)
 * the QP gets id->pd, the device's default PD; an explicit PD must
 * belong to id->verbs. For each direction where neither @attr nor the
 * id has a CQ and the capability asks for work requests, the library
 * makes a completion channel and a CQ of max_send_wr or max_recv_wr
 * entries, with the id as CQ context, and keeps them in
 * id->send_cq/send_cq_channel or id->recv_cq/recv_cq_channel, from
 * where rdma_destroy_qp() destroys them. @attr takes the id's CQs where
 * it names none, and id->srq where it names no SRQ. An XRC_RECV id's QP
 * without an XRC domain gets the device's default one (see
 * rcm_device_xrcd()), as librdmacm's does. The id's local ECE becomes
 * the QP's (see rcm_qp_ece_init()).
 *
 * The new QP is moved to INIT (connected ids) or through INIT and RTR to
 * RTS (UD ids) with the attributes of RCM_IOCTL_INIT_QP_ATTR, or those
 * the id's last event carried (see rcm_qp_attr_sets()). Then
 * id->qp is the QP and id->pd its PD. On failure nothing is left behind:
 * the QP and the CQs this call made are destroyed.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument, the id has a QP or
 * no device, a PD of another device, a CQ other than the id's), the
 * errors of the verbs calls, and of RCM_IOCTL_INIT_QP_ATTR (for a UD id
 * whose datagram attributes the kernel cannot give, its errno).
 */
RCM_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *id,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_comp_channel *sch = NULL, *rch = NULL;
	struct ibv_cq *scq = NULL, *rcq = NULL;
	struct ibv_qp *qp;
	int err;

	if (!id || !attr || id->qp || !id->verbs)
		return rcm_err(EINVAL);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = id->pd;
	} else if (attr->pd->context != id->verbs) {
		return rcm_err(EINVAL);
	}
	if (!attr->pd)
		return rcm_err(EINVAL);
	if ((id->recv_cq && attr->recv_cq && id->recv_cq != attr->recv_cq) ||
	    (id->send_cq && attr->send_cq && id->send_cq != attr->send_cq))
		return rcm_err(EINVAL);
	if (id->qp_type == IBV_QPT_XRC_RECV &&
	    (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)) {
		attr->xrcd = rcm_device_xrcd(id->verbs);
		if (!attr->xrcd)
			return -1;
		attr->comp_mask |= IBV_QP_INIT_ATTR_XRCD;
	}

	if (!attr->recv_cq && !id->recv_cq && attr->cap.max_recv_wr) {
		if (rcm_cq_create(id, attr->cap.max_recv_wr, &rch, &rcq))
			return -1;
		id->recv_cq_channel = rch;
		id->recv_cq = rcq;
		attr->recv_cq = rcq;
	}
	if (!attr->send_cq && !id->send_cq && attr->cap.max_send_wr) {
		if (rcm_cq_create(id, attr->cap.max_send_wr, &sch, &scq))
			goto err;
		id->send_cq_channel = sch;
		id->send_cq = scq;
		attr->send_cq = scq;
	}
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->srq)
		attr->srq = id->srq;

	errno = 0;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp) {
		errno = rcm_verbs_errno(ENOMEM);
		goto err;
	}
	if (rcm_qp_ece_init(rcm_id(id), qp) || rcm_qp_init(rcm_id(id), qp) ||
	    rcm_qp_ece_agreed(rcm_id(id), qp)) {
		err = errno;
		ibv_destroy_qp(qp);
		errno = err;
		goto err;
	}
	id->pd = qp->pd;
	id->qp = qp;
	return 0;

err:
	err = errno;
	if (rcq) {
		rcm_cq_destroy(rch, rcq);
		id->recv_cq = NULL;
		id->recv_cq_channel = NULL;
		if (attr->recv_cq == rcq)
			attr->recv_cq = NULL;
	}
	if (scq) {
		rcm_cq_destroy(sch, scq);
		id->send_cq = NULL;
		id->send_cq_channel = NULL;
		if (attr->send_cq == scq)
			attr->send_cq = NULL;
	}
	return rcm_err(err);
}

/**
 * rdma_create_qp() - create the id's QP
 * @id: an id attached to a device
 * @pd: the QP's PD, or NULL for id->pd
 * @qp_init_attr: the QP's attributes; on return, those the QP got (its
 *                capabilities, the CQs the library assigned)
 *
 * rdma_create_qp_ex() with IBV_QP_INIT_ATTR_PD only.
 *
 * Return: as rdma_create_qp_ex().
 */
RCM_EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			      struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex attr;
	int ret;

	if (!id || !qp_init_attr)
		return rcm_err(EINVAL);
	/* The plain struct is the start of the extended one. */
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, qp_init_attr, sizeof(*qp_init_attr));
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = pd ? pd : id->pd;
	ret = rdma_create_qp_ex(id, &attr);
	memcpy(qp_init_attr, &attr, sizeof(*qp_init_attr));
	return ret;
}

/**
 * rdma_destroy_qp() - destroy the id's QP
 * @id: the id
 *
 * Destroys id->qp, then the CQs and completion channels in the id's
 * fields (those rdma_create_qp() made, and any the application put
 * there), as librdmacm does. CQs the application passed only in the QP
 * attributes are not the id's and stay.
 */
RCM_EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		ibv_destroy_qp(id->qp);
	id->qp = NULL;
	rcm_destroy_cqs(id);
}

/**
 * rdma_create_srq_ex() - create the id's shared receive queue
 * @id: an id attached to a device, without an SRQ
 * @attr: the SRQ's attributes; comp_mask must have IBV_SRQ_INIT_ATTR_TYPE
 *
 * Without IBV_SRQ_INIT_ATTR_PD (or with a NULL pd) the SRQ gets id->pd.
 * The SRQ goes into id->srq, which rdma_create_qp() then gives the QP.
 * An XRC SRQ gets, as librdmacm's, the device's default XRC domain where
 * @attr names none (IBV_SRQ_INIT_ATTR_XRCD), and where it names no CQ
 * (IBV_SRQ_INIT_ATTR_CQ) a completion channel and a CQ of max_wr entries
 * in id->recv_cq, which go with the SRQ (rdma_destroy_srq()).
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument, no type in
 * comp_mask, no device, an SRQ already), the error of ibv_open_xrcd() or
 * of the verbs calls.
 */
RCM_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_comp_channel *ch = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_srq *srq;
	int err;

	if (!id || !attr || !id->verbs || id->srq ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE))
		return rcm_err(EINVAL);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
		attr->pd = id->pd;
	}
	if (!attr->pd)
		return rcm_err(EINVAL);
	if (attr->srq_type == IBV_SRQT_XRC) {
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd) {
			attr->xrcd = rcm_device_xrcd(id->verbs);
			if (!attr->xrcd)
				return -1;
		}
		if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq) {
			if (rcm_cq_create(id, attr->attr.max_wr, &ch, &cq))
				return -1;
			id->recv_cq_channel = ch;
			id->recv_cq = cq;
			attr->cq = cq;
		}
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	}

	errno = 0;
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq) {
		err = rcm_verbs_errno(ENOMEM);
		if (cq) {
			rcm_cq_destroy(ch, cq);
			id->recv_cq = NULL;
			id->recv_cq_channel = NULL;
			attr->cq = NULL;
		}
		return rcm_err(err);
	}
	if (!id->pd)
		id->pd = attr->pd;
	id->srq = srq;
	return 0;
}

/**
 * rdma_create_srq() - create the id's shared receive queue
 * @id: an id attached to a device, without an SRQ
 * @pd: the SRQ's PD, or NULL for id->pd
 * @attr: the SRQ's attributes; on return, those it got
 *
 * rdma_create_srq_ex() for a basic SRQ.
 *
 * Return: as rdma_create_srq_ex().
 */
RCM_EXPORT int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	int ret;

	if (!id || !attr)
		return rcm_err(EINVAL);
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ex.srq_type = id->qp_type == IBV_QPT_XRC_RECV ? IBV_SRQT_XRC :
			IBV_SRQT_BASIC;
	ex.pd = pd;
	ret = rdma_create_srq_ex(id, &ex);
	memcpy(attr, &ex, sizeof(*attr));
	return ret;
}

/**
 * rdma_destroy_srq() - destroy the id's shared receive queue
 * @id: the id
 *
 * As librdmacm: destroys id->srq and sets it to NULL, then destroys the
 * CQs and completion channels in the id's fields (see rdma_destroy_qp()),
 * whatever the verbs calls return. Destroy the id's QP first: while it
 * uses the SRQ and the CQs, libibverbs refuses to destroy them and they
 * are left to the application, out of the id.
 */
RCM_EXPORT void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->srq)
		ibv_destroy_srq(id->srq);
	id->srq = NULL;
	rcm_destroy_cqs(id);
}

/**
 * rdma_init_qp_attr() - the attributes that move a QP to a state
 * @id: the id
 * @qp_attr: qp_state (IBV_QPS_INIT, IBV_QPS_RTR or IBV_QPS_RTS) on
 *           input; the attributes on return
 * @qp_attr_mask: where to store the valid attributes, as
 *                enum ibv_qp_attr_mask bits
 *
 * The sets the id's latest event carried, as the library's own QP
 * transitions take them, else a query through RCM_IOCTL_INIT_QP_ATTR;
 * id->qp is not touched. For applications that manage their own QP.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument, another state, or
 * a state the id is not ready for), ENOENT, ENXIO (device removed),
 * EPROTO (the kernel left the state out).
 */
RCM_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *id,
				 struct ibv_qp_attr *qp_attr,
				 int *qp_attr_mask)
{
	struct rcm_id_private *rid = id ? rcm_id(id) : NULL;
	struct rcm_qp_attr sets[3];
	unsigned int state;

	if (!id || !qp_attr || !qp_attr_mask)
		return rcm_err(EINVAL);
	state = qp_attr->qp_state;
	if (state < RCM_QPS_INIT || state > RCM_QPS_RTS)
		return rcm_err(EINVAL);
	/*
	 * The sets the id's latest event carried, which whatever may change
	 * them (accept, connect, disconnect, an option) forgets, else one
	 * RCM_IOCTL_INIT_QP_ATTR for this state.
	 */
	if (rcm_qp_attr_sets(rid, 1u << state, sets))
		return -1;
	rcm_qp_attr_convert(qp_attr, qp_attr_mask, &sets[state - 1]);
	return 0;
}
