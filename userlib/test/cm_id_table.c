// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_id_table: a channel's id tables hold thousands of ids.
 *
 * - 5000 ids on one channel, made one by one: events for the first, a
 *   middle and the last one made reach their ids while the tables grow,
 *   and then an event for each of them does;
 * - a third of them destroyed, and new ones made (on freed addresses and
 *   handles): every event still names its id;
 * - 5000 connection requests on the same channel (request ids, found by
 *   handle): the same, with half of them destroyed;
 * - a multicast group of a UD id among them: its events (named by
 *   handle) reach the id;
 * - a few ids and request ids migrated to another channel and one back:
 *   their events come on the channel they are on, with the new handle,
 *   and the others' on theirs;
 * - a request id whose rdma_destroy_id() waits for an ack while the
 *   module gives its handle to a new request, and the table grows: the
 *   new request's events reach the new id (the table keeps the newest id
 *   of a handle first when it grows).
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs' devices are faked (fake_verbs.c). The channels are
 * non-blocking: an event the library drops as naming no id fails the
 * check instead of hanging.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

#define N_IDS		5000
#define N_REQS		5000
/* Events queued at a time. */
#define BATCH		32

/* An id of the test, and its handle in the file of the channel it is on. */
struct tid {
	struct rdma_cm_id	*id;
	uint32_t		handle;
};

static struct tid ids[N_IDS];
static struct tid reqs[N_REQS];
static const struct rcm_conn_param conn = {
	.qp_num = 0x123456,
	.responder_resources = 1,
	.initiator_depth = 1,
	.retry_count = 7,
	.rnr_retry_count = 7,
};

/* The context of the last join: its group's events carry it. */
static uint64_t join_context;

static bool push_group(int fd, uint32_t handle, uint32_t event,
		       int32_t status)
{
	struct rcm_event ev = seam_event(fd, handle, event, status);

	ev.context = join_context;
	return seam_push(fd, &ev);
}

static int join(int fd, void *arg)
{
	const struct rcm_join_mcast *c = arg;

	join_context = c->context;
	return push_group(fd, c->id, RCM_EVENT_MULTICAST_JOIN, 0) ? 0 : ENOMEM;
}

static struct rdma_event_channel *channel(void)
{
	struct rdma_event_channel *c = rdma_create_event_channel();

	T_CHECK(c != NULL);
	if (c)
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	return c;
}

/* Make an id of the test on c, with t as its context. */
static bool make_id(struct rdma_event_channel *c, struct tid *t,
		    enum rdma_port_space ps)
{
	t->id = NULL;
	T_CHECK(rdma_create_id(c, &t->id, t, ps) == 0);
	t->handle = SEAM_LAST_HANDLE();
	return t->id != NULL;
}

static void destroy(struct tid *t)
{
	T_CHECK(rdma_destroy_id(t->id) == 0);
	t->id = NULL;
	t->handle = 0;
}

/* The next event of c, which must be there: NULL and a failure if not. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *c)
{
	struct rdma_cm_event *ev = NULL;

	if (rdma_get_cm_event(c, &ev)) {
		fprintf(stderr, "no event (errno %d): the library dropped it\n",
			errno);
		t_failures++;
		return NULL;
	}
	return ev;
}

/*
 * Queue UNREACHABLE for each of the n (at most BATCH) ids, then check
 * that c hands them out in that order, each naming its id.
 */
static void deliver(struct rdma_event_channel *c, struct tid **t, int n)
{
	struct rdma_cm_event *ev;
	int i;

	for (i = 0; i < n; i++)
		T_CHECK(script_push(c->fd, t[i]->handle,
				      RCM_EVENT_UNREACHABLE, -ETIMEDOUT));
	for (i = 0; i < n; i++) {
		ev = next_event(c);
		if (!ev)
			return;
		if (ev->id != t[i]->id ||
		    ev->event != RDMA_CM_EVENT_UNREACHABLE ||
		    ev->status != -ETIMEDOUT) {
			fprintf(stderr, "event of handle %u: %s of %p, wanted %p\n",
				t[i]->handle, rdma_event_str(ev->event),
				(void *)ev->id, (void *)t[i]->id);
			t_failures++;
		}
		rdma_ack_cm_event(ev);
	}
}

