// SPDX-License-Identifier: GPL-2.0-only
/*
 * addr: binding ids to local addresses and ports, and resolving
 * destinations, with the errno values the uapi documents; also a
 * loopback address bound as a wildcard (as in-tree), and ephemeral
 * ports shared by ids resolving towards different destinations (the
 * port range narrowed to two ports), never by an id bound with port 0,
 * never twice towards one destination.
 *
 * Guest environment (tools/testing/vm/guest-init.sh): RCM_ADDR_RXE and
 * RCM_ADDR6_RXE are addresses of the Soft-RoCE netdev, RCM_ADDR_SIW of
 * the soft-iWARP one (test kernel only), RCM_ADDR_NORDMA an address with
 * no RDMA device, RCM_ADDR_SILENT a neighbour that never answers.
 */
#include <arpa/inet.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

static const char *env(const char *name)
{
	return getenv(name);
}

static uint16_t port_of(const struct __kernel_sockaddr_storage *kss)
{
	return ntohs(((const struct sockaddr_in *)kss)->sin_port);
}

#define NEED_ENV(var, name)						\
	const char *var = env(name);					\
	do {								\
		if (!var)						\
			SKIP(return, "%s not set (no such device here)", name);	\
	} while (0)

/* A new file in *@fd, and in it a new RCM_PS_TCP id of context @ctx. */
static unsigned int new_id(struct __test_metadata *_metadata, int *fd,
			   unsigned long long ctx)
{
	unsigned int id;

	*fd = rcm_open_dev();
	id = rcm_create(*fd, RCM_PS_TCP, RCM_QPT_RC, ctx);
	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	return id;
}

/*
 * A new id of a new file, as new_id(), resolved to the local @ip: its
 * ADDR_RESOLVED event taken, of status 0, the id's and of context @ctx.
 */
static unsigned int resolved_id(struct __test_metadata *_metadata, int *fd,
				unsigned long long ctx, const char *ip)
{
	struct rcm_event ev;
	unsigned int id = new_id(_metadata, fd, ctx);

	ASSERT_EQ(0, rcm_resolve(*fd, id, NULL, ip, 2000))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_wait_event(*fd, 10000, &ev))
		TH_LOG("no event in 10 s");
	ASSERT_EQ(RCM_EVENT_ADDR_RESOLVED, ev.event)
		TH_LOG("event %u status %d", ev.event, ev.status);
	ASSERT_TRUE(ev.status == 0 && ev.id == id && ev.context == ctx)
		TH_LOG("status %d id %u context %llx", ev.status, ev.id,
		       (unsigned long long)ev.context);
	return id;
}

/*
 * A new id of a new file (returned) bound to @ip:@port, *@q its query:
 * the set-up of the bind cases.
 */
static int bound(struct __test_metadata *_metadata, const char *ip,
		 unsigned short port, struct rcm_query_id *q)
{
	int fd;
	unsigned int id = new_id(_metadata, &fd, 1);

	ASSERT_EQ(0, rcm_bind(fd, id, ip, port))
		TH_LOG("bind %s: %s", ip, strerror(errno));
	ASSERT_EQ(0, rcm_query(fd, id, q))
		TH_LOG("query: %s", strerror(errno));
	return fd;
}

TEST(bind_wildcard_takes_an_ephemeral_port)
{
	struct rcm_query_id q;
	int fd = bound(_metadata, "0.0.0.0", 0, &q);

	ASSERT_EQ(AF_INET, q.out_src.ss_family)
		TH_LOG("family %u", q.out_src.ss_family);
	ASSERT_LE(1024, port_of(&q.out_src))
		TH_LOG("ephemeral port %u", port_of(&q.out_src));
	ASSERT_TRUE(q.out_port_num == 0 && q.out_node_guid == 0)
		TH_LOG("a wildcard bind attached to a device");
	ASSERT_ERRNO(rcm_bind(fd, q.id, "0.0.0.0", 0), EINVAL);
	close(fd);
}

