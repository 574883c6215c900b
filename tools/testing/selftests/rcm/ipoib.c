// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipoib: IP addresses over IPoIB on the test fabric (tools/testing/
 * ibfabric, rcm_ibfab.ko: ibfab0 and ibfab1, LIDs 1 and 2, a small SA)
 * with Linux's ib_ipoib running its netdevs on it. The netdev of ibfab1
 * lives in a namespace of its own (IPOIB_NS), so that an address of it
 * is a neighbour of ibfab0's netdev, reached by ARP over the fabric's
 * broadcast group: its hardware address (QPN + GID) names the
 * destination GID, the broadcast address the P_Key, and the route is
 * the SA's PathRecord between the two GIDs, as for the in-tree CM
 * (rdma_resolve_ip(), cma_resolve_ib_route()). The fabric's "ipres"
 * command resolves the same addresses with ib_core's rdma_resolve_ip(),
 * which the in-tree CM uses, as the control. A connection rcm to rcm
 * (CM only: the fabric has no RC data path) reaches a listener of the
 * other namespace through its IPoIB netdev, as cma_get_net_dev() finds
 * it; so does a datagram service resolution (SIDR). IPv4 multicast
 * groups map to MGIDs with the broadcast address's P_Key, and an IPoIB
 * id takes the broadcast group's Q_Key. A child netdev of the fabric's
 * second P_Key (0x8001) resolves and connects in that partition. Skips
 * without the fabric's .ko or ib_ipoib (the test kernel has no IPoIB);
 * the last case takes the fabric and ib_ipoib away again.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <rdma/rcm_user.h>

#include "ibfab_common.h"
#include "rcm_harness.h"

#define IPOIB_NS "rcmipoib"
#define IPOIB_A "198.18.30.1"		/* ibfab0's netdev, this namespace */
#define IPOIB_B "198.18.30.2"		/* ibfab1's, in IPOIB_NS */
#define IPOIB_NONE "198.18.30.9"	/* nobody's */
#define IPOIB_ALEN 20
/* Carrier comes with the SA's answer to the broadcast group's join. */
#define IPOIB_UP_MS 30000

/* A netdev's sysfs attribute @attr, up to 20 bytes "aa:bb:..", into @hw. */
static int netdev_hw(const char *dev, const char *attr, unsigned char *hw)
{
	char path[128], buf[128], *p = buf;
	int i;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, attr);
	if (ibfab_read_line(path, buf, sizeof(buf)))
		return -1;
	for (i = 0; i < IPOIB_ALEN; i++, p += 3)
		if (sscanf(p, "%2hhx", &hw[i]) != 1 ||
		    (i < IPOIB_ALEN - 1 && p[2] != ':'))
			return -1;
	return 0;
}

/*
 * The IPoIB netdev of namespace @ns (NULL: this one) whose hardware
 * address carries @dev's GID, not a child of it, into @name (IFNAMSIZ),
 * as iproute2 lists it (sysfs shows the namespace it was mounted in):
 * 0 or -1.
 */
static int ipoib_netdev(const char *ns, const char *dev, char *name)
{
	char cmd[128], line[1024], hex[48], *at;
	struct in6_addr gid;
	int i, ret = -1;
	FILE *p;

	if (dev_gid(dev, &gid))
		return -1;
	for (i = 0; i < 16; i++)
		snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x%s",
			 gid.s6_addr[i], i < 15 ? ":" : "");
	snprintf(cmd, sizeof(cmd), RCM_IP "%s%s -o link show",
		 ns ? " -n " : "", ns ?: "");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (ret && fgets(line, sizeof(line), p)) {
		at = strstr(line, "link/infiniband ");
		/* "N: NAME: <...>": a child is "N: NAME@PARENT: <...>". */
		if (at && strstr(at, hex) &&
		    sscanf(line, "%*d: %15[^:@ ]", name) == 1 &&
		    line[strcspn(line, ":") + 2 + strlen(name)] == ':')
			ret = 0;
	}
	pclose(p);
	return ret;
}

/* Whether @dev (in @ns, NULL: here) is up with carrier. */
static bool ipoib_carrier(const char *ns, const char *dev)
{
	if (ns)
		return !rcm_sh(RCM_IP " -n %s link show %s | grep -q LOWER_UP",
			       ns, dev);
	return !rcm_sh(RCM_IP " link show %s | grep -q LOWER_UP", dev);
}

