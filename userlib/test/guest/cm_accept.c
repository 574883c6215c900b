// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_accept: rdma_accept() and rdma_notify() on a request id, on
 * librdmacm.so.1 at both ends in one process, against the real module,
 * in a guest with a Soft-RoCE device. kselftest TAP. (Explicit depths
 * above the request's are cm_conn_compat's; the passive disconnect and
 * the synchronous accept are cm_connect's and cm_sync_channels'.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * The client connects with responder resources 2 and initiator depth 4
 * and a QP; the request id gets a QP of its own unless said otherwise.
 *
 * 1. accept_too_much_private_data: 197 bytes are EINVAL. rcm refuses
 *    them before the QP moves: it stays in INIT, and an accept with 196
 *    bytes then establishes the connection. librdmacm 44 moves the QP
 *    to RTR and RTS first and, when rdma_ucm refuses the reply, to ERR,
 *    and rdma_ucm rejects the request (rdma_accept(3) NOTES): the
 *    in-tree control expects ERR and the client's REJECTED (28).
 * 2. accept_with_qp: RDMA_MAX_RESP_RES, RDMA_MAX_INIT_DEPTH and 196
 *    bytes are accepted: the QP is in RTS with max_dest_rd_atomic 4 and
 *    max_rd_atomic 2 (the request's), the client's ESTABLISHED carries
 *    the 196 bytes, the server gets ESTABLISHED; a second accept is
 *    EINVAL and leaves the QP in RTS.
 * 3. accept_null_param: rdma_accept(id, NULL) takes the request's values
 *    (the QP as in 1) and RNR retry 7, which the client's ESTABLISHED
 *    shows with the depths seen from its side (2 and 4).
 * 4. accept_errors: without a QP, a NULL conn_param is EINVAL (rcm only:
 *    librdmacm 44 reads the QP number from it and crashes); an accept
 *    of the listener is the kernel's EINVAL; then an accept with the
 *    QP's number in conn_param establishes the connection.
 * 5. notify_comm_est: with the client's RTU held back (its channel not
 *    read), rdma_notify() of IBV_EVENT_QP_FATAL, LID_CHANGE and
 *    PATH_MIG (nothing established to migrate) is EINVAL, of
 *    IBV_EVENT_COMM_EST 0, and the server gets ESTABLISHED; the client's
 *    ESTABLISHED follows when it reads.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "rcm_ksft.h"

/*
 * A pair @p on @ip (QPs of 4 work requests) whose client connects
 * with depths 2 and 4: the request's event (to be acked), the request
 * taken with a QP of 4 work requests for it unless @wr is 0.
 */
static struct rdma_cm_event *connect_request(struct __test_metadata *_metadata,
					     struct guest_pair *p,
					     const char *ip, unsigned int wr)
{
	struct rdma_conn_param cp = {
		.responder_resources = 2, .initiator_depth = 4,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_cm_event *ev;

	ASSERT_TRUE(guest_pair_setup(p, ip, 4));
	ev = guest_pair_request(p, &cp, wr);
	ASSERT_NE(NULL, ev);
	return ev;
}

/* @p's server accepts the request of @ev with @cp, and @ev is acked. */
static void accept_request(struct __test_metadata *_metadata,
			   struct guest_pair *p, struct rdma_cm_event *ev,
			   struct rdma_conn_param *cp)
{
	ASSERT_EQ(0, rdma_accept(p->server, cp))
		TH_LOG("rdma_accept: %s", strerror(errno));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
}

/* @id's QP state, and its two depths. */
static int qp_state(struct rdma_cm_id *id, int *dest_rd, int *rd)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(id->qp, &a, IBV_QP_STATE | IBV_QP_MAX_DEST_RD_ATOMIC |
			 IBV_QP_MAX_QP_RD_ATOMIC, &init))
		return -1;
	if (dest_rd)
		*dest_rd = a.max_dest_rd_atomic;
	if (rd)
		*rd = a.max_rd_atomic;
	return a.qp_state;
}

/*
 * @p's server QP is ready to send, with the depths the request asked for
 * (2 and 4: from the server's side, max_dest_rd_atomic 4, max_rd_atomic
 * 2).
 */
static void server_qp_ready(struct __test_metadata *_metadata,
			    struct guest_pair *p)
{
	int dest_rd = -1, rd = -1;

	EXPECT_EQ(IBV_QPS_RTS, qp_state(p->server, &dest_rd, &rd));
	EXPECT_EQ(4, dest_rd);
	EXPECT_EQ(2, rd);
}

TEST(accept_too_much_private_data)
{
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_event *ev;
	struct guest_pair p;
	uint8_t data[197];

	GUEST_RXE_OR_SKIP(rxe);
	ev = connect_request(_metadata, &p, rxe, 4);
	guest_private_data(&cp, data, 197, 0xc3);
	ASSERT_ERRNO(rdma_accept(p.server, &cp), EINVAL);
	/*
	 * librdmacm readies the QP before the kernel refuses the reply,
	 * then moves it to ERR, and rdma_ucm's rdma_accept() also rejects
	 * the request (REJ 28); rcm refuses first (rdma_accept(3) NOTES).
	 */
	EXPECT_EQ(guest_on_rcm() ? IBV_QPS_INIT : IBV_QPS_ERR,
		  qp_state(p.server, NULL, NULL));
	ASSERT_TRUE(guest_accept_after_refusal(p.server, &cp, 196, p.chc,
					       p.client,
					       RDMA_CM_EVENT_REJECTED, 28));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	guest_pair_teardown(&p);
}

