// SPDX-License-Identifier: GPL-2.0-only
/*
 * listen: an rcm listener receives connection requests as
 * RCM_EVENT_CONNECT_REQUEST on new ids, with the peer's addresses,
 * parameters and private data; the listen's errors. On RoCE, from an
 * in-tree peer (rdma-core's librdmacm on rdma_cm.ko, run as
 * ./intree_client): a reject carrying private data; destroying the
 * request id, or closing the file, rejects it; many requests while the
 * listener closes. On both transports (FIXTURE transport in
 * rcm_transport.h: rxe, and siw with real QPs): the in-tree client is
 * accepted, after the accepts that cannot be, through the RTU on RoCE,
 * and disconnects; a second listen on a listener is refused and the
 * first stays; a wildcard listener reaches the device's address. A
 * wildcard listener in another network namespace takes no service ID on
 * rxe0, whose netdev is not in its namespace: the in-tree CM of the
 * initial namespace still listens on that port.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"
#include "rcm_transport.h"

TEST(listen_errors)
{
	int fd = rcm_open_dev();
	/* No IPoIB service on RoCE; UDP listens are in sidr.c. */
	unsigned int ud = rcm_create(fd, RCM_PS_IPOIB, RCM_QPT_UD, 1);
	unsigned int rc = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	struct rcm_reject r = { .size = sizeof(r), .id = rc };

	ASSERT_TRUE(ud && rc)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_ERRNO(rcm_listen(fd, ud, 0), EOPNOTSUPP);
	ASSERT_ERRNO(rcm_listen(fd, rc + 100, 0), ENOENT);
	/* Unbound: bound to the IPv4 wildcard first. */
	ASSERT_EQ(0, rcm_listen(fd, rc, 0))
		TH_LOG("listen: %s", strerror(errno));
	ASSERT_ERRNO(rcm_listen(fd, rc, 0), EINVAL);
	/* Only a request id can be rejected. */
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_REJECT, &r), EINVAL);
	r.private_data_len = RCM_IWARP_PRIVATE_DATA_MAX + 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_REJECT, &r), EINVAL);
	r.private_data_len = 0;
	r.reason = 27;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_REJECT, &r), EINVAL);
	close(fd);
}

/*
 * An rcm listener (context 0x1157) on RCM_ADDR_RXE at a port bind chose,
 * for the in-tree stack's client (./intree_client) to call.
 */
FIXTURE(intree_peer) {
	const char *ip;
	int fd;
	unsigned short port;
	unsigned int lid;
};

FIXTURE_SETUP(intree_peer)
{
	self->fd = -1;
	self->port = 0;
	self->ip = getenv("RCM_ADDR_RXE");
	if (!self->ip)
		SKIP_SETUP("no Soft-RoCE device");
	if (!rcm_have_intree_cm())
		SKIP_SETUP("in-tree rdma_ucm not loaded");
	self->fd = rcm_open_dev();
	self->lid = rcm_listener(self->fd, self->ip, &self->port, 0x1157, 0);
	ASSERT_TRUE(self->lid)
		TH_LOG("listen: %s", strerror(errno));
}

RCM_FD_FIXTURE_TEARDOWN(intree_peer);

