// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_qp_types: the QP types librdmacm lets rdma_create_ep() choose, as
 * the in-tree CM takes them. kselftest TAP, one process (the passive
 * side in a thread), synchronous ids from rdma_create_ep(), a Soft-RoCE
 * device.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. uc_connect_and_send: RDMA_PS_IB with IBV_QPT_UC hints: both ends
 *    get UC QPs from rdma_create_ep(), connect, and a message goes from
 *    the client to the server over the UC QPs.
 * 2. tcp_ep_with_uc_hint_is_rc: RDMA_PS_TCP with a UC hint: the id keeps
 *    IBV_QPT_UC, the kernel connects it as RC (a TCP listener takes
 *    it), without QPs: CONNECT_RESPONSE, rdma_establish(),
 *    the server's accept completes.
 * 3. xrc_cm_exchange: RDMA_PS_IB, an XRC_SEND client to an XRC_RECV
 *    listener, without QPs (Soft-RoCE has no XRC): the
 *    request reaches the listener and its request id is XRC_RECV, the
 *    exchange completes as in 2.
 * 4. xrc_default_domain: rdma_create_qp() and rdma_create_srq() on an
 *    XRC_RECV id open the device's default XRC domain as librdmacm's
 *    do: on a device without XRC they fail with the errno
 *    ibv_open_xrcd() gives, and leave no CQ in the id.
 *
 * What this cannot show on Soft-RoCE: XRC QPs connected and carrying
 * data (no XRC domains there).
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "rcm_ksft.h"

#define MSG		"over UC"

/*
 * Without a QP, librdmacm wants the parameters of one (RDMA_PS_TCP); the
 * two ends' QP numbers differ, or ib_cm takes the reply for a stale
 * connection (both ends are on one device).
 */
static struct rdma_conn_param noqp_param(uint32_t qp_num)
{
	struct rdma_conn_param p = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.qp_num = qp_num,
	};

	return p;
}

struct server {
	struct rdma_cm_id *listen;
	bool qp;			/* the ep gives request ids a QP */
	enum ibv_qp_type req_type;	/* the request id's type */
	char buf[64];
	bool ok;
};

static struct rdma_addrinfo *addrinfo(const char *ip, const char *port,
				      bool passive, int ps,
				      enum ibv_qp_type type)
{
	struct rdma_addrinfo hints, *res = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST | (passive ? RAI_PASSIVE : 0);
	hints.ai_port_space = ps;
	hints.ai_qp_type = type;
	if (!CHECK(rdma_getaddrinfo(ip, port, &hints, &res) == 0))
		return NULL;
	return res;
}

/*
 * The passive side: one request, accepted; with a QP, one message
 * received first. Synchronous calls throughout.
 */
static void *serve(void *arg)
{
	struct rdma_conn_param p = noqp_param(0x4321);	/* not the client's */
	struct server *s = arg;
	struct rdma_cm_id *id = NULL;
	struct ibv_wc wc;
	struct ibv_mr *mr = NULL;
	bool ok;

	if (!CHECK(rdma_get_request(s->listen, &id) == 0))
		return NULL;
	ok = CHECK(id->qp_type == s->req_type);
	if (s->qp) {
		ok &= CHECK(id->qp && id->qp->qp_type == s->req_type);
		mr = rdma_reg_msgs(id, s->buf, sizeof(s->buf));
		ok &= CHECK(mr != NULL) &&
		      CHECK(rdma_post_recv(id, NULL, s->buf, sizeof(s->buf),
					   mr) == 0);
	} else {
		ok &= CHECK(id->qp == NULL);
	}
	ok &= CHECK(rdma_accept(id, s->qp ? NULL : &p) == 0);
	if (s->qp && ok) {
		ok &= CHECK(rdma_get_recv_comp(id, &wc) == 1) &&
		      CHECK(wc.status == IBV_WC_SUCCESS) &&
		      CHECK(!strcmp(s->buf, MSG));
	}
	s->ok = ok;
	/*
	 * No synchronous disconnect: it would wait for the client's DREP
	 * while the client waits for this thread. Destroying the id ends
	 * the connection (a DREQ).
	 */
	if (mr)
		rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	return NULL;
}

/*
 * A synchronous listener of @ps/@ltype on @ip and a port its bind chose
 * (with QPs of @ltype for its requests if @qp) and a client of
 * @ps/@ctype, given that port as a service; the client connects,
 * sends one message over its QP if @qp, or without a QP completes the
 * exchange with rdma_establish().
 */
static bool exchange(const char *ip, int ps, enum ibv_qp_type ltype,
		     enum ibv_qp_type ctype, bool qp)
{
	struct rdma_addrinfo *lres = NULL, *cres = NULL;
	struct ibv_qp_init_attr attr;
	struct server s = { .qp = qp, .req_type = ltype };
	struct rdma_cm_id *client = NULL;
	struct ibv_mr *mr = NULL;
	char msg[] = MSG, port[8];
	struct ibv_wc wc;
	bool ok = false;
	pthread_t t;

