// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_poll_loop: the event loop of the big servers (Ceph's RDMA
 * messenger, SPDK's nvmf target) on librdmacm.so.1, in a guest with a
 * Soft-RoCE device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 *   cm_poll_loop [-s | -c] [-n CONNS] [-r ROUNDS] [-p PORT] [-t SECONDS]
 *
 *   (neither)  both sides in this process (the default: 40 connections,
 *              one round, a port the listener's bind chose, 110 s)
 *   -s         only the server: listen (on PORT, or one the bind chose),
 *              print "# listening on port N", serve CONNS x ROUNDS
 *              connections, exit
 *   -c         only the clients: CONNS connections, ROUNDS times, to a
 *              server started with -s, on its port (-p, needed)
 *
 * The two halves are separate processes so that each can run on either
 * librdmacm - rcm's or the in-tree one (tools/testing/selftests/rcm/
 * apps.sh runs all four pairings).
 *
 * Each side is one thread with its channels non-blocking in one epoll
 * set, level triggered; each wake-up gets exactly one event from each
 * ready channel with rdma_get_cm_event(), acts on it, acks it, and
 * waits again. librdmacm's fd is readable exactly while an event is
 * pending, so this loop never leaves one behind.
 *
 * The clients go through each round in phases that each start CONNS
 * operations at once, so that many events are pending at the same time:
 *
 * 1. rdma_resolve_addr() for every client: CONNS ADDR_RESOLVED;
 * 2. rdma_resolve_route(): CONNS ROUTE_RESOLVED;
 * 3. a QP and rdma_connect() for every client, with private data that
 *    the server checks: CONNS ESTABLISHED;
 * 4. rdma_disconnect() for every client: CONNS DISCONNECTED; then the
 *    round's ids are destroyed.
 *
 * The server answers each CONNECT_REQUEST with a QP and rdma_accept(),
 * and each DISCONNECTED of a request id with rdma_disconnect(), then
 * destroys that id at once (after the ack), as the servers do.
 *
 * A phase fails when the loop has waited QUIET_MS without a wake-up
 * while events are owed: then the program gets what the library still
 * holds without polling, and reports each such event as stranded. A
 * wake-up whose rdma_get_cm_event() finds nothing (EAGAIN) fails too: a
 * readable fd means an event. Where nothing can be owed - after each
 * of phases 1-3, at the end of each round and at the end - the fd must
 * not be readable and rdma_get_cm_event() must find nothing: an event
 * it still finds was stranded. Each test also checks every event's
 * status and that no unexpected event came.
 *
 * Exit: 0 all passed, 1 a test failed, 2 bad arguments, 4 nothing to run
 * (RCM_ADDR_RXE not set).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "common/guest.h"
#include "kselftest.h"

#define NCONN		40	/* more than rcm's old 16-record reads */
#define MAX_CONN	256
#define MAX_ROUNDS	16
#define QUIET_MS	20000
#define LOOP_MAGIC	"rcm-loop"

/* What each client sends in its connect request. */
struct hello {
	char magic[8];
	uint32_t round;
	uint32_t index;
};

/*
 * Events seen of each kind, on each side (a round's, or the server's),
 * and the server's connections that ended without ESTABLISHED: ib_cm
 * reports the DREQ of a client that disconnects at once as DISCONNECTED
 * when it overtakes the client's RTU (the CM's receive work items run
 * on any CPU), the in-tree CM as much as rcm.
 */
struct counts {
	int addr, route, est_c, est_s, disc_c, disc_s, req, no_rtu;
};

/* The context of a request id once it was established. */
static char established;

struct loop {
	bool serve, dial;	/* which sides run here */
	int nconn, rounds, round;
	int epfd;
	struct rdma_event_channel *chc;	/* clients */
	struct rdma_event_channel *chs;	/* listener and request ids */
	struct rdma_cm_id *listener;
	struct sockaddr_in dst;
	struct rdma_cm_id *client[MAX_CONN];
	int live_reqs;			/* request ids not destroyed yet */
	struct counts n;
	int wakeups;
	int unexpected;			/* events of the wrong kind */
	int spurious;			/* wake-ups that found no event */
	int stranded;			/* events found without a wake-up */
	bool ok;			/* no action failed */
};

static bool create_qp(struct rdma_cm_id *id)
{
	return guest_create_qp(id, IBV_QPT_RC, 1);
}

static void note_unexpected(struct loop *l, struct rdma_cm_event *ev)
{
	printf("# an unexpected %s (status %d)\n", rdma_event_str(ev->event),
	       ev->status);
	l->unexpected++;
}

