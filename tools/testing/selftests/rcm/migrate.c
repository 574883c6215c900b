// SPDX-License-Identifier: GPL-2.0-only
/*
 * migrate: RCM_IOCTL_MIGRATE_ID moves an id, with its unread events, to
 * another open rcm file: the old handle names nothing, the events and
 * everything later come from the new file, a listener's requests too,
 * and the id outlives the file it came from.
 */
#include <poll.h>
#include <sys/ioctl.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

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

RCM_TEST(migrate_errors)
{
	int a = rcm_open_dev(), b = rcm_open_dev();
	int null = open("/dev/null", O_RDWR);
	unsigned int id = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 1);
	struct rcm_migrate_id m;

	CHECK(id && null >= 0, "set-up: %s", strerror(errno));
	CHECK_ERRNO(migrate(a, id + 100, b, &m), ENOENT);
	CHECK_ERRNO(migrate(a, id, 1000, &m), EBADF);
	CHECK_ERRNO(migrate(a, id, -1, &m), EBADF);
	CHECK_ERRNO(migrate(a, id, null, &m), EINVAL);
	/* Its own file: nothing changes. */
	CHECK(migrate(a, id, a, &m) == 0 && m.out_id == id &&
	      m.out_events_reported == 0, "to itself: %s, id %u",
	      strerror(errno), m.out_id);
	CHECK(rcm_destroy(a, id) == 0, "destroy: %s", strerror(errno));
	close(null);
	close(a);
	close(b);
}

RCM_TEST(events_follow_the_id)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	int a = rcm_open_dev(), b = rcm_open_dev();
	struct rcm_migrate_id m;
	struct rcm_event ev;
	unsigned int id, other;

	if (!ip)
		SKIP("no Soft-RoCE device");
	id = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 0xfeed);
	other = rcm_create(b, RCM_PS_TCP, RCM_QPT_RC, 2);
	CHECK(id && other, "create: %s", strerror(errno));
	/* One event read in the old file, one left unread there. */
	CHECK(rcm_resolved(a, id, ip) == 0, "resolve: %s", strerror(errno));
	CHECK(rcm_route(a, id, 0) == 0, "route: %s", strerror(errno));
	CHECK(migrate(a, id, b, &m) == 0, "migrate: %s", strerror(errno));
	CHECK(m.out_id && m.out_events_reported == 1,
	      "new handle %u, %u events reported", m.out_id,
	      m.out_events_reported);
	CHECK(quiet(a, 200), "an event stayed in the old file");
	CHECK(rcm_wait_event(b, 1000, &ev) == 0 &&
	      ev.event == RCM_EVENT_ROUTE_RESOLVED && ev.id == m.out_id &&
	      ev.context == 0xfeed, "event %u id %u in the new file", ev.event,
	      ev.id);
	/* The old handle names nothing; the new one works. */
	CHECK_ERRNO(rcm_route(a, id, 0), ENOENT);
	CHECK_ERRNO(rcm_destroy(a, id), ENOENT);
	/* Back again, then the file it came from closes under it. */
	CHECK(migrate(b, m.out_id, a, &m) == 0 && m.out_events_reported == 2,
	      "back: %s, %u reported", strerror(errno), m.out_events_reported);
	CHECK(migrate(a, m.out_id, b, &m) == 0, "again: %s", strerror(errno));
	close(a);
	CHECK(rcm_destroy(b, m.out_id) == 0, "destroy in the new file: %s",
	      strerror(errno));
	CHECK(rcm_destroy(b, other) == 0, "destroy: %s", strerror(errno));
	close(b);
}

RCM_TEST(listener_requests_go_to_the_new_file)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	int a = rcm_open_dev(), b = rcm_open_dev(), c = rcm_open_dev();
	struct rcm_migrate_id m;
	struct rcm_event ev;
	unsigned int lid, c1, c2;

	if (!ip)
		SKIP("no Soft-RoCE device");
	lid = rcm_listener(a, ip, 20501, 0x1157, 0);
	c1 = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 1);
	c2 = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 2);
	CHECK(lid && c1 && c2, "set-up: %s", strerror(errno));
	CHECK(rcm_routed(c, c1, ip, 20501) == 0 &&
	      rcm_routed(c, c2, ip, 20501) == 0, "route: %s", strerror(errno));
	CHECK(rcm_connect(c, c1, 0x11, "first") == 0, "connect: %s",
	      strerror(errno));
	/* Its unread request names ids of the old file: not now. */
	CHECK(poll_in(a, 30000), "no request");
	CHECK_ERRNO(migrate(a, lid, b, &m), EBUSY);
	CHECK(rcm_wait_event(a, 1000, &ev) == 0 &&
	      ev.event == RCM_EVENT_CONNECT_REQUEST, "request");
	CHECK(!strcmp((char *)ev.private_data, "first"), "first request");
	CHECK(migrate(a, lid, b, &m) == 0, "migrate: %s", strerror(errno));
	CHECK(rcm_connect(c, c2, 0x12, "second") == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_wait_event(b, 30000, &ev) == 0 &&
	      ev.event == RCM_EVENT_CONNECT_REQUEST &&
	      ev.listen_id == m.out_id && ev.context == 0x1157 &&
	      !strcmp((char *)ev.private_data, "second"),
	      "second request in the new file: event %u listen_id %u",
	      ev.event, ev.listen_id);
	close(a);
	close(b);
	close(c);
}

int main(void)
{
	return rcm_test_run();
}
