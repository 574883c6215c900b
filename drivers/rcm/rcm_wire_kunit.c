// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: KUnit suites for rcm_wire.c, the device-free IB CM wire layer.
 *
 * The expected byte images and numbers below were written by hand from
 * the in-tree layout (cma.c struct cma_hdr, ib_cm.h enum ib_cm_data_size,
 * cm.c), not computed with the code under test.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "rcm_kunit.h"
#include "rcm_priv.h"

/* --- helpers ---------------------------------------------------------- */

static struct sockaddr_in rcm_t_in4(u8 a, u8 b, u8 c, u8 d, u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	u8 *p = (u8 *)&sin.sin_addr.s_addr;

	p[0] = a;
	p[1] = b;
	p[2] = c;
	p[3] = d;
	return sin;
}

static struct sockaddr_in6 rcm_t_in6(const u8 addr[16], u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};

	memcpy(&sin6.sin6_addr, addr, 16);
	return sin6;
}

static void rcm_t_expect_bytes(struct kunit *test, const void *got,
			       const u8 *want, size_t len)
{
	const u8 *g = got;
	size_t i;

	for (i = 0; i < len; i++)
		KUNIT_EXPECT_EQ_MSG(test, g[i], want[i], "byte %zu", i);
}

/* fe80::1 */
static const u8 rcm_t_ll6[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
};

/* 2001:db8::2 */
static const u8 rcm_t_doc6[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
};

/* ::ffff:10.0.0.7 */
static const u8 rcm_t_mapped6[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7,
};

/*
 * 192.168.1.10:49152 -> 192.168.1.20:4791, as cma.c:cma_format_hdr()
 * lays it out: version 0, IP version 4 in the high nibble, the *source*
 * port 49152 = 0xc000, then each IPv4 address after twelve zero bytes.
 */
static const u8 rcm_t_img4[RCM_WIRE_HDR_SIZE] = {
	0x00, 0x40, 0xc0, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192, 168, 1, 10,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192, 168, 1, 20,
};

/* [fe80::1]:4660 -> [2001:db8::2]:18515: IP version 6, port 0x1234. */
static const u8 rcm_t_img6[RCM_WIRE_HDR_SIZE] = {
	0x00, 0x60, 0x12, 0x34,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
};

/* The two ends of a connection, as the wire layer takes them. */
struct rcm_t_ends {
	union rcm_wire_addr src, dst;
};

/* rcm_t_img4's ends, or rcm_t_img6's. */
static void rcm_t_img_ends(struct rcm_t_ends *e, bool v6)
{
	memset(e, 0, sizeof(*e));
	if (v6) {
		e->src.in6 = rcm_t_in6(rcm_t_ll6, 0x1234);
		e->dst.in6 = rcm_t_in6(rcm_t_doc6, 18515);
	} else {
		e->src.in = rcm_t_in4(192, 168, 1, 10, 49152);
		e->dst.in = rcm_t_in4(192, 168, 1, 20, 4791);
	}
}

static int rcm_t_encode(struct rcm_wire_hdr *hdr, const struct rcm_t_ends *e)
{
	return rcm_wire_hdr_encode(hdr, &e->src.sa, &e->dst.sa);
}

/* --- rcm_wire_hdr ----------------------------------------------------- */

static void rcm_wire_hdr_layout_matches_cma_hdr(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct rcm_wire_hdr), (size_t)36);
	KUNIT_EXPECT_EQ(test, offsetof(struct rcm_wire_hdr, port), (size_t)2);
	KUNIT_EXPECT_EQ(test, offsetof(struct rcm_wire_hdr, src_addr),
			(size_t)4);
	KUNIT_EXPECT_EQ(test, offsetof(struct rcm_wire_hdr, dst_addr),
			(size_t)20);
}

static void rcm_wire_hdr_v4_encodes_to_in_tree_bytes(struct kunit *test)
{
	struct rcm_t_ends e;
	struct rcm_wire_hdr hdr;

	rcm_t_img_ends(&e, false);
	/* Garbage first: encode must write every byte, pad included. */
	memset(&hdr, 0xa5, sizeof(hdr));
	KUNIT_ASSERT_EQ(test, rcm_t_encode(&hdr, &e), 0);
	rcm_t_expect_bytes(test, &hdr, rcm_t_img4, sizeof(rcm_t_img4));
}

static void rcm_wire_hdr_v6_encodes_to_in_tree_bytes(struct kunit *test)
{
	struct rcm_t_ends e;
	struct rcm_wire_hdr hdr;

	rcm_t_img_ends(&e, true);
	/* Neither scope nor flow info goes on the wire. */
	e.src.in6.sin6_scope_id = 3;
	e.src.in6.sin6_flowinfo = htonl(0xabcde);
	memset(&hdr, 0xa5, sizeof(hdr));
	KUNIT_ASSERT_EQ(test, rcm_t_encode(&hdr, &e), 0);
	rcm_t_expect_bytes(test, &hdr, rcm_t_img6, sizeof(rcm_t_img6));
}

static void rcm_wire_hdr_carries_source_port_not_destination(struct kunit *test)
{
	struct rcm_t_ends e = {
		.src.in = rcm_t_in4(10, 0, 0, 1, 1),
		.dst.in = rcm_t_in4(10, 0, 0, 2, 65535),
	};
	struct rcm_wire_hdr hdr;

	KUNIT_ASSERT_EQ(test, rcm_t_encode(&hdr, &e), 0);
	KUNIT_EXPECT_EQ(test, ntohs(hdr.port), 1);
}

/* rcm_t_img4's or rcm_t_img6's header, decoded by its listener. */
static void rcm_t_round_trip(struct kunit *test, bool v6,
			     struct rcm_wire_req_addrs *addrs)
{
	struct rcm_t_ends e;
	struct rcm_wire_hdr hdr;

