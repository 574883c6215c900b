// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_sync_channels: a synchronous listener's request ids each get an
 * event channel of their own, as librdmacm's ucma_process_conn_req()
 * gives them on the in-tree CM. kselftest TAP, one process, a Soft-RoCE
 * device.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * A synchronous listener; an asynchronous client in a thread connects
 * with a QP.
 * 1. The id rdma_get_request() returns has a channel (and fd) of its
 *    own, not the listener's.
 * 2. O_NONBLOCK on the listener's fd is that fd's alone: the request's
 *    stays blocking, and a synchronous rdma_accept() waits for the RTU
 *    and returns 0 (on a shared non-blocking fd it would give EAGAIN).
 * 3. The client disconnects: the request id's DISCONNECTED makes its own
 *    fd readable and never the listener's (rdma_get_request() on the
 *    non-blocking listener gives EAGAIN); the synchronous
 *    rdma_disconnect() of the request id takes it.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "kselftest.h"

#define NTESTS		3

struct client {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
};

static bool client_connect(struct client *c, const char *ip,
			   unsigned short port)
{
	c->ch = rdma_create_event_channel();
	if (!CHECK(c->ch != NULL))
		return false;
	c->id = guest_routed(c->ch, ip, port, RDMA_PS_TCP);
	if (!c->id || !guest_create_qp(c->id, IBV_QPT_RC, 1))
		return false;
	return CHECK(rdma_connect(c->id, NULL) == 0);
}

int main(void)
{
	const char *rxe = getenv("RCM_ADDR_RXE");
	struct rdma_cm_id *listener = NULL, *req = NULL, *none = NULL;
	struct client c = { 0 };
	struct guest_establisher est;
	bool ok1 = false, ok2 = false, ok3 = false;
	int lfd, fl;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	if (!rxe || !*rxe)
		return ksft_exit_skip("RCM_ADDR_RXE is not set\n");
	ksft_set_plan(NTESTS);
	guest_deadline(60);

	listener = guest_listener(NULL, rxe, RDMA_PS_TCP, NULL);
	if (!listener || !client_connect(&c, rxe, guest_port(listener)) ||
	    !CHECK(rdma_get_request(listener, &req) == 0))
		goto out;
	lfd = listener->channel->fd;
	ok1 = CHECK(req->channel != listener->channel);
	ok1 &= CHECK(req->channel->fd != lfd);
	ok1 &= CHECK(req->event &&
		     req->event->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
		     req->event->listen_id == listener);

	fl = fcntl(lfd, F_GETFL);
	ok2 = CHECK(fl != -1 && fcntl(lfd, F_SETFL, fl | O_NONBLOCK) == 0);
	ok2 &= CHECK(!(fcntl(req->channel->fd, F_GETFL) & O_NONBLOCK));
	if (!guest_create_qp(req, IBV_QPT_RC, 1) ||
	    !guest_establish_start(&est, c.ch, c.id)) {
		ok2 = false;
		goto out;
	}
	ok2 &= CHECK(rdma_accept(req, NULL) == 0);
	ok2 &= CHECK(req->event &&
		     req->event->event == RDMA_CM_EVENT_ESTABLISHED);
	ok2 &= guest_establish_end(&est);
	if (!ok2)
		goto out;

	ok3 = CHECK(rdma_disconnect(c.id) == 0);
	ok3 &= CHECK(guest_readable(req->channel->fd, 10000));
	ok3 &= CHECK(!guest_readable(lfd, 0));
	errno = 0;
	ok3 &= CHECK(rdma_get_request(listener, &none) == -1 &&
		     errno == EAGAIN);
	ok3 &= CHECK(rdma_disconnect(req) == 0);
	ok3 &= CHECK(req->event &&
		     req->event->event == RDMA_CM_EVENT_DISCONNECTED);
	ok3 &= guest_expect_event(c.ch, RDMA_CM_EVENT_DISCONNECTED, c.id);
out:
	ksft_test_result(ok1, "request_id_has_own_channel\n");
	ksft_test_result(ok2, "nonblock_is_per_channel\n");
	ksft_test_result(ok3, "child_disconnect_leaves_listener_quiet\n");
	guest_destroy_id(req);
	guest_destroy_id(c.id);
	if (c.ch)
		rdma_destroy_event_channel(c.ch);
	guest_destroy_id(listener);
	ksft_finished();
}
