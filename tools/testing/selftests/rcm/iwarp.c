// SPDX-License-Identifier: GPL-2.0-only
/*
 * iwarp: what only iWARP has, over soft-iWARP (siw, RCM_ADDR_SIW),
 * through rcm's ioctls and iw_cm. iw_cm hands the connection to a real
 * QP, so every side creates a PD, a CQ and an RC QP on the siw device
 * (libibverbs), readies it with RCM_IOCTL_INIT_QP_ATTR and names it in
 * connect and accept. Covered: the commands before a connection (INIT
 * without access flags, the IB CM's commands refused); another
 * process's QP is refused; the private data limits (255 bytes, what
 * siw carries, their first bytes in a shorter record); a TCP connect
 * that waits out its SYN retries (siw connects inside iw_cm_connect())
 * holds no lock an address change needs, and a destroy waits for it; a
 * peer's private data past 196 bytes arrives whole; removing the
 * device with a connection, and a wildcard listener that listens again
 * once it is back. The cases that mean the same on RoCE run on both
 * transports in connect.c and listen.c (FIXTURE transport,
 * rcm_transport.h): connect, accept, a SEND each way and disconnect;
 * IPv6; nobody listening; reject; closing and killing with live
 * connections; destroy mid-connect; a wildcard listener; and both
 * directions against the in-tree stack.
 */
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"
#include "rcm_verbs.h"

#define QP_ATTR_STATE		(1 << 0)
#define QP_ATTR_ACCESS_FLAGS	(1 << 3)

static const char *siw_ip(void)
{
	return getenv("RCM_ADDR_SIW");
}

#define NEED_SIW(ip)							\
	do {								\
		if (!(ip))						\
			SKIP(return, "no soft-iWARP device");			\
	} while (0)

TEST(iwarp_commands_before_a_connection)
{
	const char *ip = siw_ip();
	struct rcm_notify n = { .size = sizeof(n),
				.event = RCM_NOTIFY_COMM_EST };
	struct rcm_init_qp_attr a;
	char big[RCM_IWARP_PRIVATE_DATA_MAX + 1] = "";
	struct rcm_end e;
	unsigned int id;
	int fd;

	NEED_SIW(ip);
	fd = rcm_open_dev();
	/* Towards a port nobody listens on: no connect reaches the wire. */
	id = rcm_routed_id(fd, ip, rcm_free_port(ip, RCM_PS_TCP), 1);
	ASSERT_TRUE(id)
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_end_open(&e, IBV_TRANSPORT_IWARP, IBV_QPT_RC))
		TH_LOG("verbs: %s", strerror(errno));
	/* No iw_cm id yet: INIT with the access flags only. */
	ASSERT_EQ(0, rcm_qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a))
		TH_LOG("INIT: %s", strerror(errno));
	ASSERT_TRUE(a.out_attr[0].qp_state == RCM_QPS_INIT &&
		    a.out_attr[0].qp_attr_mask == (QP_ATTR_STATE |
		    QP_ATTR_ACCESS_FLAGS))
		TH_LOG("INIT state %u mask %#x", a.out_attr[0].qp_state,
		       a.out_attr[0].qp_attr_mask);
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 1 << RCM_QPS_RTR, &a), EINVAL);
	ASSERT_EQ(0, rcm_end_init(&e, fd, id))
		TH_LOG("modify to INIT: %s", strerror(errno));
	/* More private data than iWARP takes. */
	ASSERT_ERRNO(rcm_connect_data(fd, id, e.qp->qp_num, big, sizeof(big)),
		     EINVAL);
	/* iw_cm finds no QP of that number on the device. */
	ASSERT_ERRNO(rcm_connect_data(fd, id, 0xfffff0, "x", 2), EINVAL);
	/* Neither left the id changed; nor do IB CM-only commands. */
	ASSERT_ERRNO(rcm_simple(fd, RCM_IOCTL_ESTABLISH, id), EINVAL);
	ASSERT_ERRNO(rcm_simple(fd, RCM_IOCTL_DISCONNECT, id), EINVAL);
	n.id = id;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_NOTIFY, &n), EINVAL);
	ASSERT_EQ(0, rcm_qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a))
		TH_LOG("still routed: %s", strerror(errno));
	close(fd);
	rcm_end_close(&e);
}

