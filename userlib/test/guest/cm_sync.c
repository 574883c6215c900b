// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_sync: synchronous ids (rdma_create_id() with a NULL channel) and
 * the event each call leaves in id->event, against the real module, in
 * a guest with a Soft-RoCE device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *   RCM_ADDR_SILENT  IPv4 neighbour on that network that never answers
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. held_event_destroy: rdma_resolve_addr() to RCM_ADDR_RXE returns 0
 *    with ADDR_RESOLVED (status 0, event->id the id) in id->event, the id
 *    resolved (verbs, port 1, a source port, the destination port);
 *    rdma_destroy_id() acks the held event itself and returns within
 *    10 s (a destroy that waited for the ack would never return).
 * 2. addr_error_held: to the silent neighbour with 300 ms: -1 with errno
 *    ETIMEDOUT, ADDR_ERROR with status -ETIMEDOUT in id->event, no
 *    device; destroy returns.
 * 3. next_call_acks: after that ADDR_ERROR the same id resolves
 *    RCM_ADDR_RXE: 0, ADDR_RESOLVED in id->event (the call acked the
 *    ADDR_ERROR it replaced: if it had not, destroy would wait for it).
 * 4. failed_call_does_not_wait: 198.19.200.1, which no route reaches,
 *    fails in the call itself (ENETUNREACH) at once, with no event in
 *    id->event.
 * 5. nonblocking_private_channel: O_NONBLOCK on the private channel's
 *    fd; rdma_resolve_addr() to the silent neighbour is issued and gives
 *    -1 with EAGAIN (no event yet), id->event NULL; the id is destroyed
 *    with the resolution in flight.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"

#define NO_ROUTE	"198.19.200.1"

/* rdma_destroy_id(@id) in a thread: 0 when it returned 0 within 10 s. */
static int destroy_within(struct rdma_cm_id *id)
{
	void *ret = (void *)-2;
	struct timespec ts;
	pthread_t t;

	if (pthread_create(&t, NULL, guest_destroy_thread, id))
		return -1;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	if (pthread_timedjoin_np(t, &ret, &ts)) {
		printf("# rdma_destroy_id() still waits after 10 s\n");
		return -1;
	}
	return (int)(intptr_t)ret;
}

/*
 * A synchronous TCP id, and @dst: @ip, port 0 (an address resolution
 * reaches no port), for it to resolve.
 */
static struct rdma_cm_id *sync_id(struct __test_metadata *_metadata,
				  const char *ip, struct sockaddr_in *dst)
{
	struct rdma_cm_id *id = NULL;

	ASSERT_TRUE(guest_parse_ipv4(ip, 0, dst));
	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		TH_LOG("rdma_create_id: %s", strerror(errno));
	return id;
}

/* rdma_resolve_addr() of @id to @dst, bounded by @ms, fails with @err. */
static void resolve_fails(struct __test_metadata *_metadata,
			  struct rdma_cm_id *id, struct sockaddr_in *dst,
			  int ms, int err)
{
	ASSERT_ERRNO(rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, ms),
		     err);
}

/* The event a synchronous call left in @id: @type with @status, of @id. */
static void held_event_is(struct __test_metadata *_metadata,
			  struct rdma_cm_id *id,
			  enum rdma_cm_event_type type, int status)
{
	ASSERT_NE(NULL, id->event);
	EXPECT_EQ(type, id->event->event);
	EXPECT_EQ(status, id->event->status);
	EXPECT_EQ(id, id->event->id);
}

/*
 * rdma_resolve_addr() of @id to @dst succeeds and leaves its
 * ADDR_RESOLVED in id->event; the id has its device.
 */
static void resolved_held(struct __test_metadata *_metadata,
			  struct rdma_cm_id *id, struct sockaddr_in *dst)
{
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)dst,
				       2000))
		TH_LOG("rdma_resolve_addr: %s", strerror(errno));
	held_event_is(_metadata, id, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
	EXPECT_NE(NULL, id->verbs);
}

TEST(held_event_destroy)
{
	struct sockaddr_in dst;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = sync_id(_metadata, rxe, &dst);
	/* A destination port for the id to show: a free one. */
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	resolved_held(_metadata, id, &dst);
	EXPECT_EQ(1, id->port_num);
	EXPECT_NE(0, rdma_get_src_port(id));
	EXPECT_EQ(dst.sin_port, rdma_get_dst_port(id));
	ASSERT_EQ(0, destroy_within(id));
}

TEST(addr_error_held)
{
	struct sockaddr_in dst;
	struct rdma_cm_id *id;

	GUEST_SILENT_OR_SKIP(silent);
	id = sync_id(_metadata, silent, &dst);
	resolve_fails(_metadata, id, &dst, 300, ETIMEDOUT);
	held_event_is(_metadata, id, RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT);
	ASSERT_EQ(0, destroy_within(id));
}

TEST(next_call_acks)
{
	struct sockaddr_in dst, quiet;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	GUEST_SILENT_OR_SKIP(silent);
	ASSERT_TRUE(guest_free_addr(rxe, RDMA_PS_TCP, &dst));
	id = sync_id(_metadata, silent, &quiet);
	resolve_fails(_metadata, id, &quiet, 300, ETIMEDOUT);
	/* The second call acks the first one's held ADDR_ERROR. */
	resolved_held(_metadata, id, &dst);
	ASSERT_EQ(0, destroy_within(id));
}

TEST(failed_call_does_not_wait)
{
	struct sockaddr_in dst;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	id = sync_id(_metadata, NO_ROUTE, &dst);
	resolve_fails(_metadata, id, &dst, 60000, ENETUNREACH);
	EXPECT_EQ(NULL, id->event);
	ASSERT_EQ(0, destroy_within(id));
}

TEST(nonblocking_private_channel)
{
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	int fd, fl;

	GUEST_SILENT_OR_SKIP(silent);
	id = sync_id(_metadata, silent, &dst);
	ASSERT_NE(NULL, id->channel);
	fd = id->channel->fd;
	fl = fcntl(fd, F_GETFL);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, fl | O_NONBLOCK));
	resolve_fails(_metadata, id, &dst, 5000, EAGAIN);
	EXPECT_EQ(NULL, id->event);
	ASSERT_EQ(0, destroy_within(id));
}

RCM_TEST_MAIN
