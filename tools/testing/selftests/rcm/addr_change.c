// SPDX-License-Identifier: GPL-2.0-only
/*
 * addr_change: RCM_EVENT_ADDR_CHANGE, reported as the in-tree rdma_cm
 * reports it (cma_netdev_callback(), the same on Linux 6.1 and 6.12):
 * when a bond fails over to a slave with another MAC
 * (NETDEV_BONDING_FAILOVER with fail_over_mac=active), and on nothing
 * else.
 *
 * Each case builds its own bond: rcmbond0, active-backup over two veths
 * rcmbs0 and rcmbs1 (their peers up, so each has a link), 198.18.40.1/24,
 * a Soft-RoCE device rxebond on it; the case's end removes them all.
 *
 * - Every id attached through the bond gets one event per failover to a
 *   MAC other than the one it was attached with - bound, resolved,
 *   routed, listening, both ends of an established connection - and no
 *   other id (idle, wildcard bound). A failover back to the MAC the ids
 *   were attached with reports nothing (in-tree never updates the MAC
 *   it recorded), a third one to the other slave again one each.
 * - Nothing else reports: a MAC an administrator sets on the Soft-RoCE
 *   netdev (rcm before this reported it, in-tree does not), and a
 *   failover of the bond to ids attached elsewhere.
 * - Ids created, resolved, listened on and destroyed (or closed with
 *   their files) while the bond fails over 20 times leave nothing behind.
 * - A listener on rxe0 whose file cannot take another id
 *   (max_ids_per_file 1) refuses requests while the bond fails over as
 *   fast as it can: each refused request's id is attached and dropped
 *   under the listener's lock, while a failover's work, which collects
 *   the attached ids of every device of the namespace, may hold it and
 *   wait for that lock. Every request is answered and the listener
 *   still closes.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

#define MAX_IDS 16
#define BOND RCM_BOND
#define BOND_IP RCM_BOND_IP
#define BOND_RXE RCM_BOND_RXE
#define IP RCM_IP

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


FIXTURE(bond) {
	const char *rxe_ip, *rxe_dev;
	char rxe_mac[18];
};

FIXTURE_SETUP(bond)
{
	self->rxe_ip = getenv("RCM_ADDR_RXE");
	self->rxe_dev = getenv("RCM_NETDEV_RXE");
	if (!self->rxe_ip || !self->rxe_dev)
		SKIP_SETUP("no Soft-RoCE device");
	ASSERT_EQ(0, rcm_netdev_mac(self->rxe_dev, self->rxe_mac))
		TH_LOG("no MAC for %s", self->rxe_dev);
	if (access("/sys/class/net/bonding_masters", F_OK) &&
	    rcm_sh("modprobe -q bonding"))
		SKIP_SETUP("no bonding in this kernel");
	ASSERT_EQ(0, rcm_bond_up())
		TH_LOG("cannot build the bond and its Soft-RoCE device");
}

FIXTURE_TEARDOWN(bond)
{
	char now[18];

	rcm_bond_down();
	if (self->rxe_dev && (rcm_netdev_mac(self->rxe_dev, now) ||
			      strcmp(now, self->rxe_mac))) {
		rcm_sh(IP " link set dev %s address %s", self->rxe_dev,
		       self->rxe_mac);
		rcm_wait_gid_on("rxe0", self->rxe_ip);
	}
}

TEST_F(bond, failover_reaches_attached_ids_once)
{
	unsigned int bound, resolved, routed, idle, any, lid, cid, rid;
	static const int want[] = { 1, 0, 1 };	/* slave 1, 0, 1 */
	struct tally ta, ts, tc;
	unsigned short port = 0;
	struct rcm_event ev;
	int a, s, c, round;

	a = rcm_open_dev();
	s = rcm_open_dev();
	c = rcm_open_dev();
	/* Both ends of an established connection, and the listener. */
	lid = rcm_listener(s, BOND_IP, &port, 0x11, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	cid = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 0xc1);
	ASSERT_TRUE(cid && rcm_routed(c, cid, BOND_IP, port) == 0)
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
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, cid))
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("not established");
	/* Ids attached in every other way, and two that are not. */
	bound = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 1);
	resolved = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 2);
	routed = rcm_create(a, RCM_PS_UDP, RCM_QPT_UD, 3);
	idle = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 4);
	any = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 5);
	ASSERT_TRUE(bound && resolved && routed && idle && any)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(a, bound, BOND_IP, 0))
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rcm_resolved(a, resolved, BOND_IP))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_routed(a, routed, BOND_IP, port))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(a, any, "0.0.0.0", 0))
		TH_LOG("bind any: %s", strerror(errno));

	for (round = 0; round < 3; round++) {
		memset(&ta, 0, sizeof(ta));
		memset(&ts, 0, sizeof(ts));
		memset(&tc, 0, sizeof(tc));
		ASSERT_EQ(0, rcm_bond_failover(round % 2 ? 0 : 1))
			TH_LOG("round %d: failover: %s", round, strerror(errno));
		drain(a, 1500, &ta);
		drain(s, 300, &ts);
		drain(c, 300, &tc);
		ASSERT_TRUE(!ta.other && !ts.other && !tc.other)
			TH_LOG("round %d: unexpected event %u/%u/%u", round,
			       ta.other - 1, ts.other - 1, tc.other - 1);
		ASSERT_TRUE(changes_of(&ta, bound) == want[round] &&
			    changes_of(&ta, resolved) == want[round] &&
			    changes_of(&ta, routed) == want[round])
			TH_LOG("round %d: bound %d resolved %d routed %d, want %d each",
			       round, changes_of(&ta, bound),
			       changes_of(&ta, resolved),
			       changes_of(&ta, routed), want[round]);
		ASSERT_TRUE(changes_of(&ts, lid) == want[round] &&
			    changes_of(&ts, rid) == want[round] &&
			    changes_of(&tc, cid) == want[round])
			TH_LOG("round %d: listener %d passive %d active %d, want %d each",
			       round, changes_of(&ts, lid),
			       changes_of(&ts, rid), changes_of(&tc, cid),
			       want[round]);
		ASSERT_EQ(6 * want[round], ta.n + ts.n + tc.n)
			TH_LOG("round %d: %d ids reported (idle %d, wildcard %d)",
			       round, ta.n + ts.n + tc.n,
			       changes_of(&ta, idle), changes_of(&ta, any));
		ASSERT_EQ(0, rcm_wait_gid_on(BOND_RXE, BOND_IP))
			TH_LOG("round %d: the bond's RoCE GID did not come back",
			       round);
	}
	/* The connection is still there to be closed as usual. */
	ASSERT_TRUE(rcm_simple(c, RCM_IOCTL_ESTABLISH, cid) == -1 && errno == EINVAL)
		TH_LOG("established twice");
	close(c);
	close(s);
	close(a);
}

