// SPDX-License-Identifier: GPL-2.0-only
/*
 * device_removal: deleting the Soft-RoCE device while ids use it (bound,
 * resolving, listening, an unanswered request, an established
 * connection with a connect in flight) never waits for userspace,
 * reports DEVICE_REMOVAL to exactly the ids that were attached (also
 * one with a resolution in flight), leaves those ids good for destroy
 * only, and the device can come back afterwards.
 *
 * Needs RCM_ADDR_RXE, RCM_NETDEV_RXE and RCM_ADDR_SILENT from the guest.
 * The device is re-created at the end, so the test can run anywhere in
 * the list.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

static unsigned int num_devices(int fd)
{
	struct rcm_query q = { .size = sizeof(q) };

	return ioctl(fd, RCM_IOCTL_QUERY, &q) ? 0 : q.out_num_devices;
}

/*
 * A removal that waited for userspace would never end while a case holds
 * its ids (the harness's timeout would stop it); the bound makes a slow
 * but finite wait visible too. Rxe's own teardown under TCG, with other
 * guests busy on the host, has taken 15 s.
 */
#define REMOVAL_BOUND_S 60

/*
 * Each case deletes rxe0; whatever it did, the device is back after it,
 * for the cases and programs that follow.
 */
FIXTURE(removal) {
};

FIXTURE_SETUP(removal)
{
}

FIXTURE_TEARDOWN(removal)
{
	rcm_restore_rxe();
}

/* Delete rxe0: the command must return within REMOVAL_BOUND_S. */
static void remove_rxe0(struct __test_metadata *_metadata)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_sh("rdma link delete rxe0"))
		TH_LOG("rdma link delete failed");
	ASSERT_GT(REMOVAL_BOUND_S * 1000, rcm_ms_since(&t0))
		TH_LOG("removal took %ld ms", rcm_ms_since(&t0));
}

/* Add rxe0 on @netdev again and wait for it to carry @ip's GID. */
static void readd_rxe0(struct __test_metadata *_metadata,
		       const char *netdev, const char *ip)
{
	ASSERT_EQ(0, rcm_sh("rdma link add rxe0 type rxe netdev %s", netdev))
		TH_LOG("rdma link add failed");
	ASSERT_EQ(0, rcm_wait_gid(ip))
		TH_LOG("no GID after re-adding rxe0");
}

TEST_F(removal, removal_reports_to_attached_ids_and_never_waits)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	const char *silent = getenv("RCM_ADDR_SILENT");
	unsigned int bound, resolved, resolving, loose, before;
	struct rcm_event ev;
	struct rcm_query_id q = { .size = sizeof(q) };
	struct rcm_destroy_id d = { .size = sizeof(d) };
	int n_removal = 0, fd;

	rcm_restore_rxe();

	if (!ip || !netdev || !silent)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	before = num_devices(fd);

	bound = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	resolved = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	resolving = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 3);
	loose = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 4);
	ASSERT_TRUE(bound && resolved && resolving && loose)
		TH_LOG("create");
	ASSERT_EQ(0, rcm_bind(fd, bound, ip, 0))
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rcm_resolve(fd, resolved, NULL, ip, 2000))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(fd, 10000, &ev) == 0 &&
		    ev.event == RCM_EVENT_ADDR_RESOLVED)
		TH_LOG("no ADDR_RESOLVED");
	/* Bound to the device, resolving towards a silent neighbour. */
	ASSERT_EQ(0, rcm_resolve(fd, resolving, ip, silent, 60000))
		TH_LOG("resolve towards %s: %s", silent, strerror(errno));
	ASSERT_EQ(0, rcm_bind(fd, loose, "0.0.0.0", 0))
		TH_LOG("wildcard bind");

	remove_rxe0(_metadata);

	while (rcm_wait_event(fd, 1000, &ev) == 0) {
		ASSERT_EQ(RCM_EVENT_DEVICE_REMOVAL, ev.event)
			TH_LOG("unexpected event %u (status %d) for ctx %llu", ev.event,
			       ev.status, (unsigned long long)ev.context);
		ASSERT_TRUE(ev.id == bound || ev.id == resolved ||
			    ev.id == resolving)
			TH_LOG("DEVICE_REMOVAL for id %u, which was not attached", ev.id);
		n_removal++;
	}
	ASSERT_EQ(3, n_removal)
		TH_LOG("%d DEVICE_REMOVAL events, want 3", n_removal);
	ASSERT_EQ(num_devices(fd), before - 1)
		TH_LOG("device count %u after removal", num_devices(fd));

	/* A removed id is good for destroy only. */
	ASSERT_ERRNO(rcm_resolve(fd, resolved, NULL, ip, 100), ENXIO);
	q.id = bound;
	ASSERT_TRUE(ioctl(fd, RCM_IOCTL_QUERY_ID, &q) == 0 &&
		    q.out_port_num == 0)
		TH_LOG("query of a removed id");
	d.id = bound;
	ASSERT_TRUE(ioctl(fd, RCM_IOCTL_DESTROY_ID, &d) == 0 &&
		    d.out_events_reported == 1)
		TH_LOG("destroy: reported %u", d.out_events_reported);
	close(fd);

	/* The device comes back and works. */
	readd_rxe0(_metadata, netdev, ip);
	fd = rcm_open_dev();
	ASSERT_EQ(num_devices(fd), before)
		TH_LOG("device count %u after re-adding", num_devices(fd));
	bound = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 5);
	ASSERT_EQ(0, rcm_bind(fd, bound, ip, 0))
		TH_LOG("bind after re-add: %s", strerror(errno));
	close(fd);
}

