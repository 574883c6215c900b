// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_mcast: rdma_join_multicast(), rdma_join_multicast_ex() and
 * rdma_leave_multicast() against the real module, in a guest with a
 * Soft-RoCE device (RoCE v2 IPv4 groups). kselftest TAP. (Datagrams
 * over a joined group are Debian's mckey's, udaddy.sh; the kernel side
 * is the mcast and mcast_verbs selftests'.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * Each case joins from a UD id bound to RCM_ADDR_RXE, with a UD QP
 * unless said otherwise, groups 239.1.2.80 and up.
 *
 * 1. join_ex_checks: comp_mask beyond ADDRESS|JOIN_FLAGS is ENOTSUP; no
 *    address or no flags in comp_mask, reserved flags, an AF_UNIX or a
 *    NULL address are EINVAL, and so is rdma_join_multicast() of an
 *    AF_UNIX address; nothing is queued. (rcm only: a NULL attr is
 *    EINVAL; librdmacm 44 dereferences it.)
 * 2. send_only_join: a send-only full member joins: MULTICAST_JOIN with
 *    the join's context in param.ud.private_data and the group's
 *    Q_Key; it leaves with 0, and a second leave is EADDRNOTAVAIL.
 * 3. rc_id_refused: an RC id bound to the same address cannot join:
 *    EINVAL.
 * 4. leave_waits_for_ack: with the group's MULTICAST_JOIN handed out and
 *    not acked, rdma_leave_multicast() in another thread has not
 *    returned after 300 ms; it returns 0 after the ack.
 * 5. sync_join: a synchronous id's join returns 0 with MULTICAST_JOIN in
 *    id->event (the context in it); its leave acks that event and
 *    returns within 10 s. librdmacm 44's leave waits forever for that
 *    ack instead: the in-tree control acks the event itself first.
 * 6. leave_not_joined: leaving a group never joined is EADDRNOTAVAIL.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_ksft.h"

/* A UD id of @ch (NULL: synchronous) bound to @ip, with a QP if @qp. */
static struct rdma_cm_id *ud_id(struct __test_metadata *_metadata,
				struct rdma_event_channel *ch, const char *ip,
				enum rdma_port_space ps, bool qp)
{
	struct rdma_cm_id *id = guest_bound(ch, ip, ps, NULL);

	ASSERT_NE(NULL, id);
	if (qp)
		ASSERT_TRUE(guest_create_qp(id, IBV_QPT_UD, 4));
	return id;
}

/* A new channel in *@ch and a UD id of it, as ud_id(). */
static struct rdma_cm_id *ud_id_on(struct __test_metadata *_metadata,
				   struct rdma_event_channel **ch,
				   const char *ip, enum rdma_port_space ps,
				   bool qp)
{
	*ch = guest_channel();
	ASSERT_NE(NULL, *ch);
	return ud_id(_metadata, *ch, ip, ps, qp);
}

/* @attr for rdma_join_multicast_ex() of @g with @mask and @flags. */
static void join_attr(struct rdma_cm_join_mc_attr_ex *attr,
		      struct sockaddr_in *g, uint32_t mask, uint32_t flags)
{
	memset(attr, 0, sizeof(*attr));
	attr->addr = (struct sockaddr *)g;
	attr->comp_mask = mask;
	attr->join_flags = flags;
}

static struct sockaddr_in group(int n)
{
	struct sockaddr_in g;

	guest_parse_ipv4("239.1.2.80", 0, &g);
	g.sin_addr.s_addr = htonl(ntohl(g.sin_addr.s_addr) + n);
	return g;
}

TEST(join_ex_checks)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct rdma_cm_join_mc_attr_ex attr;
	struct sockaddr_in g = group(0);
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = ud_id_on(_metadata, &ch, rxe, RDMA_PS_UDP, true);
	join_attr(&attr, &g, RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		  RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS |
		  RDMA_CM_JOIN_MC_ATTR_RESERVED, 0);
	ASSERT_ERRNO(rdma_join_multicast_ex(id, &attr, NULL), ENOTSUP);
	attr.comp_mask = RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	ASSERT_ERRNO(rdma_join_multicast_ex(id, &attr, NULL), EINVAL);
	attr.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS;
	ASSERT_ERRNO(rdma_join_multicast_ex(id, &attr, NULL), EINVAL);
	attr.comp_mask |= RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	attr.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	ASSERT_ERRNO(rdma_join_multicast_ex(id, &attr, NULL), EINVAL);
	attr.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	attr.addr = (struct sockaddr *)&un;
	ASSERT_ERRNO(rdma_join_multicast_ex(id, &attr, NULL), EINVAL);
	attr.addr = NULL;
	ASSERT_ERRNO(rdma_join_multicast_ex(id, &attr, NULL), EINVAL);
	ASSERT_ERRNO(rdma_join_multicast(id, (struct sockaddr *)&un, NULL),
		     EINVAL);
	if (guest_on_rcm())
		ASSERT_ERRNO(rdma_join_multicast_ex(id, NULL, NULL), EINVAL);
	EXPECT_TRUE(guest_quiet(ch));
	guest_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

TEST(send_only_join)
{
	struct rdma_cm_join_mc_attr_ex attr;
	struct sockaddr_in g = group(1);
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = ud_id_on(_metadata, &ch, rxe, RDMA_PS_UDP, true);
	join_attr(&attr, &g, RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		  RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
		  RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER);
	ASSERT_EQ(0, rdma_join_multicast_ex(id, &attr, &attr))
		TH_LOG("send-only join: %s", strerror(errno));
	ev = guest_next_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, id);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->status);
	EXPECT_EQ(&attr, ev->param.ud.private_data);
	EXPECT_NE(0, ev->param.ud.qkey);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_leave_multicast(id, (struct sockaddr *)&g));
	ASSERT_ERRNO(rdma_leave_multicast(id, (struct sockaddr *)&g),
		     EADDRNOTAVAIL);
	guest_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

