// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_route: rdma_resolve_route()'s errors and the route's memory, against
 * the real module, in a guest with a Soft-RoCE device. kselftest TAP.
 * (The route itself, member by member against the in-tree CM, is
 * cm_intree_compare's; the synchronous call is cm_resolve's.)
 *
 *   RCM_ADDR_RXE     IPv4 address of the Soft-RoCE device
 *
 * In-tree control: yes (run without LD_LIBRARY_PATH it uses the
 * distribution's librdmacm on rdma_ucm, and must pass the same way).
 *
 * 1. call_errors: on an id whose address is not resolved, EINVAL and no
 *    event (rcm only: librdmacm 44 dereferences the id's NULL verbs
 *    there and crashes); after ADDR_RESOLVED, the call with RCM_MAX_TIMEOUT_MS
 *    (600000) gives ROUTE_RESOLVED with one path; a second call is
 *    EINVAL and queues nothing.
 * 2. negative_timeout: rdma_resolve_route() with -1: rcm says EINVAL
 *    (0..600000 ms, rdma_resolve_route(3)); rdma_ucm takes it (RoCE
 *    builds the route without waiting) and gives ROUTE_RESOLVED.
 * 3. destroy_frees: once glibc's heap is steady, three cycles of create,
 *    resolve, route (path_rec set) and destroy leave as much heap in use
 *    as before them: the library frees the route with the id.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run (RCM_ADDR_RXE
 * not set).
 */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"
#include "common/guest_ksft.h"

#define MAX_TIMEOUT_MS	600000

/* An id on @ch whose address resolved to @rxe. */
static struct rdma_cm_id *resolved(struct __test_metadata *_metadata,
				   struct rdma_event_channel *ch,
				   const char *rxe)
{
	struct rdma_cm_id *id = guest_resolving(_metadata, ch, rxe);

	guest_assert_event(_metadata, ch, id, RDMA_CM_EVENT_ADDR_RESOLVED);
	return id;
}

TEST(call_errors)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;

	GUEST_RXE_OR_SKIP(rxe);
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	/* librdmacm dereferences the unresolved id's NULL verbs. */
	if (guest_on_rcm()) {
		ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
		ASSERT_ERRNO(rdma_resolve_route(id, 1000), EINVAL);
		EXPECT_TRUE(guest_quiet(ch));
		ASSERT_EQ(0, rdma_destroy_id(id));
	}

	id = resolved(_metadata, ch, rxe);
	ASSERT_EQ(0, rdma_resolve_route(id, MAX_TIMEOUT_MS))
		TH_LOG("rdma_resolve_route: %s", strerror(errno));
	guest_assert_event(_metadata, ch, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	EXPECT_EQ(1, id->route.num_paths);
	EXPECT_NE(NULL, id->route.path_rec);
	ASSERT_ERRNO(rdma_resolve_route(id, 1000), EINVAL);
	EXPECT_TRUE(guest_quiet(ch));
	ASSERT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

TEST(negative_timeout)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;

	GUEST_RXE_OR_SKIP(rxe);
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	id = resolved(_metadata, ch, rxe);
	if (guest_on_rcm()) {
		ASSERT_ERRNO(rdma_resolve_route(id, -1), EINVAL);
		EXPECT_TRUE(guest_quiet(ch));
	} else {
		ASSERT_EQ(0, rdma_resolve_route(id, -1))
			TH_LOG("timeout -1: %s", strerror(errno));
		guest_assert_event(_metadata, ch, id,
				   RDMA_CM_EVENT_ROUTE_RESOLVED);
	}
	ASSERT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/* One full cycle; the path is reached through the id only. */
static void cycle(struct __test_metadata *_metadata, const char *rxe)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;

	ASSERT_NE(NULL, ch);
	id = resolved(_metadata, ch, rxe);
	ASSERT_EQ(0, rdma_resolve_route(id, 2000))
		TH_LOG("rdma_resolve_route: %s", strerror(errno));
	guest_assert_event(_metadata, ch, id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	ASSERT_NE(NULL, id->route.path_rec);
	ASSERT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

/*
 * mallinfo2() counts the chunks in glibc's per-thread cache as in use,
 * so the heap grows until that cache is full: cycle until it is steady,
 * then three cycles must leave it as it was. A leaked path_rec grows it
 * at every cycle.
 */
TEST(destroy_frees)
{
	size_t before, after = 0;
	int i;

	GUEST_RXE_OR_SKIP(rxe);
	for (i = 0; i < 20; i++) {
		before = after;
		cycle(_metadata, rxe);
		after = mallinfo2().uordblks;
		if (i >= 2 && before == after)
			break;
	}
	before = mallinfo2().uordblks;
	for (i = 0; i < 3; i++)
		cycle(_metadata, rxe);
	after = mallinfo2().uordblks;
	ASSERT_EQ(before, after)
		TH_LOG("heap in use: %zu bytes before, %zu after", before,
		       after);
}

RCM_TEST_MAIN
