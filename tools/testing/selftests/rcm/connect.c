// SPDX-License-Identifier: GPL-2.0-only
/*
 * connect: the active side and the whole connection handshake through
 * rcm's ioctls, without QPs (the CM never looks at them): connect with
 * private data both ways; the QP attributes both sides get (the peer's
 * QP number, PSNs that match crosswise); establish, disconnect, DREP,
 * timewait on both sides; a port nobody listens on (REJECTED, reason
 * 8); reject with private data; the active side refusing an answered
 * connect; two clients at once; a client killed by SIGKILL mid-connect;
 * and an rcm client against an in-tree listener (./intree_server, on
 * rdma-core's librdmacm over rdma_ucm.ko) that accepts or rejects.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

/* IB CM reject reason: no listener on the service ID. */
#define REJ_INVALID_SERVICE_ID 8

#define QP_ATTR_STATE	(1 << 0)
#define QP_ATTR_AV	(1 << 7)
#define QP_ATTR_DEST_QPN (1 << 20)

static int do_simple(int fd, unsigned long cmd, unsigned int id)
{
	/* establish and disconnect share their shape */
	struct rcm_establish e = { .size = sizeof(e), .id = id };

	return ioctl(fd, cmd, &e);
}

static int qp_attrs(int fd, unsigned int id, unsigned int states,
		    struct rcm_init_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->id = id;
	a->qp_states = states;
	return ioctl(fd, RCM_IOCTL_INIT_QP_ATTR, a);
}

RCM_TEST(connect_errors)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	char big[RCM_UD_CONNECT_PRIVATE_DATA_MAX + 2];
	struct rcm_connect c = { .size = sizeof(c) };
	struct rcm_notify n = { .size = sizeof(n) };
	struct rcm_init_qp_attr a;
	unsigned int id, ud;
	int fd;

	if (!ip)
		SKIP("no Soft-RoCE device");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);
	CHECK(id && ud, "create: %s", strerror(errno));
	/* Nothing resolved yet. */
	CHECK_ERRNO(rcm_connect(fd, id, 1, NULL), EINVAL);
	CHECK_ERRNO(rcm_connect(fd, id + 100, 1, NULL), ENOENT);
	CHECK_ERRNO(qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a), EINVAL);
	CHECK_ERRNO(qp_attrs(fd, id, 0, &a), EINVAL);
	CHECK_ERRNO(qp_attrs(fd, id, 1 << 4, &a), EINVAL);
	CHECK_ERRNO(qp_attrs(fd, id, 1, &a), EINVAL);
	CHECK_ERRNO(do_simple(fd, RCM_IOCTL_ESTABLISH, id), EINVAL);
	CHECK_ERRNO(do_simple(fd, RCM_IOCTL_DISCONNECT, id), EINVAL);
	n.id = id;
	n.event = 3;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_NOTIFY, &n), EINVAL);
	n.event = RCM_NOTIFY_COMM_EST;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_NOTIFY, &n), EINVAL);

	CHECK(rcm_routed(fd, id, ip, 20150) == 0, "route: %s",
	      strerror(errno));
	CHECK(rcm_routed(fd, ud, ip, 20150) == 0, "route UD: %s",
	      strerror(errno));
	/* A UD id's connect is a SIDR REQ (sidr.c): its limit is 180. */
	c.id = ud;
	c.private_data = (uintptr_t)big;
	c.private_data_len = RCM_UD_CONNECT_PRIVATE_DATA_MAX + 1;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.private_data = 0;
	c.private_data_len = 0;
	/* Before a connection: INIT only. */
	CHECK(qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a) == 0, "INIT: %s",
	      strerror(errno));
	CHECK(a.out_attr[0].qp_state == RCM_QPS_INIT &&
	      (a.out_attr[0].qp_attr_mask & QP_ATTR_STATE) &&
	      a.out_attr[0].port_num == 1 && a.out_attr[1].qp_state == 0,
	      "INIT attributes: state %u mask %#x port %u",
	      a.out_attr[0].qp_state, a.out_attr[0].qp_attr_mask,
	      a.out_attr[0].port_num);
	CHECK_ERRNO(qp_attrs(fd, id, 1 << RCM_QPS_RTR, &a), EINVAL);
	CHECK_ERRNO(qp_attrs(fd, id, 1 << RCM_QPS_RTS, &a), EINVAL);

	c.id = id;
	c.qp_num = 1 << 24;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.qp_num = 5;
	/* Retry counts above 7 are taken as 7, as in-tree (cm_conn_compat). */
	c.flow_control = 2;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.flow_control = 0;
	c.reserved[1] = 1;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.reserved[1] = 0;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	c.private_data = (uintptr_t)big;
	c.private_data_len = RCM_CONNECT_PRIVATE_DATA_MAX + 1;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.private_data_len = RCM_CONNECT_PRIVATE_DATA_MAX;
	c.private_data = 8;	/* not mapped */
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EFAULT);
	/* The failures left the id as it was: it still connects. */
	CHECK(rcm_connect(fd, id, 5, NULL) == 0, "connect: %s",
	      strerror(errno));
	CHECK_ERRNO(rcm_connect(fd, id, 5, NULL), EINVAL);
	/* No answer yet: no RTR, no establish. */
	CHECK_ERRNO(qp_attrs(fd, id, 1 << RCM_QPS_RTR, &a), EINVAL);
	CHECK_ERRNO(do_simple(fd, RCM_IOCTL_ESTABLISH, id), EINVAL);
	close(fd);
}

