// SPDX-License-Identifier: GPL-2.0-only
/*
 * faults: allocation and user-copy failures injected into each system
 * call of a connection's life, through /proc/thread-self/fail-nth.
 *
 * For each step (open, create, bind, resolve, route, listen (on RoCE,
 * and on iWARP, where the driver listens on TCP inside the call), connect,
 * accept, establish, read, disconnect, migrate, join, destroy, close),
 * the state before it is built afresh without faults, then the step
 * runs with its 1st, 2nd, 3rd... fault point failed, until a run in
 * which no failure was injected (which must then succeed). Each injected
 * failure must end in an errno the header documents for the command, or
 * in success; a call that failed must have changed nothing (the same
 * call without faults then succeeds); a call that succeeded must still
 * deliver its completion event (rcm allocates it when the operation
 * starts, so completions are never lost to ENOMEM); a read that failed
 * leaves its event queued. kmemleak, KASAN and lockdep are the guest's:
 * its log scan fails the run on any report.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION (the test kernel); skips
 * where /proc/thread-self/fail-nth is missing. Needs RCM_ADDR_RXE.
 */
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"
#include "fuzz_common.h"

#define MAX_ROUNDS 80

static int ffd = -1;	/* the running case's own fail-nth */
static bool knobs;	/* fault injection is there and set up */
static const char *ip;

struct ctx {
	int s, c, d;			/* server, client, spare file */
	unsigned int lid, cid, rid, id;	/* listener, client, request, other */
	unsigned short port;		/* the listener's, bind's choice */
	struct rcm_event ev;
};

/* The result of one step's call, and what the step checks after it. */
struct step {
	const char *name;
	unsigned int cmd;	/* for the errno table; 0: not an ioctl */
	int (*prep)(struct ctx *x);
	int (*call)(struct ctx *x);
	/* 0, or -1 with rcm_why set. */
	int (*after)(struct ctx *x, int ret);
};

static char why[256];

#define BAD(...) (snprintf(why, sizeof(why), __VA_ARGS__), -1)

/* Whether the step's call had a failure injected, and its errno. */
static bool fired_now;
static int call_err;

/*
 * A retry of a call that failed is fine when it succeeds, or when the
 * first call failed with EFAULT and the retry finds it done (EINVAL):
 * the dispatcher copies the struct back after the command ran, so a
 * failed copy-out reports EFAULT for a command that took effect.
 */
static bool retried(int ret)
{
	return ret == 0 || (call_err == EFAULT && errno == EINVAL);
}

static int server(struct ctx *x)
{
	x->port = 0;
	x->lid = rcm_listener(x->s, ip, &x->port, 0x5, 0);
	return x->lid ? 0 : BAD("listener: %s", strerror(errno));
}

static int client_routed(struct ctx *x)
{
	x->cid = rcm_create(x->c, RCM_PS_TCP, RCM_QPT_RC, 0xc);
	if (!x->cid || rcm_routed(x->c, x->cid, ip, x->port))
		return BAD("client route: %s", strerror(errno));
	return 0;
}

static int requested(struct ctx *x)
{
	if (server(x) || client_routed(x))
		return -1;
	if (rcm_connect(x->c, x->cid, 0x100, "fault"))
		return BAD("connect: %s", strerror(errno));
	if (rcm_expect_event(x->s, RCM_EVENT_CONNECT_REQUEST, &x->ev))
		return BAD("no CONNECT_REQUEST");
	x->rid = x->ev.id;
	return 0;
}

static int responded(struct ctx *x)
{
	if (requested(x))
		return -1;
	if (rcm_accept(x->s, x->rid, 0x200, 0x7, NULL))
		return BAD("accept: %s", strerror(errno));
	if (rcm_expect_event(x->c, RCM_EVENT_CONNECT_RESPONSE, &x->ev))
		return BAD("no CONNECT_RESPONSE");
	return 0;
}

static int connected(struct ctx *x)
{
	if (responded(x))
		return -1;
	if (rcm_simple(x->c, RCM_IOCTL_ESTABLISH, x->cid))
		return BAD("establish: %s", strerror(errno));
	if (rcm_expect_event(x->s, RCM_EVENT_ESTABLISHED, &x->ev))
		return BAD("no ESTABLISHED");
	return 0;
}

