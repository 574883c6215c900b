// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_conn_compat: connection parameters and rdma_disconnect() as the
 * in-tree CM treats them, on librdmacm.so.1 (rcm) at both ends, in one
 * process, in a guest with a Soft-RoCE device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * 1. retry_count and rnr_retry_count 15 (what libfabric's verbs provider
 *    connects with): rdma_connect() succeeds, and the CONNECT_REQUEST
 *    shows 7 and 7 (the 3-bit REQ fields, as in-tree cma_connect_ib()
 *    lowers them); an accept with rnr_retry_count 15 succeeds, and the
 *    client's ESTABLISHED shows the REP's 7.
 * 2. rdma_accept() with explicit responder_resources 4 and
 *    initiator_depth 2, above the request's 1 and 1: used as given, as
 *    in-tree - the server's QP gets max_dest_rd_atomic 4 and max_rd_atomic
 *    2, and the client's ESTABLISHED shows the REP's values (seen from
 *    the client: responder_resources 2, initiator_depth 4). Powers of
 *    two: rxe rounds the QP's values up to one.
 * 3. rdma_disconnect() returns 0 wherever the in-tree stack does: the
 *    client disconnects (DREQ), the server answers its DISCONNECTED with
 *    rdma_disconnect() (DREP), then both call it again; and a client
 *    whose request was rejected (REJECTED) calls it. An id that never
 *    connected still gets EINVAL.
 * 4. ECE travels in the REQ and the REP (ids without QPs, as Soft-RoCE
 *    has no ECE of its own): the client's rdma_set_local_ece() values
 *    are the request id's rdma_get_remote_ece(); the REP carries the
 *    request's vendor ID back with the server's options (librdmacm's
 *    rule), which the client reads after CONNECT_RESPONSE.
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * The ports must be free, also for the kernel's rdma_cm.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "rcm_ksft.h"

#define RETRY_PORT	20610
#define DEPTH_PORT	20611
#define DISC_PORT	20612
#define REJECT_PORT	20613
#define ECE_PORT	20614

static bool retry_counts_above_7(const char *ip)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct guest_pair p;
	bool ok = false;

	if (!guest_pair_setup(&p, ip, RETRY_PORT, 1))
		goto out;
	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 15;
	cp.rnr_retry_count = 15;
	ev = guest_pair_request(&p, &cp, 1);
	if (!ev)
		goto out;
	ok = CHECK(ev->param.conn.retry_count == 7);
	ok &= CHECK(ev->param.conn.rnr_retry_count == 7);
	rdma_ack_cm_event(ev);

	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 15;
	cp.rnr_retry_count = 15;
	ok &= CHECK(rdma_accept(p.server, &cp) == 0);
	ev = guest_next_event(p.chc, RDMA_CM_EVENT_ESTABLISHED, p.client);
	ok &= ev != NULL;
	if (ev) {
		ok &= CHECK(ev->param.conn.rnr_retry_count == 7);
		rdma_ack_cm_event(ev);
	}
	ok &= guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED, p.server);
out:
	guest_pair_teardown(&p);
	return ok;
}

static bool accept_depths_as_given(const char *ip)
{
	struct ibv_qp_init_attr init;
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct ibv_qp_attr attr;
	struct guest_pair p;
	bool ok = false;

	if (!guest_pair_setup(&p, ip, DEPTH_PORT, 1))
		goto out;
	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	ev = guest_pair_request(&p, &cp, 1);
	if (!ev)
		goto out;
	ok = CHECK(ev->param.conn.responder_resources == 1);
	ok &= CHECK(ev->param.conn.initiator_depth == 1);
	rdma_ack_cm_event(ev);

	memset(&cp, 0, sizeof(cp));
	cp.responder_resources = 4;
	cp.initiator_depth = 2;
	cp.rnr_retry_count = 7;
	ok &= CHECK(rdma_accept(p.server, &cp) == 0);
	ok &= CHECK(ibv_query_qp(p.server->qp, &attr,
				 IBV_QP_MAX_DEST_RD_ATOMIC |
				 IBV_QP_MAX_QP_RD_ATOMIC, &init) == 0);
	ok &= CHECK(attr.max_dest_rd_atomic == 4);
	ok &= CHECK(attr.max_rd_atomic == 2);
	ev = guest_next_event(p.chc, RDMA_CM_EVENT_ESTABLISHED, p.client);
	ok &= ev != NULL;
	if (ev) {
		/* The REP's values, seen from the client: swapped. */
		ok &= CHECK(ev->param.conn.responder_resources == 2);
		ok &= CHECK(ev->param.conn.initiator_depth == 4);
		rdma_ack_cm_event(ev);
	}
	ok &= guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED, p.server);
out:
	guest_pair_teardown(&p);
	return ok;
}

