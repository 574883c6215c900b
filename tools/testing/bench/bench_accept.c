// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_accept: one listener accepting from several client processes at
 * once, through the plain librdmacm API, so that it measures whichever
 * library runs it (rcm's through LD_LIBRARY_PATH, or rdma-core's on the
 * in-tree rdma_ucm). No QPs: the CM's work alone (connect and accept
 * name a QP number; the client calls rdma_establish(), which sends the
 * RTU).
 *
 * Usage: bench_accept COUNT CLIENTS ADDRESS PORT (0: a free one)
 *   The listener (this process) forks CLIENTS processes, each of which
 *   resolves the address and route of COUNT / CLIENTS ids; once all are
 *   routed, they connect at the same moment, and the listener accepts
 *   every request as it comes. Prints
 *   "accept COUNT CLIENTS us_per_conn US slab_bytes_per_conn BYTES":
 *   the time from the start of the connects to the listener's last
 *   ESTABLISHED, per connection, and the growth of the kernel's slab
 *   memory (/proc/meminfo Slab, both sides) from before the first id to
 *   all connections established, per connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define BENCH_NAME "bench_accept"
#include "bench.h"

/*
 * Client @k: @n ids routed to @dst; one byte on @ready once they are,
 * the connects once @go closes (all clients at once); exits 0 when all
 * are established, 1 on anything unexpected. The ids stay until @hold
 * closes.
 * Each connection names a QP number of its own: ib_cm refuses a second
 * connection from the same QP of the same port (REJ "stale connection").
 */
static void client(int k, int n, struct sockaddr_in *dst, int ready, int go,
		   int hold)
{
	struct rdma_conn_param p = BENCH_CONNECT_PARAM;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id **ids = calloc(n, sizeof(*ids)), *id;
	int i, routed = 0, up = 0, status;
	char c;

	if (!ch || !ids)
		die("client set-up");
	for (i = 0; i < n; i++)
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP) ||
		    rdma_resolve_addr(ids[i], NULL, (struct sockaddr *)dst,
				      30000))
			die("create/resolve");
	while (routed < n) {
		switch (next_event(ch, &id, &status)) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (rdma_resolve_route(id, 30000))
				die("resolve_route");
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			routed++;
			break;
		default:
			errno = -status;
			die("resolving");
		}
	}
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 0)
		die("start");
	for (i = 0; i < n; i++) {
		p.qp_num = 0x10000 + k * n + i;
		if (rdma_connect(ids[i], &p))
			die("rdma_connect");
	}
	while (up < n) {
		switch (next_event(ch, &id, &status)) {
		case RDMA_CM_EVENT_CONNECT_RESPONSE:
			if (rdma_establish(id))
				die("rdma_establish");
			up++;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			up++;
			break;
		default:
			errno = -status;
			die("connecting");
		}
	}
	/* Stay connected until the listener has counted and measured. */
	while (read(hold, &c, 1) > 0)
		;
	for (i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
	rdma_destroy_event_channel(ch);
	exit(0);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_conn_param p = BENCH_ACCEPT_PARAM;
	struct rdma_cm_id *listener, *id, **reqs;
	int n, nclients, i, st, up = 0, nreq = 0, status, type, bad = 0;
	int ready[2], go[2], hold[2];
	struct rdma_event_channel *ch;
	long before, after;
	double t0, t1;
	pid_t *pids;
	char c;

	if (argc != 5 || (n = atoi(argv[1])) <= 0 ||
	    (nclients = atoi(argv[2])) <= 0 || n % nclients ||
	    inet_pton(AF_INET, argv[3], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: %s COUNT CLIENTS IPV4-ADDRESS PORT (COUNT a multiple of CLIENTS)\n",
			argv[0]);
		return 2;
	}
	sin.sin_port = htons(atoi(argv[4]));
	reqs = calloc(n, sizeof(*reqs));
	pids = calloc(nclients, sizeof(*pids));
	if (!reqs || !pids || pipe(ready) || pipe(go) || pipe(hold))
		die("set-up");
	sync();
	sleep(1);
	before = slab_kb();
	listener = bench_listener(&ch, &sin);
	for (i = 0; i < nclients; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			close(ready[0]);
			close(go[1]);
			close(hold[1]);
			rdma_destroy_event_channel(ch);
			client(i, n / nclients, &sin, ready[1], go[0], hold[0]);
		}
	}
	close(ready[1]);
	close(go[0]);
	close(hold[0]);
	for (i = 0; i < nclients; i++)
		if (read(ready[0], &c, 1) != 1)
			die("a client failed before connecting");
	t0 = now_us();
	close(go[1]);
	while (up < n && !bad) {
		type = next_event(ch, &id, &status);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			p.qp_num = 0x800000 + nreq;
			reqs[nreq++] = id;
			if (rdma_accept(id, &p))
				die("rdma_accept");
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			up++;
			break;
		default:
			fprintf(stderr, "bench_accept: event %s status %d\n",
				rdma_event_str(type), status);
			bad = 1;
		}
	}
	t1 = now_us();
	sleep(1);
	after = slab_kb();
	close(hold[1]);		/* the clients tear down and exit */
	for (i = 0; i < nclients; i++)
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad = 1;
	for (i = 0; i < nreq; i++)
		rdma_destroy_id(reqs[i]);
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(ch);
	if (bad)
		return 1;
	printf("accept %d %d us_per_conn %.1f slab_bytes_per_conn %ld\n", n,
	       nclients, (t1 - t0) / n, (after - before) * 1024 / n);
	return 0;
}
