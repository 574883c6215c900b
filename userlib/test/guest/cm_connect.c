// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_connect: a connection through librdmacm.so.1 (rcm) on both ends,
 * in one process, in a guest with a Soft-RoCE device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * 1. async: a listener on RCM_ADDR_RXE and a client, each
 *    on its own channel, each with a QP from rdma_create_qp(); the
 *    client connects with private data "hello-server", the listener
 *    sees it in CONNECT_REQUEST (56 bytes, zero padded) and accepts
 *    with "hello-client", which the client sees in ESTABLISHED (196
 *    bytes); the listener's request id gets ESTABLISHED too. Then one
 *    RDMA SEND each way: both send completions succeed, both receive
 *    completions carry the other side's message with its exact length.
 *    The client disconnects (its QP in the error state); the server gets
 *    DISCONNECTED (its QP untouched, as librdmacm leaves it) and answers
 *    with rdma_disconnect(), which moves its QP to the error state and
 *    gives the client DISCONNECTED. Destroy all.
 * 2. async: the client connects to a port nobody listens on (one a
 *    bind chose for an id that is gone): REJECTED with status 8
 *    (invalid service ID), and the client's QP is in the error state.
 * 3. sync: a synchronous listener serves one request in a thread
 *    (rdma_get_request(), a QP, rdma_accept() waiting for
 *    ESTABLISHED, rdma_disconnect() waiting for DISCONNECTED) while a
 *    synchronous client connects (rdma_connect() returns with
 *    ESTABLISHED and the server's private data in id->event), then
 *    disconnects too (rdma_disconnect() returns with DISCONNECTED
 *    in id->event, whichever side's DREQ came first).
 * 4. async, migration: connect as in 1 (no private
 *    data), then move the server's request id to a third channel with
 *    rdma_migrate_id(); the client's disconnect gives the server
 *    DISCONNECTED on that channel and nothing on the listener's.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "rcm_ksft.h"

#define MSG_SIZE	64

static bool create_qp(struct rdma_cm_id *id)
{
	if (!guest_create_qp(id, IBV_QPT_RC, 4))
		return false;
	return CHECK(id->qp && id->send_cq && id->recv_cq &&
		     id->send_cq_channel && id->recv_cq_channel);
}

static enum ibv_qp_state qp_state(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(id->qp, &attr, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	return attr.qp_state;
}

/* One endpoint's message buffers and their registration. */
struct side {
	struct rdma_cm_id *id;
	char send[MSG_SIZE];
	char recv[MSG_SIZE];
	struct ibv_mr *send_mr;
	struct ibv_mr *recv_mr;
};

static bool side_setup(struct side *s, const char *msg)
{
	memset(s->send, 0, sizeof(s->send));
	memset(s->recv, 0, sizeof(s->recv));
	snprintf(s->send, sizeof(s->send), "%s", msg);
	s->send_mr = rdma_reg_msgs(s->id, s->send, sizeof(s->send));
	s->recv_mr = rdma_reg_msgs(s->id, s->recv, sizeof(s->recv));
	if (!CHECK(s->send_mr && s->recv_mr))
		return false;
	return CHECK(rdma_post_recv(s->id, s, s->recv, sizeof(s->recv),
				    s->recv_mr) == 0);
}

static void side_release(struct side *s)
{
	if (s->send_mr)
		rdma_dereg_mr(s->send_mr);
	if (s->recv_mr)
		rdma_dereg_mr(s->recv_mr);
	s->send_mr = s->recv_mr = NULL;
	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
}

/*
 * One completion of cq within 5 s. The CQ is polled, as verbs programs
 * do, a millisecond apart: the pause paces the poll of an event, and no
 * wait ends by it but at the 5 s bound.
 */
static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec pause = { .tv_nsec = 1000000 };
	int i, n;

	for (i = 0; i < 5000; i++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return CHECK(n == 1);
		nanosleep(&pause, NULL);
	}
	printf("# no completion within 5 s\n");
	return false;
}

/* Send s's message with one RDMA SEND; check both completions. */
static bool exchange(struct side *from, struct side *to)
{
	size_t len = strlen(from->send) + 1;
	struct ibv_wc wc;
	bool ok = true;

	if (!CHECK(rdma_post_send(from->id, from, from->send, len,
				  from->send_mr, IBV_SEND_SIGNALED) == 0))
		return false;
	if (poll_one(from->id->send_cq, &wc)) {
		ok &= CHECK(wc.status == IBV_WC_SUCCESS);
		ok &= CHECK(wc.opcode == IBV_WC_SEND);
		ok &= CHECK(wc.wr_id == (uintptr_t)from);
	} else {
		ok = false;
	}
	if (poll_one(to->id->recv_cq, &wc)) {
		ok &= CHECK(wc.status == IBV_WC_SUCCESS);
		ok &= CHECK(wc.opcode == IBV_WC_RECV);
		ok &= CHECK(wc.wr_id == (uintptr_t)to);
		ok &= CHECK(wc.byte_len == len);
		ok &= CHECK(!memcmp(to->recv, from->send, len));
		if (wc.status == IBV_WC_SUCCESS)
			printf("# QP %#x received \"%.*s\"\n", wc.qp_num,
			       (int)len, to->recv);
	} else {
		ok = false;
	}
	return ok;
}

/* The first bytes of a private data area, then zeros to its end. */
static bool pdata_is(const void *pdata, unsigned int len, const char *want,
		     unsigned int want_len)
{
	const unsigned char *p = pdata;
	size_t n = strlen(want) + 1;
	unsigned int i;

	if (!CHECK(p != NULL && len == want_len && n <= len) ||
	    !CHECK(!memcmp(p, want, n)))
		return false;
	for (i = n; i < len; i++)
		if (!CHECK(p[i] == 0))
			return false;
	return true;
}

/* @id on @ch resolved to a port of @ip nobody listens on. */
static bool resolve_nobody(struct rdma_event_channel *ch,
			   struct rdma_cm_id *id, const char *ip)
{
	struct sockaddr_in dst;

	if (!guest_free_addr(ip, RDMA_PS_TCP, &dst) ||
	    !CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				     2000) == 0) ||
	    !guest_expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id) ||
	    !CHECK(rdma_resolve_route(id, 2000) == 0) ||
	    !guest_expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id))
		return false;
	return true;
}

