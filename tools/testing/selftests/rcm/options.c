// SPDX-License-Identifier: GPL-2.0-only
/*
 * options: RCM_IOCTL_SET_OPTION takes TOS, REUSEADDR, AFONLY and the ACK
 * timeout with the in-tree CM's rules, and each shows its effect: port
 * sharing at bind time, traffic class and packet lifetime in the path.
 * RESOLVE_TIMEOUT (rcm's own) replaces the timeout of the resolutions:
 * its range, and a resolution of the silent neighbour with 60 s in the
 * command and 300 ms in the option failing with -ETIMEDOUT within 2 s
 * (then, with the option back at 0, after the command's 1200 ms).
 */
#include <netinet/in.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

/* Resolve address and route to @ip; fill @q with the result. */
static int routed(int fd, unsigned int id, const char *ip,
		  struct rcm_query_id *q)
{
	return rcm_resolved(fd, id, ip) || rcm_route_query(fd, id, q) ? -1 : 0;
}

TEST(unknown_options_are_enoprotoopt)
{
	struct rcm_set_option o = { .size = sizeof(o) };
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);

	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_ERRNO(rcm_set_option(fd, id, RCM_OPTION_IB, 2, 0), ENOPROTOOPT);
	ASSERT_ERRNO(rcm_set_option(fd, id, 7, 0, 0), ENOPROTOOPT);
	ASSERT_ERRNO(rcm_set_option(fd, id, RCM_OPTION_ID, 4, 0), ENOPROTOOPT);
	ASSERT_ERRNO(rcm_set_option(fd, id + 99, RCM_OPTION_ID, 0, 0), ENOENT);
	o.id = id;
	/* The options of RCM_OPTION_ID take no length. */
	o.optlen = 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_SET_OPTION, &o), EINVAL);
	close(fd);
}

/*
 * A new file (returned) and in it a new RCM_PS_TCP RC id (*@rc, context
 * 1) and a new RCM_PS_UDP UD id (*@ud, context 2).
 */
static int rc_and_ud(struct __test_metadata *_metadata, unsigned int *rc,
		     unsigned int *ud)
{
	int fd = rcm_open_dev();

	*rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	*ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);
	ASSERT_TRUE(*rc && *ud)
		TH_LOG("create: %s", strerror(errno));
	return fd;
}

TEST(values_out_of_range_are_einval)
{
	unsigned int rc, ud;
	int fd = rc_and_ud(_metadata, &rc, &ud);

	ASSERT_ERRNO(rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_TOS, 256), EINVAL);
	ASSERT_ERRNO(rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 2),
		     EINVAL);
	ASSERT_ERRNO(rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 2),
		     EINVAL);
	ASSERT_ERRNO(rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT, 32),
		     EINVAL);
	/* An RC and XRC-initiator notion, as rdma_set_ack_timeout(). */
	ASSERT_ERRNO(rcm_set_option(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT, 14),
		     EINVAL);
	{
		unsigned int uc = rcm_create(fd, RCM_PS_IB, RCM_QPT_UC, 3);
		unsigned int xrc = rcm_create(fd, RCM_PS_IB, RCM_QPT_XRC_SEND, 4);

		ASSERT_TRUE(uc && xrc)
			TH_LOG("create UC/XRC: %s", strerror(errno));
		ASSERT_ERRNO(rcm_set_option(fd, uc, RCM_OPTION_ID,
					    RCM_OPTION_ID_ACK_TIMEOUT, 14), EINVAL);
		ASSERT_EQ(0, rcm_set_option(fd, xrc, RCM_OPTION_ID,
					    RCM_OPTION_ID_ACK_TIMEOUT, 14))
			TH_LOG("XRC_SEND ack timeout: %s", strerror(errno));
	}
	ASSERT_EQ(0, rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT,
				    31))
		TH_LOG("ack timeout 31: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_TOS, 255))
		TH_LOG("tos 255: %s", strerror(errno));
	close(fd);
}

