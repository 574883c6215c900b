// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_addr.c: addresses from userspace.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */
#include <linux/if_ether.h>
#include <linux/if_infiniband.h>
#include <linux/in.h>
#include <linux/in6.h>

#include "rcm_kunit.h"
#include "rcm_priv.h"

/* rcm_addr_from_user() of a zeroed address of each family. */
static const struct rcm_t_family_row {
	const char *desc;
	sa_family_t family;
	int ret;
} rcm_t_family_rows[] = {
	{ "takes_ipv4", AF_INET, 0 },
	{ "takes_ipv6", AF_INET6, 0 },
	{ "refuses_af_unspec", AF_UNSPEC, -EAFNOSUPPORT },
	{ "refuses_af_ib", AF_IB, -EAFNOSUPPORT },
};

RCM_KUNIT_PARAMS(rcm_t_family, rcm_t_family_rows);

static void rcm_addr_from_user_takes_ip_families_only(struct kunit *test)
{
	const struct rcm_t_family_row *row = test->param_value;
	struct __kernel_sockaddr_storage kss = { .ss_family = row->family };
	struct sockaddr_storage out;

	KUNIT_ASSERT_EQ(test, rcm_addr_from_user(&kss, &out), row->ret);
	if (!row->ret)
		KUNIT_EXPECT_EQ(test, out.ss_family, row->family);
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

/* What an id keeps of an address: the family's bytes, zeros after them. */
static void rcm_addr_set_keeps_the_family_only(struct kunit *test)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	union rcm_sockaddr to;
	u8 *raw = (u8 *)&to;

	KUNIT_EXPECT_EQ(test, sizeof(to), sizeof(struct sockaddr_ib));
	memset(&to, 0xff, sizeof(to));
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(7174);
	in6->sin6_flowinfo = htonl(5);
	in6->sin6_addr.s6_addr[15] = 1;
	in6->sin6_scope_id = 3;
	rcm_addr_set(&to, (struct sockaddr *)&ss);
	KUNIT_EXPECT_EQ(test, memcmp(&to, in6, sizeof(*in6)), 0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(raw + sizeof(*in6), 0,
					     sizeof(to) - sizeof(*in6)), NULL);

	memset(&ss, 0, sizeof(ss));
	in->sin_family = AF_INET;
	in->sin_port = htons(7174);
	in->sin_addr.s_addr = htonl(0xc6120001);
	rcm_addr_set(&to, (struct sockaddr *)&ss);
	KUNIT_EXPECT_EQ(test, memcmp(&to, in, sizeof(*in)), 0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(raw + sizeof(*in), 0,
					     sizeof(to) - sizeof(*in)), NULL);

	/* No destination (rcm_no_addr): nothing kept. */
	memset(&ss, 0, sizeof(ss));
	rcm_addr_set(&to, (struct sockaddr *)&ss);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(raw, 0, sizeof(to)), NULL);
}

/* An IPoIB hardware address: flags, QPN, then the GID; 20 bytes or none. */
static void rcm_ipoib_hw_gid_is_the_last_16_bytes(struct kunit *test)
{
	static const u8 hw[INFINIBAND_ALEN] = {
		0x80, 0x00, 0x00, 0x02,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x00, 0xfa, 0xb0, 0, 0, 0, 0x01,
	};
	union ib_gid gid;

	KUNIT_ASSERT_EQ(test, rcm_ipoib_hw_gid(hw, sizeof(hw), &gid), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(gid.global.subnet_prefix),
			0xfe80000000000000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(gid.global.interface_id),
			0x0200fab000000001ULL);
	/* An Ethernet address, or a short one, carries no GID. */
	KUNIT_EXPECT_EQ(test, rcm_ipoib_hw_gid(hw, ETH_ALEN, &gid), -EINVAL);
	KUNIT_EXPECT_EQ(test, rcm_ipoib_hw_gid(hw, INFINIBAND_ALEN - 1, &gid),
			-EINVAL);
}

RCM_KUNIT_SUITE(rcm_addr,
		KUNIT_CASE(rcm_ipoib_hw_gid_is_the_last_16_bytes),
		KUNIT_CASE(rcm_addr_from_user_wants_a_zero_tail),
		KUNIT_CASE(rcm_addr_set_keeps_the_family_only),
		KUNIT_CASE_PARAM(rcm_addr_from_user_takes_ip_families_only,
				 rcm_t_family_gen_params));
