// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_sync_accept: rdma_accept() on the request ids of a synchronous
 * listener, against the real module, in a guest with a Soft-RoCE device.
 * kselftest TAP. (The plain synchronous accept is cm_connect's case 3;
 * each request's private channel is cm_sync_channels'.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * Clients are asynchronous, on a channel of their own, in the same
 * process; each request id gets a QP.
 *
 * 1. refused_before_rtu: the client (without a QP) rejects the reply
 *    its CONNECT_RESPONSE brought: the synchronous rdma_accept() gives
 *    -1 with ECONNREFUSED, REJECTED (status 28) in id->event, and the
 *    QP in ERR.
 * 2. nonblocking_request_channel: with the request id's private channel
 *    made non-blocking, rdma_accept() sends the reply and gives -1 with
 *    EAGAIN, the CONNECT_REQUEST acked (id->event NULL); the client gets
 *    ESTABLISHED, and so does the request id, on its own channel.
 * 3. get_request_in_another_thread: while a thread blocks in
 *    rdma_get_request() on the listener, a synchronous accept of an
 *    earlier request returns with ESTABLISHED in id->event, and the
 *    thread is still waiting (300 ms); a second client's request then
 *    reaches the thread, with its private data.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "rcm_ksft.h"

/* A client of @ch routed to listener @l on @ip connects with @data. */
static struct rdma_cm_id *client(struct rdma_event_channel *ch,
				 const char *ip, struct rdma_cm_id *l, bool qp,
				 const char *data)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .qp_num = 0x2468,
		.private_data = data, .private_data_len = strlen(data) + 1,
	};
	struct rdma_cm_id *c = guest_routed(ch, ip, guest_port(l),
					    RDMA_PS_TCP);

	if (!c)
		return NULL;
	if ((qp && !guest_create_qp(c, IBV_QPT_RC, 4)) ||
	    !CHECK(rdma_connect(c, &cp) == 0)) {
		rdma_destroy_id(c);
		return NULL;
	}
	return c;
}

struct refuser {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *c;
	bool ok;
};

/* The client's side of case 1: reject the reply. */
static void *refuse_thread(void *arg)
{
	struct refuser *r = arg;
	struct rdma_cm_event *ev;

	ev = guest_next_event(r->ch, RDMA_CM_EVENT_CONNECT_RESPONSE, r->c);
	if (!ev)
		return NULL;
	rdma_ack_cm_event(ev);
	r->ok = CHECK(rdma_reject(r->c, NULL, 0) == 0);
	return NULL;
}

TEST(refused_before_rtu)
{
	struct refuser rf = { 0 };
	struct rdma_cm_id *l, *r = NULL;
	void *ret;
	pthread_t t;

	GUEST_RXE_OR_SKIP(rxe);
	rf.ch = guest_channel();
	ASSERT_NE(NULL, rf.ch);
	l = guest_listener(NULL, rxe, RDMA_PS_TCP, NULL);
	ASSERT_NE(NULL, l);
	rf.c = client(rf.ch, rxe, l, false, "refuse");
	ASSERT_NE(NULL, rf.c);
	ASSERT_EQ(0, rdma_get_request(l, &r))
		TH_LOG("rdma_get_request: %s", strerror(errno));
	ASSERT_TRUE(guest_create_qp(r, IBV_QPT_RC, 4));
	ASSERT_EQ(0, pthread_create(&t, NULL, refuse_thread, &rf));
	ASSERT_ERRNO(rdma_accept(r, NULL), ECONNREFUSED);
	ASSERT_TRUE(guest_join_within(t, 10000, &ret));
	EXPECT_TRUE(rf.ok);
	ASSERT_NE(NULL, r->event);
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, r->event->event);
	EXPECT_EQ(28, r->event->status);
	EXPECT_EQ(IBV_QPS_ERR, guest_qp_state(r->qp));
	guest_destroy_id(r);
	guest_destroy_id(rf.c);
	guest_destroy_id(l);
	rdma_destroy_event_channel(rf.ch);
}