TEST(rc_id_refused)
{
	struct sockaddr_in g = group(2);
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = ud_id_on(_metadata, &ch, rxe, RDMA_PS_TCP, false);
	ASSERT_ERRNO(rdma_join_multicast(id, (struct sockaddr *)&g, NULL),
		     EINVAL);
	EXPECT_TRUE(guest_quiet(ch));
	guest_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

TEST(leave_waits_for_ack)
{
	struct sockaddr_in g = group(3);
	struct guest_call l = {
		.op = GUEST_LEAVE_MULTICAST, .addr = (struct sockaddr *)&g,
		.ret = -2,
	};
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	void *ret;
	int ctx;

	GUEST_RXE_OR_SKIP(rxe);
	l.id = ud_id_on(_metadata, &ch, rxe, RDMA_PS_UDP, true);
	ASSERT_EQ(0, rdma_join_multicast(l.id, l.addr, &ctx))
		TH_LOG("join: %s", strerror(errno));
	ev = guest_next_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, l.id);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(&ctx, ev->param.ud.private_data);
	guest_waits_for_ack(_metadata, guest_call_thread, &l, ev, "the leave",
			    &ret);
	ASSERT_EQ(0, l.ret);
	guest_destroy_id(l.id);
	rdma_destroy_event_channel(ch);
}

TEST(sync_join)
{
	struct sockaddr_in g = group(4);
	struct guest_call l = {
		.op = GUEST_LEAVE_MULTICAST, .addr = (struct sockaddr *)&g,
		.ret = -2,
	};
	void *ret;
	pthread_t t;

	GUEST_RXE_OR_SKIP(rxe);
	l.id = ud_id(_metadata, NULL, rxe, RDMA_PS_UDP, true);
	ASSERT_EQ(0, rdma_join_multicast(l.id, l.addr, &l))
		TH_LOG("synchronous join: %s", strerror(errno));
	ASSERT_NE(NULL, l.id->event);
	EXPECT_EQ(RDMA_CM_EVENT_MULTICAST_JOIN, l.id->event->event);
	EXPECT_EQ(&l, l.id->event->param.ud.private_data);
	if (!guest_on_rcm()) {
		/*
		 * librdmacm 44's leave waits for the ack of the event the
		 * synchronous join holds in id->event, which nothing gives
		 * (rdma_leave_multicast(3) NOTES): ack it first.
		 */
		ASSERT_EQ(0, rdma_ack_cm_event(l.id->event));
		l.id->event = NULL;
	}
	ASSERT_EQ(0, pthread_create(&t, NULL, guest_call_thread, &l));
	ASSERT_TRUE(guest_join_within(t, 10000, &ret))
		TH_LOG("the synchronous leave waits for its own held event");
	ASSERT_EQ(0, l.ret);
	EXPECT_EQ(NULL, l.id->event);
	guest_destroy_id(l.id);
}

TEST(leave_not_joined)
{
	struct sockaddr_in g = group(5);
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = ud_id_on(_metadata, &ch, rxe, RDMA_PS_UDP, true);
	ASSERT_ERRNO(rdma_leave_multicast(id, (struct sockaddr *)&g),
		     EADDRNOTAVAIL);
	guest_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

RCM_TEST_MAIN