/*
 * iw_cm binds a connection to any QP of the device with the number it is
 * given. rcm takes only the caller's own: a process cannot connect (or
 * accept) with another process's QP, whose traffic it would take over.
 */
TEST(iwarp_qp_of_another_process_is_refused)
{
	const char *ip = siw_ip();
	unsigned short port = 0;
	unsigned int lid;
	struct rcm_end e;
	int fd, st;
	pid_t pid;

	NEED_SIW(ip);
	fd = rcm_open_dev();
	lid = rcm_listener(fd, ip, &port, 1, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	ASSERT_EQ(0, rcm_end_open(&e, IBV_TRANSPORT_IWARP, IBV_QPT_RC))
		TH_LOG("verbs: %s", strerror(errno));
	pid = fork();
	ASSERT_LE(0, pid)
		TH_LOG("fork");
	if (pid == 0) {
		int c = rcm_open_dev();
		unsigned int id = rcm_routed_id(c, ip, port, 2);

		if (!id)
			_exit(2);
		if (rcm_connect_data(c, id, e.qp->qp_num, "steal", 6) == 0)
			_exit(1);
		_exit(errno == EINVAL ? 0 : 3);
	}
	ASSERT_TRUE(waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		TH_LOG("child did not exit");
	ASSERT_EQ(0, WEXITSTATUS(st))
		TH_LOG("connect with another process's QP: child exit %d (1: it was taken)",
		       WEXITSTATUS(st));
	close(fd);
	rcm_end_close(&e);
}

/*
 * What siw carries at most, measured: 252 (MPA's 256 bytes less the MPA
 * v2 IRD/ORD block) goes out but never arrives as a request.
 */
#define SIW_PRIVATE_DATA_MAX	251

TEST(iwarp_private_data_limits)
{
	const char *ip = siw_ip();
	unsigned char big[RCM_IWARP_PRIVATE_DATA_MAX + 1];
	enum { REC = RCM_EVENT_SIZE_MIN + 200 };
	struct rcm_query q = { .size = sizeof(q), .event_size = REC };
	unsigned int lid, cid, rid, i;
	unsigned short port = 0;
	const unsigned int head = REC - RCM_EVENT_SIZE_MIN;
	const unsigned int len = SIW_PRIVATE_DATA_MAX;
	struct rcm_event ev;
	struct rcm_end ce, se;
	int s, c;

	NEED_SIW(ip);
	for (i = 0; i < sizeof(big); i++)
		big[i] = i * 7 + 1;
	ASSERT_EQ(0, rcm_end_pair_open(&ce, &se, IBV_TRANSPORT_IWARP))
		TH_LOG("verbs: %s", strerror(errno));
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x11, 0);
	cid = rcm_routed_id(c, ip, port, 6);
	ASSERT_TRUE(lid && cid)
		TH_LOG("set-up: %s", strerror(errno));
	/* The client reads records shorter than its private data. */
	ASSERT_TRUE(ioctl(c, RCM_IOCTL_QUERY, &q) == 0 &&
		    q.out_event_size == REC)
		TH_LOG("query: %s (%u)", strerror(errno), q.out_event_size);
	ASSERT_EQ(0, rcm_end_init(&ce, c, cid))
		TH_LOG("QP: %s", strerror(errno));
	/* As in-tree: the u8 length is the limit, 255 bytes. */
	ASSERT_ERRNO(rcm_connect_data(c, cid, ce.qp->qp_num, big, sizeof(big)),
		     EINVAL);
	/* All that siw carries arrives whole, more than the IB CM's 196. */
	ASSERT_EQ(0, rcm_connect_data(c, cid, ce.qp->qp_num, big, len))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_TRUE(ev.private_data_len == len &&
		    !memcmp(ev.private_data, big, len))
		TH_LOG("request data len %u of %u", ev.private_data_len, len);
	ASSERT_EQ(0, rcm_end_init(&se, s, rid))
		TH_LOG("QP: %s", strerror(errno));
	ASSERT_ERRNO(rcm_accept_data(s, rid, se.qp->qp_num, 0, big,
				     sizeof(big)), EINVAL);
	ASSERT_ERRNO(rcm_reject_data(s, rid, big, sizeof(big)), EINVAL);
	/* iw_cm finds no such QP: the request is still there. */
	ASSERT_ERRNO(rcm_accept_data(s, rid, 0xfffff0, 0, big, 1), EINVAL);
	ASSERT_EQ(0, rcm_accept_data(s, rid, se.qp->qp_num, 0, big + 1, len))
		TH_LOG("accept: %s", strerror(errno));
	/* The short record: the data's first bytes, the whole length. */
	ASSERT_EQ(0, rcm_expect_record(c, REC, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("not established");
	ASSERT_TRUE(ev.private_data_len == len &&
		    !memcmp(ev.private_data, big + 1, head) &&
		    !ev.private_data[head])
		TH_LOG("reply data len %u", ev.private_data_len);
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("not established");
	close(c);
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev))
		TH_LOG("no DISCONNECTED");
	close(s);
	rcm_end_close(&ce);
	rcm_end_close(&se);
}

/* Set net.ipv4.tcp_syn_retries: 0 or -1. */
static int syn_retries(int n)
{
	return rcm_write_long("/proc/sys/net/ipv4/tcp_syn_retries", n);
}

/*
 * Make the neighbour 198.18.N.2 of the siw address @ip (198.18.N.1),
 * written into @nb, known on @dev (a permanent ARP entry) but silent,
 * with TCP giving up after 2 SYN retries (7 s): a TCP connect to it
 * waits that long, and siw connects TCP inside iw_cm_connect().
 * 0, or -1; silence_off() undoes it.
 */
static int silence_on(const char *ip, const char *dev, char *nb, size_t len)
{
	snprintf(nb, len, "%.*s2", (int)(strrchr(ip, '.') + 1 - ip), ip);
	if (rcm_sh("/usr/sbin/ip neigh replace %s lladdr 02:00:c6:12:00:02 dev %s nud permanent",
		   nb, dev))
		return -1;
	return syn_retries(2);
}

static void silence_off(const char *nb, const char *dev)
{
	rcm_sh("/usr/sbin/ip neigh del %s dev %s", nb, dev);
	syn_retries(6);
}

/*
 * Child of iwarp_slow_tcp_connect_leaves_the_id_unlocked: connect to
 * @nb, telling the parent on @ready just before. Exit status 0 when
 * the connect failed with the TCP connect's ETIMEDOUT (the call's
 * answer, as in-tree) and no event followed.
 */
static int connect_to_silence(const char *nb, int ready)
{
	struct rcm_event ev;
	unsigned int id;
	struct rcm_end e;
	int fd;

	fd = rcm_open_dev();
	/* Any port: the neighbour answers none. */
	id = rcm_routed_id(fd, nb, rcm_free_port(siw_ip(), RCM_PS_TCP), 1);
	if (!id || rcm_end_open(&e, IBV_TRANSPORT_IWARP, IBV_QPT_RC) || rcm_end_init(&e, fd, id))
		return 2;
	if (write(ready, "r", 1) != 1)
		return 3;
	if (!rcm_connect_data(fd, id, e.qp->qp_num, "hush", 5) ||
	    errno != ETIMEDOUT)
		return 4;
	if (!rcm_wait_event(fd, 500, &ev))
		return 5;
	rcm_end_close(&e);
	return 0;
}

/*
 * siw connects TCP before iw_cm_connect() returns, which to a silent
 * peer takes as long as the SYN retries. rcm must not hold the id's
 * lock meanwhile: a bond's failover (whose work takes the lock of every
 * attached id of the namespace, in order) would wait for the connect,
 * and with it the ids attached after this one - here one on the bond.
 */
TEST(iwarp_slow_tcp_connect_leaves_the_id_unlocked)
{
	const char *ip = siw_ip(), *dev = getenv("RCM_NETDEV_SIW");
	char nb[INET_ADDRSTRLEN], c;
	struct timespec t0;
	struct rcm_event ev;
	int p[2], fd, st;
	unsigned int id;
	pid_t pid;

	NEED_SIW(ip);
	ASSERT_NE(NULL, dev)
		TH_LOG("no RCM_NETDEV_SIW");
	if (access("/sys/class/net/bonding_masters", F_OK) &&
	    rcm_sh("modprobe -q bonding"))
		SKIP(return, "no bonding in this kernel");
	ASSERT_EQ(0, rcm_bond_up())
		TH_LOG("cannot build the bond and its Soft-RoCE device");
	ASSERT_EQ(0, silence_on(ip, dev, nb, sizeof(nb)))
		TH_LOG("cannot make %s a silent neighbour: %s", nb, strerror(errno));
	ASSERT_EQ(0, pipe(p))
		TH_LOG("pipe: %s", strerror(errno));
	pid = fork();
	ASSERT_LE(0, pid)
		TH_LOG("fork: %s", strerror(errno));
	if (!pid)
		_exit(connect_to_silence(nb, p[1]));
	ASSERT_EQ(1, read(p[0], &c, 1))
		TH_LOG("the connecting child failed");
	/* Attached after the connecting id: the work reaches it later. */
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_TRUE(id && rcm_bind(fd, id, RCM_BOND_IP, 0) == 0)
		TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, rcm_wait_in_syscall(pid, SYS_ioctl, 30000))
		TH_LOG("the child never blocked in its connect");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_bond_failover(1))
		TH_LOG("cannot fail the bond over");
	st = rcm_wait_event(fd, 3000, &ev);
	printf("# address change reported after %ld ms\n", rcm_ms_since(&t0));
	rcm_bond_down();
	ASSERT_TRUE(st == 0 && ev.event == RCM_EVENT_ADDR_CHANGE && ev.id == id)
		TH_LOG("no ADDR_CHANGE within 3 s while another id connects");
	ASSERT_TRUE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0)
		TH_LOG("connecting child: status %d", st);
	silence_off(nb, dev);
	close(fd);
	close(p[0]);
	close(p[1]);
}

