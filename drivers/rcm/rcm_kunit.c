// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: KUnit suites for the parts of rcm.ko that need no RDMA device.
 *
 * Built into rcm.ko when the kernel has KUnit; the suites run when the
 * module loads and report KTAP on the kernel log.
 */
#include <kunit/test.h>

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
	}
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

static void rcm_ioctl_header_unknown_flags(struct kunit *test)
{
	const struct rcm_ioctl_op *op = rcm_ioctl_lookup(RCM_IOCTL_QUERY);
	u32 bit;

	KUNIT_ASSERT_NOT_NULL(test, op);
	for (bit = 0; bit < 32; bit++) {
		u32 flag = BIT(bit);
		int want = (flag & op->flags_mask) ? 0 : -EOPNOTSUPP;

		KUNIT_EXPECT_EQ_MSG(test,
				    rcm_ioctl_check_header(op, op->size, flag),
				    want, "flag bit %u", bit);
	}
}

static struct kunit_case rcm_ioctl_cases[] = {
	KUNIT_CASE(rcm_ioctl_lookup_finds_query),
	KUNIT_CASE(rcm_ioctl_lookup_rejects_foreign_numbers),
	KUNIT_CASE(rcm_ioctl_table_is_consistent),
	KUNIT_CASE(rcm_ioctl_header_size_window),
	KUNIT_CASE(rcm_ioctl_header_unknown_flags),
	{}
};

static struct kunit_suite rcm_ioctl_suite = {
	.name = "rcm_ioctl",
	.test_cases = rcm_ioctl_cases,
};

kunit_test_suites(&rcm_device_suite, &rcm_ioctl_suite);
