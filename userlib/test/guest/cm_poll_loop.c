// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_poll_loop: the event loop of the big servers (Ceph's RDMA
 * messenger, SPDK's nvmf target) on librdmacm.so.1 (rcm), in a guest
 * with a Soft-RoCE device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * One thread, two non-blocking channels (the clients' and the
 * listener's, which its request ids share) in one epoll set, level
 * triggered; each wake-up gets exactly one event from each ready
 * channel with rdma_get_cm_event(), acts on it, acks it, and waits
 * again. librdmacm's fd is readable exactly while an event is pending,
 * so this loop never leaves one behind. NCONN connections go through it
 * together, in phases that each start NCONN operations at once, so that
 * many events are pending at the same time:
 *
 * 1. rdma_resolve_addr() for every client: NCONN ADDR_RESOLVED;
 * 2. rdma_resolve_route(): NCONN ROUTE_RESOLVED;
 * 3. a QP and rdma_connect() for every client; the loop answers each
 *    CONNECT_REQUEST with a QP and rdma_accept(): NCONN ESTABLISHED on
 *    each side;
 * 4. rdma_disconnect() for every client; the loop answers each
 *    DISCONNECTED of a request id with rdma_disconnect(): NCONN
 *    DISCONNECTED on each side.
 *
 * A phase fails when the loop has waited QUIET_MS without a wake-up
 * while events are owed: then the program gets what the library still
 * holds without polling, and reports each such event as stranded. A
 * wake-up whose rdma_get_cm_event() finds nothing (EAGAIN) fails too: a
 * readable fd means an event. Each test also checks every event's
 * status and that no unexpected event came.
 *
 * The port must be free, also for the kernel's rdma_cm.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/tap.h"

#define LOOP_PORT	20600
#define NCONN		40	/* more than rcm's old 16-record reads */
#define QUIET_MS	20000
#define NTESTS		4

struct conn {
	struct rdma_cm_id *client;
	struct rdma_cm_id *server;	/* the request id */
};

/* The phase counters: events seen of each kind, on each side. */
struct counts {
	int addr, route, est_c, est_s, disc_c, disc_s, req;
};

struct loop {
	int epfd;
	struct rdma_event_channel *chc;	/* clients */
	struct rdma_event_channel *chs;	/* listener and request ids */
	struct rdma_cm_id *listener;
	struct sockaddr_in dst;
	struct conn conn[NCONN];
	struct counts n;
	int wakeups;
	int unexpected;			/* events of the wrong kind */
	int spurious;			/* wake-ups that found no event */
	bool ok;			/* no action failed */
};

static struct rdma_event_channel *channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int fl;

	if (!CHECK(ch != NULL))
		return NULL;
	fl = fcntl(ch->fd, F_GETFL);
	if (!CHECK(fl != -1 && fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) == 0)) {
		rdma_destroy_event_channel(ch);
		return NULL;
	}
	return ch;
}

static bool create_qp(struct rdma_cm_id *id)
{
	return tap_create_qp(id, IBV_QPT_RC, 1);
}

/* The conn a client id or a request id belongs to (its context). */
static struct conn *conn_of(struct rdma_cm_id *id)
{
	return id ? id->context : NULL;
}

static void unexpected(struct loop *l, struct rdma_cm_event *ev)
{
	printf("# unexpected %s (status %d)\n", rdma_event_str(ev->event),
	       ev->status);
	l->unexpected++;
}

/* A client's event. */
static void client_event(struct loop *l, struct rdma_cm_event *ev)
{
	if (ev->status) {
		unexpected(l, ev);
		return;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		l->n.addr++;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		l->n.route++;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		l->n.est_c++;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		l->n.disc_c++;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;		/* may come after DISCONNECTED, or not */
	default:
		unexpected(l, ev);
	}
}

/*
 * An event of the listener or a request id: answer requests at once, and
 * a peer's disconnect with our own, as the servers do.
 */
