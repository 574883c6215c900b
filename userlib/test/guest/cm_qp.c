// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_qp: an id's QP and SRQ through rdma_create_qp(), rdma_create_qp_ex()
 * and rdma_create_srq(), and rdma_init_qp_attr(), against the real
 * module and Soft-RoCE's provider, in a guest. kselftest TAP. (QPs that
 * carry data are cm_connect's, rping's and udaddy's; XRC is
 * cm_qp_types'.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * Each case uses an RC id bound to RCM_ADDR_RXE (so it has a device and
 * the default PD).
 *
 * 1. qp_checks: a QP on id->pd in INIT, its capabilities written back
 *    into the caller's attributes (at least what was asked); a second QP
 *    is EINVAL; after rdma_destroy_qp(), a send CQ in the attributes
 *    that is not the one the caller put in id->send_cq is EINVAL; a CQ
 *    of the caller's in the attributes is used and survives
 *    rdma_destroy_qp() (the caller's ibv_destroy_cq() of it succeeds).
 *    rcm only: an id without a device is EINVAL (librdmacm 44 passes its
 *    NULL verbs to libibverbs).
 * 2. qp_failure_leaves_nothing: capabilities the provider refuses fail
 *    with its errno and leave no QP and no CQ in the id; a QP can be
 *    made afterwards.
 * 3. create_qp_ex: rdma_create_qp_ex() with IBV_QP_INIT_ATTR_PD and no
 *    PD takes id->pd, and the QP is in INIT.
 * 4. srq: rdma_create_srq_ex() without IBV_SRQ_INIT_ATTR_TYPE is EINVAL;
 *    rdma_create_srq() puts an SRQ on id->pd into id->srq, which the
 *    next QP gets; rdma_destroy_srq() clears id->srq. rcm only: a second
 *    SRQ is EINVAL (librdmacm 44 makes one and loses the first).
 * 5. init_qp_attr: INIT on a bound id gives qp_state INIT and a mask of
 *    at least STATE, PKEY_INDEX, PORT and ACCESS_FLAGS, port 1. RTR
 *    before any connection and SQD are EINVAL on rcm; rdma_ucm answers
 *    them with 0 and the INIT attributes, and the in-tree control
 *    expects that (rdma_init_qp_attr(3) NOTES).
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "rcm_ksft.h"

/* An RC id bound to @ip (port 0): it has a device and id->pd. */
static struct rdma_cm_id *bound(struct __test_metadata *_metadata,
				const char *ip)
{
	struct rdma_cm_id *id = guest_bound(NULL, ip, RDMA_PS_TCP, NULL);

	ASSERT_NE(NULL, id);
	ASSERT_NE(NULL, id->verbs);
	ASSERT_NE(NULL, id->pd);
	return id;
}

TEST(qp_checks)
{
	struct ibv_qp_init_attr attr;
	struct ibv_cq *mine, *other;
	struct rdma_cm_id *id, *idle = NULL;

	GUEST_RXE_OR_SKIP(rxe);
	id = bound(_metadata, rxe);
	guest_qp_attr(&attr, IBV_QPT_RC, 3);
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr))
		TH_LOG("rdma_create_qp: %s", strerror(errno));
	EXPECT_EQ(id->pd, id->qp->pd);
	EXPECT_EQ(IBV_QPS_INIT, guest_qp_state(id->qp));
	EXPECT_GE(attr.cap.max_send_wr, 3);
	EXPECT_GE(attr.cap.max_recv_wr, 3);
	EXPECT_NE(NULL, id->send_cq);
	EXPECT_NE(NULL, id->recv_cq);
	guest_qp_attr(&attr, IBV_QPT_RC, 3);
	ASSERT_ERRNO(rdma_create_qp(id, NULL, &attr), EINVAL);
	rdma_destroy_qp(id);
	EXPECT_EQ(NULL, id->qp);

	mine = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
	other = ibv_create_cq(id->verbs, 8, NULL, NULL, 0);
	ASSERT_TRUE(mine && other);
	id->send_cq = mine;
	guest_qp_attr(&attr, IBV_QPT_RC, 3);
	attr.send_cq = other;
	ASSERT_ERRNO(rdma_create_qp(id, NULL, &attr), EINVAL);
	id->send_cq = NULL;

	guest_qp_attr(&attr, IBV_QPT_RC, 3);
	attr.send_cq = mine;
	attr.recv_cq = mine;
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr))
		TH_LOG("rdma_create_qp with the caller's CQ: %s",
		       strerror(errno));
	EXPECT_EQ(mine, id->qp->send_cq);
	rdma_destroy_qp(id);
	EXPECT_EQ(0, ibv_destroy_cq(mine));
	EXPECT_EQ(0, ibv_destroy_cq(other));

	if (guest_on_rcm()) {
		ASSERT_EQ(0, rdma_create_id(NULL, &idle, NULL, RDMA_PS_TCP));
		guest_qp_attr(&attr, IBV_QPT_RC, 3);
		ASSERT_ERRNO(rdma_create_qp(idle, NULL, &attr), EINVAL);
		ASSERT_EQ(0, rdma_destroy_id(idle));
	}
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(qp_failure_leaves_nothing)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = bound(_metadata, rxe);
	guest_qp_attr(&attr, IBV_QPT_RC, 1 << 30);
	ASSERT_EQ(-1, rdma_create_qp(id, NULL, &attr));
	printf("# refused with errno %d (%s)\n", errno, strerror(errno));
	EXPECT_NE(0, errno);
	EXPECT_EQ(NULL, id->qp);
	EXPECT_EQ(NULL, id->send_cq);
	EXPECT_EQ(NULL, id->recv_cq);
	guest_qp_attr(&attr, IBV_QPT_RC, 3);
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr))
		TH_LOG("rdma_create_qp after a failure: %s", strerror(errno));
	rdma_destroy_qp(id);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(create_qp_ex)
{
	struct ibv_qp_init_attr_ex ex;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = bound(_metadata, rxe);
	memset(&ex, 0, sizeof(ex));
	ex.qp_type = IBV_QPT_RC;
	ex.cap.max_send_wr = 2;
	ex.cap.max_recv_wr = 2;
	ex.cap.max_send_sge = 1;
	ex.cap.max_recv_sge = 1;
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ASSERT_EQ(0, rdma_create_qp_ex(id, &ex))
		TH_LOG("rdma_create_qp_ex: %s", strerror(errno));
	EXPECT_EQ(id->pd, ex.pd);
	EXPECT_EQ(id->pd, id->qp->pd);
	EXPECT_EQ(IBV_QPS_INIT, guest_qp_state(id->qp));
	rdma_destroy_qp(id);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(srq)
{
	struct ibv_srq_init_attr_ex sx;
	struct ibv_srq_init_attr sa;
	struct ibv_qp_init_attr attr;
	struct ibv_srq *first;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = bound(_metadata, rxe);
	memset(&sx, 0, sizeof(sx));
	sx.attr.max_wr = 4;
	sx.attr.max_sge = 1;
	ASSERT_ERRNO(rdma_create_srq_ex(id, &sx), EINVAL);

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 4;
	sa.attr.max_sge = 1;
	ASSERT_EQ(0, rdma_create_srq(id, NULL, &sa))
		TH_LOG("rdma_create_srq: %s", strerror(errno));
	ASSERT_NE(NULL, id->srq);
	EXPECT_EQ(id->pd, id->srq->pd);
	first = id->srq;
	if (guest_on_rcm()) {
		ASSERT_ERRNO(rdma_create_srq(id, NULL, &sa), EINVAL);
		EXPECT_EQ(first, id->srq);
	}
	guest_qp_attr(&attr, IBV_QPT_RC, 3);
	ASSERT_EQ(0, rdma_create_qp(id, NULL, &attr))
		TH_LOG("rdma_create_qp on the SRQ: %s", strerror(errno));
	EXPECT_EQ(first, id->qp->srq);
	rdma_destroy_qp(id);
	rdma_destroy_srq(id);
	EXPECT_EQ(NULL, id->srq);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(init_qp_attr)
{
	struct ibv_qp_attr a;
	struct rdma_cm_id *id;
	int mask = 0;

	GUEST_RXE_OR_SKIP(rxe);
	id = bound(_metadata, rxe);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	ASSERT_EQ(0, rdma_init_qp_attr(id, &a, &mask))
		TH_LOG("rdma_init_qp_attr(INIT): %s", strerror(errno));
	EXPECT_EQ(IBV_QPS_INIT, a.qp_state);
	EXPECT_EQ(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		  IBV_QP_ACCESS_FLAGS,
		  mask & (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(1, a.port_num);

	/*
	 * RTR before any connection, and SQD: rcm says EINVAL; rdma_ucm
	 * answers 0 with the INIT attributes (rdma_init_qp_attr(3) NOTES).
	 */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (guest_on_rcm())
		ASSERT_ERRNO(rdma_init_qp_attr(id, &a, &mask), EINVAL);
	else
		ASSERT_EQ(0, rdma_init_qp_attr(id, &a, &mask));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_SQD;
	if (guest_on_rcm())
		ASSERT_ERRNO(rdma_init_qp_attr(id, &a, &mask), EINVAL);
	else
		ASSERT_EQ(0, rdma_init_qp_attr(id, &a, &mask));
	ASSERT_EQ(0, rdma_destroy_id(id));
}

RCM_TEST_MAIN
