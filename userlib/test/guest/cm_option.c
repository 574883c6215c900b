// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_option: rdma_set_option() as librdmacm 44 on the in-tree ucma takes
 * it, against the real module, in a guest with a Soft-RoCE device.
 * kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. each_option: TOS (one byte of a longer buffer, also 255),
 *    ACK_TIMEOUT 14 and 31, REUSEADDR 1 and 0 on an RC id, AFONLY 1 and
 *    0 and TOS on a UD id: 0.
 * 2. tos_reads_one_byte: TOS 0x68 from the first byte of { 0x68, 1, 2,
 *    3 } with optlen 1 on a synchronous id, then address and route to
 *    RCM_ADDR_RXE: path_rec->traffic_class is 0x68.
 * 3. int_nonzero_is_one: REUSEADDR and AFONLY take any int (5, -1,
 *    INT_MIN, INT_MAX, 0x100, 2); REUSEADDR 0x100, whose low byte is 0,
 *    on two ids lets both bind to one free port of RCM_ADDR_RXE (a third
 *    id without it gets EADDRINUSE), so the whole int was read.
 * 4. optlen_checks: TOS and ACK_TIMEOUT with optlen 0, 2, 4, 8, and the
 *    int options with 0, 1, 2, 8, 9: EINVAL; a NULL optval with optlen
 *    0 EINVAL, with the option's length EFAULT (also for an unknown
 *    name or level: ucma copies the value first); the right lengths
 *    work afterwards.
 * 5. unknown_option: an unknown name at level RDMA_OPTION_ID (4, -1, and
 *    0x100-0x102, the numbers of rcm's own options in its uapi), an
 *    unknown name at RDMA_OPTION_IB, unknown levels (2, -1): ENOSYS.
 * 6. state_and_type_errors: ACK_TIMEOUT on a UD id EINVAL; on a
 *    listening id REUSEADDR 1 and 0 and AFONLY EINVAL; REUSEADDR on a
 *    bound id 0.
 * 7. ack_timeout_above_31: rcm refuses 32 and 255 with EINVAL (the
 *    transport's field has five bits); rdma_ucm takes them (the
 *    difference rdma_set_option(3) states).
 * 8. ib_path: RDMA_OPTION_IB_PATH with a NULL optval and optlen 72 is
 *    EFAULT on both; with a path record of zeros (no route's flags), 5
 *    bytes or none, EINVAL on both.
 * 9. sync_id: a synchronous id's options wait for nothing: TOS before
 *    resolving leaves id->event NULL, TOS after the synchronous
 *    rdma_resolve_addr() leaves its ADDR_RESOLVED in id->event.
 * 10. ib_path_on_roce: on an id whose address is resolved (to
 *    RCM_ADDR_RXE, over RoCE), a path record (GMP, primary and
 *    bidirectional) is taken: 0, then ROUTE_RESOLVED, and route.path_rec
 *    holds the record's SL, MTU, rate, traffic class, hop limit and
 *    P_Key, one path; rdma_resolve_route() after it is EINVAL.
 *    A record without those flags is EINVAL, and no event comes.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include <infiniband/sa.h>
#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"

/* rdma_set_option() must return @want: 0, or -1 with errno @want. */
#define OPT(id, level, name, val, len, want)				\
	do {								\
		int r_, e_;						\
		errno = 0;						\
		r_ = rdma_set_option(id, level, name, val, len);	\
		e_ = errno;						\
		ASSERT_TRUE((want) ? r_ == -1 && e_ == (want) : r_ == 0) \
			TH_LOG("set_option(%d, %d, len %zu): %d errno %d (%s), want %d", \
			       (int)(level), (int)(name), (size_t)(len), r_, \
			       r_ ? e_ : 0, r_ ? strerror(e_) : "-",	\
			       (want));					\
	} while (0)

static struct rdma_cm_id *new_id(struct __test_metadata *_metadata,
				 struct rdma_event_channel *ch,
				 enum rdma_port_space ps)
{
	struct rdma_cm_id *id = NULL;

	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, ps))
		TH_LOG("rdma_create_id: %s", strerror(errno));
	return id;
}