static void server_event(struct loop *l, struct rdma_cm_event *ev)
{
	struct conn *c = conn_of(ev->id);

	if (ev->status) {
		unexpected(l, ev);
		return;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		l->n.req++;
		/* The client's conn travels as private data. */
		if (!CHECK(ev->param.conn.private_data_len >= sizeof(c))) {
			l->ok = false;
			rdma_reject(ev->id, NULL, 0);
			break;
		}
		memcpy(&c, ev->param.conn.private_data, sizeof(c));
		c->server = ev->id;
		ev->id->context = c;
		if (!create_qp(ev->id) ||
		    !CHECK(rdma_accept(ev->id, NULL) == 0))
			l->ok = false;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		l->n.est_s++;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		l->n.disc_s++;
		if (!CHECK(rdma_disconnect(ev->id) == 0))
			l->ok = false;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		unexpected(l, ev);
	}
}

/*
 * Get the events the library would still hand out without the fd being
 * readable, and report them: stranded events.
 */
static int report_stranded(struct loop *l)
{
	struct rdma_event_channel *chs[2] = { l->chc, l->chs };
	struct rdma_cm_event *ev;
	int i, n = 0;

	for (i = 0; i < 2; i++) {
		while (!rdma_get_cm_event(chs[i], &ev)) {
			printf("# stranded on the %s channel: %s\n",
			       i ? "listener's" : "clients'",
			       rdma_event_str(ev->event));
			n++;
			if (i)
				server_event(l, ev);
			else
				client_event(l, ev);
			rdma_ack_cm_event(ev);
		}
	}
	return n;
}

/*
 * Run the loop until @done says the phase is complete: one
 * rdma_get_cm_event() per ready channel per wake-up. False if QUIET_MS
 * passed without a wake-up first.
 */
static bool run_until(struct loop *l, bool (*done)(const struct counts *n),
		      const char *phase)
{
	struct epoll_event evs[2];
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	int i, n;

	while (!done(&l->n)) {
		n = epoll_wait(l->epfd, evs, 2, QUIET_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (!CHECK(n >= 0))
			return false;
		if (n == 0) {
			printf("# %s: no wake-up for %d ms; %d events stranded\n",
			       phase, QUIET_MS, report_stranded(l));
			return false;
		}
		l->wakeups++;
		for (i = 0; i < n; i++) {
			ch = evs[i].data.ptr;
			if (rdma_get_cm_event(ch, &ev)) {
				if (CHECK(errno == EAGAIN))
					l->spurious++;
				continue;
			}
			if (ch == l->chs)
				server_event(l, ev);
			else
				client_event(l, ev);
			rdma_ack_cm_event(ev);
		}
	}
	return true;
}

static bool addr_done(const struct counts *n)
{
	return n->addr == NCONN;
}

static bool route_done(const struct counts *n)
{
	return n->route == NCONN;
}

static bool est_done(const struct counts *n)
{
	return n->est_c == NCONN && n->est_s == NCONN;
}

static bool disc_done(const struct counts *n)
{
	return n->disc_c == NCONN && n->disc_s == NCONN;
}

/* The checks every phase ends with. */
static bool phase_ok(struct loop *l, bool ran, const char *phase)
{
	bool ok = ran && l->ok;

	printf("# %s: %d wake-ups so far, %d spurious, %d unexpected\n",
	       phase, l->wakeups, l->spurious, l->unexpected);
	ok &= CHECK(l->spurious == 0);
	ok &= CHECK(l->unexpected == 0);
	return ok;
}

static bool add_fd(struct loop *l, struct rdma_event_channel *ch)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = ch };

	return CHECK(epoll_ctl(l->epfd, EPOLL_CTL_ADD, ch->fd, &e) == 0);
}