/* The next event of @fd within 10 s is @type for @id. */
static int expect(int fd, unsigned int type, unsigned int id)
{
	struct rcm_event ev;

	if (rcm_wait_event(fd, 10000, &ev))
		return BAD("no event %u within 10 s", type);
	if (ev.event != type || ev.id != id)
		return BAD("event %u status %d id %u, want %u for %u",
			   ev.event, ev.status, ev.id, type, id);
	return 0;
}

/* --- the steps ----------------------------------------------------------- */

static int call_open(struct ctx *x)
{
	x->d = rcm_open_dev();
	return x->d < 0 ? -1 : 0;
}

static int after_open(struct ctx *x, int ret)
{
	/* ENOMEM, or EFAULT from copying the path in. */
	if (ret)
		return errno == ENOMEM || errno == EFAULT ? 0 :
			BAD("open: errno %d (%s)", errno, strerror(errno));
	return rcm_create(x->d, RCM_PS_TCP, RCM_QPT_RC, 1) ? 0 :
		BAD("create on the new file: %s", strerror(errno));
}

static int prep_nothing(struct ctx *x)
{
	(void)x;
	return 0;
}

static int call_create(struct ctx *x)
{
	x->id = rcm_create(x->c, RCM_PS_TCP, RCM_QPT_RC, 0x1d);
	return x->id ? 0 : -1;
}

static int after_create(struct ctx *x, int ret)
{
	unsigned int h = rcm_create(x->c, RCM_PS_TCP, RCM_QPT_RC, 0x2d);

	/* Handles are taken lowest first from 1: a failure took none. */
	if (h != (ret ? 1u : 2u))
		return BAD("the next create got handle %u", h);
	return 0;
}

static int prep_id(struct ctx *x)
{
	x->id = rcm_create(x->c, RCM_PS_TCP, RCM_QPT_RC, 0x1d);
	return x->id ? 0 : BAD("create: %s", strerror(errno));
}

static int call_bind(struct ctx *x)
{
	return rcm_bind(x->c, x->id, ip, 0);
}

static int after_bind(struct ctx *x, int ret)
{
	struct rcm_query_id q;

	if (ret && !retried(rcm_bind(x->c, x->id, ip, 0)))
		return BAD("bind again after the failure: %s", strerror(errno));
	if (rcm_query(x->c, x->id, &q) || q.out_src.ss_family != AF_INET)
		return BAD("query after bind: family %u", q.out_src.ss_family);
	return 0;
}

static int call_resolve(struct ctx *x)
{
	return rcm_resolve(x->c, x->id, NULL, ip, 2000);
}

static int after_resolve(struct ctx *x, int ret)
{
	struct rcm_event ev;

	/*
	 * The same call again tells whether the failed one took effect
	 * (retried()): it is refused once the id is resolving. A failed
	 * call that queued a completion as well shows as a second one.
	 */
	if (ret && !retried(rcm_resolve(x->c, x->id, NULL, ip, 2000)))
		return BAD("resolve again after the failure: %s",
			   strerror(errno));
	/* Exactly one completion, success or error, never none. */
	if (rcm_wait_event(x->c, 10000, &ev))
		return BAD("RESOLVE_ADDR succeeded but no completion came");
	if (ev.event != RCM_EVENT_ADDR_RESOLVED &&
	    ev.event != RCM_EVENT_ADDR_ERROR)
		return BAD("event %u after RESOLVE_ADDR", ev.event);
	if (ev.event == RCM_EVENT_ADDR_ERROR && ev.status >= 0)
		return BAD("ADDR_ERROR status %d", ev.status);
	if (rcm_readable(x->c, 200))
		return BAD("a second completion of one RESOLVE_ADDR");
	return 0;
}

static int prep_resolved(struct ctx *x)
{
	if (prep_id(x))
		return -1;
	return rcm_resolved(x->c, x->id, ip) ?
		BAD("resolve: %s", strerror(errno)) : 0;
}

static int call_route(struct ctx *x)
{
	return rcm_route(x->c, x->id, 0);
}

static int after_route(struct ctx *x, int ret)
{
	if (ret) {
		if (rcm_readable(x->c, 0) && call_err != EFAULT)
			return BAD("an event after a failed RESOLVE_ROUTE");
		if (!rcm_readable(x->c, 0) && rcm_route(x->c, x->id, 0))
			return BAD("route again after the failure: %s",
				   strerror(errno));
	}
	/* Queued before the call returns. */
	if (!rcm_readable(x->c, 0))
		return BAD("no ROUTE_RESOLVED queued when RESOLVE_ROUTE returned");
	return expect(x->c, RCM_EVENT_ROUTE_RESOLVED, x->id);
}

