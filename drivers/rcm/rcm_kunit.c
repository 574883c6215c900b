// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: KUnit suites for the parts of rcm.ko that need no RDMA device.
 *
 * Built into rcm.ko when the kernel has KUnit; the suites run when the
 * module loads and report KTAP on the kernel log.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>

#include "rcm_priv.h"

/* --- rcm_device.c: which CM serves a port --------------------------- */

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

static struct kunit_case rcm_device_cases[] = {
	KUNIT_CASE(rcm_port_cm_roce_is_ib_cm),
	KUNIT_CASE(rcm_port_cm_iwarp_is_iw_cm),
	KUNIT_CASE(rcm_port_cm_raw_packet_has_none),
	{}
};

static struct kunit_suite rcm_device_suite = {
	.name = "rcm_device",
	.test_cases = rcm_device_cases,
};

/* --- rcm_file.c: ioctl table and the uapi's size/flags rules -------- */

static void rcm_ioctl_lookup_finds_query(struct kunit *test)
{
	const struct rcm_ioctl_op *op = rcm_ioctl_lookup(RCM_IOCTL_QUERY);

	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_EXPECT_TRUE(test, op->execute == rcm_cmd_query);
	KUNIT_EXPECT_EQ(test, op->size, (u32)sizeof(struct rcm_query));
}

static void rcm_ioctl_lookup_rejects_foreign_numbers(struct kunit *test)
{
	/* Another driver's magic with an rcm command number. */
	KUNIT_EXPECT_NULL(test, rcm_ioctl_lookup(_IO(0x1b, RCM_CMD_QUERY)));
	/* Below the base and just past the end of the table. */
	KUNIT_EXPECT_NULL(test,
			  rcm_ioctl_lookup(_IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE - 1)));
	KUNIT_EXPECT_NULL(test,
			  rcm_ioctl_lookup(_IO(RCM_IOCTL_MAGIC,
					       RCM_CMD_BASE + rcm_ioctl_num_ops)));
	KUNIT_EXPECT_NULL(test, rcm_ioctl_lookup(_IO(RCM_IOCTL_MAGIC, 0xff)));
	/* The right number with a size/direction encoding is not ours. */
	KUNIT_EXPECT_NULL(test, rcm_ioctl_lookup(_IOWR(RCM_IOCTL_MAGIC,
						       RCM_CMD_QUERY,
						       struct rcm_query)));
}

static void rcm_ioctl_table_is_consistent(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < rcm_ioctl_num_ops; i++) {
		const struct rcm_ioctl_op *op = &rcm_ioctl_ops[i];

		if (!op->execute)
			continue;
		/* Every struct carries size and flags, */
		KUNIT_EXPECT_GE_MSG(test, op->min_size, 8U, "cmd %u", i);
		KUNIT_EXPECT_LE_MSG(test, op->min_size, op->size, "cmd %u", i);
		/* has one layout for 32- and 64-bit callers, */
		KUNIT_EXPECT_EQ_MSG(test, op->size % 8, 0U, "cmd %u", i);
		/* and fits the size cap. */
		KUNIT_EXPECT_LE_MSG(test, op->size, (u32)RCM_MAX_CMD_SIZE,
				    "cmd %u", i);
		/* Outputs lie past the header and inside the struct. */
		if (op->out_end) {
			KUNIT_EXPECT_GE_MSG(test, op->out_offset, 8U, "cmd %u",
					    i);
			KUNIT_EXPECT_LT_MSG(test, op->out_offset, op->out_end,
					    "cmd %u", i);
			KUNIT_EXPECT_LE_MSG(test, op->out_end, op->size,
					    "cmd %u", i);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, op->out_offset, 0U, "cmd %u",
					    i);
		}
	}
}