TEST(reuseaddr_lets_two_ids_share_a_port)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	int fd = rcm_open_dev();
	unsigned int a = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int b = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	unsigned int c = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 3);

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	ASSERT_TRUE(a && b && c)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_TRUE(rcm_set_option(fd, a, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 1) == 0 &&
		    rcm_set_option(fd, b, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 1) == 0)
		TH_LOG("set: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(fd, a, ip, 0))
		TH_LOG("bind a: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(fd, b, ip, rcm_local_port(fd, a)))
		TH_LOG("bind b: %s", strerror(errno));
	ASSERT_ERRNO(rcm_bind(fd, c, ip, rcm_local_port(fd, a)), EADDRINUSE);
	/* Once bound, it cannot be turned off; on is still fine. */
	ASSERT_ERRNO(rcm_set_option(fd, a, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 0),
		     EINVAL);
	ASSERT_EQ(0, rcm_set_option(fd, a, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 1))
		TH_LOG("set again: %s", strerror(errno));
	close(fd);
}

TEST(afonly_separates_ipv4_and_ipv6)
{
	int fd = rcm_open_dev();
	unsigned int v6, v4, v6b, v4b;

	ASSERT_EQ(0, rcm_create_ids(fd, RCM_PS_TCP, RCM_QPT_RC, &v6, &v4, &v6b,
				    &v4b, NULL))
		TH_LOG("create: %s", strerror(errno));
	/* Dual-stack wildcards collide (net.ipv6.bindv6only is 0 here). */
	ASSERT_EQ(0, rcm_bind(fd, v6, "::", 0))
		TH_LOG("bind v6: %s", strerror(errno));
	ASSERT_ERRNO(rcm_bind(fd, v4, "0.0.0.0", rcm_local_port(fd, v6)),
		     EADDRNOTAVAIL);
	/* AFONLY on both sides: they share. */
	ASSERT_TRUE(rcm_set_option(fd, v6b, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 1) == 0 &&
		    rcm_set_option(fd, v4b, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 1) == 0)
		TH_LOG("set: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(fd, v6b, "::", 0))
		TH_LOG("bind v6b: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(fd, v4b, "0.0.0.0", rcm_local_port(fd, v6b)))
		TH_LOG("bind v4b: %s", strerror(errno));
	close(fd);
}

/* A new RCM_PS_TCP id of a new file, on a guest with a Soft-RoCE device. */
FIXTURE(rxe_id) {
	const char *ip;
	int fd;
	unsigned int id;
};

FIXTURE_SETUP(rxe_id)
{
	self->ip = getenv("RCM_ADDR_RXE");
	if (!self->ip)
		SKIP_SETUP("no Soft-RoCE device");
	self->fd = rcm_open_dev();
	self->id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(self->id)
		TH_LOG("create: %s", strerror(errno));
}

FIXTURE_TEARDOWN(rxe_id)
{
	close(self->fd);
}

TEST_F(rxe_id, afonly_is_fixed_once_resolved)
{
	const char *ip = self->ip;
	struct rcm_query_id q;
	int fd = self->fd;
	unsigned int id = self->id;

	ASSERT_EQ(0, routed(fd, id, ip, &q))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_ERRNO(rcm_set_option(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 1),
		     EINVAL);
}

TEST_F(rxe_id, tos_and_ack_timeout_shape_the_path)
{
	const char *ip = self->ip;
	struct rcm_query_id q;
	int fd = self->fd;
	unsigned int id = self->id;

	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_TOS, 0x68))
		TH_LOG("tos: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT,
				    14))
		TH_LOG("ack timeout: %s", strerror(errno));
	ASSERT_EQ(0, routed(fd, id, ip, &q))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(1, q.out_num_paths)
		TH_LOG("no path");
	ASSERT_EQ(0x68, q.out_path.traffic_class)
		TH_LOG("traffic class %#x", q.out_path.traffic_class);
	ASSERT_EQ(13, q.out_path.packet_life_time)
		TH_LOG("packet lifetime %u, want 13",
		       q.out_path.packet_life_time);
}

TEST(resolve_timeout_range)
{
	unsigned int id, ud;
	int fd = rc_and_ud(_metadata, &id, &ud);

	ASSERT_ERRNO(rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT,
		     RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	/* The value is 64 bits wide: no truncation to a valid one. */
	ASSERT_ERRNO(rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, (1ULL << 32) + 300),
		     EINVAL);
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, RCM_MAX_TIMEOUT_MS))
		TH_LOG("max: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, 1))
		TH_LOG("1: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, 0))
		TH_LOG("0: %s", strerror(errno));
	/* Any QP type. */
	ASSERT_EQ(0, rcm_set_option(fd, ud, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, 500))
		TH_LOG("UD: %s", strerror(errno));
	ASSERT_ERRNO(rcm_set_option(fd, id + ud + 99, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, 500), ENOENT);
	close(fd);
}

/* Resolve the silent neighbour with @cmd_ms; the ms until ADDR_ERROR. */
static long silent_resolution(int fd, unsigned int id, const char *ip,
			      unsigned int cmd_ms, struct rcm_event *ev)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rcm_resolve(fd, id, NULL, ip, cmd_ms))
		return -1;
	if (rcm_wait_event(fd, 20000, ev))
		return -2;
	return rcm_ms_since(&t0);
}

TEST(resolve_timeout_replaces_the_commands)
{
	const char *ip = getenv("RCM_ADDR_SILENT");
	const char *rxe = getenv("RCM_ADDR_RXE");
	struct rcm_query_id q;
	struct rcm_event ev;
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	long ms;

	if (!ip)
		SKIP(return, "RCM_ADDR_SILENT not set");
	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, 300))
		TH_LOG("set: %s", strerror(errno));
	/* 60 s in the command; the option's 300 ms win. */
	ms = silent_resolution(fd, id, ip, 60000, &ev);
	ASSERT_LE(0, ms)
		TH_LOG("resolve: %s (%ld)", strerror(errno), ms);
	ASSERT_TRUE(ev.id == id && ev.event == RCM_EVENT_ADDR_ERROR &&
		    ev.status == -ETIMEDOUT)
		TH_LOG("event %u status %d, want ADDR_ERROR -ETIMEDOUT", ev.event,
		       ev.status);
	ASSERT_TRUE(ms >= 250 && ms <= 2000)
		TH_LOG("ADDR_ERROR after %ld ms, want ~300", ms);
	/* Back to 0: the command's timeout counts again. */
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, 0))
		TH_LOG("reset: %s", strerror(errno));
	ms = silent_resolution(fd, id, ip, 1200, &ev);
	ASSERT_TRUE(ms >= 0 && ev.event == RCM_EVENT_ADDR_ERROR &&
		    ev.status == -ETIMEDOUT)
		TH_LOG("second resolution: %ld ms, event %u "
		       "status %d", ms, ev.event, ev.status);
	ASSERT_LE(1100, ms)
		TH_LOG("ADDR_ERROR after %ld ms of the command's 1200", ms);
	close(fd);

	/* A route resolution takes the option too (and needs no wait). */
	if (!rxe)
		return;
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID,
				    RCM_OPTION_ID_RESOLVE_TIMEOUT, 300))
		TH_LOG("set: %s", strerror(errno));
	ASSERT_TRUE(routed(fd, id, rxe, &q) == 0 && q.out_num_paths == 1)
		TH_LOG("route with the option: %s", strerror(errno));
	close(fd);
}

RCM_TEST_MAIN