struct slow_connect {
	pid_t tid;	/* the thread's, once it is about to connect */
	int fd;
	unsigned int id;
	unsigned int qpn;
	int ret;
	int err;
};

static void *slow_connect_thread(void *arg)
{
	struct slow_connect *sc = arg;

	__atomic_store_n(&sc->tid, gettid(), __ATOMIC_RELEASE);
	sc->ret = rcm_connect_data(sc->fd, sc->id, sc->qpn, "hush", 5);
	sc->err = errno;
	return NULL;
}

/*
 * Destroying an id whose connect is still inside the driver waits for
 * it (iw_cm must not destroy an iw_cm id a connect is about to mark
 * busy), then succeeds; KASAN sees any use of the freed iw_cm id.
 */
TEST(iwarp_destroy_during_slow_tcp_connect)
{
	const char *ip = siw_ip(), *dev = getenv("RCM_NETDEV_SIW");
	struct slow_connect sc = {};
	char nb[INET_ADDRSTRLEN];
	struct timespec t0;
	struct rcm_event ev;
	pthread_t t;
	struct rcm_end e;

	NEED_SIW(ip);
	ASSERT_NE(NULL, dev)
		TH_LOG("no RCM_NETDEV_SIW");
	ASSERT_EQ(0, silence_on(ip, dev, nb, sizeof(nb)))
		TH_LOG("cannot make %s a silent neighbour: %s", nb, strerror(errno));
	sc.fd = rcm_open_dev();
	sc.id = rcm_routed_id(sc.fd, nb, rcm_free_port(ip, RCM_PS_TCP), 1);
	ASSERT_TRUE(sc.id &&
		    rcm_end_open(&e, IBV_TRANSPORT_IWARP,
				 IBV_QPT_RC) == 0 && rcm_end_init(&e, sc.fd,
								  sc.id) == 0)
		TH_LOG("set-up: %s", strerror(errno));
	sc.qpn = e.qp->qp_num;
	ASSERT_EQ(0, pthread_create(&t, NULL, slow_connect_thread, &sc))
		TH_LOG("thread");
	ASSERT_TRUE(RCM_WAIT_FOR(__atomic_load_n(&sc.tid, __ATOMIC_ACQUIRE),
				 30000) &&
		    rcm_wait_in_syscall(sc.tid, SYS_ioctl, 30000) == 0)
		TH_LOG("the thread never blocked in its connect");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_destroy(sc.fd, sc.id))
		TH_LOG("destroy: %s", strerror(errno));
	printf("# destroy waited %ld ms for the connect\n", rcm_ms_since(&t0));
	pthread_join(t, NULL);
	ASSERT_TRUE(sc.ret == -1 && sc.err == ETIMEDOUT)
		TH_LOG("connect: %d, %s", sc.ret, strerror(sc.err));
	ASSERT_TRUE(rcm_wait_event(sc.fd, 500, &ev))
		TH_LOG("event %u after destroy", ev.event);
	silence_off(nb, dev);
	close(sc.fd);
	rcm_end_close(&e);
}