/* Which commands write back, and exactly which bytes. */
static void rcm_ioctl_outputs_are_the_out_members(struct kunit *test)
{
	static const unsigned int input_only[] = {
		RCM_IOCTL_RESOLVE_ADDR, RCM_IOCTL_RESOLVE_ROUTE,
		RCM_IOCTL_SET_OPTION, RCM_IOCTL_LISTEN, RCM_IOCTL_REJECT,
		RCM_IOCTL_ACCEPT, RCM_IOCTL_DISCONNECT, RCM_IOCTL_CONNECT,
		RCM_IOCTL_ESTABLISH, RCM_IOCTL_NOTIFY, RCM_IOCTL_JOIN_MCAST,
	};
	const struct rcm_ioctl_op *op;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(input_only); i++) {
		op = rcm_ioctl_lookup(input_only[i]);
		KUNIT_ASSERT_NOT_NULL(test, op);
		KUNIT_EXPECT_EQ_MSG(test, op->out_end, 0U, "ioctl %#x",
				    input_only[i]);
	}

	/* LEAVE_MCAST: the count, not the group address after it. */
	op = rcm_ioctl_lookup(RCM_IOCTL_LEAVE_MCAST);
	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_EXPECT_EQ(test, op->out_offset,
			(u32)offsetof(struct rcm_leave_mcast,
				      out_events_reported));
	KUNIT_EXPECT_EQ(test, op->out_end,
			(u32)offsetof(struct rcm_leave_mcast, addr));

	/* INIT_QP_ATTR: the attributes, not the reserved word after them. */
	op = rcm_ioctl_lookup(RCM_IOCTL_INIT_QP_ATTR);
	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_EXPECT_EQ(test, op->out_offset,
			(u32)offsetof(struct rcm_init_qp_attr, out_attr));
	KUNIT_EXPECT_EQ(test, op->out_end,
			(u32)offsetof(struct rcm_init_qp_attr, reserved));

	/* QUERY_ID: everything after the id. */
	op = rcm_ioctl_lookup(RCM_IOCTL_QUERY_ID);
	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_EXPECT_EQ(test, op->out_offset,
			(u32)offsetof(struct rcm_query_id, out_port_num));
	KUNIT_EXPECT_EQ(test, op->out_end, (u32)sizeof(struct rcm_query_id));
}

static void rcm_ioctl_header_size_window(struct kunit *test)
{
	const struct rcm_ioctl_op *op = rcm_ioctl_lookup(RCM_IOCTL_QUERY);

	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_EXPECT_EQ(test, rcm_ioctl_check_header(op, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_ioctl_check_header(op, op->min_size - 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_ioctl_check_header(op, op->min_size, 0), 0);
	KUNIT_EXPECT_EQ(test, rcm_ioctl_check_header(op, op->size + 8, 0), 0);
	KUNIT_EXPECT_EQ(test, rcm_ioctl_check_header(op, RCM_MAX_CMD_SIZE, 0),
			0);
	KUNIT_EXPECT_EQ(test,
			rcm_ioctl_check_header(op, RCM_MAX_CMD_SIZE + 1, 0),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, rcm_ioctl_check_header(op, U32_MAX, 0), -E2BIG);
}

/* No command defines a flag yet: every bit of every command fails. */
static void rcm_ioctl_header_unknown_flags(struct kunit *test)
{
	unsigned int i;
	u32 bit;

	for (i = 0; i < rcm_ioctl_num_ops; i++) {
		const struct rcm_ioctl_op *op = &rcm_ioctl_ops[i];

		if (!op->execute)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, rcm_ioctl_check_header(op, op->size, 0),
				    0, "cmd %u", i);
		for (bit = 0; bit < 32; bit++)
			KUNIT_EXPECT_EQ_MSG(test,
					    rcm_ioctl_check_header(op, op->size,
								   BIT(bit)),
					    -EOPNOTSUPP, "cmd %u flag bit %u",
					    i, bit);
	}
}

static struct kunit_case rcm_ioctl_cases[] = {
	KUNIT_CASE(rcm_ioctl_lookup_finds_query),
	KUNIT_CASE(rcm_ioctl_lookup_rejects_foreign_numbers),
	KUNIT_CASE(rcm_ioctl_table_is_consistent),
	KUNIT_CASE(rcm_ioctl_outputs_are_the_out_members),
	KUNIT_CASE(rcm_ioctl_header_size_window),
	KUNIT_CASE(rcm_ioctl_header_unknown_flags),
	{}
};

static struct kunit_suite rcm_ioctl_suite = {
	.name = "rcm_ioctl",
	.test_cases = rcm_ioctl_cases,
};

/* --- rcm_id.c: port spaces and QP types ------------------------------ */

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

/* --- rcm_ps.c: port sharing rules ---------------------------------- */

static void rcm_bind4(struct rcm_binding *b, __be32 ip, u16 port,
		      bool reuse, bool afonly)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&b->addr;

	memset(b, 0, sizeof(*b));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = ip;
	in->sin_port = htons(port);
	b->reuseaddr = reuse;
	b->afonly = afonly;
}

