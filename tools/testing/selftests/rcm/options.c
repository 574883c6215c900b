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

#include "rcm_test.h"

static int set_opt(int fd, unsigned int id, uint32_t level, uint32_t name,
		   uint64_t value)
{
	struct rcm_set_option o = {
		.size = sizeof(o), .id = id, .level = level,
		.optname = name, .value = value,
	};

	return ioctl(fd, RCM_IOCTL_SET_OPTION, &o);
}

/* Resolve address and route to @ip; fill @q with the result. */
static int routed(int fd, unsigned int id, const char *ip,
		  struct rcm_query_id *q)
{
	struct rcm_event ev;

	if (rcm_resolved(fd, id, ip) || rcm_route(fd, id, 2000) ||
	    rcm_wait_event(fd, 10000, &ev) ||
	    ev.event != RCM_EVENT_ROUTE_RESOLVED)
		return -1;
	return rcm_query(fd, id, q);
}

RCM_TEST(unknown_options_are_enoprotoopt)
{
	struct rcm_set_option o = { .size = sizeof(o) };
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);

	CHECK(id, "create: %s", strerror(errno));
	CHECK_ERRNO(set_opt(fd, id, 1, 1, 0), ENOPROTOOPT);	/* IB_PATH */
	CHECK_ERRNO(set_opt(fd, id, 7, 0, 0), ENOPROTOOPT);
	CHECK_ERRNO(set_opt(fd, id, RCM_OPTION_ID, 4, 0), ENOPROTOOPT);
	CHECK_ERRNO(set_opt(fd, id + 99, RCM_OPTION_ID, 0, 0), ENOENT);
	o.id = id;
	o.reserved = 1;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_SET_OPTION, &o), EINVAL);
	close(fd);
}

RCM_TEST(values_out_of_range_are_einval)
{
	int fd = rcm_open_dev();
	unsigned int rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);

	CHECK(rc && ud, "create: %s", strerror(errno));
	CHECK_ERRNO(set_opt(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_TOS, 256), EINVAL);
	CHECK_ERRNO(set_opt(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 2),
		    EINVAL);
	CHECK_ERRNO(set_opt(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 2),
		    EINVAL);
	CHECK_ERRNO(set_opt(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT, 32),
		    EINVAL);
	/* An RC and XRC-initiator notion, as rdma_set_ack_timeout(). */
	CHECK_ERRNO(set_opt(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT, 14),
		    EINVAL);
	{
		unsigned int uc = rcm_create(fd, RCM_PS_IB, RCM_QPT_UC, 3);
		unsigned int xrc = rcm_create(fd, RCM_PS_IB, RCM_QPT_XRC_SEND, 4);

		CHECK(uc && xrc, "create UC/XRC: %s", strerror(errno));
		CHECK_ERRNO(set_opt(fd, uc, RCM_OPTION_ID,
				    RCM_OPTION_ID_ACK_TIMEOUT, 14), EINVAL);
		CHECK(set_opt(fd, xrc, RCM_OPTION_ID,
			      RCM_OPTION_ID_ACK_TIMEOUT, 14) == 0,
		      "XRC_SEND ack timeout: %s", strerror(errno));
	}
	CHECK(set_opt(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT, 31) == 0,
	      "ack timeout 31: %s", strerror(errno));
	CHECK(set_opt(fd, rc, RCM_OPTION_ID, RCM_OPTION_ID_TOS, 255) == 0,
	      "tos 255: %s", strerror(errno));
	close(fd);
}

RCM_TEST(reuseaddr_lets_two_ids_share_a_port)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	int fd = rcm_open_dev();
	unsigned int a = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int b = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	unsigned int c = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 3);

	if (!ip)
		SKIP("no Soft-RoCE device");
	CHECK(a && b && c, "create: %s", strerror(errno));
	CHECK(set_opt(fd, a, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 1) == 0 &&
	      set_opt(fd, b, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 1) == 0,
	      "set: %s", strerror(errno));
	CHECK(rcm_bind(fd, a, ip, 19000) == 0, "bind a: %s", strerror(errno));
	CHECK(rcm_bind(fd, b, ip, 19000) == 0, "bind b: %s", strerror(errno));
	CHECK_ERRNO(rcm_bind(fd, c, ip, 19000), EADDRINUSE);
	/* Once bound, it cannot be turned off; on is still fine. */
	CHECK_ERRNO(set_opt(fd, a, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 0),
		    EINVAL);
	CHECK(set_opt(fd, a, RCM_OPTION_ID, RCM_OPTION_ID_REUSEADDR, 1) == 0,
	      "set again: %s", strerror(errno));
	close(fd);
}

RCM_TEST(afonly_separates_ipv4_and_ipv6)
{
	int fd = rcm_open_dev();
	unsigned int v6 = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int v4 = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	unsigned int v6b = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 3);
	unsigned int v4b = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 4);

	CHECK(v6 && v4 && v6b && v4b, "create: %s", strerror(errno));
	/* Dual-stack wildcards collide (net.ipv6.bindv6only is 0 here). */
	CHECK(rcm_bind(fd, v6, "::", 19100) == 0, "bind v6: %s",
	      strerror(errno));
	CHECK_ERRNO(rcm_bind(fd, v4, "0.0.0.0", 19100), EADDRNOTAVAIL);
	/* AFONLY on both sides: they share. */
	CHECK(set_opt(fd, v6b, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 1) == 0 &&
	      set_opt(fd, v4b, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 1) == 0,
	      "set: %s", strerror(errno));
	CHECK(rcm_bind(fd, v6b, "::", 19101) == 0, "bind v6b: %s",
	      strerror(errno));
	CHECK(rcm_bind(fd, v4b, "0.0.0.0", 19101) == 0, "bind v4b: %s",
	      strerror(errno));
	close(fd);
}

