// SPDX-License-Identifier: GPL-2.0-only
/*
 * addr_change: RCM_EVENT_ADDR_CHANGE. A new MAC address on the Soft-RoCE
 * netdev ($RCM_NETDEV_RXE) reaches every id attached through it exactly
 * once - bound, resolved, routed, listening, and both ends of an
 * established connection - and no other id: idle and wildcard-bound
 * ids, an id on the soft-iWARP netdev (test kernel), and nobody at all
 * when a netdev without RDMA device (nordma0) changes, or the same MAC
 * is set again. Restoring the MAC reports once more. Ids created,
 * resolved, listened on and destroyed (or closed with their files) while
 * the MAC flips 20 times leave nothing behind.
 * Every case puts the MAC back and waits until the RoCE GID of the rxe
 * address is in the GID table again (ib_core rebuilds it on a MAC
 * change), so the tests after this one find the device as it was.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

#define MAX_IDS 16

/* How many ADDR_CHANGE each id of a file got; -1 on another event. */
struct tally {
	unsigned int id[MAX_IDS];
	int changes[MAX_IDS];
	int n;
	unsigned int other;	/* type of an unexpected event, + 1 */
};

/* Read @fd's events for @ms, counting ADDR_CHANGE per id into @t. */
static void drain(int fd, int ms, struct tally *t)
{
	struct rcm_event ev;
	int i;

	while (rcm_wait_event(fd, ms, &ev) == 0) {
		if (ev.event != RCM_EVENT_ADDR_CHANGE || ev.status) {
			t->other = ev.event + 1;
			continue;
		}
		for (i = 0; i < t->n && t->id[i] != ev.id; i++)
			;
		if (i == t->n && t->n < MAX_IDS) {
			t->id[t->n] = ev.id;
			t->changes[t->n++] = 0;
		}
		if (i < MAX_IDS)
			t->changes[i]++;
	}
}

static int changes_of(const struct tally *t, unsigned int id)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->id[i] == id)
			return t->changes[i];
	return 0;
}

static int set_mac(const char *dev, const char *mac)
{
	return rcm_sh("ip link set dev %s address %s", dev, mac);
}

/*
 * Wait up to 10 s until rxe0's GID table holds the RoCE GID of @ip
 * again (the MAC change deleted and re-added the netdev's GIDs).
 */
static int gid_back(const char *ip)
{
	unsigned char a[4];
	int i;

	if (inet_pton(AF_INET, ip, a) != 1)
		return -1;
	for (i = 0; i < 100; i++) {
		if (rcm_sh("grep -qs ffff:%02x%02x:%02x%02x "
			   "/sys/class/infiniband/rxe0/ports/1/gids/*",
			   a[0], a[1], a[2], a[3]) == 0)
			return 0;
		usleep(100000);
	}
	return -1;
}

/* Put the MAC back and wait for the GID; for the end of every case. */
static void restore(const char *dev, const char *mac, const char *ip)
{
	char now[18];

	if (rcm_netdev_mac(dev, now) || strcmp(now, mac))
		set_mac(dev, mac);
	gid_back(ip);
}

static int establish(int fd, unsigned int id)
{
	struct rcm_establish e = { .size = sizeof(e), .id = id };

	return ioctl(fd, RCM_IOCTL_ESTABLISH, &e);
}