static void rcm_bind6_any(struct rcm_binding *b, u16 port, bool afonly)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&b->addr;

	memset(b, 0, sizeof(*b));
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	b->afonly = afonly;
}

#define IP4(a, b, c, d) htonl((a) << 24 | (b) << 16 | (c) << 8 | (d))

static void rcm_ps_same_address_is_in_use(struct kunit *test)
{
	struct rcm_binding a, b;

	rcm_bind4(&a, IP4(198, 18, 1, 1), 7471, false, false);
	rcm_bind4(&b, IP4(198, 18, 1, 1), 7471, false, false);
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&a, &b), -EADDRINUSE);
}

static void rcm_ps_different_addresses_share(struct kunit *test)
{
	struct rcm_binding a, b;

	rcm_bind4(&a, IP4(198, 18, 1, 1), 7471, false, false);
	rcm_bind4(&b, IP4(198, 18, 2, 1), 7471, false, false);
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&a, &b), 0);
}

static void rcm_ps_wildcard_conflicts_with_anything(struct kunit *test)
{
	struct rcm_binding any, one;

	rcm_bind4(&any, htonl(INADDR_ANY), 7471, false, false);
	rcm_bind4(&one, IP4(198, 18, 1, 1), 7471, false, false);
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&any, &one), -EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&one, &any), -EADDRNOTAVAIL);
}

static void rcm_ps_reuseaddr_needs_both_sides(struct kunit *test)
{
	struct rcm_binding a, b;

	rcm_bind4(&a, IP4(198, 18, 1, 1), 7471, true, false);
	rcm_bind4(&b, IP4(198, 18, 1, 1), 7471, true, false);
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&a, &b), 0);
	b.reuseaddr = false;
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&a, &b), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&b, &a), -EADDRINUSE);
}

static void rcm_ps_afonly_separates_families(struct kunit *test)
{
	struct rcm_binding v4, v6;

	rcm_bind4(&v4, htonl(INADDR_ANY), 7471, false, true);
	rcm_bind6_any(&v6, 7471, true);
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&v6, &v4), 0);
	/* One side dual-stack: the wildcards collide. */
	v6.afonly = false;
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&v6, &v4), -EADDRNOTAVAIL);
}

static bool rcm_listen_match(const struct rcm_binding *l,
			     const struct rcm_binding *dialled)
{
	return rcm_ps_listen_match(l, (const struct sockaddr *)&dialled->addr);
}

static void rcm_ps_listener_takes_its_address(struct kunit *test)
{
	struct rcm_binding l, d;

	rcm_bind4(&l, IP4(198, 18, 1, 1), 7471, false, false);
	rcm_bind4(&d, IP4(198, 18, 1, 1), 7471, false, false);
	KUNIT_EXPECT_TRUE(test, rcm_listen_match(&l, &d));
	rcm_bind4(&d, IP4(198, 18, 2, 1), 7471, false, false);
	KUNIT_EXPECT_FALSE(test, rcm_listen_match(&l, &d));
}

static void rcm_ps_wildcard_listener_takes_its_family(struct kunit *test)
{
	struct rcm_binding l, d;

	rcm_bind4(&l, htonl(INADDR_ANY), 7471, false, false);
	rcm_bind4(&d, IP4(198, 18, 2, 1), 7471, false, false);
	KUNIT_EXPECT_TRUE(test, rcm_listen_match(&l, &d));
	/* An IPv4 wildcard never takes IPv6. */
	rcm_bind6_any(&d, 7471, false);
	KUNIT_EXPECT_FALSE(test, rcm_listen_match(&l, &d));
}

/* Is an ephemeral port shareable between (@as, @ad) and (@bs, @bd)? */
static bool rcm_unique(const struct rcm_binding *as,
		       const struct rcm_binding *ad,
		       const struct rcm_binding *bs,
		       const struct rcm_binding *bd)
{
	return rcm_ps_unique((const struct sockaddr *)&as->addr,
			       (const struct sockaddr *)&ad->addr,
			       (const struct sockaddr *)&bs->addr,
			       (const struct sockaddr *)&bd->addr);
}