/* deliver() for three ids. */
static void deliver3(struct rdma_event_channel *c, struct tid *a,
		     struct tid *b, struct tid *z)
{
	struct tid *t[] = { a, b, z };

	deliver(c, t, ARRAY_SIZE(t));
}

/* deliver() for every id of the n in arr that is there, in batches. */
static void sweep(struct rdma_event_channel *c, struct tid *arr, int n)
{
	struct tid *t[BATCH];
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (!arr[i].id)
			continue;
		t[k++] = &arr[i];
		if (k == BATCH) {
			deliver(c, t, k);
			k = 0;
		}
	}
	deliver(c, t, k);
}

/* The events left on c: none. */
static void expect_none(struct rdma_event_channel *c)
{
	struct rdma_cm_event *ev = NULL;

	errno = 0;
	T_CHECK(rdma_get_cm_event(c, &ev) == -1 && errno == EAGAIN);
	if (ev)
		rdma_ack_cm_event(ev);
}

/* A TCP id on c listening on 192.0.2.10:20600. */
static bool make_listener(struct rdma_event_channel *c, struct tid *l)
{
	l->id = cm_listener(c, l, 20600, &l->handle);
	return l->id != NULL;
}

/*
 * N_REQS connection requests to listener l on c, BATCH at a time; each
 * CONNECT_REQUEST must name the listener and bring its request id.
 */
