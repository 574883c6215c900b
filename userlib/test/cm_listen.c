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
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "script.h"
#include "helpers.h"

#define LISTEN_PORT	20100

static struct rdma_event_channel *ch;
static const struct rcm_conn_param conn = {
	.qp_num = 0x123456,
	.responder_resources = 3,
	.initiator_depth = 2,
	.flow_control = 1,
	.retry_count = 6,
	.rnr_retry_count = 7,
	.srq = 1,
};

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void expect_eagain(struct rdma_event_channel *c)
{
	struct rdma_cm_event *ev = NULL;

	errno = 0;
	T_CHECK(rdma_get_cm_event(c, &ev) == -1);
	T_CHECK(errno == EAGAIN);
	T_CHECK(ev == NULL);
}

/* A TCP id on c (NULL: synchronous) listening on 192.0.2.10:20100. */
static struct rdma_cm_id *listener(struct rdma_event_channel *c, void *ctx,
				   uint32_t *handle)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL;

	a.sin_port = htons(LISTEN_PORT);
	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	T_CHECK(rdma_create_id(c, &id, ctx, RDMA_PS_TCP) == 0);
	if (!id)
		return NULL;
	*handle = SEAM_LAST_HANDLE();
	T_CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_listen(id, 8) == 0);
	return id;
}

struct destroyer {
	struct rdma_cm_id *id;
	pthread_t thread;
	int ret;
	int done;		/* __atomic: read while the thread runs */
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->ret = rdma_destroy_id(d->id);
	__atomic_store_n(&d->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void start_destroy(struct destroyer *d, struct rdma_cm_id *id)
{
	d->id = id;
	d->done = 0;
	d->ret = -2;
	T_CHECK(pthread_create(&d->thread, NULL, destroy_thread, d) == 0);
}

static bool join_within(pthread_t thread, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(thread, NULL, &ts) == 0;
}

/* Destroy within 2 s: a hang fails the check instead of the run. */
static void destroy_promptly(struct rdma_cm_id *id)
{
	struct destroyer d;

	start_destroy(&d, id);
	T_CHECK(join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
}

static void *get_thread(void *arg)
{
	struct rdma_cm_event **ev = arg;

	if (rdma_get_cm_event(ch, ev))
		*ev = NULL;
	return NULL;
}

static void listener_destroy(void)
{
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *l, *other = NULL;
	pthread_t getter;
	uint32_t hl, hr, ho;

	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	T_CHECK(rdma_create_id(ch, &other, NULL, RDMA_PS_TCP) == 0);
	if (!other)
		return;
	ho = SEAM_LAST_HANDLE();
	l = listener(ch, NULL, &hl);
	if (!l)
		return;

	/*
	 * Read by another thread, not handed out yet, when the listener
	 * goes: the request id is destroyed, its REJECTED skipped, and that
	 * thread gets the next event.
	 */
	hr = script_request(ch->fd, hl, &conn, NULL, 0);
	T_CHECK(script_push(ch->fd, hr, RCM_EVENT_REJECTED, 8));
	T_CHECK(script_push(ch->fd, ho, RCM_EVENT_ESTABLISHED, 0));
	script_hold_next_read();
	T_CHECK(pthread_create(&getter, NULL, get_thread, &ev) == 0);
	T_CHECK(script_wait_held(2000));
	T_CHECK(seam_queued(ch->fd) == 2 && seam_live(ch->fd, hr));
	destroy_promptly(l);
	T_CHECK(seam_live(ch->fd, hr));	/* read: the kernel keeps it */
	script_release_read();
	T_CHECK(join_within(getter, 2000));
	T_CHECK(ev && ev->id == other);
	T_CHECK(!seam_live(ch->fd, hr));
	T_CHECK(SEAM_LAST(rcm_destroy_id, RCM_CMD_DESTROY_ID)->id == hr);
	if (ev)
		rdma_ack_cm_event(ev);
	set_nonblock(ch->fd);
	expect_eagain(ch);

	/* A request the library cannot query is rejected and skipped. */
	l = listener(ch, NULL, &hl);
	if (!l)
		return;
	script_no_view = true;
	seam_fail_next(RCM_CMD_QUERY_ID, EIO);
	hr = script_request(ch->fd, hl, &conn, NULL, 0);
	expect_eagain(ch);
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
	struct destroyer d;

	fd_before = t_lowest_free_fd();

	/* Only for synchronous listeners. */
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	async = listener(ch, NULL, &ha);
	errno = 0;
	T_CHECK(rdma_get_request(async, &r1) == -1 && errno == EINVAL);
	T_CHECK(r1 == NULL);
	T_CHECK(rdma_destroy_id(async) == 0);
	rdma_destroy_event_channel(ch);

	l = listener(NULL, &ctx, &hl);
	if (!l)
		return;
	ch = l->channel;
	fd = ch->fd;
	set_nonblock(fd);	/* a lost event fails instead of hanging */
	errno = 0;
	T_CHECK(rdma_get_request(NULL, &r1) == -1 && errno == EINVAL);
	T_CHECK(rdma_get_request(l, NULL) == -1 && errno == EINVAL);

	/*
	 * Each request id moves to a private channel of its own (as
	 * librdmacm's ucma_process_conn_req()): its events never reach the
	 * listener's fd, whose O_NONBLOCK it does not share.
	 */
	T_CHECK(script_request(fd, hl, &conn, "one", 4) != 0);
	T_CHECK(rdma_get_request(l, &r1) == 0);
	T_CHECK(r1 && r1 != l && r1->channel != ch && r1->context == &ctx);
	if (!r1)
		return;
	h1 = SEAM_LAST(rcm_migrate_id, RCM_CMD_MIGRATE_ID)->out_id;
	T_CHECK(SEAM_LAST(rcm_migrate_id, RCM_CMD_MIGRATE_ID)->fd == r1->channel->fd);
	T_CHECK(seam_live(r1->channel->fd, h1));
	T_CHECK(!(fcntl(r1->channel->fd, F_GETFL) & O_NONBLOCK));
	T_CHECK(r1->event && r1->event->event ==
		RDMA_CM_EVENT_CONNECT_REQUEST);
	T_CHECK(r1->event && r1->event->id == r1 &&
		r1->event->listen_id == l);
	T_CHECK(r1->event && !strcmp(r1->event->param.conn.private_data,
				     "one"));
	T_CHECK(r1->verbs != NULL && l->event == NULL);

	/* r1's own event is r1's channel's; the next request comes out. */
	T_CHECK(script_push(r1->channel->fd, h1, RCM_EVENT_REJECTED, 8));
	T_CHECK(script_request(fd, hl, &conn, "two", 4) != 0);
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
	destroy_promptly(r1);
	T_CHECK(seam_live(rfd, h2));
	start_destroy(&d, l);
	T_CHECK(!join_within(d.thread, 300));
	T_CHECK(fcntl(fd, F_GETFD) != -1);
	destroy_promptly(r2);
	T_CHECK(join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
	T_CHECK(t_lowest_free_fd() == fd_before);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_listen);
	script_cm();

	t_in_child("requests of a destroyed listener", listener_destroy);
	t_in_child("rdma_get_request", get_request);
	return t_exit();
}
