// SPDX-License-Identifier: GPL-2.0-only
/*
 * mcast: RCM_IOCTL_JOIN_MCAST and RCM_IOCTL_LEAVE_MCAST on Soft-RoCE
 * (RoCE v2), with raw ioctls. A full join on a bound UD id reports
 * MULTICAST_JOIN with the group's context, RCM_MCAST_QPN, the Q_Key and
 * the address vector (MGID ::ffff:239.1.2.3 byte for byte, the sgid
 * index of the address's RoCE v2 GID in sysfs, hop limit 64, the TOS as
 * traffic class); a full member's IPv4 group shows in /proc/net/igmp on
 * the netdev until it is left, the id destroyed, its process killed or
 * its device removed (the group can still be left then); a send-only
 * member's never does. An address-resolved id joins too, and its
 * destroy leaves. Every errno of join and leave (RC, unbound and
 * wildcard-bound ids, unicast, IPv6 on RoCE v2); a group joined twice
 * is two joins, as in-tree, each left by one leave (the latest first)
 * and each an IP membership until then. A leave
 * discards the group's unread event and reports what was read; a
 * migrated id's group event is read and left from the new file; two
 * files joining one group are two IP members. Joins and leaves race
 * reads of their events and the id's destroy (KASAN and lockdep watch),
 * and no IP membership is left. The MGID derivation itself is a KUnit
 * suite (rcm_wire_mcast).
 *
 * Needs RCM_ADDR_RXE and RCM_NETDEV_RXE from the guest. The removal case
 * re-creates rxe0 at its end.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

/*
 * Users of IPv4 group @group on @netdev in /proc/net/igmp, 0 when the
 * netdev has not joined it, -1 when the file cannot be read.
 */
static int igmp_users(const char *netdev, const char *group)
{
	char line[256], name[64] = "";
	unsigned int addr;
	struct in_addr want;
	int idx, users, found = 0;
	FILE *f = fopen("/proc/net/igmp", "r");

	if (!f)
		return -1;
	inet_pton(AF_INET, group, &want);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != '\t') {
			/* "Idx\tDevice : Count Querier" or a device line */
			if (sscanf(line, "%d %63s", &idx, name) != 2)
				name[0] = 0;
			continue;
		}
		/* The group is the __be32 printed as a host-order %08X. */
		if (sscanf(line, " %x %d", &addr, &users) == 2 &&
		    !strcmp(name, netdev) && addr == want.s_addr) {
			found = users;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * Does @netdev have @want users of @group? Always yes on a kernel
 * without /proc/net/igmp (CONFIG_IP_MULTICAST=n, as the test kernel):
 * the membership is still taken and dropped, but cannot be seen.
 */
static int igmp_is(const char *netdev, const char *group, int want)
{
	int users = igmp_users(netdev, group);

	return users < 0 || users == want;
}

static int join(int fd, unsigned int id, const char *group,
		unsigned int flags, unsigned long long ctx)
{
	struct rcm_join_mcast j = {
		.size = sizeof(j), .id = id, .join_flags = flags,
		.context = ctx,
	};

	/* A group's port plays no part in a join. */
	rcm_sockaddr(&j.addr, group, 0);
	return ioctl(fd, RCM_IOCTL_JOIN_MCAST, &j);
}

/* Leave; *@reported gets out_events_reported. */
static int leave(int fd, unsigned int id, const char *group,
		 unsigned int *reported)
{
	struct rcm_leave_mcast l = { .size = sizeof(l), .id = id };
	int ret;

	rcm_sockaddr(&l.addr, group, 0);
	ret = ioctl(fd, RCM_IOCTL_LEAVE_MCAST, &l);
	if (reported)
		*reported = l.out_events_reported;
	return ret;
}

/* A UD id of @fd bound to @ip (ephemeral port); its handle, or 0. */
static unsigned int ud_bound(int fd, const char *ip, unsigned long long ctx)
{
	unsigned int id = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, ctx);

	if (!id)
		return 0;
	if (rcm_bind(fd, id, ip, 0)) {
		rcm_destroy(fd, id);
		return 0;
	}
	return id;
}

