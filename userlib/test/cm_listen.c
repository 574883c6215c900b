// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_listen: what the passive side does with what the real module cannot
 * be made to show at will (the rest runs against rcm.ko in guests:
 * guest/cm_passive.c, cm_listen.c, cm_sync_channels.c).
 *
 * - a request whose listener is destroyed while another thread has read
 *   it and not handed it out yet (the seam holds the reader at that
 *   instant), or whose id cannot be queried, gets its kernel id
 *   destroyed and never shows up;
 * - rdma_get_request(): returns the request id with the event in
 *   id->event on a private channel of its own; keeps a request id's own
 *   events for that id's next synchronous call (destroying the id acks
 *   them); ECONNREFUSED/-status/EINVAL for other listener events
 *   (DEVICE_REMOVAL, ADDR_CHANGE, REJECTED, pushed by the test), kept in
 *   listen->event; the listener's destroy waits for the requests' events
 *   in id->event (as librdmacm's), and the private channel closes with
 *   the last id using it.
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs' devices are faked (fake_verbs.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

static struct rdma_event_channel *ch;

static void listener_destroy(void)
{
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *l, *other = NULL;
	struct cm_getter g;
	uint32_t hl, hr, ho;

	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	T_CHECK(rdma_create_id(ch, &other, NULL, RDMA_PS_TCP) == 0);
	if (!other)
		return;
	ho = SEAM_LAST_HANDLE();
	l = cm_listener(ch, NULL, CM_LISTEN_PORT, &hl);
	if (!l)
		return;

	/*
	 * Read by another thread, not handed out yet, when the listener
	 * goes: the request id is destroyed, its REJECTED skipped, and that
	 * thread gets the next event.
	 */
	hr = script_request(ch->fd, hl, &cm_request_conn, NULL, 0);
	T_CHECK(script_push(ch->fd, hr, RCM_EVENT_REJECTED, 8));
	T_CHECK(script_push(ch->fd, ho, RCM_EVENT_ESTABLISHED, 0));
	script_hold_next_read();
	cm_start_get(&g, ch);
	T_CHECK(script_wait_held(2000));
	T_CHECK(seam_queued(ch->fd) == 2 && seam_live(ch->fd, hr));
	cm_destroy_promptly(l);
	T_CHECK(seam_live(ch->fd, hr));	/* read: the kernel keeps it */
	script_release_read();
	T_CHECK(cm_join_within(g.thread, 2000));
	ev = g.ev;
	T_CHECK(ev && ev->id == other);
	T_CHECK(!seam_live(ch->fd, hr));
	T_CHECK(SEAM_LAST(rcm_destroy_id, RCM_CMD_DESTROY_ID)->id == hr);
	if (ev)
		rdma_ack_cm_event(ev);
	cm_set_nonblock(ch->fd);
	cm_expect_none(ch);

	/* A request the library cannot query is rejected and skipped. */
	l = cm_listener(ch, NULL, CM_LISTEN_PORT, &hl);
	if (!l)
		return;
	script_no_view = true;
	seam_fail_next(RCM_CMD_QUERY_ID, EIO);
	hr = script_request(ch->fd, hl, &cm_request_conn, NULL, 0);
	cm_expect_none(ch);
	T_CHECK(hr && !seam_live(ch->fd, hr));

	T_CHECK(rdma_destroy_id(l) == 0);
	T_CHECK(rdma_destroy_id(other) == 0);
	rdma_destroy_event_channel(ch);
}

static void get_request(void)
{
	struct rdma_cm_id *l, *r1 = NULL, *r2 = NULL, *async;
	uint32_t hl, ha, h1, h2;
	int fd_before, fd, rfd, ctx;
	struct cm_destroyer d;

	fd_before = t_lowest_free_fd();

	/* Only for synchronous listeners. */
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	async = cm_listener(ch, NULL, CM_LISTEN_PORT, &ha);
	errno = 0;
	T_CHECK(rdma_get_request(async, &r1) == -1 && errno == EINVAL);
	T_CHECK(r1 == NULL);
	T_CHECK(rdma_destroy_id(async) == 0);
	rdma_destroy_event_channel(ch);

	l = cm_listener(NULL, &ctx, CM_LISTEN_PORT, &hl);
	if (!l)
		return;
	ch = l->channel;
	fd = ch->fd;
	cm_set_nonblock(fd);	/* a lost event fails instead of hanging */
	errno = 0;
	T_CHECK(rdma_get_request(NULL, &r1) == -1 && errno == EINVAL);
	T_CHECK(rdma_get_request(l, NULL) == -1 && errno == EINVAL);

	/*
	 * Each request id moves to a private channel of its own (as
	 * librdmacm's ucma_process_conn_req()): its events never reach the
	 * listener's fd (that it does not share the listener's O_NONBLOCK
	 * runs in a guest: guest/cm_listen.c).
	 */
	T_CHECK(script_request(fd, hl, &cm_request_conn, "one", 4) != 0);
	T_CHECK(rdma_get_request(l, &r1) == 0);
	T_CHECK(r1 && r1 != l && r1->channel != ch && r1->context == &ctx);
	if (!r1)
		return;
	h1 = SEAM_LAST(rcm_migrate_id, RCM_CMD_MIGRATE_ID)->out_id;
	T_CHECK(SEAM_LAST(rcm_migrate_id, RCM_CMD_MIGRATE_ID)->fd == r1->channel->fd);
	T_CHECK(seam_live(r1->channel->fd, h1));
	T_CHECK(r1->event && r1->event->event ==
		RDMA_CM_EVENT_CONNECT_REQUEST);
	T_CHECK(r1->event && r1->event->id == r1 &&
		r1->event->listen_id == l);
	T_CHECK(r1->event && !strcmp(r1->event->param.conn.private_data,
				     "one"));
	T_CHECK(r1->verbs != NULL && l->event == NULL);

	/* r1's own event is r1's channel's; the next request comes out. */
	T_CHECK(script_push(r1->channel->fd, h1, RCM_EVENT_REJECTED, 8));
	T_CHECK(script_request(fd, hl, &cm_request_conn, "two", 4) != 0);
	T_CHECK(rdma_get_request(l, &r2) == 0);
	T_CHECK(r2 && r2 != r1 && r2->event &&
		r2->event->listen_id == l &&
		!strcmp(r2->event->param.conn.private_data, "two"));
	T_CHECK(r2 && r2->channel != ch && r2->channel != r1->channel);
	h2 = SEAM_LAST(rcm_migrate_id, RCM_CMD_MIGRATE_ID)->out_id;
	T_CHECK(seam_queued(fd) == 0);
	T_CHECK(seam_queued(r1->channel->fd) == 1);

	/* Other events of the listener fail and stay in listen->event. */
	T_CHECK(script_push(fd, hl, RCM_EVENT_DEVICE_REMOVAL, 0));
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == EINVAL);
	T_CHECK(l->event &&
		l->event->event == RDMA_CM_EVENT_DEVICE_REMOVAL);
	T_CHECK(script_push(fd, hl, RCM_EVENT_ADDR_CHANGE, -ENODEV));
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == ENODEV);
	T_CHECK(l->event && l->event->status == -ENODEV);
	T_CHECK(script_push(fd, hl, RCM_EVENT_REJECTED, 28));
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == ECONNREFUSED);
	T_CHECK(l->event && l->event->event == RDMA_CM_EVENT_REJECTED);
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == EAGAIN);
	T_CHECK(l->event == NULL);	/* acked by the call */

	T_CHECK(rdma_reject(r1, "no", 3) == 0);
	T_CHECK(SEAM_LAST(rcm_reject, RCM_CMD_REJECT)->id == h1);

	/*
	 * As in librdmacm, the listener waits for the CONNECT_REQUESTs that
	 * its request ids hold in id->event; destroying them acks those.
	 * Each private channel closes with its id.
	 */
	rfd = r2->channel->fd;
	cm_destroy_promptly(r1);
	T_CHECK(seam_live(rfd, h2));
	cm_start_destroy(&d, l);
	T_CHECK(!cm_join_within(d.thread, 300));
	T_CHECK(fcntl(fd, F_GETFD) != -1);
	cm_destroy_promptly(r2);
	T_CHECK(cm_join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
	T_CHECK(t_lowest_free_fd() == fd_before);
}

CM_MAIN(rdma_listen,
	{ "requests of a destroyed listener", listener_destroy },
	{ "rdma_get_request", get_request })
