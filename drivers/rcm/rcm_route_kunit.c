// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_route.c: RoCE v2 flow label.
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

RCM_KUNIT_SUITE(rcm_route,
		KUNIT_CASE_PARAM(rcm_route_flow_label_is_the_label_or_a_hash,
				 rcm_t_flow_gen_params));
