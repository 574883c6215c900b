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
#include <sys/ioctl.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

RCM_TEST(route_needs_a_resolved_address)
{
	int fd = rcm_open_dev();
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);

	CHECK(id, "create: %s", strerror(errno));
	CHECK_ERRNO(rcm_route(fd, id, 1000), EINVAL);
	CHECK_ERRNO(rcm_route(fd, id + 100, 1000), ENOENT);
	close(fd);
}

RCM_TEST(roce_path_is_built_locally)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_query_id q = { .size = sizeof(q) };
	struct rcm_event ev;
	struct in6_addr gid;
	uint32_t sport, fl;
	int fd;
	unsigned int id;

	if (!ip)
		SKIP("no Soft-RoCE device");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 0xabc);
	CHECK(id && rcm_resolved(fd, id, ip) == 0, "address: %s",
	      strerror(errno));
	CHECK_ERRNO(rcm_route(fd, id, RCM_MAX_TIMEOUT_MS + 1), EINVAL);
	CHECK(rcm_route(fd, id, 2000) == 0, "route: %s", strerror(errno));
	/* Queued before the call returned. */
	CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0, "fcntl");
	CHECK(read(fd, &ev, sizeof(ev)) == sizeof(ev), "no event queued: %s",
	      strerror(errno));
	CHECK(ev.event == RCM_EVENT_ROUTE_RESOLVED && ev.status == 0 &&
	      ev.context == 0xabc, "event %u status %d", ev.event, ev.status);

	q.id = id;
	CHECK(ioctl(fd, RCM_IOCTL_QUERY_ID, &q) == 0, "query: %s",
	      strerror(errno));
	CHECK(q.out_num_paths == 1, "%u paths", q.out_num_paths);
	/* The event carried what the query says: no query needed. */
	{
		struct rcm_id_info info;

		CHECK(ev.private_data_len == sizeof(info), "event info: %u bytes",
		      ev.private_data_len);
		memcpy(&info, ev.private_data, sizeof(info));
		CHECK(info.num_paths == 1 && info.port_num == q.out_port_num &&
		      info.node_guid == q.out_node_guid &&
		      !memcmp(info.sgid, q.out_sgid, 16) &&
		      !memcmp(&info.path, &q.out_path, sizeof(info.path)) &&
		      !memcmp(info.src, &q.out_src, sizeof(struct sockaddr_in)) &&
		      !memcmp(info.dst, &q.out_dst, sizeof(struct sockaddr_in)),
		      "the event's info differs from the query's");
		/* The device's index, as rdma(8) and libibverbs know it. */
		CHECK(info.flags == RCM_ID_INFO_IBDEV_INDEX &&
		      q.out_flags == RCM_ID_INFO_IBDEV_INDEX &&
		      info.ibdev_index == q.out_ibdev_index,
		      "device index: flags %#x/%#x index %u/%u", info.flags,
		      q.out_flags, info.ibdev_index, q.out_ibdev_index);
		CHECK(rcm_sh("/usr/bin/rdma dev show rxe0 | grep -q '^%u: rxe0:'",
			     info.ibdev_index) == 0,
		      "rxe0's index is not %u", info.ibdev_index);
	}
	memset(&gid, 0, sizeof(gid));
	gid.s6_addr[10] = gid.s6_addr[11] = 0xff;
	inet_pton(AF_INET, ip, &gid.s6_addr[12]);
	CHECK(!memcmp(q.out_path.sgid, &gid, 16) &&
	      !memcmp(q.out_path.dgid, &gid, 16), "GIDs are not ::ffff:%s", ip);
	CHECK(q.out_path.rec_type == 2, "record type %u, want RoCE v2",
	      q.out_path.rec_type);
	CHECK(q.out_path.pkey == 0xffff, "pkey %#x", q.out_path.pkey);
	/* Netdev MTU 1500 less the RoCE headers: IB MTU 1024 (enum 3). */
	CHECK(q.out_path.mtu == 3, "mtu enum %u, want 3", q.out_path.mtu);
	CHECK(q.out_path.packet_life_time == 18, "packet lifetime %u",
	      q.out_path.packet_life_time);
	CHECK(q.out_path.traffic_class == 0 && q.out_path.sl == 0,
	      "tc %u sl %u with TOS 0", q.out_path.traffic_class,
	      q.out_path.sl);
	sport = ntohs(((struct sockaddr_in *)&q.out_src)->sin_port);
	fl = (sport * 31 + 7471) & 0xfffff;
	CHECK(q.out_path.flow_label == fl, "flow label %#x, want %#x",
	      q.out_path.flow_label, fl);
	CHECK_ERRNO(rcm_route(fd, id, 2000), EINVAL);
	close(fd);
}

RCM_TEST(iwarp_route_needs_no_path)
{
	const char *ip = getenv("RCM_ADDR_SIW");
	struct rcm_query_id q = { .size = sizeof(q) };
	struct rcm_event ev;
	int fd;
	unsigned int id;

	if (!ip)
		SKIP("no soft-iWARP device");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	CHECK(id && rcm_resolved(fd, id, ip) == 0, "address: %s",
	      strerror(errno));
	CHECK(rcm_route(fd, id, 2000) == 0, "route: %s", strerror(errno));
	CHECK(rcm_wait_event(fd, 1000, &ev) == 0 &&
	      ev.event == RCM_EVENT_ROUTE_RESOLVED, "no ROUTE_RESOLVED");
	q.id = id;
	CHECK(ioctl(fd, RCM_IOCTL_QUERY_ID, &q) == 0 && q.out_num_paths == 0,
	      "iWARP id reports %u paths", q.out_num_paths);
	close(fd);
}

int main(void)
{
	return rcm_test_run();
}