/*
 * A connection case's ends: a guest_pair (listener and client) and each
 * side's buffers; client.id is the pair's client, server.id its server
 * once the request is taken.
 */
struct conn {
	struct guest_pair p;
	struct side client, server;
};

/*
 * @c's pair on @ip, the client's QP with completion channels:
 * true, or false after a diagnostic; conn_release() in either case.
 */
static bool conn_setup(struct conn *c, const char *ip)
{
	memset(c, 0, sizeof(*c));
	if (!guest_pair_setup(&c->p, ip, 4))
		return false;
	c->client.id = c->p.client;
	return CHECK(c->p.client->send_cq_channel &&
		     c->p.client->recv_cq_channel);
}

/*
 * Destroys what conn_setup() and the case made, QPs and buffers first:
 * false if an id's destroy failed. TIMEWAIT_EXIT may still come: the
 * kernel drops it with the id.
 */
static bool conn_release(struct conn *c)
{
	struct rdma_cm_id **ids[] = {
		&c->p.client, &c->p.server, &c->p.listener,
	};
	bool ok = true;
	unsigned int i;

	side_release(&c->client);
	side_release(&c->server);
	c->p.server = c->server.id;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (*ids[i])
			ok &= CHECK(rdma_destroy_id(*ids[i]) == 0);
		*ids[i] = NULL;
	}
	guest_pair_teardown(&c->p);
	return ok;
}

