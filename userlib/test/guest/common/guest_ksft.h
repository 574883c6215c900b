/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * guest_ksft: what the userlib's guest TEST() programs share that
 * asserts through the kernel's kselftest_harness.h, so for the programs
 * that include rcm_ksft.h (before this header) only: guest.c stays free
 * of the harness.
 */
#ifndef _RCM_GUEST_KSFT_H
#define _RCM_GUEST_KSFT_H

#include <errno.h>
#include <poll.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "guest.h"

/*
 * A new TCP id on @ch (NULL: synchronous) resolving @ip and a port
 * nobody listens on (guest_free_addr()).
 */
static inline struct rdma_cm_id *
guest_resolving(struct __test_metadata *_metadata,
		struct rdma_event_channel *ch, const char *ip)
{
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in dst;

	ASSERT_TRUE(guest_free_addr(ip, RDMA_PS_TCP, &dst));
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       2000))
		TH_LOG("rdma_resolve_addr: %s", strerror(errno));
	return id;
}

/*
 * A synchronous id of @ps whose address and route to @dst are resolved,
 * with a QP of 4 work requests (UD for RDMA_PS_UDP, else RC).
 */
static inline struct rdma_cm_id *
guest_sync_routed(struct __test_metadata *_metadata,
		  const struct sockaddr_in *dst, enum rdma_port_space ps)
{
	struct rdma_cm_id *id = NULL;

	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, ps));
	ASSERT_EQ(0, rdma_resolve_addr(id, NULL, (struct sockaddr *)dst,
				       2000))
		TH_LOG("rdma_resolve_addr: %s", strerror(errno));
	ASSERT_EQ(0, rdma_resolve_route(id, 2000))
		TH_LOG("rdma_resolve_route: %s", strerror(errno));
	ASSERT_TRUE(guest_create_qp(id, ps == RDMA_PS_UDP ? IBV_QPT_UD :
							     IBV_QPT_RC, 4));
	return id;
}

/*
 * The next event of @ch within 10 s, which must be @type with status 0
 * and, if @id is not NULL, on @id; acked.
 */
static inline void guest_assert_event(struct __test_metadata *_metadata,
				      struct rdma_event_channel *ch,
				      struct rdma_cm_id *id,
				      enum rdma_cm_event_type type)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	ASSERT_EQ(1, poll(&p, 1, 10000))
		TH_LOG("no %s within 10 s", rdma_event_str(type));
	ASSERT_EQ(0, rdma_get_cm_event(ch, &ev))
		TH_LOG("rdma_get_cm_event: %s", strerror(errno));
	EXPECT_EQ(type, ev->event)
		TH_LOG("got %s status %d", rdma_event_str(ev->event),
		       ev->status);
	EXPECT_EQ(0, ev->status);
	if (id)
		EXPECT_EQ(id, ev->id);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
}

/*
 * @fn(@arg) in a thread must wait while @ev is unacked (still running
 * after 300 ms) and end within 10 s once this acks @ev; its return value
 * in *@ret. @what names the call in the diagnostics.
 */
static inline void guest_waits_for_ack(struct __test_metadata *_metadata,
				       void *(*fn)(void *), void *arg,
				       struct rdma_cm_event *ev,
				       const char *what, void **ret)
{
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, fn, arg));
	EXPECT_FALSE(guest_join_within(t, 300, ret))
		TH_LOG("%s returned with an event unacked", what);
	ASSERT_EQ(0, rdma_ack_cm_event(ev));
	ASSERT_TRUE(guest_join_within(t, 10000, ret))
		TH_LOG("%s still waits after the ack", what);
}

#endif /* _RCM_GUEST_KSFT_H */
