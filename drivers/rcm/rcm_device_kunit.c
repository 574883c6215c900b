// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_device.c: which CM serves a port.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */

#include "rcm_kunit.h"
#include "rcm_priv.h"

static void rcm_port_cm_roce_is_ib_cm(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcm_port_cm_from_caps(RDMA_CORE_PORT_IBA_ROCE),
			RCM_PORT_CM_IB);
	KUNIT_EXPECT_EQ(test,
			rcm_port_cm_from_caps(RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP),
			RCM_PORT_CM_IB);
	KUNIT_EXPECT_EQ(test, rcm_port_cm_from_caps(RDMA_CORE_PORT_IBA_IB),
			RCM_PORT_CM_IB);
}

static void rcm_port_cm_iwarp_is_iw_cm(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcm_port_cm_from_caps(RDMA_CORE_PORT_IWARP),
			RCM_PORT_CM_IW);
}

static void rcm_port_cm_raw_packet_has_none(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcm_port_cm_from_caps(RDMA_CORE_PORT_RAW_PACKET),
			RCM_PORT_CM_NONE);
	KUNIT_EXPECT_EQ(test, rcm_port_cm_from_caps(0), RCM_PORT_CM_NONE);
}

RCM_KUNIT_SUITE(rcm_device,
		KUNIT_CASE(rcm_port_cm_roce_is_ib_cm),
		KUNIT_CASE(rcm_port_cm_iwarp_is_iw_cm),
		KUNIT_CASE(rcm_port_cm_raw_packet_has_none));