/* A client's event. */
static void client_event(struct loop *l, struct rdma_cm_event *ev)
{
	if (ev->status) {
		note_unexpected(l, ev);
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
		note_unexpected(l, ev);
	}
}

/*
 * Accept a request whose private data is a client's hello; false if it
 * was rejected instead (its id is then to be destroyed).
 */
static bool accept_request(struct loop *l, struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *p = &ev->param.conn;

	l->n.req++;
	if (!CHECK(p->private_data_len >= sizeof(struct hello) &&
		   !memcmp(p->private_data, LOOP_MAGIC, 8))) {
		l->ok = false;
		rdma_reject(ev->id, NULL, 0);
		return false;
	}
	l->live_reqs++;
	if (!create_qp(ev->id) || !CHECK(rdma_accept(ev->id, NULL) == 0))
		l->ok = false;
	return true;
}

/*
 * An event of the listener or a request id: answer requests at once, and
 * a peer's disconnect with our own, as the servers do. Returns the id to
 * destroy once the event is acked: a request id whose connection is over.
 */
static struct rdma_cm_id *server_event(struct loop *l,
				       struct rdma_cm_event *ev)
{
	if (ev->status) {
		note_unexpected(l, ev);
		return NULL;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (!accept_request(l, ev))
			return ev->id;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		l->n.est_s++;
		ev->id->context = &established;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		l->n.disc_s++;
		if (ev->id->context != &established)
			l->n.no_rtu++;
		if (!CHECK(rdma_disconnect(ev->id) == 0))
			l->ok = false;
		l->live_reqs--;
		return ev->id;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		note_unexpected(l, ev);
	}
	return NULL;
}

/* Handle and ack one event of @ch. */
static void dispatch(struct loop *l, struct rdma_event_channel *ch,
		     struct rdma_cm_event *ev)
{
	struct rdma_cm_id *done = NULL;

	if (ch == l->chs)
		done = server_event(l, ev);
	else
		client_event(l, ev);
	rdma_ack_cm_event(ev);
	if (done)
		guest_destroy_id(done);
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
		if (!chs[i])
			continue;
		while (!rdma_get_cm_event(chs[i], &ev)) {
			printf("# stranded on the %s channel: %s\n",
			       i ? "listener's" : "clients'",
			       rdma_event_str(ev->event));
			n++;
			dispatch(l, chs[i], ev);
		}
	}
	l->stranded += n;
	return n;
}

/*
 * Run the loop until @done says the phase is complete: one
 * rdma_get_cm_event() per ready channel per wake-up. False if QUIET_MS
 * passed without a wake-up first.
 */
static bool run_until(struct loop *l, bool (*done)(const struct loop *l),
		      const char *phase)
{
	struct epoll_event evs[2];
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	int i, n;

	while (!done(l)) {
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
			dispatch(l, ch, ev);
		}
	}
	return true;
}

/*
 * Where nothing is owed, nothing may be pending: the fd is not readable
 * and rdma_get_cm_event() finds no event. An event it finds anyway was
 * either stranded (the fd was not readable) or unexpected.
 */
static bool none_pending(struct loop *l, struct rdma_event_channel *ch,
			 const char *where)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	bool readable;
	int got = 0;

	readable = poll(&p, 1, 0) > 0;
	while (!rdma_get_cm_event(ch, &ev)) {
		printf("# %s: %s %s\n", where,
		       readable ? "unexpected" : "stranded",
		       rdma_event_str(ev->event));
		got++;
		dispatch(l, ch, ev);
	}
	if (!CHECK(errno == EAGAIN))
		return false;
	if (readable && !got)
		printf("# %s: the fd is readable with no event\n", where);
	if (!readable)
		l->stranded += got;
	return !readable && !got;
}

/* none_pending() on each channel of this side. */
static bool all_none_pending(struct loop *l, const char *where)
{
	bool ok = true;

	if (l->chc)
		ok &= none_pending(l, l->chc, where);
	if (l->chs)
		ok &= none_pending(l, l->chs, where);
	return ok;
}

static bool addr_done(const struct loop *l)
{
	return l->n.addr == l->nconn;
}

static bool route_done(const struct loop *l)
{
	return l->n.route == l->nconn;
}

static bool est_done(const struct loop *l)
{
	return (!l->dial || l->n.est_c == l->nconn) &&
	       (!l->serve || l->n.est_s == l->nconn);
}