RCM_TEST(connect_accept_establish_disconnect)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_init_qp_attr ca, sa;
	struct rcm_event ev;
	unsigned int lid, cid, rid;
	int s, c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, 20101, 0x11, 0);
	CHECK(lid, "listen: %s", strerror(errno));
	cid = rcm_routed_id(c, ip, 20101, 0xc1);
	CHECK(cid, "route: %s", strerror(errno));
	CHECK(rcm_connect(c, cid, 0x111, "ping") == 0, "connect: %s",
	      strerror(errno));

	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	rid = ev.id;
	CHECK(!strcmp((char *)ev.private_data, "ping") &&
	      ev.private_data_len == 56, "request data '%.56s' len %u",
	      ev.private_data, ev.private_data_len);
	CHECK(ev.conn.qp_num == 0x111 && ev.conn.retry_count == 7 &&
	      ev.conn.rnr_retry_count == 7, "request qpn %#x retry %u rnr %u",
	      ev.conn.qp_num, ev.conn.retry_count, ev.conn.rnr_retry_count);
	CHECK(qp_attrs(s, rid, (1 << RCM_QPS_INIT) | (1 << RCM_QPS_RTR) |
		       (1 << RCM_QPS_RTS), &sa) == 0,
	      "passive attributes: %s", strerror(errno));
	CHECK(sa.out_attr[1].dest_qp_num == 0x111 &&
	      (sa.out_attr[1].qp_attr_mask & (QP_ATTR_AV | QP_ATTR_DEST_QPN)) ==
	      (QP_ATTR_AV | QP_ATTR_DEST_QPN) &&
	      sa.out_attr[1].ah_attr.is_global && sa.out_attr[1].path_mtu,
	      "passive RTR: qpn %#x mask %#x global %u mtu %u",
	      sa.out_attr[1].dest_qp_num, sa.out_attr[1].qp_attr_mask,
	      sa.out_attr[1].ah_attr.is_global, sa.out_attr[1].path_mtu);
	CHECK(rcm_accept(s, rid, 0x222, 0xacce, "pong") == 0, "accept: %s",
	      strerror(errno));
	CHECK_ERRNO(rcm_accept(s, rid, 0x222, 0xacce, "pong"), EINVAL);

	CHECK(rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev) == 0, "no response");
	CHECK(ev.id == cid && ev.context == 0xc1, "response id %u ctx %llx",
	      ev.id, (unsigned long long)ev.context);
	CHECK(!strcmp((char *)ev.private_data, "pong") &&
	      ev.private_data_len == RCM_ACCEPT_PRIVATE_DATA_MAX,
	      "response data '%.56s' len %u", ev.private_data,
	      ev.private_data_len);
	CHECK(ev.conn.qp_num == 0x222, "response qpn %#x", ev.conn.qp_num);
	CHECK(qp_attrs(c, cid, (1 << RCM_QPS_RTR) | (1 << RCM_QPS_RTS),
		       &ca) == 0, "active attributes: %s", strerror(errno));
	CHECK(ca.out_attr[0].qp_state == 0 &&
	      ca.out_attr[1].dest_qp_num == 0x222 &&
	      ca.out_attr[2].qp_state == RCM_QPS_RTS,
	      "active RTR qpn %#x", ca.out_attr[1].dest_qp_num);
	/* Each side receives from the PSN the other sends from. */
	CHECK(ca.out_attr[1].rq_psn == sa.out_attr[2].sq_psn &&
	      sa.out_attr[1].rq_psn == ca.out_attr[2].sq_psn,
	      "PSNs: active rq %#x sq %#x, passive rq %#x sq %#x",
	      ca.out_attr[1].rq_psn, ca.out_attr[2].sq_psn,
	      sa.out_attr[1].rq_psn, sa.out_attr[2].sq_psn);
	CHECK(ca.out_attr[2].retry_cnt == 7 && ca.out_attr[2].timeout &&
	      ca.out_attr[2].rnr_retry == 7, "active RTS retry %u timeout %u",
	      ca.out_attr[2].retry_cnt, ca.out_attr[2].timeout);
	CHECK(!memcmp(ca.out_attr[1].ah_attr.dgid, sa.out_attr[1].ah_attr.dgid,
		      16), "loopback: both sides see the same GID");

	CHECK(do_simple(c, RCM_IOCTL_ESTABLISH, cid) == 0, "establish: %s",
	      strerror(errno));
	CHECK_ERRNO(do_simple(c, RCM_IOCTL_ESTABLISH, cid), EINVAL);
	CHECK(rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev) == 0, "not established");
	CHECK(ev.id == rid && ev.context == 0xacce, "established id %u",
	      ev.id);
	/* As in-tree (ib_cm): notify on an established connection. */
	{
		struct rcm_notify n = { .size = sizeof(n),
					.event = RCM_NOTIFY_COMM_EST };

		n.id = rid;
		CHECK_ERRNO(ioctl(s, RCM_IOCTL_NOTIFY, &n), EISCONN);
		n.id = cid;
		CHECK_ERRNO(ioctl(c, RCM_IOCTL_NOTIFY, &n), EISCONN);
	}

	CHECK(do_simple(c, RCM_IOCTL_DISCONNECT, cid) == 0, "disconnect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev) == 0, "passive: no DISC");
	/* The passive side answers with its DREP, which ends the active's. */
	CHECK(do_simple(s, RCM_IOCTL_DISCONNECT, rid) == 0, "DREP: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_DISCONNECTED, &ev) == 0, "active: no DISC");
	CHECK(ev.status == 0, "active DISCONNECTED status %d", ev.status);
	CHECK(rcm_expect_event(c, RCM_EVENT_TIMEWAIT_EXIT, &ev) == 0, "active timewait");
	CHECK(rcm_expect_event(s, RCM_EVENT_TIMEWAIT_EXIT, &ev) == 0, "passive timewait");
	close(c);
	close(s);
}

RCM_TEST(nobody_listens_is_rejected)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_event ev;
	unsigned int id;
	int fd;

	if (!ip)
		SKIP("no Soft-RoCE device");
	fd = rcm_open_dev();
	id = rcm_routed_id(fd, ip, 20199, 3);
	CHECK(id, "route: %s", strerror(errno));
	CHECK(rcm_connect(fd, id, 0x33, "anyone?") == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(fd, RCM_EVENT_REJECTED, &ev) == 0, "not rejected");
	CHECK(ev.status == REJ_INVALID_SERVICE_ID, "status %d", ev.status);
	CHECK_ERRNO(do_simple(fd, RCM_IOCTL_ESTABLISH, id), EINVAL);
	CHECK(rcm_destroy(fd, id) == 0, "destroy: %s", strerror(errno));
	close(fd);
}