TEST(each_option)
{
	uint8_t tos[4] = { 0x68, 0x01, 0x02, 0x03 };
	uint8_t ack[4] = { 14, 0xff, 0xff, 0xff };
	uint8_t u8 = 0xff, ack31 = 31;
	int one = 1, zero = 0;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *rc, *ud;

	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	rc = new_id(_metadata, ch, RDMA_PS_TCP);
	ud = new_id(_metadata, ch, RDMA_PS_UDP);
	OPT(rc, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, tos, 1, 0);
	OPT(rc, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &u8, 1, 0);
	OPT(rc, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, ack, 1, 0);
	OPT(rc, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &ack31, 1, 0);
	OPT(rc, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one), 0);
	OPT(rc, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &zero, sizeof(zero),
	    0);
	OPT(ud, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one), 0);
	OPT(ud, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &zero, sizeof(zero), 0);
	OPT(ud, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, tos, 1, 0);
	ASSERT_EQ(0, rdma_destroy_id(rc));
	ASSERT_EQ(0, rdma_destroy_id(ud));
	rdma_destroy_event_channel(ch);
}

TEST(tos_reads_one_byte)
{
	uint8_t tos[4] = { 0x68, 0x01, 0x02, 0x03 };
	struct sockaddr_in dst;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	id = new_id(_metadata, NULL, RDMA_PS_TCP);
	OPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, tos, 1, 0);
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       2000))
		TH_LOG("rdma_resolve_addr: %s", strerror(errno));
	ASSERT_EQ(0, rdma_resolve_route(id, 2000))
		TH_LOG("rdma_resolve_route: %s", strerror(errno));
	ASSERT_EQ(1, id->route.num_paths);
	ASSERT_NE(NULL, id->route.path_rec);
	EXPECT_EQ(0x68, id->route.path_rec->traffic_class);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(int_nonzero_is_one)
{
	static const int nonzero[] = { 5, -1, INT_MIN, INT_MAX, 0x100, 2 };
	struct rdma_cm_id *a, *b, *c;
	struct sockaddr_in sin;
	unsigned int i;
	int v;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &sin));
	a = new_id(_metadata, NULL, RDMA_PS_TCP);
	b = new_id(_metadata, NULL, RDMA_PS_TCP);
	c = new_id(_metadata, NULL, RDMA_PS_TCP);
	for (i = 0; i < ARRAY_SIZE(nonzero); i++) {
		v = nonzero[i];
		OPT(c, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &v,
		    sizeof(v), 0);
		OPT(c, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &v, sizeof(v),
		    0);
	}
	v = 0;
	OPT(c, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &v, sizeof(v), 0);
	/* 0x100: a library that read one byte would see 0. */
	v = 0x100;
	OPT(a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &v, sizeof(v), 0);
	OPT(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &v, sizeof(v), 0);
	ASSERT_EQ(0, rdma_bind_addr(a, (struct sockaddr *)&sin))
		TH_LOG("bind a: %s", strerror(errno));
	ASSERT_EQ(0, rdma_bind_addr(b, (struct sockaddr *)&sin))
		TH_LOG("bind b, REUSEADDR 0x100: %s", strerror(errno));
	ASSERT_ERRNO(rdma_bind_addr(c, (struct sockaddr *)&sin), EADDRINUSE);
	ASSERT_EQ(0, rdma_destroy_id(a));
	ASSERT_EQ(0, rdma_destroy_id(b));
	ASSERT_EQ(0, rdma_destroy_id(c));
}