static int prep_bound(struct ctx *x)
{
	if (prep_id(x))
		return -1;
	if (rcm_bind(x->c, x->id, ip, 0))
		return BAD("bind: %s", strerror(errno));
	x->port = rcm_local_port(x->c, x->id);
	return x->port ? 0 : BAD("bound port: %s", strerror(errno));
}

static int call_listen(struct ctx *x)
{
	return rcm_listen(x->c, x->id, 0);
}

static int after_listen(struct ctx *x, int ret)
{
	unsigned int cid;

	if (ret && !retried(rcm_listen(x->c, x->id, 0)))
		return BAD("listen again after the failure: %s",
			   strerror(errno));
	/* The listener takes requests. */
	cid = rcm_create(x->s, RCM_PS_TCP, RCM_QPT_RC, 0xc);
	if (!cid || rcm_routed(x->s, cid, ip, x->port) ||
	    rcm_connect(x->s, cid, 0x300, NULL))
		return BAD("client: %s", strerror(errno));
	if (rcm_wait_event(x->c, 10000, &x->ev))
		return BAD("the listener got no request in 10 s (client: %s)",
			   rcm_wait_event(x->s, 0, &x->ev) ? "nothing" :
			   x->ev.event == RCM_EVENT_REJECTED ? "REJECTED" :
			   "another event");
	if (x->ev.event != RCM_EVENT_CONNECT_REQUEST ||
	    x->ev.listen_id != x->id)
		return BAD("the listener got event %u status %d listen_id %u",
			   x->ev.event, x->ev.status, x->ev.listen_id);
	return 0;
}

/*
 * On iWARP a listen is the driver's TCP listen, made inside the call:
 * siw's socket allocation fails as ENOBUFS (sk_alloc() in inet_create()
 * or inet6_create()) or ENFILE, which rcm reports as ENOMEM. Each round binds a port of its
 * own, so that no socket of an earlier round's listener can hold it.
 */
static unsigned short iw_port;
static const char *iw_ip;	/* the siw address of the walk: IPv4 or IPv6 */

static int prep_bound_iwarp(struct ctx *x)
{
	iw_port = iw_port ? iw_port + 1 : rcm_free_port(iw_ip, RCM_PS_TCP);
	if (prep_id(x))
		return -1;
	return rcm_bind(x->c, x->id, iw_ip, iw_port) ?
		BAD("bind: %s", strerror(errno)) : 0;
}

static int after_listen_iwarp(struct ctx *x, int ret)
{
	if (ret && !retried(rcm_listen(x->c, x->id, 0)))
		return BAD("listen again after the failure: %s",
			   strerror(errno));
	if (!rcm_listen(x->c, x->id, 0) || errno != EINVAL)
		return BAD("a second listen: %s", strerror(errno));
	return 0;
}

static int prep_routed(struct ctx *x)
{
	return server(x) || client_routed(x) ? -1 : 0;
}

static int call_connect(struct ctx *x)
{
	return rcm_connect(x->c, x->cid, 0x100, "fault");
}

static int after_connect(struct ctx *x, int ret)
{
	if (ret && !retried(rcm_connect(x->c, x->cid, 0x100, "fault")))
		return BAD("connect again after the failure: %s",
			   strerror(errno));
	if (rcm_wait_event(x->s, 10000, &x->ev) ||
	    x->ev.event != RCM_EVENT_CONNECT_REQUEST)
		return BAD("no CONNECT_REQUEST after CONNECT");
	if (rcm_readable(x->s, 200))
		return BAD("a second request for one connect");
	return 0;
}

static int call_accept(struct ctx *x)
{
	return rcm_accept(x->s, x->rid, 0x200, 0x7, "yes");
}

static int after_accept(struct ctx *x, int ret)
{
	if (ret && !retried(rcm_accept(x->s, x->rid, 0x200, 0x7, "yes")))
		return BAD("accept again after the failure: %s",
			   strerror(errno));
	return expect(x->c, RCM_EVENT_CONNECT_RESPONSE, x->cid);
}