RCM_TEST(afonly_is_fixed_once_resolved)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_query_id q;
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);

	if (!ip)
		SKIP("no Soft-RoCE device");
	CHECK(id && routed(fd, id, ip, &q) == 0, "route: %s", strerror(errno));
	CHECK_ERRNO(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_AFONLY, 1),
		    EINVAL);
	close(fd);
}

RCM_TEST(tos_and_ack_timeout_shape_the_path)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_query_id q;
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);

	if (!ip)
		SKIP("no Soft-RoCE device");
	CHECK(id, "create: %s", strerror(errno));
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_TOS, 0x68) == 0,
	      "tos: %s", strerror(errno));
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_ACK_TIMEOUT, 14) == 0,
	      "ack timeout: %s", strerror(errno));
	CHECK(routed(fd, id, ip, &q) == 0, "route: %s", strerror(errno));
	CHECK(q.out_num_paths == 1, "no path");
	CHECK(q.out_path.traffic_class == 0x68, "traffic class %#x",
	      q.out_path.traffic_class);
	CHECK(q.out_path.packet_life_time == 13, "packet lifetime %u, want 13",
	      q.out_path.packet_life_time);
	close(fd);
}

RCM_TEST(resolve_timeout_range)
{
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);

	CHECK(id && ud, "create: %s", strerror(errno));
	CHECK_ERRNO(set_opt(fd, id, RCM_OPTION_ID,
			    RCM_OPTION_ID_RESOLVE_TIMEOUT,
			    RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	/* The value is 64 bits wide: no truncation to a valid one. */
	CHECK_ERRNO(set_opt(fd, id, RCM_OPTION_ID,
			    RCM_OPTION_ID_RESOLVE_TIMEOUT, (1ULL << 32) + 300),
		    EINVAL);
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_RESOLVE_TIMEOUT,
		      RCM_MAX_TIMEOUT_MS) == 0, "max: %s", strerror(errno));
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_RESOLVE_TIMEOUT,
		      1) == 0, "1: %s", strerror(errno));
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_RESOLVE_TIMEOUT,
		      0) == 0, "0: %s", strerror(errno));
	/* Any QP type. */
	CHECK(set_opt(fd, ud, RCM_OPTION_ID, RCM_OPTION_ID_RESOLVE_TIMEOUT,
		      500) == 0, "UD: %s", strerror(errno));
	CHECK_ERRNO(set_opt(fd, id + ud + 99, RCM_OPTION_ID,
			    RCM_OPTION_ID_RESOLVE_TIMEOUT, 500), ENOENT);
	close(fd);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
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
	return ms_since(&t0);
}

RCM_TEST(resolve_timeout_replaces_the_commands)
{
	const char *ip = getenv("RCM_ADDR_SILENT");
	const char *rxe = getenv("RCM_ADDR_RXE");
	struct rcm_query_id q;
	struct rcm_event ev;
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	long ms;

	if (!ip)
		SKIP("RCM_ADDR_SILENT not set");
	CHECK(id, "create: %s", strerror(errno));
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_RESOLVE_TIMEOUT,
		      300) == 0, "set: %s", strerror(errno));
	/* 60 s in the command; the option's 300 ms win. */
	ms = silent_resolution(fd, id, ip, 60000, &ev);
	CHECK(ms >= 0, "resolve: %s (%ld)", strerror(errno), ms);
	CHECK(ev.id == id && ev.event == RCM_EVENT_ADDR_ERROR &&
	      ev.status == -ETIMEDOUT,
	      "event %u status %d, want ADDR_ERROR -ETIMEDOUT", ev.event,
	      ev.status);
	CHECK(ms >= 250 && ms <= 2000, "ADDR_ERROR after %ld ms, want ~300",
	      ms);
	/* Back to 0: the command's timeout counts again. */
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_RESOLVE_TIMEOUT,
		      0) == 0, "reset: %s", strerror(errno));
	ms = silent_resolution(fd, id, ip, 1200, &ev);
	CHECK(ms >= 0 && ev.event == RCM_EVENT_ADDR_ERROR &&
	      ev.status == -ETIMEDOUT, "second resolution: %ld ms, event %u "
	      "status %d", ms, ev.event, ev.status);
	CHECK(ms >= 1100, "ADDR_ERROR after %ld ms of the command's 1200", ms);
	close(fd);

	/* A route resolution takes the option too (and needs no wait). */
	if (!rxe)
		return;
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	CHECK(id, "create: %s", strerror(errno));
	CHECK(set_opt(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_RESOLVE_TIMEOUT,
		      300) == 0, "set: %s", strerror(errno));
	CHECK(routed(fd, id, rxe, &q) == 0 && q.out_num_paths == 1,
	      "route with the option: %s", strerror(errno));
	close(fd);
}

int main(void)
{
	return rcm_test_run();
}