TEST(optlen_checks)
{
	static const size_t bad_u8[] = { 0, 2, 4, 8 };
	static const size_t bad_int[] = { 0, 1, 2, 8, 9 };
	static const int u8_opts[] = {
		RDMA_OPTION_ID_TOS, RDMA_OPTION_ID_ACK_TIMEOUT,
	};
	static const int int_opts[] = {
		RDMA_OPTION_ID_REUSEADDR, RDMA_OPTION_ID_AFONLY,
	};
	uint8_t buf[16] = { 1 };
	struct rdma_cm_id *id;
	unsigned int i, j;
	int one = 1;

	id = new_id(_metadata, NULL, RDMA_PS_TCP);
	for (i = 0; i < 2; i++) {
		for (j = 0; j < ARRAY_SIZE(bad_u8); j++)
			OPT(id, RDMA_OPTION_ID, u8_opts[i], buf, bad_u8[j],
			    EINVAL);
		OPT(id, RDMA_OPTION_ID, u8_opts[i], NULL, 0, EINVAL);
		OPT(id, RDMA_OPTION_ID, u8_opts[i], NULL, 1, EFAULT);
	}
	for (i = 0; i < 2; i++) {
		for (j = 0; j < ARRAY_SIZE(bad_int); j++)
			OPT(id, RDMA_OPTION_ID, int_opts[i], buf, bad_int[j],
			    EINVAL);
		OPT(id, RDMA_OPTION_ID, int_opts[i], NULL, 0, EINVAL);
		OPT(id, RDMA_OPTION_ID, int_opts[i], NULL, sizeof(int),
		    EFAULT);
	}
	/* ucma copies the value before it looks at level and name. */
	OPT(id, RDMA_OPTION_ID, 99, NULL, 4, EFAULT);
	OPT(id, 7, 0, NULL, 1, EFAULT);
	OPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one), 0);
	OPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, buf, 1, 0);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(unknown_option)
{
	struct rdma_cm_id *rc, *ud;
	uint8_t buf[16];

	/* ucma's errno for what it does not know (checkpatch: it is). */
	memset(buf, 0x5a, sizeof(buf));
	rc = new_id(_metadata, NULL, RDMA_PS_TCP);
	ud = new_id(_metadata, NULL, RDMA_PS_UDP);
	OPT(rc, RDMA_OPTION_ID, 4, buf, 1, ENOSYS);
	OPT(rc, RDMA_OPTION_ID, -1, buf, sizeof(buf), ENOSYS);
	/* The numbers of rcm's own options are unknown at this level too. */
	OPT(rc, RDMA_OPTION_ID, 0x100, buf, sizeof(int), ENOSYS);
	OPT(rc, RDMA_OPTION_ID, 0x101, buf, sizeof(int), ENOSYS);
	OPT(ud, RDMA_OPTION_ID, 0x102, buf, sizeof(int), ENOSYS);
	OPT(rc, RDMA_OPTION_IB, 0, buf, 1, ENOSYS);
	OPT(ud, 2, RDMA_OPTION_ID_TOS, NULL, 0, ENOSYS);
	OPT(rc, -1, RDMA_OPTION_ID_TOS, buf, 1, ENOSYS);
	ASSERT_EQ(0, rdma_destroy_id(rc));
	ASSERT_EQ(0, rdma_destroy_id(ud));
}

TEST(state_and_type_errors)
{
	struct rdma_cm_id *ud, *l, *b;
	struct sockaddr_in sin;
	int one = 1, zero = 0;
	uint8_t v = 14;

	GUEST_RXE_OR_SKIP(rxe);
	ud = new_id(_metadata, NULL, RDMA_PS_UDP);
	OPT(ud, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v, 1, EINVAL);
	l = new_id(_metadata, NULL, RDMA_PS_TCP);
	ASSERT_TRUE(guest_parse_ipv4(rxe, 0, &sin));
	ASSERT_EQ(0, rdma_bind_addr(l, (struct sockaddr *)&sin))
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rdma_listen(l, 1))
		TH_LOG("listen: %s", strerror(errno));
	OPT(l, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one),
	    EINVAL);
	OPT(l, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &zero, sizeof(zero),
	    EINVAL);
	OPT(l, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one),
	    EINVAL);
	b = new_id(_metadata, NULL, RDMA_PS_TCP);
	ASSERT_TRUE(guest_parse_ipv4(rxe, 0, &sin));
	ASSERT_EQ(0, rdma_bind_addr(b, (struct sockaddr *)&sin))
		TH_LOG("bind: %s", strerror(errno));
	OPT(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one), 0);
	ASSERT_EQ(0, rdma_destroy_id(ud));
	ASSERT_EQ(0, rdma_destroy_id(l));
	ASSERT_EQ(0, rdma_destroy_id(b));
}