/*
 * A UD id of @fd (context 1) bound to @ip, that joined @group with
 * @flags and context @ctx: its handle.
 */
static unsigned int ud_joined(struct __test_metadata *_metadata, int fd,
			      const char *ip, const char *group,
			      unsigned int flags, unsigned long long ctx)
{
	unsigned int id = ud_bound(fd, ip, 1);

	ASSERT_TRUE(id)
		TH_LOG("UD id: %s", strerror(errno));
	ASSERT_EQ(0, join(fd, id, group, flags, ctx))
		TH_LOG("join: %s", strerror(errno));
	return id;
}

/* No event within @ms. */
static int quiet(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 0;
}

/*
 * Index of the RoCE v2 GID of IPv4 address @ip in rxe0's port 1 GID
 * table, or -1.
 */
static int gid_index(const char *ip)
{
	unsigned char b[4];
	char want[64], path[128], got[64], type[32];
	FILE *f;
	int i;

	inet_pton(AF_INET, ip, b);
	snprintf(want, sizeof(want),
		 "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", b[0], b[1],
		 b[2], b[3]);
	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/rxe0/ports/1/gids/%d", i);
		f = fopen(path, "r");
		if (!f)
			return -1;
		got[0] = 0;
		if (!fgets(got, sizeof(got), f))
			got[0] = 0;
		fclose(f);
		if (strncmp(got, want, strlen(want)))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/%d",
			 i);
		f = fopen(path, "r");
		if (!f)
			continue;
		type[0] = 0;
		if (!fgets(type, sizeof(type), f))
			type[0] = 0;
		fclose(f);
		if (!strncmp(type, "RoCE v2", 7))
			return i;
	}
	return -1;
}

#define GROUP "239.1.2.3"