TEST(accept_with_qp)
{
	struct rdma_conn_param cp = { 0 };
	struct rdma_cm_event *ev, *est;
	struct guest_pair p;
	uint8_t data[196];

	GUEST_RXE_OR_SKIP(rxe);
	ev = connect_request(_metadata, &p, rxe, 4);
	guest_private_data(&cp, data, 196, 0xc3);
	cp.responder_resources = RDMA_MAX_RESP_RES;
	cp.initiator_depth = RDMA_MAX_INIT_DEPTH;
	accept_request(_metadata, &p, ev, &cp);
	server_qp_ready(_metadata, &p);

	est = guest_next_event(p.chc, RDMA_CM_EVENT_ESTABLISHED, p.client);
	ASSERT_NE(NULL, est);
	EXPECT_EQ(196, est->param.conn.private_data_len);
	EXPECT_EQ(0, memcmp(est->param.conn.private_data, data, 196));
	ASSERT_EQ(0, rdma_ack_cm_event(est));
	ASSERT_TRUE(guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED,
				       p.server));
	ASSERT_ERRNO(rdma_accept(p.server, &cp), EINVAL);
	EXPECT_EQ(IBV_QPS_RTS, qp_state(p.server, NULL, NULL));
	guest_pair_teardown(&p);
}

TEST(accept_null_param)
{
	struct rdma_cm_event *ev, *est;
	struct guest_pair p;

	GUEST_RXE_OR_SKIP(rxe);
	ev = connect_request(_metadata, &p, rxe, 4);
	accept_request(_metadata, &p, ev, NULL);
	server_qp_ready(_metadata, &p);
	est = guest_next_event(p.chc, RDMA_CM_EVENT_ESTABLISHED, p.client);
	ASSERT_NE(NULL, est);
	EXPECT_EQ(2, est->param.conn.responder_resources);
	EXPECT_EQ(4, est->param.conn.initiator_depth);
	EXPECT_EQ(7, est->param.conn.rnr_retry_count);
	ASSERT_EQ(0, rdma_ack_cm_event(est));
	ASSERT_TRUE(guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED,
				       p.server));
	guest_pair_teardown(&p);
}

/* An accept for a QP of the application's own (a made-up number). */
static const struct rdma_conn_param own_qp = {
	.responder_resources = 1, .initiator_depth = 1,
	.rnr_retry_count = 7, .qp_num = 0x4321,
};

TEST(accept_errors)
{
	struct rdma_conn_param cp = own_qp;
	struct rdma_cm_event *ev;
	struct guest_pair p;

	GUEST_RXE_OR_SKIP(rxe);
	ev = connect_request(_metadata, &p, rxe, 0);
	/* librdmacm reads the QP number from the NULL conn_param. */
	if (guest_on_rcm())
		ASSERT_ERRNO(rdma_accept(p.server, NULL), EINVAL);
	ASSERT_ERRNO(rdma_accept(p.listener, &cp), EINVAL);
	accept_request(_metadata, &p, ev, &cp);
	ASSERT_TRUE(guest_expect_event(p.chc, RDMA_CM_EVENT_ESTABLISHED,
				       p.client));
	ASSERT_TRUE(guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED,
				       p.server));
	guest_pair_teardown(&p);
}

/*
 * An application that moves its own QP asks for the attributes of each
 * state in turn: RTR and RTS after the accept take the accept's depths
 * (rcm's library once served them from a cache filled before it).
 */
TEST(init_qp_attr_after_accept)
{
	struct rdma_conn_param cp = own_qp;
	struct rdma_cm_event *ev;
	struct ibv_qp_attr a;
	struct guest_pair p;
	int mask;

	GUEST_RXE_OR_SKIP(rxe);
	ev = connect_request(_metadata, &p, rxe, 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	ASSERT_EQ(0, rdma_init_qp_attr(p.server, &a, &mask))
		TH_LOG("INIT: %s", strerror(errno));
	accept_request(_metadata, &p, ev, &cp);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ASSERT_EQ(0, rdma_init_qp_attr(p.server, &a, &mask))
		TH_LOG("RTR: %s", strerror(errno));
	EXPECT_EQ(1, a.max_dest_rd_atomic);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, rdma_init_qp_attr(p.server, &a, &mask))
		TH_LOG("RTS: %s", strerror(errno));
	EXPECT_EQ(1, a.max_rd_atomic);
	ASSERT_TRUE(guest_expect_event(p.chc, RDMA_CM_EVENT_ESTABLISHED,
				       p.client));
	guest_pair_teardown(&p);
}

TEST(notify_comm_est)
{
	struct rdma_cm_event *ev;
	struct guest_pair p;

	GUEST_RXE_OR_SKIP(rxe);
	ev = connect_request(_metadata, &p, rxe, 4);
	accept_request(_metadata, &p, ev, NULL);
	ASSERT_ERRNO(rdma_notify(p.server, IBV_EVENT_QP_FATAL), EINVAL);
	ASSERT_ERRNO(rdma_notify(p.server, IBV_EVENT_LID_CHANGE), EINVAL);
	/* Not established yet: ib_cm has nothing to migrate. */
	ASSERT_ERRNO(rdma_notify(p.server, IBV_EVENT_PATH_MIG), EINVAL);
	EXPECT_TRUE(guest_quiet(p.chs));
	ASSERT_EQ(0, rdma_notify(p.server, IBV_EVENT_COMM_EST))
		TH_LOG("rdma_notify: %s", strerror(errno));
	ASSERT_TRUE(guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED,
				       p.server));
	ASSERT_TRUE(guest_expect_event(p.chc, RDMA_CM_EVENT_ESTABLISHED,
				       p.client));
	guest_pair_teardown(&p);
}

RCM_TEST_MAIN
