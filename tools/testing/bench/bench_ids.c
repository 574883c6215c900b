// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_ids: kernel memory per idle connection id, through the plain
 * librdmacm API, so that it measures whichever library runs it (rcm's
 * through LD_LIBRARY_PATH, or rdma-core's on the in-tree rdma_ucm).
 *
 * Usage: bench_ids COUNT ADDRESS
 *   Creates COUNT RDMA_PS_TCP ids on one event channel, binds each to
 *   ADDRESS (port 0: an ephemeral port, which attaches the id to the RDMA
 *   device), and prints the growth of the kernel's slab memory
 *   (/proc/meminfo Slab) per id, then destroys them all.
 *   Prints "ids COUNT slab_kb BEFORE AFTER bytes_per_id N".
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define BENCH_NAME "bench_ids"
#include "bench.h"

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_event_channel *ch;
	struct rdma_cm_id **ids;
	long before, after;
	int i, n;

	if (argc != 3 || (n = atoi(argv[1])) <= 0 ||
	    inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: %s COUNT IPV4-ADDRESS\n", argv[0]);
		return 2;
	}
	ids = calloc(n, sizeof(*ids));
	ch = rdma_create_event_channel();
	if (!ids || !ch) {
		perror("set-up");
		return 2;
	}
	sync();
	sleep(1);
	before = slab_kb();
	for (i = 0; i < n; i++) {
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP) ||
		    rdma_bind_addr(ids[i], (struct sockaddr *)&sin)) {
			perror("create/bind");
			return 1;
		}
	}
	sleep(1);
	after = slab_kb();
	printf("ids %d slab_kb %ld %ld bytes_per_id %ld\n", n, before, after,
	       (after - before) * 1024 / n);
	for (i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
	rdma_destroy_event_channel(ch);
	free(ids);
	return 0;
}
