// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_resolve: between two guests joined by a QEMU socket netdev, rcm
 * resolves the other guest's address over a real L2 path (ARP on the
 * wire, the peer's MAC as next hop) and builds the RoCE path to its GID.
 * Both guests run it at once, each towards the other.
 *
 * Needs RCM_ADDR_RXE, RCM_PEER_ADDR and RCM_PEER_MAC (pair guests only).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

static void v4_gid(struct in6_addr *gid, const char *ip)
{
	memset(gid, 0, sizeof(*gid));
	gid->s6_addr[10] = gid->s6_addr[11] = 0xff;
	inet_pton(AF_INET, ip, &gid->s6_addr[12]);
}

TEST(peer_address_and_route_over_the_wire)
{
	const char *me = getenv("RCM_ADDR_RXE");
	const char *peer = getenv("RCM_PEER_ADDR");
	const char *peer_mac = getenv("RCM_PEER_MAC");
	struct rcm_query_id q;
	struct in6_addr gid;
	struct rcm_event ev;
	unsigned int mac[6], id = 0;
	int tries, fd, i;

	if (!me || !peer || !peer_mac)
		SKIP(return, "not one of a pair of guests");
	ASSERT_EQ(6, sscanf(peer_mac, "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1],
			    &mac[2], &mac[3], &mac[4], &mac[5]))
		TH_LOG("bad RCM_PEER_MAC");
	fd = rcm_open_dev();
	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	/* The peer may still be booting: an unanswered ARP times out. */
	for (tries = 0; tries < 60; tries++) {
		struct rcm_resolve_addr ra = {
			.size = sizeof(ra), .timeout_ms = 1000,
		};

		if (id)
			rcm_destroy(fd, id);
		id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, tries);
		ASSERT_TRUE(id)
			TH_LOG("create: %s", strerror(errno));
		ra.id = id;
		rcm_sockaddr(&ra.dst, peer, 0);	/* resolved, never connected */
		ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_RESOLVE_ADDR, &ra))
			TH_LOG("resolve: %s", strerror(errno));
		ASSERT_EQ(0, rcm_wait_event(fd, 10000, &ev))
			TH_LOG("no event");
		if (ev.event == RCM_EVENT_ADDR_RESOLVED)
			break;
		ASSERT_TRUE(ev.event == RCM_EVENT_ADDR_ERROR &&
			    ev.status == -ETIMEDOUT)
			TH_LOG("event %u status %d", ev.event, ev.status);
	}
	ASSERT_EQ(RCM_EVENT_ADDR_RESOLVED, ev.event)
		TH_LOG("peer %s never answered in %d tries", peer, tries);
	ASSERT_TRUE(rcm_route_query(fd, id, &q) == 0 && q.out_num_paths == 1)
		TH_LOG("route: %s", strerror(errno));
	v4_gid(&gid, peer);
	ASSERT_TRUE(!memcmp(q.out_path.dgid, &gid, 16))
		TH_LOG("dgid is not ::ffff:%s", peer);
	v4_gid(&gid, me);
	ASSERT_TRUE(!memcmp(q.out_path.sgid, &gid, 16))
		TH_LOG("sgid is not ::ffff:%s", me);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(q.out_path.dmac[i], mac[i])
			TH_LOG("next hop %02x:%02x:%02x:%02x:%02x:%02x, want %s",
			       q.out_path.dmac[0], q.out_path.dmac[1], q.out_path.dmac[2],
			       q.out_path.dmac[3], q.out_path.dmac[4], q.out_path.dmac[5],
			       peer_mac);
	}
	close(fd);
}

RCM_TEST_MAIN