/*
 * The fabric, ib_ipoib, ibfab0's netdev with IPOIB_A here and ibfab1's
 * with IPOIB_B in IPOIB_NS, both with carrier; what a case before set
 * up is kept. 0, 1 when the fabric or ib_ipoib cannot be had (skip), or
 * -1 with a TAP diagnostic.
 */
static int ipoib_up(struct __test_metadata *_metadata)
{
	char a[16], b[16];

	if (access(IB_SYS "ibfab0", F_OK) &&
	    (access(IBFAB_KO, F_OK) || rcm_sh("insmod " IBFAB_KO)))
		return 1;
	if (rcm_sh("modprobe ib_ipoib"))
		return 1;
	if (!access("/run/netns/" IPOIB_NS, F_OK) &&
	    !rcm_sh(RCM_IP " -n " IPOIB_NS " addr show | grep -q 'inet "
		    IPOIB_B "/'") &&
	    !ipoib_netdev(NULL, "ibfab0", a) && ipoib_carrier(NULL, a) &&
	    !rcm_sh(RCM_IP " addr show dev %s | grep -q 'inet " IPOIB_A "/'",
		    a))
		return 0;
	/* ib_ipoib's netdevs appear as it adds the fabric's ports. */
	if (!RCM_WAIT_FOR(!ipoib_netdev(NULL, "ibfab0", a) &&
			  !ipoib_netdev(NULL, "ibfab1", b), IPOIB_UP_MS)) {
		TH_LOG("no IPoIB netdevs of ibfab0 and ibfab1");
		return -1;
	}
	if (rcm_sh(RCM_IP " netns add " IPOIB_NS) ||
	    rcm_sh(RCM_IP " link set %s netns " IPOIB_NS, b) ||
	    rcm_sh(RCM_IP " -n " IPOIB_NS " link set lo up") ||
	    rcm_sh(RCM_IP " -n " IPOIB_NS " addr add " IPOIB_B "/24 dev %s",
		   b) ||
	    rcm_sh(RCM_IP " -n " IPOIB_NS " link set %s up", b) ||
	    rcm_sh(RCM_IP " addr add " IPOIB_A "/24 dev %s", a) ||
	    rcm_sh(RCM_IP " link set %s up", a)) {
		TH_LOG("cannot set up %s and %s (in %s)", a, b, IPOIB_NS);
		return -1;
	}
	if (!RCM_WAIT_FOR(ipoib_carrier(NULL, a) &&
			  ipoib_carrier(IPOIB_NS, b), IPOIB_UP_MS)) {
		TH_LOG("no carrier on %s and %s: the broadcast group's join",
		       a, b);
		return -1;
	}
	return 0;
}

/*
 * Enter IPOIB_NS (an id lives in the namespace of the thread that
 * creates it, as in-tree): the descriptor of the namespace to return to
 * with ns_leave(), or -1.
 */
static int ns_enter(void)
{
	int here = open("/proc/self/ns/net", O_RDONLY);
	int there = open("/run/netns/" IPOIB_NS, O_RDONLY);
	int ok = here >= 0 && there >= 0 && !setns(there, CLONE_NEWNET);

	if (there >= 0)
		close(there);
	if (!ok && here >= 0) {
		close(here);
		here = -1;
	}
	return here;
}

/* Back from ns_enter(): 0, or -1. */
static int ns_leave(int here)
{
	int ret = setns(here, CLONE_NEWNET);

	close(here);
	return ret;
}

FIXTURE(ipoib) {
	int fd;
	struct in6_addr g0, g1;
};

FIXTURE_SETUP(ipoib)
{
	int up;

	self->fd = -1;
	up = ipoib_up(_metadata);
	if (up == 1)
		SKIP_SETUP("no test fabric (" IBFAB_KO ") or no ib_ipoib");
	ASSERT_EQ(0, up);
	ASSERT_EQ(0, fab("sa reset"));
	ASSERT_EQ(0, dev_gid("ibfab0", &self->g0));
	ASSERT_EQ(0, dev_gid("ibfab1", &self->g1));
	ASSERT_RCM_OPEN(self->fd);
}

RCM_FD_FIXTURE_TEARDOWN(ipoib);