static void rcm_ps_ephemeral_shared_by_destination(struct kunit *test)
{
	struct rcm_binding src, d1, d2, d1p;

	rcm_bind4(&src, htonl(INADDR_ANY), 40000, false, false);
	rcm_bind4(&d1, IP4(198, 18, 1, 1), 7471, false, false);
	rcm_bind4(&d2, IP4(198, 18, 1, 2), 7471, false, false);
	rcm_bind4(&d1p, IP4(198, 18, 1, 1), 7472, false, false);
	/* Another destination address, or port: a distinct pair. */
	KUNIT_EXPECT_TRUE(test, rcm_unique(&src, &d1, &src, &d2));
	KUNIT_EXPECT_TRUE(test, rcm_unique(&src, &d1, &src, &d1p));
	/* The same destination from the wildcard: the same pair. */
	KUNIT_EXPECT_FALSE(test, rcm_unique(&src, &d1, &src, &d1));
}

static void rcm_ps_ephemeral_source_tells_apart(struct kunit *test)
{
	struct rcm_binding s1, s2, d;

	rcm_bind4(&s1, IP4(198, 18, 0, 1), 40000, false, false);
	rcm_bind4(&s2, IP4(198, 18, 0, 2), 40000, false, false);
	rcm_bind4(&d, IP4(198, 18, 1, 1), 7471, false, false);
	KUNIT_EXPECT_TRUE(test, rcm_unique(&s1, &d, &s2, &d));
	KUNIT_EXPECT_FALSE(test, rcm_unique(&s1, &d, &s1, &d));
}

static void rcm_ps_ephemeral_no_destination_is_whole(struct kunit *test)
{
	struct rcm_binding src, d, none;

	rcm_bind4(&src, htonl(INADDR_ANY), 40000, false, false);
	rcm_bind4(&d, IP4(198, 18, 1, 1), 7471, false, false);
	memset(&none, 0, sizeof(none));
	/* An id bound with port 0 (or a listener) shares with nobody. */
	KUNIT_EXPECT_FALSE(test, rcm_unique(&src, &d, &src, &none));
	KUNIT_EXPECT_FALSE(test, rcm_unique(&src, &none, &src, &d));
	KUNIT_EXPECT_FALSE(test, rcm_unique(&src, &none, &src, &none));
}

static void rcm_ps_dual_stack_listener_takes_ipv4(struct kunit *test)
{
	struct rcm_binding l, d;

	rcm_bind6_any(&l, 7471, false);
	rcm_bind4(&d, IP4(198, 18, 1, 1), 7471, false, false);
	KUNIT_EXPECT_TRUE(test, rcm_listen_match(&l, &d));
	l.afonly = true;
	KUNIT_EXPECT_FALSE(test, rcm_listen_match(&l, &d));
}

static struct kunit_case rcm_ps_cases[] = {
	KUNIT_CASE(rcm_ps_listener_takes_its_address),
	KUNIT_CASE(rcm_ps_wildcard_listener_takes_its_family),
	KUNIT_CASE(rcm_ps_dual_stack_listener_takes_ipv4),
	KUNIT_CASE(rcm_ps_same_address_is_in_use),
	KUNIT_CASE(rcm_ps_different_addresses_share),
	KUNIT_CASE(rcm_ps_wildcard_conflicts_with_anything),
	KUNIT_CASE(rcm_ps_reuseaddr_needs_both_sides),
	KUNIT_CASE(rcm_ps_afonly_separates_families),
	KUNIT_CASE(rcm_ps_ephemeral_shared_by_destination),
	KUNIT_CASE(rcm_ps_ephemeral_source_tells_apart),
	KUNIT_CASE(rcm_ps_ephemeral_no_destination_is_whole),
	{}
};

static struct kunit_suite rcm_ps_suite = {
	.name = "rcm_ps",
	.test_cases = rcm_ps_cases,
};

/* --- rcm_addr.c: addresses from userspace ---------------------------- */

static void rcm_addr_from_user_takes_v4_and_v6(struct kunit *test)
{
	struct __kernel_sockaddr_storage kss = {};
	struct sockaddr_storage out;

	kss.ss_family = AF_INET;
	KUNIT_EXPECT_EQ(test, rcm_addr_from_user(&kss, &out), 0);
	KUNIT_EXPECT_EQ(test, out.ss_family, (sa_family_t)AF_INET);
	kss.ss_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, rcm_addr_from_user(&kss, &out), 0);
	KUNIT_EXPECT_EQ(test, out.ss_family, (sa_family_t)AF_INET6);
}