/*
 * An iWARP peer's private data past the first 196 bytes, both ways: a
 * client on the in-tree stack and one on rcm's library (which allows
 * iWARP's 255 bytes, not the IB CM's 56) each send 251 bytes, and the
 * rcm listener rejects them with 200; the client checks the first 199
 * of those, so rcm's library must put the tail of the record back.
 */
TEST(iwarp_peer_private_data_arrives_whole)
{
	const char *ip = siw_ip();
	char data[251], rej[200], want[16 + sizeof(rej)];
	struct rcm_event ev;
	unsigned short port = 0;
	char portstr[8];
	unsigned int lid;
	int s, lib;
	pid_t pid;

	NEED_SIW(ip);
	/*
	 * 250 characters and the NUL: what siw sends at most (its u8 MPA
	 * length, 255, holds the 4-byte MPA v2 IRD/ORD block too).
	 */
	memset(data, 'd', sizeof(data) - 1);
	data[sizeof(data) - 1] = '\0';
	memset(rej, 'r', sizeof(rej));
	snprintf(want, sizeof(want), "reject:-1:%.*s", (int)sizeof(rej) - 1,
		 rej);
	s = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x55, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	snprintf(portstr, sizeof(portstr), "%hu", port);
	for (lib = 0; lib < 2; lib++) {
		if (!lib && !rcm_have_intree_cm()) {
			printf("# in-tree rdma_ucm not loaded: rcm's library only\n");
			continue;
		}
		pid = fork();
		ASSERT_LE(0, pid)
			TH_LOG("fork");
		if (pid == 0) {
			if (lib)
				setenv("LD_LIBRARY_PATH", "/usr/lib/rcm", 1);
			execl("./intree_client", "intree_client", ip, portstr,
			      data, want, "qp", (char *)NULL);
			_exit(3);
		}
		ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST,
					      &ev))
			TH_LOG("no request from the %s client", lib ? "rcm" : "in-tree");
		ASSERT_TRUE(ev.private_data_len == sizeof(data) &&
			    !memcmp(ev.private_data, data, sizeof(data)))
			TH_LOG("request data len %u of %zu",
			       ev.private_data_len, sizeof(data));
		ASSERT_EQ(0, rcm_reject_data(s, ev.id, rej, sizeof(rej)))
			TH_LOG("reject: %s", strerror(errno));
		ASSERT_EQ(0, rcm_exit_status(pid))
			TH_LOG("the %s client failed", lib ? "rcm" : "in-tree");
	}
	close(s);
}

