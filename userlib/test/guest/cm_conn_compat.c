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

/*
 * @p's client (set up on @ip, RC QPs) connects with @req and its
 * server accepts with @rep; the request's parameters as the server saw
 * them in *@at_req, the REP's as the client's ESTABLISHED shows them in
 * *@at_est. True when both ends got established; @p is left up for the
 * case's own checks (guest_pair_teardown() in any case).
 */
static bool connect_seen(struct guest_pair *p, const char *ip,
			 struct rdma_conn_param *req,
			 struct rdma_conn_param *rep,
			 struct rdma_conn_param *at_req,
			 struct rdma_conn_param *at_est)
{
	struct rdma_cm_event *ev;
	bool ok;

	if (!guest_pair_setup(p, ip, 1))
		return false;
	ev = guest_pair_request(p, req, 1);
	if (!ev)
		return false;
	*at_req = ev->param.conn;
	rdma_ack_cm_event(ev);
	ok = CHECK(rdma_accept(p->server, rep) == 0);
	ev = guest_next_event(p->chc, RDMA_CM_EVENT_ESTABLISHED, p->client);
	if (!ev)
		return false;
	*at_est = ev->param.conn;
	rdma_ack_cm_event(ev);
	return ok & guest_expect_event(p->chs, RDMA_CM_EVENT_ESTABLISHED,
				       p->server);
}

/*
 * The cases of connection parameters, which differ only in data: the
 * client connects with @req, the server accepts with @rep; what the
 * request, the server's QP and the client's ESTABLISHED must show (-1:
 * not checked).
 */
struct param_case {
	struct rdma_conn_param req, rep;
	int req_resources, req_depth, req_retry, req_rnr_retry;
	int qp_dest_rd_atomic, qp_rd_atomic;
	int est_resources, est_depth, est_rnr_retry;
};

/* 1. retry counts 15, lowered to the 3-bit fields' 7 both ways. */
static const struct param_case retry_15 = {
	.req = { .responder_resources = 1, .initiator_depth = 1,
		 .retry_count = 15, .rnr_retry_count = 15 },
	.rep = { .responder_resources = 1, .initiator_depth = 1,
		 .retry_count = 15, .rnr_retry_count = 15 },
	.req_resources = -1, .req_depth = -1,
	.req_retry = 7, .req_rnr_retry = 7,
	.qp_dest_rd_atomic = -1, .qp_rd_atomic = -1,
	.est_resources = -1, .est_depth = -1, .est_rnr_retry = 7,
};

/*
 * 2. Depths above the request's, used as given; the client sees the
 * REP's values swapped.
 */
static const struct param_case depths_4_2 = {
	.req = GUEST_CONN_PARAM,
	.rep = { .responder_resources = 4, .initiator_depth = 2,
		 .rnr_retry_count = 7 },
	.req_resources = 1, .req_depth = 1,
	.req_retry = -1, .req_rnr_retry = -1,
	.qp_dest_rd_atomic = 4, .qp_rd_atomic = 2,
	.est_resources = 2, .est_depth = 4, .est_rnr_retry = -1,
};

/* @got is @want, or @want is -1 (not checked); says so when not. */
#define SEEN(got, want)	((want) < 0 || CHECK((got) == (want)))

static bool params_seen(const char *ip, const struct param_case *c)
{
	struct rdma_conn_param req = c->req, rep = c->rep, at_req, at_est;
	struct ibv_qp_attr attr = { 0 };
	struct ibv_qp_init_attr init;
	struct guest_pair p;
	bool ok;

	ok = connect_seen(&p, ip, &req, &rep, &at_req, &at_est);
	if (ok) {
		ok &= CHECK(ibv_query_qp(p.server->qp, &attr,
					 IBV_QP_MAX_DEST_RD_ATOMIC |
					 IBV_QP_MAX_QP_RD_ATOMIC, &init) == 0);
		ok &= SEEN(at_req.responder_resources, c->req_resources);
		ok &= SEEN(at_req.initiator_depth, c->req_depth);
		ok &= SEEN(at_req.retry_count, c->req_retry);
		ok &= SEEN(at_req.rnr_retry_count, c->req_rnr_retry);
		ok &= SEEN(attr.max_dest_rd_atomic, c->qp_dest_rd_atomic);
		ok &= SEEN(attr.max_rd_atomic, c->qp_rd_atomic);
		ok &= SEEN(at_est.responder_resources, c->est_resources);
		ok &= SEEN(at_est.initiator_depth, c->est_depth);
		ok &= SEEN(at_est.rnr_retry_count, c->est_rnr_retry);
	}
	guest_pair_teardown(&p);
	return ok;
}

/*
 * @p's client connects with the library's defaults and its server takes
 * the request (acked, with an RC QP): true if so.
 */
static bool request_taken(struct guest_pair *p)
{
	struct rdma_cm_event *ev = guest_pair_request(p, NULL, 1);

	if (ev)
		rdma_ack_cm_event(ev);
	return ev != NULL;
}

static bool disconnect_returns_0(const char *ip)
{
	struct rdma_cm_event *ev;
	struct guest_pair p, r;
	bool ok = false;

	memset(&r, 0, sizeof(r));
	if (!guest_pair_setup(&p, ip, 0))
		goto out;
	/*
	 * Never connected: nothing to disconnect, as in-tree. (No QP yet:
	 * the library would move it to ERR first, as librdmacm does.)
	 */
	errno = 0;
	ok = CHECK(rdma_disconnect(p.client) == -1 && errno == EINVAL);
	if (!guest_create_qp(p.client, IBV_QPT_RC, 1) || !request_taken(&p)) {
		ok = false;
		goto out;
	}
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
	if (!guest_pair_setup(&r, ip, 1) || !request_taken(&r)) {
		ok = false;
		goto out;
	}
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

	if (!guest_pair_setup(&p, ip, 0) ||
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

GUEST_RXE_TEST(retry_counts_15_taken_as_7, params_seen(rxe, &retry_15))
GUEST_RXE_TEST(accept_explicit_depths_as_given,
	       params_seen(rxe, &depths_4_2))
GUEST_RXE_TEST(disconnect_0_again_after_drep_and_rejected,
	       disconnect_returns_0(rxe))
GUEST_RXE_TEST(ece_in_req_and_rep, ece_on_the_wire(rxe))

RCM_TEST_MAIN