static void attached_ids(struct __test_metadata *_metadata, const char *ip,
		          const char *dev, const char *mac)
{
	const char *siw = getenv("RCM_ADDR_SIW");
	unsigned int bound, resolved, routed, idle, any, on_siw = 0;
	unsigned int lid, cid, rid;
	struct tally ta, ts, tc;
	struct rcm_event ev;
	int a, s, c, round;
	char now[18];

	a = rcm_open_dev();
	s = rcm_open_dev();
	c = rcm_open_dev();
	bound = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 1);
	resolved = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 2);
	routed = rcm_create(a, RCM_PS_UDP, RCM_QPT_UD, 3);
	idle = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 4);
	any = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 5);
	ASSERT_TRUE(bound && resolved && routed && idle && any)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(a, bound, ip, 0))
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rcm_resolved(a, resolved, ip))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_routed(a, routed, ip, 20301))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(a, any, "0.0.0.0", 0))
		TH_LOG("bind any: %s", strerror(errno));
	if (siw) {
		on_siw = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 6);
		ASSERT_TRUE(on_siw && rcm_bind(a, on_siw, siw, 0) == 0)
			TH_LOG("bind to siw: %s", strerror(errno));
	}

	/* Both ends of an established connection, and the listener. */
	lid = rcm_listener(s, ip, 20302, 0x11, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	cid = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 0xc1);
	ASSERT_TRUE(cid && rcm_routed(c, cid, ip, 20302) == 0)
		TH_LOG("client route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_connect(c, cid, 0x111, NULL))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_EQ(0, rcm_accept(s, rid, 0x222, 0xacce, NULL))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev))
		TH_LOG("no response");
	ASSERT_EQ(0, establish(c, cid))
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("not established");

	/* A new MAC, then the original one back: one event each time. */
	for (round = 0; round < 2; round++) {
		memset(&ta, 0, sizeof(ta));
		memset(&ts, 0, sizeof(ts));
		memset(&tc, 0, sizeof(tc));
		if (round == 0) {
			ASSERT_EQ(0, set_mac(dev, "02:00:5e:c0:ff:ee"))
				TH_LOG("ip link set %s address failed", dev);
		} else {
			ASSERT_EQ(0, set_mac(dev, mac))
				TH_LOG("restoring the MAC failed");
		}
		drain(a, 1500, &ta);
		drain(s, 300, &ts);
		drain(c, 300, &tc);
		ASSERT_TRUE(!ta.other && !ts.other && !tc.other)
			TH_LOG("round %d: unexpected event %u/%u/%u", round,
			       ta.other - 1, ts.other - 1, tc.other - 1);
		ASSERT_TRUE(changes_of(&ta, bound) == 1 &&
			    changes_of(&ta, resolved) == 1 &&
			    changes_of(&ta, routed) == 1)
			TH_LOG("round %d: bound %d resolved %d routed %d, want 1 each",
			       round, changes_of(&ta, bound), changes_of(&ta, resolved),
			       changes_of(&ta, routed));
		ASSERT_TRUE(changes_of(&ts, lid) == 1 && changes_of(&ts, rid) == 1 &&
			    changes_of(&tc, cid) == 1)
			TH_LOG("round %d: listener %d passive %d active %d, want 1 each",
			       round, changes_of(&ts, lid), changes_of(&ts, rid),
			       changes_of(&tc, cid));
		ASSERT_TRUE(changes_of(&ta, idle) == 0 && changes_of(&ta, any) == 0 &&
			    (!on_siw || changes_of(&ta, on_siw) == 0))
			TH_LOG("round %d: idle %d wildcard %d siw %d, want none", round,
			       changes_of(&ta, idle), changes_of(&ta, any),
			       on_siw ? changes_of(&ta, on_siw) : 0);
		ASSERT_EQ(6, ta.n + ts.n + tc.n)
			TH_LOG("round %d: %d ids reported",
			       round, ta.n + ts.n + tc.n);
	}
	ASSERT_TRUE(rcm_netdev_mac(dev, now) == 0 && !strcmp(now, mac))
		TH_LOG("MAC not back");
	ASSERT_EQ(0, gid_back(ip))
		TH_LOG("the RoCE GID of %s did not come back", ip);
	/* The connection is still there to be closed as usual. */
	ASSERT_TRUE(establish(c, cid) == -1 && errno == EINVAL)
		TH_LOG("established twice");
	close(c);
	close(s);
	close(a);
}

