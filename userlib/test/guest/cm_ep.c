// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_ep: rdma_create_ep() and rdma_get_request() of a passive endpoint,
 * against the real module and Soft-RoCE, in a guest. kselftest TAP.
 * (Endpoints that connect and move data are cm_qp_types' and pyverbs'
 * test_rdmacm's, apps.sh.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *   RCM_ADDR_SILENT  IPv4 neighbour on that network that never answers
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. connect_header: an active endpoint whose rdma_addrinfo carries an
 *    8-byte ai_connect: 49 bytes of the caller's private data are
 *    EINVAL (57 in all); with 48 the listener's CONNECT_REQUEST carries
 *    the header, then the 48 bytes.
 * 2. active_failures: to the silent neighbour the endpoint fails with
 *    ETIMEDOUT (rdma_create_ep()'s 2000 ms), and capabilities the
 *    provider refuses with its EINVAL; neither leaves an id (*id as it
 *    was) or a file descriptor. An ai_route (an ibacm path) of a path
 *    record of zeros (no route's flags) is EINVAL on both; an
 *    ai_connect of 57 bytes is
 *    EINVAL at once on rcm (librdmacm 44 takes it and fails the
 *    connect).
 * 3. passive_endpoint: a passive endpoint is bound to ai_src_addr and
 *    takes the given PD as id->pd; each request from rdma_get_request()
 *    gets a QP with the saved attributes on that PD; with attributes the
 *    provider refuses, rdma_get_request() fails with its EINVAL, and on
 *    rcm the request id is destroyed and the client gets REJECTED;
 *    librdmacm 44 keeps the request in listen->event and answers
 *    nothing, which the in-tree control expects (rdma_get_request(3)
 *    NOTES).
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "rcm_ksft.h"

static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* An active RC rdma_addrinfo for @dst. */
static struct rdma_addrinfo active_ai(struct sockaddr_in *dst)
{
	struct rdma_addrinfo ai;

	memset(&ai, 0, sizeof(ai));
	ai.ai_family = AF_INET;
	ai.ai_qp_type = IBV_QPT_RC;
	ai.ai_port_space = RDMA_PS_TCP;
	ai.ai_dst_addr = (struct sockaddr *)dst;
	ai.ai_dst_len = sizeof(*dst);
	return ai;
}

TEST(connect_header)
{
	static const uint8_t hdr[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .qp_num = 0x1234,
	};
	struct rdma_event_channel *chs;
	struct rdma_cm_id *l, *id = NULL;
	struct rdma_cm_event *ev;
	struct rdma_addrinfo ai;
	struct sockaddr_in dst;
	const uint8_t *pd;
	uint8_t user[49];
	int fl;

	GUEST_RXE_OR_SKIP(rxe);
	memset(user, 0x77, sizeof(user));
	chs = guest_channel();
	ASSERT_NE(NULL, chs);
	l = guest_listener(chs, rxe, RDMA_PS_TCP, NULL);
	ASSERT_NE(NULL, l);
	ASSERT_TRUE(guest_parse_ipv4(rxe, guest_port(l), &dst));
	ai = active_ai(&dst);
	ai.ai_connect = (void *)hdr;
	ai.ai_connect_len = sizeof(hdr);
	ASSERT_EQ(0, rdma_create_ep(&id, &ai, NULL, NULL))
		TH_LOG("rdma_create_ep: %s", strerror(errno));
	EXPECT_EQ(NULL, id->qp);
	cp.private_data = user;
	cp.private_data_len = 49;
	ASSERT_ERRNO(rdma_connect(id, &cp), EINVAL);
	/* Non-blocking: the synchronous connect returns once it is out. */
	fl = fcntl(id->channel->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(id->channel->fd, F_SETFL, fl | O_NONBLOCK));
	cp.private_data_len = 48;
	ASSERT_ERRNO(rdma_connect(id, &cp), EAGAIN);
	ev = guest_next_event(chs, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	ASSERT_NE(NULL, ev);
	pd = ev->param.conn.private_data;
	ASSERT_EQ(56, ev->param.conn.private_data_len);
	EXPECT_EQ(0, memcmp(pd, hdr, 8));
	EXPECT_EQ(0, memcmp(pd + 8, user, 48));
	ASSERT_EQ(0, rdma_reject(ev->id, NULL, 0));
	ASSERT_EQ(0, rdma_destroy_id(ev->id));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	rdma_destroy_ep(id);
	ASSERT_EQ(0, rdma_destroy_id(l));
	rdma_destroy_event_channel(chs);
}

TEST(active_failures)
{
	struct rdma_cm_id *id = (struct rdma_cm_id *)&id;
	struct ibv_qp_init_attr attr;
	struct sockaddr_in dst, quiet;
	uint8_t path[72] = { 0 }, big[57] = { 0 };
	struct rdma_addrinfo ai;
	int fd;

	GUEST_RXE_OR_SKIP(rxe);
	GUEST_SILENT_OR_SKIP(silent);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	ASSERT_TRUE(guest_parse_ipv4(silent, ntohs(dst.sin_port), &quiet));
	fd = lowest_free_fd();

	ai = active_ai(&quiet);
	ASSERT_ERRNO(rdma_create_ep(&id, &ai, NULL, NULL), ETIMEDOUT);
	EXPECT_EQ((struct rdma_cm_id *)&id, id);
	EXPECT_EQ(fd, lowest_free_fd());

	ai = active_ai(&dst);
	guest_qp_attr(&attr, IBV_QPT_RC, 1 << 30);
	ASSERT_ERRNO(rdma_create_ep(&id, &ai, NULL, &attr), EINVAL);
	EXPECT_EQ((struct rdma_cm_id *)&id, id);
	EXPECT_EQ(fd, lowest_free_fd());

	ai.ai_route = path;
	ai.ai_route_len = sizeof(path);
	ASSERT_ERRNO(rdma_create_ep(&id, &ai, NULL, NULL), EINVAL);
	EXPECT_EQ(fd, lowest_free_fd());
	ai.ai_route = NULL;
	ai.ai_route_len = 0;

	if (guest_on_rcm()) {
		ai.ai_connect = big;
		ai.ai_connect_len = sizeof(big);
		ASSERT_ERRNO(rdma_create_ep(&id, &ai, NULL, NULL), EINVAL);
		EXPECT_EQ(fd, lowest_free_fd());
	}
}

TEST(passive_endpoint)
{
	struct rdma_conn_param cp = GUEST_CONN_PARAM;
	struct ibv_qp_init_attr attr, bad;
	struct rdma_cm_id *l = NULL, *c, *r = NULL;
	struct rdma_event_channel *cch;
	struct ibv_context **devs;
	struct rdma_cm_event *ev;
	struct rdma_addrinfo ai;
	struct sockaddr_in src;
	struct ibv_pd *pd;
	int i, n = 0;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &src));
	devs = rdma_get_devices(&n);
	ASSERT_TRUE(devs && n >= 1);
	cch = guest_channel();
	ASSERT_NE(NULL, cch);

	/* Attributes the provider refuses: the request is refused. */
	memset(&ai, 0, sizeof(ai));
	ai.ai_flags = RAI_PASSIVE;
	ai.ai_family = AF_INET;
	ai.ai_qp_type = IBV_QPT_RC;
	ai.ai_port_space = RDMA_PS_TCP;
	ai.ai_src_addr = (struct sockaddr *)&src;
	ai.ai_src_len = sizeof(src);
	guest_qp_attr(&bad, IBV_QPT_RC, 1 << 30);
	ASSERT_EQ(0, rdma_create_ep(&l, &ai, NULL, &bad))
		TH_LOG("passive rdma_create_ep: %s", strerror(errno));
	ASSERT_EQ(0, rdma_listen(l, 4));
	c = guest_connecting(cch, rxe, ntohs(src.sin_port), RDMA_PS_TCP,
			     &cp);
	ASSERT_NE(NULL, c);
	ASSERT_ERRNO(rdma_get_request(l, &r), EINVAL);
	if (guest_on_rcm()) {
		ev = guest_next_event(cch, RDMA_CM_EVENT_REJECTED, c);
		ASSERT_NE(NULL, ev);
		ASSERT_EQ(0, rdma_ack_cm_event(ev));
	} else {
		/*
		 * librdmacm 44 keeps the request in listen->event and
		 * answers nothing (rdma_get_request(3) NOTES).
		 */
		ASSERT_NE(NULL, l->event);
		EXPECT_EQ(RDMA_CM_EVENT_CONNECT_REQUEST, l->event->event);
		EXPECT_TRUE(guest_quiet(cch));
	}
	rdma_destroy_qp(c);
	ASSERT_EQ(0, rdma_destroy_id(c));
	rdma_destroy_ep(l);

	/*
	 * Good attributes on the caller's PD, of the Soft-RoCE device the
	 * request arrives on (the test kernel also has siw0, and the
	 * devices come in no set order).
	 */
	l = NULL;
	for (i = 0; i < n; i++)
		if (!strncmp(ibv_get_device_name(devs[i]->device), "rxe", 3))
			break;
	ASSERT_GT(n, i)
		TH_LOG("no Soft-RoCE device among %d", n);
	pd = ibv_alloc_pd(devs[i]);
	ASSERT_NE(NULL, pd);
	guest_qp_attr(&attr, IBV_QPT_RC, 4);
	ASSERT_EQ(0, rdma_create_ep(&l, &ai, pd, &attr))
		TH_LOG("passive rdma_create_ep: %s", strerror(errno));
	EXPECT_EQ(pd, l->pd);
	EXPECT_EQ(src.sin_addr.s_addr,
		  ((struct sockaddr_in *)rdma_get_local_addr(l))->sin_addr.s_addr);
	EXPECT_EQ(src.sin_port, rdma_get_src_port(l));
	ASSERT_EQ(0, rdma_listen(l, 4));
	c = guest_connecting(cch, rxe, ntohs(src.sin_port), RDMA_PS_TCP,
			     &cp);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, rdma_get_request(l, &r))
		TH_LOG("rdma_get_request: %s", strerror(errno));
	ASSERT_NE(NULL, r->qp);
	EXPECT_EQ(pd, r->qp->pd);
	EXPECT_EQ(IBV_QPT_RC, r->qp->qp_type);
	ASSERT_EQ(0, rdma_reject(r, NULL, 0));
	ev = guest_next_event(cch, RDMA_CM_EVENT_REJECTED, c);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	rdma_destroy_ep(r);
	rdma_destroy_qp(c);
	ASSERT_EQ(0, rdma_destroy_id(c));
	rdma_destroy_ep(l);
	ibv_dealloc_pd(pd);
	rdma_free_devices(devs);
	rdma_destroy_event_channel(cch);
}

RCM_TEST_MAIN
