// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile_peer: rcm against a CM peer that sends what a well-behaved CM
 * never does (issue 12, part 2, item 3). The peer is the test-only
 * module rcm_hostile.ko (tools/testing/hostile/), which drives ib_cm
 * directly on the rxe device and loops its messages back to rcm's
 * listens there; this program loads it, drives it through
 * <debugfs>/rcm_hostile/ctl and checks what rcm does:
 *
 * - malformed CMA headers and spoofed addresses are refused with a REJ
 *   and make no request id;
 * - a listener that never reads holds at most its backlog of request
 *   ids (counted as events and as rcm_id / rcm_uevent slab objects)
 *   under a REQ flood, a connect-and-abandon loop and a SIDR flood,
 *   while another listener still accepts a legitimate connection;
 * - REJ and DREQ at each state of a connection end it as documented.
 *
 * The kernel log is scanned by the guest harness after the program.
 * Every case skips where the module cannot be loaded (RCM_HOSTILE_KO,
 * default /lib/rcm/rcm_hostile.ko) or there is no rxe device.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

#define CTL "/sys/kernel/debug/rcm_hostile/ctl"
/* IB CM reject reason "consumer defined": what ib_cm sends for rcm. */
#define REJ_CONSUMER 28
/* What ib_cm sends for an active side destroyed before an answer. */
#define REJ_TIMEOUT 4
/* SIDR REP status "rejected". */
#define SIDR_REJECT 2

static int loaded;	/* 1: the module is in, -1: it cannot be */

static void unload(void)
{
	rcm_sh("rmmod rcm_hostile");
}

/* Load rcm_hostile.ko once: 0, or -1 (the caller skips). */
static int load(void)
{
	const char *ko = getenv("RCM_HOSTILE_KO") ?: "/lib/rcm/rcm_hostile.ko";
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *other = getenv("RCM_ADDR_NORDMA");

	if (loaded)
		return loaded > 0 ? 0 : -1;
	loaded = -1;
	if (!ip || !other || access(ko, R_OK))
		return -1;
	rcm_sh("rmmod rcm_hostile");
	if (rcm_sh("insmod %s ibdev=rxe0 addr=%s other=%s", ko, ip, other))
		return -1;
	atexit(unload);
	loaded = 1;
	return 0;
}

/* One command to the peer: 0, or -1 with errno. */
#define hp(...) rcm_ctl(CTL, __VA_ARGS__)