static void requests(struct rdma_event_channel *c, struct tid *l)
{
	struct rdma_cm_event *ev;
	int i, j, n;

	for (i = 0; i < N_REQS; i += n) {
		n = N_REQS - i < BATCH ? N_REQS - i : BATCH;
		for (j = i; j < i + n; j++) {
			reqs[j].handle = script_request(c->fd, l->handle, &conn,
							NULL, 0);
			T_CHECK(reqs[j].handle != 0);
		}
		for (j = i; j < i + n; j++) {
			ev = next_event(c);
			if (!ev)
				return;
			T_CHECK(ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
			T_CHECK(ev->listen_id == l->id);
			T_CHECK(ev->id && ev->id != l->id &&
				ev->id->context == l);
			reqs[j].id = ev->id;
			rdma_ack_cm_event(ev);
		}
		/* While the tables grow: the first, a middle, the last. */
		deliver3(c, &reqs[0], &reqs[(i + n) / 2], &reqs[i + n - 1]);
		if (t_failures)
			return;
	}
}

/* A UD id on c among the others, with a group: its events reach it. */
static void mcast(struct rdma_event_channel *c, struct tid *u)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sockaddr_in group = { .sin_family = AF_INET };
	struct rdma_cm_event *ev;
	static int ctx;

	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	inet_pton(AF_INET, "239.1.2.3", &group.sin_addr);
	seam_reply[SEAM_CMD(RCM_CMD_JOIN_MCAST)] = join;
	if (!make_id(c, u, RDMA_PS_UDP))
		return;
	T_CHECK(rdma_bind_addr(u->id, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_join_multicast(u->id, (struct sockaddr *)&group,
				    &ctx) == 0);
	ev = next_event(c);
	if (!ev)
		return;
	T_CHECK(ev->event == RDMA_CM_EVENT_MULTICAST_JOIN);
	T_CHECK(ev->id == u->id && ev->param.ud.private_data == &ctx);
	rdma_ack_cm_event(ev);

	T_CHECK(push_group(c->fd, u->handle, RCM_EVENT_MULTICAST_ERROR,
			   -ENETRESET));
	ev = next_event(c);
	if (!ev)
		return;
	T_CHECK(ev->event == RDMA_CM_EVENT_MULTICAST_ERROR);
	T_CHECK(ev->id == u->id && ev->param.ud.private_data == &ctx);
	rdma_ack_cm_event(ev);
}

/* The first id of arr that is there at index i or after, or a failure. */
static struct tid *live(struct tid *arr, int n, int i)
{
	for (; i < n; i++)
		if (arr[i].id)
			return &arr[i];
	t_failures++;
	return NULL;
}

/* Take the first id of arr there at i or after out of arr, into t. */
static bool take(struct tid *t, struct tid *arr, int n, int i)
{
	struct tid *from = live(arr, n, i);

	if (!from)
		return false;
	*t = *from;
	from->id = NULL;
	return true;
}

/* Move t to channel to: its handle is the one the seam gave it there. */
static bool migrate(struct tid *t, struct rdma_event_channel *to)
{
	T_CHECK(rdma_migrate_id(t->id, to) == 0);
	if (t->id->channel != to) {
		t_failures++;
		return false;
	}
	t->handle = SEAM_LAST(rcm_migrate_id, RCM_CMD_MIGRATE_ID)->out_id;
	return true;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec +
	       (now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * An event the library dropped leaves its id with an event it will
 * never see acked, which a destroy or migration of the id would wait
 * for: the case stops at its first failed step instead.
 */
static void many_ids(void)
{
	struct tid listener, ud, moved[5], back, *mid;
	struct rdma_event_channel *c, *c2;
	struct timespec start;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &start);
	c = channel();
	c2 = channel();
	if (!c || !c2)
		return;

	for (i = 0; i < N_IDS; i++) {
		if (!make_id(c, &ids[i], RDMA_PS_TCP))
			return;
		if ((i + 1) % 250 == 0)
			deliver3(c, &ids[0], &ids[i / 2], &ids[i]);
		if (t_failures)
			return;
	}
	sweep(c, ids, N_IDS);
	if (t_failures)
		return;

	/* A third go, and new ids take their handles and, likely, memory. */
	for (i = 1; i < N_IDS; i += 3)
		destroy(&ids[i]);
	sweep(c, ids, N_IDS);
	for (i = 1; i < N_IDS / 2; i += 3)
		if (!make_id(c, &ids[i], RDMA_PS_TCP))
			return;
	sweep(c, ids, N_IDS);

	if (t_failures || !make_listener(c, &listener))
		return;
	requests(c, &listener);
	sweep(c, reqs, N_REQS);
	if (t_failures)
		return;
	for (i = 0; i < N_REQS; i += 2)
		destroy(&reqs[i]);
	sweep(c, reqs, N_REQS);
	sweep(c, ids, N_IDS);

	mcast(c, &ud);
	if (t_failures)
		return;

	/* Ids and request ids move to c2; one of them comes back. */
	if (!take(&moved[0], ids, N_IDS, 0) ||
	    !take(&moved[1], ids, N_IDS, N_IDS / 2) ||
	    !take(&moved[2], ids, N_IDS, N_IDS - 3) ||
	    !take(&moved[3], reqs, N_REQS, 1) ||
	    !take(&moved[4], reqs, N_REQS, N_REQS - 3))
		return;
	for (i = 0; i < 5; i++)
		if (!migrate(&moved[i], c2))
			return;
	sweep(c2, moved, 5);
	sweep(c, ids, N_IDS);
	sweep(c, reqs, N_REQS);
	if (t_failures)
		return;
	back = moved[3];
	moved[3].id = NULL;
	mid = live(ids, N_IDS, N_IDS / 3);
	if (!mid || !migrate(&back, c))
		return;
	deliver3(c, &back, mid, &ud);
	sweep(c2, moved, 5);
	expect_none(c);
	expect_none(c2);
	if (t_failures)
		return;

	for (i = 0; i < N_IDS; i++)
		if (ids[i].id)
			destroy(&ids[i]);
	for (i = 0; i < N_REQS; i++)
		if (reqs[i].id)
			destroy(&reqs[i]);
	for (i = 0; i < 5; i++)
		if (moved[i].id)
			destroy(&moved[i]);
	destroy(&back);
	destroy(&ud);
	destroy(&listener);
	rdma_destroy_event_channel(c);
	rdma_destroy_event_channel(c2);
	fprintf(stderr, "%d ids and %d requests on one channel: %.2f s\n",
		N_IDS, N_REQS, seconds_since(&start));
}

/* The RCM_IOCTL_DESTROY_ID calls that succeeded. */
static int destroyed;
static pthread_mutex_t destroyed_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t destroyed_cond = PTHREAD_COND_INITIALIZER;

static int count_destroy(int fd, void *arg)
{
	(void)fd;
	(void)arg;
	pthread_mutex_lock(&destroyed_lock);
	destroyed++;
	pthread_cond_broadcast(&destroyed_cond);
	pthread_mutex_unlock(&destroyed_lock);
	return 0;
}

/* Wait up to 5 s for n successful RCM_IOCTL_DESTROY_IDs in all. */
static bool wait_destroyed(int n)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&destroyed_lock);
	while (destroyed < n)
		if (pthread_cond_timedwait(&destroyed_cond, &destroyed_lock,
					   &ts))
			break;
	ok = destroyed >= n;
	pthread_mutex_unlock(&destroyed_lock);
	return ok;
}