/* Reap @pid within @secs seconds, killing it if it is still there. */
static void reap(pid_t pid, int secs)
{
	int st;

	if (RCM_WAIT_FOR(waitpid(pid, &st, WNOHANG) == pid, secs * 1000))
		return;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

TEST_F(removal, request_ids_let_the_device_go)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	unsigned short port = 0;
	struct rcm_event ev;
	unsigned int lid, rid;
	int fd, removals = 0;
	pid_t pid;

	rcm_restore_rxe();

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	if (!rcm_have_intree_cm())
		SKIP(return, "in-tree rdma_ucm not loaded");
	fd = rcm_open_dev();
	lid = rcm_listener(fd, ip, &port, 1, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	pid = rcm_intree_client(ip, port, "r", "reject:-1:-", false);
	ASSERT_LE(0, pid)
		TH_LOG("fork");
	ASSERT_TRUE(rcm_wait_event(fd, 30000, &ev) == 0 &&
		    ev.event == RCM_EVENT_CONNECT_REQUEST)
		TH_LOG("no request");
	rid = ev.id;

	/* The request's ib_cm id must not hold the device. */
	remove_rxe0(_metadata);
	while (rcm_wait_event(fd, 1000, &ev) == 0) {
		printf("# event %u status %d on id %u (listener %u, request %u)\n",
		       ev.event, ev.status, ev.id, lid, rid);
		if (ev.event == RCM_EVENT_DEVICE_REMOVAL &&
		    (ev.id == lid || ev.id == rid))
			removals++;
	}
	ASSERT_EQ(2, removals)
		TH_LOG("%d DEVICE_REMOVAL events, want 2 (listener and request)",
		       removals);
	ASSERT_TRUE(rcm_destroy(fd, rid) == 0 && rcm_destroy(fd, lid) == 0)
		TH_LOG("destroy: %s", strerror(errno));
	close(fd);
	reap(pid, 20);

	readd_rxe0(_metadata, netdev, ip);
}

TEST_F(removal, connections_let_the_device_go)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	unsigned int lid, cid, rid, pending, seen;
	unsigned short port = 0;
	struct rcm_event ev;
	int fd;

	rcm_restore_rxe();

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	/* An established connection (both ends), and a connect in flight. */
	lid = rcm_listener(fd, ip, &port, 1, 0);
	cid = lid ? rcm_routed_id(fd, ip, port, 2) : 0;
	pending = cid ? rcm_routed_id(fd, ip, port, 3) : 0;
	ASSERT_TRUE(lid && cid && pending)
		TH_LOG("set-up: %s", strerror(errno));
	ASSERT_EQ(0, rcm_connect(fd, cid, 0x10, NULL))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(fd, 30000, &ev) == 0 &&
		    ev.event == RCM_EVENT_CONNECT_REQUEST)
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_EQ(0, rcm_accept(fd, rid, 0x20, 4, NULL))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(fd, 30000, &ev) == 0 &&
		    ev.event == RCM_EVENT_CONNECT_RESPONSE)
		TH_LOG("no response");
	{
		struct rcm_establish e = { .size = sizeof(e), .id = cid };

		ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_ESTABLISH, &e))
			TH_LOG("establish: %s", strerror(errno));
	}
	ASSERT_TRUE(rcm_wait_event(fd, 30000, &ev) == 0 &&
		    ev.event == RCM_EVENT_ESTABLISHED)
		TH_LOG("not established");
	/* Its request stays unanswered: the listener's second request. */
	ASSERT_EQ(0, rcm_connect(fd, pending, 0x30, NULL))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(fd, 30000, &ev) == 0 &&
		    ev.event == RCM_EVENT_CONNECT_REQUEST)
		TH_LOG("no second request");

	remove_rxe0(_metadata);
	seen = rcm_removals(fd, UINT_MAX, 1000);
	/*
	 * Listener, both ends of the connection, the pending connect and
	 * the second request.
	 */
	ASSERT_EQ(5, seen)
		TH_LOG("%u DEVICE_REMOVAL events, want 5", seen);
	ASSERT_ERRNO(rcm_connect(fd, pending, 0x30, NULL), ENXIO);
	close(fd);

	readd_rxe0(_metadata, netdev, ip);
}

RCM_TEST_MAIN
