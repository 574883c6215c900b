// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_file.c: ioctl table and the uapi's size/flags rules.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */

#include "rcm_kunit.h"
#include "rcm_priv.h"

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
		/* no shorter form than ABI version 2's whole struct, */
		KUNIT_EXPECT_EQ_MSG(test, op->min_size, op->size, "cmd %u", i);
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
	static const struct {
		unsigned int ioctl;
		u32 out_offset, out_end;
	} outs[] = {
		/* Input only: nothing. */
		{ RCM_IOCTL_RESOLVE_ADDR }, { RCM_IOCTL_RESOLVE_ROUTE },
		{ RCM_IOCTL_SET_OPTION }, { RCM_IOCTL_LISTEN },
		{ RCM_IOCTL_REJECT }, { RCM_IOCTL_ACCEPT },
		{ RCM_IOCTL_DISCONNECT }, { RCM_IOCTL_CONNECT },
		{ RCM_IOCTL_ESTABLISH }, { RCM_IOCTL_NOTIFY },
		{ RCM_IOCTL_JOIN_MCAST },
		/* LEAVE_MCAST: the count, not the group address after it. */
		{ RCM_IOCTL_LEAVE_MCAST,
		  offsetof(struct rcm_leave_mcast, out_events_reported),
		  offsetof(struct rcm_leave_mcast, addr) },
		/* INIT_QP_ATTR: the attributes, not the reserved word after. */
		{ RCM_IOCTL_INIT_QP_ATTR,
		  offsetof(struct rcm_init_qp_attr, out_attr),
		  offsetof(struct rcm_init_qp_attr, reserved) },
		/* QUERY_ID: everything after the id. */
		{ RCM_IOCTL_QUERY_ID, offsetof(struct rcm_query_id, out_port_num),
		  sizeof(struct rcm_query_id) },
	};
	const struct rcm_ioctl_op *op;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(outs); i++) {
		op = rcm_ioctl_lookup(outs[i].ioctl);
		KUNIT_ASSERT_NOT_NULL_MSG(test, op, "ioctl %#x", outs[i].ioctl);
		KUNIT_EXPECT_EQ_MSG(test, op->out_offset, outs[i].out_offset,
				    "ioctl %#x", outs[i].ioctl);
		KUNIT_EXPECT_EQ_MSG(test, op->out_end, outs[i].out_end,
				    "ioctl %#x", outs[i].ioctl);
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

RCM_KUNIT_SUITE(rcm_file,
		KUNIT_CASE(rcm_ioctl_lookup_finds_query),
		KUNIT_CASE(rcm_ioctl_lookup_rejects_foreign_numbers),
		KUNIT_CASE(rcm_ioctl_table_is_consistent),
		KUNIT_CASE(rcm_ioctl_outputs_are_the_out_members),
		KUNIT_CASE(rcm_ioctl_header_size_window),
		KUNIT_CASE(rcm_ioctl_header_unknown_flags));