/* The first CONNECT_REQUEST on c: its request id into r, acked. */
static bool request(struct rdma_event_channel *c, struct tid *l,
		    struct tid *r)
{
	struct rdma_cm_event *ev;

	r->handle = script_request(c->fd, l->handle, &conn, NULL, 0);
	ev = next_event(c);
	if (!ev)
		return false;
	T_CHECK(ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	r->id = ev->id;
	rdma_ack_cm_event(ev);
	return r->id != NULL;
}

/*
 * A destroyed request id still waiting for the ack of an event it
 * reported shares its handle with the request the module made next,
 * and the handle table grows once meanwhile: events of the handle go to
 * the new request id, not the old one (which would drop them).
 */
static void handle_reused(void)
{
	/* A grow past 2 ids a bucket of the first 64: listener, 2 requests. */
	static struct tid fill[2 * 64 + 1 - 3];
	struct tid listener, old, fresh = { 0 }, *t;
	struct rdma_event_channel *c;
	struct rdma_cm_event *held;
	struct cm_destroyer d;
	unsigned int i;

	c = channel();
	if (!c || !make_listener(c, &listener) || !request(c, &listener, &old))
		return;
	T_CHECK(script_push(c->fd, old.handle, RCM_EVENT_UNREACHABLE,
			      -ETIMEDOUT));
	held = next_event(c);
	if (!held)
		return;
	seam_reply[SEAM_CMD(RCM_CMD_DESTROY_ID)] = count_destroy;
	cm_start_destroy(&d, old.id);
	/* The kernel's id goes; the library's waits for held's ack. */
	T_CHECK(wait_destroyed(1));
	T_CHECK(!seam_live(c->fd, old.handle));
	/* The lowest free handle: the old request's. */
	if (!request(c, &listener, &fresh))
		goto out;
	T_CHECK(fresh.handle == old.handle);
	for (i = 0; i < ARRAY_SIZE(fill); i++)
		if (!make_id(c, &fill[i], RDMA_PS_TCP))
			goto out;
	t = &fresh;
	deliver(c, &t, 1);
out:
	rdma_ack_cm_event(held);
	T_CHECK(cm_join_within(d.thread, 2000) && d.ret == 0);
	/* A dropped event would keep fresh's destroy waiting for its ack. */
	if (t_failures)
		return;
	for (i = 0; i < ARRAY_SIZE(fill); i++)
		if (fill[i].id)
			destroy(&fill[i]);
	if (fresh.id)
		destroy(&fresh);
	destroy(&listener);
	rdma_destroy_event_channel(c);
}

CM_MAIN(rdma_create_id,
	{ "thousands of ids on one channel", many_ids },
	{ "a handle given again while the table grows", handle_reused })
