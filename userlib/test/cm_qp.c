// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_qp: an id's QP and SRQ, and rdma_init_qp_attr().
 *
 * - the default PD: allocated when the first id attaches to a device,
 *   shared by the device's ids, in id->pd, freed with the last id;
 * - rdma_create_qp() with librdmacm's defaults: id->pd, a completion
 *   channel and a CQ per direction with work requests (cq_context the
 *   id, cqe max_send_wr/max_recv_wr) kept in the id, written back into
 *   the caller's attributes with the QP's capabilities; the QP in INIT
 *   with exactly the kernel's INIT attributes (RCM_IOCTL_INIT_QP_ATTR,
 *   qp_states 1 << INIT); a second QP, a PD of another device, a CQ
 *   other than the id's, or no device: EINVAL;
 * - CQs the caller passes in the attributes are used and never
 *   destroyed; CQs the caller put in the id are used and destroyed by
 *   rdma_destroy_qp(), as librdmacm does;
 * - failures (QP creation, INIT_QP_ATTR, ibv_modify_qp) leave nothing
 *   behind;
 * - a UD QP ends in RTS: INIT with the kernel's qkey, RTR, RTS with SQ
 *   PSN 0; if the kernel gives no UD attributes, the call fails with
 *   its errno and makes up nothing;
 * - rdma_create_qp_ex() with more than the PD in comp_mask reaches the
 *   provider's create_qp_ex, and gets id->pd without a PD;
 * - SRQs: id->srq on the default PD, given to the QP; rdma_destroy_srq()
 *   clears the SRQ and the id's CQs whatever the verbs calls say, as
 *   librdmacm; TYPE missing or a second SRQ: EINVAL;
 * - XRC (an XRC_RECV id from rdma_create_ep()): the SRQ gets the device's
 *   default XRC domain and a CQ in id->recv_cq, the QP the domain; the
 *   SRQ's CQ outlives rdma_destroy_qp(); the domain goes with the
 *   device's last id; without XRC (rxe) the domain's EOPNOTSUPP;
 * - rdma_init_qp_attr(): every member of the kernel's attributes lands
 *   in struct ibv_qp_attr under its name, the mask as is; states other
 *   than INIT/RTR/RTS fail with EINVAL before the kernel, a state the id
 *   is not ready for with the kernel's EINVAL.
 *
 * The module is faked (fake_rcm.c), and so is libibverbs (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

static struct sockaddr_in dst = { .sin_family = AF_INET };

static void setup(void)
{
	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	fake_num_devices = 2;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;

	memset(fake_qp_attr, 0, sizeof(fake_qp_attr));
	fake_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	fake_qp_attr[0].pkey_index = 3;
	fake_qp_attr[0].port_num = 1;
	fake_qp_attr[0].qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ;
}

/* A synchronous id of port space ps, attached by an address resolution. */
static struct rdma_cm_id *attached_id(enum rdma_port_space ps)
{
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(NULL, &id, NULL, ps) == 0);
	if (!id)
		return NULL;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				  2000) == 0);
	T_CHECK(id->verbs != NULL);
	return id;
}

static struct ibv_qp_init_attr rc_attr(int send_wr, int recv_wr)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = recv_wr;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return attr;
}

static bool nothing_live(void)
{
	return !fake_live_qps && !fake_live_cqs && !fake_live_channels &&
	       !fake_live_srqs && !fake_live_xrcds;
}

/* An id of @qp_type (RDMA_PS_IB) from rdma_create_ep(), routed to dst. */
static struct rdma_cm_id *ep_id(enum ibv_qp_type qp_type)
{
	struct rdma_addrinfo ai = {
		.ai_family = AF_INET,
		.ai_qp_type = qp_type,
		.ai_port_space = RDMA_PS_IB,
		.ai_dst_len = sizeof(dst),
		.ai_dst_addr = (struct sockaddr *)&dst,
	};
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_ep(&id, &ai, NULL, NULL) == 0);
	T_CHECK(id && id->qp_type == qp_type && id->verbs);
	return id;
}

