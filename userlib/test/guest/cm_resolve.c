// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_resolve: address resolution through librdmacm.so.1 (rcm) against the
 * real rcm module, in a guest with a Soft-RoCE device. kselftest TAP.
 *
 *   RCM_ADDR_RXE     IPv4 address that resolves to the Soft-RoCE device
 *                    (its netdev MTU 1500)
 *   RCM_ADDR_SILENT  IPv4 neighbour on that network that never answers
 *   RCM_ADDR_SIW     IPv4 address that resolves to a Soft-iWARP device
 *
 * 1. async: rdma_resolve_addr() on a channel, ADDR_RESOLVED with status
 *    0, then id->verbs set, port_num 1, an IPv4 source address with a
 *    non-zero port, the destination's (a free) port; ack and destroy;
 * 2. sync: the same with a NULL channel, the event in id->event;
 * 3. sync to the silent neighbour with a 500 ms timeout: -1, ETIMEDOUT;
 * 4. sync rdma_resolve_addr() + rdma_resolve_route() to RCM_ADDR_RXE:
 *    ROUTE_RESOLVED in id->event, num_paths 1, path_rec->mtu
 *    IBV_MTU_1024, P_Key 0xffff (network order), source GID
 *    ::ffff:RCM_ADDR_RXE, the mtu/rate/lifetime selectors 2;
 * 5. the same to RCM_ADDR_SIW: an iWARP route, num_paths 0 and path_rec
 *    NULL (skipped without RCM_ADDR_SIW);
 * 6. rdma_set_option() TOS 0x68 and ACK_TIMEOUT 14 on a synchronous TCP
 *    id, then address and route to RCM_ADDR_RXE: path_rec traffic_class
 *    0x68 and packet_life_time 13;
 * 7. REUSEADDR (an int 1) on two TCP ids: both bind to one free port of
 *    RCM_ADDR_RXE; a third id without the option gets EADDRINUSE there.
 *
 * Exit: 0 all passed (or skipped), 1 a test failed, 4 nothing to run
 * (RCM_ADDR_RXE not set).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "rcm_ksft.h"

/* What ADDR_RESOLVED of @id to @dst must have left in the id. */
static bool check_resolved(struct rdma_cm_id *id,
			   const struct sockaddr_in *dst)
{
	const struct sockaddr_in *src;
	bool ok = true;

	src = (const struct sockaddr_in *)rdma_get_local_addr(id);
	ok &= CHECK(id->verbs != NULL);
	ok &= CHECK(id->port_num == 1);
	ok &= CHECK(src->sin_family == AF_INET);
	ok &= CHECK(src->sin_addr.s_addr != htonl(INADDR_ANY));
	ok &= CHECK(rdma_get_src_port(id) != 0);
	ok &= CHECK(rdma_get_dst_port(id) == dst->sin_port);
	if (id->verbs)
		printf("# device %s port %u, source %s:%u\n",
		       id->verbs->device->name, id->port_num,
		       inet_ntoa(src->sin_addr), ntohs(rdma_get_src_port(id)));
	return ok;
}

static bool do_async_resolve(struct sockaddr_in *dst)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *id = NULL;
	bool ok = true;

	ch = rdma_create_event_channel();
	if (!CHECK(ch != NULL))
		return false;
	if (!CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0))
		goto out_channel;
	ok &= CHECK(id->qp_type == IBV_QPT_RC);
	if (!CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)dst,
				     2000) == 0)) {
		ok = false;
		goto out_id;
	}
	if (!CHECK(rdma_get_cm_event(ch, &ev) == 0)) {
		ok = false;
		goto out_id;
	}
	ok &= CHECK(ev->id == id);
	ok &= CHECK(ev->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	ok &= CHECK(ev->status == 0);
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED || ev->status)
		printf("# got %s, status %d\n", rdma_event_str(ev->event),
		       ev->status);
	ok &= check_resolved(id, dst);
	ok &= CHECK(rdma_ack_cm_event(ev) == 0);
out_id:
	ok &= CHECK(rdma_destroy_id(id) == 0);
	rdma_destroy_event_channel(ch);
	return ok;
out_channel:
	rdma_destroy_event_channel(ch);
	return false;
}

