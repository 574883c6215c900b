// SPDX-License-Identifier: GPL-2.0-only
/*
 * migrate: RCM_IOCTL_MIGRATE_ID moves an id, with its unread events, to
 * another open rcm file: the old handle names nothing, the events and
 * everything later come from the new file, a listener's requests too
 * (an unread one goes along, with its request id, as in-tree it is never
 * EBUSY), and the id outlives the file it came from.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

static int migrate(int fd, unsigned int id, int to, struct rcm_migrate_id *m)
{
	memset(m, 0, sizeof(*m));
	m->size = sizeof(*m);
	m->id = id;
	m->fd = to;
	return ioctl(fd, RCM_IOCTL_MIGRATE_ID, m);
}

/* An event is queued within @ms (none is read). */
static int poll_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* No event within @ms. */
static int quiet(int fd, int ms)
{
	struct rcm_event ev;

	return rcm_wait_event(fd, ms, &ev) != 0;
}

TEST(migrate_errors)
{
	int a = rcm_open_dev(), b = rcm_open_dev();
	int null = open("/dev/null", O_RDWR);
	unsigned int id = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 1);
	struct rcm_migrate_id m;

	ASSERT_TRUE(id && null >= 0)
		TH_LOG("set-up: %s", strerror(errno));
	ASSERT_ERRNO(migrate(a, id + 100, b, &m), ENOENT);
	ASSERT_ERRNO(migrate(a, id, 1000, &m), EBADF);
	ASSERT_ERRNO(migrate(a, id, -1, &m), EBADF);
	ASSERT_ERRNO(migrate(a, id, null, &m), EINVAL);
	/* Its own file: nothing changes. */
	ASSERT_TRUE(migrate(a, id, a, &m) == 0 && m.out_id == id &&
		    m.out_events_reported == 0)
		TH_LOG("to itself: %s, id %u", strerror(errno), m.out_id);
	ASSERT_EQ(0, rcm_destroy(a, id))
		TH_LOG("destroy: %s", strerror(errno));
	close(null);
	close(a);
	close(b);
}

TEST(events_follow_the_id)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	int a = rcm_open_dev(), b = rcm_open_dev();
	struct rcm_migrate_id m;
	struct rcm_event ev;
	unsigned int id, other;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	id = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 0xfeed);
	other = rcm_create(b, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_TRUE(id && other)
		TH_LOG("create: %s", strerror(errno));
	/* One event read in the old file, one left unread there. */
	ASSERT_EQ(0, rcm_resolved(a, id, ip))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_route(a, id, 0))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, migrate(a, id, b, &m))
		TH_LOG("migrate: %s", strerror(errno));
	ASSERT_TRUE(m.out_id && m.out_events_reported == 1)
		TH_LOG("new handle %u, %u events reported", m.out_id,
		       m.out_events_reported);
	ASSERT_TRUE(quiet(a, 200))
		TH_LOG("an event stayed in the old file");
	ASSERT_TRUE(rcm_wait_event(b, 1000, &ev) == 0 &&
		    ev.event == RCM_EVENT_ROUTE_RESOLVED && ev.id == m.out_id &&
		    ev.context == 0xfeed)
		TH_LOG("event %u id %u in the new file", ev.event, ev.id);
	/* The old handle names nothing; the new one works. */
	ASSERT_ERRNO(rcm_route(a, id, 0), ENOENT);
	ASSERT_ERRNO(rcm_destroy(a, id), ENOENT);
	/* Back again, then the file it came from closes under it. */
	ASSERT_TRUE(migrate(b, m.out_id, a, &m) == 0 &&
		    m.out_events_reported == 2)
		TH_LOG("back: %s, %u reported", strerror(errno), m.out_events_reported);
	ASSERT_EQ(0, migrate(a, m.out_id, b, &m))
		TH_LOG("again: %s", strerror(errno));
	close(a);
	ASSERT_EQ(0, rcm_destroy(b, m.out_id))
		TH_LOG("destroy in the new file: %s", strerror(errno));
	ASSERT_EQ(0, rcm_destroy(b, other))
		TH_LOG("destroy: %s", strerror(errno));
	close(b);
}

/*
 * The next event on @fd within @ms, into *@ev: 0 when it is a request
 * for listener @lid (context 0x1157) carrying the string @data.
 */
static int request_in(int fd, unsigned int lid, const char *data, int ms,
		      struct rcm_event *ev)
{
	if (rcm_wait_event(fd, ms, ev))
		return -1;
	return ev->event == RCM_EVENT_CONNECT_REQUEST && ev->listen_id == lid &&
	       ev->context == 0x1157 && !strcmp((char *)ev->private_data, data) ?
	       0 : -1;
}

TEST(listener_requests_go_to_the_new_file)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	int a = rcm_open_dev(), b = rcm_open_dev(), c = rcm_open_dev();
	struct rcm_migrate_id m;
	unsigned short port = 0;
	struct rcm_event ev;
	unsigned int lid, c1, c2;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	lid = rcm_listener(a, ip, &port, 0x1157, 0);
	c1 = lid ? rcm_routed_id(c, ip, port, 1) : 0;
	c2 = c1 ? rcm_routed_id(c, ip, port, 2) : 0;
	ASSERT_TRUE(lid && c1 && c2)
		TH_LOG("set-up: %s", strerror(errno));
	ASSERT_EQ(0, rcm_connect(c, c1, 0x11, "first"))
		TH_LOG("connect: %s", strerror(errno));
	/*
	 * Never EBUSY, as in-tree: the unread request goes along, its
	 * request id too (a handle of the new file), and naming the
	 * listener's new handle.
	 */
	ASSERT_TRUE(poll_in(a, 30000))
		TH_LOG("no request");
	ASSERT_EQ(0, migrate(a, lid, b, &m))
		TH_LOG("migrate: %s", strerror(errno));
	ASSERT_TRUE(quiet(a, 0))
		TH_LOG("the request stayed in the old file");
	ASSERT_EQ(0, request_in(b, m.out_id, "first", 1000, &ev))
		TH_LOG("first request in the new file: event %u listen_id %u",
		       ev.event, ev.listen_id);
	ASSERT_TRUE(ev.id != m.out_id &&
		    rcm_accept(b, ev.id, 0x21, 0x2121, NULL) == 0)
		TH_LOG("accept in the new file: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev))
		TH_LOG("the peer's answer");
	ASSERT_EQ(0, rcm_connect(c, c2, 0x12, "second"))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, request_in(b, m.out_id, "second", 30000, &ev))
		TH_LOG("second request in the new file: event %u listen_id %u",
		       ev.event, ev.listen_id);
	close(a);
	close(b);
	close(c);
}