	rcm_t_img_ends(&e, v6);
	KUNIT_ASSERT_EQ(test, rcm_t_encode(&hdr, &e), 0);
	memset(addrs, 0xa5, sizeof(*addrs));
	KUNIT_ASSERT_EQ(test, rcm_wire_hdr_decode(&hdr, sizeof(hdr),
						  v6 ? 18515 : 4791, addrs),
			0);
}

static void rcm_wire_hdr_v4_round_trip_gives_listen_view(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;

	rcm_t_round_trip(test, false, &addrs);
	/* The listener's own side: where the client connected to. */
	KUNIT_EXPECT_EQ(test, addrs.listen.in.sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(addrs.listen.in.sin_addr.s_addr),
			0xc0a80114U);
	KUNIT_EXPECT_EQ(test, ntohs(addrs.listen.in.sin_port), 4791);
	/* The remote side: the client. */
	KUNIT_EXPECT_EQ(test, addrs.peer.in.sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(addrs.peer.in.sin_addr.s_addr),
			0xc0a8010aU);
	KUNIT_EXPECT_EQ(test, ntohs(addrs.peer.in.sin_port), 49152);
}

static void rcm_wire_hdr_v6_round_trip_gives_listen_view(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;

	rcm_t_round_trip(test, true, &addrs);
	KUNIT_EXPECT_EQ(test, addrs.listen.in6.sin6_family,
			(sa_family_t)AF_INET6);
	rcm_t_expect_bytes(test, &addrs.listen.in6.sin6_addr, rcm_t_doc6, 16);
	KUNIT_EXPECT_EQ(test, ntohs(addrs.listen.in6.sin6_port), 18515);
	KUNIT_EXPECT_EQ(test, addrs.peer.in6.sin6_family,
			(sa_family_t)AF_INET6);
	rcm_t_expect_bytes(test, &addrs.peer.in6.sin6_addr, rcm_t_ll6, 16);
	KUNIT_EXPECT_EQ(test, ntohs(addrs.peer.in6.sin6_port), 0x1234);
	/* Neither scope nor flow info travels; both come out zero. */
	KUNIT_EXPECT_EQ(test, addrs.peer.in6.sin6_scope_id, 0U);
	KUNIT_EXPECT_EQ(test, ntohl(addrs.peer.in6.sin6_flowinfo), 0U);
	KUNIT_EXPECT_EQ(test, addrs.listen.in6.sin6_scope_id, 0U);
}

static void rcm_wire_hdr_v4_mapped_v6_stays_ip_version_6(struct kunit *test)
{
	struct rcm_t_ends e = {
		.src.in6 = rcm_t_in6(rcm_t_mapped6, 5000),
		.dst.in6 = rcm_t_in6(rcm_t_mapped6, 6000),
	};
	struct rcm_wire_req_addrs addrs;
	struct rcm_wire_hdr hdr;
	const u8 *b = (const u8 *)&hdr;

	e.dst.in6.sin6_addr.s6_addr[15] = 8;
	KUNIT_ASSERT_EQ(test, rcm_t_encode(&hdr, &e), 0);
	KUNIT_EXPECT_EQ(test, b[1], 0x60);
	rcm_t_expect_bytes(test, b + 4, rcm_t_mapped6, 16);
	KUNIT_EXPECT_EQ(test, b[14], 0xff);
	KUNIT_EXPECT_EQ(test, b[35], 8);

	KUNIT_ASSERT_EQ(test, rcm_wire_hdr_decode(&hdr, sizeof(hdr), 6000,
						  &addrs), 0);
	KUNIT_EXPECT_EQ(test, addrs.peer.sa.sa_family, (sa_family_t)AF_INET6);
	rcm_t_expect_bytes(test, &addrs.peer.in6.sin6_addr, rcm_t_mapped6, 16);
}

static void rcm_wire_hdr_v4_is_zero_padded_not_v4_mapped(struct kunit *test)
{
	struct rcm_t_ends e = {
		.src.in = rcm_t_in4(10, 0, 0, 7, 1),
		.dst.in = rcm_t_in4(10, 0, 0, 8, 2),
	};
	struct rcm_wire_hdr hdr;
	const u8 *b = (const u8 *)&hdr;
	int i;

	KUNIT_ASSERT_EQ(test, rcm_t_encode(&hdr, &e), 0);
	for (i = 4; i < 16; i++)
		KUNIT_EXPECT_EQ_MSG(test, b[i], 0, "src pad byte %d", i);
	for (i = 20; i < 32; i++)
		KUNIT_EXPECT_EQ_MSG(test, b[i], 0, "dst pad byte %d", i);
}

static void rcm_wire_hdr_decode_ignores_v4_pad_and_low_nibble(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;
	u8 img[RCM_WIRE_HDR_SIZE];

	memcpy(img, rcm_t_img4, sizeof(img));
	img[1] = 0x4f;		/* cma.c:cma_get_ip_ver() reads bits 7:4 only */
	img[4] = 0xff;		/* and cma_save_ip4_info() the last 4 bytes */
	img[10] = 0xff;
	img[11] = 0xff;
	img[20] = 0x01;
	KUNIT_ASSERT_EQ(test, rcm_wire_hdr_decode(img, sizeof(img), 1, &addrs),
			0);
	KUNIT_EXPECT_EQ(test, addrs.peer.in.sin_family, (sa_family_t)AF_INET);
	rcm_t_expect_bytes(test, &addrs.peer.in.sin_addr,
			   (const u8[]){ 192, 168, 1, 10 }, 4);
	rcm_t_expect_bytes(test, &addrs.listen.in.sin_addr,
			   (const u8[]){ 192, 168, 1, 20 }, 4);
}