static int call_establish(struct ctx *x)
{
	return rcm_simple(x->c, RCM_IOCTL_ESTABLISH, x->cid);
}

static int after_establish(struct ctx *x, int ret)
{
	if (ret && !retried(rcm_simple(x->c, RCM_IOCTL_ESTABLISH, x->cid)))
		return BAD("establish again after the failure: %s",
			   strerror(errno));
	return expect(x->s, RCM_EVENT_ESTABLISHED, x->rid);
}

static int call_disconnect(struct ctx *x)
{
	return rcm_simple(x->c, RCM_IOCTL_DISCONNECT, x->cid);
}

static int after_disconnect(struct ctx *x, int ret)
{
	struct pollfd both[2] = {
		{ .fd = x->s, .events = POLLIN },
		{ .fd = x->c, .events = POLLIN },
	};

	if (ret && !retried(rcm_simple(x->c, RCM_IOCTL_DISCONNECT, x->cid)))
		return BAD("disconnect again after the failure: %s",
			   strerror(errno));
	/*
	 * The server hears the DREQ and answers it with its own
	 * DISCONNECT (the DREP); the client then reports DISCONNECTED. A
	 * DREQ a fault kept from going times out instead (or was never
	 * owed): the client then hears first, and the server nothing.
	 */
	if (poll(both, 2, 60000) < 1)
		return BAD("neither side got an event in 60 s");
	if (both[0].revents) {
		if (rcm_wait_event(x->s, 0, &x->ev) ||
		    x->ev.event != RCM_EVENT_DISCONNECTED)
			return BAD("the server got event %u status %d",
				   x->ev.event, x->ev.status);
		if (rcm_simple(x->s, RCM_IOCTL_DISCONNECT, x->rid))
			return BAD("server disconnect: %s", strerror(errno));
	} else if (!fired_now) {
		return BAD("the client heard before the server's DISCONNECTED");
	}
	if (rcm_wait_event(x->c, 60000, &x->ev))
		return BAD("the client got no event in 60 s");
	if (x->ev.event != RCM_EVENT_DISCONNECTED || x->ev.id != x->cid)
		return BAD("the client got event %u status %d for %u",
			   x->ev.event, x->ev.status, x->ev.id);
	return 0;
}

static int prep_event(struct ctx *x)
{
	if (prep_id(x) || rcm_resolve(x->c, x->id, NULL, ip, 2000))
		return BAD("resolve: %s", strerror(errno));
	return rcm_readable(x->c, 10000) ? 0 : BAD("no event to read");
}

static int call_read(struct ctx *x)
{
	return read(x->c, &x->ev, sizeof(x->ev)) == sizeof(x->ev) ? 0 : -1;
}

static int after_read(struct ctx *x, int ret)
{
	if (ret) {
		/* An event leaves the queue only once copied. */
		if (errno != EFAULT)
			return BAD("read: errno %d (%s)", errno,
				   strerror(errno));
		if (!rcm_readable(x->c, 0) || call_read(x))
			return BAD("the event was lost by a failed read");
	}
	if (x->ev.id != x->id || (x->ev.event != RCM_EVENT_ADDR_RESOLVED &&
				  x->ev.event != RCM_EVENT_ADDR_ERROR))
		return BAD("read event %u for %u", x->ev.event, x->ev.id);
	return rcm_readable(x->c, 0) ? BAD("an event twice") : 0;
}

static int prep_migrate(struct ctx *x)
{
	if (prep_event(x))
		return -1;
	x->d = rcm_open_dev();
	return x->d < 0 ? BAD("open: %s", strerror(errno)) : 0;
}

static struct rcm_migrate_id mig;

static int call_migrate(struct ctx *x)
{
	memset(&mig, 0, sizeof(mig));
	mig.size = sizeof(mig);
	mig.id = x->id;
	mig.fd = x->d;
	return ioctl(x->c, RCM_IOCTL_MIGRATE_ID, &mig);
}