TEST_F(intree_peer, intree_client_is_rejected_with_private_data)
{
	const char *ip = self->ip;
	struct rcm_query_id q = { .size = sizeof(q) };
	unsigned int lid = self->lid;
	int fd = self->fd;
	struct rcm_event ev;
	pid_t pid;

	pid = rcm_intree_client(ip, self->port, "hello rcm", "reject:28:go-away",
				false);
	ASSERT_LT(0, pid)
		TH_LOG("fork");
	ASSERT_EQ(0, rcm_wait_event(fd, 30000, &ev))
		TH_LOG("no request in 30 s");
	ASSERT_EQ(RCM_EVENT_CONNECT_REQUEST, ev.event)
		TH_LOG("event %u status %d", ev.event, ev.status);
	ASSERT_TRUE(ev.listen_id == lid && ev.context == 0x1157 && ev.id &&
		    ev.id != lid)
		TH_LOG("listen_id %u context %llx id %u", ev.listen_id,
		       (unsigned long long)ev.context, ev.id);
	ASSERT_EQ(56, ev.private_data_len)
		TH_LOG("private data length %u", ev.private_data_len);
	ASSERT_TRUE(!strcmp((char *)ev.private_data, "hello rcm"))
		TH_LOG("private data '%.56s'", ev.private_data);
	ASSERT_EQ(0x1234, ev.conn.qp_num)
		TH_LOG("qp_num %#x", ev.conn.qp_num);
	/* The peer's initiator depth is our responder resources. */
	ASSERT_TRUE(ev.conn.responder_resources == 1 &&
		    ev.conn.initiator_depth == 2)
		TH_LOG("responder_resources %u initiator_depth %u",
		       ev.conn.responder_resources, ev.conn.initiator_depth);
	ASSERT_TRUE(ev.conn.retry_count == 5 && ev.conn.rnr_retry_count == 6)
		TH_LOG("retry %u rnr %u", ev.conn.retry_count, ev.conn.rnr_retry_count);

	q.id = ev.id;
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_QUERY_ID, &q))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_TRUE(((struct sockaddr_in *)&q.out_src)->sin_addr.s_addr ==
		    inet_addr(ip) &&
		    ntohs(((struct sockaddr_in *)&q.out_src)->sin_port) ==
		    self->port)
		TH_LOG("local address of the request");
	ASSERT_TRUE(((struct sockaddr_in *)&q.out_dst)->sin_addr.s_addr ==
		    inet_addr(ip))
		TH_LOG("peer address of the request");
	ASSERT_EQ(1, q.out_port_num)
		TH_LOG("request not attached to the device");

	ASSERT_EQ(0, rcm_reject(fd, ev.id, "go-away"))
		TH_LOG("reject: %s", strerror(errno));
	ASSERT_ERRNO(rcm_reject(fd, ev.id, NULL), EINVAL);
	ASSERT_EQ(0, rcm_exit_status(pid))
		TH_LOG("the in-tree client did not see the reject");
	ASSERT_EQ(0, rcm_destroy(fd, ev.id))
		TH_LOG("destroy request id");
}