static bool setup(struct loop *l, const char *ip)
{
	int i;

	memset(l, 0, sizeof(*l));
	l->ok = true;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->chc = channel();
	l->chs = channel();
	if (!CHECK(l->epfd >= 0) || !l->chc || !l->chs ||
	    !add_fd(l, l->chc) || !add_fd(l, l->chs))
		return false;
	if (!CHECK(tap_parse_ipv4(ip, LOOP_PORT, &l->dst)) ||
	    !CHECK(rdma_create_id(l->chs, &l->listener, NULL,
				  RDMA_PS_TCP) == 0) ||
	    !CHECK(rdma_bind_addr(l->listener,
				  (struct sockaddr *)&l->dst) == 0) ||
	    !CHECK(rdma_listen(l->listener, NCONN) == 0))
		return false;
	for (i = 0; i < NCONN; i++)
		if (!CHECK(rdma_create_id(l->chc, &l->conn[i].client,
					  &l->conn[i], RDMA_PS_TCP) == 0))
			return false;
	return true;
}

static bool phase_addr(struct loop *l)
{
	int i;

	for (i = 0; i < NCONN; i++)
		if (!CHECK(rdma_resolve_addr(l->conn[i].client, NULL,
					     (struct sockaddr *)&l->dst,
					     5000) == 0))
			return false;
	return phase_ok(l, run_until(l, addr_done, "addr"), "addr");
}

static bool phase_route(struct loop *l)
{
	int i;

	for (i = 0; i < NCONN; i++)
		if (!CHECK(rdma_resolve_route(l->conn[i].client, 5000) == 0))
			return false;
	return phase_ok(l, run_until(l, route_done, "route"), "route");
}

static bool phase_connect(struct loop *l)
{
	struct rdma_conn_param param;
	struct conn *c;
	int i;

	for (i = 0; i < NCONN; i++) {
		c = &l->conn[i];
		memset(&param, 0, sizeof(param));
		param.private_data = &c;
		param.private_data_len = sizeof(c);
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (!create_qp(c->client) ||
		    !CHECK(rdma_connect(c->client, &param) == 0))
			return false;
	}
	return phase_ok(l, run_until(l, est_done, "connect"), "connect") &&
	       CHECK(l->n.req == NCONN);
}

static bool phase_disconnect(struct loop *l)
{
	int i;

	for (i = 0; i < NCONN; i++)
		if (!CHECK(rdma_disconnect(l->conn[i].client) == 0))
			return false;
	return phase_ok(l, run_until(l, disc_done, "disconnect"),
			"disconnect");
}

static void teardown(struct loop *l)
{
	int i;

	for (i = 0; i < NCONN; i++) {
		if (l->conn[i].server) {
			if (l->conn[i].server->qp)
				rdma_destroy_qp(l->conn[i].server);
			rdma_destroy_id(l->conn[i].server);
		}
		if (l->conn[i].client) {
			if (l->conn[i].client->qp)
				rdma_destroy_qp(l->conn[i].client);
			rdma_destroy_id(l->conn[i].client);
		}
	}
	if (l->listener)
		rdma_destroy_id(l->listener);
	if (l->chc)
		rdma_destroy_event_channel(l->chc);
	if (l->chs)
		rdma_destroy_event_channel(l->chs);
	if (l->epfd >= 0)
		close(l->epfd);
}

int main(void)
{
	const char *rxe = tap_rxe_start(NTESTS, 110);
	static struct loop l;
	bool ok;

	if (!rxe)
		return KSFT_SKIP;

	ok = setup(&l, rxe);
	ok = ok && phase_addr(&l);
	tap_result(1, "addr_resolved_x40_one_get_per_wakeup", ok);
	ok = ok && phase_route(&l);
	tap_result(2, "route_resolved_x40_one_get_per_wakeup", ok);
	ok = ok && phase_connect(&l);
	tap_result(3, "connect_accept_x40_one_get_per_wakeup", ok);
	ok = ok && phase_disconnect(&l);
	tap_result(4, "disconnect_x40_one_get_per_wakeup", ok);
	teardown(&l);
	return tap_exit_status();
}
