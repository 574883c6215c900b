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
 *   Runs ROUNDS rounds or SECONDS seconds, whichever ends first, and
 *   prints "N rounds". Exits 0, or 1 (with why) when a round could not
 *   be set up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "intree_common.h"

#define MAX_CLIENTS 64

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

/* A client of @ch connecting to @dst (no QP), its events to @log; 0 or -1. */
static int client(struct rdma_event_channel *ch, struct sockaddr *dst,
		  struct rdma_cm_id **id, FILE *log)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .qp_num = 0x1234,
	};

	if (rdma_create_id(ch, id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(*id, NULL, dst, 10000) ||
	    intree_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, "client", log) ||
	    rdma_resolve_route(*id, 10000) ||
	    intree_expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, "client", log))
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
	/* The events are many and expected: not logged. */
	FILE *quiet = fopen("/dev/null", "w");

	if (argc != 5 || !quiet) {
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
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < rounds; round++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= secs)
			break;
		for (i = 0; i < n; i++)
			if (client(c, rdma_get_local_addr(lid), &cids[i],
				   quiet)) {
				printf("round %d client %d: %s\n", round, i,
				       strerror(errno));
				return 1;
			}
		for (i = 0; i < n; i++) {
			ev = intree_next_event(s, "server", quiet);
			if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
				printf("round %d: %s\n", round,
				       rdma_event_str(ev->event));
				return 1;
			}
			rids[i] = ev->id;
			rdma_ack_cm_event(ev);
		}
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
		close(go[0]);
		close(go[1]);
	}
	printf("%d rounds\n", round);
	rdma_destroy_id(lid);
	rdma_freeaddrinfo(res);
	return 0;
}
