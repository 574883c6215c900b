// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_qp: an id's QP where only fakes give the conditions (the rest runs
 * against rcm.ko and Soft-RoCE in guests: guest/cm_qp.c,
 * cm_qp_types.c, cm_connect.c, and rping, udaddy).
 *
 * - PDs: a PD of another device (the fake lists two) is EINVAL; the
 *   caller's PD is the QP's and becomes id->pd, as librdmacm's; no
 *   device yet, or NULL arguments: EINVAL;
 * - failures (QP creation, an injected INIT_QP_ATTR failure,
 *   ibv_modify_qp) leave nothing behind.
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs is faked (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm_helpers.h"

static struct sockaddr_in dst = { .sin_family = AF_INET };

static void setup(void)
{
	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	fake_num_devices = 2;

	memset(script_qp_attr, 0, sizeof(script_qp_attr));
	script_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	script_qp_attr[0].pkey_index = 3;
	script_qp_attr[0].port_num = 1;
	script_qp_attr[0].qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
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
	       !fake_live_srqs;
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

	seam_fail_next(RCM_CMD_INIT_QP_ATTR, ENODEV);
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

CM_MAIN(rdma_create_qp,
	{ "PDs", pds },
	{ "failures leave nothing", create_failures })