TEST(ack_timeout_above_31)
{
	/* rdma_set_option(3), NOTES: rdma_ucm takes every value. */
	int want = guest_on_rcm() ? EINVAL : 0;
	uint8_t v32 = 32, v255 = 255;
	struct rdma_cm_id *id;

	id = new_id(_metadata, NULL, RDMA_PS_TCP);
	OPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v32, 1, want);
	OPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v255, 1, want);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(ib_path)
{
	int want = EINVAL;
	uint8_t path[72 * 2] = { 0 };
	struct rdma_cm_id *rc, *ud;

	rc = new_id(_metadata, NULL, RDMA_PS_TCP);
	ud = new_id(_metadata, NULL, RDMA_PS_UDP);
	OPT(rc, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, NULL, 72, EFAULT);
	OPT(rc, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, path, 72, want);
	OPT(rc, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, path, sizeof(path),
	    want);
	OPT(rc, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, path, 5, want);
	OPT(ud, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, NULL, 0, want);
	ASSERT_EQ(0, rdma_destroy_id(rc));
	ASSERT_EQ(0, rdma_destroy_id(ud));
}

TEST(sync_id)
{
	struct rdma_cm_event *held;
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	uint8_t tos = 0x20;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	id = new_id(_metadata, NULL, RDMA_PS_TCP);
	OPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1, 0);
	ASSERT_EQ(NULL, id->event);
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       2000))
		TH_LOG("rdma_resolve_addr: %s", strerror(errno));
	held = id->event;
	ASSERT_NE(NULL, held);
	ASSERT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, held->event);
	OPT(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1, 0);
	ASSERT_EQ(held, id->event);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

TEST(ib_path_on_roce)
{
	struct rdma_event_channel *ch;
	struct ibv_path_data d = { 0 };
	struct ibv_sa_path_rec *p;
	struct sockaddr_in dst;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	ch = guest_channel();
	ASSERT_NE(NULL, ch);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	id = new_id(_metadata, ch, RDMA_PS_TCP);
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       2000))
		TH_LOG("rdma_resolve_addr: %s", strerror(errno));
	ASSERT_TRUE(guest_expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id));
	/* ::ffff:a.b.c.d both ways: the destination is rxe's own address. */
	d.path.sgid.raw[10] = 0xff;
	d.path.sgid.raw[11] = 0xff;
	memcpy(&d.path.sgid.raw[12], &dst.sin_addr, 4);
	d.path.dgid = d.path.sgid;
	d.path.flowlabel_hoplimit = htobe32(0x2345 << 8 | 64);
	d.path.tclass = 0x20;
	d.path.reversible_numpath = 0x81;
	d.path.pkey = htobe16(0xffff);
	d.path.qosclass_sl = htobe16(2);
	d.path.mtu = 2 << 6 | IBV_MTU_1024;	/* selector: exactly */
	d.path.rate = 2 << 6 | 6;
	d.path.packetlifetime = 2 << 6 | 15;
	/* Not a route's flags: refused, nothing queued. */
	d.flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY;
	OPT(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &d, sizeof(d), EINVAL);
	ASSERT_TRUE(guest_quiet(ch));
	d.flags |= IBV_PATH_FLAG_BIDIRECTIONAL;
	OPT(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &d, sizeof(d), 0);
	ASSERT_TRUE(guest_expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id));
	ASSERT_EQ(1, id->route.num_paths);
	p = id->route.path_rec;
	ASSERT_NE(NULL, p);
	EXPECT_EQ(2, p->sl);
	EXPECT_EQ(IBV_MTU_1024, p->mtu);
	EXPECT_EQ(6, p->rate);
	EXPECT_EQ(15, p->packet_life_time);
	EXPECT_EQ(0x20, p->traffic_class);
	EXPECT_EQ(64, p->hop_limit);
	/* Not the flow label: 6.12's in-tree CM and rcm on the test kernel
	 * report 0x82345 for 0x2345 where Debian's 6.1 keeps it (CI at
	 * be08714); which layer sets bit 19 is not known yet.
	 */
	EXPECT_EQ(htobe16(0xffff), p->pkey);
	EXPECT_EQ(0, memcmp(&p->dgid, &d.path.dgid, 16));
	errno = 0;
	EXPECT_EQ(-1, rdma_resolve_route(id, 2000));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

RCM_TEST_MAIN