/*
 * XRC, as librdmacm: an XRC_RECV id's SRQ gets the device's default XRC
 * domain and a CQ in id->recv_cq, its QP the domain; rdma_destroy_qp()
 * leaves the SRQ's CQ, rdma_destroy_srq() destroys it, and the domain
 * goes with the device's last id. A device without XRC (rxe): the
 * domain's error, nothing left behind.
 */
static void xrc_defaults(void)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16 } };
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	struct ibv_qp *qp;

	setup();
	id = ep_id(IBV_QPT_XRC_RECV);
	if (!id)
		return;
	errno = 0;
	T_CHECK(rdma_create_srq(id, NULL, &sattr) == -1 && errno == EOPNOTSUPP);
	T_CHECK(id->srq == NULL && id->recv_cq == NULL && nothing_live());

	fake_xrc = true;
	T_CHECK(rdma_create_srq(id, NULL, &sattr) == 0);
	T_CHECK(id->srq && fake_live_xrcds == 1);
	T_CHECK(fake_last_srq_init.srq_type == IBV_SRQT_XRC);
	T_CHECK(fake_last_srq_init.comp_mask & IBV_SRQ_INIT_ATTR_XRCD);
	T_CHECK(fake_last_srq_init.comp_mask & IBV_SRQ_INIT_ATTR_CQ);
	T_CHECK(fake_last_srq_init.xrcd && fake_last_srq_init.cq &&
		fake_last_srq_init.cq == id->recv_cq);
	T_CHECK(id->recv_cq && id->recv_cq->cqe == 16 && id->recv_cq_channel);

	attr = rc_attr(4, 0);
	attr.qp_type = IBV_QPT_XRC_RECV;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	qp = id->qp;
	T_CHECK(qp && fake_qp(qp)->init.xrcd == fake_last_srq_init.xrcd &&
		(fake_qp(qp)->init.comp_mask & IBV_QP_INIT_ATTR_XRCD));
	T_CHECK(fake_live_xrcds == 1);	/* the device's one */

	rdma_destroy_qp(id);
	T_CHECK(id->recv_cq && fake_live_cqs == 2);	/* the SRQ's stays */
	rdma_destroy_srq(id);
	T_CHECK(id->recv_cq == NULL && fake_live_cqs == 0);
	rdma_destroy_ep(id);
	T_CHECK(nothing_live());
}

static void default_pd(void)
{
	struct rdma_cm_id *a, *b, *unattached = NULL;

	setup();
	T_CHECK(rdma_create_id(NULL, &unattached, NULL, RDMA_PS_TCP) == 0);
	T_CHECK(unattached && unattached->pd == NULL);
	T_CHECK(fake_live_pds == 0);

	a = attached_id(RDMA_PS_TCP);
	b = attached_id(RDMA_PS_TCP);
	if (!a || !b)
		return;
	T_CHECK(a->pd != NULL && a->pd->context == a->verbs);
	T_CHECK(b->pd == a->pd);
	T_CHECK(fake_live_pds == 1);
	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(fake_live_pds == 1);
	T_CHECK(rdma_destroy_id(b) == 0);
	T_CHECK(fake_live_pds == 0);
	T_CHECK(rdma_destroy_id(unattached) == 0);
}