static bool disconnect_returns_0(const char *ip)
{
	struct rdma_cm_event *ev;
	struct guest_pair p, r;
	bool ok = false;

	memset(&r, 0, sizeof(r));
	if (!guest_pair_setup(&p, ip, DISC_PORT, 0))
		goto out;
	/*
	 * Never connected: nothing to disconnect, as in-tree. (No QP yet:
	 * the library would move it to ERR first, as librdmacm does.)
	 */
	errno = 0;
	ok = CHECK(rdma_disconnect(p.client) == -1 && errno == EINVAL);
	if (!guest_create_qp(p.client, IBV_QPT_RC, 1)) {
		ok = false;
		goto out;
	}
	ev = guest_pair_request(&p, NULL, 1);
	if (!ev) {
		ok = false;
		goto out;
	}
	rdma_ack_cm_event(ev);
	ok &= CHECK(rdma_accept(p.server, NULL) == 0);
	ok &= guest_expect_event(p.chc, RDMA_CM_EVENT_ESTABLISHED, p.client);
	ok &= guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED, p.server);

	/* DREQ; the server answers its DISCONNECTED (DREP). */
	ok &= CHECK(rdma_disconnect(p.client) == 0);
	ok &= guest_expect_event(p.chs, RDMA_CM_EVENT_DISCONNECTED, p.server);
	ok &= CHECK(rdma_disconnect(p.server) == 0);
	ok &= guest_expect_event(p.chc, RDMA_CM_EVENT_DISCONNECTED, p.client);
	/* Again, on both sides, after the DREQ/DREP exchange. */
	ok &= CHECK(rdma_disconnect(p.client) == 0);
	ok &= CHECK(rdma_disconnect(p.server) == 0);

	/* After REJECTED. */
	if (!guest_pair_setup(&r, ip, REJECT_PORT, 1)) {
		ok = false;
		goto out;
	}
	ev = guest_pair_request(&r, NULL, 1);
	if (!ev) {
		ok = false;
		goto out;
	}
	rdma_ack_cm_event(ev);
	ok &= CHECK(rdma_reject(r.server, NULL, 0) == 0);
	ev = guest_next_event(r.chc, RDMA_CM_EVENT_REJECTED, r.client);
	ok &= ev != NULL;
	if (ev)
		rdma_ack_cm_event(ev);
	ok &= CHECK(rdma_disconnect(r.client) == 0);
	/* And the rejecting side's request id too. */
	ok &= CHECK(rdma_disconnect(r.server) == 0);
out:
	guest_pair_teardown(&p);
	guest_pair_teardown(&r);
	return ok;
}

static bool ece_on_the_wire(const char *ip)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .qp_num = 0x1234,
	};
	struct ibv_ece mine = { .vendor_id = 0x123456, .options = 0x56 };
	struct ibv_ece theirs = { .vendor_id = 0x654321, .options = 0x77 };
	struct ibv_ece got;
	struct rdma_cm_event *ev;
	struct guest_pair p;
	bool ok = false;

	if (!guest_pair_setup(&p, ip, ECE_PORT, 0) ||
	    !CHECK(rdma_set_local_ece(p.client, &mine) == 0))
		goto out;
	ev = guest_pair_request(&p, &cp, 0);
	if (!ev)
		goto out;
	rdma_ack_cm_event(ev);
	memset(&got, 0, sizeof(got));
	ok = CHECK(rdma_get_remote_ece(p.server, &got) == 0);
	ok &= CHECK(got.vendor_id == mine.vendor_id &&
		    got.options == mine.options);
	if (!ok)
		printf("# the request's ECE: %#x %#x\n", got.vendor_id,
		       got.options);
	ok &= CHECK(rdma_set_local_ece(p.server, &theirs) == 0);
	cp.qp_num = 0x4321;	/* another QP number than the client's */
	ok &= CHECK(rdma_accept(p.server, &cp) == 0);
	ev = guest_next_event(p.chc, RDMA_CM_EVENT_CONNECT_RESPONSE, p.client);
	ok &= ev != NULL;
	if (ev)
		rdma_ack_cm_event(ev);
	memset(&got, 0, sizeof(got));
	ok &= CHECK(rdma_get_remote_ece(p.client, &got) == 0);
	ok &= CHECK(got.vendor_id == mine.vendor_id &&
		    got.options == theirs.options);
	if (!ok)
		printf("# the reply's ECE: %#x %#x\n", got.vendor_id,
		       got.options);
	ok &= CHECK(rdma_establish(p.client) == 0);
	ok &= guest_expect_event(p.chs, RDMA_CM_EVENT_ESTABLISHED, p.server);
out:
	guest_pair_teardown(&p);
	return ok;
}

GUEST_RXE_TEST(retry_counts_15_taken_as_7, retry_counts_above_7(rxe))
GUEST_RXE_TEST(accept_explicit_depths_as_given, accept_depths_as_given(rxe))
GUEST_RXE_TEST(disconnect_0_again_after_drep_and_rejected,
	       disconnect_returns_0(rxe))
GUEST_RXE_TEST(ece_in_req_and_rep, ece_on_the_wire(rxe))

RCM_TEST_MAIN
