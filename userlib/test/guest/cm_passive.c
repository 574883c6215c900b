// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_passive: rdma_listen(), rdma_reject(), rdma_reject_ece() and what a
 * listener's destroy does with its requests, on librdmacm.so.1 at both
 * ends in one process, against the real module, in a guest with a
 * Soft-RoCE device. kselftest TAP. (A request's contents and
 * rdma_get_request() are cm_listen's and cm_sync_channels'.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. listen_calls: an unbound id listens (backlog -1) on the IPv4
 *    wildcard and a port of the kernel's, with no device; listening
 *    again is EINVAL; a UD id listens; of two ids bound to one port with
 *    REUSEADDR neither may listen (the kernel's EADDRINUSE, the id still
 *    bound to its port), and once one is gone the other listens;
 *    rdma_get_request() on that asynchronous listener is EINVAL.
 * 2. reject_variants: on a request, 149 bytes of private data are EINVAL
 *    for rdma_reject() and rdma_reject_ece(), a reject of the listener
 *    is EINVAL; rdma_reject_ece() with 148 bytes gives the client
 *    REJECTED with status 35 (IB's vendor option not supported) and the
 *    148 bytes; a second reject of that request is EINVAL. On a second
 *    request, rdma_reject() with no pointer and length 10 gives REJECTED
 *    status 28 (consumer defined) and no data of ours (zeros). The
 *    request id outlives the listener.
 * 3. unread_request_of_destroyed_listener: a listener destroyed with a
 *    request unread refuses it (the client gets REJECTED) and the
 *    request never shows up on the listener's channel.
 * 4. listener_waits_for_request_ack: the listener's destroy waits for
 *    the ack of its handed-out CONNECT_REQUEST (300 ms: still waiting)
 *    and returns after it; destroying the request id first, with the
 *    event unacked, does not wait.
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

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_ksft.h"

/*
 * A TCP listener on @ip, on a new channel *@ch, and a new channel
 * *@cch for its clients.
 */
static struct rdma_cm_id *listener_of(struct __test_metadata *_metadata,
				      struct rdma_event_channel **ch,
				      struct rdma_event_channel **cch,
				      const char *ip)
{
	struct rdma_cm_id *l;

	*ch = guest_channel();
	*cch = guest_channel();
	ASSERT_TRUE(*ch && *cch);
	l = guest_listener(*ch, ip, RDMA_PS_TCP, NULL);
	ASSERT_NE(NULL, l);
	return l;
}

/* A client on @ch connecting, with a QP and @data, to listener @l on @ip. */
static struct rdma_cm_id *client_of(struct rdma_event_channel *ch,
				    const char *ip, struct rdma_cm_id *l,
				    const char *data)
{
	struct rdma_conn_param p = {
		.private_data = data,
		.private_data_len = data ? strlen(data) + 1 : 0,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};

	return guest_connecting(ch, ip, guest_port(l), RDMA_PS_TCP, &p);
}

TEST(listen_calls)
{
	struct rdma_cm_id *id = NULL, *ud = NULL, *a = NULL, *b = NULL;
	struct rdma_event_channel *ch;
	struct sockaddr_in *src, sin;
	int one = 1;

	GUEST_RXE_OR_SKIP(rxe);
	ch = guest_channel();
	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_listen(id, -1))
		TH_LOG("rdma_listen: %s", strerror(errno));
	src = (struct sockaddr_in *)rdma_get_local_addr(id);
	EXPECT_EQ(AF_INET, src->sin_family);
	EXPECT_EQ(htonl(INADDR_ANY), src->sin_addr.s_addr);
	EXPECT_NE(0, rdma_get_src_port(id));
	EXPECT_EQ(NULL, id->verbs);
	ASSERT_ERRNO(rdma_listen(id, 5), EINVAL);

	ASSERT_EQ(0, rdma_create_id(ch, &ud, NULL, RDMA_PS_UDP));
	ASSERT_EQ(0, rdma_listen(ud, 1))
		TH_LOG("UD rdma_listen: %s", strerror(errno));

	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &sin));
	ASSERT_EQ(0, rdma_create_id(ch, &a, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(ch, &b, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_set_option(a, RDMA_OPTION_ID,
				     RDMA_OPTION_ID_REUSEADDR, &one,
				     sizeof(one)));
	ASSERT_EQ(0, rdma_set_option(b, RDMA_OPTION_ID,
				     RDMA_OPTION_ID_REUSEADDR, &one,
				     sizeof(one)));
	ASSERT_EQ(0, rdma_bind_addr(a, (struct sockaddr *)&sin));
	ASSERT_EQ(0, rdma_bind_addr(b, (struct sockaddr *)&sin));
	ASSERT_ERRNO(rdma_listen(a, 1), EADDRINUSE);
	EXPECT_EQ(sin.sin_port, rdma_get_src_port(a));
	/* Alone on the port, the id listens after all. */
	ASSERT_EQ(0, rdma_destroy_id(b));
	b = NULL;
	ASSERT_EQ(0, rdma_listen(a, 1))
		TH_LOG("rdma_listen: %s", strerror(errno));
	/* rdma_get_request() is for synchronous listeners only. */
	ASSERT_ERRNO(rdma_get_request(a, &b), EINVAL);
	EXPECT_EQ(NULL, b);

	EXPECT_TRUE(guest_quiet(ch));
	ASSERT_EQ(0, rdma_destroy_id(a));
	ASSERT_EQ(0, rdma_destroy_id(ud));
	ASSERT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/* The client's REJECTED: its status, and its private data in @pd. */
static int client_rejected(struct rdma_event_channel *ch,
			   struct rdma_cm_id *c, uint8_t pd[148],
			   uint8_t *pd_len)
{
	struct rdma_cm_event *ev;
	int status;

	ev = guest_next_event(ch, RDMA_CM_EVENT_REJECTED, c);
	if (!ev)
		return -1000;
	status = ev->status;
	*pd_len = ev->param.conn.private_data_len;
	memset(pd, 0, 148);
	if (ev->param.conn.private_data)
		memcpy(pd, ev->param.conn.private_data,
		       *pd_len < 148 ? *pd_len : 148);
	rdma_ack_cm_event(ev);
	return status;
}

TEST(reject_variants)
{
	struct rdma_event_channel *ch, *cch;
	struct rdma_cm_id *l, *c1, *c2, *r;
	struct rdma_cm_event *ev;
	uint8_t big[149], pd[148], zero[148] = { 0 }, len;

	GUEST_RXE_OR_SKIP(rxe);
	memset(big, 0xab, sizeof(big));
	l = listener_of(_metadata, &ch, &cch, rxe);

	c1 = client_of(cch, rxe, l, "one");
	ASSERT_NE(NULL, c1);
	ev = guest_next_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	ASSERT_NE(NULL, ev);
	r = ev->id;
	ASSERT_ERRNO(rdma_reject(r, big, 149), EINVAL);
	ASSERT_ERRNO(rdma_reject_ece(r, big, 149), EINVAL);
	ASSERT_ERRNO(rdma_reject(l, NULL, 0), EINVAL);
	ASSERT_EQ(0, rdma_reject_ece(r, big, 148))
		TH_LOG("rdma_reject_ece: %s", strerror(errno));
	ASSERT_EQ(35, client_rejected(cch, c1, pd, &len));
	EXPECT_EQ(148, len);
	EXPECT_EQ(0, memcmp(pd, big, 148));
	ASSERT_ERRNO(rdma_reject(r, NULL, 0), EINVAL);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_EQ(0, rdma_destroy_id(r));
	ASSERT_EQ(0, rdma_destroy_id(c1));

	c2 = client_of(cch, rxe, l, "two");
	ASSERT_NE(NULL, c2);
	ev = guest_next_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	ASSERT_NE(NULL, ev);
	r = ev->id;
	ASSERT_EQ(0, rdma_reject(r, NULL, 10))
		TH_LOG("rdma_reject: %s", strerror(errno));
	ASSERT_EQ(28, client_rejected(cch, c2, pd, &len));
	EXPECT_EQ(0, memcmp(pd, zero, sizeof(zero)));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	/* The request id outlives its listener. */
	ASSERT_EQ(0, rdma_destroy_id(l));
	ASSERT_EQ(0, rdma_destroy_id(r));
	ASSERT_EQ(0, rdma_destroy_id(c2));
	rdma_destroy_event_channel(ch);
	rdma_destroy_event_channel(cch);
}

TEST(unread_request_of_destroyed_listener)
{
	struct rdma_event_channel *ch, *cch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *c;
	struct pollfd p = { .events = POLLIN };

	GUEST_RXE_OR_SKIP(rxe);
	l = listener_of(_metadata, &ch, &cch, rxe);
	p.fd = ch->fd;
	c = client_of(cch, rxe, l, "gone");
	ASSERT_NE(NULL, c);
	/* The request is queued, and stays unread. */
	ASSERT_EQ(1, poll(&p, 1, 10000))
		TH_LOG("no request within 10 s");
	ASSERT_EQ(0, rdma_destroy_id(l));
	ev = guest_next_event(cch, RDMA_CM_EVENT_REJECTED, c);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	EXPECT_TRUE(guest_quiet(ch));
	ASSERT_ERRNO(rdma_get_cm_event(ch, &ev), EAGAIN);
	ASSERT_EQ(0, rdma_destroy_id(c));
	rdma_destroy_event_channel(ch);
	rdma_destroy_event_channel(cch);
}

TEST(listener_waits_for_request_ack)
{
	struct rdma_event_channel *ch, *cch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *c;
	void *ret = (void *)-2;
	pthread_t t;

	GUEST_RXE_OR_SKIP(rxe);
	l = listener_of(_metadata, &ch, &cch, rxe);
	c = client_of(cch, rxe, l, "ack");
	ASSERT_NE(NULL, c);
	ev = guest_next_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	ASSERT_NE(NULL, ev);
	/* The request id: destroyed with its event unacked, at once. */
	ASSERT_EQ(0, pthread_create(&t, NULL, guest_destroy_thread, ev->id));
	ASSERT_TRUE(guest_join_within(t, 10000, &ret))
		TH_LOG("the request id's destroy waits for the ack");
	ASSERT_EQ(NULL, ret);
	/* The listener: waits for the ack. */
	guest_waits_for_ack(_metadata, guest_destroy_thread, l, ev,
			    "the listener's destroy", &ret);
	ASSERT_EQ(NULL, ret);
	ASSERT_EQ(0, rdma_destroy_id(c));
	rdma_destroy_event_channel(ch);
	rdma_destroy_event_channel(cch);
}

RCM_TEST_MAIN