static void create_defaults(void)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	struct fake_qp *f;
	struct ibv_qp *qp;
	int queries;

	setup();
	id = attached_id(RDMA_PS_TCP);
	if (!id)
		return;
	queries = FAKE_CALLS(RCM_CMD_INIT_QP_ATTR);
	attr = rc_attr(16, 32);
	attr.qp_context = &attr;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	qp = id->qp;
	T_CHECK(qp != NULL);
	if (!qp)
		return;
	f = fake_qp(qp);

	/* librdmacm's defaults, kept in the id. */
	T_CHECK(qp->pd == id->pd && id->pd != NULL);
	T_CHECK(f->init.comp_mask == IBV_QP_INIT_ATTR_PD);
	T_CHECK(f->init.qp_type == IBV_QPT_RC);
	T_CHECK(f->init.qp_context == &attr);
	T_CHECK(id->send_cq && id->recv_cq && id->send_cq != id->recv_cq);
	T_CHECK(id->send_cq_channel && id->recv_cq_channel &&
		id->send_cq_channel != id->recv_cq_channel);
	T_CHECK(id->send_cq && id->send_cq->cqe == 16 &&
		id->send_cq->cq_context == id &&
		id->send_cq->channel == id->send_cq_channel &&
		id->send_cq->context == id->verbs);
	T_CHECK(id->recv_cq && id->recv_cq->cqe == 32 &&
		id->recv_cq->cq_context == id &&
		id->recv_cq->channel == id->recv_cq_channel);
	T_CHECK(qp->send_cq == id->send_cq && qp->recv_cq == id->recv_cq);
	T_CHECK(qp->srq == NULL);
	/* The caller sees what the QP got. */
	T_CHECK(attr.send_cq == id->send_cq && attr.recv_cq == id->recv_cq);
	T_CHECK(attr.cap.max_inline_data == FAKE_INLINE_DATA);
	T_CHECK(fake_live_cqs == 2 && fake_live_channels == 2 &&
		fake_live_qps == 1);

	/* INIT with the kernel's attributes, nothing else. */
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == queries + 1);
	T_CHECK(fake_last_init_qp_attr.size == sizeof(struct rcm_init_qp_attr));
	T_CHECK(fake_last_init_qp_attr.qp_states == 1u << RCM_QPS_INIT);
	T_CHECK(fake_last_init_qp_attr.id == fake_last_create.out_id);
	T_CHECK(f->nmods == 1);
	T_CHECK(f->mods[0].mask == (int)fake_qp_attr[0].qp_attr_mask);
	T_CHECK(f->mods[0].attr.qp_state == IBV_QPS_INIT);
	T_CHECK(f->mods[0].attr.pkey_index == 3);
	T_CHECK(f->mods[0].attr.port_num == 1);
	T_CHECK(f->mods[0].attr.qp_access_flags ==
		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
	T_CHECK(qp->state == IBV_QPS_INIT);

	/* One QP per id. */
	attr = rc_attr(1, 1);
	errno = 0;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == -1 && errno == EINVAL);
	T_CHECK(id->qp == qp && fake_live_qps == 1);

	rdma_destroy_qp(id);
	T_CHECK(id->qp == NULL);
	T_CHECK(!id->send_cq && !id->recv_cq && !id->send_cq_channel &&
		!id->recv_cq_channel);
	T_CHECK(nothing_live());
	rdma_destroy_qp(id);		/* nothing left: harmless */
	T_CHECK(rdma_destroy_id(id) == 0);
	T_CHECK(fake_live_pds == 0);
}