/* The netdev: InfiniBand, QPN + GID, broadcast with P_Key 0xffff. */
TEST_F(ipoib, netdev_addresses)
{
	unsigned char hw[IPOIB_ALEN], bc[IPOIB_ALEN];
	char a[16], path[64];
	int type = 0;
	FILE *f;

	ASSERT_EQ(0, ipoib_netdev(NULL, "ibfab0", a));
	snprintf(path, sizeof(path), "/sys/class/net/%s/type", a);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &type));
	fclose(f);
	ASSERT_EQ(ARPHRD_INFINIBAND, type);
	ASSERT_EQ(0, netdev_hw(a, "address", hw));
	ASSERT_EQ(0, memcmp(hw + 4, &self->g0, 16));
	/* A UD QP's number, not QP0's or QP1's. */
	ASSERT_LE(2, hw[1] << 16 | hw[2] << 8 | hw[3]);
	ASSERT_EQ(0, netdev_hw(a, "broadcast", bc));
	/* ff12:401b:<P_Key>::ffff:ffff after the QPN 0xffffff. */
	ASSERT_EQ(0xff, bc[4]);
	ASSERT_EQ(0x12, bc[5]);
	ASSERT_EQ(0xffff, bc[8] << 8 | bc[9]);
}

/* ARP over the fabric: the source port is ibfab0's, its GID the source. */
TEST_F(ipoib, resolve_addr)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 7);
	struct sockaddr_in *in;
	struct rcm_query_id q;
	struct rcm_event ev;

	ASSERT_EQ(0, rcm_resolve(self->fd, id, IPOIB_A, IPOIB_B, 5000))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(0, ev.status);
	ASSERT_EQ(7, ev.context);
	ASSERT_EQ(1, ev.id_info.port_num);
	ASSERT_EQ(0, memcmp(ev.id_info.sgid, &self->g0, 16));
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	in = (struct sockaddr_in *)&q.out_dst;
	ASSERT_EQ(AF_INET, in->sin_family);
	ASSERT_EQ(inet_addr(IPOIB_B), in->sin_addr.s_addr);

	/* Unbound: the route's netdev picks the port, as in-tree. */
	id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 8);
	ASSERT_EQ(0, rcm_resolve(self->fd, id, NULL, IPOIB_B, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(0, memcmp(ev.id_info.sgid, &self->g0, 16));
}

/* Nobody answers ARP: ADDR_ERROR -ETIMEDOUT, as rdma_resolve_ip() says. */
TEST_F(ipoib, resolve_no_neighbour)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 9);
	struct rcm_event ev;

	ASSERT_EQ(0, rcm_resolve(self->fd, id, IPOIB_A, IPOIB_NONE, 1000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_ERROR, &ev));
	ASSERT_EQ(-ETIMEDOUT, ev.status);
	ASSERT_EQ(9, ev.context);
}

/*
 * The route: the SA's PathRecord from the source GID to the GID in the
 * neighbour's hardware address, with the broadcast address's P_Key.
 */