static void rcm_addr_from_user_refuses_other_families(struct kunit *test)
{
	struct __kernel_sockaddr_storage kss = {};
	struct sockaddr_storage out;

	kss.ss_family = AF_UNSPEC;
	KUNIT_EXPECT_EQ(test, rcm_addr_from_user(&kss, &out), -EAFNOSUPPORT);
	kss.ss_family = AF_IB;
	KUNIT_EXPECT_EQ(test, rcm_addr_from_user(&kss, &out), -EAFNOSUPPORT);
}

static void rcm_addr_from_user_wants_a_zero_tail(struct kunit *test)
{
	struct __kernel_sockaddr_storage kss = {};
	struct sockaddr_storage out;
	u8 *raw = (u8 *)&kss;

	kss.ss_family = AF_INET;
	raw[sizeof(struct sockaddr_in)] = 1;
	KUNIT_EXPECT_EQ(test, rcm_addr_from_user(&kss, &out), -EINVAL);
	/* The last byte of a sockaddr_in6 is still its own. */
	memset(&kss, 0, sizeof(kss));
	kss.ss_family = AF_INET6;
	raw[sizeof(struct sockaddr_in6) - 1] = 1;
	KUNIT_EXPECT_EQ(test, rcm_addr_from_user(&kss, &out), 0);
	raw[sizeof(kss) - 1] = 1;
	KUNIT_EXPECT_EQ(test, rcm_addr_from_user(&kss, &out), -EINVAL);
}

static struct kunit_case rcm_addr_cases[] = {
	KUNIT_CASE(rcm_addr_from_user_takes_v4_and_v6),
	KUNIT_CASE(rcm_addr_from_user_refuses_other_families),
	KUNIT_CASE(rcm_addr_from_user_wants_a_zero_tail),
	{}
};

static struct kunit_suite rcm_addr_suite = {
	.name = "rcm_addr",
	.test_cases = rcm_addr_cases,
};

/* --- rcm_route.c: RoCE v2 flow label -------------------------------- */

static void rcm_route_flow_label_hashes_the_ports(struct kunit *test)
{
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(40000) };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(7471) };

	KUNIT_EXPECT_EQ(test,
			rcm_route_flow_label((struct sockaddr *)&src,
					     (struct sockaddr *)&dst),
			(40000U * 31 + 7471) & 0xfffff);
}

static void rcm_route_flow_label_fits_twenty_bits(struct kunit *test)
{
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(65535) };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(65535) };

	KUNIT_EXPECT_EQ(test,
			rcm_route_flow_label((struct sockaddr *)&src,
					     (struct sockaddr *)&dst),
			(65535U * 31 + 65535) & 0xfffff);
}

static void rcm_route_flow_label_keeps_an_ipv6_label(struct kunit *test)
{
	struct sockaddr_in6 src = { .sin6_family = AF_INET6,
				    .sin6_port = htons(40000),
				    .sin6_flowinfo = htonl(0x12345) };
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6,
				    .sin6_port = htons(7471) };

	KUNIT_EXPECT_EQ(test,
			rcm_route_flow_label((struct sockaddr *)&src,
					     (struct sockaddr *)&dst),
			0x12345U);
	/* Traffic-class bits of sin6_flowinfo are not part of the label. */
	src.sin6_flowinfo = htonl(0xff00000);
	KUNIT_EXPECT_EQ(test,
			rcm_route_flow_label((struct sockaddr *)&src,
					     (struct sockaddr *)&dst),
			(40000U * 31 + 7471) & 0xfffff);
}

static struct kunit_case rcm_route_cases[] = {
	KUNIT_CASE(rcm_route_flow_label_hashes_the_ports),
	KUNIT_CASE(rcm_route_flow_label_fits_twenty_bits),
	KUNIT_CASE(rcm_route_flow_label_keeps_an_ipv6_label),
	{}
};

static struct kunit_suite rcm_route_suite = {
	.name = "rcm_route",
	.test_cases = rcm_route_cases,
};

/* --- rcm_event.c: the queue ------------------------------------------ */

