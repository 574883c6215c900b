// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_event: rdma_get_cm_event() on an empty channel, and how
 * rdma_destroy_id() treats the id's events, against the real module, in
 * a guest with a Soft-RoCE device. kselftest TAP. (One event per read
 * and the poll-driven loop are cm_poll_loop's.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. empty_channel: an O_NONBLOCK channel with nothing pending gives -1
 *    with EAGAIN; a NULL event pointer EINVAL.
 * 2. destroy_discards_unread: id a's ADDR_RESOLVED is queued (the fd
 *    polls readable) and id b resolves too; rdma_destroy_id(a) with a's
 *    event unread returns within 10 s; the channel then hands out b's
 *    ADDR_RESOLVED, never a's, and nothing else.
 * 3. destroy_waits_for_ack: with a's ADDR_RESOLVED handed out and not
 *    acked, rdma_destroy_id(a) in another thread has not returned after
 *    300 ms; it returns 0 once the event is acked.
 * 4. destroy_during_blocking_get: a thread blocks in rdma_get_cm_event()
 *    on a channel with nothing pending; rdma_destroy_id() of an idle id
 *    on that channel returns; then b's ADDR_RESOLVED reaches the
 *    blocked thread.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_ksft.h"

TEST(empty_channel)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	int fl;

	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	fl = fcntl(ch->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK));
	ASSERT_ERRNO(rdma_get_cm_event(ch, &ev), EAGAIN);
	ASSERT_ERRNO(rdma_get_cm_event(ch, NULL), EINVAL);
	rdma_destroy_event_channel(ch);
}

TEST(destroy_discards_unread)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *a, *b;
	struct rdma_cm_event *ev;
	void *ret = (void *)-2;
	pthread_t t;
	int fl;

	GUEST_RXE_OR_SKIP(rxe);
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	a = guest_resolving(_metadata, ch, rxe);
	ASSERT_TRUE(guest_readable(ch->fd, 10000))
		TH_LOG("no event for a within 10 s");
	b = guest_resolving(_metadata, ch, rxe);
	ASSERT_EQ(0, pthread_create(&t, NULL, guest_destroy_thread, a));
	ASSERT_TRUE(guest_join_within(t, 10000, &ret))
		TH_LOG("rdma_destroy_id() with an unread event waits");
	ASSERT_EQ(NULL, ret);

	ASSERT_TRUE(guest_readable(ch->fd, 10000))
		TH_LOG("no event for b within 10 s");
	ASSERT_EQ(0, rdma_get_cm_event(ch, &ev));
	EXPECT_EQ(b, ev->id);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, ev->event);
	EXPECT_EQ(0, ev->status);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	fl = fcntl(ch->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK));
	ASSERT_ERRNO(rdma_get_cm_event(ch, &ev), EAGAIN);
	ASSERT_EQ(0, rdma_destroy_id(b));
	rdma_destroy_event_channel(ch);
}

TEST(destroy_waits_for_ack)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *a;
	void *ret = (void *)-2;

	GUEST_RXE_OR_SKIP(rxe);
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	a = guest_resolving(_metadata, ch, rxe);
	ASSERT_TRUE(guest_readable(ch->fd, 10000));
	ASSERT_EQ(0, rdma_get_cm_event(ch, &ev));
	ASSERT_EQ(a, ev->id);
	guest_waits_for_ack(_metadata, guest_destroy_thread, a, ev, "rdma_destroy_id()",
			    &ret);
	ASSERT_EQ(NULL, ret);
	rdma_destroy_event_channel(ch);
}

TEST(destroy_during_blocking_get)
{
	struct guest_call g = { .op = GUEST_GET_CM_EVENT, .ret = -2 };
	struct rdma_cm_id *idle = NULL, *b;
	void *ret = (void *)-2;
	pthread_t t, d;

	GUEST_RXE_OR_SKIP(rxe);
	g.ch = rdma_create_event_channel();
	ASSERT_NE(NULL, g.ch);
	ASSERT_EQ(0, rdma_create_id(g.ch, &idle, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, pthread_create(&t, NULL, guest_call_thread, &g));
	/* The getter blocks: nothing is pending. */
	EXPECT_FALSE(guest_join_within(t, 300, &ret));
	ASSERT_EQ(0, pthread_create(&d, NULL, guest_destroy_thread, idle));
	ASSERT_TRUE(guest_join_within(d, 10000, &ret))
		TH_LOG("rdma_destroy_id() waits for the blocked reader");
	ASSERT_EQ(NULL, ret);
	b = guest_resolving(_metadata, g.ch, rxe);
	ASSERT_TRUE(guest_join_within(t, 10000, &ret))
		TH_LOG("the blocked reader got nothing within 10 s");
	ASSERT_EQ(0, g.ret);
	EXPECT_EQ(b, g.ev->id);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, g.ev->event);
	ASSERT_EQ(0, rdma_ack_cm_event(g.ev));
	ASSERT_EQ(0, rdma_destroy_id(b));
	rdma_destroy_event_channel(g.ch);
}

RCM_TEST_MAIN