TEST(nonblocking_request_channel)
{
	struct rdma_event_channel *cch;
	struct rdma_cm_id *l, *c, *r = NULL;
	int fl;

	GUEST_RXE_OR_SKIP(rxe);
	cch = guest_channel();
	ASSERT_NE(NULL, cch);
	l = guest_listener(NULL, rxe, RDMA_PS_TCP, NULL);
	ASSERT_NE(NULL, l);
	c = client(cch, rxe, l, true, "nonblock");
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, rdma_get_request(l, &r))
		TH_LOG("rdma_get_request: %s", strerror(errno));
	ASSERT_TRUE(guest_create_qp(r, IBV_QPT_RC, 4));
	fl = fcntl(r->channel->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(r->channel->fd, F_SETFL, fl | O_NONBLOCK));
	ASSERT_ERRNO(rdma_accept(r, NULL), EAGAIN);
	EXPECT_EQ(NULL, r->event);
	ASSERT_TRUE(guest_expect_event(cch, RDMA_CM_EVENT_ESTABLISHED, c));
	ASSERT_TRUE(guest_expect_event(r->channel, RDMA_CM_EVENT_ESTABLISHED,
				       r));
	guest_destroy_id(r);
	guest_destroy_id(c);
	guest_destroy_id(l);
	rdma_destroy_event_channel(cch);
}

TEST(get_request_in_another_thread)
{
	struct guest_call g = { .op = GUEST_GET_REQUEST, .ret = -2 };
	struct rdma_event_channel *cch;
	struct rdma_cm_id *c1, *c2, *r1 = NULL;
	struct guest_establisher est;
	pthread_t t;
	void *ret;

	GUEST_RXE_OR_SKIP(rxe);
	cch = guest_channel();
	ASSERT_NE(NULL, cch);
	g.id = guest_listener(NULL, rxe, RDMA_PS_TCP, NULL);
	ASSERT_NE(NULL, g.id);
	c1 = client(cch, rxe, g.id, true, "one");
	ASSERT_NE(NULL, c1);
	ASSERT_EQ(0, rdma_get_request(g.id, &r1));
	ASSERT_TRUE(guest_create_qp(r1, IBV_QPT_RC, 4));

	ASSERT_EQ(0, pthread_create(&t, NULL, guest_call_thread, &g));
	EXPECT_FALSE(guest_join_within(t, 300, &ret));
	/*
	 * The accept reads r1's own channel for its ESTABLISHED, which the
	 * client's RTU brings once the client reads its reply (a thread).
	 */
	ASSERT_TRUE(guest_establish_start(&est, cch, c1));
	ASSERT_EQ(0, rdma_accept(r1, NULL))
		TH_LOG("synchronous accept: %s", strerror(errno));
	ASSERT_TRUE(guest_establish_end(&est));
	ASSERT_NE(NULL, r1->event);
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, r1->event->event);
	EXPECT_FALSE(guest_join_within(t, 300, &ret))
		TH_LOG("the listener's reader returned without a request");

	c2 = client(cch, rxe, g.id, true, "two");
	ASSERT_NE(NULL, c2);
	ASSERT_TRUE(guest_join_within(t, 10000, &ret))
		TH_LOG("the second request did not reach the blocked reader");
	ASSERT_EQ(0, g.ret);
	ASSERT_NE(NULL, g.req->event);
	EXPECT_STREQ("two",
		     (const char *)g.req->event->param.conn.private_data);
	ASSERT_EQ(0, rdma_reject(g.req, NULL, 0));
	guest_destroy_id(g.req);
	guest_destroy_id(c2);
	guest_destroy_id(r1);
	guest_destroy_id(c1);
	guest_destroy_id(g.id);
	rdma_destroy_event_channel(cch);
}

RCM_TEST_MAIN
