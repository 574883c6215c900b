// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_qp.c: QP attributes for userspace.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */

#include "rcm_kunit.h"
#include "rcm_priv.h"

static void rcm_qp_attr_to_user_copies_a_roce_rtr(struct kunit *test)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTR, .path_mtu = IB_MTU_1024,
		.rq_psn = 0x123456, .dest_qp_num = 0xabcdef,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 12,
	};
	int mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		   IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	union ib_gid dgid = { .raw = { [10] = 0xff, [11] = 0xff, [12] = 198,
				       [13] = 18, [14] = 1, [15] = 1 } };
	struct rcm_qp_attr out = {};

	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_sl(&attr.ah_attr, 3);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_static_rate(&attr.ah_attr, 2);
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0x12345, 5, 64, 0x20);
	rcm_qp_attr_to_user(&attr, mask, &out);

	KUNIT_EXPECT_EQ(test, out.qp_attr_mask, (u32)mask);
	KUNIT_EXPECT_EQ(test, out.qp_state, (u32)RCM_QPS_RTR);
	KUNIT_EXPECT_EQ(test, out.path_mtu, (u32)IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, out.rq_psn, 0x123456U);
	KUNIT_EXPECT_EQ(test, out.dest_qp_num, 0xabcdefU);
	KUNIT_EXPECT_EQ(test, out.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, out.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, out.ah_attr.is_global, 1);
	KUNIT_EXPECT_EQ(test, out.ah_attr.sl, 3);
	KUNIT_EXPECT_EQ(test, out.ah_attr.port_num, 1);
	KUNIT_EXPECT_EQ(test, out.ah_attr.static_rate, 2);
	KUNIT_EXPECT_EQ(test, out.ah_attr.flow_label, 0x12345U);
	KUNIT_EXPECT_EQ(test, out.ah_attr.sgid_index, 5);
	KUNIT_EXPECT_EQ(test, out.ah_attr.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, out.ah_attr.traffic_class, 0x20);
	KUNIT_EXPECT_EQ(test, out.ah_attr.dlid, 0);
	KUNIT_EXPECT_EQ(test, memcmp(out.ah_attr.dgid, dgid.raw, 16), 0);
}

static void rcm_qp_attr_to_user_leaves_the_av_out(struct kunit *test)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS, .sq_psn = 7,
				   .timeout = 14, .retry_cnt = 7,
				   .rnr_retry = 7, .max_rd_atomic = 1 };
	struct rcm_qp_attr out = {};

	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	attr.ah_attr.sl = 5;	/* not valid without IB_QP_AV */
	rcm_qp_attr_to_user(&attr, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC, &out);
	KUNIT_EXPECT_EQ(test, out.qp_state, (u32)RCM_QPS_RTS);
	KUNIT_EXPECT_EQ(test, out.sq_psn, 7U);
	KUNIT_EXPECT_EQ(test, out.timeout, 14);
	KUNIT_EXPECT_EQ(test, out.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, out.rnr_retry, 7);
	KUNIT_EXPECT_EQ(test, out.max_rd_atomic, 1);
	KUNIT_EXPECT_EQ(test, out.ah_attr.sl, 0);
	KUNIT_EXPECT_EQ(test, out.ah_attr.is_global, 0);
}

RCM_KUNIT_SUITE(rcm_qp,
		KUNIT_CASE(rcm_qp_attr_to_user_copies_a_roce_rtr),
		KUNIT_CASE(rcm_qp_attr_to_user_leaves_the_av_out));