RCM_TEST(reject_carries_private_data)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	char big[RCM_REJECT_PRIVATE_DATA_MAX + 1];
	struct rcm_reject r = { .size = sizeof(r) };
	struct rcm_event ev;
	unsigned int lid, cid;
	int s, c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, 20102, 0x11, 0);
	cid = rcm_routed_id(c, ip, 20102, 4);
	CHECK(lid && cid, "set-up: %s", strerror(errno));
	CHECK(rcm_connect(c, cid, 0x44, "let me in") == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	r.id = ev.id;
	/* More than the REJ area, though iWARP would take it. */
	memset(big, 'r', sizeof(big));
	r.private_data = (uintptr_t)big;
	r.private_data_len = RCM_REJECT_PRIVATE_DATA_MAX + 1;
	CHECK_ERRNO(ioctl(s, RCM_IOCTL_REJECT, &r), EINVAL);
	r.private_data = (uintptr_t)"full up";
	r.private_data_len = 8;
	CHECK(ioctl(s, RCM_IOCTL_REJECT, &r) == 0, "reject: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_REJECTED, &ev) == 0, "not rejected");
	CHECK(ev.status == RCM_REJ_CONSUMER_DEFINED && ev.id == cid,
	      "status %d", ev.status);
	CHECK(!strcmp((char *)ev.private_data, "full up") &&
	      ev.private_data_len == RCM_REJECT_PRIVATE_DATA_MAX,
	      "reject data '%.56s' len %u", ev.private_data,
	      ev.private_data_len);
	close(c);
	close(s);
}

RCM_TEST(active_side_rejects_the_response)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_reject r = { .size = sizeof(r) };
	struct rcm_event ev;
	unsigned int lid, cid, rid;
	int s, c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, 20103, 0x11, 0);
	cid = rcm_routed_id(c, ip, 20103, 5);
	CHECK(lid && cid, "set-up: %s", strerror(errno));
	CHECK(rcm_connect(c, cid, 0x55, NULL) == 0, "connect: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	rid = ev.id;
	CHECK(rcm_accept(s, rid, 0x66, 6, NULL) == 0, "accept: %s",
	      strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev) == 0, "no response");
	/* Say the QP could not be readied: the client gives up. */
	r.id = cid;
	r.private_data = (uintptr_t)"qp broke";
	r.private_data_len = 9;
	CHECK(ioctl(c, RCM_IOCTL_REJECT, &r) == 0, "reject: %s",
	      strerror(errno));
	CHECK_ERRNO(ioctl(c, RCM_IOCTL_REJECT, &r), EINVAL);
	CHECK_ERRNO(do_simple(c, RCM_IOCTL_ESTABLISH, cid), EINVAL);
	CHECK(rcm_expect_event(s, RCM_EVENT_REJECTED, &ev) == 0, "passive: no REJECTED");
	CHECK(ev.id == rid && ev.status == RCM_REJ_CONSUMER_DEFINED &&
	      !strcmp((char *)ev.private_data, "qp broke"),
	      "id %u status %d data '%.56s'", ev.id, ev.status,
	      ev.private_data);
	close(c);
	close(s);
}