TEST(bind_to_rxe_address_attaches_the_device)
{
	NEED_ENV(ip, "RCM_ADDR_RXE");
	unsigned short port = rcm_free_port(ip, RCM_PS_TCP);
	struct rcm_query_id q;
	struct in6_addr want;
	int fd;

	ASSERT_NE(0, port)
		TH_LOG("no free port: %s", strerror(errno));
	/* A port asked for by number is the one the id gets. */
	fd = bound(_metadata, ip, port, &q);
	ASSERT_EQ(port, port_of(&q.out_src))
		TH_LOG("port %u", port_of(&q.out_src));
	ASSERT_EQ(1, q.out_port_num)
		TH_LOG("port_num %u", q.out_port_num);
	ASSERT_NE(0, q.out_node_guid)
		TH_LOG("no node GUID");
	/* RoCE: the GID is the IPv4-mapped address. */
	memset(&want, 0, sizeof(want));
	want.s6_addr[10] = want.s6_addr[11] = 0xff;
	inet_pton(AF_INET, ip, &want.s6_addr[12]);
	ASSERT_TRUE(!memcmp(q.out_sgid, &want, 16))
		TH_LOG("sgid is not ::ffff:%s", ip);
	close(fd);
}

/*
 * As in-tree (cma_any_addr()): a loopback address is a wildcard. The id
 * binds to no device, and a listener on 127.0.0.1 (what libfabric's
 * verbs provider makes of "localhost") hears a request for the rxe
 * address.
 */
TEST(bind_to_loopback_is_a_wildcard)
{
	NEED_ENV(ip, "RCM_ADDR_RXE");
	struct rcm_query_id q;
	struct rcm_event ev;
	unsigned int lid, cid;
	int s = rcm_open_dev(), c = rcm_open_dev();

	lid = rcm_create(s, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_TRUE(lid && rcm_bind(s, lid, "127.0.0.1", 0) == 0)
		TH_LOG("bind 127.0.0.1: %s", strerror(errno));
	ASSERT_TRUE(rcm_query(s, lid, &q) == 0 && q.out_port_num == 0 &&
		    !q.out_node_guid)
		TH_LOG("bound to a device (port %u)", q.out_port_num);
	ASSERT_EQ(0, rcm_listen(s, lid, 4))
		TH_LOG("listen: %s", strerror(errno));
	cid = rcm_routed_id(c, ip, port_of(&q.out_src), 2);
	ASSERT_TRUE(cid && rcm_connect(c, cid, 0x42, NULL) == 0)
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_TRUE(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0 &&
		    ev.listen_id == lid)
		TH_LOG("no request on the loopback listener");
	close(c);
	close(s);
}

TEST(bind_returns_what_a_query_would)
{
	NEED_ENV(ip, "RCM_ADDR_RXE");
	struct rcm_bind_addr b = { .size = sizeof(b) };
	struct rcm_query_id q;
	int fd;
	unsigned int id = new_id(_metadata, &fd, 1);

	b.id = id;
	rcm_sockaddr(&b.addr, ip, 0);
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_BIND_ADDR, &b))
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rcm_query(fd, id, &q))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_NE(0, port_of(&q.out_src))
		TH_LOG("no ephemeral port");
	ASSERT_TRUE(!memcmp(b.out_info.src, &q.out_src, sizeof(struct sockaddr_in)) &&
		    b.out_info.port_num == q.out_port_num &&
		    b.out_info.node_guid == q.out_node_guid &&
		    !memcmp(b.out_info.sgid, q.out_sgid, 16) &&
		    b.out_info.num_paths == 0)
		TH_LOG("bind's info differs from the query");
	/* The struct of ABI version 2 is the smallest: out_info too. */
	b.size = offsetof(struct rcm_bind_addr, out_info);
	b.id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_BIND_ADDR, &b), EINVAL);
	close(fd);
}

TEST(bind_to_rxe_ipv6_address)
{
	NEED_ENV(ip, "RCM_ADDR6_RXE");
	struct rcm_query_id q;
	int fd = bound(_metadata, ip, 0, &q);

	ASSERT_EQ(AF_INET6, q.out_src.ss_family)
		TH_LOG("family %u", q.out_src.ss_family);
	ASSERT_EQ(1, q.out_port_num)
		TH_LOG("port_num %u", q.out_port_num);
	ASSERT_TRUE(!memcmp(q.out_sgid, &((struct sockaddr_in6 *)&q.out_src)->sin6_addr,
		    16))
		TH_LOG("sgid is not the IPv6 address");
	close(fd);
}