/* A count the peer reports ("sent", "rej_reason_28", ...); -1 on error. */
static long hp_count(const char *name)
{
	char line[64], key[48];
	long v, found = 0;
	FILE *f = fopen(CTL, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%47s %ld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

/* Until the peer's counts a + b reach @want, at most @ms: their sum. */
static long hp_sum_reaches(const char *a, const char *b, long want, int ms)
{
	long sum = 0;

	RCM_WAIT_FOR((sum = hp_count(a) + hp_count(b)) >= want, ms);
	return sum;
}

/* A cache's objects per slab; 0 when unknown. */
static long slab_per_slab(const char *name)
{
	char path[128];
	long n;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/objs_per_slab", name);
	n = rcm_read_long(path);
	return n < 0 ? 0 : n;
}

struct slab_mark {
	long id, ev;
};

static void slab_mark(struct slab_mark *m)
{
	m->id = rcm_slab_objects("rcm_id");
	m->ev = rcm_slab_objects("rcm_uevent");
}

/* slab_mark() of a case's start: the counts must be there to compare. */
static void slab_base(struct __test_metadata *_metadata, struct slab_mark *m)
{
	slab_mark(m);
	ASSERT_TRUE(m->id >= 0 && m->ev >= 0)
		TH_LOG("no slab statistics of rcm_id and rcm_uevent");
}

/* rcm's caches hold as many ids and events as at @base, no more. */
static void slab_unchanged(struct __test_metadata *_metadata,
			   const struct slab_mark *base)
{
	struct slab_mark now;

	slab_mark(&now);
	ASSERT_TRUE(now.id == base->id && now.ev == base->ev)
		TH_LOG("rcm_id %ld -> %ld, rcm_uevent %ld -> %ld objects",
		       base->id, now.id, base->ev, now.ev);
}

/*
 * Raise @peak to what the caches hold now beyond @base. Taken while
 * requests arrive, a sample can count the free objects of a slab that
 * a CPU took between the shrink and the read: see slab_slack().
 */
static void slab_peak(const struct slab_mark *base, struct slab_mark *peak)
{
	struct slab_mark now;

	slab_mark(&now);
	if (now.id - base->id > peak->id)
		peak->id = now.id - base->id;
	if (now.ev - base->ev > peak->ev)
		peak->ev = now.ev - base->ev;
}

/* What a sample taken under load may over-count: a slab per CPU. */
static void slab_slack(struct slab_mark *slack)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	slack->id = slab_per_slab("rcm_id") * cpus;
	slack->ev = slab_per_slab("rcm_uevent") * cpus;
}

/*
 * Are rcm's caches within @max_id ids and @max_ev events beyond @base,
 * exactly now (settled: nothing arrives any more) and in the samples
 * of @peak taken under load, give or take a slab per CPU there? Prints
 * the figures as a TAP diagnostic.
 */
static int slab_bounded(const char *what, const struct slab_mark *base,
			const struct slab_mark *peak, long max_id, long max_ev)
{
	struct slab_mark now, slack;

	slab_mark(&now);
	slab_slack(&slack);
	printf("# %s: rcm_id +%ld settled, +%ld sampled, bound %ld; "
	       "rcm_uevent +%ld settled, +%ld sampled, bound %ld\n", what,
	       now.id - base->id, peak->id, max_id, now.ev - base->ev,
	       peak->ev, max_ev);
	if (now.id - base->id > max_id || now.ev - base->ev > max_ev ||
	    peak->id > max_id + slack.id || peak->ev > max_ev + slack.ev) {
		printf("# %s: over the bound (sampling slack %ld, %ld)\n",
		       what, slack.id, slack.ev);
		return -1;
	}
	return 0;
}

static int do_id(int fd, unsigned long cmd, unsigned int id)
{
	struct rcm_disconnect d = { .size = sizeof(d), .id = id };

	return ioctl(fd, cmd, &d);
}

/* An RC id routed to @ip:@port; its handle, or 0. */
static unsigned int routed(int fd, const char *ip, unsigned short port)
{
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 0xc0);

	if (!id || rcm_routed(fd, id, ip, port))
		return 0;
	return id;
}

#define PREAMBLE(ip)							\
	do {								\
		if (!(ip))						\
			SKIP(return, "no Soft-RoCE device");		\
		if (load())						\
			SKIP(return,					\
			     "rcm_hostile.ko cannot be loaded here");	\
		ASSERT_EQ(0, hp("reset"))				\
			TH_LOG("reset: %s", strerror(errno));		\
	} while (0)

/*
 * Send @n REQs of header @kind to tcp:@port from slot @first; each must
 * come back as a REJ 28 (rcm's handler failed) with no request id made.
 */
static int refused(int s, const char *kind, unsigned int first, int n,
		   unsigned short port, const char *sid_ps)
{
	long rej, other;

	if (hp("req %u %d %s %s:%u", first, n, kind, sid_ps, port) ||
	    hp("wait %u %d rej 30000", first, n)) {
		printf("# %s: %s\n", kind, strerror(errno));
		return -1;
	}
	rej = hp_count("rej_reason_28");
	other = hp_count("rej");
	if (rej != n || other != n || hp_count("rep") || hp_count("mra")) {
		printf("# %s: %d sent, %ld REJ 28 of %ld REJ, %ld REP, %ld MRA\n",
		       kind, n, rej, other, hp_count("rep"), hp_count("mra"));
		return -1;
	}
	if (rcm_readable(s, 0)) {
		printf("# %s: the listener got an event\n", kind);
		return -1;
	}
	printf("# %-13s %3d REQs, %3ld REJ %d\n", kind, n, rej, REJ_CONSUMER);
	return hp("reset");
}