TEST(full_join_reports_group_and_joins_igmp)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	static const unsigned char mgid[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3,
	};
	struct rcm_event ev;
	unsigned int id, reported;
	int fd, sgid;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	id = ud_bound(fd, ip, 0x1d);
	ASSERT_TRUE(id)
		TH_LOG("UD id bound to %s: %s", ip, strerror(errno));
	sgid = gid_index(ip);
	ASSERT_LE(0, sgid)
		TH_LOG("no RoCE v2 GID for %s", ip);
	ASSERT_EQ(0, rcm_set_option(fd, id, RCM_OPTION_ID, RCM_OPTION_ID_TOS, 32))
		TH_LOG("TOS: %s", strerror(errno));
	if (igmp_users(netdev, GROUP) < 0)
		printf("# no /proc/net/igmp: IP memberships are not checked\n");
	ASSERT_TRUE(igmp_is(netdev, GROUP, 0))
		TH_LOG("%s already joined on %s", GROUP, netdev);
	ASSERT_EQ(0, join(fd, id, GROUP, RCM_MC_JOIN_FULLMEMBER, 0xc0ffee))
		TH_LOG("join: %s", strerror(errno));
	/* Queued before the ioctl returned. */
	ASSERT_EQ(0, rcm_wait_event(fd, 0, &ev))
		TH_LOG("no event queued by the join");
	ASSERT_TRUE(ev.event == RCM_EVENT_MULTICAST_JOIN && ev.status == 0)
		TH_LOG("event %u status %d", ev.event, ev.status);
	ASSERT_EQ(0xc0ffee, ev.context)
		TH_LOG("context %#llx, want the group's",
		       (unsigned long long)ev.context);
	ASSERT_EQ(ev.id, id)
		TH_LOG("id %u, want %u", ev.id, id);
	ASSERT_EQ(RCM_MCAST_QPN, ev.ud.qp_num)
		TH_LOG("qp_num %#x", ev.ud.qp_num);
	ASSERT_EQ(RCM_UDP_QKEY, ev.ud.qkey)
		TH_LOG("qkey %#x", ev.ud.qkey);
	ASSERT_TRUE(!memcmp(ev.ud.ah_attr.dgid, mgid, 16))
		TH_LOG("dgid %02x%02x..%02x%02x:%u.%u.%u.%u, want ::ffff:239.1.2.3",
		       ev.ud.ah_attr.dgid[0], ev.ud.ah_attr.dgid[1],
		       ev.ud.ah_attr.dgid[10], ev.ud.ah_attr.dgid[11],
		       ev.ud.ah_attr.dgid[12], ev.ud.ah_attr.dgid[13],
		       ev.ud.ah_attr.dgid[14], ev.ud.ah_attr.dgid[15]);
	ASSERT_TRUE(ev.ud.ah_attr.is_global == 1 && ev.ud.ah_attr.port_num == 1 &&
		    ev.ud.ah_attr.dlid == 0)
		TH_LOG("is_global %u port %u dlid %u",
		       ev.ud.ah_attr.is_global, ev.ud.ah_attr.port_num,
		       ev.ud.ah_attr.dlid);
	ASSERT_EQ(64, ev.ud.ah_attr.hop_limit)
		TH_LOG("hop_limit %u, want 64 (RoCE v2)",
		       ev.ud.ah_attr.hop_limit);
	ASSERT_EQ(ev.ud.ah_attr.sgid_index, sgid)
		TH_LOG("sgid_index %u, want %d",
		       ev.ud.ah_attr.sgid_index, sgid);
	ASSERT_EQ(32, ev.ud.ah_attr.traffic_class)
		TH_LOG("traffic_class %u, want TOS",
		       ev.ud.ah_attr.traffic_class);
	ASSERT_TRUE(ev.ud.ah_attr.flow_label == 0 &&
		    ev.ud.ah_attr.static_rate == 0)
		TH_LOG("flow_label %u static_rate %u", ev.ud.ah_attr.flow_label,
		       ev.ud.ah_attr.static_rate);
	ASSERT_EQ(0, ev.private_data_len)
		TH_LOG("private_data_len %u", ev.private_data_len);
	ASSERT_TRUE(igmp_is(netdev, GROUP, 1))
		TH_LOG("%s on %s: %d users, want 1",
		       GROUP, netdev, igmp_users(netdev, GROUP));

	ASSERT_EQ(0, leave(fd, id, GROUP, &reported))
		TH_LOG("leave: %s", strerror(errno));
	ASSERT_EQ(1, reported)
		TH_LOG("leave reported %u events, want 1", reported);
	ASSERT_TRUE(igmp_is(netdev, GROUP, 0))
		TH_LOG("%s still joined after leave", GROUP);
	ASSERT_TRUE(quiet(fd, 100))
		TH_LOG("an event after the leave");
	ASSERT_ERRNO(leave(fd, id, GROUP, NULL), ENOENT);
	ASSERT_EQ(0, rcm_destroy(fd, id))
		TH_LOG("destroy: %s", strerror(errno));
	close(fd);
}

TEST(send_only_join_leaves_igmp_alone)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct rcm_event ev;
	unsigned int id, reported;
	int fd;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	id = ud_joined(_metadata, fd, ip, "239.1.2.4",
		       RCM_MC_JOIN_SENDONLY_FULLMEMBER, 0x5e);
	ASSERT_TRUE(rcm_wait_event(fd, 0, &ev) == 0 &&
		    ev.event == RCM_EVENT_MULTICAST_JOIN && ev.context == 0x5e &&
		    ev.ud.ah_attr.dgid[15] == 4)
		TH_LOG("no MULTICAST_JOIN for the group");
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.4", 0))
		TH_LOG("a send-only join joined the IP group");
	ASSERT_TRUE(leave(fd, id, "239.1.2.4", &reported) == 0 && reported == 1)
		TH_LOG("leave: %s, %u reported", strerror(errno), reported);
	close(fd);
}