static bool do_sync_resolve(struct sockaddr_in *dst)
{
	struct rdma_cm_id *id = NULL;
	bool ok = true;

	if (!CHECK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == 0))
		return false;
	if (CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)dst,
				    2000) == 0)) {
		ok &= CHECK(id->event != NULL);
		ok &= CHECK(id->event &&
			    id->event->event == RDMA_CM_EVENT_ADDR_RESOLVED);
		ok &= check_resolved(id, dst);
	} else {
		ok = false;
	}
	ok &= CHECK(rdma_destroy_id(id) == 0);
	return ok;
}

static bool do_sync_timeout(struct sockaddr_in *dst)
{
	struct rdma_cm_id *id = NULL;
	struct timespec t0, t1;
	bool ok = true;
	long ms;
	int ret;

	if (!CHECK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == 0))
		return false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)dst, 500);
	ok &= CHECK(ret == -1);
	ok &= CHECK(errno == ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	printf("# failed after %ld ms\n", ms);
	ok &= CHECK(id->event &&
		    id->event->event == RDMA_CM_EVENT_ADDR_ERROR &&
		    id->event->status == -ETIMEDOUT);
	ok &= CHECK(rdma_destroy_id(id) == 0);
	return ok;
}

/*
 * Resolve address and route of the synchronous id to dst; the id, or
 * NULL after destroying it.
 */
static struct rdma_cm_id *sync_route_id(struct rdma_cm_id *id,
					struct sockaddr_in *dst)
{
	if (!CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)dst,
				     2000) == 0) ||
	    !CHECK(rdma_resolve_route(id, 2000) == 0)) {
		if (id->event)
			printf("# got %s, status %d\n",
			       rdma_event_str(id->event->event),
			       id->event->status);
		CHECK(rdma_destroy_id(id) == 0);
		return NULL;
	}
	if (!CHECK(id->event &&
		   id->event->event == RDMA_CM_EVENT_ROUTE_RESOLVED &&
		   id->event->status == 0)) {
		CHECK(rdma_destroy_id(id) == 0);
		return NULL;
	}
	return id;
}

/* A synchronous id whose address and route are resolved to dst, or NULL. */
static struct rdma_cm_id *sync_route(struct sockaddr_in *dst)
{
	struct rdma_cm_id *id = NULL;

	if (!CHECK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == 0))
		return NULL;
	return sync_route_id(id, dst);
}

static bool do_route_roce(struct sockaddr_in *dst)
{
	struct ibv_sa_path_rec *rec;
	union ibv_gid want = { .raw = { [10] = 0xff, [11] = 0xff } };
	char gid[INET6_ADDRSTRLEN];
	struct rdma_cm_id *id;
	bool ok = true;

	memcpy(&want.raw[12], &dst->sin_addr, 4);
	id = sync_route(dst);
	if (!id)
		return false;
	ok &= check_resolved(id, dst);
	ok &= CHECK(id->route.num_paths == 1);
	rec = id->route.path_rec;
	if (CHECK(rec != NULL)) {
		inet_ntop(AF_INET6, rec->sgid.raw, gid, sizeof(gid));
		printf("# sgid %s, mtu %u, pkey 0x%04x, sl %u, rate %u\n",
		       gid, rec->mtu, be16toh(rec->pkey), rec->sl, rec->rate);
		ok &= CHECK(rec->mtu == IBV_MTU_1024);
		ok &= CHECK(rec->pkey == htobe16(0xffff));
		ok &= CHECK(!memcmp(rec->sgid.raw, want.raw, 16));
		ok &= CHECK(!memcmp(rec->dgid.raw, want.raw, 16));
		ok &= CHECK(rec->mtu_selector == 2 && rec->rate_selector == 2 &&
			    rec->packet_life_time_selector == 2);
		ok &= CHECK(!memcmp(id->route.addr.addr.ibaddr.dgid.raw,
				    want.raw, 16));
	} else {
		ok = false;
	}
	ok &= CHECK(rdma_destroy_id(id) == 0);
	return ok;
}

static bool do_route_iwarp(struct sockaddr_in *dst)
{
	struct rdma_cm_id *id;
	bool ok = true;

	id = sync_route(dst);
	if (!id)
		return false;
	ok &= check_resolved(id, dst);
	ok &= CHECK(id->route.num_paths == 0);
	ok &= CHECK(id->route.path_rec == NULL);
	ok &= CHECK(rdma_destroy_id(id) == 0);
	return ok;
}