static int after_migrate(struct ctx *x, int ret)
{
	struct rcm_event ev;

	if (ret && rcm_readable(x->d, 0) && call_err == EFAULT) {
		/* It moved, but the new handle did not reach us. */
		if (rcm_readable(x->c, 0))
			return BAD("the event is in both files");
		return 0;
	}
	if (ret) {
		/* Nothing moved: the id and its event are still here. */
		if (rcm_readable(x->d, 0))
			return BAD("an event moved by a failed MIGRATE_ID");
		if (call_migrate(x))
			return BAD("migrate again after the failure: %s",
				   strerror(errno));
	}
	if (rcm_readable(x->c, 0))
		return BAD("an event stayed behind");
	if (rcm_wait_event(x->d, 1000, &ev) || ev.id != mig.out_id)
		return BAD("the event did not follow the id (handle %u)",
			   mig.out_id);
	return 0;
}

static int prep_ud(struct ctx *x)
{
	x->id = rcm_create(x->c, RCM_PS_UDP, RCM_QPT_UD, 0x0d);
	if (!x->id || rcm_bind(x->c, x->id, ip, 0))
		return BAD("UD id: %s", strerror(errno));
	return 0;
}

static int call_join(struct ctx *x)
{
	struct rcm_join_mcast j = {
		.size = sizeof(j), .id = x->id, .context = 0x3c,
	};

	rcm_sockaddr(&j.addr, "239.1.9.9", 0);
	return ioctl(x->c, RCM_IOCTL_JOIN_MCAST, &j);
}

static int after_join(struct ctx *x, int ret)
{
	if (ret && !(call_err == EFAULT && rcm_readable(x->c, 1000))) {
		if (rcm_readable(x->c, 300))
			return BAD("an event after a failed JOIN_MCAST");
		if (call_join(x))
			return BAD("join again after the failure: %s",
				   strerror(errno));
	}
	if (rcm_wait_event(x->c, 10000, &x->ev))
		return BAD("JOIN_MCAST succeeded but no event came");
	if (x->ev.event != RCM_EVENT_MULTICAST_JOIN &&
	    x->ev.event != RCM_EVENT_MULTICAST_ERROR)
		return BAD("event %u after JOIN_MCAST", x->ev.event);
	return 0;
}

static int call_destroy_conn(struct ctx *x)
{
	return rcm_destroy(x->s, x->rid);
}

/*
 * After a DESTROY_ID of @id on the server's file: destroyed again if
 * the call failed (ENOENT if only its copy-out did), then gone. 0, or
 * -1 with the why set.
 */
static int destroyed(struct ctx *x, int ret, unsigned int id)
{
	if (ret && rcm_destroy(x->s, id) &&
	    !(call_err == EFAULT && errno == ENOENT))
		return BAD("destroy again after the failure: %s",
			   strerror(errno));
	return 0;
}

/*
 * Unless the fault hit the message that tells the client (no promise
 * then: IB CM has no keepalive), the client hears @type within 30 s.
 */
static int client_hears(struct ctx *x, unsigned int type, const char *what)
{
	if (fired_now)
		return 0;
	if (rcm_wait_event(x->c, 30000, &x->ev) || x->ev.event != type)
		return BAD("%s", what);
	return 0;
}

static int after_destroy(struct ctx *x, int ret)
{
	if (destroyed(x, ret, x->rid))
		return -1;
	if (rcm_destroy(x->s, x->rid) != -1 || errno != ENOENT)
		return BAD("the handle still names something");
	/* The peer hears of it through a DREQ. */
	return client_hears(x, RCM_EVENT_DISCONNECTED,
			    "the client got no DISCONNECTED");
}

static int call_destroy_listener(struct ctx *x)
{
	return rcm_destroy(x->s, x->lid);
}

static int after_destroy_listener(struct ctx *x, int ret)
{
	if (destroyed(x, ret, x->lid))
		return -1;
	/* Its unread request is gone with it: nothing left to read. */
	if (rcm_readable(x->s, 200))
		return BAD("an event outlived the listener");
	/* The client is refused, through a REJ. */
	return client_hears(x, RCM_EVENT_REJECTED,
			    "the client was not refused");
}

static int prep_unread_request(struct ctx *x)
{
	if (server(x) || client_routed(x))
		return -1;
	if (rcm_connect(x->c, x->cid, 0x100, NULL))
		return BAD("connect: %s", strerror(errno));
	return rcm_readable(x->s, 10000) ? 0 : BAD("no request");
}

static int call_close(struct ctx *x)
{
	int ret = close(x->s);

	x->s = -1;
	return ret;
}