struct rcm_event_fixture {
	struct rcm_file file, file2;
	struct rcm_id a, b;
};

static void rcm_event_test_file(struct rcm_file *file)
{
	spin_lock_init(&file->event_lock);
	INIT_LIST_HEAD(&file->events);
	mutex_init(&file->read_mutex);
	init_waitqueue_head(&file->poll_wait);
}

static int rcm_event_test_init(struct kunit *test)
{
	struct rcm_event_fixture *f = kunit_kzalloc(test, sizeof(*f),
						    GFP_KERNEL);

	/* The suites run before the module's init: the cache, once. */
	if (!f || rcm_event_init())
		return -ENOMEM;
	rcm_event_test_file(&f->file);
	rcm_event_test_file(&f->file2);
	mutex_init(&f->a.lock);
	mutex_init(&f->b.lock);
	f->a.file = &f->file;
	f->a.handle = 1;
	f->a.context = 0xa;
	f->b.file = &f->file;
	f->b.handle = 2;
	f->b.context = 0xb;
	test->priv = f;
	return 0;
}

static void rcm_event_test_exit(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;

	/* Whatever a case left queued belongs to a or b. */
	rcm_event_purge(&f->file, &f->a);
	rcm_event_purge(&f->file, &f->b);
	rcm_event_purge(&f->file2, &f->a);
}

static void rcm_event_queue_one(struct kunit *test, struct rcm_id *id, u32 type)
{
	struct rcm_uevent *ev = rcm_event_alloc(id, type, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ev);
	mutex_lock(&id->lock);
	rcm_event_queue(id->file, ev);
	mutex_unlock(&id->lock);
}

static unsigned int rcm_event_count(struct rcm_file *file)
{
	struct rcm_uevent *ev;
	unsigned int n = 0;

	list_for_each_entry(ev, &file->events, list)
		n++;
	return n;
}

static void rcm_event_takes_handle_and_context_when_queued(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;

	ev = rcm_event_alloc(&f->a, RCM_EVENT_DEVICE_REMOVAL, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	/* Allocated early; the id changes before it is queued. */
	f->a.handle = 7;
	f->a.context = 0x77;
	mutex_lock(&f->a.lock);
	rcm_event_queue(&f->file, ev);
	mutex_unlock(&f->a.lock);
	KUNIT_EXPECT_EQ(test, ev->ev.id, 7U);
	KUNIT_EXPECT_EQ(test, ev->ev.context, 0x77ULL);
}

static void rcm_event_connect_request_keeps_listener_context(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;

	ev = rcm_event_alloc(&f->b, RCM_EVENT_CONNECT_REQUEST, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->ev.context = 0xa;		/* the listener's */
	ev->ev.listen_id = f->a.handle;
	ev->listener = &f->a;
	mutex_lock(&f->b.lock);
	rcm_event_queue(&f->file, ev);
	mutex_unlock(&f->b.lock);
	KUNIT_EXPECT_EQ(test, ev->ev.id, f->b.handle);
	KUNIT_EXPECT_EQ(test, ev->ev.context, 0xaULL);
}

static void rcm_event_purge_takes_only_its_id(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;
	u32 want[] = { RCM_EVENT_ADDR_RESOLVED, RCM_EVENT_ESTABLISHED };
	unsigned int i = 0;

	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_RESOLVED);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_ROUTE_RESOLVED);
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ESTABLISHED);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 4U);

	rcm_event_purge(&f->file, &f->b);
	KUNIT_ASSERT_EQ(test, rcm_event_count(&f->file), 2U);
	/* What is left is a's, in the order it happened. */
	list_for_each_entry(ev, &f->file.events, list) {
		KUNIT_EXPECT_PTR_EQ(test, ev->id, &f->a);
		KUNIT_EXPECT_EQ(test, ev->ev.event, want[i++]);
	}
}

