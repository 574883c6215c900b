// SPDX-License-Identifier: GPL-2.0-only
/*
 * stress: churn that must leave nothing behind (issue 12, part 2).
 *
 * - connect_disconnect_cycles: RCM_STRESS_CYCLES (default 150) full
 *   connections over Soft-RoCE - connect, accept, establish, disconnect
 *   from either side, destroy - in one process.
 * - kill_at_random_points: RCM_STRESS_KILLS (default 40) rounds in which
 *   a server process and a client process connect to each other over
 *   and over and one of them is killed with SIGKILL at a random moment
 *   (seeded by RCM_STRESS_SEED, printed), so that over the run every
 *   step of connect and accept is interrupted.
 *
 * - rmmod_refused_while_a_file_is_open.
 *
 * The first two end by counting rcm's live ids and event records in
 * /proc/slabinfo (where the kernel has it and the caches are not merged
 * with others): the counts must come back to what they were, after the
 * kernel log's kmemleak scan (by the harness) has nothing to say either.
 * "make stress" runs it with large counts.
 *
 * Needs RCM_ADDR_RXE from the guest.
 */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

static int simple(int fd, unsigned long cmd, unsigned int id)
{
	struct rcm_establish e = { .size = sizeof(e), .id = id };

	return ioctl(fd, cmd, &e);
}

/* The next event of @id on @fd within 30 s, of type @type. */
static int event_of(int fd, unsigned int id, unsigned int type)
{
	struct rcm_event ev;

	for (;;) {
		if (rcm_wait_event(fd, 30000, &ev))
			return -1;
		if (ev.id != id)
			continue;	/* e.g. a TIMEWAIT_EXIT of an old one */
		if (ev.event == type)
			return 0;
		printf("# id %u: event %u status %d, want %u\n", id, ev.event,
		       ev.status, type);
		return -1;
	}
}

/* One connection from @c to the listener on @s, up and down again. */
static int cycle(int s, int c, const char *ip, unsigned short port,
		 int passive_first)
{
	struct rcm_event ev;
	unsigned int cid, rid;

	cid = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 0xc);
	if (!cid || rcm_routed(c, cid, ip, port) ||
	    rcm_connect(c, cid, 0x10, "cycle"))
		return -1;
	do {
		if (rcm_wait_event(s, 30000, &ev))
			return -1;
	} while (ev.event != RCM_EVENT_CONNECT_REQUEST);
	rid = ev.id;
	if (rcm_accept(s, rid, 0x20, 0x5, NULL) ||
	    event_of(c, cid, RCM_EVENT_CONNECT_RESPONSE) ||
	    simple(c, RCM_IOCTL_ESTABLISH, cid) ||
	    event_of(s, rid, RCM_EVENT_ESTABLISHED))
		return -1;
	if (passive_first) {
		if (simple(s, RCM_IOCTL_DISCONNECT, rid) ||
		    event_of(c, cid, RCM_EVENT_DISCONNECTED) ||
		    simple(c, RCM_IOCTL_DISCONNECT, cid) ||
		    event_of(s, rid, RCM_EVENT_DISCONNECTED))
			return -1;
	} else {
		if (simple(c, RCM_IOCTL_DISCONNECT, cid) ||
		    event_of(s, rid, RCM_EVENT_DISCONNECTED) ||
		    simple(s, RCM_IOCTL_DISCONNECT, rid) ||
		    event_of(c, cid, RCM_EVENT_DISCONNECTED))
			return -1;
	}
	return rcm_destroy(c, cid) || rcm_destroy(s, rid) ? -1 : 0;
}

/*
 * rcm's live ids and event records are back at @ids0 and @evs0 (taken
 * before; -1: the counts are not there) after the @what.
 */
static void slabs_back(struct __test_metadata *_metadata, const char *what,
		       long ids0, long evs0)
{
	long ids, evs;

	if (ids0 < 0 || evs0 < 0) {
		printf("# no rcm caches in /proc/slabinfo: counts not checked\n");
		return;
	}
	ASSERT_EQ(0, rcm_slabs_back_to(ids0, evs0, &ids, &evs))
		TH_LOG("after the %s: %ld ids (%ld before), %ld events (%ld before)",
		       what, ids, ids0, evs, evs0);
	printf("# after the %s: rcm_id %ld (baseline %ld), rcm_uevent %ld (baseline %ld)\n",
	       what, ids, ids0, evs, evs0);
}

