// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_id.c: port spaces and QP types.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */

#include "rcm_kunit.h"
#include "rcm_priv.h"

/* As in-tree: whatever the type asked, a TCP id is RC. */
static void rcm_id_tcp_is_rc(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_TCP, RCM_QPT_RC),
			RCM_QPT_RC);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_TCP, RCM_QPT_UC),
			RCM_QPT_RC);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_TCP, RCM_QPT_UD),
			RCM_QPT_RC);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_TCP, 0), RCM_QPT_RC);
}

static void rcm_id_udp_and_ipoib_are_ud(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_UDP, RCM_QPT_UD),
			RCM_QPT_UD);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_UDP, RCM_QPT_RC),
			RCM_QPT_UD);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_IPOIB, RCM_QPT_UD),
			RCM_QPT_UD);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_IPOIB, RCM_QPT_XRC_SEND),
			RCM_QPT_UD);
}

static void rcm_id_ib_takes_any_type(struct kunit *test)
{
	static const u8 types[] = { RCM_QPT_RC, RCM_QPT_UC, RCM_QPT_UD,
				    RCM_QPT_XRC_SEND, RCM_QPT_XRC_RECV };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_IB, types[i]),
				(int)types[i]);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_IB, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(RCM_PS_IB, 8), -EINVAL);
}

static void rcm_id_unknown_port_space_is_refused(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(0, RCM_QPT_RC), -EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(0x0107, RCM_QPT_RC), -EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(0xffff, RCM_QPT_UD), -EINVAL);
}

RCM_KUNIT_SUITE(rcm_id,
		KUNIT_CASE(rcm_id_tcp_is_rc),
		KUNIT_CASE(rcm_id_udp_and_ipoib_are_ud),
		KUNIT_CASE(rcm_id_ib_takes_any_type),
		KUNIT_CASE(rcm_id_unknown_port_space_is_refused));