static int after_close(struct ctx *x, int ret)
{
	if (ret)
		return BAD("close: %s", strerror(errno));
	if (fired_now)
		return 0;
	if (rcm_wait_event(x->c, 30000, &x->ev) ||
	    x->ev.event != RCM_EVENT_DISCONNECTED)
		return BAD("the client got no DISCONNECTED");
	return 0;
}

/*
 * One round: build the state, arm fault point @round, call, check.
 * 0 (the call succeeded), 1 (it failed as it may), or -1 with @why
 * set. *@fired: the failure was injected.
 */
static int one_round(const struct step *st, int round, struct ctx *x,
		     bool *fired, int *err)
{
	char msg[sizeof(why)];
	int ret;

	why[0] = '\0';
	if (st->prep(x)) {
		snprintf(msg, sizeof(msg), "%s", why);
		return BAD("set-up: %.200s", msg);
	}
	if (rcm_fault_arm(ffd, round))
		return BAD("fail-nth: %s", strerror(errno));
	ret = st->call(x);
	*err = errno;
	*fired = rcm_fault_fired(ffd);
	fired_now = *fired;
	call_err = ret ? *err : 0;
	if (ret && !*fired)
		return BAD("failed with no fault injected: %s", strerror(*err));
	if (ret && st->cmd && !rcm_errno_documented(st->cmd, *err))
		return BAD("errno %d (%s) is not documented for %s", *err,
			   strerror(*err), rcm_cmd_name(st->cmd));
	errno = *err;
	if (st->after(x, ret)) {
		snprintf(msg, sizeof(msg), "%s", why);
		return BAD("%s: %.200s", ret ? strerror(*err) : "succeeded",
			   msg);
	}
	return ret ? 1 : 0;
}

/*
 * Walk @st's fault points: each round builds the state afresh, fails
 * the round's point, calls, and checks. Ends with the first round in
 * which nothing was injected, which must have succeeded.
 */
static void walk(struct __test_metadata *_metadata, const struct step *st)
{
	int round, ret, err = 0, injected = 0, failed = 0;
	char errs[200] = "";
	struct ctx x;
	bool fired = true;

	if (!knobs)
		SKIP(return, "no /proc/thread-self/fail-nth (kernel without CONFIG_FAULT_INJECTION)");
	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	/* fail-nth belongs to the task that opens it: this case's child. */
	ffd = rcm_fault_open();
	ASSERT_LE(0, ffd)
		TH_LOG("open /proc/thread-self/fail-nth: %s", strerror(errno));
	for (round = 1; round <= MAX_ROUNDS && fired; round++) {
		memset(&x, 0, sizeof(x));
		x.d = -1;
		x.s = rcm_open_dev();
		x.c = rcm_open_dev();
		ASSERT_TRUE(x.s >= 0 && x.c >= 0)
			TH_LOG("open: %s", strerror(errno));
		fired = false;
		ret = one_round(st, round, &x, &fired, &err);
		/* Closed whatever happened: the next round reuses the port. */
		if (x.d >= 0)
			close(x.d);
		if (x.s >= 0)
			close(x.s);
		close(x.c);
		ASSERT_LE(0, ret)
			TH_LOG("%s round %d: %s", st->name, round, why);
		injected += fired;
		if (ret == 1 && !strstr(errs, strerror(err)) &&
		    strlen(errs) + strlen(strerror(err)) + 3 < sizeof(errs))
			snprintf(errs + strlen(errs), sizeof(errs) - strlen(errs),
				 "%s%s", errs[0] ? ", " : "", strerror(err));
		failed += ret == 1;
	}
	printf("# %s: %d fault points, %d calls failed (%s)\n", st->name,
	       injected, failed, errs[0] ? errs : "none");
	ASSERT_TRUE(!fired)
		TH_LOG("%s: still injecting after %d rounds", st->name,
		       MAX_ROUNDS);
	ASSERT_EQ(0, ret)
		TH_LOG("%s: the call without a fault failed", st->name);
	/* Every step allocates or copies: none injected is a broken knob. */
	ASSERT_LT(0, injected)
		TH_LOG("%s: no fault was injected", st->name);
}

#define STEP(_name, _cmd, _prep, _call, _after)				\
	TEST(_name)							\
	{								\
		static const struct step st = {				\
			#_name + 10, _cmd, _prep, _call, _after		\
		};							\
		walk(_metadata, &st);					\
	}

