// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_migrate: rdma_migrate_id().
 *
 * - to another channel: RCM_IOCTL_MIGRATE_ID on the old channel's fd
 *   with the id's handle and the new channel's fd; the library reads
 *   nothing ahead, so the id's events not handed out are all still in
 *   the kernel and come out of the new channel, in order, none out of
 *   the old one, whose other ids keep theirs;
 * - the new handle afterwards: RESOLVE_ROUTE, the QUERY_ID of its
 *   ROUTE_RESOLVED and DESTROY_ID carry it; a request id (found by
 *   handle, context 0) is found under its new handle;
 * - moved events do not make the call wait, and destroying the id right
 *   after drops them; an event handed out and not acked does, until
 *   another thread acks it (an ack that finds the id moved);
 * - a record of the id that another thread read from the old file and
 *   had not looked at when the kernel moved the id is handed out there
 *   (as in librdmacm), and the call waits for that thread and the ack;
 * - NULL channel: the id becomes synchronous on a private channel of its
 *   own (closed by rdma_destroy_id()); a synchronous id: EINVAL. A
 *   synchronous id to a channel: its held event is acked without a
 *   wait, its private channel closed; a synchronous listener's request
 *   id, on a private channel of its own, takes its queued events along,
 *   and the listener keeps its channel;
 * - never EBUSY for a listener, as in-tree: its unread connection
 *   requests move with it (the kernel moves their ids too) and come out
 *   of the new channel, with request ids usable there;
 * - errors: NULL id, another synchronous id's private channel
 *   (EINVAL), kernel errors pass through and leave the id where it was
 *   (a private channel opened for it is closed again), EMFILE of a full
 *   channel; the id's own channel is a no-op without an ioctl.
 *
 * The module is faked (fake_rcm.c), and so are libibverbs' devices
 * (fake_verbs.c). Waits are bounded: a hang fails the check.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

static struct sockaddr_storage peer;
static struct sockaddr_in dst = { .sin_family = AF_INET };
static const struct rcm_conn_param conn = {
	.qp_num = 0x123456,
	.responder_resources = 1,
	.initiator_depth = 1,
};

static void setup(void)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(41000);
	inet_pton(AF_INET, "192.0.2.30", &sin->sin_addr);
	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
}

static struct rdma_event_channel *channel(void)
{
	struct rdma_event_channel *c = rdma_create_event_channel();

	T_CHECK(c != NULL);
	return c;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static struct rdma_cm_id *new_id(struct rdma_event_channel *c,
				 uint32_t *handle)
{
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(c, &id, NULL, RDMA_PS_TCP) == 0);
	if (handle)
		*handle = fake_last_create.out_id;
	return id;
}

/* A TCP id on c (NULL: synchronous) listening on 192.0.2.10:20100. */
static struct rdma_cm_id *listener(struct rdma_event_channel *c,
				   uint32_t *handle)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_id *id;

	a.sin_port = htons(20100);
	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	id = new_id(c, handle);
	if (!id)
		return NULL;
	T_CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_listen(id, 8) == 0);
	return id;
}

static void expect_eagain(struct rdma_event_channel *c)
{
	struct rdma_cm_event *ev = NULL;

	errno = 0;
	T_CHECK(rdma_get_cm_event(c, &ev) == -1);
	T_CHECK(errno == EAGAIN);
	T_CHECK(ev == NULL);
	if (ev)
		rdma_ack_cm_event(ev);
}

/* The next event of c must be type for id (any if NULL); acked unless kept. */
static struct rdma_cm_event *expect(struct rdma_event_channel *c,
				    enum rdma_cm_event_type type,
				    struct rdma_cm_id *id, bool keep)
{
	struct rdma_cm_event *ev = NULL;

	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	if (!ev)
		return NULL;
	if (ev->event != type || (id && ev->id != id)) {
		fprintf(stderr, "  wanted %s, got %s%s\n",
			rdma_event_str(type), rdma_event_str(ev->event),
			ev->id != id ? " of another id" : "");
		t_failures++;
	}
	if (keep)
		return ev;
	rdma_ack_cm_event(ev);
	return NULL;
}

/* Join within ms milliseconds; false (and the thread left) on timeout. */
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

struct migrator {
	struct rdma_cm_id *id;
	struct rdma_event_channel *to;
	pthread_t thread;
	int ret;
	int err;
};