static void caller_cqs(void)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	struct ibv_cq *mine, *other;
	struct ibv_comp_channel *ch;

	setup();
	id = attached_id(RDMA_PS_TCP);
	if (!id)
		return;

	/* A CQ in the attributes is used, not kept, never destroyed. */
	mine = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
	attr = rc_attr(4, 4);
	attr.send_cq = mine;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp && id->qp->send_cq == mine);
	T_CHECK(id->send_cq == NULL && id->send_cq_channel == NULL);
	T_CHECK(id->recv_cq && id->qp && id->qp->recv_cq == id->recv_cq);
	T_CHECK(fake_live_cqs == 2);
	rdma_destroy_qp(id);
	T_CHECK(fake_live_cqs == 1 && fake_live_channels == 0);

	/* No work requests, no CQ. */
	attr = rc_attr(0, 4);
	attr.send_cq = mine;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->send_cq == NULL && fake_live_cqs == 2);
	rdma_destroy_qp(id);

	/* CQs the caller put in the id (rsockets does) are the id's. */
	ch = ibv_create_comp_channel(id->verbs);
	id->recv_cq_channel = ch;
	id->send_cq_channel = ch;
	id->recv_cq = ibv_create_cq(id->verbs, 8, id, ch, 0);
	id->send_cq = id->recv_cq;
	attr = rc_attr(4, 4);
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp && id->qp->send_cq == id->recv_cq &&
		id->qp->recv_cq == id->recv_cq);
	T_CHECK(fake_live_cqs == 2 && fake_live_channels == 1);

	/* A CQ other than the id's: EINVAL. */
	other = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
	rdma_destroy_qp(id);
	T_CHECK(fake_live_cqs == 2 && fake_live_channels == 0);
	id->send_cq = mine;
	attr = rc_attr(4, 4);
	attr.send_cq = other;
	errno = 0;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == -1 && errno == EINVAL);
	T_CHECK(id->qp == NULL && fake_live_qps == 0);
	id->send_cq = NULL;
	ibv_destroy_cq(other);
	ibv_destroy_cq(mine);
	T_CHECK(nothing_live());
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void pds(void)
{
	struct ibv_context **devs;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id, *none = NULL;
	struct ibv_pd *mine, *foreign;
	int n = 0;

	setup();
	id = attached_id(RDMA_PS_TCP);
	devs = rdma_get_devices(&n);
	T_CHECK(devs && n == 2);
	if (!id || !devs || n != 2)
		return;
	T_CHECK(devs[0] == id->verbs);
	mine = ibv_alloc_pd(id->verbs);
	foreign = ibv_alloc_pd(devs[1]);

	attr = rc_attr(1, 1);
	errno = 0;
	T_CHECK(rdma_create_qp(id, foreign, &attr) == -1 && errno == EINVAL);
	T_CHECK(nothing_live());

	attr = rc_attr(1, 1);
	T_CHECK(rdma_create_qp(id, mine, &attr) == 0);
	T_CHECK(id->qp && id->qp->pd == mine);
	T_CHECK(id->pd == mine);	/* as librdmacm: the QP's PD */
	rdma_destroy_qp(id);

	/* No device yet: nothing to create it on. */
	T_CHECK(rdma_create_id(NULL, &none, NULL, RDMA_PS_TCP) == 0);
	attr = rc_attr(1, 1);
	errno = 0;
	T_CHECK(none && rdma_create_qp(none, NULL, &attr) == -1 &&
		errno == EINVAL);
	errno = 0;
	T_CHECK(rdma_create_qp(NULL, NULL, &attr) == -1 && errno == EINVAL);
	T_CHECK(rdma_create_qp(id, NULL, NULL) == -1 && errno == EINVAL);
	T_CHECK(nothing_live());

	ibv_dealloc_pd(mine);
	ibv_dealloc_pd(foreign);
	rdma_free_devices(devs);
	T_CHECK(rdma_destroy_id(none) == 0);
	T_CHECK(rdma_destroy_id(id) == 0);
	T_CHECK(fake_live_pds == 0);
}

