// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_listen: the passive side, rdma_listen(), CONNECT_REQUEST,
 * rdma_reject(), rdma_reject_ece() and rdma_get_request().
 *
 * - rdma_listen(): RCM_IOCTL_LISTEN with the id's handle and the backlog
 *   (a negative one as the kernel's "too large"), then the id shows the
 *   wildcard address and port the kernel bound it to; kernel errors
 *   pass through;
 * - CONNECT_REQUEST: the request id is made when the record is read, and
 *   the request's later REJECTED (context 0) is that id's; event->id
 *   is the new id (listener's channel, context, ps, qp_type; verbs,
 *   port_num, addresses from the kernel), listen_id the listener,
 *   param.conn the kernel's parameters and the 56 bytes of private data
 *   in event-owned memory;
 * - rdma_reject(): reason 0, the data and its length; NULL data sends
 *   none; 148 bytes pass, 149 fail with EINVAL before the kernel;
 *   rdma_reject_ece() sends 35; a second reject fails in the kernel;
 * - the CONNECT_REQUEST is charged to the listener, as in librdmacm:
 *   destroying the request id with the event unacked does not wait,
 *   destroying the listener does; the request id outlives the listener;
 * - a request whose listener is destroyed before the event is handed out
 *   (not read yet, or read by another thread that has not handed it out
 *   yet), or whose id cannot be queried, gets its kernel id destroyed
 *   and never shows up;
 * - rdma_get_request(): EINVAL on an async listener; returns the request
 *   id with the event in id->event; keeps a request id's own events for
 *   that id's next synchronous call (destroying the id acks them);
 *   ECONNREFUSED/-status/EINVAL for other listener events, kept in
 *   listen->event; the listener's destroy waits for the requests'
 *   events in id->event (as librdmacm's), and the private channel
 *   closes with the last id using it.
 *
 * The module is faked (fake_rcm.c), and so are libibverbs' devices
 * (fake_verbs.c).
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

#define LISTEN_PORT	20100

static struct rdma_event_channel *ch;
static struct sockaddr_storage peer;
static const struct rcm_conn_param conn = {
	.qp_num = 0x123456,
	.responder_resources = 3,
	.initiator_depth = 2,
	.flow_control = 1,
	.retry_count = 6,
	.rnr_retry_count = 7,
	.srq = 1,
};

static void setup(void)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;

	sin->sin_family = AF_INET;
	sin->sin_port = htons(41000);
	inet_pton(AF_INET, "192.0.2.30", &sin->sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
}

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
	*handle = fake_last_create.out_id;
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

static void listen_calls(void)
{
	struct rdma_cm_id *id = NULL, *ud = NULL;
	struct sockaddr_in *src;
	uint32_t h;

	setup();
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	T_CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
	if (!id)
		return;
	h = fake_last_create.out_id;

	/* A kernel error passes through, the id is unchanged. */
	fake_rcm_fail_next(RCM_CMD_LISTEN, EADDRINUSE);
	errno = 0;
	T_CHECK(rdma_listen(id, 4) == -1 && errno == EADDRINUSE);
	T_CHECK(rdma_get_src_port(id) == 0);

	/* Unbound: the kernel binds the IPv4 wildcard, the id shows it. */
	T_CHECK(rdma_listen(id, -1) == 0);
	T_CHECK(FAKE_CALLS(RCM_CMD_LISTEN) == 2);
	T_CHECK(fake_last_listen.size == sizeof(struct rcm_listen));
	T_CHECK(fake_last_listen.flags == 0);
	T_CHECK(fake_last_listen.id == h);
	T_CHECK(fake_last_listen.backlog == 0xffffffffu);
	src = (struct sockaddr_in *)&id->route.addr.src_storage;
	T_CHECK(src->sin_family == AF_INET);
	T_CHECK(src->sin_addr.s_addr == htonl(INADDR_ANY));
	T_CHECK(rdma_get_src_port(id) == htons(fake_ephemeral));
	T_CHECK(id->verbs == NULL);

	/* Listening twice: the kernel's EINVAL. */
	errno = 0;
	T_CHECK(rdma_listen(id, 5) == -1 && errno == EINVAL);
	T_CHECK(fake_last_listen.backlog == 5);

	/* A UD id listens for SIDR requests: passed on as any other. */
	T_CHECK(rdma_create_id(ch, &ud, NULL, RDMA_PS_UDP) == 0);
	T_CHECK(ud && rdma_listen(ud, 1) == 0);
	T_CHECK(fake_last_listen.backlog == 1);
	errno = 0;
	T_CHECK(rdma_listen(NULL, 1) == -1 && errno == EINVAL);

	T_CHECK(rdma_destroy_id(ud) == 0);
	T_CHECK(rdma_destroy_id(id) == 0);
	rdma_destroy_event_channel(ch);
}

static void connect_request(void)
{
	static const char hello[] = "hello-lib";
	static const uint8_t zero[56];
	struct rdma_cm_event *ev = NULL, *rej = NULL;
	struct rdma_cm_id *l, *r;
	struct sockaddr_in *sin;
	uint32_t hl, hr;
	int ctx;

	setup();
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	set_nonblock(ch->fd);	/* a lost event fails instead of hanging */
	l = listener(ch, &ctx, &hl);
	if (!l)
		return;
	hr = fake_rcm_push_request(ch->fd, hl, &conn, &peer, hello,
				   sizeof(hello));
	T_CHECK(hr != 0 && hr != hl);
	/* The peer gives up: the request's next record, context 0. */
	T_CHECK(fake_rcm_push(ch->fd, hr, RCM_EVENT_REJECTED, 8, NULL, 0));

	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	if (!ev)
		return;
	T_CHECK(fake_read_calls == 1 && fake_rcm_queued(ch->fd) == 1);
	T_CHECK(ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	T_CHECK(ev->status == 0);
	T_CHECK(ev->listen_id == l);
	r = ev->id;
	T_CHECK(r && r != l);
	if (!r)
		return;
	T_CHECK(r->channel == ch);
	T_CHECK(r->context == &ctx);
	T_CHECK(r->ps == RDMA_PS_TCP && r->qp_type == IBV_QPT_RC);
	T_CHECK(r->verbs && r->verbs->device == &fake_devices[0]);
	T_CHECK(r->port_num == 1);
	T_CHECK(r->event == NULL);
	T_CHECK(fake_last_query_id.id == hr);
	sin = (struct sockaddr_in *)&r->route.addr.dst_storage;
	T_CHECK(sin->sin_family == AF_INET && sin->sin_port == htons(41000));
	T_CHECK(sin->sin_addr.s_addr == htonl(0xc000021e));
	T_CHECK(rdma_get_src_port(r) == htons(LISTEN_PORT));
	T_CHECK(ev->param.conn.qp_num == 0x123456);
	T_CHECK(ev->param.conn.responder_resources == 3);
	T_CHECK(ev->param.conn.initiator_depth == 2);
	T_CHECK(ev->param.conn.flow_control == 1);
	T_CHECK(ev->param.conn.retry_count == 6);
	T_CHECK(ev->param.conn.rnr_retry_count == 7);
	T_CHECK(ev->param.conn.srq == 1);
	T_CHECK(ev->param.conn.private_data_len == 56);
	T_CHECK(ev->param.conn.private_data &&
		!memcmp(ev->param.conn.private_data, hello, sizeof(hello)) &&
		!memcmp((const uint8_t *)ev->param.conn.private_data +
			sizeof(hello), zero, 56 - sizeof(hello)));
	/* Event-owned: not inside the id or the listener. */
	T_CHECK((const char *)ev->param.conn.private_data <
		(const char *)ev ||
		(const char *)ev->param.conn.private_data >=
		(const char *)(ev + 1));

	/* The request's REJECTED, context 0, belongs to the request id. */
	T_CHECK(rdma_get_cm_event(ch, &rej) == 0);
	T_CHECK(rej && rej->id == r && rej->listen_id == NULL);
	T_CHECK(rej && rej->event == RDMA_CM_EVENT_REJECTED &&
		rej->status == 8);
	if (rej)
		rdma_ack_cm_event(rej);

	T_CHECK(rdma_reject(r, "nope", 5) == 0);
	T_CHECK(fake_last_reject.size == sizeof(struct rcm_reject));
	T_CHECK(fake_last_reject.id == hr);
	T_CHECK(fake_last_reject.reason == 0);
	T_CHECK(fake_last_reject.private_data_len == 5);
	T_CHECK(fake_last_reject.reserved == 0 && fake_last_reject.flags == 0);
	T_CHECK(!memcmp(fake_reject_data, "nope", 5));
	T_CHECK(fake_rcm_rejected(ch->fd, hr));
	/* Answered already: the kernel says EINVAL. */
	errno = 0;
	T_CHECK(rdma_reject(r, NULL, 0) == -1 && errno == EINVAL);

	/*
	 * librdmacm charges CONNECT_REQUEST to the listener: the request id
	 * goes at once although the event is not acked.
	 */
	destroy_promptly(r);
	T_CHECK(!fake_rcm_id_live(ch->fd, hr));
	rdma_ack_cm_event(ev);
	destroy_promptly(l);
	set_nonblock(ch->fd);
	expect_eagain(ch);
	rdma_destroy_event_channel(ch);
}

/* Get one CONNECT_REQUEST for hl on ch; returns the event. */
static struct rdma_cm_event *get_request_event(uint32_t hl, uint32_t *hr)
{
	struct rdma_cm_event *ev = NULL;

	*hr = fake_rcm_push_request(ch->fd, hl, &conn, &peer, "x", 2);
	T_CHECK(*hr != 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	return ev;
}

static void reject_variants(void)
{
	uint8_t big[149];
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *r;
	uint32_t hl, hr;
	int calls;

	setup();
	memset(big, 0xab, sizeof(big));
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	l = listener(ch, NULL, &hl);
	if (!l)
		return;
	ev = get_request_event(hl, &hr);
	if (!ev)
		return;
	r = ev->id;

	calls = FAKE_CALLS(RCM_CMD_REJECT);
	errno = 0;
	T_CHECK(rdma_reject(r, big, 149) == -1 && errno == EINVAL);
	errno = 0;
	T_CHECK(rdma_reject_ece(r, big, 149) == -1 && errno == EINVAL);
	errno = 0;
	T_CHECK(rdma_reject(NULL, NULL, 0) == -1 && errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_REJECT) == calls);	/* never sent */

	/* The kernel refuses a listener: not a request. */
	errno = 0;
	T_CHECK(rdma_reject(l, NULL, 0) == -1 && errno == EINVAL);
	T_CHECK(fake_last_reject.id == hl);

	T_CHECK(rdma_reject_ece(r, big, 148) == 0);
	T_CHECK(fake_last_reject.id == hr);
	T_CHECK(fake_last_reject.reason == 35);
	T_CHECK(fake_last_reject.private_data_len == 148);
	T_CHECK(fake_last_reject.private_data == (uintptr_t)big);
	T_CHECK(fake_reject_data[147] == 0xab);
	rdma_ack_cm_event(ev);
	T_CHECK(rdma_destroy_id(r) == 0);

	/* No pointer, no data, whatever the length says. */
	ev = get_request_event(hl, &hr);
	if (!ev)
		return;
	r = ev->id;
	T_CHECK(rdma_reject(r, NULL, 10) == 0);
	T_CHECK(fake_last_reject.id == hr);
	T_CHECK(fake_last_reject.private_data_len == 0);
	T_CHECK(fake_last_reject.private_data == 0);
	T_CHECK(fake_last_reject.reason == 0);
	rdma_ack_cm_event(ev);

	/* The request id outlives its listener. */
	T_CHECK(rdma_destroy_id(l) == 0);
	T_CHECK(rdma_destroy_id(r) == 0);
	T_CHECK(!fake_rcm_id_live(ch->fd, hr));
	rdma_destroy_event_channel(ch);
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
	struct rdma_cm_id *l, *r, *other = NULL;
	struct destroyer d;
	pthread_t getter;
	uint32_t hl, hr, hr2, ho;
	int destroys;

	setup();
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	T_CHECK(rdma_create_id(ch, &other, NULL, RDMA_PS_TCP) == 0);
	if (!other)
		return;
	ho = fake_last_create.out_id;
	l = listener(ch, NULL, &hl);
	if (!l)
		return;

	/*
	 * Read by another thread, not handed out yet, when the listener
	 * goes: the request id is destroyed, its REJECTED skipped, and that
	 * thread gets the next event.
	 */
	hr = fake_rcm_push_request(ch->fd, hl, &conn, &peer, NULL, 0);
	T_CHECK(fake_rcm_push(ch->fd, hr, RCM_EVENT_REJECTED, 8, NULL, 0));
	T_CHECK(fake_rcm_push(ch->fd, ho, RCM_EVENT_ESTABLISHED, 0, NULL, 0));
	fake_rcm_hold_next_read();
	T_CHECK(pthread_create(&getter, NULL, get_thread, &ev) == 0);
	T_CHECK(fake_rcm_wait_held(2000));
	T_CHECK(fake_rcm_queued(ch->fd) == 2 && fake_rcm_id_live(ch->fd, hr));
	destroy_promptly(l);
	T_CHECK(fake_rcm_id_live(ch->fd, hr));	/* read: the kernel keeps it */
	fake_rcm_release_read();
	T_CHECK(join_within(getter, 2000));
	T_CHECK(ev && ev->id == other);
	T_CHECK(!fake_rcm_id_live(ch->fd, hr));
	T_CHECK(fake_last_destroy.id == hr);
	if (ev)
		rdma_ack_cm_event(ev);
	set_nonblock(ch->fd);
	expect_eagain(ch);

	/* Not read yet when the listener goes: destroyed when read. */
	l = listener(ch, NULL, &hl);
	if (!l)
		return;
	hr = fake_rcm_push_request(ch->fd, hl, &conn, &peer, NULL, 0);
	T_CHECK(hr != 0);
	destroys = FAKE_CALLS(RCM_CMD_DESTROY_ID);
	T_CHECK(rdma_destroy_id(l) == 0);
	T_CHECK(fake_rcm_id_live(ch->fd, hr));	/* the kernel keeps it */
	expect_eagain(ch);
	T_CHECK(!fake_rcm_id_live(ch->fd, hr));
	T_CHECK(FAKE_CALLS(RCM_CMD_DESTROY_ID) == destroys + 2);

	/* A request the library cannot query is rejected and skipped. */
	l = listener(ch, NULL, &hl);
	if (!l)
		return;
	fake_rcm_fail_next(RCM_CMD_QUERY_ID, EIO);
	hr = fake_rcm_push_request(ch->fd, hl, &conn, &peer, NULL, 0);
	expect_eagain(ch);
	T_CHECK(hr && !fake_rcm_id_live(ch->fd, hr));

	/* The listener waits for the ack of a handed-out request. */
	hr2 = fake_rcm_push_request(ch->fd, hl, &conn, &peer, NULL, 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	if (!ev)
		return;
	r = ev->id;
	start_destroy(&d, l);
	T_CHECK(!join_within(d.thread, 300));
	T_CHECK(!__atomic_load_n(&d.done, __ATOMIC_SEQ_CST));
	T_CHECK(fake_rcm_id_live(ch->fd, hr2));	/* the request stays */
	rdma_ack_cm_event(ev);
	T_CHECK(join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
	T_CHECK(rdma_destroy_id(r) == 0);
	T_CHECK(!fake_rcm_id_live(ch->fd, hr2));

	T_CHECK(rdma_destroy_id(other) == 0);
	rdma_destroy_event_channel(ch);
}

static void get_request(void)
{
	struct rdma_cm_id *l, *r1 = NULL, *r2 = NULL, *async;
	uint32_t hl, ha, h1, h2;
	int fd_before, fd, rfd, ctx;
	struct destroyer d;

	setup();
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
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "one", 4) != 0);
	T_CHECK(rdma_get_request(l, &r1) == 0);
	T_CHECK(r1 && r1 != l && r1->channel != ch && r1->context == &ctx);
	if (!r1)
		return;
	h1 = fake_last_migrate.out_id;
	T_CHECK(fake_last_migrate.fd == r1->channel->fd);
	T_CHECK(fake_rcm_id_live(r1->channel->fd, h1));
	T_CHECK(!(fcntl(r1->channel->fd, F_GETFL) & O_NONBLOCK));
	T_CHECK(r1->event && r1->event->event ==
		RDMA_CM_EVENT_CONNECT_REQUEST);
	T_CHECK(r1->event && r1->event->id == r1 &&
		r1->event->listen_id == l);
	T_CHECK(r1->event && !strcmp(r1->event->param.conn.private_data,
				     "one"));
	T_CHECK(r1->verbs != NULL && l->event == NULL);

	/* r1's own event is r1's channel's; the next request comes out. */
	T_CHECK(fake_rcm_push(r1->channel->fd, h1, RCM_EVENT_REJECTED, 8,
			      NULL, 0));
	T_CHECK(fake_rcm_push_request(fd, hl, &conn, &peer, "two", 4) != 0);
	T_CHECK(rdma_get_request(l, &r2) == 0);
	T_CHECK(r2 && r2 != r1 && r2->event &&
		r2->event->listen_id == l &&
		!strcmp(r2->event->param.conn.private_data, "two"));
	T_CHECK(r2 && r2->channel != ch && r2->channel != r1->channel);
	h2 = fake_last_migrate.out_id;
	T_CHECK(fake_rcm_queued(fd) == 0);
	T_CHECK(fake_rcm_queued(r1->channel->fd) == 1);

	/* Other events of the listener fail and stay in listen->event. */
	T_CHECK(fake_rcm_push(fd, hl, RCM_EVENT_DEVICE_REMOVAL, 0, NULL, 0));
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == EINVAL);
	T_CHECK(l->event &&
		l->event->event == RDMA_CM_EVENT_DEVICE_REMOVAL);
	T_CHECK(fake_rcm_push(fd, hl, RCM_EVENT_ADDR_CHANGE, -ENODEV,
			      NULL, 0));
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == ENODEV);
	T_CHECK(l->event && l->event->status == -ENODEV);
	T_CHECK(fake_rcm_push(fd, hl, RCM_EVENT_REJECTED, 28, NULL, 0));
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == ECONNREFUSED);
	T_CHECK(l->event && l->event->event == RDMA_CM_EVENT_REJECTED);
	errno = 0;
	T_CHECK(rdma_get_request(l, &r1) == -1 && errno == EAGAIN);
	T_CHECK(l->event == NULL);	/* acked by the call */

	T_CHECK(rdma_reject(r1, "no", 3) == 0);
	T_CHECK(fake_last_reject.id == h1);

	/*
	 * As in librdmacm, the listener waits for the CONNECT_REQUESTs that
	 * its request ids hold in id->event; destroying them acks those.
	 * Each private channel closes with its id.
	 */
	rfd = r2->channel->fd;
	destroy_promptly(r1);
	T_CHECK(fake_rcm_id_live(rfd, h2));
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
	fake_rcm_init();

	t_in_child("rdma_listen", listen_calls);
	t_in_child("CONNECT_REQUEST makes an id", connect_request);
	t_in_child("rdma_reject and rdma_reject_ece", reject_variants);
	t_in_child("requests of a destroyed listener", listener_destroy);
	t_in_child("rdma_get_request", get_request);
	return t_exit();
}