TEST(malformed_headers_are_refused)
{
	static const struct { const char *kind; int n; } cases[] = {
		{ "version", 16 },	/* cma_version 1..16 */
		{ "ipver", 28 },	/* every other nibble, twice */
		{ "short", 35 },	/* 0..34 bytes */
		{ "random", 32 },
		{ "random_hdr", 32 },	/* version 0, IPv4/6, random rest */
		{ "uc", 4 },		/* a UC REQ on an RC listener */
	};
	const char *ip = getenv("RCM_ADDR_RXE");
	struct slab_mark base;
	unsigned short port = 0;
	unsigned int i, lid;
	int s;

	PREAMBLE(ip);
	s = rcm_open_dev();
	lid = rcm_listener(s, "0.0.0.0", &port, 0x70, 16);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	slab_base(_metadata, &base);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, refused(s, cases[i].kind, 0, cases[i].n, port,
				     "tcp"))
			TH_LOG("%s headers were not all refused", cases[i].kind);
	}
	slab_unchanged(_metadata, &base);
	/* The instrument reaches the listener: a valid header gets in. */
	ASSERT_EQ(0, hp("req 0 1 valid tcp:%hu", port))
		TH_LOG("valid: %s", strerror(errno));
	ASSERT_TRUE(rcm_readable(s, 30000) &&
		    rcm_drain(s, RCM_EVENT_CONNECT_REQUEST) == 1)
		TH_LOG("a valid REQ made no CONNECT_REQUEST");
	close(s);
	ASSERT_TRUE(hp("wait 0 1 rej 30000") == 0 &&
		    hp_count("rej_reason_28") == 1)
		TH_LOG("closing the listener did not reject the request");
}

TEST(spoofed_addresses_are_refused)
{
	static const char *const kinds[] = {
		"src_loopback", "src_zero", "src_mcast", "src_bcast",
		"src_offnet", "src_othernet", "dst_loopback", "dst_bcast", "dst_other", "src6_loopback",
		"src6_mcast", "dst6_zero",
	};
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned int i, lid, spec;
	unsigned short port = 0, sport = 0;
	struct slab_mark base;
	struct rcm_event ev;
	char want[64];
	int s, t;

	PREAMBLE(ip);
	s = rcm_open_dev();
	t = rcm_open_dev();
	/* Wildcard: only the netdev check stands between them and it. */
	lid = rcm_listener(s, "0.0.0.0", &port, 0x71, 16);
	spec = rcm_listener(t, ip, &sport, 0x72, 16);
	ASSERT_TRUE(lid && spec)
		TH_LOG("listen: %s", strerror(errno));
	slab_base(_metadata, &base);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		ASSERT_EQ(0, refused(s, kinds[i], 0, 4, port, "tcp"))
			TH_LOG("%s was not refused by the wildcard listener", kinds[i]);
		ASSERT_EQ(0, refused(t, kinds[i], 0, 4, sport, "tcp"))
			TH_LOG("%s was not refused by the %s listener", kinds[i], ip);
	}
	slab_unchanged(_metadata, &base);
	/* The control: the peer's real address is taken, its data intact. */
	ASSERT_EQ(0, hp("req 7 1 valid tcp:%hu", port))
		TH_LOG("valid: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("a valid REQ made no CONNECT_REQUEST");
	snprintf(want, sizeof(want), "hostile %u", 7);
	ASSERT_TRUE(ev.listen_id == lid &&
		    !strcmp((char *)ev.private_data, want))
		TH_LOG("request on %u (want %u) with data '%.16s'", ev.listen_id, lid,
		       ev.private_data);
	close(s);
	close(t);
}

/*
 * A REQ flood on a listener of backlog 8 that never reads: rcm keeps 8
 * requests (ib_cm MRAs their retries) and drops the rest without a REJ,
 * so their senders time out; its memory stays at the backlog; another
 * listener meanwhile accepts a legitimate connection.
 */
