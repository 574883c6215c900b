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

#include "rcm_test.h"

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

static void attached_ids(const char *ip, const char *dev, const char *mac)
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
	CHECK(bound && resolved && routed && idle && any, "create: %s",
	      strerror(errno));
	CHECK(rcm_bind(a, bound, ip, 0) == 0, "bind: %s", strerror(errno));
	CHECK(rcm_resolved(a, resolved, ip) == 0, "resolve: %s",
	      strerror(errno));
	CHECK(rcm_routed(a, routed, ip, 20301) == 0, "route: %s",
	      strerror(errno));
	CHECK(rcm_bind(a, any, "0.0.0.0", 0) == 0, "bind any: %s",
	      strerror(errno));
	if (siw) {
		on_siw = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 6);
		CHECK(on_siw && rcm_bind(a, on_siw, siw, 0) == 0,
		      "bind to siw: %s", strerror(errno));
	}

	/* Both ends of an established connection, and the listener. */
	lid = rcm_listener(s, ip, 20302, 0x11, 0);
	CHECK(lid, "listen: %s", strerror(errno));
	cid = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 0xc1);
	CHECK(cid && rcm_routed(c, cid, ip, 20302) == 0, "client route: %s",
	      strerror(errno));
	CHECK(rcm_connect(c, cid, 0x111, NULL) == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	rid = ev.id;
	CHECK(rcm_accept(s, rid, 0x222, 0xacce, NULL) == 0, "accept: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev) == 0, "no response");
	CHECK(establish(c, cid) == 0, "establish: %s", strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev) == 0, "not established");

	/* A new MAC, then the original one back: one event each time. */
	for (round = 0; round < 2; round++) {
		memset(&ta, 0, sizeof(ta));
		memset(&ts, 0, sizeof(ts));
		memset(&tc, 0, sizeof(tc));
		if (round == 0)
			CHECK(set_mac(dev, "02:00:5e:c0:ff:ee") == 0,
			      "ip link set %s address failed", dev);
		else
			CHECK(set_mac(dev, mac) == 0, "restoring the MAC failed");
		drain(a, 1500, &ta);
		drain(s, 300, &ts);
		drain(c, 300, &tc);
		CHECK(!ta.other && !ts.other && !tc.other,
		      "round %d: unexpected event %u/%u/%u", round,
		      ta.other - 1, ts.other - 1, tc.other - 1);
		CHECK(changes_of(&ta, bound) == 1 &&
		      changes_of(&ta, resolved) == 1 &&
		      changes_of(&ta, routed) == 1,
		      "round %d: bound %d resolved %d routed %d, want 1 each",
		      round, changes_of(&ta, bound), changes_of(&ta, resolved),
		      changes_of(&ta, routed));
		CHECK(changes_of(&ts, lid) == 1 && changes_of(&ts, rid) == 1 &&
		      changes_of(&tc, cid) == 1,
		      "round %d: listener %d passive %d active %d, want 1 each",
		      round, changes_of(&ts, lid), changes_of(&ts, rid),
		      changes_of(&tc, cid));
		CHECK(changes_of(&ta, idle) == 0 && changes_of(&ta, any) == 0 &&
		      (!on_siw || changes_of(&ta, on_siw) == 0),
		      "round %d: idle %d wildcard %d siw %d, want none", round,
		      changes_of(&ta, idle), changes_of(&ta, any),
		      on_siw ? changes_of(&ta, on_siw) : 0);
		CHECK(ta.n + ts.n + tc.n == 6, "round %d: %d ids reported",
		      round, ta.n + ts.n + tc.n);
	}
	CHECK(rcm_netdev_mac(dev, now) == 0 && !strcmp(now, mac), "MAC not back");
	CHECK(gid_back(ip) == 0, "the RoCE GID of %s did not come back", ip);
	/* The connection is still there to be closed as usual. */
	CHECK(establish(c, cid) == -1 && errno == EINVAL,
	      "established twice");
	close(c);
	close(s);
	close(a);
}

static void other_netdev(const char *ip, const char *dev, const char *mac)
{
	struct tally t = {};
	unsigned int id, lid;
	char dummy_mac[18];
	int fd;

	if (rcm_netdev_mac("nordma0", dummy_mac))
		SKIP("no nordma0 netdev");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	CHECK(id && rcm_resolved(fd, id, ip) == 0, "resolve: %s",
	      strerror(errno));
	lid = rcm_listener(fd, ip, 20303, 2, 0);
	CHECK(lid, "listen: %s", strerror(errno));
	CHECK(set_mac("nordma0", "02:00:5e:00:00:99") == 0,
	      "ip link set nordma0 address failed");
	drain(fd, 1500, &t);
	set_mac("nordma0", dummy_mac);
	drain(fd, 500, &t);
	CHECK(!t.other && t.n == 0, "%d ids reported, event %u", t.n,
	      t.other - 1);
	/* The same MAC again is no change: the ids keep theirs. */
	CHECK(set_mac(dev, mac) == 0, "same MAC failed");
	drain(fd, 1000, &t);
	CHECK(!t.other && t.n == 0, "same MAC: %d ids reported", t.n);
	close(fd);
}

static void destroy_races(const char *ip, const char *dev, const char *mac)
{
	const char *silent = getenv("RCM_ADDR_SILENT");
	struct rcm_event ev;
	unsigned int ids[4];
	int fd, i, st, loops = 0;
	pid_t pid;

	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
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
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "changing the MAC failed");
	/* Nothing left behind: a new id sees no stale event. */
	fd = rcm_open_dev();
	ids[0] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	CHECK(ids[0] && rcm_bind(fd, ids[0], ip, 0) == 0, "bind: %s",
	      strerror(errno));
	CHECK(rcm_wait_event(fd, 1000, &ev) == -1, "stale event %u", ev.event);
	printf("# %d loops of create/bind/resolve/listen/destroy\n", loops);
	close(fd);
	CHECK(set_mac(dev, mac) == 0 && gid_back(ip) == 0,
	      "the RoCE GID of %s did not come back", ip);
}

/* Run @body with the rxe netdev's MAC, then put it back in any case. */
static void with_mac(void (*body)(const char *ip, const char *dev,
				  const char *mac))
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *dev = getenv("RCM_NETDEV_RXE");
	char mac[18];

	if (!ip || !dev)
		SKIP("no Soft-RoCE device");
	CHECK(rcm_netdev_mac(dev, mac) == 0, "no MAC for %s", dev);
	body(ip, dev, mac);
	restore(dev, mac, ip);
}

RCM_TEST(attached_ids_get_one_each)
{
	with_mac(attached_ids);
}

RCM_TEST(other_netdev_reports_nothing)
{
	with_mac(other_netdev);
}

RCM_TEST(destroy_races_with_changes)
{
	with_mac(destroy_races);
}

int main(void)
{
	return rcm_test_run();
}