TEST_F(bond, nothing_else_reports)
{
	unsigned int id, lid, bid;
	struct tally t = {};
	int fd;

	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(id && rcm_resolved(fd, id, self->rxe_ip) == 0)
		TH_LOG("resolve: %s", strerror(errno));
	lid = rcm_listener(fd, self->rxe_ip, NULL, 2, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	/* A failover of the bond, with no id attached through it. */
	ASSERT_EQ(0, rcm_bond_failover(1))
		TH_LOG("failover: %s", strerror(errno));
	drain(fd, 1500, &t);
	ASSERT_TRUE(!t.other && t.n == 0)
		TH_LOG("failover: %d ids reported, event %u", t.n, t.other - 1);
	/* A MAC the administrator sets, on the netdev of the ids. */
	ASSERT_EQ(0, rcm_sh(IP " link set dev %s address 02:00:5e:c0:ff:ee",
			    self->rxe_dev))
		TH_LOG("ip link set %s address failed", self->rxe_dev);
	drain(fd, 1500, &t);
	ASSERT_TRUE(!t.other && t.n == 0)
		TH_LOG("new MAC: %d ids reported, event %u", t.n, t.other - 1);
	/* ... and on the bond, with an id attached through it. */
	bid = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 3);
	ASSERT_TRUE(bid && rcm_bind(fd, bid, BOND_IP, 0) == 0)
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rcm_sh(IP " link set dev " BOND " address 02:00:5e:c0:ff:ef"))
		TH_LOG("ip link set " BOND " address failed");
	drain(fd, 1500, &t);
	ASSERT_TRUE(!t.other && t.n == 0)
		TH_LOG("new bond MAC: %d ids reported, event %u", t.n,
		       t.other - 1);
	close(fd);
}