static bool do_options_route(struct sockaddr_in *dst)
{
	struct ibv_sa_path_rec *rec;
	struct rdma_cm_id *id = NULL;
	uint8_t tos = 0x68, ack_timeout = 14;
	bool ok = true;

	if (!CHECK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == 0))
		return false;
	if (!CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				   &tos, sizeof(tos)) == 0) ||
	    !CHECK(rdma_set_option(id, RDMA_OPTION_ID,
				   RDMA_OPTION_ID_ACK_TIMEOUT, &ack_timeout,
				   sizeof(ack_timeout)) == 0)) {
		CHECK(rdma_destroy_id(id) == 0);
		return false;
	}
	id = sync_route_id(id, dst);
	if (!id)
		return false;
	ok &= CHECK(id->route.num_paths == 1);
	rec = id->route.path_rec;
	if (CHECK(rec != NULL)) {
		printf("# traffic_class 0x%02x, packet_life_time %u, sl %u\n",
		       rec->traffic_class, rec->packet_life_time, rec->sl);
		ok &= CHECK(rec->traffic_class == 0x68);
		ok &= CHECK(rec->packet_life_time == 13);
	} else {
		ok = false;
	}
	ok &= CHECK(rdma_destroy_id(id) == 0);
	return ok;
}

static bool do_reuseaddr_bind(const struct sockaddr_in *rxe)
{
	struct rdma_cm_id *ids[3] = { NULL, NULL, NULL };
	struct sockaddr_in addr = *rxe;
	bool ok = true;
	int one = 1, i;

	for (i = 0; i < 3; i++) {
		if (!CHECK(rdma_create_id(NULL, &ids[i], NULL,
					  RDMA_PS_TCP) == 0)) {
			ok = false;
			goto out;
		}
	}
	for (i = 0; i < 2; i++) {
		ok &= CHECK(rdma_set_option(ids[i], RDMA_OPTION_ID,
					    RDMA_OPTION_ID_REUSEADDR, &one,
					    sizeof(one)) == 0);
		ok &= CHECK(rdma_bind_addr(ids[i],
					   (struct sockaddr *)&addr) == 0);
		ok &= CHECK(rdma_get_src_port(ids[i]) == addr.sin_port);
	}
	/* Both sides must share: without the option the port is taken. */
	errno = 0;
	ok &= CHECK(rdma_bind_addr(ids[2], (struct sockaddr *)&addr) == -1);
	ok &= CHECK(errno == EADDRINUSE);
out:
	for (i = 0; i < 3; i++)
		if (ids[i])
			ok &= CHECK(rdma_destroy_id(ids[i]) == 0);
	return ok;
}

/*
 * In a TEST(): $@name, an address of this host, and a port no id holds
 * (guest_free_addr()) in the sockaddr_in @dst, or a skip of the case
 * when it is not set.
 */
#define ADDR_OR_SKIP(name, dst)						\
	struct sockaddr_in dst;						\
	do {								\
		const char *ip_ = getenv(name);				\
									\
		if (!ip_ || !*ip_)					\
			SKIP(return, name " is not set");		\
		ASSERT_TRUE(guest_free_addr(ip_, RDMA_PS_TCP, &dst))	\
			TH_LOG(name "=%s: no free port", ip_);		\
	} while (0)

/*
 * A case @name that needs the address $@var (as struct sockaddr_in dst)
 * and passes when @passed, an expression of dst, is true.
 */
#define ADDR_TEST(name, var, passed)					\
	TEST(name)							\
	{								\
		ADDR_OR_SKIP(var, dst);					\
		ASSERT_TRUE(passed);					\
	}

ADDR_TEST(async_resolve, "RCM_ADDR_RXE", do_async_resolve(&dst))
ADDR_TEST(sync_resolve, "RCM_ADDR_RXE", do_sync_resolve(&dst))

/* The silent neighbour is no address of this host: port 0 for it. */
TEST(sync_resolve_timeout)
{
	struct sockaddr_in dst;

	GUEST_SILENT_OR_SKIP(silent);
	ASSERT_TRUE(guest_parse_ipv4(silent, 0, &dst));
	ASSERT_TRUE(do_sync_timeout(&dst));
}
ADDR_TEST(route_roce, "RCM_ADDR_RXE", do_route_roce(&dst))
ADDR_TEST(route_iwarp, "RCM_ADDR_SIW", do_route_iwarp(&dst))
ADDR_TEST(options_route, "RCM_ADDR_RXE", do_options_route(&dst))
ADDR_TEST(reuseaddr_bind, "RCM_ADDR_RXE", do_reuseaddr_bind(&dst))

RCM_TEST_MAIN