static void rcm_event_move_takes_only_its_id_in_order(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;
	u32 want[] = { RCM_EVENT_ROUTE_RESOLVED, RCM_EVENT_ADDR_RESOLVED,
		       RCM_EVENT_ESTABLISHED };
	unsigned int i = 0;

	f->b.file = &f->file2;
	rcm_event_queue_one(test, &f->b, RCM_EVENT_ROUTE_RESOLVED);
	f->b.file = &f->file;
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_RESOLVED);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_DISCONNECTED);
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ESTABLISHED);

	rcm_event_readers_lock(&f->file, &f->file2);
	mutex_lock(&f->a.lock);
	KUNIT_EXPECT_EQ(test, rcm_event_can_move(&f->file, &f->a), 0);
	rcm_event_move(&f->file, &f->file2, &f->a, 9);
	mutex_unlock(&f->a.lock);
	rcm_event_readers_unlock(&f->file, &f->file2);

	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 1U);
	KUNIT_ASSERT_EQ(test, rcm_event_count(&f->file2), 3U);
	/* Behind what was there, in their order, with the new handle. */
	list_for_each_entry(ev, &f->file2.events, list) {
		KUNIT_EXPECT_EQ(test, ev->ev.event, want[i]);
		if (i++)
			KUNIT_EXPECT_EQ(test, ev->ev.id, 9U);
	}
	rcm_event_purge(&f->file2, &f->b);
}

static void rcm_event_unread_request_pins_a_listener(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;

	/* b is a's request: its CONNECT_REQUEST names a as listener. */
	ev = rcm_event_alloc(&f->b, RCM_EVENT_CONNECT_REQUEST, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->ev.listen_id = f->a.handle;
	ev->listener = &f->a;
	mutex_lock(&f->b.lock);
	rcm_event_queue(&f->file, ev);
	mutex_unlock(&f->b.lock);

	rcm_event_readers_lock(&f->file, &f->file2);
	mutex_lock(&f->a.lock);
	KUNIT_EXPECT_EQ(test, rcm_event_can_move(&f->file, &f->a), -EBUSY);
	mutex_unlock(&f->a.lock);
	mutex_lock(&f->b.lock);
	KUNIT_EXPECT_EQ(test, rcm_event_can_move(&f->file, &f->b), -EBUSY);
	mutex_unlock(&f->b.lock);
	rcm_event_readers_unlock(&f->file, &f->file2);
}

static struct rcm_uevent *rcm_event_queue_group(struct kunit *test,
						struct rcm_id *id,
						struct rcm_mcast *mc)
{
	struct rcm_uevent *ev;

	ev = rcm_event_alloc(id, RCM_EVENT_MULTICAST_JOIN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->mc = mc;
	mutex_lock(&id->lock);
	rcm_event_queue(id->file, ev);
	mutex_unlock(&id->lock);
	return ev;
}

static void rcm_event_group_event_takes_group_context(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_mcast mc = { .id = &f->a, .context = 0x6c };
	struct rcm_uevent *ev = rcm_event_queue_group(test, &f->a, &mc);

	KUNIT_EXPECT_EQ(test, ev->ev.id, f->a.handle);
	KUNIT_EXPECT_EQ(test, ev->ev.context, 0x6cULL);
}

static void rcm_event_purge_mcast_takes_only_its_group(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_mcast mc1 = { .id = &f->a, .context = 1 };
	struct rcm_mcast mc2 = { .id = &f->a, .context = 2 };
	struct rcm_uevent *ev;
	u64 want[] = { 0xa, 2, 0xb };
	unsigned int i = 0;

	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_RESOLVED);
	rcm_event_queue_group(test, &f->a, &mc1);
	rcm_event_queue_group(test, &f->a, &mc2);
	rcm_event_queue_group(test, &f->a, &mc1);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 5U);

	rcm_event_purge_mcast(&f->file, &mc1);
	KUNIT_ASSERT_EQ(test, rcm_event_count(&f->file), 3U);
	/* The id's own event, the other group's and b's stay, in order. */
	list_for_each_entry(ev, &f->file.events, list) {
		KUNIT_EXPECT_PTR_NE(test, ev->mc, &mc1);
		KUNIT_EXPECT_EQ(test, ev->ev.context, want[i]);
		i++;
	}
	/* The id's purge (its destroy) takes the groups' events too. */
	rcm_event_purge(&f->file, &f->a);
	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 1U);
}

static struct kunit_case rcm_event_cases[] = {
	KUNIT_CASE(rcm_event_group_event_takes_group_context),
	KUNIT_CASE(rcm_event_purge_mcast_takes_only_its_group),
	KUNIT_CASE(rcm_event_takes_handle_and_context_when_queued),
	KUNIT_CASE(rcm_event_connect_request_keeps_listener_context),
	KUNIT_CASE(rcm_event_purge_takes_only_its_id),
	KUNIT_CASE(rcm_event_move_takes_only_its_id_in_order),
	KUNIT_CASE(rcm_event_unread_request_pins_a_listener),
	{}
};