static void create_failures(void)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;

	setup();
	id = attached_id(RDMA_PS_TCP);
	if (!id)
		return;

	fake_create_qp_errno = ENOSPC;
	attr = rc_attr(4, 4);
	errno = 0;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == -1 && errno == ENOSPC);
	T_CHECK(!id->qp && !id->send_cq && !id->recv_cq &&
		!id->send_cq_channel && !id->recv_cq_channel);
	T_CHECK(!attr.send_cq && !attr.recv_cq);
	T_CHECK(nothing_live());

	fake_rcm_fail_next(RCM_CMD_INIT_QP_ATTR, ENODEV);
	attr = rc_attr(4, 4);
	errno = 0;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == -1 && errno == ENODEV);
	T_CHECK(!id->qp && nothing_live());

	fake_fail_modify(IBV_QPS_INIT, EPERM);
	attr = rc_attr(4, 4);
	errno = 0;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == -1 && errno == EPERM);
	T_CHECK(!id->qp && nothing_live());

	/* And it works afterwards. */
	attr = rc_attr(4, 4);
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	rdma_destroy_qp(id);
	T_CHECK(nothing_live());
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void ud_qp(void)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	struct fake_qp *f;

	setup();
	fake_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_QKEY;
	fake_qp_attr[0].qkey = RDMA_UDP_QKEY;
	fake_qp_attr[0].qp_access_flags = 0;
	id = attached_id(RDMA_PS_UDP);
	if (!id)
		return;
	T_CHECK(id->qp_type == IBV_QPT_UD);

	/* The kernel has no UD attributes: its errno, nothing invented. */
	fake_rcm_fail_next(RCM_CMD_INIT_QP_ATTR, EOPNOTSUPP);
	attr = rc_attr(4, 4);
	attr.qp_type = IBV_QPT_UD;
	errno = 0;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == -1 && errno == EOPNOTSUPP);
	T_CHECK(!id->qp && nothing_live());

	attr = rc_attr(4, 4);
	attr.qp_type = IBV_QPT_UD;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp != NULL);
	if (!id->qp)
		return;
	f = fake_qp(id->qp);
	T_CHECK(fake_last_init_qp_attr.qp_states == 1u << RCM_QPS_INIT);
	T_CHECK(f->nmods == 3);
	T_CHECK(f->mods[0].attr.qp_state == IBV_QPS_INIT &&
		f->mods[0].attr.qkey == RDMA_UDP_QKEY &&
		f->mods[0].mask == (int)fake_qp_attr[0].qp_attr_mask);
	T_CHECK(f->mods[1].attr.qp_state == IBV_QPS_RTR &&
		f->mods[1].mask == IBV_QP_STATE);
	T_CHECK(f->mods[2].attr.qp_state == IBV_QPS_RTS &&
		f->mods[2].attr.sq_psn == 0 &&
		f->mods[2].mask == (IBV_QP_STATE | IBV_QP_SQ_PSN));
	T_CHECK(id->qp->state == IBV_QPS_RTS);
	rdma_destroy_qp(id);
	T_CHECK(nothing_live());
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void create_ex(void)
{
	struct ibv_qp_init_attr_ex attr;
	struct rdma_cm_id *id;
	struct fake_qp *f;

	setup();
	id = attached_id(RDMA_PS_TCP);
	if (!id)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 2;
	attr.cap.max_recv_wr = 2;
	attr.comp_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS;
	attr.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	T_CHECK(rdma_create_qp_ex(id, &attr) == 0);
	T_CHECK(id->qp != NULL);
	if (!id->qp)
		return;
	f = fake_qp(id->qp);
	T_CHECK(attr.comp_mask == (IBV_QP_INIT_ATTR_CREATE_FLAGS |
				   IBV_QP_INIT_ATTR_PD));
	T_CHECK(attr.pd == id->pd);
	T_CHECK(f->init.comp_mask == attr.comp_mask);
	T_CHECK(f->init.create_flags == IBV_QP_CREATE_SCATTER_FCS);
	T_CHECK(id->qp->state == IBV_QPS_INIT);
	errno = 0;
	T_CHECK(rdma_create_qp_ex(id, NULL) == -1 && errno == EINVAL);
	rdma_destroy_qp(id);
	T_CHECK(nothing_live());
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void srq(void)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 64 } };
	struct ibv_srq_init_attr_ex ex;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	struct ibv_srq *s;

	setup();
	id = attached_id(RDMA_PS_TCP);
	if (!id)
		return;
	T_CHECK(rdma_create_srq(id, NULL, &sattr) == 0);
	s = id->srq;
	T_CHECK(s && s->pd == id->pd && fake_live_srqs == 1);
	errno = 0;
	T_CHECK(rdma_create_srq(id, NULL, &sattr) == -1 && errno == EINVAL);
	T_CHECK(id->srq == s && fake_live_srqs == 1);

	/* The QP takes the id's SRQ; with no receive work requests, no CQ. */
	attr = rc_attr(4, 0);
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp && id->qp->srq == s && attr.srq == s);
	T_CHECK(id->recv_cq == NULL && fake_live_cqs == 1);

	/*
	 * As librdmacm: the SRQ and the id's CQs leave the id, whatever
	 * ibv_destroy_srq() says (here: in use).
	 */
	fake_destroy_srq_errno = EBUSY;
	rdma_destroy_srq(id);
	T_CHECK(id->srq == NULL && fake_live_srqs == 1);
	T_CHECK(id->send_cq == NULL && id->send_cq_channel == NULL &&
		fake_live_cqs == 0);
	rdma_destroy_qp(id);
	T_CHECK(ibv_destroy_srq(s) == 0);
	T_CHECK(nothing_live());

	/* Without a QP: the CQs in the id's fields go with the SRQ. */
	T_CHECK(rdma_create_srq(id, NULL, &sattr) == 0);
	attr = rc_attr(4, 4);
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->recv_cq && id->send_cq && fake_live_cqs == 2);
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
	rdma_destroy_srq(id);
	T_CHECK(id->srq == NULL && id->send_cq == NULL && nothing_live());

	memset(&ex, 0, sizeof(ex));
	ex.attr.max_wr = 8;
	errno = 0;
	T_CHECK(rdma_create_srq_ex(id, &ex) == -1 && errno == EINVAL);
	ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	ex.srq_type = IBV_SRQT_BASIC;
	T_CHECK(rdma_create_srq_ex(id, &ex) == 0);
	T_CHECK(id->srq && id->srq->pd == id->pd && ex.pd == id->pd);
	T_CHECK(ex.comp_mask ==
		(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD));
	rdma_destroy_srq(id);
	T_CHECK(nothing_live());
	T_CHECK(rdma_destroy_id(id) == 0);
}