TEST(resolved_id_joins)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct rcm_event ev;
	unsigned int id;
	int fd;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 3);
	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	/* As mckey does: resolve towards the group's own address. */
	ASSERT_EQ(0, rcm_resolved(fd, id, ip))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, join(fd, id, "239.1.2.5", RCM_MC_JOIN_FULLMEMBER, 9))
		TH_LOG("join: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(fd, 0, &ev) == 0 &&
		    ev.event == RCM_EVENT_MULTICAST_JOIN && ev.context == 9)
		TH_LOG("no MULTICAST_JOIN");
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.5", 1))
		TH_LOG("IP group not joined");
	/* Destroy leaves it. */
	ASSERT_EQ(0, rcm_destroy(fd, id))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.5", 0))
		TH_LOG("IP group still joined after destroy");
	close(fd);
}

TEST(join_and_leave_errors)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned int ud, rc, idle, loose;
	int fd;

	if (!ip)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	ud = ud_bound(fd, ip, 1);
	rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	idle = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 3);
	loose = ud_bound(fd, "0.0.0.0", 4);
	ASSERT_TRUE(ud && rc && idle && loose)
		TH_LOG("set-up: %s", strerror(errno));
	ASSERT_EQ(0, rcm_bind(fd, rc, ip, 0))
		TH_LOG("bind RC: %s", strerror(errno));

	ASSERT_ERRNO(join(fd, ud + 100, GROUP, 0, 0), ENOENT);
	ASSERT_ERRNO(join(fd, rc, GROUP, 0, 0), EINVAL);
	ASSERT_ERRNO(join(fd, idle, GROUP, 0, 0), EINVAL);
	ASSERT_ERRNO(join(fd, loose, GROUP, 0, 0), EINVAL);
	ASSERT_ERRNO(join(fd, ud, ip, 0, 0), EINVAL);
	ASSERT_ERRNO(join(fd, ud, "255.255.255.255", 0, 0), EINVAL);
	ASSERT_ERRNO(join(fd, ud, "fd00::1", 0, 0), EINVAL);
	ASSERT_ERRNO(join(fd, ud, GROUP, 2, 0), EINVAL);
	/* IPv6 groups on RoCE v2: not supported, as in-tree. */
	ASSERT_ERRNO(join(fd, ud, "ff0e::1:2", 0, 0), EOPNOTSUPP);
	ASSERT_TRUE(quiet(fd, 50))
		TH_LOG("a failed join queued an event");

	ASSERT_EQ(0, join(fd, ud, GROUP, 0, 1))
		TH_LOG("join: %s", strerror(errno));
	ASSERT_ERRNO(leave(fd, ud, "239.9.9.9", NULL), ENOENT);
	ASSERT_ERRNO(leave(fd, rc, GROUP, NULL), ENOENT);
	ASSERT_ERRNO(leave(fd, ud + 100, GROUP, NULL), ENOENT);
	ASSERT_EQ(0, leave(fd, ud, GROUP, NULL))
		TH_LOG("leave: %s", strerror(errno));
	ASSERT_ERRNO(leave(fd, ud, GROUP, NULL), ENOENT);
	close(fd);
}

/*
 * In-tree, an id may join a group again (issue 29 item 10: rcm said
 * EADDRINUSE): each join has its event and its IP membership, and each
 * leave ends the latest join, as librdmacm's leave takes the latest.
 */