TEST_F(ipoib, route_from_the_sa)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 11);
	struct rcm_query_id q;
	struct rcm_event ev;
	const char *path;

	ASSERT_EQ(0, rcm_resolve(self->fd, id, IPOIB_A, IPOIB_B, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(0, ib_route_by_sa(self->fd, id, &ev))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(1, ev.id_info.num_paths);
	path = ib_sa_path_differs(&ev.id_info.path, &self->g0, &self->g1);
	ASSERT_EQ(NULL, path)
		TH_LOG("the event's path: %s", path);
	ASSERT_EQ(0, rcm_query(self->fd, id, &q));
	ASSERT_EQ(1, q.out_num_paths);
	ASSERT_EQ(0, memcmp(&q.out_path, &ev.id_info.path, sizeof(q.out_path)));
}

/*
 * The control: ib_core's rdma_resolve_ip() (the in-tree CM's address
 * resolution) of the same addresses gives the GIDs and P_Key rcm's
 * route was asked for.
 */
TEST_F(ipoib, intree_resolution_agrees)
{
	unsigned int id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 12);
	char want[256], got[256], s[64], d[64];
	struct rcm_event ev;

	ASSERT_EQ(0, fab("ipres " IPOIB_A " " IPOIB_B))
		TH_LOG("rdma_resolve_ip: %s", strerror(errno));
	ASSERT_EQ(0, ibfab_line("last: ", got, sizeof(got)));
	ASSERT_EQ(0, rcm_resolve(self->fd, id, IPOIB_A, IPOIB_B, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(0, rcm_route(self->fd, id, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_RESOLVED, &ev));
	inet_ntop(AF_INET6, ev.id_info.path.sgid, s, sizeof(s));
	inet_ntop(AF_INET6, ev.id_info.path.dgid, d, sizeof(d));
	snprintf(want, sizeof(want),
		 "ipres: dev_type %d sgid %s dgid %s pkey 0x%04x", ARPHRD_INFINIBAND,
		 s, d, ev.id_info.path.pkey);
	ASSERT_STREQ(want, got);
}

/*
 * A partition of its own: IPoIB child netdevs of P_Key 0x8001 (the
 * fabric's second P_Key, at index 1) on both, 198.18.31.0/24. The
 * broadcast address carries the P_Key, so the route is asked for and
 * answered with it, as the in-tree resolution says; a connection over
 * it reaches the listener through the child netdev of that P_Key.
 */
TEST_F(ipoib, pkey_from_the_broadcast_address)
{
	char a[16], b[16], got[256], want[256], sg[64], dg[64];
	unsigned int id, lid, cid, rid;
	unsigned short port = 0;
	struct rcm_query_id q;
	struct rcm_event ev;
	int s, here;

	ASSERT_EQ(0, ipoib_netdev(NULL, "ibfab0", a));
	ASSERT_EQ(0, ipoib_netdev(IPOIB_NS, "ibfab1", b));
	if (rcm_sh(RCM_IP " link show %s.8001", a)) {
		ASSERT_EQ(0, rcm_sh(RCM_IP " link add link %s name %s.8001 "
				    "type ipoib pkey 0x8001", a, a));
		ASSERT_EQ(0, rcm_sh(RCM_IP " -n " IPOIB_NS " link add link %s "
				    "name %s.8001 type ipoib pkey 0x8001", b, b));
		ASSERT_EQ(0, rcm_sh(RCM_IP " addr add 198.18.31.1/24 dev %s.8001",
				    a));
		ASSERT_EQ(0, rcm_sh(RCM_IP " -n " IPOIB_NS " addr add "
				    "198.18.31.2/24 dev %s.8001", b));
		ASSERT_EQ(0, rcm_sh(RCM_IP " link set %s.8001 up", a));
		ASSERT_EQ(0, rcm_sh(RCM_IP " -n " IPOIB_NS " link set %s.8001 up",
				    b));
	}
	snprintf(a + strlen(a), sizeof(a) - strlen(a), ".8001");
	snprintf(b + strlen(b), sizeof(b) - strlen(b), ".8001");
	ASSERT_TRUE(RCM_WAIT_FOR(ipoib_carrier(NULL, a) &&
				 ipoib_carrier(IPOIB_NS, b), IPOIB_UP_MS))
		TH_LOG("no carrier on %s and %s", a, b);

	ASSERT_EQ(0, fab("ipres 198.18.31.1 198.18.31.2"))
		TH_LOG("rdma_resolve_ip: %s", strerror(errno));
	ASSERT_EQ(0, ibfab_line("last: ", got, sizeof(got)));
	id = rcm_create(self->fd, RCM_PS_TCP, RCM_QPT_RC, 13);
	ASSERT_EQ(0, rcm_resolve(self->fd, id, "198.18.31.1", "198.18.31.2",
				 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ADDR_RESOLVED, &ev));
	ASSERT_EQ(0, rcm_route(self->fd, id, 5000));
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_ROUTE_RESOLVED, &ev));
	ASSERT_EQ(0x8001, ev.id_info.path.pkey);
	inet_ntop(AF_INET6, ev.id_info.path.sgid, sg, sizeof(sg));
	inet_ntop(AF_INET6, ev.id_info.path.dgid, dg, sizeof(dg));
	snprintf(want, sizeof(want),
		 "ipres: dev_type %d sgid %s dgid %s pkey 0x%04x",
		 ARPHRD_INFINIBAND, sg, dg, ev.id_info.path.pkey);
	ASSERT_STREQ(want, got);

	s = rcm_open_dev();
	ASSERT_LE(0, s);
	here = ns_enter();
	ASSERT_LE(0, here);
	lid = rcm_listener(s, "198.18.31.2", &port, 0x11, 8);
	ASSERT_EQ(0, ns_leave(here));
	ASSERT_TRUE(lid);
	ASSERT_EQ(0, rcm_establish(s, self->fd, "198.18.31.2", port, &cid,
				   &rid))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_query(s, rid, &q));
	ASSERT_EQ(0x8001, q.out_path.pkey);
	ASSERT_EQ(0, memcmp(q.out_sgid, &self->g1, 16));
	close(s);
}

/*
 * rcm to rcm over the IPoIB-resolved route: the listener is of the other
 * namespace, found through ibfab1's IPoIB netdev; the request id's
 * GID is that netdev's.
 */