static bool disc_done(const struct loop *l)
{
	return (!l->dial || l->n.disc_c == l->nconn) &&
	       (!l->serve || l->n.disc_s == l->nconn);
}

/* The server alone: every connection of every round is over. */
static bool served(const struct loop *l)
{
	return l->n.disc_s == l->nconn * l->rounds;
}

/* The checks every phase ends with. */
static bool phase_ok(struct loop *l, bool ran, const char *phase)
{
	bool ok = ran && l->ok;

	printf("# round %d, %s: %d wake-ups so far, %d spurious, %d unexpected, %d stranded\n",
	       l->round, phase, l->wakeups, l->spurious, l->unexpected,
	       l->stranded);
	ok &= CHECK(l->spurious == 0);
	ok &= CHECK(l->unexpected == 0);
	ok &= CHECK(l->stranded == 0);
	return ok;
}

static bool add_fd(struct loop *l, struct rdma_event_channel *ch)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = ch };

	return CHECK(epoll_ctl(l->epfd, EPOLL_CTL_ADD, ch->fd, &e) == 0);
}

static bool setup(struct loop *l, const char *ip, int port)
{
	l->ok = true;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!CHECK(l->epfd >= 0) ||
	    !CHECK(guest_parse_ipv4(ip, port, &l->dst)))
		return false;
	if (l->dial) {
		l->chc = guest_channel();
		if (!l->chc || !add_fd(l, l->chc))
			return false;
	}
	if (!l->serve)
		return true;
	l->chs = guest_channel();
	if (!l->chs || !add_fd(l, l->chs) ||
	    !CHECK(rdma_create_id(l->chs, &l->listener, NULL,
				  RDMA_PS_TCP) == 0) ||
	    !CHECK(rdma_bind_addr(l->listener,
				  (struct sockaddr *)&l->dst) == 0) ||
	    !CHECK(rdma_listen(l->listener, l->nconn) == 0))
		return false;
	/* Port 0: the one the bind chose, for this process's clients. */
	l->dst.sin_port = rdma_get_src_port(l->listener);
	printf("# listening on port %hu\n", ntohs(l->dst.sin_port));
	return true;
}

static bool phase_addr(struct loop *l)
{
	int i;

	for (i = 0; i < l->nconn; i++)
		if (!CHECK(rdma_create_id(l->chc, &l->client[i], NULL,
					  RDMA_PS_TCP) == 0) ||
		    !CHECK(rdma_resolve_addr(l->client[i], NULL,
					     (struct sockaddr *)&l->dst,
					     5000) == 0))
			return false;
	return phase_ok(l, run_until(l, addr_done, "addr") &&
			all_none_pending(l, "after addr"), "addr");
}

static bool phase_route(struct loop *l)
{
	int i;

	for (i = 0; i < l->nconn; i++)
		if (!CHECK(rdma_resolve_route(l->client[i], 5000) == 0))
			return false;
	return phase_ok(l, run_until(l, route_done, "route") &&
			all_none_pending(l, "after route"), "route");
}

static bool phase_connect(struct loop *l)
{
	struct rdma_conn_param param;
	struct hello hello;
	int i;

	for (i = 0; i < l->nconn; i++) {
		memcpy(hello.magic, LOOP_MAGIC, sizeof(hello.magic));
		hello.round = l->round;
		hello.index = i;
		memset(&param, 0, sizeof(param));
		param.private_data = &hello;
		param.private_data_len = sizeof(hello);
		param.responder_resources = 1;
		param.initiator_depth = 1;
		param.retry_count = 7;
		param.rnr_retry_count = 7;
		if (!create_qp(l->client[i]) ||
		    !CHECK(rdma_connect(l->client[i], &param) == 0))
			return false;
	}
	return phase_ok(l, run_until(l, est_done, "connect") &&
			all_none_pending(l, "after connect"), "connect") &&
	       (!l->serve || CHECK(l->n.req == l->nconn));
}

/* Disconnect every client, then destroy the round's ids. */
static bool phase_disconnect(struct loop *l)
{
	bool ran;
	int i;

	for (i = 0; i < l->nconn; i++)
		if (!CHECK(rdma_disconnect(l->client[i]) == 0))
			return false;
	ran = run_until(l, disc_done, "disconnect");
	for (i = 0; i < l->nconn; i++) {
		guest_destroy_id(l->client[i]);
		l->client[i] = NULL;
	}
	ran = ran && CHECK(l->live_reqs == 0);
	return phase_ok(l, ran && all_none_pending(l, "after the round"),
			"disconnect");
}

