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

static void rcm_req_addrs4(struct rcm_wire_req_addrs *a, const char *peer,
			   const char *listen)
{
	memset(a, 0, sizeof(*a));
	a->peer.in.sin_family = AF_INET;
	a->listen.in.sin_family = AF_INET;
	in4_pton(peer, -1, (u8 *)&a->peer.in.sin_addr, -1, NULL);
	in4_pton(listen, -1, (u8 *)&a->listen.in.sin_addr, -1, NULL);
}

static void rcm_req_addrs6(struct rcm_wire_req_addrs *a, const char *peer,
			   const char *listen)
{
	memset(a, 0, sizeof(*a));
	a->peer.in6.sin6_family = AF_INET6;
	a->listen.in6.sin6_family = AF_INET6;
	in6_pton(peer, -1, a->peer.in6.sin6_addr.s6_addr, -1, NULL);
	in6_pton(listen, -1, a->listen.in6.sin6_addr.s6_addr, -1, NULL);
}

static void rcm_ib_unicast_addresses_pass(struct kunit *test)
{
	struct rcm_wire_req_addrs a;

	rcm_req_addrs4(&a, "198.18.1.2", "198.18.1.1");
	KUNIT_EXPECT_TRUE(test, rcm_ib_addrs_plausible(&a));
	rcm_req_addrs6(&a, "fd00:198:18:1::2", "fd00:198:18:1::1");
	KUNIT_EXPECT_TRUE(test, rcm_ib_addrs_plausible(&a));
	rcm_req_addrs6(&a, "fe80::2", "fe80::1");
	KUNIT_EXPECT_TRUE(test, rcm_ib_addrs_plausible(&a));
}

static void rcm_ib_spoofed_ipv4_sources_fail(struct kunit *test)
{
	static const char * const bad[] = {
		"127.0.0.1", "0.0.0.0", "255.255.255.255",
		"224.0.0.1", "239.1.2.3",
	};
	struct rcm_wire_req_addrs a;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		rcm_req_addrs4(&a, bad[i], "198.18.1.1");
		KUNIT_EXPECT_FALSE_MSG(test, rcm_ib_addrs_plausible(&a),
				       "source %s", bad[i]);
		rcm_req_addrs4(&a, "198.18.1.2", bad[i]);
		KUNIT_EXPECT_FALSE_MSG(test, rcm_ib_addrs_plausible(&a),
				       "destination %s", bad[i]);
	}
}

static void rcm_ib_spoofed_ipv6_sources_fail(struct kunit *test)
{
	static const char * const bad[] = { "::1", "::", "ff02::1" };
	struct rcm_wire_req_addrs a;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		rcm_req_addrs6(&a, bad[i], "fd00::1");
		KUNIT_EXPECT_FALSE_MSG(test, rcm_ib_addrs_plausible(&a),
				       "source %s", bad[i]);
		rcm_req_addrs6(&a, "fd00::2", bad[i]);
		KUNIT_EXPECT_FALSE_MSG(test, rcm_ib_addrs_plausible(&a),
				       "destination %s", bad[i]);
	}
}

RCM_KUNIT_SUITE(rcm_ib,
		KUNIT_CASE(rcm_ib_unicast_addresses_pass),
		KUNIT_CASE(rcm_ib_spoofed_ipv4_sources_fail),
		KUNIT_CASE(rcm_ib_spoofed_ipv6_sources_fail));