static void other_netdev(struct __test_metadata *_metadata, const char *ip,
		          const char *dev, const char *mac)
{
	struct tally t = {};
	unsigned int id, lid;
	char dummy_mac[18];
	int fd;

	if (rcm_netdev_mac("nordma0", dummy_mac))
		SKIP(return, "no nordma0 netdev");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(id && rcm_resolved(fd, id, ip) == 0)
		TH_LOG("resolve: %s", strerror(errno));
	lid = rcm_listener(fd, ip, 20303, 2, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	ASSERT_EQ(0, set_mac("nordma0", "02:00:5e:00:00:99"))
		TH_LOG("ip link set nordma0 address failed");
	drain(fd, 1500, &t);
	set_mac("nordma0", dummy_mac);
	drain(fd, 500, &t);
	ASSERT_TRUE(!t.other && t.n == 0)
		TH_LOG("%d ids reported, event %u", t.n, t.other - 1);
	/* The same MAC again is no change: the ids keep theirs. */
	ASSERT_EQ(0, set_mac(dev, mac))
		TH_LOG("same MAC failed");
	drain(fd, 1000, &t);
	ASSERT_TRUE(!t.other && t.n == 0)
		TH_LOG("same MAC: %d ids reported", t.n);
	close(fd);
}

static void destroy_races(struct __test_metadata *_metadata, const char *ip,
		           const char *dev, const char *mac)
{
	const char *silent = getenv("RCM_ADDR_SILENT");
	struct rcm_event ev;
	unsigned int ids[4];
	int fd, i, st, loops = 0;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid)
		TH_LOG("fork: %s", strerror(errno));
	if (pid == 0) {
		for (i = 0; i < 20; i++)
			if (set_mac(dev, i % 2 ? mac : "02:00:5e:c0:ff:01"))
				_exit(1);
		_exit(set_mac(dev, mac) ? 1 : 0);
	}
	/*
	 * Ids of every kind come and go while the MAC changes; some files
	 * close with the ids and their events still there.
	 */
	while (waitpid(pid, &st, WNOHANG) == 0) {
		fd = rcm_open_dev();
		for (i = 0; i < 4; i++)
			ids[i] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i);
		rcm_bind(fd, ids[0], ip, 0);
		rcm_resolve(fd, ids[1], NULL, ip, 2000);
		rcm_listener(fd, ip, 0, 7, 0);
		if (silent)
			rcm_resolve(fd, ids[2], NULL, silent, 2000);
		usleep(loops % 5 * 1000);
		if (loops % 2)
			for (i = 0; i < 4; i++)
				rcm_destroy(fd, ids[i]);
		close(fd);
		loops++;
	}
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("changing the MAC failed");
	/* Nothing left behind: a new id sees no stale event. */
	fd = rcm_open_dev();
	ids[0] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(ids[0] && rcm_bind(fd, ids[0], ip, 0) == 0)
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(-1, rcm_wait_event(fd, 1000, &ev))
		TH_LOG("stale event %u", ev.event);
	printf("# %d loops of create/bind/resolve/listen/destroy\n", loops);
	close(fd);
	ASSERT_TRUE(set_mac(dev, mac) == 0 && gid_back(ip) == 0)
		TH_LOG("the RoCE GID of %s did not come back", ip);
}

/* The rxe netdev's MAC, and both put back after the case in any case. */
FIXTURE(mac) {
	const char *ip, *dev;
	char mac[18];
};

FIXTURE_SETUP(mac)
{
	self->ip = getenv("RCM_ADDR_RXE");
	self->dev = getenv("RCM_NETDEV_RXE");
	if (!self->ip || !self->dev)
		SKIP_SETUP("no Soft-RoCE device");
	ASSERT_EQ(0, rcm_netdev_mac(self->dev, self->mac))
		TH_LOG("no MAC for %s", self->dev);
}

FIXTURE_TEARDOWN(mac)
{
	restore(self->dev, self->mac, self->ip);
}

TEST_F(mac, attached_ids_get_one_each)
{
	attached_ids(_metadata, self->ip, self->dev, self->mac);
}

TEST_F(mac, other_netdev_reports_nothing)
{
	other_netdev(_metadata, self->ip, self->dev, self->mac);
}

TEST_F(mac, destroy_races_with_changes)
{
	destroy_races(_metadata, self->ip, self->dev, self->mac);
}

RCM_TEST_MAIN