static void teardown(struct loop *l)
{
	int i;

	for (i = 0; i < l->nconn; i++)
		if (l->client[i])
			guest_destroy_id(l->client[i]);
	if (l->listener)
		rdma_destroy_id(l->listener);
	if (l->chc)
		rdma_destroy_event_channel(l->chc);
	if (l->chs)
		rdma_destroy_event_channel(l->chs);
	if (l->epfd >= 0)
		close(l->epfd);
}

static const char *const phase_names[4] = {
	"addr_resolved", "route_resolved", "connect", "disconnect"
};

/*
 * The clients' rounds (and, in one process, the server's): a phase
 * passes when every round got through it.
 */
static void run_clients(struct loop *l, bool ok)
{
	char name[96];
	int r, passed = 0;

	for (r = 0; r < l->rounds && ok; r++) {
		l->round = r;
		memset(&l->n, 0, sizeof(l->n));
		passed = 0;
		if (!phase_addr(l))
			break;
		passed = 1;
		if (!phase_route(l))
			break;
		passed = 2;
		if (!phase_connect(l))
			break;
		passed = 3;
		if (!phase_disconnect(l))
			break;
		passed = 4;
	}
	for (r = 0; r < 4; r++) {
		snprintf(name, sizeof(name), "%s%s_%dx%d_one_get_per_wakeup",
			 phase_names[r], r == 2 && l->serve ? "_accept" : "",
			 l->nconn, l->rounds);
		ksft_test_result(ok && passed > r, "%s\n", name);
	}
}

/* The server alone: serve every round's connections, then check. */
static void run_server(struct loop *l, bool ok)
{
	int total = l->nconn * l->rounds;
	char name[96];

	ok = ok && phase_ok(l, run_until(l, served, "serve"), "serve");
	snprintf(name, sizeof(name), "accept_%dx%d_one_get_per_wakeup",
		 l->nconn, l->rounds);
	if (l->n.no_rtu)
		printf("# %d of %d connections ended before their RTU came\n",
		       l->n.no_rtu, total);
	/* Every one established or overtaken, and no more than 1 in 8 so. */
	ksft_test_result(ok && CHECK(l->n.req == total) &&
			 CHECK(l->n.est_s + l->n.no_rtu == total) &&
			 CHECK(l->n.no_rtu <= total / 8), "%s\n", name);
	snprintf(name, sizeof(name), "disconnect_%dx%d_one_get_per_wakeup",
		 l->nconn, l->rounds);
	ksft_test_result(ok && CHECK(l->live_reqs == 0), "%s\n", name);
}

static int usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-s | -c] [-n CONNS] [-r ROUNDS] [-p PORT] [-t SECONDS]\n",
		prog);
	return 2;
}

int main(int argc, char **argv)
{
	const char *rxe = getenv("RCM_ADDR_RXE");
	static struct loop l = { .serve = true, .dial = true, .epfd = -1,
				 .nconn = NCONN, .rounds = 1 };
	int port = 0, deadline = 110, opt;
	bool ok;

	while ((opt = getopt(argc, argv, "scn:r:p:t:")) != -1) {
		switch (opt) {
		case 's':
			l.dial = false;
			break;
		case 'c':
			l.serve = false;
			break;
		case 'n':
			l.nconn = atoi(optarg);
			break;
		case 'r':
			l.rounds = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 't':
			deadline = atoi(optarg);
			break;
		default:
			return usage(argv[0]);
		}
	}
	if ((!l.serve && !l.dial) || (!l.serve && !port) ||
	    l.nconn < 1 || l.nconn > MAX_CONN ||
	    l.rounds < 1 || l.rounds > MAX_ROUNDS || deadline < 1 ||
	    optind != argc)
		return usage(argv[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	if (!rxe || !*rxe)
		return ksft_exit_skip("RCM_ADDR_RXE is not set\n");
	ksft_set_plan(l.dial ? 5 : 3);
	guest_deadline(deadline);

	ok = setup(&l, rxe, port);
	if (l.dial)
		run_clients(&l, ok);
	else
		run_server(&l, ok);
	/* Every id but the listener is gone: nothing may be pending. */
	ksft_test_result(ok && all_none_pending(&l, "at the end") &&
			 CHECK(l.stranded == 0) && CHECK(l.spurious == 0),
			 "fd_readable_exactly_while_an_event_is_pending\n");
	teardown(&l);
	ksft_finished();
}
