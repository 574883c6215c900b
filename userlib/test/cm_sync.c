// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_sync: synchronous mode (rdma_create_id() with a NULL channel).
 *
 * - rdma_resolve_addr() waits for ADDR_RESOLVED on the private channel,
 *   returns 0, leaves the event in id->event and the id resolved (verbs,
 *   port_num, source address);
 * - ADDR_ERROR becomes -1 with errno = -status (ETIMEDOUT, EHOSTUNREACH),
 *   a positive status becomes errno = status, and the event stays in
 *   id->event;
 * - the next synchronous call acks the held event, and rdma_destroy_id()
 *   acks it too instead of waiting for it;
 * - a failing RCM_IOCTL_RESOLVE_ADDR returns at once with its errno;
 * - an O_NONBLOCK private channel with no event yet: -1/EAGAIN.
 *
 * The module is faked (fake_rcm.c), and so are libibverbs' devices
 * (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

static struct sockaddr_in dst = { .sin_family = AF_INET };

static void setup(void)
{
	dst.sin_port = htons(7471);
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
}

static struct rdma_cm_id *sync_id(void)
{
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == 0);
	return id;
}

/* Destroy in a thread, so that a hang fails instead of timing out. */
static void *destroy_thread(void *arg)
{
	return (void *)(intptr_t)rdma_destroy_id(arg);
}

static void destroy_promptly(struct rdma_cm_id *id)
{
	struct timespec ts;
	pthread_t t;
	void *ret = (void *)-2;

	if (pthread_create(&t, NULL, destroy_thread, id)) {
		T_CHECK(!"pthread_create");
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	T_CHECK(pthread_timedjoin_np(t, &ret, &ts) == 0);
	T_CHECK(ret == NULL);
}

static void resolved(void)
{
	struct rdma_cm_id *id;

	setup();
	id = sync_id();
	if (!id)
		return;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0);
	T_CHECK(id->event != NULL);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	T_CHECK(id->event && id->event->status == 0 && id->event->id == id);
	T_CHECK(id->verbs && id->verbs->device == &fake_devices[0]);
	T_CHECK(id->port_num == 1);
	T_CHECK(rdma_get_src_port(id) == htons(fake_ephemeral));
	T_CHECK(rdma_get_dst_port(id) == htons(7471));
	T_CHECK(fake_rcm_queued(id->channel->fd) == 0);

	/* The event carried the id's view: no query. */
	T_CHECK(FAKE_CALLS(RCM_CMD_QUERY_ID) == 0);
	/* The held event is acked by destroy, which does not wait for it. */
	destroy_promptly(id);
}

static void addr_error(void)
{
	static const int status[] = { -ETIMEDOUT, -EHOSTUNREACH, 42 };
	static const int want[] = { ETIMEDOUT, EHOSTUNREACH, 42 };
	struct rdma_cm_id *id;
	unsigned int i;

	setup();
	fake_resolve_mode = FAKE_RESOLVE_ERROR;
	id = sync_id();
	if (!id)
		return;
	for (i = 0; i < ARRAY_SIZE(status); i++) {
		fake_resolve_status = status[i];
		errno = 0;
		T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
					  500) == -1);
		T_CHECK(errno == want[i]);
		T_CHECK(id->event &&
			id->event->event == RDMA_CM_EVENT_ADDR_ERROR);
		T_CHECK(id->event && id->event->status == status[i]);
	}
	T_CHECK(fake_last_resolve.timeout_ms == 500);
	T_CHECK(id->verbs == NULL);
	destroy_promptly(id);
}

/*
 * The next synchronous call acks the held event: if it did not, destroy
 * would wait for two acks and only one is given by destroy itself.
 */
static void next_call_acks(void)
{
	struct rdma_cm_id *id;

	setup();
	fake_resolve_mode = FAKE_RESOLVE_ERROR;
	fake_resolve_status = -ETIMEDOUT;
	id = sync_id();
	if (!id)
		return;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 10) == -1);
	fake_resolve_mode = FAKE_RESOLVE_OK;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 10) == 0);
	T_CHECK(id->event && id->event->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	destroy_promptly(id);
}

static void ioctl_failure(void)
{
	struct rdma_cm_id *id;

	setup();
	id = sync_id();
	if (!id)
		return;
	fake_rcm_fail_next(RCM_CMD_RESOLVE_ADDR, ENETUNREACH);
	errno = 0;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 10) == -1);
	T_CHECK(errno == ENETUNREACH);
	T_CHECK(fake_read_calls == 0);		/* did not wait */
	T_CHECK(id->event == NULL);
	destroy_promptly(id);
}

static void nonblocking(void)
{
	struct rdma_cm_id *id;
	int fd;

	setup();
	fake_resolve_mode = FAKE_RESOLVE_SILENT;
	id = sync_id();
	if (!id)
		return;
	fd = id->channel->fd;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	errno = 0;
	T_CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 10) == -1);
	T_CHECK(errno == EAGAIN);
	T_CHECK(FAKE_CALLS(RCM_CMD_RESOLVE_ADDR) == 1);	/* issued anyway */
	T_CHECK(fake_read_calls == 1);
	destroy_promptly(id);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_resolve_addr);
	fake_rcm_init();

	t_in_child("resolve completes with ADDR_RESOLVED", resolved);
	t_in_child("ADDR_ERROR becomes errno", addr_error);
	t_in_child("the next call acks the held event", next_call_acks);
	t_in_child("ioctl failure does not wait", ioctl_failure);
	t_in_child("non-blocking private channel", nonblocking);
	return t_exit();
}