TEST(bind_to_siw_address_attaches_the_iwarp_device)
{
	NEED_ENV(ip, "RCM_ADDR_SIW");
	struct rcm_query_id q;
	int fd = bound(_metadata, ip, 0, &q);

	ASSERT_TRUE(q.out_port_num == 1 && q.out_node_guid != 0)
		TH_LOG("not attached (port %u)", q.out_port_num);
	close(fd);
}

TEST(bind_errors)
{
	NEED_ENV(nordma, "RCM_ADDR_NORDMA");
	struct rcm_bind_addr b = { .size = sizeof(b) };
	int fd;
	unsigned int id = new_id(_metadata, &fd, 1);

	/* Not a local address at all. */
	ASSERT_ERRNO(rcm_bind(fd, id, "198.18.123.45", 0), EADDRNOTAVAIL);
	/* Local, but no RDMA device behind it. */
	ASSERT_ERRNO(rcm_bind(fd, id, nordma, 0), ENODEV);
	/* A link-local IPv6 address needs its scope. */
	ASSERT_ERRNO(rcm_bind(fd, id, "fe80::1", 0), EINVAL);
	/* Families other than IPv4/IPv6. */
	b.id = id;
	b.addr.ss_family = AF_UNIX;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_BIND_ADDR, &b), EAFNOSUPPORT);
	/* Bytes past the sockaddr_in must be zero. */
	rcm_sockaddr(&b.addr, "0.0.0.0", 0);
	b.addr.__data[sizeof(struct sockaddr_in)] = 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_BIND_ADDR, &b), EINVAL);
	rcm_sockaddr(&b.addr, "0.0.0.0", 0);
	b.reserved = 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_BIND_ADDR, &b), EINVAL);
	b.reserved = 0;
	b.id = id + 1000;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_BIND_ADDR, &b), ENOENT);
	/* After all those failures the id still binds. */
	ASSERT_EQ(0, rcm_bind(fd, id, "0.0.0.0", 0))
		TH_LOG("bind: %s", strerror(errno));
	close(fd);
}

TEST(port_conflicts_follow_the_in_tree_rules)
{
	NEED_ENV(ip, "RCM_ADDR_RXE");
	int a = rcm_open_dev(), b = rcm_open_dev();
	unsigned int x = rcm_create(a, RCM_PS_TCP, RCM_QPT_RC, 1);
	unsigned int y = rcm_create(b, RCM_PS_TCP, RCM_QPT_RC, 2);
	unsigned int z = rcm_create(b, RCM_PS_TCP, RCM_QPT_RC, 3);
	unsigned int u = rcm_create(b, RCM_PS_UDP, RCM_QPT_UD, 4);
	unsigned short port;

	ASSERT_TRUE(x && y && z && u)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(a, x, ip, 0))
		TH_LOG("bind: %s", strerror(errno));
	port = rcm_local_port(a, x);
	/* The port space is shared by every file of the namespace. */
	ASSERT_ERRNO(rcm_bind(b, y, ip, port), EADDRINUSE);
	ASSERT_ERRNO(rcm_bind(b, y, "0.0.0.0", port), EADDRNOTAVAIL);
	/* Another port space is another table. */
	ASSERT_EQ(0, rcm_bind(b, u, ip, port))
		TH_LOG("UDP bind: %s", strerror(errno));
	/* Destroying the owner frees the port. */
	ASSERT_EQ(0, rcm_destroy(a, x))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(b, z, ip, port))
		TH_LOG("rebind: %s", strerror(errno));
	close(a);
	close(b);
}

TEST(ephemeral_ports_are_distinct)
{
	static uint16_t ports[300];
	struct rcm_query_id q;
	int i, j, fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open");
	for (i = 0; i < 300; i++) {
		unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i);

		ASSERT_TRUE(id && rcm_bind(fd, id, "0.0.0.0", 0) == 0 &&
			    rcm_query(fd, id, &q) == 0)
			TH_LOG("id %d: %s", i, strerror(errno));
		ports[i] = port_of(&q.out_src);
		for (j = 0; j < i; j++) {
			ASSERT_NE(ports[j], ports[i])
				TH_LOG("port %u twice", ports[i]);
		}
	}
	close(fd);
}