STEP(faults_in_open, 0, prep_nothing, call_open, after_open)
STEP(faults_in_create, RCM_CMD_CREATE_ID, prep_nothing, call_create, after_create)
STEP(faults_in_bind, RCM_CMD_BIND_ADDR, prep_id, call_bind, after_bind)
STEP(faults_in_resolve, RCM_CMD_RESOLVE_ADDR, prep_id, call_resolve, after_resolve)
STEP(faults_in_route, RCM_CMD_RESOLVE_ROUTE, prep_resolved, call_route, after_route)
STEP(faults_in_listen, RCM_CMD_LISTEN, prep_bound, call_listen, after_listen)
STEP(faults_in_connect, RCM_CMD_CONNECT, prep_routed, call_connect, after_connect)
STEP(faults_in_accept, RCM_CMD_ACCEPT, requested, call_accept, after_accept)
STEP(faults_in_establish, RCM_CMD_ESTABLISH, responded, call_establish,
	after_establish)
STEP(faults_in_read_event, 0, prep_event, call_read, after_read)
STEP(faults_in_migrate, RCM_CMD_MIGRATE_ID, prep_migrate, call_migrate, after_migrate)
STEP(faults_in_join_mcast, RCM_CMD_JOIN_MCAST, prep_ud, call_join, after_join)
STEP(faults_in_disconnect, RCM_CMD_DISCONNECT, connected, call_disconnect,
	after_disconnect)
STEP(faults_in_destroy_connected, RCM_CMD_DESTROY_ID, connected, call_destroy_conn,
	after_destroy)
STEP(faults_in_destroy_listener, RCM_CMD_DESTROY_ID, prep_unread_request,
	call_destroy_listener, after_destroy_listener)
STEP(faults_in_close_connected, 0, connected, call_close, after_close)

/*
 * The listen on iWARP, its slab allocations narrowed to the TCP socket
 * caches' (failslab's cache filter; the guest boots with
 * slub_debug=A,TCP,TCPv6, which marks those caches, as 6.1 no longer
 * lets sysfs do it): every other point of the TCP stack would take
 * hundreds of rounds. Last, as they set global knobs.
 */
#define FAILSLAB_FILTER "/sys/kernel/debug/failslab/cache-filter"
#define PAGE_MIN_ORDER "/sys/kernel/debug/fail_page_alloc/min-order"

static void walk_listen_iwarp(struct __test_metadata *_metadata,
			      const char *name, const char *addr,
			      const char *cache)
{
	const struct step st = {
		name, RCM_CMD_LISTEN, prep_bound_iwarp, call_listen,
		after_listen_iwarp
	};
	long order = rcm_read_long(PAGE_MIN_ORDER);
	char marked[96];

	iw_ip = getenv(addr);
	if (!iw_ip)
		SKIP(return, "no %s", addr);
	snprintf(marked, sizeof(marked), "/sys/kernel/slab/%s/failslab", cache);
	if (rcm_read_long(marked) != 1 || order < 0 ||
	    rcm_write_long(FAILSLAB_FILTER, 1))
		SKIP(return, "the %s cache is not marked for failslab (slub_debug=A,%s)",
		     cache, cache);
	/* No page allocation either: the slabs' own have fallbacks. */
	rcm_write_long(PAGE_MIN_ORDER, 64);
	walk(_metadata, &st);
	rcm_write_long(PAGE_MIN_ORDER, order);
	rcm_write_long(FAILSLAB_FILTER, 0);
}

TEST(faults_in_listen_iwarp)
{
	walk_listen_iwarp(_metadata, "listen_iwarp", "RCM_ADDR_SIW", "TCP");
}

TEST(faults_in_listen_iwarp6)
{
	walk_listen_iwarp(_metadata, "listen_iwarp6", "RCM_ADDR6_SIW",
			  "TCPv6");
}

int main(void)
{
	int fd;

	ip = getenv("RCM_ADDR_RXE");
	/* An earlier run that died in faults_in_listen_iwarp left it on. */
	rcm_write_long(FAILSLAB_FILTER, 0);
	fd = rcm_fault_open();
	if (fd >= 0) {
		knobs = !rcm_fault_setup();
		if (!knobs)
			printf("# cannot set the fault injection knobs in debugfs\n");
		close(fd);
	}
	return rcm_test_main();
}
