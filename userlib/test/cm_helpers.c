// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: what the host programs on the seam share, see
 * cm_helpers.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>

#include "cm_helpers.h"

const struct rcm_conn_param cm_request_conn = {
	.qp_num = 0x123456,
	.responder_resources = 3,
	.initiator_depth = 2,
	.flow_control = 1,
	.retry_count = 6,
	.rnr_retry_count = 7,
	.srq = 1,
};

int cm_main(int argc, const void *symbol, const struct cm_case *cases,
	    unsigned int n)
{
	unsigned int i;

	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib(symbol);
	script_cm();
	for (i = 0; i < n; i++)
		t_in_child(cases[i].what, cases[i].fn);
	return t_exit();
}

void cm_script_rc_qp_attr(void)
{
	memset(script_qp_attr, 0, sizeof(script_qp_attr));
	script_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	script_qp_attr[1].qp_attr_mask = IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER;
	script_qp_attr[2].qp_attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
}

void cm_set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void cm_expect_none(struct rdma_event_channel *c)
{
	struct rdma_cm_event *ev = NULL;
	int flags = fcntl(c->fd, F_GETFL);

	fcntl(c->fd, F_SETFL, flags | O_NONBLOCK);
	errno = 0;
	T_CHECK(rdma_get_cm_event(c, &ev) == -1 && errno == EAGAIN);
	T_CHECK(ev == NULL);
	if (ev) {
		fprintf(stderr, "  unexpected %s\n", rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	fcntl(c->fd, F_SETFL, flags);
}

bool cm_join_within(pthread_t thread, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(thread, NULL, &ts) == 0;
}

static void *destroy_thread(void *arg)
{
	struct cm_destroyer *d = arg;

	d->ret = rdma_destroy_id(d->id);
	__atomic_store_n(&d->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

void cm_start_destroy(struct cm_destroyer *d, struct rdma_cm_id *id)
{
	d->id = id;
	d->done = 0;
	d->ret = -2;
	T_CHECK(pthread_create(&d->thread, NULL, destroy_thread, d) == 0);
}

void cm_destroy_promptly(struct rdma_cm_id *id)
{
	struct cm_destroyer d;

	cm_start_destroy(&d, id);
	T_CHECK(cm_join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
}

static void *get_thread(void *arg)
{
	struct cm_getter *g = arg;

	if (rdma_get_cm_event(g->c, &g->ev))
		g->ev = NULL;
	return NULL;
}

void cm_start_get(struct cm_getter *g, struct rdma_event_channel *c)
{
	g->c = c;
	g->ev = NULL;
	T_CHECK(pthread_create(&g->thread, NULL, get_thread, g) == 0);
}

struct rdma_cm_id *cm_listener(struct rdma_event_channel *c, void *ctx,
			       uint16_t port, uint32_t *handle)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_id *id = NULL;

	a.sin_port = htons(port);
	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	T_CHECK(rdma_create_id(c, &id, ctx, RDMA_PS_TCP) == 0);
	if (!id)
		return NULL;
	*handle = SEAM_LAST_HANDLE();
	T_CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0);
	T_CHECK(rdma_listen(id, 8) == 0);
	return id;
}