RCM_TEST(two_clients_at_once)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned int lid, cid[2], got = 0;
	struct rcm_event ev;
	int s, c, i;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, 20104, 0x11, 0);
	cid[0] = rcm_routed_id(c, ip, 20104, 100);
	cid[1] = rcm_routed_id(c, ip, 20104, 101);
	CHECK(lid && cid[0] && cid[1], "set-up: %s", strerror(errno));
	CHECK(rcm_connect(c, cid[0], 0x70, "first") == 0 &&
	      rcm_connect(c, cid[1], 0x71, "second") == 0, "connect: %s",
	      strerror(errno));
	for (i = 0; i < 2; i++) {
		CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0,
		      "request %d", i);
		CHECK(rcm_accept(s, ev.id, 0x80 + ev.conn.qp_num, ev.id,
				(char *)ev.private_data) == 0, "accept: %s",
		      strerror(errno));
	}
	for (i = 0; i < 2; i++) {
		CHECK(rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev) == 0,
		      "response %d", i);
		/* Each reply echoes its own request. */
		CHECK(ev.conn.qp_num == 0x80 + 0x70 + (ev.context - 100) &&
		      !strcmp((char *)ev.private_data,
			      ev.context == 100 ? "first" : "second"),
		      "response qpn %#x data '%s' for %llu", ev.conn.qp_num,
		      ev.private_data, (unsigned long long)ev.context);
		got |= 1 << (ev.context - 100);
		CHECK(do_simple(c, RCM_IOCTL_ESTABLISH, ev.id) == 0,
		      "establish: %s", strerror(errno));
	}
	CHECK(got == 3, "responses %#x", got);
	for (i = 0; i < 2; i++)
		CHECK(rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev) == 0,
		      "established %d", i);
	close(c);
	/* The client's close sends DREQs: the server sees both go. */
	for (i = 0; i < 2; i++)
		CHECK(rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev) == 0,
		      "disconnected %d", i);
	close(s);
}

