// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_active: rdma_connect()'s parameters and checks, rdma_establish() and
 * the ECE calls' checks, on librdmacm.so.1 at both ends in one process,
 * against the real module, in a guest with a Soft-RoCE device.
 * kselftest TAP. (The connection itself is cm_connect's; retry counts
 * above 7, explicit accept depths and ECE on the wire are
 * cm_conn_compat's.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. connect_defaults: rdma_connect() with a QP and a NULL conn_param:
 *    the CONNECT_REQUEST shows the device's max_qp_rd_atom and
 *    max_qp_init_rd_atom, retry and RNR retry 7, no private data of
 *    ours (56 zero bytes).
 * 2. connect_depth_limits: responder resources or initiator depth one
 *    above the device's are EINVAL (RDMA_PS_TCP); RDMA_MAX_RESP_RES and
 *    RDMA_MAX_INIT_DEPTH mean the device's maximum, which the request
 *    shows.
 * 3. private_data_limits: 57 bytes are EINVAL; 56 reach the listener
 *    whole; a NULL pointer with a length sends none (zeros).
 * 4. establish_and_ece_checks: rdma_establish() on an id with a QP is
 *    EINVAL, and so is rdma_connect() with a NULL conn_param on an
 *    RDMA_PS_TCP id without one; rdma_set_local_ece() and rdma_get_remote_ece() on an id with
 *    a QP, with vendor 0, a comp_mask or a NULL ece are EINVAL; on an id
 *    without a QP the local ECE is taken and the remote one reads zeros
 *    before any connection.
 * 5. sync_connect_refused: a synchronous client connecting to a port
 *    nobody listens on gets -1 with ECONNREFUSED, the REJECTED (status
 *    8) in id->event.
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
#include "common/guest_ksft.h"

static bool all_zero(const void *buf, size_t len)
{
	const uint8_t *b = buf;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/* A pair on @rxe (QPs of 4 work requests), and its device's attributes. */
static void pair_and_device(struct __test_metadata *_metadata,
			    struct guest_pair *p, const char *rxe,
			    struct ibv_device_attr *dev)
{
	ASSERT_TRUE(guest_pair_setup(p, rxe, 4));
	ASSERT_EQ(0, ibv_query_device(p->client->verbs, dev));
}

TEST(connect_defaults)
{
	struct ibv_device_attr dev;
	struct rdma_cm_event *ev;
	struct guest_pair p;

	GUEST_RXE_OR_SKIP(rxe);
	pair_and_device(_metadata, &p, rxe, &dev);
	ev = guest_pair_request(&p, NULL, 0);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(dev.max_qp_rd_atom, ev->param.conn.initiator_depth);
	EXPECT_EQ(dev.max_qp_init_rd_atom,
		  ev->param.conn.responder_resources);
	EXPECT_EQ(7, ev->param.conn.retry_count);
	EXPECT_EQ(7, ev->param.conn.rnr_retry_count);
	EXPECT_EQ(56, ev->param.conn.private_data_len);
	EXPECT_TRUE(all_zero(ev->param.conn.private_data, 56));
	printf("# device: max_qp_rd_atom %d, max_qp_init_rd_atom %d\n",
	       dev.max_qp_rd_atom, dev.max_qp_init_rd_atom);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	guest_pair_teardown(&p);
}

TEST(connect_depth_limits)
{
	struct rdma_conn_param cp = { 0 };
	struct ibv_device_attr dev;
	struct rdma_cm_event *ev;
	struct guest_pair p;

	GUEST_RXE_OR_SKIP(rxe);
	pair_and_device(_metadata, &p, rxe, &dev);
	cp.responder_resources = dev.max_qp_rd_atom + 1;
	cp.initiator_depth = 1;
	ASSERT_ERRNO(rdma_connect(p.client, &cp), EINVAL);
	cp.responder_resources = 1;
	cp.initiator_depth = dev.max_qp_init_rd_atom + 1;
	ASSERT_ERRNO(rdma_connect(p.client, &cp), EINVAL);
	EXPECT_TRUE(guest_quiet(p.chs));

	cp.responder_resources = RDMA_MAX_RESP_RES;
	cp.initiator_depth = RDMA_MAX_INIT_DEPTH;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	ev = guest_pair_request(&p, &cp, 0);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(dev.max_qp_rd_atom, ev->param.conn.initiator_depth);
	EXPECT_EQ(dev.max_qp_init_rd_atom,
		  ev->param.conn.responder_resources);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	guest_pair_teardown(&p);
}

TEST(private_data_limits)
{
	struct rdma_conn_param cp = GUEST_CONN_PARAM;
	struct rdma_cm_event *ev;
	struct guest_pair p;
	uint8_t big[57];

	GUEST_RXE_OR_SKIP(rxe);
	memset(big, 0x5a, sizeof(big));
	ASSERT_TRUE(guest_pair_setup(&p, rxe, 4));
	cp.private_data = big;
	cp.private_data_len = 57;
	ASSERT_ERRNO(rdma_connect(p.client, &cp), EINVAL);
	cp.private_data_len = 56;
	ev = guest_pair_request(&p, &cp, 0);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(56, ev->param.conn.private_data_len);
	EXPECT_EQ(0, memcmp(ev->param.conn.private_data, big, 56));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	guest_pair_teardown(&p);

	ASSERT_TRUE(guest_pair_setup(&p, rxe, 4));
	cp.private_data = NULL;
	cp.private_data_len = 40;
	ev = guest_pair_request(&p, &cp, 0);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(56, ev->param.conn.private_data_len);
	EXPECT_TRUE(all_zero(ev->param.conn.private_data, 56));
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	guest_pair_teardown(&p);
}

TEST(establish_and_ece_checks)
{
	struct ibv_ece e = { .vendor_id = 0x15b3, .options = 0x11 };
	struct rdma_cm_id *id = NULL;
	struct guest_pair p;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_pair_setup(&p, rxe, 4));
	ASSERT_ERRNO(rdma_establish(p.client), EINVAL);
	ASSERT_ERRNO(rdma_set_local_ece(p.client, &e), EINVAL);
	ASSERT_ERRNO(rdma_get_remote_ece(p.client, &e), EINVAL);

	id = guest_routed(p.chc, rxe, guest_port(p.listener), RDMA_PS_TCP);
	ASSERT_NE(NULL, id);
	/* RDMA_PS_TCP without a QP needs the QP's parameters. */
	ASSERT_ERRNO(rdma_connect(id, NULL), EINVAL);
	e.vendor_id = 0;
	ASSERT_ERRNO(rdma_set_local_ece(id, &e), EINVAL);
	e.vendor_id = 0x15b3;
	e.comp_mask = 1;
	ASSERT_ERRNO(rdma_set_local_ece(id, &e), EINVAL);
	ASSERT_ERRNO(rdma_set_local_ece(id, NULL), EINVAL);
	e.comp_mask = 0;
	ASSERT_EQ(0, rdma_set_local_ece(id, &e));
	memset(&e, 0xff, sizeof(e));
	ASSERT_EQ(0, rdma_get_remote_ece(id, &e));
	EXPECT_EQ(0, e.vendor_id);
	EXPECT_EQ(0, e.options);
	EXPECT_EQ(0, e.comp_mask);
	ASSERT_ERRNO(rdma_get_remote_ece(id, NULL), EINVAL);
	ASSERT_EQ(0, rdma_destroy_id(id));
	guest_pair_teardown(&p);
}

TEST(sync_connect_refused)
{
	struct rdma_conn_param cp = GUEST_CONN_PARAM;
	struct rdma_cm_id *id;
	struct sockaddr_in dst;

	GUEST_RXE_OR_SKIP(rxe);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	id = guest_sync_routed(_metadata, &dst, RDMA_PS_TCP);
	ASSERT_ERRNO(rdma_connect(id, &cp), ECONNREFUSED);
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(RDMA_CM_EVENT_REJECTED, id->event->event);
	EXPECT_EQ(8, id->event->status);
	rdma_destroy_qp(id);
	ASSERT_EQ(0, rdma_destroy_id(id));
}

RCM_TEST_MAIN