static void rcm_wire_hdr_decode_rejects_unknown_cma_version(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;
	u8 img[RCM_WIRE_HDR_SIZE];
	int v;

	for (v = 1; v <= 0xff; v++) {
		memcpy(img, rcm_t_img4, sizeof(img));
		img[0] = v;
		KUNIT_EXPECT_EQ_MSG(test,
				    rcm_wire_hdr_decode(img, sizeof(img), 1,
							&addrs),
				    -EINVAL, "cma_version %d", v);
	}
}

static void rcm_wire_hdr_decode_rejects_ip_version_not_4_or_6(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;
	u8 img[RCM_WIRE_HDR_SIZE];
	int v;

	for (v = 0; v < 16; v++) {
		int want = (v == 4 || v == 6) ? 0 : -EAFNOSUPPORT;

		memcpy(img, rcm_t_img6, sizeof(img));
		img[1] = v << 4;
		KUNIT_EXPECT_EQ_MSG(test,
				    rcm_wire_hdr_decode(img, sizeof(img), 1,
							&addrs),
				    want, "ip_version %d", v);
	}
}

static void rcm_wire_hdr_decode_checks_version_before_ip_version(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;
	u8 img[RCM_WIRE_HDR_SIZE];

	memcpy(img, rcm_t_img4, sizeof(img));
	img[0] = 1;
	img[1] = 0x50;
	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_decode(img, sizeof(img), 1, &addrs),
			-EINVAL);
}

static void rcm_wire_hdr_decode_rejects_short_data(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;

	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_decode(rcm_t_img4, 35, 1, &addrs),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_decode(rcm_t_img4, 0, 1, &addrs),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_decode(NULL, 92, 1, &addrs),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_decode(rcm_t_img4, 36, 1, &addrs),
			0);
}

static void rcm_wire_hdr_decode_leaves_output_alone_on_error(struct kunit *test)
{
	struct rcm_wire_req_addrs addrs;
	u8 img[RCM_WIRE_HDR_SIZE];
	const u8 *a = (const u8 *)&addrs;
	size_t i;

	memcpy(img, rcm_t_img4, sizeof(img));
	img[1] = 0x50;
	memset(&addrs, 0x5a, sizeof(addrs));
	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_decode(img, sizeof(img), 1, &addrs),
			-EAFNOSUPPORT);
	for (i = 0; i < sizeof(addrs); i++)
		KUNIT_EXPECT_EQ_MSG(test, a[i], 0x5a, "byte %zu", i);
}

static void rcm_wire_hdr_encode_rejects_bad_families(struct kunit *test)
{
	struct sockaddr_in in4 = rcm_t_in4(10, 0, 0, 1, 1);
	struct sockaddr_in6 in6 = rcm_t_in6(rcm_t_doc6, 1);
	struct sockaddr_ib ib = { .sib_family = AF_IB };
	struct rcm_wire_hdr hdr;

	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_encode(&hdr, (struct sockaddr *)&ib,
						  (struct sockaddr *)&ib),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_encode(&hdr, (struct sockaddr *)&in4,
						  (struct sockaddr *)&in6),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_wire_hdr_encode(&hdr, (struct sockaddr *)&in6,
						  (struct sockaddr *)&in4),
			-EINVAL);
}

RCM_KUNIT_SUITE(rcm_wire_hdr,
		KUNIT_CASE(rcm_wire_hdr_layout_matches_cma_hdr),
		KUNIT_CASE(rcm_wire_hdr_v4_encodes_to_in_tree_bytes),
		KUNIT_CASE(rcm_wire_hdr_v6_encodes_to_in_tree_bytes),
		KUNIT_CASE(rcm_wire_hdr_carries_source_port_not_destination),
		KUNIT_CASE(rcm_wire_hdr_v4_round_trip_gives_listen_view),
		KUNIT_CASE(rcm_wire_hdr_v6_round_trip_gives_listen_view),
		KUNIT_CASE(rcm_wire_hdr_v4_mapped_v6_stays_ip_version_6),
		KUNIT_CASE(rcm_wire_hdr_v4_is_zero_padded_not_v4_mapped),
		KUNIT_CASE(rcm_wire_hdr_decode_ignores_v4_pad_and_low_nibble),
		KUNIT_CASE(rcm_wire_hdr_decode_rejects_unknown_cma_version),
		KUNIT_CASE(rcm_wire_hdr_decode_rejects_ip_version_not_4_or_6),
		KUNIT_CASE(rcm_wire_hdr_decode_checks_version_before_ip_version),
		KUNIT_CASE(rcm_wire_hdr_decode_rejects_short_data),
		KUNIT_CASE(rcm_wire_hdr_decode_leaves_output_alone_on_error),
		KUNIT_CASE(rcm_wire_hdr_encode_rejects_bad_families));

/* --- rcm_wire_sid ----------------------------------------------------- */

static const struct {
	u16 ps;
	u16 port;
	u64 sid;
} rcm_t_sids[] = {
	{ RDMA_PS_TCP, 0, 0x0000000001060000ULL },
	{ RDMA_PS_TCP, 4420, 0x0000000001061144ULL },
	{ RDMA_PS_TCP, 65535, 0x000000000106ffffULL },
	{ RDMA_PS_UDP, 0, 0x0000000001110000ULL },
	{ RDMA_PS_UDP, 7471, 0x0000000001111d2fULL },
	{ RDMA_PS_UDP, 65535, 0x000000000111ffffULL },
	{ RDMA_PS_IB, 0, 0x00000000013f0000ULL },
	{ RDMA_PS_IB, 1, 0x00000000013f0001ULL },
	{ RDMA_PS_IB, 65535, 0x00000000013fffffULL },
	{ RDMA_PS_IPOIB, 0, 0x0000000000020000ULL },
	{ RDMA_PS_IPOIB, 18515, 0x0000000000024853ULL },
	{ RDMA_PS_IPOIB, 65535, 0x000000000002ffffULL },
};