/*
 * A RESOLVE_ROUTE that looked the id up before a MIGRATE_ID moved it,
 * and went on once the migration let go of the id, queued its
 * ROUTE_RESOLVED on the old file (the command's) under the new handle:
 * the event named a handle the old file did not have, and once the id
 * was destroyed in its new file the old file's queue held an event of a
 * freed id, which read() then touched (found by the fuzzer, seed 0x2c,
 * worker 1 thread 2). The event must follow the id.
 *
 * To make the two meet, a read() of many queued events holds the new
 * file's readers' lock; the migration waits for it holding the id's
 * command lock, and the route finds the id still in the old file and
 * waits for that lock in turn.
 */
#define QUEUED 1000
#define ROUTE_RACES 4

struct reader {
	int fd;
	void *buf;
	size_t len;
	ssize_t n;
};

static void *read_thread(void *arg)
{
	struct reader *r = arg;

	r->n = read(r->fd, r->buf, r->len);
	return NULL;
}

struct mover {
	int src, dst, ret;
	unsigned int id;
	struct rcm_migrate_id m;
};

static void *migrate_thread(void *arg)
{
	struct mover *mv = arg;

	mv->ret = migrate(mv->src, mv->id, mv->dst, &mv->m);
	return NULL;
}

/* @n ids of @fd routed to @ip: n ROUTE_RESOLVED queued, nothing else. */
static int queue_routes(int fd, const char *ip, int n)
{
	unsigned int *ids = calloc(n, sizeof(*ids));
	struct rcm_event ev;
	int i, got = 0;

	for (i = 0; i < n && ids; i++) {
		ids[i] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i);
		if (!ids[i] || rcm_resolve(fd, ids[i], NULL, ip, 2000))
			break;
	}
	while (got < i && !rcm_wait_event(fd, 10000, &ev))
		got += ev.event == RCM_EVENT_ADDR_RESOLVED;
	for (i = 0; i < got; i++)
		if (rcm_route(fd, ids[i], 0))
			break;
	free(ids);
	return i == n ? 0 : -1;
}

TEST(route_event_follows_a_racing_migration)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	size_t len = QUEUED * sizeof(struct rcm_event);
	struct reader rd;
	struct mover mv;
	struct rcm_event ev;
	pthread_t tr, tm;
	int i, ret, hits = 0;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	for (i = 0; i < ROUTE_RACES; i++) {
		mv.src = rcm_open_dev();
		mv.dst = rcm_open_dev();
		mv.id = rcm_create(mv.src, RCM_PS_TCP, RCM_QPT_RC, 0x77);
		ASSERT_TRUE(mv.id && !rcm_resolved(mv.src, mv.id, ip))
			TH_LOG("resolve: %s", strerror(errno));
		ASSERT_TRUE(!queue_routes(mv.dst, ip, QUEUED))
			TH_LOG("queue events: %s", strerror(errno));
		/* Not touched yet: every page the read fills faults in. */
		rd.buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, rd.buf)
			TH_LOG("mmap");
		rd.fd = mv.dst;
		rd.len = len;
		/*
		 * Not waits: head starts of 200 us aim the three at one
		 * window (the read running, the migration behind it); no
		 * outcome is assumed, the rounds that met count as hits.
		 */
		ASSERT_TRUE(!pthread_create(&tr, NULL, read_thread, &rd))
			TH_LOG("thread");
		usleep(200);
		ASSERT_TRUE(!pthread_create(&tm, NULL, migrate_thread, &mv))
			TH_LOG("thread");
		usleep(200);
		ret = rcm_route(mv.src, mv.id, 0);
		pthread_join(tr, NULL);
		pthread_join(tm, NULL);
		munmap(rd.buf, len);
		ASSERT_EQ(0, mv.ret)
			TH_LOG("migrate: %s", strerror(errno));
		printf("# round %d: read %zd bytes, route %s\n", i, rd.n,
		       ret ? strerror(errno) : "done");
		if (ret == 0) {
			hits++;
			ASSERT_TRUE(!poll_in(mv.src, 0))
				TH_LOG("round %d: ROUTE_RESOLVED went to the old file", i);
			ASSERT_TRUE(rcm_wait_event(mv.dst, 1000, &ev) == 0 &&
				    ev.event == RCM_EVENT_ROUTE_RESOLVED &&
				    ev.id == mv.m.out_id)
				TH_LOG("round %d: no ROUTE_RESOLVED for %u in the new file",
				       i, mv.m.out_id);
		}
		ASSERT_EQ(0, rcm_destroy(mv.dst, mv.m.out_id))
			TH_LOG("destroy: %s", strerror(errno));
		close(mv.src);
		close(mv.dst);
	}
	ASSERT_TRUE(hits)
		TH_LOG("the route never met the migration in %d rounds",
		       ROUTE_RACES);
}

RCM_TEST_MAIN
