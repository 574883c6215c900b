// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_ps.c: port sharing rules, AF_IB service IDs.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */
#include <linux/in.h>
#include <linux/in6.h>

#include "rcm_kunit.h"
#include "rcm_priv.h"

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

/* As in-tree cma_any_addr(): a loopback address is a wildcard. */
static void rcm_ps_loopback_is_a_wildcard(struct kunit *test)
{
	struct rcm_binding lo, one;

	rcm_bind4(&lo, IP4(127, 0, 0, 1), 7471, false, false);
	rcm_bind4(&one, IP4(198, 18, 1, 1), 7471, false, false);
	KUNIT_EXPECT_TRUE(test, rcm_addr_is_any((struct sockaddr *)&lo.addr));
	KUNIT_EXPECT_EQ(test, rcm_ps_conflict(&lo, &one), -EADDRNOTAVAIL);
	KUNIT_EXPECT_TRUE(test, rcm_ps_listen_match(&lo,
						    (struct sockaddr *)&one.addr));
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

/*
 * rcm_ps_ib_select() of an id's port space and an AF_IB service ID and
 * mask, as cma.c:cma_select_ib_ps(): the range it lands in (0: refused)
 * and the mask it leaves.
 */
static const struct rcm_t_ib_ps_row {
	const char *desc;
	u16 ps;
	u64 sid, mask;
	u64 want_sid, want_mask;
} rcm_t_ib_ps_rows[] = {
	{ "tcp_zero_mask_takes_its_range", RCM_PS_TCP, 0x1234, 0,
	  0x01061234, RCM_IB_IP_PS_MASK },
	{ "ib_zero_mask_takes_ib_range", RCM_PS_IB, 0, 0,
	  0x013f0000, RCM_IB_IP_PS_MASK },
	{ "ib_may_take_udp_range", RCM_PS_IB, 0x01110007, ~0ULL,
	  0x01110007, ~0ULL },
	{ "tcp_refuses_ib_range", RCM_PS_TCP, 0x013f0000, RCM_IB_IP_PS_MASK,
	  0, 0 },
	{ "udp_refuses_tcp_range", RCM_PS_UDP, 0x01060000, RCM_IB_IP_PS_MASK,
	  0, 0 },
	{ "sid_outside_ip_ranges_refused", RCM_PS_IB, 0x1000000000000001ULL,
	  ~0ULL, 0, 0 },
};

RCM_KUNIT_PARAMS(rcm_t_ib_ps, rcm_t_ib_ps_rows);

static void rcm_ps_ib_select_is_in_trees(struct kunit *test)
{
	const struct rcm_t_ib_ps_row *row = test->param_value;
	struct sockaddr_ib sib = {
		.sib_family = AF_IB,
		.sib_sid = cpu_to_be64(row->sid),
		.sib_sid_mask = cpu_to_be64(row->mask),
	};
	int ret = rcm_ps_ib_select(row->ps, &sib);

	if (!row->want_sid) {
		KUNIT_EXPECT_EQ(test, ret, -EPROTONOSUPPORT);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib.sib_sid), row->want_sid);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib.sib_sid_mask), row->want_mask);
}

RCM_KUNIT_SUITE(rcm_ps,
		KUNIT_CASE_PARAM(rcm_ps_ib_select_is_in_trees,
				 rcm_t_ib_ps_gen_params),
		KUNIT_CASE(rcm_ps_listener_takes_its_address),
		KUNIT_CASE(rcm_ps_wildcard_listener_takes_its_family),
		KUNIT_CASE(rcm_ps_dual_stack_listener_takes_ipv4),
		KUNIT_CASE(rcm_ps_same_address_is_in_use),
		KUNIT_CASE(rcm_ps_different_addresses_share),
		KUNIT_CASE(rcm_ps_wildcard_conflicts_with_anything),
		KUNIT_CASE(rcm_ps_loopback_is_a_wildcard),
		KUNIT_CASE(rcm_ps_reuseaddr_needs_both_sides),
		KUNIT_CASE(rcm_ps_afonly_separates_families),
		KUNIT_CASE(rcm_ps_ephemeral_shared_by_destination),
		KUNIT_CASE(rcm_ps_ephemeral_source_tells_apart),
		KUNIT_CASE(rcm_ps_ephemeral_no_destination_is_whole));
