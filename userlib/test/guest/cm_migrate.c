// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_migrate: rdma_migrate_id() between channels, to and from synchronous
 * mode, against the real module, in a guest with a Soft-RoCE device.
 * kselftest TAP. (A connected request id migrated is cm_connect's case
 * 4; the kernel side is the migrate selftest's.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. moves_unread: a's ADDR_RESOLVED is queued on channel A (unread)
 *    when a moves to B: it comes out of B, b's out of A, nothing else;
 *    then a's route resolves with ROUTE_RESOLVED on B, and a second
 *    move with an unread event is followed at once by a destroy that
 *    returns.
 * 2. waits_for_ack: with a's event handed out from A and not acked, the
 *    move to B (in another thread) has not returned after 300 ms; it
 *    returns 0 after the ack.
 * 3. to_sync: a NULL channel makes the id synchronous on a new private
 *    channel (a new file descriptor, closed by its destroy);
 *    rdma_resolve_addr() then returns with ADDR_RESOLVED in id->event;
 *    moving it to NULL again is EINVAL; A got nothing.
 * 4. from_sync: a synchronous id holding ADDR_RESOLVED moves to A: the
 *    held event is acked (id->event NULL), its private channel closed
 *    (no file descriptor left); rdma_resolve_route() is then
 *    asynchronous, ROUTE_RESOLVED on A.
 * 5. sync_request_to_channel: the id rdma_get_request() gave (on a
 *    private channel of its own) moves to A: its CONNECT_REQUEST in
 *    id->event acked, the private channel closed; an accept then
 *    completes with ESTABLISHED on A, and the client's too.
 * 6. listener_takes_requests: a listener with an unread request moves to
 *    B: the CONNECT_REQUEST comes out of B, and rejecting its request id
 *    gives the client REJECTED. librdmacm 44 on rdma_ucm loses such a
 *    request instead (the fd polls readable, the read finds nothing,
 *    the client hears nothing until its CM gives up), and the in-tree
 *    control expects that: rcm does more here than the in-tree stack
 *    (rdma_migrate_id(3) NOTES).
 * 7. errors: the id's own channel is a no-op; rcm only: a synchronous
 *    id to its own private channel stays synchronous (librdmacm 44
 *    closes that channel under it), and another synchronous id's
 *    private channel is EINVAL (librdmacm moves the id there, to a
 *    channel its owner's destroy closes).
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_ksft.h"

static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

TEST(moves_unread)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_id *a, *b, *c;
	void *ret = (void *)-2;
	pthread_t t;

	GUEST_RXE_OR_SKIP(rxe);
	a_ch = guest_channel();
	b_ch = guest_channel();
	ASSERT_TRUE(a_ch && b_ch);
	a = guest_resolving(_metadata, a_ch, rxe);
	ASSERT_TRUE(guest_readable(a_ch->fd, 10000));
	b = guest_resolving(_metadata, a_ch, rxe);
	ASSERT_EQ(0, rdma_migrate_id(a, b_ch))
		TH_LOG("rdma_migrate_id: %s", strerror(errno));
	ASSERT_EQ(b_ch, a->channel);
	ASSERT_TRUE(guest_expect_event(b_ch, RDMA_CM_EVENT_ADDR_RESOLVED, a));
	ASSERT_TRUE(guest_expect_event(a_ch, RDMA_CM_EVENT_ADDR_RESOLVED, b));
	EXPECT_TRUE(guest_quiet(a_ch));
	EXPECT_TRUE(guest_quiet(b_ch));

	ASSERT_EQ(0, rdma_resolve_route(a, 2000))
		TH_LOG("rdma_resolve_route after the move: %s",
		       strerror(errno));
	ASSERT_TRUE(guest_expect_event(b_ch, RDMA_CM_EVENT_ROUTE_RESOLVED,
				       a));
	EXPECT_TRUE(guest_quiet(a_ch));
	ASSERT_EQ(0, rdma_destroy_id(a));

	/* Moved with an unread event, destroyed at once. */
	c = guest_resolving(_metadata, a_ch, rxe);
	ASSERT_TRUE(guest_readable(a_ch->fd, 10000));
	ASSERT_EQ(0, rdma_migrate_id(c, b_ch));
	ASSERT_EQ(0, pthread_create(&t, NULL, guest_destroy_thread, c));
	ASSERT_TRUE(guest_join_within(t, 10000, &ret))
		TH_LOG("destroy after the move waits");
	ASSERT_EQ(NULL, ret);
	ASSERT_EQ(0, rdma_destroy_id(b));
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

TEST(waits_for_ack)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct guest_call m = { .op = GUEST_MIGRATE_ID, .ret = -2 };
	struct rdma_cm_event *ev;
	void *ret;

	GUEST_RXE_OR_SKIP(rxe);
	a_ch = guest_channel();
	b_ch = guest_channel();
	ASSERT_TRUE(a_ch && b_ch);
	m.id = guest_resolving(_metadata, a_ch, rxe);
	m.ch = b_ch;
	ev = guest_next_event(a_ch, RDMA_CM_EVENT_ADDR_RESOLVED, m.id);
	ASSERT_NE(NULL, ev);
	guest_waits_for_ack(_metadata, guest_call_thread, &m, ev,
			    "rdma_migrate_id()", &ret);
	ASSERT_EQ(0, m.ret);
	ASSERT_EQ(b_ch, m.id->channel);
	ASSERT_EQ(0, rdma_destroy_id(m.id));
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

TEST(to_sync)
{
	struct rdma_event_channel *a_ch;
	struct rdma_cm_id *a = NULL;
	struct sockaddr_in dst;
	int fd;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	a_ch = guest_channel();
	ASSERT_NE(NULL, a_ch);
	ASSERT_EQ(0, rdma_create_id(a_ch, &a, NULL, RDMA_PS_TCP));
	fd = lowest_free_fd();
	ASSERT_EQ(0, rdma_migrate_id(a, NULL))
		TH_LOG("rdma_migrate_id: %s", strerror(errno));
	ASSERT_NE(NULL, a->channel);
	EXPECT_NE(a_ch, a->channel);
	EXPECT_EQ(fd, a->channel->fd);
	ASSERT_EQ(0, rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst,
				       2000))
		TH_LOG("synchronous rdma_resolve_addr: %s", strerror(errno));
	ASSERT_NE(NULL, a->event);
	EXPECT_EQ(RDMA_CM_EVENT_ADDR_RESOLVED, a->event->event);
	ASSERT_ERRNO(rdma_migrate_id(a, NULL), EINVAL);
	EXPECT_TRUE(guest_quiet(a_ch));
	ASSERT_EQ(0, rdma_destroy_id(a));
	EXPECT_EQ(fd, lowest_free_fd());
	rdma_destroy_event_channel(a_ch);
}

TEST(from_sync)
{
	struct rdma_event_channel *a_ch;
	struct rdma_cm_id *s;
	int fd;

	GUEST_RXE_OR_SKIP(rxe);
	a_ch = guest_channel();
	ASSERT_NE(NULL, a_ch);
	fd = lowest_free_fd();
	s = guest_resolving(_metadata, NULL, rxe);
	ASSERT_NE(NULL, s->event);
	ASSERT_EQ(0, rdma_migrate_id(s, a_ch))
		TH_LOG("rdma_migrate_id: %s", strerror(errno));
	EXPECT_EQ(NULL, s->event);
	EXPECT_EQ(a_ch, s->channel);
	EXPECT_EQ(fd, lowest_free_fd());
	ASSERT_EQ(0, rdma_resolve_route(s, 2000))
		TH_LOG("rdma_resolve_route: %s", strerror(errno));
	EXPECT_EQ(NULL, s->event);
	ASSERT_TRUE(guest_expect_event(a_ch, RDMA_CM_EVENT_ROUTE_RESOLVED, s));
	ASSERT_EQ(0, rdma_destroy_id(s));
	rdma_destroy_event_channel(a_ch);
}

TEST(sync_request_to_channel)
{
	struct rdma_conn_param cp = GUEST_CONN_PARAM;
	struct rdma_event_channel *a_ch, *cch;
	struct rdma_cm_id *l, *c, *r = NULL;
	int fd;

	GUEST_RXE_OR_SKIP(rxe);
	a_ch = guest_channel();
	cch = guest_channel();
	ASSERT_TRUE(a_ch && cch);
	l = guest_listener(NULL, rxe, RDMA_PS_TCP, NULL);
	ASSERT_NE(NULL, l);
	c = guest_connecting(cch, rxe, guest_port(l), RDMA_PS_TCP, &cp);
	ASSERT_NE(NULL, c);
	fd = lowest_free_fd();
	ASSERT_EQ(0, rdma_get_request(l, &r))
		TH_LOG("rdma_get_request: %s", strerror(errno));
	ASSERT_NE(NULL, r->event);
	ASSERT_NE(l->channel, r->channel);
	ASSERT_EQ(0, rdma_migrate_id(r, a_ch))
		TH_LOG("rdma_migrate_id: %s", strerror(errno));
	EXPECT_EQ(NULL, r->event);
	EXPECT_EQ(a_ch, r->channel);
	EXPECT_EQ(fd, lowest_free_fd());
	ASSERT_TRUE(guest_create_qp(r, IBV_QPT_RC, 4));
	ASSERT_EQ(0, rdma_accept(r, &cp))
		TH_LOG("rdma_accept: %s", strerror(errno));
	ASSERT_TRUE(guest_expect_event(cch, RDMA_CM_EVENT_ESTABLISHED, c));
	ASSERT_TRUE(guest_expect_event(a_ch, RDMA_CM_EVENT_ESTABLISHED, r));
	rdma_destroy_qp(r);
	ASSERT_EQ(0, rdma_destroy_id(r));
	rdma_destroy_qp(c);
	ASSERT_EQ(0, rdma_destroy_id(c));
	ASSERT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(cch);
}

TEST(listener_takes_requests)
{
	struct rdma_conn_param cp = GUEST_CONN_PARAM;
	struct rdma_event_channel *a_ch, *b_ch, *cch;
	struct rdma_cm_event *ev, *rej;
	struct rdma_cm_id *l, *c;

	GUEST_RXE_OR_SKIP(rxe);
	a_ch = guest_channel();
	b_ch = guest_channel();
	cch = guest_channel();
	ASSERT_TRUE(a_ch && b_ch && cch);
	l = guest_listener(a_ch, rxe, RDMA_PS_TCP, NULL);
	ASSERT_NE(NULL, l);
	c = guest_connecting(cch, rxe, guest_port(l), RDMA_PS_TCP, &cp);
	ASSERT_NE(NULL, c);
	ASSERT_TRUE(guest_readable(a_ch->fd, 10000));
	ASSERT_EQ(0, rdma_migrate_id(l, b_ch))
		TH_LOG("rdma_migrate_id of a listener: %s", strerror(errno));
	EXPECT_TRUE(guest_quiet(a_ch));
	if (!guest_on_rcm()) {
		/*
		 * librdmacm 44 on rdma_ucm loses the request: the kernel
		 * moves the event but not the request's context, so the
		 * library's query of the new id on the new channel fails,
		 * and it drops the event; the peer hears nothing.
		 */
		ASSERT_TRUE(guest_readable(b_ch->fd, 10000));
		ASSERT_ERRNO(rdma_get_cm_event(b_ch, &ev), EAGAIN);
		EXPECT_TRUE(guest_quiet(cch));
		goto out;
	}
	ev = guest_next_event(b_ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(l, ev->listen_id);
	ASSERT_EQ(0, rdma_reject(ev->id, NULL, 0))
		TH_LOG("rdma_reject of the moved request: %s",
		       strerror(errno));
	rej = guest_next_event(cch, RDMA_CM_EVENT_REJECTED, c);
	ASSERT_NE(NULL, rej);
	EXPECT_EQ(28, rej->status);
	ASSERT_EQ(0, rdma_ack_cm_event(rej));
	ASSERT_EQ(0, rdma_destroy_id(ev->id));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
out:
	rdma_destroy_qp(c);
	ASSERT_EQ(0, rdma_destroy_id(c));
	ASSERT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
	rdma_destroy_event_channel(cch);
}

TEST(errors)
{
	struct rdma_event_channel *a_ch, *own;
	struct rdma_cm_id *a = NULL, *s = NULL;

	a_ch = guest_channel();
	ASSERT_NE(NULL, a_ch);
	ASSERT_EQ(0, rdma_create_id(a_ch, &a, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(NULL, &s, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_migrate_id(a, a_ch));
	EXPECT_EQ(a_ch, a->channel);
	ASSERT_ERRNO(rdma_migrate_id(s, NULL), EINVAL);
	if (guest_on_rcm()) {
		own = s->channel;
		ASSERT_EQ(0, rdma_migrate_id(s, own));
		EXPECT_EQ(own, s->channel);
		ASSERT_ERRNO(rdma_migrate_id(a, s->channel), EINVAL);
		EXPECT_EQ(a_ch, a->channel);
	}
	ASSERT_EQ(0, rdma_destroy_id(s));
	ASSERT_EQ(0, rdma_destroy_id(a));
	rdma_destroy_event_channel(a_ch);
}

RCM_TEST_MAIN
