// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_device.c: which CM serves a port.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */

#include "rcm_kunit.h"
#include "rcm_priv.h"

/* rcm_port_cm_from_caps(): the CM a port's core capabilities call for. */
static const struct rcm_t_port_cm_row {
	const char *desc;
	u32 caps;
	enum rcm_port_cm want;
} rcm_t_port_cm_rows[] = {
	{ "roce_is_ib_cm", RDMA_CORE_PORT_IBA_ROCE, RCM_PORT_CM_IB },
	{ "roce_v2_is_ib_cm", RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP,
	  RCM_PORT_CM_IB },
	{ "infiniband_is_ib_cm", RDMA_CORE_PORT_IBA_IB, RCM_PORT_CM_IB },
	{ "iwarp_is_iw_cm", RDMA_CORE_PORT_IWARP, RCM_PORT_CM_IW },
	{ "raw_packet_has_none", RDMA_CORE_PORT_RAW_PACKET, RCM_PORT_CM_NONE },
	{ "no_capability_has_none", 0, RCM_PORT_CM_NONE },
};

RCM_KUNIT_PARAMS(rcm_t_port_cm, rcm_t_port_cm_rows);

static void rcm_port_cm_from_caps_names_the_cm(struct kunit *test)
{
	const struct rcm_t_port_cm_row *row = test->param_value;

	KUNIT_EXPECT_EQ(test, rcm_port_cm_from_caps(row->caps), row->want);
}

RCM_KUNIT_SUITE(rcm_device,
		KUNIT_CASE_PARAM(rcm_port_cm_from_caps_names_the_cm,
				 rcm_t_port_cm_gen_params));