/* 999 and 998: the ports under net.ipv4.ip_unprivileged_port_start. */
TEST(privileged_ports_need_cap_net_bind_service)
{
	unsigned short port = rcm_free_port("0.0.0.0", RCM_PS_TCP);
	pid_t pid;
	int st, fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);

	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	if (geteuid() != 0)
		SKIP(return, "needs root to compare with an unprivileged user");
	ASSERT_EQ(0, rcm_bind(fd, id, "0.0.0.0", 999))
		TH_LOG("root bind 999: %s", strerror(errno));
	close(fd);
	pid = fork();
	ASSERT_LE(0, pid)
		TH_LOG("fork");
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		fd = rcm_open_dev();
		id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
		if (!id)
			_exit(3);
		if (rcm_bind(fd, id, "0.0.0.0", 998) != -1 || errno != EACCES)
			_exit(4);
		if (!port || rcm_bind(fd, id, "0.0.0.0", port))
			_exit(5);
		_exit(0);
	}
	st = rcm_exit_status(pid);
	ASSERT_EQ(0, st)
		TH_LOG("unprivileged child failed at step %d", st);
}

TEST(resolve_local_rxe_address)
{
	NEED_ENV(ip, "RCM_ADDR_RXE");
	struct rcm_query_id q;
	int fd;
	unsigned int id = resolved_id(_metadata, &fd, 0xfeed, ip);

	ASSERT_EQ(0, rcm_query(fd, id, &q))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_EQ(1, q.out_port_num)
		TH_LOG("not attached after resolution");
	ASSERT_TRUE(((struct sockaddr_in *)&q.out_src)->sin_addr.s_addr ==
		    inet_addr(ip))
		TH_LOG("source is not the local address");
	ASSERT_TRUE(((struct sockaddr_in *)&q.out_dst)->sin_addr.s_addr ==
		    inet_addr(ip))
		TH_LOG("destination not recorded");
	/* Resolved ids do not resolve again. */
	ASSERT_ERRNO(rcm_resolve(fd, id, NULL, ip, 2000), EINVAL);
	close(fd);
}

TEST(resolve_local_rxe_ipv6_address)
{
	NEED_ENV(ip, "RCM_ADDR6_RXE");
	int fd;

	ASSERT_TRUE(resolved_id(_metadata, &fd, 6, ip));
	close(fd);
}

TEST(resolve_silent_neighbour_times_out)
{
	NEED_ENV(ip, "RCM_ADDR_SILENT");
	struct rcm_event ev;
	struct timespec t0;
	int fd;
	unsigned int id = new_id(_metadata, &fd, 7);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_resolve(fd, id, NULL, ip, 1000))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_wait_event(fd, 15000, &ev))
		TH_LOG("no event in 15 s");
	ASSERT_TRUE(ev.event == RCM_EVENT_ADDR_ERROR && ev.status == -ETIMEDOUT)
		TH_LOG("event %u status %d, want ADDR_ERROR -ETIMEDOUT", ev.event,
		       ev.status);
	ASSERT_LE(900, rcm_ms_since(&t0))
		TH_LOG("gave up after %ld ms of a 1000 ms timeout",
		       rcm_ms_since(&t0));
	/* Back to bound: the id may try again. */
	ASSERT_EQ(0, rcm_resolve(fd, id, NULL, ip, 100))
		TH_LOG("second resolve: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(fd, 15000, &ev) == 0 &&
		    ev.event == RCM_EVENT_ADDR_ERROR)
		TH_LOG("second resolution");
	close(fd);
}

TEST(resolve_without_route_fails_at_once)
{
	int fd;
	unsigned int id = new_id(_metadata, &fd, 8);

	ASSERT_ERRNO(rcm_resolve(fd, id, NULL, "198.19.255.1", 1000), ENETUNREACH);
	close(fd);
}

TEST(resolve_arguments_are_checked)
{
	struct rcm_resolve_addr r = { .size = sizeof(r) };
	int fd;
	unsigned int id = new_id(_metadata, &fd, 9);

	r.id = id;
	rcm_sockaddr(&r.dst, "198.18.1.1", 1);
	r.timeout_ms = RCM_MAX_TIMEOUT_MS + 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_RESOLVE_ADDR, &r), EINVAL);
	r.timeout_ms = 100;
	rcm_sockaddr(&r.src, "::", 0);
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_RESOLVE_ADDR, &r), EINVAL);
	memset(&r.src, 0, sizeof(r.src));
	r.dst.ss_family = AF_PACKET;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_RESOLVE_ADDR, &r), EAFNOSUPPORT);
	close(fd);
}

