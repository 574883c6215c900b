// SPDX-License-Identifier: GPL-2.0-only
/*
 * route: route resolution builds the RoCE path the in-tree CM would
 * (GIDs, MTU, packet lifetime, P_Key, RoCE v2 record type and flow
 * label), reports the device by node GUID and index, and needs no path
 * on iWARP; misuse gets the documented errno.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

/* The packet lifetime the in-tree CM puts in a RoCE path on this kernel. */
static unsigned int roce_packet_lifetime(void)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 2) ? 16 : 18;
}

TEST(route_needs_a_resolved_address)
{
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);

	ASSERT_TRUE(id)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_ERRNO(rcm_route(fd, id, 1000), EINVAL);
	ASSERT_ERRNO(rcm_route(fd, id + 100, 1000), ENOENT);
	close(fd);
}

TEST(roce_path_is_built_locally)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_query_id q = { .size = sizeof(q) };
	struct rcm_event ev;
	struct in6_addr gid;
	uint32_t sport, dport, fl;
	int fd;
	unsigned int id;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 0xabc);
	/* A destination port of its own: the flow label hashes it in. */
	dport = rcm_free_port(ip, RCM_PS_TCP);
	ASSERT_TRUE(id && dport && rcm_resolved_to(fd, id, ip, dport) == 0)
		TH_LOG("address: %s", strerror(errno));
	ASSERT_ERRNO(rcm_route(fd, id, RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	ASSERT_EQ(0, rcm_route(fd, id, 2000))
		TH_LOG("route: %s", strerror(errno));
	/* Queued before the call returned. */
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK))
		TH_LOG("fcntl");
	ASSERT_EQ(sizeof(ev), read(fd, &ev, sizeof(ev)))
		TH_LOG("no event queued: %s", strerror(errno));
	ASSERT_TRUE(ev.event == RCM_EVENT_ROUTE_RESOLVED && ev.status == 0 &&
		    ev.context == 0xabc)
		TH_LOG("event %u status %d", ev.event, ev.status);

	q.id = id;
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_QUERY_ID, &q))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_EQ(1, q.out_num_paths)
		TH_LOG("%u paths", q.out_num_paths);
	/* The event carried what the query says: no query needed. */
	{
		const struct rcm_id_info info = ev.id_info;

		ASSERT_TRUE(sizeof(info) == ev.id_info_len &&
			    !ev.private_data_len)
			TH_LOG("event info: %u bytes, private data %u",
			       ev.id_info_len, ev.private_data_len);
		ASSERT_TRUE(info.num_paths == 1 && info.port_num == q.out_port_num &&
			    info.node_guid == q.out_node_guid &&
			    !memcmp(info.sgid, q.out_sgid, 16) &&
			    !memcmp(&info.path, &q.out_path, sizeof(info.path)) &&
			    !memcmp(info.src, &q.out_src, sizeof(struct sockaddr_in)) &&
			    !memcmp(info.dst, &q.out_dst, sizeof(struct sockaddr_in)))
			TH_LOG("the event's info differs from the query's");
		/* The device's index, as rdma(8) and libibverbs know it. */
		ASSERT_TRUE(info.flags == RCM_ID_INFO_IBDEV_INDEX &&
			    q.out_flags == RCM_ID_INFO_IBDEV_INDEX &&
			    info.ibdev_index == q.out_ibdev_index)
			TH_LOG("device index: flags %#x/%#x index %u/%u", info.flags,
			       q.out_flags, info.ibdev_index, q.out_ibdev_index);
		ASSERT_EQ(0,
			  rcm_sh("/usr/bin/rdma dev show rxe0 | grep -q '^%u: rxe0:'", info.ibdev_index))
			TH_LOG("rxe0's index is not %u", info.ibdev_index);
	}
	memset(&gid, 0, sizeof(gid));
	gid.s6_addr[10] = gid.s6_addr[11] = 0xff;
	inet_pton(AF_INET, ip, &gid.s6_addr[12]);
	ASSERT_TRUE(!memcmp(q.out_path.sgid, &gid, 16) &&
		    !memcmp(q.out_path.dgid, &gid, 16))
		TH_LOG("GIDs are not ::ffff:%s", ip);
	ASSERT_EQ(2, q.out_path.rec_type)
		TH_LOG("record type %u, want RoCE v2", q.out_path.rec_type);
	ASSERT_EQ(0xffff, q.out_path.pkey)
		TH_LOG("pkey %#x", q.out_path.pkey);
	/* Netdev MTU 1500 less the RoCE headers: IB MTU 1024 (enum 3). */
	ASSERT_EQ(3, q.out_path.mtu)
		TH_LOG("mtu enum %u, want 3", q.out_path.mtu);
	/* The in-tree CM's: 18 before Linux 6.2, 16 since. */
	ASSERT_EQ(roce_packet_lifetime(), q.out_path.packet_life_time)
		TH_LOG("packet lifetime %u, want %u", q.out_path.packet_life_time,
		       roce_packet_lifetime());
	ASSERT_TRUE(q.out_path.traffic_class == 0 && q.out_path.sl == 0)
		TH_LOG("tc %u sl %u with TOS 0", q.out_path.traffic_class,
		       q.out_path.sl);
	sport = ntohs(((struct sockaddr_in *)&q.out_src)->sin_port);
	fl = (sport * 31 + dport) & 0xfffff;
	ASSERT_EQ(q.out_path.flow_label, fl)
		TH_LOG("flow label %#x, want %#x", q.out_path.flow_label, fl);
	ASSERT_ERRNO(rcm_route(fd, id, 2000), EINVAL);
	close(fd);
}

TEST(iwarp_route_needs_no_path)
{
	const char *ip = getenv("RCM_ADDR_SIW");
	struct rcm_query_id q = { .size = sizeof(q) };
	int fd;
	unsigned int id;

	if (!ip)
		SKIP(return, "no soft-iWARP device");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_TRUE(id && rcm_resolved(fd, id, ip) == 0 &&
		    rcm_route_query(fd, id, &q) == 0)
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, q.out_num_paths)
		TH_LOG("iWARP id reports %u paths", q.out_num_paths);
	close(fd);
}

RCM_TEST_MAIN