RCM_TEST(client_killed_mid_connect)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_event ev;
	unsigned int lid;
	int s, st;
	pid_t pid;

	if (!ip)
		SKIP("no Soft-RoCE device");
	s = rcm_open_dev();
	lid = rcm_listener(s, ip, 20105, 0x11, 0);
	CHECK(lid, "listen: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int c = rcm_open_dev();
		unsigned int cid = rcm_routed_id(c, ip, 20105, 7);

		if (!cid || rcm_connect(c, cid, 0x77, "bye"))
			_exit(1);
		raise(SIGKILL);
	}
	CHECK(pid > 0, "fork");
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st),
	      "client did not die by SIGKILL");
	CHECK(rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev) == 0, "no request");
	/* The dead client's ib_cm id answered for it: the request goes. */
	CHECK(rcm_expect_event(s, RCM_EVENT_REJECTED, &ev) == 0, "no REJECTED");
	close(s);
}

/* Start ./intree_server on @ip:@port; returns once it listens. */
/*
 * An rcm client connecting with @data to ./intree_server on @port, which
 * answers with @reply; the client's fd, or -1 (and *pid < 0) when the
 * server did not start or the connect failed.
 */
static int intree_connect(const char *ip, const char *port, const char *data,
			  const char *reply, pid_t *pid, unsigned int *cid)
{
	int c;

	*pid = rcm_spawn_listening((char *[]){ "./intree_server",
			(char *)ip, (char *)port, (char *)data,
			(char *)reply, NULL });
	if (*pid < 0)
		return -1;
	c = rcm_open_dev();
	*cid = rcm_routed_id(c, ip, atoi(port), 8);
	if (!*cid || rcm_connect(c, *cid, 0x88, data)) {
		close(c);
		return -1;
	}
	return c;
}

RCM_TEST(rcm_client_to_intree_listener)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_event ev;
	unsigned int cid;
	pid_t pid;
	int c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	if (access("/dev/infiniband/rdma_cm", R_OK | W_OK))
		SKIP("in-tree rdma_ucm not loaded");
	c = intree_connect(ip, "20106", "from-rcm", "accept:from-intree", &pid,
			   &cid);
	CHECK(c >= 0, "set-up: %s", strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev) == 0, "no response");
	CHECK(!strcmp((char *)ev.private_data, "from-intree") &&
	      ev.conn.qp_num == 0x4321, "response data '%.56s' qpn %#x",
	      ev.private_data, ev.conn.qp_num);
	CHECK(do_simple(c, RCM_IOCTL_ESTABLISH, cid) == 0, "establish: %s",
	      strerror(errno));
	/* The in-tree side disconnects once established. */
	CHECK(rcm_expect_event(c, RCM_EVENT_DISCONNECTED, &ev) == 0, "no DISCONNECTED");
	CHECK(do_simple(c, RCM_IOCTL_DISCONNECT, cid) == 0, "DREP: %s",
	      strerror(errno));
	CHECK(rcm_exit_status(pid) == 0, "in-tree server failed");
	close(c);
}

RCM_TEST(intree_listener_rejects_rcm_client)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_event ev;
	unsigned int cid;
	pid_t pid;
	int c;

	if (!ip)
		SKIP("no Soft-RoCE device");
	if (access("/dev/infiniband/rdma_cm", R_OK | W_OK))
		SKIP("in-tree rdma_ucm not loaded");
	c = intree_connect(ip, "20107", "knock", "reject:no-thanks", &pid,
			   &cid);
	CHECK(c >= 0, "set-up: %s", strerror(errno));
	CHECK(rcm_expect_event(c, RCM_EVENT_REJECTED, &ev) == 0, "not rejected");
	CHECK(ev.status == RCM_REJ_CONSUMER_DEFINED &&
	      !strcmp((char *)ev.private_data, "no-thanks"),
	      "status %d data '%.56s'", ev.status, ev.private_data);
	CHECK(rcm_exit_status(pid) == 0, "in-tree server failed");
	close(c);
}

int main(void)
{
	return rcm_test_run();
}