TEST(group_joined_twice_is_left_twice)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	unsigned int ud, reported = 99;
	struct rcm_event ev;
	int fd;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	ud = ud_joined(_metadata, fd, ip, "239.1.2.9", 0, 1);
	ASSERT_EQ(0, join(fd, ud, "239.1.2.9", 0, 2))
		TH_LOG("second join: %s", strerror(errno));
	ASSERT_EQ(0, join(fd, ud, "239.1.2.9", RCM_MC_JOIN_SENDONLY_FULLMEMBER,
			  3))
		TH_LOG("third join, send-only: %s", strerror(errno));
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.9", 2))
		TH_LOG("want two IP memberships");

	/* The latest join goes first, its event unread with it. */
	ASSERT_EQ(0, leave(fd, ud, "239.1.2.9", &reported))
		TH_LOG("leave: %s", strerror(errno));
	ASSERT_EQ(0, reported);
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.9", 2))
		TH_LOG("a send-only leave dropped an IP membership");
	ASSERT_EQ(0, leave(fd, ud, "239.1.2.9", &reported))
		TH_LOG("second leave: %s", strerror(errno));
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.9", 1))
		TH_LOG("want the first join's IP membership alone");
	ASSERT_TRUE(rcm_wait_event(fd, 0, &ev) == 0 && ev.context == 1 &&
		    ev.event == RCM_EVENT_MULTICAST_JOIN && quiet(fd, 50))
		TH_LOG("want exactly the first join's event");
	ASSERT_EQ(0, leave(fd, ud, "239.1.2.9", &reported))
		TH_LOG("third leave: %s", strerror(errno));
	ASSERT_EQ(1, reported);
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.9", 0))
		TH_LOG("IP group still joined after the last leave");
	ASSERT_ERRNO(leave(fd, ud, "239.1.2.9", NULL), ENOENT);
	close(fd);
}

TEST(leave_discards_unread_events)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_destroy_id d = { .size = sizeof(d) };
	struct rcm_event ev;
	unsigned int id, reported = 99;
	int fd;

	if (!ip)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	id = ud_joined(_metadata, fd, ip, "239.1.2.6", 0, 6);
	ASSERT_EQ(0, join(fd, id, "239.1.2.7", 0, 7))
		TH_LOG("join 2: %s", strerror(errno));
	/* The first group's event is left unread. */
	ASSERT_EQ(0, leave(fd, id, "239.1.2.6", &reported))
		TH_LOG("leave: %s", strerror(errno));
	ASSERT_EQ(0, reported)
		TH_LOG("leave reported %u, want 0", reported);
	ASSERT_TRUE(rcm_wait_event(fd, 0, &ev) == 0 && ev.context == 7)
		TH_LOG("the other group's event went too (or came first)");
	ASSERT_TRUE(quiet(fd, 50))
		TH_LOG("the left group's event is still there");
	ASSERT_TRUE(leave(fd, id, "239.1.2.7", &reported) == 0 && reported == 1)
		TH_LOG("leave 2: %s, reported %u", strerror(errno), reported);
	/* A group's events count in the id's. */
	d.id = id;
	ASSERT_TRUE(ioctl(fd, RCM_IOCTL_DESTROY_ID, &d) == 0 &&
		    d.out_events_reported == 1)
		TH_LOG("destroy: reported %u", d.out_events_reported);
	close(fd);
}

TEST(events_follow_a_migrated_id)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	int a, b;
	struct rcm_migrate_id m = { .size = sizeof(m) };
	struct rcm_event ev;
	unsigned int id, reported;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	a = rcm_open_dev();
	b = rcm_open_dev();
	id = ud_joined(_metadata, a, ip, "239.1.2.8", 0, 8);
	m.id = id;
	m.fd = b;
	ASSERT_EQ(0, ioctl(a, RCM_IOCTL_MIGRATE_ID, &m))
		TH_LOG("migrate: %s", strerror(errno));
	ASSERT_TRUE(quiet(a, 50))
		TH_LOG("an event stayed in the old file");
	ASSERT_TRUE(rcm_wait_event(b, 0, &ev) == 0 &&
		    ev.event == RCM_EVENT_MULTICAST_JOIN && ev.context == 8 &&
		    ev.id == m.out_id)
		TH_LOG("event in the new file: %u ctx %llu id %u",
		       ev.event, (unsigned long long)ev.context, ev.id);
	ASSERT_ERRNO(leave(a, id, "239.1.2.8", NULL), ENOENT);
	ASSERT_TRUE(leave(b, m.out_id, "239.1.2.8", &reported) == 0 &&
		    reported == 1)
		TH_LOG("leave in the new file: %s, reported %u",
		       strerror(errno), reported);
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.8", 0))
		TH_LOG("IP group still joined");
	close(a);
	close(b);
}