static void rcm_wire_sid_compose_matches_annex_a11(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rcm_t_sids); i++) {
		__be64 sid = 0;

		KUNIT_EXPECT_EQ_MSG(test,
				    rcm_wire_sid_compose(rcm_t_sids[i].ps,
							 rcm_t_sids[i].port,
							 &sid),
				    0, "case %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, be64_to_cpu(sid), rcm_t_sids[i].sid,
				    "case %zu", i);
	}
}

static void rcm_wire_sid_is_big_endian_on_the_wire(struct kunit *test)
{
	static const u8 want[8] = { 0, 0, 0, 0, 0x01, 0x06, 0x11, 0x44 };
	__be64 sid;

	KUNIT_ASSERT_EQ(test, rcm_wire_sid_compose(RDMA_PS_TCP, 4420, &sid), 0);
	rcm_t_expect_bytes(test, &sid, want, sizeof(want));
}

static void rcm_wire_sid_ip_ranges_match_rdma_cm_h(struct kunit *test)
{
	__be64 sid;

	KUNIT_ASSERT_EQ(test, rcm_wire_sid_compose(RDMA_PS_TCP, 0, &sid), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid) & RDMA_IB_IP_PS_MASK,
			RDMA_IB_IP_PS_TCP);
	KUNIT_ASSERT_EQ(test, rcm_wire_sid_compose(RDMA_PS_UDP, 9, &sid), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid) & RDMA_IB_IP_PS_MASK,
			RDMA_IB_IP_PS_UDP);
	KUNIT_ASSERT_EQ(test, rcm_wire_sid_compose(RDMA_PS_IB, 9, &sid), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid) & RDMA_IB_IP_PS_MASK,
			RDMA_IB_IP_PS_IB);
	/* TCP, UDP and IB lie in ib_cm.h's IB_CMA_SERVICE_ID range. */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid & IB_CMA_SERVICE_ID_MASK),
			be64_to_cpu(IB_CMA_SERVICE_ID));
}

static void rcm_wire_sid_parse_inverts_compose(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rcm_t_sids); i++) {
		u16 ps = 0xdead, port = 0xbeef;

		KUNIT_EXPECT_EQ_MSG(test,
				    rcm_wire_sid_parse(cpu_to_be64(rcm_t_sids[i].sid),
						       &ps, &port),
				    0, "case %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, ps, rcm_t_sids[i].ps, "case %zu", i);
		KUNIT_EXPECT_EQ_MSG(test, port, rcm_t_sids[i].port,
				    "case %zu", i);
	}
}

static void rcm_wire_sid_compose_rejects_unknown_port_space(struct kunit *test)
{
	static const u16 bad[] = { 0, 1, 0x0003, 0x0105, 0x0107, 0x0110,
				   0x0112, 0x013e, 0x0140, 0xffff };
	__be64 sid = cpu_to_be64(0x1122334455667788ULL);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, rcm_wire_sid_compose(bad[i], 1, &sid),
				    -EINVAL, "ps 0x%x", bad[i]);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid), 0x1122334455667788ULL);
}

static void rcm_wire_sid_parse_rejects_non_ip_sids(struct kunit *test)
{
	static const u64 bad[] = {
		0x0000000000000001ULL,	/* port space 0 */
		0x0000000001070001ULL,	/* unknown port space 0x0107 */
		0x0000000101060001ULL,	/* bit 32 set */
		0x8000000001060001ULL,	/* bit 63 set */
		0xffffffffffffffffULL,
		0x0000000001000000ULL,	/* IB_CMA_SERVICE_ID itself */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		u16 ps = 0xdead, port = 0xbeef;

		KUNIT_EXPECT_EQ_MSG(test,
				    rcm_wire_sid_parse(cpu_to_be64(bad[i]),
						       &ps, &port),
				    -EINVAL, "sid 0x%llx", bad[i]);
		KUNIT_EXPECT_EQ(test, ps, 0xdead);
		KUNIT_EXPECT_EQ(test, port, 0xbeef);
	}
}

RCM_KUNIT_SUITE(rcm_wire_sid,
		KUNIT_CASE(rcm_wire_sid_compose_matches_annex_a11),
		KUNIT_CASE(rcm_wire_sid_is_big_endian_on_the_wire),
		KUNIT_CASE(rcm_wire_sid_ip_ranges_match_rdma_cm_h),
		KUNIT_CASE(rcm_wire_sid_parse_inverts_compose),
		KUNIT_CASE(rcm_wire_sid_compose_rejects_unknown_port_space),
		KUNIT_CASE(rcm_wire_sid_parse_rejects_non_ip_sids));

/* --- rcm_wire_limits -------------------------------------------------- */

static const struct {
	enum rcm_port_cm cm;
	enum rcm_wire_op op;
	enum ib_qp_type qpt;
	int max;
} rcm_t_limits[] = {
	{ RCM_PORT_CM_IB, RCM_WIRE_OP_CONNECT, IB_QPT_RC, 56 },
	{ RCM_PORT_CM_IB, RCM_WIRE_OP_CONNECT, IB_QPT_UC, 56 },
	{ RCM_PORT_CM_IB, RCM_WIRE_OP_ACCEPT, IB_QPT_RC, 196 },
	{ RCM_PORT_CM_IB, RCM_WIRE_OP_REJECT, IB_QPT_RC, 148 },
	{ RCM_PORT_CM_IB, RCM_WIRE_OP_CONNECT, IB_QPT_UD, 180 },
	{ RCM_PORT_CM_IB, RCM_WIRE_OP_ACCEPT, IB_QPT_UD, 136 },
	{ RCM_PORT_CM_IB, RCM_WIRE_OP_REJECT, IB_QPT_UD, 136 },
	{ RCM_PORT_CM_IW, RCM_WIRE_OP_CONNECT, IB_QPT_RC, 255 },
	{ RCM_PORT_CM_IW, RCM_WIRE_OP_ACCEPT, IB_QPT_RC, 255 },
	{ RCM_PORT_CM_IW, RCM_WIRE_OP_REJECT, IB_QPT_RC, 255 },
	{ RCM_PORT_CM_IW, RCM_WIRE_OP_CONNECT, IB_QPT_UD, -EOPNOTSUPP },
	{ RCM_PORT_CM_IW, RCM_WIRE_OP_ACCEPT, IB_QPT_UD, -EOPNOTSUPP },
	{ RCM_PORT_CM_IW, RCM_WIRE_OP_REJECT, IB_QPT_UD, -EOPNOTSUPP },
};