static void init_qp_attr(void)
{
	static const uint8_t dgid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8
	};
	struct rcm_qp_attr *k = &fake_qp_attr[0];
	struct ibv_qp_attr qa;
	struct rdma_cm_id *id;
	int mask = 0, calls;

	setup();
	id = attached_id(RDMA_PS_TCP);
	if (!id)
		return;
	/* Every member distinct, so that a swap shows. */
	k->qp_attr_mask = 0x1fffff;
	k->path_mtu = IBV_MTU_1024;
	k->qkey = 0x11111111;
	k->rq_psn = 0x222222;
	k->sq_psn = 0x333333;
	k->dest_qp_num = 0x444444;
	k->qp_access_flags = 0x7;
	k->pkey_index = 5;
	k->port_num = 2;
	k->max_rd_atomic = 6;
	k->max_dest_rd_atomic = 7;
	k->min_rnr_timer = 8;
	k->timeout = 9;
	k->retry_cnt = 10;
	k->rnr_retry = 11;
	memcpy(k->ah_attr.dgid, dgid, sizeof(dgid));
	k->ah_attr.flow_label = 0x12345;
	k->ah_attr.sgid_index = 12;
	k->ah_attr.hop_limit = 13;
	k->ah_attr.traffic_class = 14;
	k->ah_attr.sl = 15;
	k->ah_attr.dlid = 0x1617;
	k->ah_attr.src_path_bits = 18;
	k->ah_attr.static_rate = 19;
	k->ah_attr.is_global = 1;
	k->ah_attr.port_num = 20;

	memset(&qa, 0xee, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == 0);
	T_CHECK(fake_last_init_qp_attr.qp_states == 1u << RCM_QPS_INIT);
	T_CHECK(mask == 0x1fffff);
	T_CHECK(qa.qp_state == IBV_QPS_INIT);
	T_CHECK(qa.cur_qp_state == 0);	/* not the kernel's: zero */
	T_CHECK(qa.path_mtu == IBV_MTU_1024);
	T_CHECK(qa.qkey == 0x11111111);
	T_CHECK(qa.rq_psn == 0x222222);
	T_CHECK(qa.sq_psn == 0x333333);
	T_CHECK(qa.dest_qp_num == 0x444444);
	T_CHECK(qa.qp_access_flags == 0x7);
	T_CHECK(qa.pkey_index == 5);
	T_CHECK(qa.port_num == 2);
	T_CHECK(qa.max_rd_atomic == 6);
	T_CHECK(qa.max_dest_rd_atomic == 7);
	T_CHECK(qa.min_rnr_timer == 8);
	T_CHECK(qa.timeout == 9);
	T_CHECK(qa.retry_cnt == 10);
	T_CHECK(qa.rnr_retry == 11);
	T_CHECK(!memcmp(qa.ah_attr.grh.dgid.raw, dgid, sizeof(dgid)));
	T_CHECK(qa.ah_attr.grh.flow_label == 0x12345);
	T_CHECK(qa.ah_attr.grh.sgid_index == 12);
	T_CHECK(qa.ah_attr.grh.hop_limit == 13);
	T_CHECK(qa.ah_attr.grh.traffic_class == 14);
	T_CHECK(qa.ah_attr.sl == 15);
	T_CHECK(qa.ah_attr.dlid == 0x1617);
	T_CHECK(qa.ah_attr.src_path_bits == 18);
	T_CHECK(qa.ah_attr.static_rate == 19);
	T_CHECK(qa.ah_attr.is_global == 1);
	T_CHECK(qa.ah_attr.port_num == 20);
	T_CHECK(qa.alt_port_num == 0 && qa.alt_timeout == 0);

	/* Not connected: the kernel refuses RTR and RTS. */
	qa.qp_state = IBV_QPS_RTR;
	errno = 0;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == -1 && errno == EINVAL);
	T_CHECK(fake_last_init_qp_attr.qp_states == 1u << RCM_QPS_RTR);
	qa.qp_state = IBV_QPS_RTS;
	errno = 0;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == -1 && errno == EINVAL);
	T_CHECK(fake_last_init_qp_attr.qp_states == 1u << RCM_QPS_RTS);

	/* Other states never reach the kernel. */
	calls = FAKE_CALLS(RCM_CMD_INIT_QP_ATTR);
	qa.qp_state = IBV_QPS_RESET;
	errno = 0;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == -1 && errno == EINVAL);
	qa.qp_state = IBV_QPS_ERR;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == -1 && errno == EINVAL);
	qa.qp_state = IBV_QPS_SQD;
	T_CHECK(rdma_init_qp_attr(id, &qa, &mask) == -1 && errno == EINVAL);
	qa.qp_state = IBV_QPS_INIT;
	T_CHECK(rdma_init_qp_attr(id, &qa, NULL) == -1 && errno == EINVAL);
	T_CHECK(rdma_init_qp_attr(id, NULL, &mask) == -1 && errno == EINVAL);
	T_CHECK(rdma_init_qp_attr(NULL, &qa, &mask) == -1 &&
		errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_INIT_QP_ATTR) == calls);
	T_CHECK(rdma_destroy_id(id) == 0);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_create_qp);
	fake_rcm_init();

	t_in_child("default PD", default_pd);
	t_in_child("rdma_create_qp defaults", create_defaults);
	t_in_child("CQs of the caller", caller_cqs);
	t_in_child("PDs", pds);
	t_in_child("failures leave nothing", create_failures);
	t_in_child("UD QP to RTS", ud_qp);
	t_in_child("rdma_create_qp_ex", create_ex);
	t_in_child("SRQs", srq);
	t_in_child("rdma_init_qp_attr", init_qp_attr);
	t_in_child("XRC: default domain and CQ", xrc_defaults);
	return t_exit();
}