/* The same of a wildcard listener's request. */
TEST_F(intree_peer, destroying_a_request_rejects_it)
{
	unsigned short port = 0;
	struct rcm_event ev;
	int fd = self->fd;
	pid_t pid;

	ASSERT_TRUE(rcm_listener(fd, "0.0.0.0", &port, 7, 0))
		TH_LOG("listen: %s", strerror(errno));
	pid = rcm_intree_client(self->ip, port, "x", "reject:28:-", false);
	ASSERT_EQ(0, rcm_expect_event(fd, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	ASSERT_EQ(0, rcm_destroy(fd, ev.id))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_EQ(0, rcm_exit_status(pid))
		TH_LOG("the in-tree client was not rejected");
}

TEST_F(intree_peer, closing_with_unanswered_requests)
{
	struct rcm_event ev;
	pid_t pid;

	pid = rcm_intree_client(self->ip, self->port, "y", "reject:28:-",
				false);
	ASSERT_EQ(0, rcm_expect_event(self->fd, RCM_EVENT_CONNECT_REQUEST,
				      &ev))
		TH_LOG("no request");
	/* Destroys listener and request: the peer is rejected. */
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, rcm_exit_status(pid))
		TH_LOG("the in-tree client was not rejected");
}

TEST_F(intree_peer, many_requests_while_the_listener_goes_away)
{
	int i, fd = self->fd, seen = 0, failed = 0;
	struct rcm_event ev;
	pid_t pids[8];

	for (i = 0; i < 8; i++)
		pids[i] = rcm_intree_client(self->ip, self->port, "z",
					    "reject:-1:-", false);
	/*
	 * Answer some requests each way, then close the file with the
	 * listener, the unanswered requests and REQs still arriving.
	 */
	while (seen < 4 && rcm_wait_event(fd, 30000, &ev) == 0) {
		if (ev.event != RCM_EVENT_CONNECT_REQUEST)
			continue;
		if (seen++ % 2)
			rcm_reject(fd, ev.id, "no");
		else
			rcm_destroy(fd, ev.id);
	}
	close(fd);
	self->fd = -1;
	for (i = 0; i < 8; i++)
		if (rcm_exit_status(pids[i]) != 0)
			failed++;
	ASSERT_EQ(4, seen)
		TH_LOG("only %d requests arrived", seen);
	/* Late REQs find no listener: ib_cm rejects them (reason 8). */
	ASSERT_TRUE(!failed)
		TH_LOG("%d in-tree clients were not rejected", failed);
}

/* Wait for an event of @id of type @type, skipping nothing else. */
static int expect_event(int fd, unsigned int id, unsigned int type,
			int ms, struct rcm_event *ev)
{
	if (rcm_wait_event(fd, ms, ev))
		return -1;
	return ev->id == id && ev->event == type ? 0 : -1;
}

/*
 * An in-tree client (./intree_client) is accepted: first the arguments
 * an accept cannot carry and the ids that cannot accept, then the
 * accept with private data, once; the connection comes up (the RTU on
 * RoCE), the client disconnects, and we answer (the DREP on RoCE).
 */
TEST_F(transport, intree_client_is_accepted_and_disconnects)
{
	unsigned short port = 0;
	struct rcm_accept big = { .size = sizeof(big) };
	char pdata[RCM_IWARP_PRIVATE_DATA_MAX + 1] = "";
	unsigned int lid, rid, sqpn;
	struct rcm_event ev;
	int fd;
	pid_t pid;

	if (!rcm_have_intree_cm())
		SKIP(return, "in-tree rdma_ucm not loaded");
	fd = rcm_open_dev();
	lid = rcm_listener(fd, self->ip, &port, 0x11, 0);
	ASSERT_NE(0, lid)
		TH_LOG("listen: %s", strerror(errno));
	pid = rcm_intree_client(self->ip, port, "from-intree",
				"accept:from-rcm", variant->intree_qp);
	ASSERT_LT(0, pid)
		TH_LOG("fork");
	ASSERT_EQ(0, rcm_expect_event(fd, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	/*
	 * librdmacm sends its string with the NUL, 12 bytes; the in-tree
	 * client asked for 2 reads served, 1 issued.
	 */
	request_as_sent(_metadata, variant, &ev, "from-intree", 12);
	ASSERT_EQ(0, rcm_end_init(&self->se, fd, rid))
		TH_LOG("QP: %s", strerror(errno));
	sqpn = self->se.qp->qp_num;

	/* Arguments the reply cannot carry, and ids that cannot accept. */
	ASSERT_ERRNO(rcm_accept(fd, rid, 1U << 24, 0xacce, NULL), EINVAL);
	big.id = rid;
	big.qp_num = sqpn;
	/* More than any transport carries: refused before it is read. */
	big.private_data_len = RCM_IWARP_PRIVATE_DATA_MAX + 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_ACCEPT, &big), EINVAL);
	/* More than this one carries: a REP's area, or MPA's. */
	big.private_data = (uintptr_t)pdata;
	big.private_data_len = variant->accept_max + 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_ACCEPT, &big), EINVAL);
	ASSERT_ERRNO(rcm_accept(fd, lid, sqpn, 0xacce, NULL), EINVAL);
	/* Not accepted yet: 0 and nothing sent, as in-tree rdma_disconnect. */
	ASSERT_EQ(0, rcm_simple(fd, RCM_IOCTL_DISCONNECT, rid))
		TH_LOG("disconnect: %s", strerror(errno));

	ASSERT_EQ(0, rcm_accept(fd, rid, sqpn, 0xacce, "from-rcm"))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_ERRNO(rcm_accept(fd, rid, sqpn, 0xacce, NULL), EINVAL);
	/*
	 * ESTABLISHED, then DISCONNECTED (the client's DREQ). On a loaded
	 * machine the RTU MAD may be lost and the DREQ come first: then
	 * DISCONNECTED alone, as the in-tree CM reports it.
	 */
	memset(&ev, 0xff, sizeof(ev));
	ASSERT_TRUE(rcm_wait_event(fd, 30000, &ev) == 0 && ev.id == rid &&
		    (ev.event == RCM_EVENT_ESTABLISHED ||
		    ev.event == RCM_EVENT_DISCONNECTED))
		TH_LOG("no ESTABLISHED (event %u status %d)", ev.event, ev.status);
	ASSERT_EQ(0xacce, ev.context)
		TH_LOG("context %llx after accept",
		       (unsigned long long)ev.context);
	if (ev.event == RCM_EVENT_ESTABLISHED) {
		ASSERT_EQ(0, expect_event(fd, rid, RCM_EVENT_DISCONNECTED,
					  30000, &ev))
			TH_LOG("no DISCONNECTED (event %u status %d)", ev.event,
			       ev.status);
	} else {
		printf("# the client's DREQ came before its RTU: DISCONNECTED alone\n");
	}
	/* The client disconnected; we answer its DREQ. */
	ASSERT_EQ(0, rcm_simple(fd, RCM_IOCTL_DISCONNECT, rid))
		TH_LOG("disconnect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_exit_status(pid))
		TH_LOG("the in-tree client failed");
	if (variant->dreq) {
		ASSERT_EQ(0, expect_event(fd, rid, RCM_EVENT_TIMEWAIT_EXIT,
					  30000, &ev))
			TH_LOG("no TIMEWAIT_EXIT (event %u status %d)",
			       ev.event, ev.status);
	}
	close(fd);
}

