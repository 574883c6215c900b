// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_id.c: port spaces and QP types.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */
#include <kunit/test.h>

#include "rcm_priv.h"

static void rcm_id_tcp_is_rc_only(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rcm_id_qp_type_ok(RCM_PS_TCP, RCM_QPT_RC));
	KUNIT_EXPECT_FALSE(test, rcm_id_qp_type_ok(RCM_PS_TCP, RCM_QPT_UD));
}

static void rcm_id_udp_and_ipoib_are_ud_only(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rcm_id_qp_type_ok(RCM_PS_UDP, RCM_QPT_UD));
	KUNIT_EXPECT_FALSE(test, rcm_id_qp_type_ok(RCM_PS_UDP, RCM_QPT_RC));
	KUNIT_EXPECT_TRUE(test, rcm_id_qp_type_ok(RCM_PS_IPOIB, RCM_QPT_UD));
	KUNIT_EXPECT_FALSE(test, rcm_id_qp_type_ok(RCM_PS_IPOIB, RCM_QPT_RC));
}

static void rcm_id_ib_takes_rc_or_ud(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rcm_id_qp_type_ok(RCM_PS_IB, RCM_QPT_RC));
	KUNIT_EXPECT_TRUE(test, rcm_id_qp_type_ok(RCM_PS_IB, RCM_QPT_UD));
	KUNIT_EXPECT_FALSE(test, rcm_id_qp_type_ok(RCM_PS_IB, 3));
}

static void rcm_id_unknown_port_space_is_refused(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, rcm_id_qp_type_ok(0, RCM_QPT_RC));
	KUNIT_EXPECT_FALSE(test, rcm_id_qp_type_ok(0x0107, RCM_QPT_RC));
	KUNIT_EXPECT_FALSE(test, rcm_id_qp_type_ok(0xffff, RCM_QPT_UD));
}

static struct kunit_case rcm_id_cases[] = {
	KUNIT_CASE(rcm_id_tcp_is_rc_only),
	KUNIT_CASE(rcm_id_udp_and_ipoib_are_ud_only),
	KUNIT_CASE(rcm_id_ib_takes_rc_or_ud),
	KUNIT_CASE(rcm_id_unknown_port_space_is_refused),
	{}
};

static struct kunit_suite rcm_id_suite = {
	.name = "rcm_id",
	.test_cases = rcm_id_cases,
};

kunit_test_suite(rcm_id_suite);