TEST(two_files_join_one_group)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct rcm_event ev;
	unsigned int ia, ib, reported;
	int a, b;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	a = rcm_open_dev();
	b = rcm_open_dev();
	ia = ud_bound(a, ip, 1);
	ib = ud_bound(b, ip, 2);
	ASSERT_TRUE(ia && ib)
		TH_LOG("UD ids: %s", strerror(errno));
	ASSERT_EQ(0, join(a, ia, "239.1.2.9", 0, 0xa))
		TH_LOG("join a: %s", strerror(errno));
	ASSERT_EQ(0, join(b, ib, "239.1.2.9", 0, 0xb))
		TH_LOG("join b: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(a, 0, &ev) == 0 && ev.context == 0xa &&
		    quiet(a, 50))
		TH_LOG("file a: want its one event");
	ASSERT_TRUE(rcm_wait_event(b, 0, &ev) == 0 && ev.context == 0xb &&
		    quiet(b, 50))
		TH_LOG("file b: want its one event");
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.9", 2))
		TH_LOG("%d IP users, want 2", igmp_users(netdev, "239.1.2.9"));
	ASSERT_TRUE(leave(a, ia, "239.1.2.9", &reported) == 0 && reported == 1)
		TH_LOG("leave a: %s", strerror(errno));
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.9", 1))
		TH_LOG("%d IP users after one leave, want 1",
		       igmp_users(netdev, "239.1.2.9"));
	/* Closing the file destroys the id, which leaves the group. */
	close(b);
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.9", 0))
		TH_LOG("IP group joined after the last member's file closed");
	close(a);
}