/*
 * A second LISTEN on a listening id fails with EINVAL; its error path
 * used to stop the listens the first one made, so the id went on
 * looking like a listener while every request for it was refused
 * (REJ, reason 8). Found by the fault injection test: a LISTEN whose
 * result could not be copied back (EFAULT), retried.
 */
TEST_F(transport, a_second_listen_keeps_the_first)
{
	unsigned short port = 0;
	unsigned int lid, cid;
	struct rcm_event ev;
	int s, c;

	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, self->ip, &port, 0x2, 0);
	ASSERT_NE(0, lid)
		TH_LOG("listen: %s", strerror(errno));
	ASSERT_ERRNO(rcm_listen(s, lid, 0), EINVAL);
	cid = client_id(_metadata, self, c, port);
	ASSERT_EQ(0, rcm_connect(c, cid, self->cqpn, NULL))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("the listener got no request");
	ASSERT_EQ(lid, ev.listen_id)
		TH_LOG("the request came to listener %u", ev.listen_id);
	/*
	 * The server first: its close refuses the request, which ends the
	 * client's connect. A client closed first would wait for the
	 * reply that never comes (siw: its 10 s MPA timeout).
	 */
	close(s);
	close(c);
}

/*
 * A wildcard listener hears a client that dialled the device's address:
 * the request id holds that address, and destroying the request
 * unanswered rejects the client.
 */
TEST_F(transport, wildcard_listener_reaches_the_device)
{
	unsigned short port = 0;
	char addr[INET_ADDRSTRLEN] = "";
	unsigned int lid, cid;
	struct rcm_query_id q;
	struct rcm_event ev;
	int s, c;

	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, "0.0.0.0", &port, 0x22, 0);
	ASSERT_NE(0, lid)
		TH_LOG("listen: %s", strerror(errno));
	cid = client_id(_metadata, self, c, port);
	ASSERT_EQ(0, rcm_connect(c, cid, self->cqpn, "wild"))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	ASSERT_TRUE(ev.listen_id == lid && ev.context == 0x22 &&
		    !strcmp((char *)ev.private_data, "wild"))
		TH_LOG("request on %u context %#llx data '%.56s'", ev.listen_id,
		       (unsigned long long)ev.context, ev.private_data);
	ASSERT_TRUE(rcm_query(s, ev.id, &q) == 0 && q.out_port_num == 1)
		TH_LOG("query: %s", strerror(errno));
	inet_ntop(AF_INET, &((struct sockaddr_in *)&q.out_src)->sin_addr,
		  addr, sizeof(addr));
	ASSERT_EQ(0, strcmp(addr, self->ip))
		TH_LOG("request bound to %s", addr);
	ASSERT_EQ(0, rcm_destroy(s, ev.id))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_REJECTED, &ev))
		TH_LOG("not rejected");
	ASSERT_TRUE(ev.id == cid && ev.status == variant->rejected)
		TH_LOG("REJECTED on id %u status %d", ev.id, ev.status);
	close(c);
	close(s);
}

/*
 * Before rcm kept its listens to the devices of their namespace, a
 * listener in any namespace took the port's service ID on every device,
 * from the in-tree CM and the kernel's services of every namespace.
 */
TEST(listener_of_another_netns_leaves_the_port_free)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned short port = 0;
	pid_t child, srv;
	unsigned int id;
	int p[2], fd;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	if (!rcm_have_intree_cm())
		SKIP(return, "no in-tree rdma_cm");
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		if (unshare(CLONE_NEWNET))
			_exit(1);
		fd = rcm_open_dev();
		id = rcm_listener(fd, "0.0.0.0", &port, 1, 0);
		if (!id)
			_exit(2);
		if (write(p[1], &port, sizeof(port)) != sizeof(port))
			_exit(3);
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(port), read(p[0], &port, sizeof(port)))
		TH_LOG("the listener in the new namespace failed");
	srv = rcm_intree_server(ip, &port, "x", "reject:-", false);
	rcm_kill(child);
	ASSERT_LT(0, srv)
		TH_LOG("the in-tree CM cannot listen on %s port %u", ip, port);
	rcm_kill(srv);
	close(p[0]);
	close(p[1]);
}

RCM_TEST_MAIN