static void rcm_wire_limits_match_ib_cm_areas_and_mpa(struct kunit *test)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rcm_t_limits); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    rcm_wire_max_private_data(rcm_t_limits[i].cm,
							      rcm_t_limits[i].op,
							      rcm_t_limits[i].qpt),
				    rcm_t_limits[i].max, "case %zu", i);
}

static void rcm_wire_limits_header_costs_36_bytes_of_req_areas(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_CONNECT,
						  IB_QPT_RC) + RCM_WIRE_HDR_SIZE,
			(int)IB_CM_REQ_PRIVATE_DATA_SIZE);
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_CONNECT,
						  IB_QPT_UD) + RCM_WIRE_HDR_SIZE,
			(int)IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE);
}

static void rcm_wire_limits_sidr_match_uapi_and_ib_cm(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_CONNECT,
						  IB_QPT_UD),
			RCM_UD_CONNECT_PRIVATE_DATA_MAX);
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_ACCEPT,
						  IB_QPT_UD),
			RCM_UD_ACCEPT_PRIVATE_DATA_MAX);
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_REJECT,
						  IB_QPT_UD),
			RCM_UD_ACCEPT_PRIVATE_DATA_MAX);
	KUNIT_EXPECT_EQ(test, RCM_UD_ACCEPT_PRIVATE_DATA_MAX,
			(int)IB_CM_SIDR_REP_PRIVATE_DATA_SIZE);
	/* An event reports a SIDR request's and reply's area whole. */
	KUNIT_EXPECT_LE(test, RCM_UD_CONNECT_PRIVATE_DATA_MAX,
			RCM_EVENT_PRIVATE_DATA_MAX);
}

static void rcm_wire_limits_reject_unknown_arguments(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_NONE,
						  RCM_WIRE_OP_CONNECT,
						  IB_QPT_RC), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data((enum rcm_port_cm)7,
						  RCM_WIRE_OP_CONNECT,
						  IB_QPT_RC), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_NOPS, IB_QPT_RC),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  (enum rcm_wire_op)-1,
						  IB_QPT_RC), -EINVAL);
	/* XRC connects as RC does (a REQ): the REQ's limit. */
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_CONNECT,
						  IB_QPT_XRC_INI), 56);
	KUNIT_EXPECT_EQ(test,
			rcm_wire_max_private_data(RCM_PORT_CM_IB,
						  RCM_WIRE_OP_CONNECT,
						  IB_QPT_GSI), -EINVAL);
}

/*
 * rcm_wire_req_pdata_build() from rcm_t_img4's (or rcm_t_img6's) ends
 * and @ulen bytes of user data into @size bytes: the REQ's (RC) or SIDR
 * REQ's (UD) private data area, the CMA header, then the user data,
 * then zeros, and nothing written past the area; or an error and the
 * buffer as it was.
 */
static const struct rcm_t_pdata_row {
	const char *desc;
	bool v6;
	enum ib_qp_type qpt;
	size_t ulen, size;
	int ret;
} rcm_t_pdata_rows[] = {
	{ "rc_exactly_at_limit", false, IB_QPT_RC, 56, 100, 92 },
	{ "rc_one_over_is_einval", false, IB_QPT_RC, 57, 216, -EINVAL },
	{ "rc_short_data_is_zero_padded", true, IB_QPT_RC, 3, 92, 92 },
	{ "rc_without_user_data_is_header_only", false, IB_QPT_RC, 0, 92, 92 },
	{ "sidr_exactly_at_limit", false, IB_QPT_UD, 180, 216, 216 },
	{ "sidr_one_over_is_einval", false, IB_QPT_UD, 181, 216, -EINVAL },
};

RCM_KUNIT_PARAMS(rcm_t_pdata, rcm_t_pdata_rows);

static void rcm_wire_req_pdata_fills_the_area(struct kunit *test)
{
	const struct rcm_t_pdata_row *row = test->param_value;
	struct rcm_t_ends e;
	u8 *udata = NULL, *buf;
	size_t i;

	rcm_t_img_ends(&e, row->v6);
	buf = kunit_kmalloc(test, row->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xa5, row->size);
	if (row->ulen) {
		udata = kunit_kmalloc(test, row->ulen, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, udata);
		for (i = 0; i < row->ulen; i++)
			udata[i] = i + 1;
	}

	KUNIT_ASSERT_EQ(test,
			rcm_wire_req_pdata_build(buf, row->size, row->qpt,
						 &e.src.sa, &e.dst.sa,
						 udata, row->ulen),
			row->ret);
	if (row->ret < 0) {
		for (i = 0; i < row->size; i++)
			KUNIT_EXPECT_EQ_MSG(test, buf[i], 0xa5, "byte %zu", i);
		return;
	}
	rcm_t_expect_bytes(test, buf, row->v6 ? rcm_t_img6 : rcm_t_img4,
			   RCM_WIRE_HDR_SIZE);
	if (udata)
		rcm_t_expect_bytes(test, buf + RCM_WIRE_HDR_SIZE, udata,
				   row->ulen);
	for (i = RCM_WIRE_HDR_SIZE + row->ulen; i < row->ret; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], 0, "byte %zu", i);
	/* Nothing past the area is touched. */
	for (i = row->ret; i < row->size; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], 0xa5, "byte %zu", i);
}

