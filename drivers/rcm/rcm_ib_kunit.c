// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_ib.c: which addresses a connection request's
 * CMA header may claim (the in-tree CM's validate_net_dev() classes).
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <net/ipv6.h>

#include "rcm_kunit.h"
#include "rcm_priv.h"

/*
 * A request's CMA header as rcm_ib_addrs_plausible() sees it: @peer, the
 * source it claims, and @listen, the destination; both IPv6 when @peer
 * is, else both IPv4.
 */
static void rcm_t_req_addrs(struct kunit *test, struct rcm_wire_req_addrs *a,
			    const char *peer, const char *listen)
{
	memset(a, 0, sizeof(*a));
	if (strchr(peer, ':')) {
		a->peer.in6.sin6_family = AF_INET6;
		a->listen.in6.sin6_family = AF_INET6;
		KUNIT_ASSERT_EQ(test, in6_pton(peer, -1,
					       a->peer.in6.sin6_addr.s6_addr,
					       -1, NULL), 1);
		KUNIT_ASSERT_EQ(test, in6_pton(listen, -1,
					       a->listen.in6.sin6_addr.s6_addr,
					       -1, NULL), 1);
	} else {
		a->peer.in.sin_family = AF_INET;
		a->listen.in.sin_family = AF_INET;
		KUNIT_ASSERT_EQ(test, in4_pton(peer, -1,
					       (u8 *)&a->peer.in.sin_addr,
					       -1, NULL), 1);
		KUNIT_ASSERT_EQ(test, in4_pton(listen, -1,
					       (u8 *)&a->listen.in.sin_addr,
					       -1, NULL), 1);
	}
}

/*
 * Unicast ends pass; loopback, any, broadcast and multicast ones, on
 * either side, are spoofed.
 */
static const struct rcm_t_claim_row {
	const char *peer, *listen;
	bool plausible;
} rcm_t_claim_rows[] = {
	{ "198.18.1.2", "198.18.1.1", true },
	{ "fd00:198:18:1::2", "fd00:198:18:1::1", true },
	{ "fe80::2", "fe80::1", true },
	{ "127.0.0.1", "198.18.1.1", false },
	{ "198.18.1.2", "127.0.0.1", false },
	{ "0.0.0.0", "198.18.1.1", false },
	{ "198.18.1.2", "0.0.0.0", false },
	{ "255.255.255.255", "198.18.1.1", false },
	{ "198.18.1.2", "255.255.255.255", false },
	{ "224.0.0.1", "198.18.1.1", false },
	{ "198.18.1.2", "224.0.0.1", false },
	{ "239.1.2.3", "198.18.1.1", false },
	{ "198.18.1.2", "239.1.2.3", false },
	{ "::1", "fd00::1", false },
	{ "fd00::2", "::1", false },
	{ "::", "fd00::1", false },
	{ "fd00::2", "::", false },
	{ "ff02::1", "fd00::1", false },
	{ "fd00::2", "ff02::1", false },
};

static void rcm_t_claim_desc(const struct rcm_t_claim_row *row, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_to_%s", row->peer,
		 row->listen);
}

KUNIT_ARRAY_PARAM(rcm_t_claim, rcm_t_claim_rows, rcm_t_claim_desc);

static void rcm_ib_addrs_plausible_only_for_unicast(struct kunit *test)
{
	const struct rcm_t_claim_row *row = test->param_value;
	struct rcm_wire_req_addrs a;

	rcm_t_req_addrs(test, &a, row->peer, row->listen);
	KUNIT_EXPECT_EQ(test, rcm_ib_addrs_plausible(&a), row->plausible);
}

RCM_KUNIT_SUITE(rcm_ib,
		KUNIT_CASE_PARAM(rcm_ib_addrs_plausible_only_for_unicast,
				 rcm_t_claim_gen_params));