static void *migrate_thread(void *arg)
{
	struct migrator *m = arg;

	m->ret = rdma_migrate_id(m->id, m->to);
	m->err = errno;
	return NULL;
}

static void start_migrate(struct migrator *m, struct rdma_cm_id *id,
			  struct rdma_event_channel *to)
{
	m->id = id;
	m->to = to;
	m->ret = -2;
	m->err = 0;
	T_CHECK(pthread_create(&m->thread, NULL, migrate_thread, m) == 0);
}

/* rdma_migrate_id() in a thread: a hang fails instead of timing out. */
static int migrate_promptly(struct rdma_cm_id *id,
			    struct rdma_event_channel *to)
{
	struct migrator m;

	start_migrate(&m, id, to);
	if (!join_within(m.thread, 2000)) {
		T_CHECK(!"rdma_migrate_id() returns");
		return -2;
	}
	errno = m.err;
	return m.ret;
}

/* The id's events still in the kernel move; nothing is left behind. */
static void moves_unread(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *a, *b;
	uint32_t ha, hb, ha2;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	a = new_id(a_ch, &ha);
	b = new_id(a_ch, &hb);
	fake_rcm_push(a_ch->fd, hb, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
		      NULL, 0);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_REJECTED, 28, "priva", 5);
	fake_rcm_push(a_ch->fd, hb, RCM_EVENT_DISCONNECTED, 0, NULL, 0);
	/* One read: the other three stay in the kernel. */
	expect(a_ch, RDMA_CM_EVENT_ESTABLISHED, b, false);
	T_CHECK(fake_read_calls == 1 && fake_rcm_queued(a_ch->fd) == 3);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);

	T_CHECK(migrate_promptly(a, b_ch) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_MIGRATE_ID) == 1);
	T_CHECK(fake_last_migrate.size == sizeof(struct rcm_migrate_id));
	T_CHECK(fake_last_migrate.id == ha);
	T_CHECK(fake_last_migrate.fd == b_ch->fd);
	ha2 = fake_last_migrate.out_id;
	T_CHECK(a->channel == b_ch);
	T_CHECK(!fake_rcm_id_live(a_ch->fd, ha));
	T_CHECK(fake_rcm_id_live(b_ch->fd, ha2));
	T_CHECK(fake_rcm_queued(a_ch->fd) == 1);
	T_CHECK(fake_rcm_queued(b_ch->fd) == 3);

	set_nonblock(a_ch->fd);
	set_nonblock(b_ch->fd);
	expect(a_ch, RDMA_CM_EVENT_DISCONNECTED, b, false);
	expect_eagain(a_ch);

	ev = expect(b_ch, RDMA_CM_EVENT_UNREACHABLE, a, true);
	T_CHECK(ev && ev->status == -ETIMEDOUT && !ev->listen_id);
	if (ev)
		rdma_ack_cm_event(ev);
	ev = expect(b_ch, RDMA_CM_EVENT_REJECTED, a, true);
	T_CHECK(ev && ev->status == 28);
	T_CHECK(ev && ev->param.conn.private_data_len == 5 &&
		!memcmp(ev->param.conn.private_data, "priva", 5));
	if (ev)
		rdma_ack_cm_event(ev);
	expect(b_ch, RDMA_CM_EVENT_TIMEWAIT_EXIT, a, false);
	expect_eagain(b_ch);

	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(fake_last_destroy.id == ha2);
	T_CHECK(rdma_destroy_id(b) == 0);
	T_CHECK(fake_last_destroy.id == hb);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

/* The kernel's new handle is what the library uses afterwards. */
static void new_handle_used(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_id *a, *other;
	uint32_t ha, ha2;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	/* Take handle 1 of b_ch, so that the new handle differs. */
	other = new_id(b_ch, NULL);
	a = new_id(a_ch, &ha);
	T_CHECK(rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst, 500) == 0);
	expect(a_ch, RDMA_CM_EVENT_ADDR_RESOLVED, a, false);

	T_CHECK(migrate_promptly(a, b_ch) == 0);
	ha2 = fake_last_migrate.out_id;
	T_CHECK(ha2 != ha && ha2 != 0);

	T_CHECK(rdma_resolve_route(a, 500) == 0);
	T_CHECK(fake_last_resolve_route.id == ha2);
	expect(b_ch, RDMA_CM_EVENT_ROUTE_RESOLVED, a, false);
	T_CHECK(a->route.num_paths == 1 && a->route.path_rec);
	set_nonblock(a_ch->fd);
	expect_eagain(a_ch);

	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(fake_last_destroy.id == ha2);
	T_CHECK(rdma_destroy_id(other) == 0);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

