// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_mcast.c: the MCMemberRecord of an InfiniBand join
 * (rcm_mcast_ib_rec()) for each join state and kind of group address,
 * against cma.c:cma_join_ib_multicast() and cma_set_mgid().
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */

#include <linux/in.h>
#include <linux/in6.h>

#include "rcm_kunit.h"
#include "rcm_priv.h"

/* What every join asks for (cma_join_ib_multicast()'s mask). */
#define RCM_T_MC_MASK (IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID | \
		       IB_SA_MCMEMBER_REC_PKEY |				\
		       IB_SA_MCMEMBER_REC_JOIN_STATE |			\
		       IB_SA_MCMEMBER_REC_SL |				\
		       IB_SA_MCMEMBER_REC_FLOW_LABEL |			\
		       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS)
#define RCM_T_MC_IPOIB (IB_SA_MCMEMBER_REC_RATE |			\
			IB_SA_MCMEMBER_REC_RATE_SELECTOR |		\
			IB_SA_MCMEMBER_REC_MTU_SELECTOR |		\
			IB_SA_MCMEMBER_REC_MTU |			\
			IB_SA_MCMEMBER_REC_HOP_LIMIT)

static const u8 rcm_t_port_gid[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0x01 };
/* An IPoIB broadcast address: QPN, scope 2 (link-local), P_Key 0xffff. */
static const u8 rcm_t_bcast[MAX_ADDR_LEN] = {
	0x00, 0xff, 0xff, 0xff, 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff };

static const struct rcm_t_mc_row {
	const char *desc;
	u16 ps;
	u32 qkey;
	u32 join_flags;
	sa_family_t family;
	u8 addr[16];		/* IPv4 in the first 4 bytes */
	u8 want_mgid[16];
	u8 want_state;
	ib_sa_comp_mask want_mask;
} rcm_t_mc_rows[] = {
	{ "af_ib_full_member", RCM_PS_UDP, RCM_UDP_QKEY,
	  RCM_MC_JOIN_FULLMEMBER, AF_IB,
	  { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7 },
	  { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7 },
	  BIT(FULLMEMBER_JOIN), RCM_T_MC_MASK | IB_SA_MCMEMBER_REC_QKEY },
	{ "af_ib_send_only", RCM_PS_UDP, RCM_UDP_QKEY,
	  RCM_MC_JOIN_SENDONLY_FULLMEMBER, AF_IB,
	  { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7 },
	  { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7 },
	  BIT(SENDONLY_FULLMEMBER_JOIN),
	  RCM_T_MC_MASK | IB_SA_MCMEMBER_REC_QKEY },
	/* Zero: the SA assigns the MGID; no Q_Key: the SA's. */
	{ "af_ib_zero_no_qkey", RCM_PS_IB, 0, RCM_MC_JOIN_FULLMEMBER, AF_IB,
	  {}, {}, BIT(FULLMEMBER_JOIN), RCM_T_MC_MASK },
	/*
	 * IPoIB's mapping (the group's low 28 bits), the broadcast's scope
	 * and P_Key, rdma_cm's mark.
	 */
	{ "ipv4_udp", RCM_PS_UDP, RCM_UDP_QKEY, RCM_MC_JOIN_FULLMEMBER,
	  AF_INET, { 224, 1, 2, 3 },
	  { 0xff, 0x12, 0x40, 0x01, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
	    224 & 0x0f, 1, 2, 3 },
	  BIT(FULLMEMBER_JOIN), RCM_T_MC_MASK | IB_SA_MCMEMBER_REC_QKEY },
	{ "ipv4_ipoib_send_only", RCM_PS_IPOIB, 0x0b1b,
	  RCM_MC_JOIN_SENDONLY_FULLMEMBER, AF_INET, { 224, 1, 2, 3 },
	  { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0,
	    224 & 0x0f, 1, 2, 3 },
	  BIT(SENDONLY_FULLMEMBER_JOIN),
	  RCM_T_MC_MASK | IB_SA_MCMEMBER_REC_QKEY | RCM_T_MC_IPOIB },
	{ "ipv6_udp", RCM_PS_UDP, RCM_UDP_QKEY, RCM_MC_JOIN_FULLMEMBER,
	  AF_INET6, { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9 },
	  { 0xff, 0x12, 0x60, 0x01, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9 },
	  BIT(FULLMEMBER_JOIN), RCM_T_MC_MASK | IB_SA_MCMEMBER_REC_QKEY },
	/* An MGID the SA assigned (ff1x:a01b::), as an IPv6 address. */
	{ "ipv6_sa_mgid", RCM_PS_UDP, RCM_UDP_QKEY, RCM_MC_JOIN_FULLMEMBER,
	  AF_INET6,
	  { 0xff, 0x15, 0xa0, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4 },
	  { 0xff, 0x15, 0xa0, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4 },
	  BIT(FULLMEMBER_JOIN), RCM_T_MC_MASK | IB_SA_MCMEMBER_REC_QKEY },
};

RCM_KUNIT_PARAMS(rcm_t_mc, rcm_t_mc_rows);

/*
 * The record and mask of each row; the template's SL and traffic class
 * (what ib_sa_get_mcmember_rec() found) pass through untouched.
 */
static void rcm_mcast_ib_rec_per_join(struct kunit *test)
{
	const struct rcm_t_mc_row *row = test->param_value;
	struct sockaddr_storage ss = {};
	struct ib_sa_mcmember_rec rec;
	ib_sa_comp_mask mask;

	ss.ss_family = row->family;
	if (row->family == AF_INET)
		memcpy(&((struct sockaddr_in *)&ss)->sin_addr, row->addr, 4);
	else if (row->family == AF_INET6)
		memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, row->addr, 16);
	else
		memcpy(&((struct sockaddr_ib *)&ss)->sib_addr, row->addr, 16);
	memset(&rec, 0x5a, sizeof(rec));
	rec.sl = 3;
	rec.traffic_class = 0x20;
	mask = rcm_mcast_ib_rec((struct sockaddr *)&ss, row->ps, rcm_t_bcast,
				(const union ib_gid *)rcm_t_port_gid, 0x8001,
				row->qkey, row->join_flags, &rec);
	/* As u64: KUnit's typeof() copies would drop the __bitwise type. */
	KUNIT_EXPECT_EQ(test, (__force u64)mask, (__force u64)row->want_mask);
	KUNIT_EXPECT_EQ(test, memcmp(rec.mgid.raw, row->want_mgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(rec.port_gid.raw, rcm_t_port_gid, 16), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rec.pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rec.qkey), row->qkey);
	KUNIT_EXPECT_EQ(test, rec.join_state, row->want_state);
	KUNIT_EXPECT_EQ(test, rec.sl, 3);
	KUNIT_EXPECT_EQ(test, rec.traffic_class, 0x20);
}

RCM_KUNIT_SUITE(rcm_mcast,
		KUNIT_CASE_PARAM(rcm_mcast_ib_rec_per_join,
				 rcm_t_mc_gen_params));
