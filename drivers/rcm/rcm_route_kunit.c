// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_route.c: RoCE v2 flow label, the component mask and
 * QoS of an InfiniBand path query, the path of an RCM_OPTION_IB_PATH
 * record.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <rdma/ib_user_sa.h>

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
	/* As u64: KUnit's typeof() copies would drop the __bitwise type. */
	KUNIT_EXPECT_EQ(test,
			(__force u64)rcm_route_ib_mask(row->family, &src.sa,
						       row->tos, &rec),
			(__force u64)(RCM_T_IB_MASK | row->extra));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rec.qos_class), row->qos_class);
	KUNIT_EXPECT_EQ(test, rec.traffic_class, row->traffic_class);
}

/*
 * A PathRecord in the SA's wire layout (IBA 15.2.5.16), every field a
 * value of its own: service ID, DGID, SGID, DLID 0x1234, SLID 0x0567,
 * raw traffic, flow label 0xabcde, hop limit 0x40, traffic class 0x5c,
 * reversible with one path, P_Key 0x8001, QoS class 0x123, SL 9, the MTU,
 * rate and packet lifetime selectors 2, 1 and 3 with 4, 7 and 17,
 * preference 6.
 */
static const u8 rcm_t_path_wire[64] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0xfa, 0xb0, 0, 0, 0, 0x02,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0xfa, 0xb0, 0, 0, 0, 0x01,
	0x12, 0x34, 0x05, 0x67,
	0x80 | 0x0a, 0xbc, 0xde, 0x40,
	0x5c, 0x80 | 1, 0x80, 0x01,
	0x12, 0x39, 2 << 6 | 4, 1 << 6 | 7,
	3 << 6 | 17, 6, 0, 0, 0, 0, 0, 0,
};

static void rcm_t_path_data(struct ib_path_rec_data *data, u32 flags)
{
	memset(data, 0, sizeof(*data));
	data->flags = flags;
	memcpy(data->path_rec, rcm_t_path_wire, sizeof(rcm_t_path_wire));
}

/* Each field of the record lands where struct sa_path_rec has it. */
static void rcm_route_ib_path_unpacks_every_field(struct kunit *test)
{
	struct ib_path_rec_data data;
	struct sa_path_rec path;
	u8 gid[16] = { 0xfe, 0x80, [8] = 0x02, [10] = 0xfa, [11] = 0xb0 };

	rcm_t_path_data(&data, IB_PATH_GMP | IB_PATH_PRIMARY |
			IB_PATH_BIDIRECTIONAL);
	memset(&path, 0xa5, sizeof(path));
	KUNIT_ASSERT_TRUE(test, rcm_route_path_unpack(&data, false, &path));
	KUNIT_EXPECT_EQ(test, path.rec_type, SA_PATH_REC_TYPE_IB);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(path.service_id),
			0x0102030405060708ULL);
	gid[15] = 2;
	KUNIT_EXPECT_EQ(test, memcmp(path.dgid.raw, gid, 16), 0);
	gid[15] = 1;
	KUNIT_EXPECT_EQ(test, memcmp(path.sgid.raw, gid, 16), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(path.ib.dlid), 0x1234);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(path.ib.slid), 0x0567);
	KUNIT_EXPECT_EQ(test, path.ib.raw_traffic, 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(path.flow_label), 0xabcde);
	KUNIT_EXPECT_EQ(test, path.hop_limit, 0x40);
	KUNIT_EXPECT_EQ(test, path.traffic_class, 0x5c);
	KUNIT_EXPECT_EQ(test, path.reversible, 1);
	KUNIT_EXPECT_EQ(test, path.numb_path, 1);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(path.pkey), 0x8001);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(path.qos_class), 0x123);
	KUNIT_EXPECT_EQ(test, path.sl, 9);
	KUNIT_EXPECT_EQ(test, path.mtu_selector, 2);
	KUNIT_EXPECT_EQ(test, path.mtu, 4);
	KUNIT_EXPECT_EQ(test, path.rate_selector, 1);
	KUNIT_EXPECT_EQ(test, path.rate, 7);
	KUNIT_EXPECT_EQ(test, path.packet_life_time_selector, 3);
	KUNIT_EXPECT_EQ(test, path.packet_life_time, 17);
	KUNIT_EXPECT_EQ(test, path.preference, 6);
}

/* Packed again by ib_sa, the path is the record, byte for byte. */
static void rcm_route_ib_path_packs_back_byte_exact(struct kunit *test)
{
	struct ib_path_rec_data data;
	struct sa_path_rec path = {};
	u8 wire[64] = {};
	unsigned int i;

	rcm_t_path_data(&data, IB_PATH_GMP | IB_PATH_PRIMARY |
			IB_PATH_BIDIRECTIONAL);
	KUNIT_ASSERT_TRUE(test, rcm_route_path_unpack(&data, false, &path));
	ib_sa_pack_path(&path, wire);
	for (i = 0; i < sizeof(wire); i++)
		KUNIT_EXPECT_EQ_MSG(test, wire[i], rcm_t_path_wire[i],
				    "byte %u", i);
}

/* Only exactly GMP, primary and bidirectional is a route (ucma's test). */
static void rcm_route_ib_path_takes_only_a_route(struct kunit *test)
{
	static const u32 others[] = {
		0, IB_PATH_GMP | IB_PATH_PRIMARY,
		IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_OUTBOUND,
		IB_PATH_GMP | IB_PATH_ALTERNATE | IB_PATH_BIDIRECTIONAL,
		IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL,
		IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL |
		IB_PATH_INBOUND,
	};
	struct ib_path_rec_data data;
	struct sa_path_rec path = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(others); i++) {
		rcm_t_path_data(&data, others[i]);
		KUNIT_EXPECT_FALSE_MSG(test,
				       rcm_route_path_unpack(&data, false, &path),
				       "flags 0x%x", others[i]);
	}
	KUNIT_EXPECT_EQ(test, path.sl, 0);
}

/* An OPA port takes the OPA form: 32-bit LIDs from the IB ones. */
static void rcm_route_ib_path_converts_for_opa(struct kunit *test)
{
	struct ib_path_rec_data data;
	struct sa_path_rec path = {};

	rcm_t_path_data(&data, IB_PATH_GMP | IB_PATH_PRIMARY |
			IB_PATH_BIDIRECTIONAL);
	KUNIT_ASSERT_TRUE(test, rcm_route_path_unpack(&data, true, &path));
	KUNIT_EXPECT_EQ(test, path.rec_type, SA_PATH_REC_TYPE_OPA);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(path.opa.dlid), 0x1234);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(path.opa.slid), 0x0567);
	KUNIT_EXPECT_EQ(test, path.sl, 9);
	KUNIT_EXPECT_EQ(test, path.mtu, 4);
}

RCM_KUNIT_SUITE(rcm_route,
		KUNIT_CASE_PARAM(rcm_route_flow_label_is_the_label_or_a_hash,
				 rcm_t_flow_gen_params),
		KUNIT_CASE_PARAM(rcm_route_ib_mask_is_in_trees,
				 rcm_t_mask_gen_params),
		KUNIT_CASE(rcm_route_ib_path_unpacks_every_field),
		KUNIT_CASE(rcm_route_ib_path_packs_back_byte_exact),
		KUNIT_CASE(rcm_route_ib_path_takes_only_a_route),
		KUNIT_CASE(rcm_route_ib_path_converts_for_opa));