TEST(req_flood_holds_at_most_backlog)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const unsigned int backlog = 8, flood = 200;
	struct slab_mark base, peak = { 0, 0 };
	unsigned short port = 0, oport = 0;
	unsigned int lid, other, cid;
	struct rcm_event ev;
	long done;
	int s, c, n;

	PREAMBLE(ip);
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x73, backlog);
	other = rcm_listener(c, ip, &oport, 0x74, 0);
	cid = other ? routed(c, ip, oport) : 0;
	ASSERT_TRUE(lid && other && cid)
		TH_LOG("set-up: %s", strerror(errno));
	slab_base(_metadata, &base);
	ASSERT_EQ(0, hp("req 0 %u valid tcp:%hu", flood, port))
		TH_LOG("flood: %s", strerror(errno));
	slab_peak(&base, &peak);
	/* A legitimate client of the other listener, during the flood. */
	ASSERT_EQ(0, rcm_connect(c, cid, 0x4242, "legit"))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("the other listener got no request");
	ASSERT_EQ(0, rcm_accept(c, ev.id, 0x4343, 0x75, NULL))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_TRUE(rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev) == 0 &&
		    ev.id == cid)
		TH_LOG("the legitimate client was not accepted");
	ASSERT_EQ(0, do_id(c, RCM_IOCTL_ESTABLISH, cid))
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("the legitimate connection was not established");
	slab_peak(&base, &peak);
	/* Every flood REQ ends held (MRA) or dropped (timed out). */
	done = hp_sum_reaches("mra", "req_error", flood, 60000);
	printf("# flood: %ld sent, %ld held (MRA), %ld timed out, %ld REJ\n",
	       hp_count("sent"), hp_count("mra"), hp_count("req_error"),
	       hp_count("rej"));
	ASSERT_TRUE(done == flood && hp_count("rej") == 0)
		TH_LOG("%ld of %u REQs held or timed out, %ld rejected", done, flood,
		       hp_count("rej"));
	ASSERT_TRUE(hp_count("mra") <= backlog)
		TH_LOG("%ld REQs held", hp_count("mra"));
	/*
	 * Each request id holds its CONNECT_REQUEST and its removal event;
	 * the legitimate connection's request id is the one more.
	 */
	ASSERT_EQ(0, slab_bounded("flood", &base, &peak, backlog + 1,
				  2 * backlog + 1))
		TH_LOG("memory beyond the backlog");
	/*
	 * Counted unread: each read gives a slot back, which a REQ still
	 * on its way (a retry rxe has not delivered yet, on a loaded
	 * machine) may take. The listener's file has nothing else.
	 */
	n = rcm_events_queued(s);
	ASSERT_EQ(n, (int)backlog)
		TH_LOG("%d requests queued, backlog %u", n, backlog);
	rcm_drain(s, RCM_EVENT_CONNECT_REQUEST);
	close(s);
	close(c);
}

/*
 * Connect-and-abandon loops (a REQ, then at once its destroy - a REJ
 * from ib_cm - or an explicit REJ): request ids keep their slot until
 * read, so a listener that never reads holds at most its backlog.
 */
TEST(abandon_loops_hold_at_most_backlog)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const unsigned int backlog = 8, loops = 100;
	struct slab_mark base, peak = { 0, 0 }, now;
	long req0 = rcm_cm_count("rx_msgs", "req");
	long rej0 = rcm_cm_count("rx_msgs", "rej");
	unsigned short port = 0;
	unsigned int lid;
	int s, n;

	PREAMBLE(ip);
	s = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x76, backlog);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	slab_base(_metadata, &base);
	ASSERT_EQ(0, hp("abandon 0 %u valid tcp:%hu destroy", loops, port))
		TH_LOG("abandon (destroy): %s", strerror(errno));
	slab_peak(&base, &peak);
	ASSERT_EQ(0, hp("abandon 0 %u valid tcp:%hu rej", loops, port))
		TH_LOG("abandon (REJ): %s", strerror(errno));
	/* rcm's ib_cm works through the REQs and REJs: all arrived. */
	ASSERT_TRUE(RCM_WAIT_FOR((slab_peak(&base, &peak),
				  rcm_cm_count("rx_msgs", "req") >=
				  req0 + 2 * loops &&
				  rcm_cm_count("rx_msgs", "rej") >=
				  rej0 + 2 * loops), 30000))
		TH_LOG("ib_cm received %ld REQs and %ld REJs of %u",
		       rcm_cm_count("rx_msgs", "req") - req0,
		       rcm_cm_count("rx_msgs", "rej") - rej0, 2 * loops);
	slab_peak(&base, &peak);
	printf("# abandon: %ld REQs each destroyed or rejected at once\n",
	       hp_count("sent"));
	ASSERT_EQ(hp_count("sent"), 2 * loops)
		TH_LOG("%ld sent", hp_count("sent"));
	/*
	 * ib_cm keeps retrying a REQ its sender rejected: end those first,
	 * so that nothing arrives any more when the memory is counted
	 * (a retry in flight holds an id and its events for a moment), and
	 * none takes the slot each read gives back.
	 */
	ASSERT_EQ(0, hp("reset"))
		TH_LOG("reset: %s", strerror(errno));
	/*
	 * Settled: what a retry in flight holds goes again. A request id
	 * may also hold a REJECTED event of its own.
	 */
	RCM_WAIT_FOR((slab_mark(&now), now.id - base.id <= backlog &&
		      now.ev - base.ev <= 3 * backlog), 30000);
	ASSERT_EQ(0, slab_bounded("abandon", &base, &peak, backlog,
				  3 * backlog))
		TH_LOG("memory beyond the backlog");
	n = rcm_drain(s, RCM_EVENT_CONNECT_REQUEST);
	ASSERT_EQ(n, (int)backlog)
		TH_LOG("%d requests queued, backlog %u", n, backlog);
	close(s);
}