TEST(destroy_and_close_during_resolution)
{
	NEED_ENV(ip, "RCM_ADDR_SILENT");
	struct rcm_destroy_id d = { .size = sizeof(d) };
	struct timespec t0;
	struct rcm_event ev;
	int i, fd = rcm_open_dev();
	unsigned int id;

	for (i = 0; i < 20; i++) {
		id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i);
		ASSERT_TRUE(id && rcm_resolve(fd, id, NULL, ip, 10000) == 0)
			TH_LOG("resolve #%d: %s", i, strerror(errno));
		if (i % 2)
			continue;	/* left for close() */
		d.id = id;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_DESTROY_ID, &d))
			TH_LOG("destroy: %s", strerror(errno));
		ASSERT_GT(2000, rcm_ms_since(&t0))
			TH_LOG("destroy waited %ld ms", rcm_ms_since(&t0));
		ASSERT_EQ(0, d.out_events_reported)
			TH_LOG("events reported");
	}
	ASSERT_EQ(-1, rcm_wait_event(fd, 200, &ev))
		TH_LOG("an event arrived for a destroyed id");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	close(fd);
	ASSERT_GT(2000, rcm_ms_since(&t0))
		TH_LOG("close waited %ld ms", rcm_ms_since(&t0));
}

TEST(events_reported_counts_what_read_returned)
{
	NEED_ENV(ip, "RCM_ADDR_RXE");
	struct rcm_destroy_id d = { .size = sizeof(d) };
	struct rcm_event ev;
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 10);

	ASSERT_TRUE(id && rcm_resolve(fd, id, NULL, ip, 2000) == 0)
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_wait_event(fd, 10000, &ev))
		TH_LOG("no event");
	d.id = id;
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_DESTROY_ID, &d))
		TH_LOG("destroy");
	ASSERT_EQ(1, d.out_events_reported)
		TH_LOG("reported %u, want 1", d.out_events_reported);
	close(fd);
}

TEST(one_read_returns_several_events)
{
	NEED_ENV(ip, "RCM_ADDR_RXE");
	struct rcm_event ev[8];
	unsigned int ids[5];
	int i, fd = rcm_open_dev();
	ssize_t n;

	for (i = 0; i < 5; i++) {
		ids[i] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 100 + i);
		ASSERT_TRUE(ids[i] &&
			    rcm_resolve(fd, ids[i], NULL, ip, 2000) == 0)
			TH_LOG("resolve #%d: %s", i, strerror(errno));
	}
	/* Wait for all five queued (fdinfo), then take them in one call. */
	ASSERT_TRUE(RCM_WAIT_FOR(rcm_events_queued(fd) >= 5, 30000) &&
		    rcm_events_queued(fd) == 5)
		TH_LOG("events queued after 30 s");
	n = read(fd, ev, sizeof(ev));
	ASSERT_EQ(n, 5 * (ssize_t)sizeof(ev[0]))
		TH_LOG("read %zd bytes, want 5 events", n);
	for (i = 0; i < 5; i++) {
		ASSERT_TRUE(ev[i].event == RCM_EVENT_ADDR_RESOLVED &&
			    ev[i].context >= 100 && ev[i].context < 105)
			TH_LOG("event %d: type %u ctx %llu", i, ev[i].event,
			       (unsigned long long)ev[i].context);
	}
	/* All were taken: a non-blocking read now finds nothing. */
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK))
		TH_LOG("fcntl");
	ASSERT_ERRNO(read(fd, ev, sizeof(ev[0]) * 3 / 2), EAGAIN);
	close(fd);
}

/*
 * The ephemeral range of the narrow_range cases: this port and the next.
 * The range is what they test, so it is set, not drawn from bind(0).
 */
#define NARROW_LOW 40000

/*
 * With two ephemeral ports, four ids resolving towards four silent
 * neighbours all get one: ids on their way to different destinations
 * share a port, as in-tree. An id bound with port 0 (no destination)
 * finds none, and a destination is never reached twice from one port.
 * Called with the port range narrowed; its caller
 * restores the range whatever happens here.
 */