TEST(iwarp_device_removal_with_a_connection)
{
	const char *ip = siw_ip();
	const char *netdev = getenv("RCM_NETDEV_SIW");
	unsigned int lid, wid, cid = 0, seen;
	unsigned short port = 0, wport = 0;
	struct timespec t0;
	struct rcm_event ev;
	struct rcm_end ce, se;
	int fd, w, st;
	pid_t pid;

	NEED_SIW(ip);
	if (!netdev)
		SKIP(return, "no soft-iWARP netdev");
	ASSERT_EQ(0, rcm_end_pair_open(&ce, &se, IBV_TRANSPORT_IWARP))
		TH_LOG("verbs: %s", strerror(errno));
	fd = rcm_open_dev();
	w = rcm_open_dev();
	/* A listener on the device, and a wildcard one in another file. */
	lid = rcm_listener(fd, ip, &port, 1, 0);
	wid = rcm_listener(w, "0.0.0.0", &wport, 2, 0);
	ASSERT_TRUE(lid && wid)
		TH_LOG("listen: %s", strerror(errno));
	ASSERT_EQ(0, rcm_establish_n(fd, fd, ip, port, &ce, &se, 1))
		TH_LOG("connection: %s", strerror(errno));

	/*
	 * ib_uverbs lets the device go only once our verbs context is
	 * closed (siw cannot disassociate it), so the removal runs beside
	 * us; rcm's part of it must not wait for anything of ours.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		int i;

		/* Our verbs files would hold the device: not the child's. */
		for (i = 3; i < 1024; i++)
			close(i);
		execlp("rdma", "rdma", "link", "delete", "siw0", (char *)NULL);
		_exit(127);
	}
	ASSERT_LT(0, pid)
		TH_LOG("fork");
	seen = rcm_removals(fd, 3, 10000);
	/* The listener and both ends of the connection. */
	ASSERT_EQ(3, seen)
		TH_LOG("%u DEVICE_REMOVAL events, want 3", seen);
	ASSERT_GT(10000, rcm_ms_since(&t0))
		TH_LOG("removal took %ld ms", rcm_ms_since(&t0));
	ASSERT_TRUE(rcm_wait_event(fd, 200, &ev))
		TH_LOG("then event %u", ev.event);
	ASSERT_TRUE(rcm_wait_event(w, 200, &ev))
		TH_LOG("wildcard listener got event %u", ev.event);
	/* What an application does on DEVICE_REMOVAL: let go of its QPs. */
	rcm_end_close(&ce);
	rcm_end_close(&se);
	ASSERT_TRUE(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0)
		TH_LOG("rdma link delete failed");
	close(fd);

	/* The device comes back: the wildcard listener listens there too. */
	ASSERT_EQ(0, rcm_sh("rdma link add siw0 type siw netdev %s", netdev))
		TH_LOG("rdma link add failed");
	fd = rcm_open_dev();
	/* Routes fail until the device is up again. */
	ASSERT_TRUE(RCM_WAIT_FOR((cid = rcm_routed_id(fd, ip, wport, 3)),
				 10000))
		TH_LOG("route after re-adding siw0: %s", strerror(errno));
	ASSERT_TRUE(rcm_end_open(&ce, IBV_TRANSPORT_IWARP, IBV_QPT_RC) == 0 &&
		    rcm_end_init(&ce, fd, cid) == 0)
		TH_LOG("verbs: %s", strerror(errno));
	ASSERT_EQ(0, rcm_connect_data(fd, cid, ce.qp->qp_num, "back", 5))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_TRUE(rcm_expect_event(w, RCM_EVENT_CONNECT_REQUEST, &ev) == 0 &&
		    ev.listen_id == wid)
		TH_LOG("no request on the wildcard listener");
	ASSERT_EQ(0, rcm_reject_data(w, ev.id, NULL, 0))
		TH_LOG("reject: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(fd, RCM_EVENT_REJECTED, &ev))
		TH_LOG("not rejected");
	close(fd);
	close(w);
	rcm_end_close(&ce);
}

int main(void)
{
	/* Line by line: a case that hangs still shows how far it got. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return rcm_test_main();
}