/* Set the hostile module's parameter @name; its old value, or -1. */
static long hostile_param(const char *name, long value)
{
	char path[128];
	long old;

	snprintf(path, sizeof(path), "/sys/module/rcm_hostile/parameters/%s",
		 name);
	old = rcm_read_long(path);
	return old < 0 || rcm_write_long(path, value) ? -1 : old;
}

/*
 * A SIDR REQ flood on a UD listener of backlog 8 that never reads: 8
 * requests are held, unanswered, every other one is answered with a
 * SIDR reject; malformed headers are rejected too.
 */
TEST(sidr_flood_holds_at_most_backlog)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const unsigned int backlog = 8, flood = 100;
	struct slab_mark base, peak = { 0, 0 };
	long rejected, answered, lost, timeout;
	unsigned short port;
	unsigned int lid;
	int s, n;

	PREAMBLE(ip);
	s = rcm_open_dev();
	lid = rcm_create(s, RCM_PS_UDP, RCM_QPT_UD, 0x77);
	ASSERT_TRUE(lid && rcm_bind(s, lid, ip, 0) == 0 &&
		    rcm_listen(s, lid, backlog) == 0)
		TH_LOG("listen: %s", strerror(errno));
	port = rcm_local_port(s, lid);
	slab_base(_metadata, &base);
	/*
	 * Each SIDR REQ waits 4.3 s per try (2^20 * 4.096 us), not the
	 * default 1.07 s: a loaded KASAN guest took longer than six of
	 * those to answer the flood, and every REQ timed out. No step
	 * waits for a timeout: the held requests' tries are ended by the
	 * reset below.
	 */
	timeout = hostile_param("cm_timeout", 20);
	ASSERT_LE(0, timeout)
		TH_LOG("cm_timeout: %s", strerror(errno));
	ASSERT_EQ(0, hp("sidr 0 %u valid udp:%hu", flood, port))
		TH_LOG("flood: %s", strerror(errno));
	hostile_param("cm_timeout", timeout);
	slab_peak(&base, &peak);
	/*
	 * The backlog fills before any request is refused: once the
	 * answers to all the others are in, the backlog's are held.
	 */
	ASSERT_EQ(hp_sum_reaches("sidr_rep", "sidr_error", flood - backlog,
				 90000), flood - backlog)
		TH_LOG("%ld SIDR answers and %ld timeouts for %u", hp_count("sidr_rep"),
		       hp_count("sidr_error"), flood);
	slab_peak(&base, &peak);
	n = rcm_events_queued(s);
	rejected = hp_count("sidr_status_2");
	answered = hp_count("sidr_rep");
	lost = hp_count("sidr_error");
	printf("# SIDR flood: %u sent, %ld rejected, %d held (queued), %ld timed out\n",
	       flood, rejected, n, lost);
	ASSERT_TRUE(rejected == flood - backlog && answered == rejected &&
		    lost == 0 && n == (int)backlog)
		TH_LOG("%ld rejected, %ld answered, %ld timed out, %d queued",
		       rejected, answered, lost, n);
	ASSERT_EQ(0, slab_bounded("SIDR flood", &base, &peak, backlog,
				  2 * backlog))
		TH_LOG("memory beyond the backlog");
	/* Ends the held requests' tries: none is ever answered. */
	ASSERT_EQ(0, hp("reset"))
		TH_LOG("reset: %s", strerror(errno));
	/* Malformed and spoofed SIDR REQs: a reject each, no request. */
	ASSERT_TRUE(hp("sidr 0 16 version udp:%hu", port) == 0 &&
		    hp("sidr 16 8 src_loopback udp:%hu", port) == 0 &&
		    hp("sidr 24 8 dst_other udp:%hu", port) == 0 &&
		    hp("wait 0 32 sidr_rep 30000") == 0)
		TH_LOG("malformed SIDR: %s", strerror(errno));
	ASSERT_EQ(32, hp_count("sidr_status_2"))
		TH_LOG("%ld of 32 rejected", hp_count("sidr_status_2"));
	n = rcm_drain(s, RCM_EVENT_CONNECT_REQUEST);
	ASSERT_EQ(n, (int)backlog)
		TH_LOG("%d requests queued, backlog %u", n, backlog);
	close(s);
}

