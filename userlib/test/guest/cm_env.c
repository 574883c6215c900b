// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_env: $RCM_RESOLVE_TIMEOUT_MS tunes every new id of an unmodified
 * program, against the real module, in a guest with a Soft-RoCE
 * device. kselftest TAP. rcm's own variable: there is no in-tree
 * control (librdmacm ignores it). Each case sets the variable in its
 * own process before its first library call (the library reads its
 * environment once per process). (Debian's rping with the variable is
 * rping.sh's last case.)
 *
 *   RCM_ADDR_SILENT  IPv4 neighbour that never answers
 *
 * 1. resolve_timeout_every_id: with RCM_RESOLVE_TIMEOUT_MS=300, an RC
 *    id, a UD id (both on a channel) and a synchronous id resolving the
 *    silent neighbour with a 60 s timeout each fail with -ETIMEDOUT
 *    within 20 s: the option replaced the call's timeout on each.
 * 2. unset_keeps_the_call_timeout: without the variable, the same
 *    resolution with a 60 s timeout is still pending after 2 s.
 *
 * Exit: 0 all passed, 1 a test failed, 4 nothing to run
 * (RCM_ADDR_SILENT not set).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"

/* @id of @ch resolves @dst with 60 s: the ADDR_ERROR within @ms. */
static int resolve_error(struct rdma_event_channel *ch, struct rdma_cm_id *id,
			 struct sockaddr_in *dst, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int status;

	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 60000))
		return -1000 - errno;
	if (poll(&p, 1, ms) != 1)
		return 1;	/* still pending */
	if (rdma_get_cm_event(ch, &ev))
		return -2000 - errno;
	status = ev->event == RDMA_CM_EVENT_ADDR_ERROR ? ev->status :
							-3000 - ev->event;
	rdma_ack_cm_event(ev);
	return status;
}

TEST(resolve_timeout_every_id)
{
	static const enum rdma_port_space ps[] = { RDMA_PS_TCP, RDMA_PS_UDP };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct sockaddr_in dst;
	unsigned int i;

	GUEST_SILENT_OR_SKIP(silent);
	ASSERT_TRUE(guest_on_rcm())
		TH_LOG("rcm's variable: run on rcm's librdmacm.so.1");
	ASSERT_EQ(0, setenv("RCM_RESOLVE_TIMEOUT_MS", "300", 1));
	ASSERT_TRUE(guest_parse_ipv4(silent, 0, &dst));
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	for (i = 0; i < ARRAY_SIZE(ps); i++) {
		id = NULL;
		ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, ps[i]));
		EXPECT_EQ(-ETIMEDOUT, resolve_error(ch, id, &dst, 20000))
			TH_LOG("port space %#x", ps[i]);
		ASSERT_EQ(0, rdma_destroy_id(id));
	}
	id = NULL;
	ASSERT_EQ(0, rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP));
	ASSERT_ERRNO(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				       60000), ETIMEDOUT);
	ASSERT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

TEST(unset_keeps_the_call_timeout)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in dst;

	GUEST_SILENT_OR_SKIP(silent);
	ASSERT_EQ(0, unsetenv("RCM_RESOLVE_TIMEOUT_MS"));
	ASSERT_TRUE(guest_parse_ipv4(silent, 0, &dst));
	ch = rdma_create_event_channel();
	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, rdma_create_id(ch, &id, NULL, RDMA_PS_TCP));
	EXPECT_EQ(1, resolve_error(ch, id, &dst, 2000));
	ASSERT_EQ(0, rdma_destroy_id(id));
	rdma_destroy_event_channel(ch);
}

RCM_TEST_MAIN
