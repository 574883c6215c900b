// SPDX-License-Identifier: GPL-2.0-only
/*
 * intree_rejrace: the in-tree control of hostile's
 * rej_timeouts_race_request_teardown, on the in-tree stack (rdma-core's
 * librdmacm over rdma_ucm.ko and rdma_cm.ko): rounds of CLIENTS clients
 * that connect to a listener, whose requests stay pending, then one
 * thread destroys the clients (ib_cm sends a REJ(TIMEOUT) for each)
 * while another destroys the requests. What it checks is the kernel's
 * log: ib_cm's use-after-free, if the race hits, is the same here.
 *
 * Usage: intree_rejrace ADDRESS ROUNDS CLIENTS SECONDS
 *   Runs ROUNDS rounds of CLIENTS (at most 4) or SECONDS seconds,
 *   whichever ends first, and prints "N rounds". Exits 0, 1 (with why)
 *   when a round could not be set up, or 4 (skipped) when ADDRESS is
 *   empty (a guest without Soft-RoCE).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "intree_common.h"

/* intree_listen()'s backlog: every request of a round stays unread. */
#define MAX_CLIENTS 4

struct destroyer {
	struct rdma_cm_id **ids;
	int n, go;
};

static void *destroy_at_go(void *arg)
{
	struct destroyer *d = arg;
	char c;
	int i;

	if (read(d->go, &c, 1) != 1)
		return NULL;
	for (i = 0; i < d->n; i++)
		rdma_destroy_id(d->ids[i]);
	return NULL;
}

/* The next event of @ch must be @type: 0, or -1 after printing what came. */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;
	int ret = 0;

	if (rdma_get_cm_event(ch, &ev))
		return -1;
	if (ev->event != type) {
		printf("%s status %d where %s was due\n",
		       rdma_event_str(ev->event), ev->status,
		       rdma_event_str(type));
		ret = -1;
	}
	rdma_ack_cm_event(ev);
	return ret;
}

/*
 * Whether @s has an event within 30 s; an event of @c (a client's,
 * none due) meanwhile is printed and ends the wait.
 */
static int ready(struct rdma_event_channel *s, struct rdma_event_channel *c)
{
	struct pollfd p[2] = { { .fd = s->fd, .events = POLLIN },
			       { .fd = c->fd, .events = POLLIN } };
	struct rdma_cm_event *ev;

	if (poll(p, 2, 30000) <= 0)
		return 0;
	if (p[1].revents && !rdma_get_cm_event(c, &ev)) {
		printf("client: %s status %d\n", rdma_event_str(ev->event),
		       ev->status);
		rdma_ack_cm_event(ev);
		return 0;
	}
	return p[0].revents != 0;
}

/*
 * A client of @ch connecting to @dst with no QP, QP number @qpn (ib_cm
 * refuses a second pending REQ of one QP as stale); 0 or -1.
 */
static int client(struct rdma_event_channel *ch, struct sockaddr *dst,
		  unsigned int qpn, struct rdma_cm_id **id)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .qp_num = qpn,
	};

	if (rdma_create_id(ch, id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(*id, NULL, dst, 10000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(*id, 10000) ||
	    expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return -1;
	return rdma_connect(*id, &param);
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *lid, *cids[MAX_CLIENTS], *rids[MAX_CLIENTS];
	struct rdma_event_channel *s, *c;
	struct rdma_cm_event *ev;
	struct rdma_addrinfo *res;
	struct destroyer d;
	struct timespec t0, t;
	int rounds, n, secs, round, i, go[2];
	pthread_t th;

	if (argc == 5 && !*argv[1]) {
		printf("no Soft-RoCE device: skipped\n");
		return 4;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: %s ADDRESS ROUNDS CLIENTS SECONDS\n",
			argv[0]);
		return 2;
	}
	rounds = atoi(argv[2]);
	n = atoi(argv[3]);
	secs = atoi(argv[4]);
	if (n < 1 || n > MAX_CLIENTS)
		return 2;
	s = rdma_create_event_channel();
	c = rdma_create_event_channel();
	if (!s || !c || intree_listen(s, argv[1], "0", RDMA_PS_TCP, &lid, &res))
		return 1;
	/* What a round that hangs got to is never lost. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < rounds; round++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= secs)
			break;
		for (i = 0; i < n; i++)
			if (client(c, rdma_get_local_addr(lid),
				   0x100 + (round * n + i) % 0xffff00, &cids[i])) {
				printf("round %d client %d: %s\n", round, i,
				       strerror(errno));
				return 1;
			}
		if (!round)
			printf("round 0: %d clients connecting\n", n);
		for (i = 0; i < n; i++) {
			if (!ready(s, c)) {
				printf("round %d: request %d never came\n",
				       round, i);
				return 1;
			}
			if (rdma_get_cm_event(s, &ev))
				return 1;
			if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
				printf("round %d: %s\n", round,
				       rdma_event_str(ev->event));
				return 1;
			}
			rids[i] = ev->id;
			rdma_ack_cm_event(ev);
		}
		if (!round)
			printf("round 0: %d requests\n", n);
		if (pipe(go))
			return 1;
		d = (struct destroyer){ .ids = rids, .n = n, .go = go[0] };
		if (pthread_create(&th, NULL, destroy_at_go, &d))
			return 1;
		if (write(go[1], "x", 1) != 1)
			return 1;
		for (i = 0; i < n; i++)
			rdma_destroy_id(cids[i]);
		pthread_join(th, NULL);
		if (!round)
			printf("round 0: destroyed\n");
		close(go[0]);
		close(go[1]);
	}
	printf("%d rounds\n", round);
	rdma_destroy_id(lid);
	rdma_freeaddrinfo(res);
	return 0;
}