/* A request id's events come with context 0: found by its new handle. */
static void request_id_rekeyed(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *r, *other;
	uint32_t hl, hr, hr2;

	setup();
	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	other = new_id(b_ch, NULL);	/* a new handle other than hr */
	l = listener(a_ch, &hl);
	hr = fake_rcm_push_request(a_ch->fd, hl, &conn, &peer, "hi", 2);
	T_CHECK(hr != 0);
	ev = expect(a_ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, true);
	if (!ev)
		return;
	r = ev->id;
	T_CHECK(ev->listen_id == l);
	rdma_ack_cm_event(ev);

	T_CHECK(migrate_promptly(r, b_ch) == 0);
	hr2 = fake_last_migrate.out_id;
	T_CHECK(fake_last_migrate.id == hr);
	T_CHECK(fake_rcm_context(b_ch->fd, hr2) == 0);
	T_CHECK(r->channel == b_ch);

	T_CHECK(fake_rcm_push(b_ch->fd, hr2, RCM_EVENT_REJECTED, 8, NULL, 0));
	expect(b_ch, RDMA_CM_EVENT_REJECTED, r, false);
	set_nonblock(a_ch->fd);
	expect_eagain(a_ch);

	T_CHECK(rdma_destroy_id(r) == 0);
	T_CHECK(fake_last_destroy.id == hr2);
	T_CHECK(rdma_destroy_id(l) == 0);
	T_CHECK(rdma_destroy_id(other) == 0);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

/* Moved events never make it wait; destroy drops them. */
static void destroy_after_migrate(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_id *a, *b, *c;
	uint32_t ha, hb, hc;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	a = new_id(a_ch, &ha);
	b = new_id(a_ch, &hb);
	c = new_id(b_ch, &hc);
	fake_rcm_push(a_ch->fd, hb, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
		      NULL, 0);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);
	fake_rcm_push(b_ch->fd, hc, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	expect(a_ch, RDMA_CM_EVENT_ESTABLISHED, b, false);

	T_CHECK(migrate_promptly(a, b_ch) == 0);
	/* a's moved events are dropped: no wait, never handed out. */
	T_CHECK(rdma_destroy_id(a) == 0);
	set_nonblock(b_ch->fd);
	expect(b_ch, RDMA_CM_EVENT_ESTABLISHED, c, false);
	expect_eagain(b_ch);

	T_CHECK(rdma_destroy_id(b) == 0);
	T_CHECK(rdma_destroy_id(c) == 0);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

/* An event handed out and not acked: the call waits for its ack. */
static void waits_for_ack(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *a;
	struct migrator m;
	uint32_t ha;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	a = new_id(a_ch, &ha);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_DISCONNECTED, 0, NULL, 0);
	ev = expect(a_ch, RDMA_CM_EVENT_ESTABLISHED, a, true);
	if (!ev)
		return;

	start_migrate(&m, a, b_ch);
	T_CHECK(!join_within(m.thread, 300));	/* blocked on the ack */
	T_CHECK(FAKE_CALLS(RCM_CMD_MIGRATE_ID) == 1);
	T_CHECK(a->channel == b_ch);		/* moved already */
	rdma_ack_cm_event(ev);
	T_CHECK(join_within(m.thread, 2000));
	T_CHECK(m.ret == 0);

	set_nonblock(a_ch->fd);
	set_nonblock(b_ch->fd);
	expect(b_ch, RDMA_CM_EVENT_DISCONNECTED, a, false);
	expect_eagain(b_ch);
	expect_eagain(a_ch);
	T_CHECK(rdma_destroy_id(a) == 0);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

/*
 * A reader that read() a record of a and has not looked at it yet: the
 * call waits for it; the reader hands the event out on the old channel,
 * as librdmacm's would, and the call waits for its ack too.
 */
struct getter {
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
};

static void *get_thread(void *arg)
{
	struct getter *g = arg;

	if (rdma_get_cm_event(g->ch, &g->ev))
		g->ev = NULL;
	return NULL;
}

static void in_flight_record(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct getter g = { 0 };
	struct rdma_cm_id *a, *b;
	struct migrator m;
	pthread_t reader;
	uint32_t ha, hb;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	a = new_id(a_ch, &ha);
	b = new_id(a_ch, &hb);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
		      NULL, 0);
	fake_rcm_push(a_ch->fd, hb, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);

	fake_rcm_hold_next_read();
	g.ch = a_ch;
	T_CHECK(pthread_create(&reader, NULL, get_thread, &g) == 0);
	T_CHECK(fake_rcm_wait_held(2000));
	T_CHECK(fake_rcm_queued(a_ch->fd) == 2);	/* one read */

	start_migrate(&m, a, b_ch);
	T_CHECK(!join_within(m.thread, 300));	/* waits for the reader */
	T_CHECK(FAKE_CALLS(RCM_CMD_MIGRATE_ID) == 1);
	T_CHECK(fake_last_migrate.out_events_reported == 1);
	T_CHECK(fake_rcm_queued(b_ch->fd) == 1);	/* TIMEWAIT_EXIT */

	fake_rcm_release_read();
	T_CHECK(join_within(reader, 2000));
	T_CHECK(g.ev && g.ev->id == a &&
		g.ev->event == RDMA_CM_EVENT_UNREACHABLE);
	T_CHECK(!join_within(m.thread, 300));	/* and for its ack */
	T_CHECK(a->channel == b_ch);
	if (g.ev)
		rdma_ack_cm_event(g.ev);
	T_CHECK(join_within(m.thread, 2000));
	T_CHECK(m.ret == 0);

	set_nonblock(a_ch->fd);
	set_nonblock(b_ch->fd);
	expect(a_ch, RDMA_CM_EVENT_ESTABLISHED, b, false);
	expect(b_ch, RDMA_CM_EVENT_TIMEWAIT_EXIT, a, false);
	expect_eagain(b_ch);
	expect_eagain(a_ch);
	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

/* NULL channel: synchronous from then on, on a private channel. */
static void to_sync(void)
{
	struct rdma_event_channel *a_ch;
	struct rdma_cm_id *a;
	int fd_before, fd_chan;
	uint32_t ha;

	setup();
	a_ch = channel();
	if (!a_ch)
		return;
	a = new_id(a_ch, &ha);
	fd_before = t_lowest_free_fd();

	T_CHECK(migrate_promptly(a, NULL) == 0);
	T_CHECK(a->channel && a->channel != a_ch);
	fd_chan = a->channel ? a->channel->fd : -1;
	T_CHECK(fake_last_migrate.fd == fd_chan);
	T_CHECK(t_lowest_free_fd() != fd_before);	/* its own file */

	/* Synchronous: the call returns with the event in id->event. */
	T_CHECK(rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst, 500) == 0);
	T_CHECK(a->event && a->event->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	T_CHECK(a->verbs != NULL);
	T_CHECK(fake_last_resolve.id == fake_last_migrate.out_id);

	errno = 0;
	T_CHECK(rdma_migrate_id(a, NULL) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_MIGRATE_ID) == 1);

	set_nonblock(a_ch->fd);
	expect_eagain(a_ch);
	T_CHECK(rdma_destroy_id(a) == 0);	/* acks a->event */
	T_CHECK(t_lowest_free_fd() == fd_before);
	rdma_destroy_event_channel(a_ch);
}

/* A synchronous id to a channel: held event acked, private one closed. */
static void from_sync(void)
{
	struct rdma_event_channel *a_ch;
	struct rdma_cm_id *s;
	int fd_before;

	setup();
	a_ch = channel();
	if (!a_ch)
		return;
	fd_before = t_lowest_free_fd();
	s = new_id(NULL, NULL);
	if (!s)
		return;
	T_CHECK(rdma_resolve_addr(s, NULL, (struct sockaddr *)&dst, 500) == 0);
	T_CHECK(s->event != NULL);

	T_CHECK(migrate_promptly(s, a_ch) == 0);
	T_CHECK(s->event == NULL);
	T_CHECK(s->channel == a_ch);
	T_CHECK(t_lowest_free_fd() == fd_before);	/* its own closed */

	/* Asynchronous now: the call returns, the event is on a_ch. */
	T_CHECK(rdma_resolve_route(s, 500) == 0);
	T_CHECK(s->event == NULL);
	expect(a_ch, RDMA_CM_EVENT_ROUTE_RESOLVED, s, false);
	T_CHECK(rdma_destroy_id(s) == 0);
	rdma_destroy_event_channel(a_ch);
}

/*
 * A synchronous listener's request id is synchronous on a private channel
 * of its own: migrated to a channel, it takes its unread events along,
 * its held event is acked and its private channel closed; the listener
 * keeps its own.
 */
static void sync_request_own_channel(void)
{
	struct rdma_event_channel *a_ch;
	struct rdma_cm_id *l, *r = NULL, *r2 = NULL;
	uint32_t hl, hr;
	int lfd, rfd, fd_before;

	setup();
	fd_before = t_lowest_free_fd();
	a_ch = channel();
	if (!a_ch)
		return;
	l = listener(NULL, &hl);
	if (!l)
		return;
	lfd = l->channel->fd;
	T_CHECK(fake_rcm_push_request(lfd, hl, &conn, &peer, NULL, 0) != 0);
	T_CHECK(rdma_get_request(l, &r) == 0);
	if (!r)
		return;
	rfd = r->channel->fd;
	hr = fake_last_migrate.out_id;
	T_CHECK(r->channel != l->channel && r->event);
	T_CHECK(rfd == fake_last_migrate.fd);

	T_CHECK(fake_rcm_push(rfd, hr, RCM_EVENT_ESTABLISHED, 0, NULL, 0));
	T_CHECK(fake_rcm_push_request(lfd, hl, &conn, &peer, NULL, 0) != 0);
	T_CHECK(fake_rcm_push(rfd, hr, RCM_EVENT_DISCONNECTED, 0, NULL, 0));
	T_CHECK(fake_rcm_queued(lfd) == 1 && fake_rcm_queued(rfd) == 2);

	T_CHECK(migrate_promptly(r, a_ch) == 0);
	T_CHECK(r->event == NULL);		/* its request event, acked */
	T_CHECK(r->channel == a_ch);
	T_CHECK(fcntl(rfd, F_GETFD) == -1);	/* its own, closed */
	T_CHECK(l->channel->fd == lfd && fcntl(lfd, F_GETFD) != -1);
	set_nonblock(a_ch->fd);
	expect(a_ch, RDMA_CM_EVENT_ESTABLISHED, r, false);
	expect(a_ch, RDMA_CM_EVENT_DISCONNECTED, r, false);
	expect_eagain(a_ch);

	/* The listener goes on. */
	T_CHECK(rdma_get_request(l, &r2) == 0);
	T_CHECK(r2 && r2->channel != l->channel && r2->channel != a_ch);

	T_CHECK(rdma_destroy_id(r) == 0);
	if (r2)
		T_CHECK(rdma_destroy_id(r2) == 0);
	T_CHECK(rdma_destroy_id(l) == 0);
	rdma_destroy_event_channel(a_ch);
	T_CHECK(t_lowest_free_fd() == fd_before);
}

/*
 * Never EBUSY for a listener (as in-tree): its unread connection requests
 * move with it, and come out of the new channel with request ids there.
 */
static void listener_takes_requests(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_id *l, *c, *r1 = NULL, *r2 = NULL;
	struct rdma_cm_event *ev;
	uint32_t hl, hc;

	setup();
	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	l = listener(a_ch, &hl);
	c = new_id(a_ch, &hc);
	T_CHECK(fake_rcm_push_request(a_ch->fd, hl, &conn, &peer, "one", 4));
	fake_rcm_push(a_ch->fd, hc, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	T_CHECK(fake_rcm_push_request(a_ch->fd, hl, &conn, &peer, "two", 4));

	T_CHECK(migrate_promptly(l, b_ch) == 0);
	T_CHECK(l->channel == b_ch);
	T_CHECK(fake_rcm_queued(a_ch->fd) == 1 && fake_rcm_queued(b_ch->fd) == 2);
	set_nonblock(a_ch->fd);
	set_nonblock(b_ch->fd);
	expect(a_ch, RDMA_CM_EVENT_ESTABLISHED, c, false);
	expect_eagain(a_ch);

	ev = expect(b_ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, true);
	if (ev) {
		r1 = ev->id;
		T_CHECK(ev->listen_id == l && r1->channel == b_ch);
		T_CHECK(!strcmp(ev->param.conn.private_data, "one"));
		rdma_ack_cm_event(ev);
	}
	ev = expect(b_ch, RDMA_CM_EVENT_CONNECT_REQUEST, NULL, true);
	if (ev) {
		r2 = ev->id;
		T_CHECK(ev->listen_id == l && r2->channel == b_ch);
		rdma_ack_cm_event(ev);
	}
	expect_eagain(b_ch);
	/* The request ids work on the new channel's file. */
	if (r1)
		T_CHECK(rdma_reject(r1, NULL, 0) == 0);
	if (r1)
		T_CHECK(rdma_destroy_id(r1) == 0);
	if (r2)
		T_CHECK(rdma_destroy_id(r2) == 0);
	T_CHECK(rdma_destroy_id(l) == 0);
	T_CHECK(rdma_destroy_id(c) == 0);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

static void errors(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_id *a, *s, *full[FAKE_RCM_MAX_IDS];
	int fd_before, i, n;
	uint32_t ha;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	a = new_id(a_ch, &ha);
	s = new_id(NULL, NULL);
	if (!a || !s)
		return;

	errno = 0;
	T_CHECK(rdma_migrate_id(NULL, b_ch) == -1 && errno == EINVAL);
	T_CHECK(rdma_migrate_id(a, a_ch) == 0);	/* its own: no-op */
	T_CHECK(rdma_migrate_id(s, s->channel) == 0);
	T_CHECK(s->channel != a_ch);		/* still synchronous */
	errno = 0;	/* another id's private channel */
	T_CHECK(rdma_migrate_id(a, s->channel) == -1 && errno == EINVAL);
	T_CHECK(a->channel == a_ch);
	T_CHECK(FAKE_CALLS(RCM_CMD_MIGRATE_ID) == 0);
	T_CHECK(rdma_destroy_id(s) == 0);

	fake_rcm_fail_next(RCM_CMD_MIGRATE_ID, ENOENT);
	errno = 0;
	T_CHECK(rdma_migrate_id(a, b_ch) == -1 && errno == ENOENT);
	T_CHECK(a->channel == a_ch);

	fd_before = t_lowest_free_fd();
	fake_rcm_fail_next(RCM_CMD_MIGRATE_ID, ENOMEM);
	errno = 0;
	T_CHECK(rdma_migrate_id(a, NULL) == -1 && errno == ENOMEM);
	T_CHECK(a->channel == a_ch);
	T_CHECK(t_lowest_free_fd() == fd_before);

	/* Still on a_ch under its old handle. */
	fake_rcm_push(a_ch->fd, ha, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
		      NULL, 0);
	expect(a_ch, RDMA_CM_EVENT_UNREACHABLE, a, false);

	/* A full destination: the kernel's EMFILE. */
	for (n = 0; n < FAKE_RCM_MAX_IDS; n++) {
		full[n] = NULL;
		if (rdma_create_id(b_ch, &full[n], NULL, RDMA_PS_TCP))
			break;
	}
	T_CHECK(n == FAKE_RCM_MAX_IDS);
	errno = 0;
	T_CHECK(rdma_migrate_id(a, b_ch) == -1 && errno == EMFILE);
	T_CHECK(a->channel == a_ch);
	for (i = 0; i < n; i++)
		rdma_destroy_id(full[i]);

	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(fake_last_destroy.id == ha);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_migrate_id);
	fake_rcm_init();
	setup();

	t_in_child("unread events move, in order", moves_unread);
	t_in_child("the new handle is used afterwards", new_handle_used);
	t_in_child("a request id is found by its new handle",
		   request_id_rekeyed);
	t_in_child("destroy right after a migration", destroy_after_migrate);
	t_in_child("waits for handed-out events", waits_for_ack);
	t_in_child("a record a reader holds is waited for", in_flight_record);
	t_in_child("NULL channel: synchronous", to_sync);
	t_in_child("synchronous id to a channel", from_sync);
	t_in_child("a synchronous request id has its own channel",
		   sync_request_own_channel);
	t_in_child("a listener takes its unread requests along",
		   listener_takes_requests);
	t_in_child("errors", errors);
	return t_exit();
}