/* The port of the listener rej_and_dreq_at_every_state's REQs go to. */
static unsigned short rej_port;

/* rcm's request id for the peer's REQ in slot @slot, which it reads. */
static unsigned int request_of(int s, unsigned int slot)
{
	struct rcm_event ev;

	if (hp("req %u 1 valid tcp:%hu", slot, rej_port) ||
	    rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		return 0;
	return ev.id;
}

/* The next event on @s must be @type on @id with @status. */
static int expect_on(int s, unsigned int type, unsigned int id, int status)
{
	struct rcm_event ev;

	if (rcm_expect_event(s, type, &ev))
		return -1;
	if (ev.id != id || ev.status != status) {
		printf("# event %u on id %u status %d, want id %u status %d\n",
		       type, ev.id, ev.status, id, status);
		return -1;
	}
	return 0;
}

/* Accept @rid and let the peer in slot @slot see the REP. */
static int accept_rep(int s, unsigned int rid, unsigned int slot)
{
	return rcm_accept(s, rid, 0x5000 + slot, 0x78, NULL) ||
	       hp("wait %u 1 rep 30000", slot) ? -1 : 0;
}

/* Establish slot @slot's connection with request id @rid. */
static int establish(int s, unsigned int rid, unsigned int slot)
{
	return accept_rep(s, rid, slot) || hp("rtu %u 1", slot) ||
	       expect_on(s, RCM_EVENT_ESTABLISHED, rid, 0) ? -1 : 0;
}

/*
 * A step of rej_and_dreq_at_every_state that differs from others only in
 * data: the peer's REQ in slot @slot is read and taken as far as @to;
 * the peer then sends @peer (a hostile_peer command on the slot; NULL:
 * nothing, it stays silent) and the request id hears @event with
 * @status. After that, per @then, rcm's accept is refused, or rcm
 * answers the DREQ (DREP; the peer, if it is still there, waits for it)
 * and the id's time wait ends.
 */
struct peer_step {
	const char *what;
	unsigned int slot;
	enum { READ, ACCEPTED, ESTABLISHED } to;
	const char *peer;
	unsigned int event;
	int status;
	enum { NOTHING, ACCEPT_REFUSED, DREP, DREP_SEEN } then;
};

static const struct peer_step peer_steps[] = {
	{ "read request, the peer destroys its id", 2, READ, "destroy",
	  RCM_EVENT_REJECTED, REJ_TIMEOUT, ACCEPT_REFUSED },
	{ "REJ instead of the RTU", 3, ACCEPTED, "rej",
	  RCM_EVENT_REJECTED, REJ_CONSUMER, NOTHING },
	{ "the peer destroys its id instead of the RTU (ib_cm: REJ)", 4,
	  ACCEPTED, "destroy", RCM_EVENT_REJECTED, REJ_CONSUMER, NOTHING },
	{ "no RTU ever: rcm's REP times out", 5, ACCEPTED, NULL,
	  RCM_EVENT_UNREACHABLE, -ETIMEDOUT, NOTHING },
	{ "established, the peer's DREQ", 7, ESTABLISHED, "dreq",
	  RCM_EVENT_DISCONNECTED, 0, DREP_SEEN },
	{ "established, the peer destroys its id (ib_cm: DREQ)", 10,
	  ESTABLISHED, "destroy", RCM_EVENT_DISCONNECTED, 0, DREP },
};

/* Step @slot of peer_steps[]. */
static void peer_step(struct __test_metadata *_metadata, int s,
		      unsigned int slot)
{
	const struct peer_step *st = NULL;
	unsigned int i, rid;

	for (i = 0; i < ARRAY_SIZE(peer_steps); i++)
		if (peer_steps[i].slot == slot)
			st = &peer_steps[i];
	ASSERT_NE(NULL, st);
	rid = request_of(s, slot);
	ASSERT_TRUE(rid)
		TH_LOG("%s: no request", st->what);
	if (st->to == ACCEPTED) {
		ASSERT_EQ(0, accept_rep(s, rid, slot))
			TH_LOG("%s: accept: %s", st->what, strerror(errno));
	}
	if (st->to == ESTABLISHED) {
		ASSERT_EQ(0, establish(s, rid, slot))
			TH_LOG("%s: establish: %s", st->what, strerror(errno));
	}
	if (st->peer) {
		ASSERT_EQ(0, hp("%s %u 1", st->peer, slot))
			TH_LOG("%s: %s: %s", st->what, st->peer,
			       strerror(errno));
	}
	ASSERT_EQ(0, expect_on(s, st->event, rid, st->status))
		TH_LOG("%s: not event %u status %d", st->what, st->event,
		       st->status);
	if (st->then == ACCEPT_REFUSED) {
		ASSERT_ERRNO(rcm_accept(s, rid, 0x5000 + slot, 0x78, NULL),
			     EINVAL);
	}
	if (st->then != DREP && st->then != DREP_SEEN)
		return;
	ASSERT_EQ(0, do_id(s, RCM_IOCTL_DISCONNECT, rid))
		TH_LOG("%s: DREP: %s", st->what, strerror(errno));
	if (st->then == DREP_SEEN) {
		ASSERT_EQ(0, hp("wait %u 1 drep 30000", slot))
			TH_LOG("%s: no DREP for the DREQ", st->what);
	}
	ASSERT_EQ(0, expect_on(s, RCM_EVENT_TIMEWAIT_EXIT, rid, 0))
		TH_LOG("%s: no timewait", st->what);
}

TEST(rej_and_dreq_at_every_state)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_reject rej = { .size = sizeof(rej) };
	struct slab_mark base, after;
	unsigned int lid, rid, slot;
	struct rcm_event ev;
	int s;

	PREAMBLE(ip);
	s = rcm_open_dev();
	rej_port = 0;
	lid = rcm_listener(s, ip, &rej_port, 0x79, 16);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	slab_base(_metadata, &base);

	/*
	 * 1. The peer gives up (destroys its id) before the request is
	 * read: ib_cm's REJ "timeout" reaches the request. (An explicit REJ
	 * of an active side before any REP names no passive ib_cm id, and
	 * ib_cm drops it: the request then waits as for a silent peer.)
	 */
	ASSERT_EQ(0, hp("req 1 1 valid tcp:%hu", rej_port))
		TH_LOG("req: %s", strerror(errno));
	ASSERT_TRUE(rcm_readable(s, 30000))
		TH_LOG("no request");
	ASSERT_EQ(0, hp("destroy 1 1"))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_EQ(0, expect_on(s, RCM_EVENT_REJECTED, rid, REJ_TIMEOUT))
		TH_LOG("abandoned request: no REJECTED");
	ASSERT_ERRNO(rcm_accept(s, rid, 0x5001, 0x78, NULL), EINVAL);

	/* 2.-5. The same once the request was read; then as peer_steps[]. */
	for (slot = 2; slot <= 5; slot++)
		peer_step(_metadata, s, slot);

	/* 6. RTU and DREQ at once, before rcm read ESTABLISHED. */
	rid = request_of(s, 6);
	ASSERT_TRUE(rid && accept_rep(s, rid, 6) == 0)
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_TRUE(hp("rtu 6 1") == 0 && hp("dreq 6 1") == 0)
		TH_LOG("rtu+dreq: %s", strerror(errno));
	ASSERT_TRUE(expect_on(s, RCM_EVENT_ESTABLISHED, rid, 0) == 0 &&
		    expect_on(s, RCM_EVENT_DISCONNECTED, rid, 0) == 0)
		TH_LOG("RTU+DREQ: not ESTABLISHED then DISCONNECTED");
	ASSERT_TRUE(do_id(s, RCM_IOCTL_DISCONNECT, rid) == 0 &&
		    hp("wait 6 1 drep 30000") == 0)
		TH_LOG("no DREP for the DREQ");
	ASSERT_EQ(0, expect_on(s, RCM_EVENT_TIMEWAIT_EXIT, rid, 0))
		TH_LOG("no timewait");

	/* 7. Established, the peer's DREQ. */
	peer_step(_metadata, s, 7);

	/* 8. Established, rcm's DREQ that the peer never answers. */
	rid = request_of(s, 8);
	ASSERT_TRUE(rid && establish(s, rid, 8) == 0)
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, do_id(s, RCM_IOCTL_DISCONNECT, rid))
		TH_LOG("disconnect: %s", strerror(errno));
	ASSERT_EQ(0, hp("wait 8 1 dreq 30000"))
		TH_LOG("the peer got no DREQ");
	ASSERT_EQ(0, expect_on(s, RCM_EVENT_DISCONNECTED, rid, -ETIMEDOUT))
		TH_LOG("unanswered DREQ: not DISCONNECTED -ETIMEDOUT");
	ASSERT_EQ(0, expect_on(s, RCM_EVENT_TIMEWAIT_EXIT, rid, 0))
		TH_LOG("no timewait");

	/* 9. Established, both sides' DREQs cross. */
	rid = request_of(s, 9);
	ASSERT_TRUE(rid && establish(s, rid, 9) == 0)
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, do_id(s, RCM_IOCTL_DISCONNECT, rid))
		TH_LOG("disconnect: %s", strerror(errno));
	/* ib_cm may already have taken rcm's DREQ: then the peer's fails. */
	if (hp("dreq 9 1")) {
		ASSERT_EQ(0, hp("drep 9 1"))
			TH_LOG("neither DREQ nor DREP: %s", strerror(errno));
	}
	ASSERT_EQ(0, expect_on(s, RCM_EVENT_DISCONNECTED, rid, 0))
		TH_LOG("crossed DREQs: not DISCONNECTED");
	/* Crossed, each side owes the other its DREP (the peer's may fail). */
	ASSERT_EQ(0, do_id(s, RCM_IOCTL_DISCONNECT, rid))
		TH_LOG("DREP: %s", strerror(errno));
	hp("drep 9 1");
	ASSERT_EQ(0, expect_on(s, RCM_EVENT_TIMEWAIT_EXIT, rid, 0))
		TH_LOG("no timewait");

	/* 10. Established, the peer destroys its id (ib_cm: DREQ). */
	peer_step(_metadata, s, 10);

	/* 11. rcm rejects; ib_cm then refuses the peer's RTU and DREQ. */
	rid = request_of(s, 11);
	ASSERT_TRUE(rid)
		TH_LOG("no request");
	rej.id = rid;
	ASSERT_EQ(0, ioctl(s, RCM_IOCTL_REJECT, &rej))
		TH_LOG("reject: %s", strerror(errno));
	ASSERT_EQ(0, hp("wait 11 1 rej 30000"))
		TH_LOG("the peer got no REJ");
	ASSERT_ERRNO(hp("rtu 11 1"), EINVAL);
	ASSERT_ERRNO(hp("dreq 11 1"), EINVAL);
	ASSERT_TRUE(!rcm_readable(s, 0))
		TH_LOG("an event after the reject");
	ASSERT_EQ(0, close(s))
		TH_LOG("close: %s", strerror(errno));
	ASSERT_EQ(0, hp("reset"))
		TH_LOG("reset: %s", strerror(errno));
	slab_mark(&after);
	/* Only the listener is gone: it held an id and its removal event. */
	ASSERT_TRUE(after.id == base.id - 1 && after.ev == base.ev - 1)
		TH_LOG("after close: rcm_id %ld -> %ld, rcm_uevent %ld -> %ld",
		       base.id, after.id, base.ev, after.ev);
}

RCM_TEST_MAIN
