// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_id.c: port spaces and QP types.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */

#include "rcm_kunit.h"
#include "rcm_priv.h"

/* rcm_id_qp_type(): the QP type an id of a port space gets. */
static const struct rcm_t_qp_type_row {
	const char *desc;
	u16 ps;
	u8 asked;
	int want;
} rcm_t_qp_type_rows[] = {
	/* As in-tree: whatever the type asked, a TCP id is RC. */
	{ "tcp_asked_rc_is_rc", RCM_PS_TCP, RCM_QPT_RC, RCM_QPT_RC },
	{ "tcp_asked_uc_is_rc", RCM_PS_TCP, RCM_QPT_UC, RCM_QPT_RC },
	{ "tcp_asked_ud_is_rc", RCM_PS_TCP, RCM_QPT_UD, RCM_QPT_RC },
	{ "tcp_asked_none_is_rc", RCM_PS_TCP, 0, RCM_QPT_RC },
	/* UDP and IPoIB ids are UD. */
	{ "udp_asked_ud_is_ud", RCM_PS_UDP, RCM_QPT_UD, RCM_QPT_UD },
	{ "udp_asked_rc_is_ud", RCM_PS_UDP, RCM_QPT_RC, RCM_QPT_UD },
	{ "ipoib_asked_ud_is_ud", RCM_PS_IPOIB, RCM_QPT_UD, RCM_QPT_UD },
	{ "ipoib_asked_xrc_send_is_ud", RCM_PS_IPOIB, RCM_QPT_XRC_SEND,
	  RCM_QPT_UD },
	/* An IB id takes any type there is, and only those. */
	{ "ib_asked_rc_is_rc", RCM_PS_IB, RCM_QPT_RC, RCM_QPT_RC },
	{ "ib_asked_uc_is_uc", RCM_PS_IB, RCM_QPT_UC, RCM_QPT_UC },
	{ "ib_asked_ud_is_ud", RCM_PS_IB, RCM_QPT_UD, RCM_QPT_UD },
	{ "ib_asked_xrc_send_is_xrc_send", RCM_PS_IB, RCM_QPT_XRC_SEND,
	  RCM_QPT_XRC_SEND },
	{ "ib_asked_xrc_recv_is_xrc_recv", RCM_PS_IB, RCM_QPT_XRC_RECV,
	  RCM_QPT_XRC_RECV },
	{ "ib_asked_none_is_refused", RCM_PS_IB, 0, -EINVAL },
	{ "ib_asked_type_8_is_refused", RCM_PS_IB, 8, -EINVAL },
	/* An unknown port space is refused. */
	{ "port_space_0_is_refused", 0, RCM_QPT_RC, -EINVAL },
	{ "port_space_0x0107_is_refused", 0x0107, RCM_QPT_RC, -EINVAL },
	{ "port_space_0xffff_is_refused", 0xffff, RCM_QPT_UD, -EINVAL },
};

RCM_KUNIT_PARAMS(rcm_t_qp_type, rcm_t_qp_type_rows);

static void rcm_id_qp_type_follows_port_space(struct kunit *test)
{
	const struct rcm_t_qp_type_row *row = test->param_value;

	KUNIT_EXPECT_EQ(test, rcm_id_qp_type(row->ps, row->asked), row->want);
}

RCM_KUNIT_SUITE(rcm_id,
		KUNIT_CASE_PARAM(rcm_id_qp_type_follows_port_space,
				 rcm_t_qp_type_gen_params));