TEST(killed_process_leaves_its_groups)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	int p[2], i, joined;
	char c;
	pid_t pid;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	ASSERT_EQ(0, pipe(p))
		TH_LOG("pipe");
	pid = fork();
	ASSERT_LE(0, pid)
		TH_LOG("fork");
	if (pid == 0) {
		int fd = rcm_open_dev();
		unsigned int id = ud_bound(fd, ip, 1);

		/* Unread events and two groups, one of them full. */
		if (!id || join(fd, id, "239.1.2.10", 0, 1) ||
		    join(fd, id, "239.1.2.11",
			 RCM_MC_JOIN_SENDONLY_FULLMEMBER, 2))
			_exit(3);
		if (write(p[1], "j", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(p[1]);
	i = read(p[0], &c, 1);
	if (i != 1)
		rcm_kill(pid);
	ASSERT_EQ(1, i)
		TH_LOG("the child could not join");
	joined = igmp_is(netdev, "239.1.2.10", 1);
	/* Killed before any check can fail: its open file pins the module. */
	ASSERT_EQ(0, rcm_kill(pid))
		TH_LOG("waitpid");
	close(p[0]);
	ASSERT_TRUE(joined)
		TH_LOG("child's IP group absent");
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.10", 0))
		TH_LOG("IP group still joined after the member was killed");
}

struct racer {
	int fd;
	unsigned int id;
	volatile int stop;
};

/* Join and leave two groups over and over; errors are expected. */
static void *join_leave(void *arg)
{
	struct racer *r = arg;
	int i;

	for (i = 0; i < 20 && !r->stop; i++) {
		join(r->fd, r->id, "239.1.3.1", 0, i);
		join(r->fd, r->id, "239.1.3.2", 0, i);
		leave(r->fd, r->id, "239.1.3.1", NULL);
		leave(r->fd, r->id, "239.1.3.2", NULL);
	}
	return NULL;
}

/* Read every event as it comes. */
static void *reader(void *arg)
{
	struct racer *r = arg;
	struct rcm_event ev[4];

	while (!r->stop)
		if (read(r->fd, ev, sizeof(ev)) < 0 && errno != EAGAIN)
			break;
	return NULL;
}

/*
 * Leaves race reads of their groups' events and the id's destroy (the
 * in-tree ucma's use-after-free history); KASAN and lockdep watch the
 * kernel side. Every IP membership is gone at the end.
 */
TEST(leave_races_read_and_destroy)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct racer r = {};
	pthread_t tj, tr;
	int i;

	if (!ip || !netdev)
		SKIP(return, "no Soft-RoCE device in this guest");
	r.fd = rcm_open_dev();
	ASSERT_LE(0, r.fd)
		TH_LOG("open");
	ASSERT_EQ(0, fcntl(r.fd, F_SETFL, O_NONBLOCK))
		TH_LOG("O_NONBLOCK");
	ASSERT_EQ(0, pthread_create(&tr, NULL, reader, &r))
		TH_LOG("reader thread");
	for (i = 0; i < 100; i++) {
		r.id = ud_bound(r.fd, ip, i);
		if (!r.id)
			break;
		if (pthread_create(&tj, NULL, join_leave, &r))
			break;
		/* Not a wait: 0-1.8 ms for the join to get under way. */
		usleep(i % 10 * 200);
		rcm_destroy(r.fd, r.id);
		pthread_join(tj, NULL);
	}
	r.stop = 1;
	pthread_join(tr, NULL);
	ASSERT_EQ(100, i)
		TH_LOG("round %d: %s", i, strerror(errno));
	ASSERT_TRUE(igmp_is(netdev, "239.1.3.1", 0) &&
		    igmp_is(netdev, "239.1.3.2", 0))
		TH_LOG("IP groups left joined: %d, %d",
		       igmp_users(netdev, "239.1.3.1"),
		       igmp_users(netdev, "239.1.3.2"));
	close(r.fd);
}

/* rxe0 is back at the end whatever happened (rcm_restore_rxe()). */
TEST(device_removal_drops_igmp)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");
	struct rcm_event ev;
	unsigned int id, reported = 99;
	int fd, removal = 0;

	if (!ip || !netdev || getenv("RCM_PEER_ADDR"))
		SKIP(return, "no Soft-RoCE device of its own in this guest");
	fd = rcm_open_dev();
	id = ud_joined(_metadata, fd, ip, "239.1.2.12", 0, 12);
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.12", 1))
		TH_LOG("IP group not joined");
	if (rcm_sh("rdma link delete rxe0")) {
		rcm_restore_rxe();
		ASSERT_TRUE(0)
			TH_LOG("rdma link delete failed");
	}
	while (rcm_wait_event(fd, 1000, &ev) == 0)
		if (ev.event == RCM_EVENT_DEVICE_REMOVAL && ev.id == id)
			removal++;
	rcm_restore_rxe();
	ASSERT_EQ(1, removal)
		TH_LOG("%d DEVICE_REMOVAL events, want 1", removal);
	ASSERT_TRUE(igmp_is(netdev, "239.1.2.12", 0))
		TH_LOG("IP group still joined after the device went");
	/* The group is still the id's to leave; its event was read. */
	ASSERT_TRUE(leave(fd, id, "239.1.2.12", &reported) == 0 &&
		    reported == 1)
		TH_LOG("leave after removal: %s, reported %u", strerror(errno),
		       reported);
	ASSERT_ERRNO(join(fd, id, "239.1.2.12", 0, 12), ENXIO);
	ASSERT_EQ(0, rcm_destroy(fd, id))
		TH_LOG("destroy: %s", strerror(errno));
	close(fd);
}

RCM_TEST_MAIN