	lres = addrinfo(ip, NULL, true, ps, ltype);
	if (!lres)
		goto out;
	guest_qp_attr(&attr, ltype, 1);
	if (!CHECK(rdma_create_ep(&s.listen, lres, NULL,
				  qp ? &attr : NULL) == 0) ||
	    !CHECK(rdma_listen(s.listen, 1) == 0))
		goto out;
	snprintf(port, sizeof(port), "%hu", guest_port(s.listen));
	cres = addrinfo(ip, port, false, ps, ctype);
	if (!cres)
		goto out;
	guest_qp_attr(&attr, ctype, 1);
	if (!CHECK(rdma_create_ep(&client, cres, NULL,
				  qp ? &attr : NULL) == 0))
		goto out;
	ok = CHECK(client->qp_type == ctype);
	if (qp)
		ok &= CHECK(client->qp && client->qp->qp_type == ctype) &&
		      CHECK((mr = rdma_reg_msgs(client, msg,
						sizeof(msg))) != NULL);
	if (!ok || !CHECK(pthread_create(&t, NULL, serve, &s) == 0)) {
		ok = false;
		goto out;
	}
	if (qp) {
		ok &= CHECK(rdma_connect(client, NULL) == 0);
		ok &= CHECK(client->event &&
			    client->event->event == RDMA_CM_EVENT_ESTABLISHED);
		if (ok)
			ok &= CHECK(rdma_post_send(client, NULL, msg,
						   sizeof(msg), mr, 0) == 0) &&
			      CHECK(rdma_get_send_comp(client, &wc) == 1) &&
			      CHECK(wc.status == IBV_WC_SUCCESS);
	} else {
		struct rdma_conn_param p = noqp_param(0x1234);

		ok &= CHECK(rdma_connect(client, &p) == 0);
		ok &= CHECK(client->event && client->event->event ==
			    RDMA_CM_EVENT_CONNECT_RESPONSE);
		ok &= CHECK(rdma_establish(client) == 0);
	}
	pthread_join(t, NULL);
	ok &= CHECK(s.ok);
out:
	if (mr)
		rdma_dereg_mr(mr);
	if (client)
		rdma_destroy_ep(client);
	if (s.listen)
		rdma_destroy_ep(s.listen);
	rdma_freeaddrinfo(lres);
	rdma_freeaddrinfo(cres);
	return ok;
}

/* What librdmacm's default XRC domain gives on this device. */
static bool do_xrc_default_domain(const char *ip)
{
	struct ibv_xrcd_init_attr xattr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4,
						     .max_sge = 1 } };
	struct rdma_addrinfo *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id = NULL;
	struct ibv_xrcd *xrcd;
	int want;
	bool ok;

	res = addrinfo(ip, NULL, true, RDMA_PS_IB, IBV_QPT_XRC_RECV);
	if (!res || !CHECK(rdma_create_ep(&id, res, NULL, NULL) == 0)) {
		rdma_freeaddrinfo(res);
		return false;
	}
	ok = CHECK(id->verbs != NULL && id->qp_type == IBV_QPT_XRC_RECV);
	errno = 0;
	xrcd = ibv_open_xrcd(id->verbs, &xattr);
	want = errno;
	if (xrcd) {
		/* A device with XRC: not this test's (Soft-RoCE has none). */
		ibv_close_xrcd(xrcd);
		printf("# the device opens XRC domains: nothing to compare\n");
	} else if (ok) {
		printf("# ibv_open_xrcd: errno %d\n", want);
		guest_qp_attr(&attr, IBV_QPT_XRC_RECV, 1);
		errno = 0;
		ok &= CHECK(rdma_create_qp(id, NULL, &attr) == -1 &&
			    errno == want);
		errno = 0;
		ok &= CHECK(rdma_create_srq(id, NULL, &sattr) == -1 &&
			    errno == want);
		ok &= CHECK(!id->qp && !id->srq && !id->recv_cq &&
			    !id->send_cq);
	}
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
	return ok;
}

GUEST_RXE_TEST(uc_connect_and_send,
	       exchange(rxe, RDMA_PS_IB, IBV_QPT_UC, IBV_QPT_UC, true))
GUEST_RXE_TEST(tcp_ep_with_uc_hint_is_rc,
	       exchange(rxe, RDMA_PS_TCP, IBV_QPT_RC, IBV_QPT_UC, false))
GUEST_RXE_TEST(xrc_cm_exchange,
	       exchange(rxe, RDMA_PS_IB, IBV_QPT_XRC_RECV, IBV_QPT_XRC_SEND,
			false))
GUEST_RXE_TEST(xrc_default_domain, do_xrc_default_domain(rxe))

RCM_TEST_MAIN