TEST_F(ipoib, connect_accept_disconnect)
{
	int s = rcm_open_dev(), c = self->fd;
	unsigned int lid, cid, rid;
	unsigned short port = 0;
	struct sockaddr_in *in;
	struct rcm_query_id q;
	int here;

	ASSERT_LE(0, s);
	here = ns_enter();
	ASSERT_LE(0, here);
	lid = rcm_listener(s, IPOIB_B, &port, 0x11, 8);
	ASSERT_EQ(0, ns_leave(here));
	ASSERT_TRUE(lid)
		TH_LOG("listen in %s: %s", IPOIB_NS, strerror(errno));
	ASSERT_EQ(0, rcm_establish(s, c, IPOIB_B, port, &cid, &rid))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_query(s, rid, &q));
	ASSERT_EQ(0, memcmp(q.out_sgid, &self->g1, 16));
	ASSERT_EQ(1, q.out_num_paths);
	ASSERT_EQ(0xffff, q.out_path.pkey);
	in = (struct sockaddr_in *)&q.out_src;
	ASSERT_TRUE(in->sin_family == AF_INET &&
		    in->sin_addr.s_addr == inet_addr(IPOIB_B) &&
		    ntohs(in->sin_port) == port);
	in = (struct sockaddr_in *)&q.out_dst;
	ASSERT_TRUE(in->sin_family == AF_INET &&
		    in->sin_addr.s_addr == inet_addr(IPOIB_A));

	ASSERT_EQ(0, rcm_disconnect_pair(c, cid, s, rid))
		TH_LOG("disconnect: %s", strerror(errno));
	close(s);
}

/*
 * The other way: a listener of this (the initial) namespace, which
 * listens on every device, and a client of IPOIB_NS. The request comes
 * in on ibfab0 with no GID entry of a netdev: its IPoIB netdev names the
 * namespace.
 */
TEST_F(ipoib, connect_from_the_other_namespace)
{
	int s = self->fd, c = rcm_open_dev();
	unsigned int lid, cid, rid;
	unsigned short port = 0;
	struct rcm_query_id q;
	struct rcm_event ev;
	int here, ret;

	ASSERT_LE(0, c);
	lid = rcm_listener(s, IPOIB_A, &port, 0x11, 8);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	here = ns_enter();
	ASSERT_LE(0, here);
	ret = rcm_establish(s, c, IPOIB_A, port, &cid, &rid);
	ASSERT_EQ(0, ns_leave(here));
	ASSERT_EQ(0, ret)
		TH_LOG("connect from %s: %s", IPOIB_NS, strerror(errno));
	ASSERT_EQ(0, rcm_query(s, rid, &q));
	ASSERT_EQ(0, memcmp(q.out_sgid, &self->g0, 16));
	ASSERT_EQ(0, rcm_query(c, cid, &q));
	ASSERT_EQ(0, memcmp(q.out_sgid, &self->g1, 16));
	ASSERT_EQ(0, rcm_simple(s, RCM_IOCTL_DISCONNECT, rid));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_DISCONNECTED, &ev));
	close(c);
}

/*
 * A datagram service resolution (SIDR) over IPoIB: the SIDR REQ names no
 * GID, so the listener of the other namespace is found by the P_Key and
 * the dialled address alone; the answer carries its QP number and
 * Q_Key, and the address is ibfab1's LID.
 */
TEST_F(ipoib, sidr_to_the_other_namespace)
{
	int s = rcm_open_dev(), c = self->fd;
	struct rcm_connect cc = { .size = sizeof(cc) };
	struct rcm_accept a = { .size = sizeof(a), .qp_num = 0x777 };
	unsigned short port;
	struct rcm_event ev;
	unsigned int lid, cid;
	int here;

	ASSERT_LE(0, s);
	here = ns_enter();
	ASSERT_LE(0, here);
	lid = rcm_create(s, RCM_PS_UDP, RCM_QPT_UD, 0x11);
	ASSERT_TRUE(lid && !rcm_bind(s, lid, IPOIB_B, 0) &&
		    !rcm_listen(s, lid, 0));
	ASSERT_EQ(0, ns_leave(here));
	port = rcm_local_port(s, lid);
	ASSERT_NE(0, port);
	cid = rcm_create(c, RCM_PS_UDP, RCM_QPT_UD, 0x12);
	ASSERT_EQ(0, rcm_routed(c, cid, IPOIB_B, port))
		TH_LOG("route: %s", strerror(errno));
	cc.id = cid;
	ASSERT_EQ(0, ioctl(c, RCM_IOCTL_CONNECT, &cc));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev));
	ASSERT_EQ(lid, ev.listen_id);
	a.id = ev.id;
	ASSERT_EQ(0, ioctl(s, RCM_IOCTL_ACCEPT, &a))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev));
	ASSERT_EQ(0x777, ev.ud.qp_num);
	ASSERT_EQ(RCM_UDP_QKEY, ev.ud.qkey);
	ASSERT_EQ(2, ev.ud.ah_attr.dlid);
	close(s);
}