static void rcm_wire_req_pdata_refuses_bad_buffers(struct kunit *test)
{
	struct rcm_t_ends e = {
		.src.in = rcm_t_in4(10, 0, 0, 1, 1),
		.dst.in = rcm_t_in4(10, 0, 0, 2, 2),
	};
	struct sockaddr_ib ib = { .sib_family = AF_IB };
	const struct sockaddr *src = &e.src.sa, *dst = &e.dst.sa;
	u8 buf[216];

	memset(buf, 0xa5, sizeof(buf));
	/* One byte short of the REQ area, and of the SIDR REQ area. */
	KUNIT_EXPECT_EQ(test, rcm_wire_req_pdata_build(buf, 91, IB_QPT_RC, src,
						       dst, NULL, 0),
			-ENOBUFS);
	KUNIT_EXPECT_EQ(test, rcm_wire_req_pdata_build(buf, 215, IB_QPT_UD, src,
						       dst, NULL, 0),
			-ENOBUFS);
	/* A length without data. */
	KUNIT_EXPECT_EQ(test, rcm_wire_req_pdata_build(buf, sizeof(buf),
						       IB_QPT_RC, src, dst,
						       NULL, 1),
			-EINVAL);
	/* Not a QP type ib_cm sends a REQ or SIDR REQ for. */
	KUNIT_EXPECT_EQ(test, rcm_wire_req_pdata_build(buf, sizeof(buf),
						       IB_QPT_RAW_PACKET, src,
						       dst, NULL, 0),
			-EINVAL);
	/* An AF_IB id carries no CMA header. */
	KUNIT_EXPECT_EQ(test, rcm_wire_req_pdata_build(buf, sizeof(buf),
						       IB_QPT_RC,
						       (struct sockaddr *)&ib,
						       (struct sockaddr *)&ib,
						       NULL, 0),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, buf[0], 0xa5);
}

RCM_KUNIT_SUITE(rcm_wire_limits,
		KUNIT_CASE(rcm_wire_limits_match_ib_cm_areas_and_mpa),
		KUNIT_CASE(rcm_wire_limits_header_costs_36_bytes_of_req_areas),
		KUNIT_CASE(rcm_wire_limits_sidr_match_uapi_and_ib_cm),
		KUNIT_CASE(rcm_wire_limits_reject_unknown_arguments),
		KUNIT_CASE(rcm_wire_req_pdata_refuses_bad_buffers),
		KUNIT_CASE_PARAM(rcm_wire_req_pdata_fills_the_area,
				 rcm_t_pdata_gen_params));

/* --- rcm_wire_params -------------------------------------------------- */

static void rcm_t_expect_param(struct kunit *test,
			       const struct rcm_wire_conn_param *got,
			       const struct rcm_wire_conn_param *want)
{
	KUNIT_EXPECT_EQ(test, got->responder_resources,
			want->responder_resources);
	KUNIT_EXPECT_EQ(test, got->initiator_depth, want->initiator_depth);
	KUNIT_EXPECT_EQ(test, got->retry_count, want->retry_count);
	KUNIT_EXPECT_EQ(test, got->rnr_retry_count, want->rnr_retry_count);
}

/* What an output holds before the call: each row sees every member set. */
static const struct rcm_wire_conn_param rcm_t_unset = { 99, 99, 99, 99 };

/*
 * rcm_wire_connect_param(): the consumer's values, the device's
 * max_qp_rd_atom and max_qp_init_rd_atom, and the REQ's values.
 */
static const struct rcm_t_connect_row {
	const char *desc;
	struct rcm_wire_conn_param user;
	u32 rd_atom, init_rd_atom;
	struct rcm_wire_conn_param want;
} rcm_t_connect_rows[] = {
	{ "keeps_values_within_device_limits", { 4, 2, 6, 5 }, 16, 16,
	  { 4, 2, 6, 5 } },
	/* rxe: max_qp_rd_atom 128, max_qp_init_rd_atom 128 */
	{ "clamps_depths_to_device", { 200, 100, 7, 7 }, 128, 16,
	  { 128, 16, 7, 7 } },
	{ "keeps_depths_at_device_limit", { 16, 8, 7, 7 }, 16, 8,
	  { 16, 8, 7, 7 } },
	{ "255_means_device_max", { 255, 255, 0, 0 }, 16, 8,
	  { 16, 8, 0, 0 } },
	/* A device claiming more than an 8-bit REQ field can carry. */
	{ "depths_fit_8_bits", { 1000, 300, 0, 0 }, 4096, U32_MAX,
	  { 255, 255, 0, 0 } },
	{ "depths_0_without_rdma_read", { 1000, 300, 0, 0 }, 0, 0,
	  { 0, 0, 0, 0 } },
	/* The retry counts are 3 bits; 7 RNR retries mean infinite. */
	{ "retry_counts_of_7_are_kept",
	  { 1, 1, 7, RCM_WIRE_RNR_RETRY_INFINITE }, 1, 1, { 1, 1, 7, 7 } },
	{ "retry_counts_below_7_are_kept", { 1, 1, 0, 6 }, 1, 1,
	  { 1, 1, 0, 6 } },
	/*
	 * Above 7, both are lowered to 7 as in-tree cma_connect_ib() does:
	 * libfabric's verbs provider connects with retry_count 15.
	 */
	{ "retry_count_15_becomes_7", { 1, 1, 15, 3 }, 1, 1, { 1, 1, 7, 3 } },
	{ "retry_counts_of_8_become_7", { 1, 1, 8, 8 }, 1, 1, { 1, 1, 7, 7 } },
	{ "retry_counts_at_their_max_become_7", { 1, 1, 255, U32_MAX }, 1, 1,
	  { 1, 1, 7, 7 } },
};