TEST(connect_disconnect_cycles)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned long n = rcm_env_ul("RCM_STRESS_CYCLES", 150), i;
	long ids0, evs0;
	struct timespec t0, t1;
	unsigned short port = 0;
	unsigned int lid;
	int s, c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	ids0 = rcm_slab_objects("rcm_id");
	evs0 = rcm_slab_objects("rcm_uevent");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x1, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, cycle(s, c, ip, port, i & 1))
			TH_LOG("cycle %lu of %lu failed: %s", i, n, strerror(errno));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(c);
	close(s);
	printf("# %lu connect/disconnect cycles in %ld s\n", n,
	       (long)(t1.tv_sec - t0.tv_sec));
	slabs_back(_metadata, "cycles", ids0, evs0);
}

/* Serve connections on @port until killed: accept and disconnect. */
static void server(const char *ip, unsigned short port)
{
	int s = rcm_open_dev();
	unsigned int lid = rcm_listener(s, ip, &port, 1, 0);
	struct rcm_event ev;

	if (!lid)
		_exit(2);
	for (;;) {
		if (rcm_wait_event(s, 1000, &ev))
			continue;
		if (ev.event == RCM_EVENT_CONNECT_REQUEST)
			rcm_accept(s, ev.id, 0x20, ev.id, NULL);
		else if (ev.event == RCM_EVENT_DISCONNECTED)
			simple(s, RCM_IOCTL_DISCONNECT, ev.id);
		else if (ev.event != RCM_EVENT_ESTABLISHED)
			rcm_destroy(s, ev.id);
	}
}

/* Connect to @port over and over until killed. */
static void client(const char *ip, unsigned short port)
{
	int c = rcm_open_dev();
	struct rcm_event ev;
	unsigned int id;

	for (;;) {
		id = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 2);
		if (!id || rcm_routed(c, id, ip, port) ||
		    rcm_connect(c, id, 0x10, NULL)) {
			rcm_destroy(c, id);
			continue;
		}
		if (!rcm_wait_event(c, 30000, &ev) &&
		    ev.event == RCM_EVENT_CONNECT_RESPONSE &&
		    !simple(c, RCM_IOCTL_ESTABLISH, id)) {
			simple(c, RCM_IOCTL_DISCONNECT, id);
			rcm_wait_event(c, 30000, &ev);
		}
		rcm_destroy(c, id);
	}
}

TEST(kill_at_random_points)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned long rounds = rcm_env_ul("RCM_STRESS_KILLS", 40), r;
	unsigned int seed = rcm_env_ul("RCM_STRESS_SEED", time(NULL));
	long ids0, evs0;
	unsigned short port;
	pid_t srv, cli;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	printf("# seed %u (RCM_STRESS_SEED replays it)\n", seed);
	srandom(seed);
	ids0 = rcm_slab_objects("rcm_id");
	evs0 = rcm_slab_objects("rcm_uevent");
	/* Each server the rounds start again listens there. */
	port = rcm_free_port(ip, RCM_PS_TCP);
	ASSERT_NE(0, port)
		TH_LOG("no free port: %s", strerror(errno));
	srv = -1;
	for (r = 0; r < rounds; r++) {
		if (srv <= 0) {
			srv = fork();
			ASSERT_LE(0, srv)
				TH_LOG("fork");
			if (srv == 0)
				server(ip, port);
		}
		cli = fork();
		ASSERT_LE(0, cli)
			TH_LOG("fork");
		if (cli == 0)
			client(ip, port);
		/*
		 * Not waits: a kill at a random moment, up to 300 ms in,
		 * anywhere from route to disconnect (the test's subject).
		 */
		usleep(random() % 300000);
		if (random() % 3 == 0) {
			kill(srv, SIGKILL);
			waitpid(srv, NULL, 0);
			srv = -1;
		}
		usleep(random() % 100000);
		kill(cli, SIGKILL);
		waitpid(cli, NULL, 0);
	}
	if (srv > 0) {
		kill(srv, SIGKILL);
		waitpid(srv, NULL, 0);
	}
	printf("# %lu rounds of kill -9\n", rounds);
	slabs_back(_metadata, "kills", ids0, evs0);
}

/* rmmod is refused while a file is open; the guest unloads rcm at the end. */
TEST(rmmod_refused_while_a_file_is_open)
{
	unsigned int id;
	int fd;

	if (access("/sys/module/rcm", F_OK))
		SKIP(return, "rcm is not a module here");
	fd = rcm_open_dev();
	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_NE(0, rcm_sh("rmmod rcm"))
		TH_LOG("rmmod succeeded with a file open");
	ASSERT_EQ(0, rcm_destroy(fd, id))
		TH_LOG("the file no longer works: %s", strerror(errno));
	close(fd);
}

RCM_TEST_MAIN