/* A UD id of port space @ps bound to IPOIB_A joining IPv4 group @group. */
static unsigned int ip_mc_joined(int fd, unsigned short ps, const char *group,
				 unsigned long long ctx, struct rcm_event *ev)
{
	unsigned int id = rcm_create(fd, ps, RCM_QPT_UD, ctx);
	struct rcm_join_mcast j = {
		.size = sizeof(j), .id = id,
		.join_flags = RCM_MC_JOIN_FULLMEMBER, .context = ctx,
	};
	struct sockaddr_in *in = (struct sockaddr_in *)&j.addr;

	in->sin_family = AF_INET;
	in->sin_addr.s_addr = inet_addr(group);
	if (!id || rcm_bind(fd, id, IPOIB_A, 0) ||
	    ioctl(fd, RCM_IOCTL_JOIN_MCAST, &j) ||
	    rcm_expect_event(fd, RCM_EVENT_MULTICAST_JOIN, ev))
		return 0;
	return id;
}

/*
 * An IPv4 group on the IPoIB netdev's port, as cma_join_ib_multicast():
 * the MGID mapped as IPoIB maps it with the scope and P_Key of the
 * netdev's broadcast address, the rdma_cm signature (0x01) for a UDP id,
 * IPoIB's own (0x1b) for an IPoIB one; a UDP id keeps its Q_Key, an
 * IPoIB id takes the broadcast group's (the fabric SA's 0x80010000, as
 * ib_ipoib's join asked for none), and the SA's MLID is the DLID.
 */
TEST_F(ipoib, mcast_ip_group)
{
	static const unsigned char udp_mgid[16] = {
		0xff, 0x12, 0x40, 0x01, 0xff, 0xff, 0, 0,
		0, 0, 0, 0, 0x00, 0x01, 0x02, 0x03,
	};
	static const unsigned char ipoib_mgid[16] = {
		0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
		0, 0, 0, 0, 0x00, 0x01, 0x02, 0x04,
	};
	struct rcm_event ev;
	unsigned int id;

	id = ip_mc_joined(self->fd, RCM_PS_UDP, "224.1.2.3", 0xa1, &ev);
	ASSERT_TRUE(id)
		TH_LOG("UDP join: %s", strerror(errno));
	ASSERT_EQ(0, ev.status);
	ASSERT_EQ(0, memcmp(ev.ud.ah_attr.dgid, udp_mgid, 16));
	ASSERT_EQ(RCM_UDP_QKEY, ev.ud.qkey);
	ASSERT_EQ(RCM_MCAST_QPN, ev.ud.qp_num);
	ASSERT_LE(0xc000, ev.ud.ah_attr.dlid);
	ASSERT_EQ(1, ev.ud.ah_attr.port_num);
	ASSERT_EQ(0, rcm_destroy(self->fd, id));

	id = ip_mc_joined(self->fd, RCM_PS_IPOIB, "224.1.2.4", 0xa2, &ev);
	ASSERT_TRUE(id)
		TH_LOG("IPoIB join: %s", strerror(errno));
	ASSERT_EQ(0, ev.status);
	ASSERT_EQ(0, memcmp(ev.ud.ah_attr.dgid, ipoib_mgid, 16));
	ASSERT_EQ(0x80010000, ev.ud.qkey);
	ASSERT_EQ(0, rcm_destroy(self->fd, id));
}

/* Last: the fabric and ib_ipoib go, and nothing of them stays. */
TEST_F(ipoib, unload)
{
	close(self->fd);
	self->fd = -1;
	rcm_sh(RCM_IP " netns del " IPOIB_NS);
	/*
	 * ib_ipoib first: its groups' leaves reach the SA while the ports
	 * are up (a port being removed is off the fabric, and ib_sa waits
	 * out each leave's retries).
	 */
	ASSERT_EQ(0, rcm_sh("rmmod ib_ipoib"));
	ASSERT_EQ(0, rcm_sh("rmmod rcm_ibfab"));
	ASSERT_NE(0, access(IB_SYS "ibfab0", F_OK));
}

RCM_TEST_MAIN