RCM_KUNIT_PARAMS(rcm_t_connect, rcm_t_connect_rows);

static void rcm_wire_connect_param_fits_device_and_req(struct kunit *test)
{
	const struct rcm_t_connect_row *row = test->param_value;
	struct rcm_wire_conn_param out = rcm_t_unset;

	KUNIT_ASSERT_EQ(test, rcm_wire_connect_param(&row->user, row->rd_atom,
						     row->init_rd_atom, &out),
			0);
	rcm_t_expect_param(test, &out, &row->want);
}

/*
 * A REQ from a peer that connected with responder_resources 4 and
 * initiator_depth 2, as ib_cm reports it to the passive side: swapped.
 */
static const struct rcm_wire_conn_param rcm_t_req = {
	.responder_resources = 2,	/* the peer's initiator_depth */
	.initiator_depth = 4,		/* the peer's responder_resources */
	.retry_count = 6,
	.rnr_retry_count = 5,
};

/*
 * rcm_wire_accept_param() on rcm_t_req: the consumer's values (or none),
 * the device's limits, and the REP's values. Explicit values are the
 * consumer's as given, as in-tree cma_accept_ib() sends them: neither
 * lowered nor raised to what the peer offered (2 / 4). The REP's RNR
 * retry count above 7 is lowered to 7; retry_count has no REP field:
 * the consumer's is not used.
 */
static const struct rcm_t_accept_row {
	const char *desc;
	bool no_param;
	struct rcm_wire_conn_param user;
	u32 rd_atom, init_rd_atom;
	struct rcm_wire_conn_param want;
} rcm_t_accept_rows[] = {
	{ "without_param_uses_request_values", true, {}, 16, 16,
	  { 2, 4, 6, 5 } },
	{ "without_param_lowers_to_local_limits", true, {}, 1, 3,
	  { 1, 3, 6, 5 } },
	{ "param_kept_above_peer_offer", false, { 8, 6, 3, 7 }, 8, 8,
	  { 8, 6, 6, 7 } },
	{ "param_kept_below_peer_offer", false, { 1, 0, 3, 7 }, 8, 8,
	  { 1, 0, 6, 7 } },
	{ "param_lowered_to_device", false, { 2, 4, 0, 0 }, 1, 1,
	  { 1, 1, 6, 0 } },
	/* 255 (RDMA_MAX_*) from a caller other than librdmacm. */
	{ "param_255_lowered_to_device", false, { 255, 255, 0, 0 }, 16, 8,
	  { 16, 8, 6, 0 } },
	{ "param_below_limits_is_kept", false, { 1, 0, 0, 3 }, 16, 16,
	  { 1, 0, 6, 3 } },
	{ "rnr_retry_count_15_becomes_7", false, { 1, 1, 15, 15 }, 8, 8,
	  { 1, 1, 6, 7 } },
	{ "rnr_retry_count_8_becomes_7", false, { 1, 1, U32_MAX, 8 }, 8, 8,
	  { 1, 1, 6, 7 } },
};

RCM_KUNIT_PARAMS(rcm_t_accept, rcm_t_accept_rows);

static void rcm_wire_accept_param_fits_device_and_rep(struct kunit *test)
{
	const struct rcm_t_accept_row *row = test->param_value;
	struct rcm_wire_conn_param out = rcm_t_unset;

	KUNIT_ASSERT_EQ(test,
			rcm_wire_accept_param(&rcm_t_req,
					      row->no_param ? NULL : &row->user,
					      row->rd_atom, row->init_rd_atom,
					      &out),
			0);
	rcm_t_expect_param(test, &out, &row->want);
}

/* A request no REQ can carry: rcm_t_req with one value out of range. */
static const struct rcm_t_bad_req_row {
	const char *desc;
	struct rcm_wire_conn_param req;
} rcm_t_bad_req_rows[] = {
	{ "rnr_retry_count_8", { 2, 4, 6, 8 } },
	{ "retry_count_8", { 2, 4, 8, 5 } },
	{ "initiator_depth_256", { 2, 256, 6, 5 } },
	{ "responder_resources_256", { 256, 4, 6, 5 } },
};

RCM_KUNIT_PARAMS(rcm_t_bad_req, rcm_t_bad_req_rows);

/* Such a request is a caller bug: refused, the output left alone. */
static void rcm_wire_accept_param_refuses_request_out_of_range(struct kunit *test)
{
	const struct rcm_t_bad_req_row *row = test->param_value;
	struct rcm_wire_conn_param out = rcm_t_unset;

	KUNIT_EXPECT_EQ(test, rcm_wire_accept_param(&row->req, NULL, 8, 8,
						    &out), -EINVAL);
	rcm_t_expect_param(test, &out, &rcm_t_unset);
}

/* The wait ib_cm does with these values (cm.c:cm_convert_to_ms()). */
static u32 rcm_t_cm_wait(u32 fixed_ms, u8 timeout, u8 retries)
{
	return (retries + 1) * (fixed_ms + (1U << max(timeout - 8, 0)));
}