/* --- rcm_qp.c: QP attributes for userspace --------------------------- */

static void rcm_qp_attr_to_user_copies_a_roce_rtr(struct kunit *test)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTR, .path_mtu = IB_MTU_1024,
		.rq_psn = 0x123456, .dest_qp_num = 0xabcdef,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 12,
	};
	int mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		   IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	union ib_gid dgid = { .raw = { [10] = 0xff, [11] = 0xff, [12] = 198,
				       [13] = 18, [14] = 1, [15] = 1 } };
	struct rcm_qp_attr out = {};

	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_sl(&attr.ah_attr, 3);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_static_rate(&attr.ah_attr, 2);
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0x12345, 5, 64, 0x20);
	rcm_qp_attr_to_user(&attr, mask, &out);

	KUNIT_EXPECT_EQ(test, out.qp_attr_mask, (u32)mask);
	KUNIT_EXPECT_EQ(test, out.qp_state, (u32)RCM_QPS_RTR);
	KUNIT_EXPECT_EQ(test, out.path_mtu, (u32)IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, out.rq_psn, 0x123456U);
	KUNIT_EXPECT_EQ(test, out.dest_qp_num, 0xabcdefU);
	KUNIT_EXPECT_EQ(test, out.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, out.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, out.ah_attr.is_global, 1);
	KUNIT_EXPECT_EQ(test, out.ah_attr.sl, 3);
	KUNIT_EXPECT_EQ(test, out.ah_attr.port_num, 1);
	KUNIT_EXPECT_EQ(test, out.ah_attr.static_rate, 2);
	KUNIT_EXPECT_EQ(test, out.ah_attr.flow_label, 0x12345U);
	KUNIT_EXPECT_EQ(test, out.ah_attr.sgid_index, 5);
	KUNIT_EXPECT_EQ(test, out.ah_attr.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, out.ah_attr.traffic_class, 0x20);
	KUNIT_EXPECT_EQ(test, out.ah_attr.dlid, 0);
	KUNIT_EXPECT_EQ(test, memcmp(out.ah_attr.dgid, dgid.raw, 16), 0);
}

static void rcm_qp_attr_to_user_leaves_the_av_out(struct kunit *test)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS, .sq_psn = 7,
				   .timeout = 14, .retry_cnt = 7,
				   .rnr_retry = 7, .max_rd_atomic = 1 };
	struct rcm_qp_attr out = {};

	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	attr.ah_attr.sl = 5;	/* not valid without IB_QP_AV */
	rcm_qp_attr_to_user(&attr, IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC, &out);
	KUNIT_EXPECT_EQ(test, out.qp_state, (u32)RCM_QPS_RTS);
	KUNIT_EXPECT_EQ(test, out.sq_psn, 7U);
	KUNIT_EXPECT_EQ(test, out.timeout, 14);
	KUNIT_EXPECT_EQ(test, out.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, out.rnr_retry, 7);
	KUNIT_EXPECT_EQ(test, out.max_rd_atomic, 1);
	KUNIT_EXPECT_EQ(test, out.ah_attr.sl, 0);
	KUNIT_EXPECT_EQ(test, out.ah_attr.is_global, 0);
}

static struct kunit_case rcm_qp_cases[] = {
	KUNIT_CASE(rcm_qp_attr_to_user_copies_a_roce_rtr),
	KUNIT_CASE(rcm_qp_attr_to_user_leaves_the_av_out),
	{}
};

static struct kunit_suite rcm_qp_suite = {
	.name = "rcm_qp",
	.test_cases = rcm_qp_cases,
};

static struct kunit_suite rcm_event_suite = {
	.name = "rcm_event",
	.init = rcm_event_test_init,
	.exit = rcm_event_test_exit,
	.test_cases = rcm_event_cases,
};

kunit_test_suites(&rcm_device_suite, &rcm_ioctl_suite, &rcm_id_suite,
		  &rcm_ps_suite, &rcm_addr_suite, &rcm_route_suite,
		  &rcm_event_suite, &rcm_qp_suite);
