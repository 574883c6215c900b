// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_route.c: RoCE v2 flow label, the component mask and
 * QoS of an InfiniBand path query.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */
#include <linux/in.h>
#include <linux/in6.h>

#include "rcm_kunit.h"
#include "rcm_priv.h"

/* The ports' hash a flow label is without a label of its own. */
#define RCM_T_PORT_HASH(sport, dport)	(((sport) * 31U + (dport)) & 0xfffff)

/*
 * rcm_route_flow_label() of a source and destination: an IPv6 source's
 * own label (@flowinfo, its sin6_flowinfo), else the ports' hash.
 */
static const struct rcm_t_flow_row {
	const char *desc;
	sa_family_t family;
	u16 sport, dport;
	u32 flowinfo;
	u32 want;
} rcm_t_flow_rows[] = {
	{ "ipv4_hashes_the_ports", AF_INET, 40000, 7471, 0,
	  RCM_T_PORT_HASH(40000, 7471) },
	{ "ipv4_hash_fits_twenty_bits", AF_INET, 65535, 65535, 0,
	  RCM_T_PORT_HASH(65535, 65535) },
	{ "ipv6_keeps_the_label", AF_INET6, 40000, 7471, 0x12345, 0x12345 },
	/* Traffic-class bits of sin6_flowinfo are not part of the label. */
	{ "ipv6_traffic_class_is_no_label", AF_INET6, 40000, 7471, 0xff00000,
	  RCM_T_PORT_HASH(40000, 7471) },
};

RCM_KUNIT_PARAMS(rcm_t_flow, rcm_t_flow_rows);

static void rcm_route_flow_label_is_the_label_or_a_hash(struct kunit *test)
{
	const struct rcm_t_flow_row *row = test->param_value;
	union rcm_sockaddr src = {}, dst = {};

	if (row->family == AF_INET) {
		src.in.sin_family = AF_INET;
		src.in.sin_port = htons(row->sport);
		dst.in.sin_family = AF_INET;
		dst.in.sin_port = htons(row->dport);
	} else {
		src.in6.sin6_family = AF_INET6;
		src.in6.sin6_port = htons(row->sport);
		src.in6.sin6_flowinfo = htonl(row->flowinfo);
		dst.in6.sin6_family = AF_INET6;
		dst.in6.sin6_port = htons(row->dport);
	}
	KUNIT_EXPECT_EQ(test, rcm_route_flow_label(&src.sa, &dst.sa),
			row->want);
}

/* What every path query asks, whatever the family (cma_query_ib_route()). */
#define RCM_T_IB_MASK	(IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |	\
			 IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH | \
			 IB_SA_PATH_REC_REVERSIBLE |			\
			 IB_SA_PATH_REC_SERVICE_ID)

/*
 * rcm_route_ib_mask() of an id of each family: AF_INET asks its TOS as
 * the QoS class, AF_INET6 and AF_IB the traffic class of the source's
 * flow info (bits 27:20), nothing else differs.
 */
static const struct rcm_t_mask_row {
	const char *desc;
	sa_family_t family;
	u8 tos;
	u32 flowinfo;
	ib_sa_comp_mask extra;
	u16 qos_class;
	u8 traffic_class;
} rcm_t_mask_rows[] = {
	{ "ipv4_asks_qos_class_of_tos", AF_INET, 0xb8, 0,
	  IB_SA_PATH_REC_QOS_CLASS, 0xb8, 0 },
	{ "ipv6_asks_traffic_class_of_flowinfo", AF_INET6, 0xb8, 0x0ab12345,
	  IB_SA_PATH_REC_TRAFFIC_CLASS, 0, 0xab },
	{ "af_ib_asks_traffic_class_of_flowinfo", AF_IB, 0, 0x04000001,
	  IB_SA_PATH_REC_TRAFFIC_CLASS, 0, 0x40 },
};

RCM_KUNIT_PARAMS(rcm_t_mask, rcm_t_mask_rows);

static void rcm_route_ib_mask_is_in_trees(struct kunit *test)
{
	const struct rcm_t_mask_row *row = test->param_value;
	union rcm_sockaddr src = {};
	struct sa_path_rec rec = {};

	src.sa.sa_family = row->family;
	if (row->family == AF_INET6)
		src.in6.sin6_flowinfo = htonl(row->flowinfo);
	else if (row->family == AF_IB)
		src.ib.sib_flowinfo = htonl(row->flowinfo);
	KUNIT_EXPECT_EQ(test,
			rcm_route_ib_mask(row->family, &src.sa, row->tos, &rec),
			RCM_T_IB_MASK | row->extra);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rec.qos_class), row->qos_class);
	KUNIT_EXPECT_EQ(test, rec.traffic_class, row->traffic_class);
}

RCM_KUNIT_SUITE(rcm_route,
		KUNIT_CASE_PARAM(rcm_route_flow_label_is_the_label_or_a_hash,
				 rcm_t_flow_gen_params),
		KUNIT_CASE_PARAM(rcm_route_ib_mask_is_in_trees,
				 rcm_t_mask_gen_params));