static void rcm_wire_cm_timeout_stays_within_bound(struct kunit *test)
{
	static const u32 bounds[] = { 1, 2, 3, 7, 100, 500, 1000, 2049, 4096,
				      5000, 65536, 68000, RCM_MAX_TIMEOUT_MS };
	static const u32 fixed[] = { 0, 1, 2, 512, 2048 };
	size_t i, j;
	u8 t, r;

	for (i = 0; i < ARRAY_SIZE(bounds); i++)
		for (j = 0; j < ARRAY_SIZE(fixed); j++) {
			int ret = rcm_wire_cm_timeout(bounds[i], fixed[j], &t,
						      &r);

			KUNIT_EXPECT_LE_MSG(test, r, 15, "bound %u", bounds[i]);
			KUNIT_EXPECT_LE_MSG(test, t, 31, "bound %u", bounds[i]);
			if (bounds[i] <= fixed[j]) {
				KUNIT_EXPECT_EQ(test, ret, -ERANGE);
				continue;
			}
			KUNIT_EXPECT_EQ(test, ret, 0);
			KUNIT_EXPECT_LE_MSG(test, rcm_t_cm_wait(fixed[j], t, r),
					    bounds[i], "bound %u fixed %u",
					    bounds[i], fixed[j]);
			/* Not wastefully short: over half the bound. */
			KUNIT_EXPECT_GT_MSG(test,
					    2 * rcm_t_cm_wait(fixed[j], t, r),
					    bounds[i], "bound %u fixed %u",
					    bounds[i], fixed[j]);
		}
}

static void rcm_wire_cm_timeout_worked_examples(struct kunit *test)
{
	u8 t, r;

	/* SIDR, 500 ms: 64 ms a try, 7 tries (448 ms). */
	KUNIT_EXPECT_EQ(test, rcm_wire_cm_timeout(500, 0, &t, &r), 0);
	KUNIT_EXPECT_EQ(test, t, 14);
	KUNIT_EXPECT_EQ(test, r, 6);
	/* RoCE REQ (lifetime 18: 2 x 1024 ms a try), 5 s: 2 x 2304 ms. */
	KUNIT_EXPECT_EQ(test, rcm_wire_cm_timeout(5000, 2048, &t, &r), 0);
	KUNIT_EXPECT_EQ(test, t, 16);
	KUNIT_EXPECT_EQ(test, r, 1);
	/* Shorter than one try: the shortest exchange, and -ERANGE. */
	KUNIT_EXPECT_EQ(test, rcm_wire_cm_timeout(500, 2048, &t, &r), -ERANGE);
	KUNIT_EXPECT_EQ(test, t, 8);
	KUNIT_EXPECT_EQ(test, r, 0);
	KUNIT_EXPECT_EQ(test, rcm_wire_cm_timeout(0, 0, &t, &r), -ERANGE);
	/* 1 ms tries: at most 16 of them. */
	KUNIT_EXPECT_EQ(test, rcm_wire_cm_timeout(7, 0, &t, &r), 0);
	KUNIT_EXPECT_EQ(test, rcm_t_cm_wait(0, t, r), 7);
	KUNIT_EXPECT_EQ(test, rcm_wire_cm_timeout(100, 0, &t, &r), 0);
	KUNIT_EXPECT_EQ(test, t, 12);
	KUNIT_EXPECT_EQ(test, r, 5);
}

RCM_KUNIT_SUITE(rcm_wire_params,
		KUNIT_CASE(rcm_wire_cm_timeout_stays_within_bound),
		KUNIT_CASE(rcm_wire_cm_timeout_worked_examples),
		KUNIT_CASE_PARAM(rcm_wire_connect_param_fits_device_and_req,
				 rcm_t_connect_gen_params),
		KUNIT_CASE_PARAM(rcm_wire_accept_param_fits_device_and_rep,
				 rcm_t_accept_gen_params),
		KUNIT_CASE_PARAM(rcm_wire_accept_param_refuses_request_out_of_range,
				 rcm_t_bad_req_gen_params));

/* --- multicast MGIDs ------------------------------------------------- */

/* ff15::1:2 */
static const u8 rcm_t_mc6[16] = {
	0xff, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2,
};

/* rcm_wire_mcast_mgid() of group @g on a port of @type, over garbage. */
static void rcm_t_expect_mgid(struct kunit *test, const void *g,
			      enum ib_gid_type type, const u8 *want)
{
	union ib_gid mgid;

	memset(&mgid, 0xa5, sizeof(mgid));
	rcm_wire_mcast_mgid(g, type, &mgid);
	rcm_t_expect_bytes(test, mgid.raw, want, sizeof(mgid.raw));
}

static void rcm_wire_mgid_ipv4_on_roce_v2_is_mapped(struct kunit *test)
{
	struct sockaddr_in g = rcm_t_in4(239, 1, 2, 3, 0);
	static const u8 want[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3,
	};

	rcm_t_expect_mgid(test, &g, IB_GID_TYPE_ROCE_UDP_ENCAP, want);
}

static void rcm_wire_mgid_ipv4_on_roce_v1_is_ff0e(struct kunit *test)
{
	struct sockaddr_in g = rcm_t_in4(224, 0, 0, 251, 5353);
	static const u8 want[16] = {
		0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 224, 0, 0, 251,
	};

	rcm_t_expect_mgid(test, &g, IB_GID_TYPE_ROCE, want);
	/* InfiniBand's GID type takes the same form. */
	rcm_t_expect_mgid(test, &g, IB_GID_TYPE_IB, want);
}

static void rcm_wire_mgid_ipv6_is_the_address(struct kunit *test)
{
	struct sockaddr_in6 g = rcm_t_in6(rcm_t_mc6, 7);

	rcm_t_expect_mgid(test, &g, IB_GID_TYPE_ROCE, rcm_t_mc6);
	rcm_t_expect_mgid(test, &g, IB_GID_TYPE_ROCE_UDP_ENCAP, rcm_t_mc6);
}

RCM_KUNIT_SUITE(rcm_wire_mcast,
		KUNIT_CASE(rcm_wire_mgid_ipv4_on_roce_v2_is_mapped),
		KUNIT_CASE(rcm_wire_mgid_ipv4_on_roce_v1_is_ff0e),
		KUNIT_CASE(rcm_wire_mgid_ipv6_is_the_address));