TEST_F(bond, destroy_races_with_failovers)
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
		for (i = 0; i < 20; i++) {
			if (rcm_bond_failover(i % 2 ? 0 : 1))
				_exit(1);
			/* Pacing the load, not a wait: 20 failovers in 0.4 s. */
			usleep(20000);
		}
		_exit(rcm_bond_failover(0) ? 1 : 0);
	}
	/*
	 * Ids of every kind come and go while the bond fails over; some
	 * files close with the ids and their events still there.
	 */
	while (waitpid(pid, &st, WNOHANG) == 0) {
		fd = rcm_open_dev();
		for (i = 0; i < 4; i++)
			ids[i] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i);
		rcm_bind(fd, ids[0], BOND_IP, 0);
		rcm_resolve(fd, ids[1], NULL, BOND_IP, 2000);
		rcm_listener(fd, BOND_IP, NULL, 7, 0);
		if (silent)
			rcm_resolve(fd, ids[2], NULL, silent, 2000);
		/* Not a wait: 0-4 ms more for a failover to land in. */
		usleep(loops % 5 * 1000);
		if (loops % 2)
			for (i = 0; i < 4; i++)
				rcm_destroy(fd, ids[i]);
		close(fd);
		loops++;
	}
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("failing over failed");
	/* Nothing left behind: a new id sees no stale event. */
	fd = rcm_open_dev();
	ids[0] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(ids[0] && rcm_bind(fd, ids[0], BOND_IP, 0) == 0)
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(-1, rcm_wait_event(fd, 1000, &ev))
		TH_LOG("stale event %u", ev.event);
	printf("# %d loops of create/bind/resolve/listen/destroy\n", loops);
	close(fd);
}

#define IDS_PARAM "/sys/module/rcm/parameters/max_ids_per_file"

/* The answer to @c's connect, past the failovers' ADDR_CHANGE: 0, or -1. */
static int answer(int c, struct rcm_event *ev)
{
	do {
		if (rcm_wait_event(c, 30000, ev))
			return -1;
	} while (ev->event == RCM_EVENT_ADDR_CHANGE);
	return 0;
}

TEST_F(bond, refused_requests_race_with_failovers)
{
	int s, c, st, refused = 0, unsent = 0, other = 0, stuck = 0;
	long old = rcm_read_long(IDS_PARAM);
	unsigned int lid, cid;
	struct timespec t0;
	unsigned short port = 0;
	struct rcm_event ev;
	pid_t pid;

	ASSERT_LT(0, old)
		TH_LOG("no max_ids_per_file parameter");
	/*
	 * The requests go to rxe0, whose netdev stays as it is: a failover's
	 * work collects the attached ids of every device of the namespace.
	 */
	s = rcm_open_dev();
	lid = rcm_listener(s, self->rxe_ip, &port, 0x5, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	/* Failovers back to back until killed. */
	pid = fork();
	if (pid == 0) {
		unsigned int i;

		for (i = 0;; i++)
			if (rcm_bond_failover(i % 2))
				_exit(1);
	}
	ASSERT_LE(0, pid)
		TH_LOG("fork: %s", strerror(errno));
	/* The listener's file is full: every request is refused. */
	if (rcm_write_long(IDS_PARAM, 1)) {
		kill(pid, SIGKILL);
		ASSERT_TRUE(0)
			TH_LOG("cannot set max_ids_per_file");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* 10 s: on 6.1 the old abort hung within the first seconds. */
	while (rcm_ms_since(&t0) < 10000 && !stuck) {
		c = rcm_open_dev();
		cid = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 0xc);
		if (!cid || rcm_routed(c, cid, self->rxe_ip, port) ||
		    rcm_connect(c, cid, 0x123, NULL))
			unsent++;
		else if (answer(c, &ev))
			stuck = 1;
		else if (ev.event == RCM_EVENT_REJECTED)
			refused++;
		else
			other++;
		close(c);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	rcm_write_long(IDS_PARAM, old);
	printf("# %d requests refused, %d other answers, %d not sent\n",
	       refused, other, unsent);
	ASSERT_FALSE(stuck)
		TH_LOG("request %d: no answer in 30 s", refused + other + 1);
	ASSERT_FALSE(WIFEXITED(st))
		TH_LOG("failing over failed");
	ASSERT_LT(0, refused)
		TH_LOG("no request reached the listener");
	/* The listener's lock is free: its destroy returns. */
	ASSERT_EQ(0, rcm_destroy(s, lid))
		TH_LOG("destroy: %s", strerror(errno));
	close(s);
}

RCM_TEST_MAIN
