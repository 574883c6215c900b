// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_ud: datagram ids and service ID resolution (SIDR) through
 * librdmacm.so.1 at both ends in one process, against the real module,
 * in a guest with a Soft-RoCE device. kselftest TAP. (Datagrams after
 * SIDR are Debian's udaddy's, udaddy.sh; the kernel side is the sidr
 * selftest's.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * Every id is RDMA_PS_UDP with a UD QP unless said otherwise.
 *
 * 1. sidr_private_data: 181 bytes of connect data are EINVAL, 180 reach
 *    the listener whole in param.ud of a CONNECT_REQUEST whose id is UD;
 *    136 bytes of accept data are accepted with no event on the server,
 *    and the client's ESTABLISHED carries the server QP's number, a
 *    Q_Key and the 136 bytes.
 * 2. sidr_accept_too_much: 137 bytes of accept data are EINVAL. On rcm
 *    the request still waits (the client hears nothing) and 136 bytes
 *    then establish it; rdma_ucm rejects the request when its accept
 *    fails, and the client gets UNREACHABLE with status 2 (the in-tree
 *    control expects that; rdma_accept(3) NOTES).
 * 3. sidr_reject: 137 bytes of reject data are EINVAL; 136 give the
 *    client UNREACHABLE with status 2 (the SIDR reply's "rejected").
 * 4. sync_sidr_connect: a synchronous client to a port nobody serves
 *    gets -1 with errno 1, UNREACHABLE status 1 (the SIDR reply's
 *    "unsupported") in id->event; to a listener served by a thread it
 *    returns 0 with ESTABLISHED in id->event.
 * 5. sync_ud_accept: a synchronous UD listener's request (from
 *    rdma_get_request()) is accepted at once, its CONNECT_REQUEST still
 *    in id->event, as librdmacm 44 leaves it (rcm's library acked it
 *    there until this test); the client gets ESTABLISHED.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
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
#include "common/guest_ksft.h"

/*
 * A UD pair @p on @ip whose client connects with @cp: the
 * request's event on the listener's channel (to be acked).
 */
static struct rdma_cm_event *sidr_request(struct __test_metadata *_metadata,
					  struct guest_pair *p, const char *ip,
					  struct rdma_conn_param *cp)
{
	struct rdma_cm_event *ev;

	ASSERT_TRUE(guest_pair_setup_ps(p, ip, RDMA_PS_UDP, 4));
	ASSERT_EQ(0, rdma_connect(p->client, cp))
		TH_LOG("rdma_connect: %s", strerror(errno));
	ev = guest_next_event(p->chs, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	ASSERT_NE(NULL, ev);
	return ev;
}

TEST(sidr_private_data)
{
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_event *ev, *est;
	struct rdma_cm_id *r;
	struct guest_pair p;
	uint8_t out[181], back[137];

	GUEST_RXE_OR_SKIP(rxe);
	memset(out, 0x18, sizeof(out));
	memset(back, 0x13, sizeof(back));
	ASSERT_TRUE(guest_pair_setup_ps(&p, rxe, RDMA_PS_UDP, 4));
	cp.private_data = out;
	cp.private_data_len = 181;
	ASSERT_ERRNO(rdma_connect(p.client, &cp), EINVAL);
	cp.private_data_len = 180;
	ASSERT_EQ(0, rdma_connect(p.client, &cp))
		TH_LOG("rdma_connect: %s", strerror(errno));
	ev = guest_next_event(p.chs, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	ASSERT_NE(NULL, ev);
	r = ev->id;
	EXPECT_EQ(IBV_QPT_UD, r->qp_type);
	EXPECT_EQ(p.listener, ev->listen_id);
	ASSERT_TRUE(ev->param.ud.private_data_len >= 180);
	EXPECT_EQ(0, memcmp(ev->param.ud.private_data, out, 180));
	ASSERT_TRUE(guest_create_qp(r, IBV_QPT_UD, 4));

	cp.private_data = back;
	cp.private_data_len = 136;
	ASSERT_EQ(0, rdma_accept(r, &cp))
		TH_LOG("rdma_accept: %s", strerror(errno));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	est = guest_next_event(p.chc, RDMA_CM_EVENT_ESTABLISHED, p.client);
	ASSERT_NE(NULL, est);
	EXPECT_EQ(r->qp->qp_num, est->param.ud.qp_num);
	EXPECT_NE(0, est->param.ud.qkey);
	ASSERT_TRUE(est->param.ud.private_data_len >= 136);
	EXPECT_EQ(0, memcmp(est->param.ud.private_data, back, 136));
	ASSERT_EQ(0, rdma_ack_cm_event(est));
	EXPECT_TRUE(guest_quiet(p.chs));
	guest_destroy_id(r);
	guest_pair_teardown(&p);
}

TEST(sidr_accept_too_much)
{
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_event *ev;
	struct guest_pair p;
	uint8_t data[137];

	GUEST_RXE_OR_SKIP(rxe);
	ev = sidr_request(_metadata, &p, rxe, &cp);
	ASSERT_TRUE(guest_create_qp(ev->id, IBV_QPT_UD, 4));
	guest_private_data(&cp, data, 137, 0x31);
	ASSERT_ERRNO(rdma_accept(ev->id, &cp), EINVAL);
	/*
	 * Refused before the kernel on rcm: the request still waits.
	 * rdma_ucm's rdma_accept() rejects what it cannot accept (SIDR
	 * status 2).
	 */
	if (guest_on_rcm())
		EXPECT_TRUE(guest_quiet(p.chc));
	ASSERT_TRUE(guest_accept_after_refusal(ev->id, &cp, 136, p.chc,
					       p.client,
					       RDMA_CM_EVENT_UNREACHABLE, 2));
	guest_destroy_id(ev->id);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	guest_pair_teardown(&p);
}

TEST(sidr_reject)
{
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_event *ev, *un;
	struct guest_pair p;
	uint8_t data[137];

	GUEST_RXE_OR_SKIP(rxe);
	memset(data, 0x21, sizeof(data));
	ev = sidr_request(_metadata, &p, rxe, &cp);
	ASSERT_ERRNO(rdma_reject(ev->id, data, 137), EINVAL);
	ASSERT_EQ(0, rdma_reject(ev->id, data, 136))
		TH_LOG("rdma_reject: %s", strerror(errno));
	un = guest_next_event(p.chc, RDMA_CM_EVENT_UNREACHABLE, p.client);
	ASSERT_NE(NULL, un);
	EXPECT_EQ(2, un->status);
	ASSERT_EQ(0, rdma_ack_cm_event(un));
	guest_destroy_id(ev->id);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	guest_pair_teardown(&p);
}

/* Serves one SIDR request of @arg's listener, with a QP. */
static void *sidr_server(void *arg)
{
	struct guest_pair *p = arg;
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *r;
	bool ok;

	ev = guest_next_event(p->chs, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	if (!ev)
		return (void *)1;
	r = ev->id;
	ok = guest_create_qp(r, IBV_QPT_UD, 4) &&
	     CHECK(rdma_accept(r, &cp) == 0);
	rdma_ack_cm_event(ev);
	/* The request id stays until the client has its reply. */
	return ok ? r : (void *)1;
}

TEST(sync_sidr_connect)
{
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_id *c, *r;
	struct sockaddr_in dst;
	struct guest_pair p;
	void *ret = NULL;
	pthread_t t;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_UDP, &dst));
	c = guest_sync_routed(_metadata, &dst, RDMA_PS_UDP);
	ASSERT_ERRNO(rdma_connect(c, &cp), 1);
	ASSERT_NE(NULL, c->event);
	EXPECT_EQ(RDMA_CM_EVENT_UNREACHABLE, c->event->event);
	EXPECT_EQ(1, c->event->status);
	guest_destroy_id(c);

	/* Served: the listener's side in a thread. */
	memset(&p, 0, sizeof(p));
	p.chs = guest_channel();
	ASSERT_NE(NULL, p.chs);
	p.listener = guest_listener(p.chs, rxe, RDMA_PS_UDP, NULL);
	ASSERT_NE(NULL, p.listener);
	ASSERT_TRUE(guest_parse_ipv4(rxe, guest_port(p.listener), &dst));
	c = guest_sync_routed(_metadata, &dst, RDMA_PS_UDP);
	ASSERT_EQ(0, pthread_create(&t, NULL, sidr_server, &p));
	ASSERT_EQ(0, rdma_connect(c, &cp))
		TH_LOG("synchronous SIDR connect: %s", strerror(errno));
	ASSERT_NE(NULL, c->event);
	EXPECT_EQ(RDMA_CM_EVENT_ESTABLISHED, c->event->event);
	ASSERT_TRUE(guest_join_within(t, 10000, &ret));
	ASSERT_NE((void *)1, ret);
	r = ret;
	EXPECT_EQ(r->qp->qp_num, c->event->param.ud.qp_num);
	guest_destroy_id(c);
	guest_destroy_id(r);
	guest_pair_teardown(&p);
}

TEST(sync_ud_accept)
{
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_id *l, *c, *r = NULL;
	struct rdma_event_channel *chc;

	GUEST_RXE_OR_SKIP(rxe);
	chc = guest_channel();
	ASSERT_NE(NULL, chc);
	l = guest_listener(NULL, rxe, RDMA_PS_UDP, NULL);
	ASSERT_NE(NULL, l);
	c = guest_connecting(chc, rxe, guest_port(l), RDMA_PS_UDP, &cp);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, rdma_get_request(l, &r))
		TH_LOG("rdma_get_request: %s", strerror(errno));
	ASSERT_NE(NULL, r->event);
	ASSERT_TRUE(guest_create_qp(r, IBV_QPT_UD, 4));
	ASSERT_EQ(0, rdma_accept(r, &cp))
		TH_LOG("synchronous UD accept: %s", strerror(errno));
	/* The request stays readable, as librdmacm leaves it. */
	ASSERT_NE(NULL, r->event);
	EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, r->event->event);
	EXPECT_EQ(r, r->event->id);
	ASSERT_TRUE(guest_expect_event(chc, RDMA_CM_EVENT_ESTABLISHED, c));
	guest_destroy_id(r);
	guest_destroy_id(c);
	guest_destroy_id(l);
	rdma_destroy_event_channel(chc);
}

RCM_TEST_MAIN
