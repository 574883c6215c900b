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

RCM_KUNIT_SUITE(rcm_route,
		KUNIT_CASE(rcm_route_flow_label_hashes_the_ports),
		KUNIT_CASE(rcm_route_flow_label_fits_twenty_bits),
		KUNIT_CASE(rcm_route_flow_label_keeps_an_ipv6_label));
