/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the bench programs share (bench_ids.c, bench_accept.c,
 * bench_scale.c).
 */
#ifndef RCM_BENCH_H
#define RCM_BENCH_H

/* The including program defines BENCH_NAME, its name in messages. */
#ifndef BENCH_NAME
#define BENCH_NAME "bench"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>

/* CLOCK_MONOTONIC in microseconds. */
static inline double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Give up: what failed, with errno, under the program's name. */
static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, what, strerror(errno));
	exit(1);
}

/*
 * The bench programs' connection parameters: depths of 1 and the retry
 * counts' 3-bit maximum, 7, for a connect; the same depths and the RNR
 * retry count for an accept. For struct rdma_conn_param p = ...;
 */
#define BENCH_CONNECT_PARAM						\
	{								\
		.responder_resources = 1, .initiator_depth = 1,		\
		.retry_count = 7, .rnr_retry_count = 7,			\
	}
#define BENCH_ACCEPT_PARAM						\
	{								\
		.responder_resources = 1, .initiator_depth = 1,		\
		.rnr_retry_count = 7,					\
	}

/*
 * A TCP listener (backlog 1024) on @sin, on a new channel in *@ch; port 0
 * in @sin draws a free one, which @sin then holds (the id's query).
 */
static inline struct rdma_cm_id *bench_listener(struct rdma_event_channel **ch,
						struct sockaddr_in *sin)
{
	struct rdma_cm_id *l;

	*ch = rdma_create_event_channel();
	if (!*ch || rdma_create_id(*ch, &l, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l, (struct sockaddr *)sin) || rdma_listen(l, 1024))
		die("listen");
	sin->sin_port = rdma_get_src_port(l);
	return l;
}

/* The next event, acked; its type, id and status in the out arguments. */
static inline int next_event(struct rdma_event_channel *ch,
			     struct rdma_cm_id **id, int *status)
{
	struct rdma_cm_event *ev;
	int type;

	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	type = ev->event;
	*id = ev->id;
	*status = ev->status;
	rdma_ack_cm_event(ev);
	return type;
}

/* The kernel's slab memory, /proc/meminfo "Slab", in kB; -1 on error. */
static inline long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#endif /* RCM_BENCH_H */