static bool async_connect(const char *ip)
{
	struct rdma_conn_param cp = {
		.private_data = "hello-server",
		.private_data_len = sizeof("hello-server"),
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct rdma_conn_param ap = {
		.private_data = "hello-client",
		.private_data_len = sizeof("hello-client"),
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	struct rdma_cm_event *ev;
	bool ok = false;
	struct conn c;

	if (!conn_setup(&c, ip) ||
	    !side_setup(&c.client, "ping-from-client") ||
	    !CHECK(rdma_connect(c.client.id, &cp) == 0))
		goto out;

	ev = guest_next_event(c.p.chs, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	if (!ev)
		goto out;
	c.server.id = ev->id;
	if (!CHECK(ev->listen_id == c.p.listener) ||
	    !pdata_is(ev->param.conn.private_data,
		      ev->param.conn.private_data_len, "hello-server", 56) ||
	    !create_qp(c.server.id) ||
	    !side_setup(&c.server, "pong-from-server")) {
		rdma_ack_cm_event(ev);
		goto out;
	}
	/* ev is acked after the accept, as librdmacm asks. */
	ok = CHECK(rdma_accept(c.server.id, &ap) == 0);
	rdma_ack_cm_event(ev);
	if (!ok)
		goto out;
	ok = false;

	ev = guest_next_event(c.p.chc, RDMA_CM_EVENT_ESTABLISHED, c.client.id);
	if (!ev)
		goto out;
	ok = CHECK(ev->status == 0) &&
	     pdata_is(ev->param.conn.private_data,
		      ev->param.conn.private_data_len, "hello-client", 196) &&
	     CHECK(ev->param.conn.qp_num == c.server.id->qp->qp_num);
	rdma_ack_cm_event(ev);
	ok = ok && CHECK(qp_state(c.client.id) == IBV_QPS_RTS);
	ok = ok && guest_expect_event(c.p.chs, RDMA_CM_EVENT_ESTABLISHED,
				      c.server.id);
	ok = ok && CHECK(qp_state(c.server.id) == IBV_QPS_RTS);
	if (!ok)
		goto out;

	ok = exchange(&c.client, &c.server);
	ok &= exchange(&c.server, &c.client);

	/*
	 * The client's DREQ gives the server DISCONNECTED; the server's
	 * rdma_disconnect() moves its QP to ERR and answers with the DREP,
	 * which gives the client DISCONNECTED.
	 */
	ok &= CHECK(rdma_disconnect(c.client.id) == 0);
	ok &= CHECK(qp_state(c.client.id) == IBV_QPS_ERR);
	ok &= guest_expect_event(c.p.chs, RDMA_CM_EVENT_DISCONNECTED,
				 c.server.id);
	ok &= CHECK(qp_state(c.server.id) == IBV_QPS_RTS);
	ok &= CHECK(rdma_disconnect(c.server.id) == 0);
	ok &= CHECK(qp_state(c.server.id) == IBV_QPS_ERR);
	ok &= guest_expect_event(c.p.chc, RDMA_CM_EVENT_DISCONNECTED,
				 c.client.id);
out:
	ok &= conn_release(&c);
	return ok;
}

static bool nobody_listens(const char *ip)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct side client = { 0 };
	bool ok = false;

	ch = guest_channel();
	if (!ch)
		return false;
	if (!CHECK(rdma_create_id(ch, &client.id, NULL, RDMA_PS_TCP) == 0))
		goto out;
	if (!resolve_nobody(ch, client.id, ip) || !create_qp(client.id))
		goto out;
	if (!CHECK(rdma_connect(client.id, NULL) == 0))
		goto out;
	ev = guest_next_event(ch, RDMA_CM_EVENT_REJECTED, client.id);
	if (!ev)
		goto out;
	ok = CHECK(ev->status == 8);
	printf("# REJECTED, status %d\n", ev->status);
	rdma_ack_cm_event(ev);
	ok &= CHECK(qp_state(client.id) == IBV_QPS_ERR);
out:
	side_release(&client);
	if (client.id)
		ok &= CHECK(rdma_destroy_id(client.id) == 0);
	rdma_destroy_event_channel(ch);
	return ok;
}

struct sync_server {
	struct rdma_cm_id *listen;
	bool ok;
};

/* One synchronous request: accept it, then end the connection. */
static void *sync_server(void *arg)
{
	struct rdma_conn_param ap = {
		.private_data = "sync-yes",
		.private_data_len = sizeof("sync-yes"),
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.rnr_retry_count = 7,
	};
	struct sync_server *s = arg;
	struct rdma_cm_id *id = NULL;
	bool ok;

	ok = CHECK(rdma_get_request(s->listen, &id) == 0);
	if (!ok)
		goto out;
	ok = CHECK(id->event != NULL) &&
	     pdata_is(id->event->param.conn.private_data,
		      id->event->param.conn.private_data_len,
		      "sync-hello", 56) &&
	     create_qp(id) &&
	     CHECK(rdma_accept(id, &ap) == 0) &&
	     CHECK(id->event &&
		   id->event->event == RDMA_CM_EVENT_ESTABLISHED) &&
	     CHECK(rdma_disconnect(id) == 0) &&
	     CHECK(id->event &&
		   id->event->event == RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(id);
	ok &= CHECK(rdma_destroy_id(id) == 0);
out:
	s->ok = ok;
	return NULL;
}

static bool sync_connect(const char *ip)
{
	struct rdma_conn_param cp = {
		.private_data = "sync-hello",
		.private_data_len = sizeof("sync-hello"),
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct sync_server srv = { .ok = false };
	struct rdma_cm_id *l, *c = NULL;
	struct sockaddr_in dst;
	bool ok = false;
	pthread_t t;

	l = guest_listener(NULL, ip, RDMA_PS_TCP, NULL);
	if (!l)
		return false;
	srv.listen = l;
	if (!CHECK(pthread_create(&t, NULL, sync_server, &srv) == 0)) {
		rdma_destroy_id(l);
		return false;
	}
	if (!CHECK(guest_parse_ipv4(ip, guest_port(l), &dst)) ||
	    !CHECK(rdma_create_id(NULL, &c, NULL, RDMA_PS_TCP) == 0))
		goto join;
	if (!CHECK(rdma_resolve_addr(c, NULL, (struct sockaddr *)&dst,
				     2000) == 0) ||
	    !CHECK(rdma_resolve_route(c, 2000) == 0) || !create_qp(c))
		goto join;
	ok = CHECK(rdma_connect(c, &cp) == 0) &&
	     CHECK(c->event &&
		   c->event->event == RDMA_CM_EVENT_ESTABLISHED) &&
	     pdata_is(c->event->param.conn.private_data,
		      c->event->param.conn.private_data_len, "sync-yes", 196);
	if (ok) {
		/* The server disconnects; ours answers and gets the event. */
		ok = CHECK(rdma_disconnect(c) == 0) &&
		     CHECK(c->event &&
			   c->event->event == RDMA_CM_EVENT_DISCONNECTED);
	}
join:
	if (!ok && c && c->qp)
		rdma_disconnect(c);	/* let a waiting server go */
	pthread_join(t, NULL);
	ok &= srv.ok;
	if (c) {
		if (c->qp)
			rdma_destroy_qp(c);
		ok &= CHECK(rdma_destroy_id(c) == 0);
	}
	ok &= CHECK(rdma_destroy_id(l) == 0);
	return ok;
}

/*
 * A connected request id moved to another channel: its DISCONNECTED
 * comes from there, nothing of it from the listener's channel.
 */
static bool migrate_connected(const char *ip)
{
	struct rdma_event_channel *chm = NULL;
	struct rdma_cm_event *ev = NULL;
	bool ok = false;
	struct conn c;

	if (!conn_setup(&c, ip))
		goto out;
	chm = guest_channel();
	if (!chm || !CHECK(rdma_connect(c.client.id, NULL) == 0))
		goto out;

	ev = guest_next_event(c.p.chs, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	if (!ev)
		goto out;
	c.server.id = ev->id;
	ok = CHECK(ev->listen_id == c.p.listener) && create_qp(c.server.id) &&
	     CHECK(rdma_accept(c.server.id, NULL) == 0);
	rdma_ack_cm_event(ev);
	ok = ok && guest_expect_event(c.p.chc, RDMA_CM_EVENT_ESTABLISHED,
				      c.client.id) &&
	     guest_expect_event(c.p.chs, RDMA_CM_EVENT_ESTABLISHED,
				c.server.id);
	if (!ok)
		goto out;

	ok = CHECK(rdma_migrate_id(c.server.id, chm) == 0) &&
	     CHECK(c.server.id->channel == chm);
	ok = ok && CHECK(rdma_disconnect(c.client.id) == 0) &&
	     guest_expect_event(chm, RDMA_CM_EVENT_DISCONNECTED, c.server.id);
	if (ok) {
		ev = NULL;
		ok = CHECK(rdma_get_cm_event(c.p.chs, &ev) == -1 &&
			   errno == EAGAIN);
		if (ev)
			rdma_ack_cm_event(ev);
	}
	ok = ok && CHECK(rdma_disconnect(c.server.id) == 0) &&
	     guest_expect_event(c.p.chc, RDMA_CM_EVENT_DISCONNECTED,
				c.client.id);
out:
	ok &= conn_release(&c);
	if (chm)
		rdma_destroy_event_channel(chm);
	return ok;
}

GUEST_RXE_TEST(async_connect_accept_send_disconnect, async_connect(rxe))
GUEST_RXE_TEST(connect_nobody_listens_rejected_8, nobody_listens(rxe))
GUEST_RXE_TEST(sync_connect_accept_disconnect, sync_connect(rxe))
GUEST_RXE_TEST(migrate_connected_request_id, migrate_connected(rxe))

RCM_TEST_MAIN