static void ephemeral_sharing(struct __test_metadata *_metadata,
			      const char *rxe)
{
	unsigned int ids[7];
	char dst[4][INET_ADDRSTRLEN];
	struct rcm_query_id q;
	struct in_addr a;
	int i, ok = 0, fd = rcm_open_dev();
	uint16_t first;

	ASSERT_TRUE(fd >= 0 && inet_pton(AF_INET, rxe, &a) == 1)
		TH_LOG("setup");
	for (i = 0; i < 4; i++) {
		struct in_addr d = { htonl((ntohl(a.s_addr) & ~0xffu) | (201 + i)) };

		inet_ntop(AF_INET, &d, dst[i], sizeof(dst[i]));
	}
	for (i = 0; i < 7; i++) {
		ids[i] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i);
		ASSERT_TRUE(ids[i])
			TH_LOG("create: %s", strerror(errno));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, rcm_resolve(fd, ids[i], NULL, dst[i], 60000))
			TH_LOG("resolve towards %s: %s", dst[i], strerror(errno));
		ASSERT_EQ(0, rcm_query(fd, ids[i], &q))
			TH_LOG("query");
		ASSERT_TRUE(port_of(&q.out_src) == NARROW_LOW ||
			    port_of(&q.out_src) == NARROW_LOW + 1)
			TH_LOG("port %u out of range", port_of(&q.out_src));
	}
	ASSERT_ERRNO(rcm_bind(fd, ids[4], "0.0.0.0", 0), EADDRNOTAVAIL);
	/*
	 * Towards dst[0] again: at most the port its first id lacks (not
	 * when that port was handed out last), never the same one.
	 */
	ASSERT_EQ(0, rcm_query(fd, ids[0], &q))
		TH_LOG("query");
	first = port_of(&q.out_src);
	for (i = 5; i < 7; i++) {
		if (rcm_resolve(fd, ids[i], NULL, dst[0], 60000)) {
			ASSERT_EQ(EADDRNOTAVAIL, errno)
				TH_LOG("resolve: %s", strerror(errno));
			continue;
		}
		ok++;
		ASSERT_EQ(0, rcm_query(fd, ids[i], &q))
			TH_LOG("query");
		ASSERT_NE(port_of(&q.out_src), first)
			TH_LOG("the pair (%u, %s) twice", first, dst[0]);
	}
	ASSERT_GE(1, ok)
		TH_LOG("%d more ids towards %s", ok, dst[0]);
	close(fd);
}

#define RANGE "/proc/sys/net/ipv4/ip_local_port_range"

/* Write @range ("low high") to the sysctl: 0, or -1. */
static int set_range(const char *range)
{
	int fd = open(RANGE, O_WRONLY);
	ssize_t n = fd < 0 ? -1 : write(fd, range, strlen(range));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(range) ? 0 : -1;
}

/* The sysctl narrowed to two ports, and put back whatever the case did. */
FIXTURE(narrow_range) {
	char saved[64];
};

FIXTURE_SETUP(narrow_range)
{
	char range[32];
	FILE *f;

	if (geteuid() != 0)
		SKIP_SETUP("needs root to narrow ip_local_port_range");
	f = fopen(RANGE, "r");
	ASSERT_TRUE(f && fgets(self->saved, sizeof(self->saved), f))
		TH_LOG("read the port range");
	fclose(f);
	self->saved[strcspn(self->saved, "\n")] = '\0';
	/* The range is the subject: two ports, named. */
	snprintf(range, sizeof(range), "%u %u", NARROW_LOW, NARROW_LOW + 1);
	ASSERT_EQ(0, set_range(range))
		TH_LOG("narrow the port range: %s", strerror(errno));
}

FIXTURE_TEARDOWN(narrow_range)
{
	EXPECT_EQ(0, set_range(self->saved))
		TH_LOG("could not restore the range '%s'", self->saved);
}

TEST_F(narrow_range, ephemeral_ports_shared_by_destination)
{
	NEED_ENV(rxe, "RCM_ADDR_RXE");

	ephemeral_sharing(_metadata, rxe);
}

RCM_TEST_MAIN
