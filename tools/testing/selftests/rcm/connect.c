// SPDX-License-Identifier: GPL-2.0-only
/*
 * connect: the active side and the whole connection handshake through
 * rcm's ioctls. On both transports (FIXTURE transport of
 * rcm_transport.h: rxe through ib_cm and siw through iw_cm, each end
 * with a real RC QP): connect and accept with private data both ways,
 * the request's view and the QP attributes both sides get (on RoCE the
 * peer's QP number and PSNs that match crosswise, which ready the QPs
 * for RTR and RTS), established through the RTU on RoCE and by the MPA
 * reply on iWARP, a SEND each way, disconnect (DREQ, DREP and timewait
 * on RoCE) and nothing after it; an IPv6 connection; a port nobody
 * listens on is refused at once and leaves a used id; a reject carries
 * its private data; closing a file, or killing its process, with live
 * connections ends them; a client destroyed mid-connect; and an rcm
 * client against an in-tree listener (./intree_server, on rdma-core's
 * librdmacm over rdma_ucm.ko) that accepts or rejects (iwarp.c has the
 * iWARP-only cases). On RoCE alone, without QPs (ib_cm never looks at
 * them): the commands' errors; the active side refusing an answered
 * connect; two clients at once; a client killed by SIGKILL mid-connect;
 * the QP attribute sets the events before each QP transition carry are
 * those RCM_IOCTL_INIT_QP_ATTR gives at that moment, a request carries
 * its id's view, and readers of shorter records get what fits.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"
#include "rcm_transport.h"

#define QP_ATTR_STATE	(1 << 0)
#define QP_ATTR_AV	(1 << 7)
#define QP_ATTR_DEST_QPN (1 << 20)

TEST(connect_errors)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	char big[RCM_UD_CONNECT_PRIVATE_DATA_MAX + 2];
	struct rcm_connect c = { .size = sizeof(c) };
	struct rcm_notify n = { .size = sizeof(n) };
	struct rcm_init_qp_attr a;
	unsigned int id, ud;
	unsigned short port;
	int fd;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	/* Nobody listens there: the connect below is never answered. */
	port = rcm_free_port(ip, RCM_PS_TCP);
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ud = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 2);
	ASSERT_TRUE(id && ud)
		TH_LOG("create: %s", strerror(errno));
	/* Nothing resolved yet. */
	ASSERT_ERRNO(rcm_connect(fd, id, 1, NULL), EINVAL);
	ASSERT_ERRNO(rcm_connect(fd, id + 100, 1, NULL), ENOENT);
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a), EINVAL);
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 0, &a), EINVAL);
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 1 << 4, &a), EINVAL);
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 1, &a), EINVAL);
	ASSERT_ERRNO(rcm_simple(fd, RCM_IOCTL_ESTABLISH, id), EINVAL);
	ASSERT_ERRNO(rcm_simple(fd, RCM_IOCTL_DISCONNECT, id), EINVAL);
	n.id = id;
	n.event = 3;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_NOTIFY, &n), EINVAL);
	n.event = RCM_NOTIFY_COMM_EST;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_NOTIFY, &n), EINVAL);

	ASSERT_EQ(0, rcm_routed(fd, id, ip, port))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_routed(fd, ud, ip, port))
		TH_LOG("route UD: %s", strerror(errno));
	/* A UD id's connect is a SIDR REQ (sidr.c): its limit is 180. */
	c.id = ud;
	c.private_data = (uintptr_t)big;
	c.private_data_len = RCM_UD_CONNECT_PRIVATE_DATA_MAX + 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.private_data = 0;
	c.private_data_len = 0;
	/* Before a connection: INIT only. */
	ASSERT_EQ(0, rcm_qp_attrs(fd, id, 1 << RCM_QPS_INIT, &a))
		TH_LOG("INIT: %s", strerror(errno));
	ASSERT_TRUE(a.out_attr[0].qp_state == RCM_QPS_INIT &&
		    (a.out_attr[0].qp_attr_mask & QP_ATTR_STATE) &&
		    a.out_attr[0].port_num == 1 && a.out_attr[1].qp_state == 0)
		TH_LOG("INIT attributes: state %u mask %#x port %u",
		       a.out_attr[0].qp_state, a.out_attr[0].qp_attr_mask,
		       a.out_attr[0].port_num);
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 1 << RCM_QPS_RTR, &a), EINVAL);
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 1 << RCM_QPS_RTS, &a), EINVAL);

	c.id = id;
	c.qp_num = 1 << 24;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.qp_num = 5;
	/* Retry counts above 7 are taken as 7, as in-tree (cm_conn_compat). */
	c.flow_control = 2;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.flow_control = 0;
	c.reserved[1] = 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.reserved[1] = 0;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	c.private_data = (uintptr_t)big;
	c.private_data_len = RCM_CONNECT_PRIVATE_DATA_MAX + 1;
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EINVAL);
	c.private_data_len = RCM_CONNECT_PRIVATE_DATA_MAX;
	c.private_data = 8;	/* not mapped */
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_CONNECT, &c), EFAULT);
	/* The failures left the id as it was: it still connects. */
	ASSERT_EQ(0, rcm_connect(fd, id, 5, NULL))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_ERRNO(rcm_connect(fd, id, 5, NULL), EINVAL);
	/* No answer yet: no RTR, no establish. */
	ASSERT_ERRNO(rcm_qp_attrs(fd, id, 1 << RCM_QPS_RTR, &a), EINVAL);
	ASSERT_ERRNO(rcm_simple(fd, RCM_IOCTL_ESTABLISH, id), EINVAL);
	close(fd);
}

/*
 * What RCM_IOCTL_QUERY_ID returns for @id now, in the form struct
 * rcm_id_info has (the addresses' sockaddr_in or sockaddr_in6 bytes). 0,
 * or -1 with errno.
 */
static int query_as_info(int fd, unsigned int id, struct rcm_id_info *info)
{
	struct rcm_query_id q = { .size = sizeof(q), .id = id };

	if (ioctl(fd, RCM_IOCTL_QUERY_ID, &q))
		return -1;
	memset(info, 0, sizeof(*info));
	info->port_num = q.out_port_num;
	info->num_paths = q.out_num_paths;
	info->node_guid = q.out_node_guid;
	memcpy(info->sgid, q.out_sgid, sizeof(info->sgid));
	if (q.out_src.ss_family)
		memcpy(info->src, &q.out_src,
		       q.out_src.ss_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	if (q.out_dst.ss_family)
		memcpy(info->dst, &q.out_dst,
		       q.out_dst.ss_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	info->path = q.out_path;
	info->flags = q.out_flags;
	info->ibdev_index = q.out_ibdev_index;
	return 0;
}

/*
 * The request id's view @ev carries equals what RCM_IOCTL_QUERY_ID
 * returns for it now. 0, or -1 after printing what differs.
 */
static int carried_info_matches(int fd, const struct rcm_event *ev)
{
	struct rcm_id_info q;

	if (ev->id_info_len != sizeof(struct rcm_id_info)) {
		printf("# event %u id_info_len %u\n", ev->event,
		       ev->id_info_len);
		return -1;
	}
	if (query_as_info(fd, ev->id, &q)) {
		printf("# QUERY_ID: %s\n", strerror(errno));
		return -1;
	}
	if (memcmp(&q, &ev->id_info, sizeof(q))) {
		printf("# carried port %u paths %u flags %#x, ",
		       ev->id_info.port_num, ev->id_info.num_paths,
		       ev->id_info.flags);
		printf("queried port %u paths %u flags %#x\n", q.port_num,
		       q.num_paths, q.flags);
		return -1;
	}
	return 0;
}

/* RCM_IOCTL_NOTIFY of @event on @id of @fd: 0, or its errno. */
static int notify(int fd, unsigned int id, unsigned int event)
{
	struct rcm_notify n = { .size = sizeof(n), .id = id, .event = event };

	return ioctl(fd, RCM_IOCTL_NOTIFY, &n) ? errno : 0;
}

/*
 * The whole of a connection on either transport: a connect and an
 * accept with private data, each once only; the request as the peer
 * sent it and its id's view; the QP attributes both sides get (on
 * RoCE the peer's QP number and PSNs that match crosswise, which ready
 * the QPs); established on both sides, through the RTU on RoCE and by
 * the MPA reply on iWARP; a SEND each way, the active side first (the
 * MPA rule); the disconnect, and nothing after it.
 */
TEST_F(transport, connect_accept_send_disconnect)
{
	static const char hello[] = "hello";
	static const char welcome[] = "welcome";
	struct rcm_init_qp_attr ca, sa;
	unsigned int lid, cid, rid, sqpn, len;
	struct rcm_query_id q;
	unsigned short port;
	struct rcm_event ev;
	int s, c;

	cid = listener_and_client(_metadata, self, &port, &s, &c, &lid);
	ASSERT_EQ(0, rcm_post_recv(&self->ce))
		TH_LOG("client receive: %s", strerror(errno));
	ASSERT_EQ(0, rcm_connect(c, cid, self->cqpn, hello))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_ERRNO(rcm_connect(c, cid, self->cqpn, NULL), EINVAL);

	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_TRUE(ev.listen_id == lid && ev.context == 0x11)
		TH_LOG("request listen_id %u context %#llx", ev.listen_id,
		       (unsigned long long)ev.context);
	request_as_sent(_metadata, variant, &ev, hello, sizeof(hello));
	if (variant->rtu) {
		/* The REQ's: MPA carries no QP number nor retry counts. */
		ASSERT_TRUE(ev.conn.qp_num == self->cqpn &&
			    ev.conn.retry_count == 7 &&
			    ev.conn.rnr_retry_count == 7)
			TH_LOG("request qpn %#x retry %u rnr %u",
			       ev.conn.qp_num, ev.conn.retry_count,
			       ev.conn.rnr_retry_count);
	}
	ASSERT_TRUE(rcm_query(s, rid, &q) == 0 && q.out_port_num == 1 &&
		    ((struct sockaddr_in *)&q.out_src)->sin_port ==
		    htons(port) && q.out_dst.ss_family == AF_INET)
		TH_LOG("request addresses: %s", strerror(errno));
	ASSERT_EQ(0, carried_info_matches(s, &ev))
		TH_LOG("the request's view, %u bytes", ev.id_info_len);
	ASSERT_TRUE(ev.id_info.node_guid &&
		    ev.id_info.num_paths == variant->paths)
		TH_LOG("view: guid %#llx paths %u",
		       (unsigned long long)ev.id_info.node_guid,
		       ev.id_info.num_paths);

	ASSERT_EQ(0, rcm_qp_attrs(s, rid, RCM_QP_STATES_ALL, &sa))
		TH_LOG("passive attributes: %s", strerror(errno));
	ASSERT_EQ(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
		  sa.out_attr[0].qp_access_flags &
		  (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE))
		TH_LOG("INIT access %#x", sa.out_attr[0].qp_access_flags);
	if (variant->rtu) {
		ASSERT_TRUE(sa.out_attr[1].dest_qp_num == self->cqpn &&
			    (sa.out_attr[1].qp_attr_mask &
			    (QP_ATTR_AV | QP_ATTR_DEST_QPN)) ==
			    (QP_ATTR_AV | QP_ATTR_DEST_QPN) &&
			    sa.out_attr[1].ah_attr.is_global &&
			    sa.out_attr[1].path_mtu)
			TH_LOG("passive RTR: qpn %#x mask %#x global %u mtu %u",
			       sa.out_attr[1].dest_qp_num,
			       sa.out_attr[1].qp_attr_mask,
			       sa.out_attr[1].ah_attr.is_global,
			       sa.out_attr[1].path_mtu);
	} else {
		/* iw_cm moves the QP to RTS itself. */
		ASSERT_EQ(0, sa.out_attr[2].qp_attr_mask)
			TH_LOG("RTS mask %#x", sa.out_attr[2].qp_attr_mask);
	}
	ASSERT_TRUE(rcm_end_init(&self->se, s, rid) == 0 &&
		    rcm_post_recv(&self->se) == 0)
		TH_LOG("server QP: %s", strerror(errno));
	/* The REP goes once the QP can take what the RTU lets the peer send. */
	if (variant->rtu) {
		ASSERT_EQ(0, rcm_end_rts(&self->se, s, rid))
			TH_LOG("server QP to RTS: %s", strerror(errno));
	}
	sqpn = self->se.qp->qp_num;
	ASSERT_EQ(0, rcm_accept(s, rid, sqpn, 0xacce, welcome))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_ERRNO(rcm_accept(s, rid, sqpn, 0xacce, welcome), EINVAL);

	ASSERT_EQ(0, rcm_expect_event(c, accepted_event(variant), &ev))
		TH_LOG("active: not accepted");
	ASSERT_TRUE(ev.id == cid && ev.context == 0xc1 && ev.status == 0)
		TH_LOG("reply id %u ctx %#llx status %d", ev.id,
		       (unsigned long long)ev.context, ev.status);
	len = arrives(variant, sizeof(welcome), RCM_ACCEPT_PRIVATE_DATA_MAX);
	ASSERT_TRUE(ev.private_data_len == len &&
		    !memcmp(ev.private_data, welcome, sizeof(welcome)))
		TH_LOG("reply data '%.56s' len %u, want %u", ev.private_data,
		       ev.private_data_len, len);
	if (variant->rtu) {
		ASSERT_EQ(sqpn, ev.conn.qp_num)
			TH_LOG("response qpn %#x", ev.conn.qp_num);
		ASSERT_EQ(0, rcm_qp_attrs(c, cid, (1 << RCM_QPS_RTR) |
					  (1 << RCM_QPS_RTS), &ca))
			TH_LOG("active attributes: %s", strerror(errno));
		ASSERT_TRUE(ca.out_attr[0].qp_state == 0 &&
			    ca.out_attr[1].dest_qp_num == sqpn &&
			    ca.out_attr[2].qp_state == RCM_QPS_RTS)
			TH_LOG("active RTR qpn %#x",
			       ca.out_attr[1].dest_qp_num);
		/* Each side receives from the PSN the other sends from. */
		ASSERT_TRUE(ca.out_attr[1].rq_psn == sa.out_attr[2].sq_psn &&
			    sa.out_attr[1].rq_psn == ca.out_attr[2].sq_psn)
			TH_LOG("PSNs rq/sq: active %#x/%#x, passive %#x/%#x",
			       ca.out_attr[1].rq_psn, ca.out_attr[2].sq_psn,
			       sa.out_attr[1].rq_psn, sa.out_attr[2].sq_psn);
		ASSERT_TRUE(ca.out_attr[2].retry_cnt == 7 &&
			    ca.out_attr[2].timeout &&
			    ca.out_attr[2].rnr_retry == 7)
			TH_LOG("active RTS retry %u timeout %u",
			       ca.out_attr[2].retry_cnt,
			       ca.out_attr[2].timeout);
		ASSERT_EQ(0, memcmp(ca.out_attr[1].ah_attr.dgid,
				    sa.out_attr[1].ah_attr.dgid, 16))
			TH_LOG("loopback: both sides see the same GID");
		ASSERT_EQ(0, rcm_end_rts(&self->ce, c, cid))
			TH_LOG("client QP to RTS: %s", strerror(errno));
		ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, cid))
			TH_LOG("establish: %s", strerror(errno));
	}
	/* One RTU on RoCE; none on iWARP. */
	ASSERT_ERRNO(rcm_simple(c, RCM_IOCTL_ESTABLISH, cid), EINVAL);
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("passive: not established");
	ASSERT_TRUE(ev.id == rid && ev.context == 0xacce)
		TH_LOG("established id %u", ev.id);
	ASSERT_EQ(variant->notify_up, notify(s, rid, RCM_NOTIFY_COMM_EST))
		TH_LOG("passive notify");
	ASSERT_EQ(variant->notify_up, notify(c, cid, RCM_NOTIFY_COMM_EST))
		TH_LOG("active notify");
	ASSERT_EQ(variant->notify_other, notify(c, cid, IBV_EVENT_LID_CHANGE))
		TH_LOG("active notify of LID_CHANGE");
	ASSERT_EQ(variant->notify_other, notify(s, rid, IBV_EVENT_LID_CHANGE))
		TH_LOG("passive notify of LID_CHANGE");

	ASSERT_EQ(0, rcm_post_send(&self->ce, "ping"))
		TH_LOG("send: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_wc(&self->se, IBV_WC_RECV) == 0 &&
		    !strcmp(self->se.buf[0], "ping"))
		TH_LOG("server received '%.8s'", self->se.buf[0]);
	ASSERT_EQ(0, rcm_post_send(&self->se, "pong"))
		TH_LOG("send: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_wc(&self->ce, IBV_WC_RECV) == 0 &&
		    !strcmp(self->ce.buf[0], "pong"))
		TH_LOG("client received '%.8s'", self->ce.buf[0]);

	disconnect_from(_metadata, variant, c, cid, s, rid);
	ASSERT_TRUE(rcm_destroy(c, cid) == 0 && rcm_destroy(s, rid) == 0)
		TH_LOG("destroy: %s", strerror(errno));
	close(c);
	close(s);
}

/*
 * listener_and_client(), and the client connects with @data: the
 * client id; its CONNECT_REQUEST, taken from *@s, in *@ev.
 */
static unsigned int requesting_client(struct __test_metadata *_metadata,
				      FIXTURE_DATA(transport) *self, int *s,
				      int *c, const char *data,
				      struct rcm_event *ev)
{
	unsigned int cid = listener_and_client(_metadata, self, NULL, s, c,
					       NULL);

	ASSERT_EQ(0, rcm_connect(*c, cid, self->cqpn, data))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(*s, RCM_EVENT_CONNECT_REQUEST, ev))
		TH_LOG("no request");
	return cid;
}

/*
 * As in-tree (iw_cm_disconnect() waits for the MPA reply): a disconnect
 * while an iWARP connect waits for its reply returns 0 and takes effect
 * once the reply came: ESTABLISHED, then DISCONNECTED, on both sides.
 */
TEST_F(transport, disconnect_while_connecting)
{
	unsigned int cid, rid;
	struct rcm_event ev;
	int s, c;

	if (!variant->iwarp)
		SKIP(return, "an IB CM connect has no reply to wait for here");
	cid = requesting_client(_metadata, self, &s, &c, NULL, &ev);
	rid = ev.id;
	/* Not accepted yet: the client's connect waits for its reply. */
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_DISCONNECT, cid))
		TH_LOG("disconnect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_end_init(&self->se, s, rid))
		TH_LOG("server QP: %s", strerror(errno));
	ASSERT_EQ(0, rcm_accept(s, rid, self->se.qp->qp_num, 0xacce, NULL))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("active: not established");
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_DISCONNECTED, &ev))
		TH_LOG("active: the disconnect never went");
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("passive: not established");
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev))
		TH_LOG("passive: not disconnected");
	close(c);
	close(s);
}

TEST_F(transport, nobody_listens_is_rejected)
{
	struct timespec t0;
	struct rcm_event ev;
	unsigned int id;
	int fd;

	fd = rcm_open_dev();
	id = client_id(_metadata, self, fd, rcm_free_port(self->ip, RCM_PS_TCP));
	if (variant->iwarp) {
		/*
		 * As in-tree (cma_connect_iw()): the TCP connect's refusal is
		 * the call's answer, no event follows, and the id is as
		 * before, free to connect again.
		 */
		ASSERT_ERRNO(rcm_connect(fd, id, self->cqpn, "anyone?"),
			     variant->nobody_listens);
		ASSERT_EQ(-1, rcm_wait_event(fd, 500, &ev))
			TH_LOG("event %u after a refused connect", ev.event);
		ASSERT_ERRNO(rcm_connect(fd, id, self->cqpn, "again?"),
			     variant->nobody_listens);
		ASSERT_EQ(0, rcm_destroy(fd, id))
			TH_LOG("destroy: %s", strerror(errno));
		close(fd);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_connect(fd, id, self->cqpn, "anyone?"))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(fd, RCM_EVENT_REJECTED, &ev))
		TH_LOG("not rejected");
	ASSERT_TRUE(ev.status == variant->nobody_listens && ev.id == id)
		TH_LOG("status %d", ev.status);
	/* At once: never after a timeout (MPA's, the CM's retries). */
	ASSERT_GT(5000, rcm_ms_since(&t0))
		TH_LOG("refusal took %ld ms", rcm_ms_since(&t0));
	/* A refused connect leaves a used id: it cannot connect again. */
	ASSERT_ERRNO(rcm_connect(fd, id, self->cqpn, NULL), EINVAL);
	ASSERT_ERRNO(rcm_simple(fd, RCM_IOCTL_ESTABLISH, id), EINVAL);
	ASSERT_EQ(0, rcm_destroy(fd, id))
		TH_LOG("destroy: %s", strerror(errno));
	close(fd);
}

TEST_F(transport, reject_carries_private_data)
{
	char big[RCM_IWARP_PRIVATE_DATA_MAX + 1];
	unsigned int cid, rid, len;
	struct rcm_event ev;
	int s, c;

	cid = requesting_client(_metadata, self, &s, &c, "let me in", &ev);
	rid = ev.id;
	/* More than the transport carries: a REJ's area, or MPA's 255. */
	memset(big, 'r', sizeof(big));
	ASSERT_ERRNO(rcm_reject_data(s, rid, big, variant->reject_max + 1),
		     EINVAL);
	ASSERT_EQ(0, rcm_reject(s, rid, "full up"))
		TH_LOG("reject: %s", strerror(errno));
	ASSERT_ERRNO(rcm_reject(s, rid, "full up"), EINVAL);
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_REJECTED, &ev))
		TH_LOG("not rejected");
	ASSERT_TRUE(ev.status == variant->rejected && ev.id == cid)
		TH_LOG("status %d", ev.status);
	len = arrives(variant, 8, RCM_REJECT_PRIVATE_DATA_MAX);
	ASSERT_TRUE(!strcmp((char *)ev.private_data, "full up") &&
		    ev.private_data_len == len)
		TH_LOG("reject data '%.56s' len %u, want %u", ev.private_data,
		       ev.private_data_len, len);
	/* As in-tree: disconnecting a refused connect is 0 on iWARP. */
	if (variant->iwarp) {
		ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_DISCONNECT, cid))
			TH_LOG("disconnect after REJECTED: %s", strerror(errno));
	}
	close(c);
	close(s);
}

/*
 * A listener of @s on @ip, a connect from @c accepted: *@cid is the
 * active id, its CONNECT_RESPONSE read and no RTU sent; *@rid the
 * request id. 0, or -1 with errno.
 */
static int answered_connect(int s, int c, const char *ip, unsigned int *cid,
			    unsigned int *rid)
{
	unsigned short port = 0;
	struct rcm_event ev;

	if (!rcm_listener(s, ip, &port, 0x11, 0))
		return -1;
	*cid = rcm_routed_id(c, ip, port, 5);
	if (!*cid || rcm_connect(c, *cid, 0x55, NULL) ||
	    rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		return -1;
	*rid = ev.id;
	if (rcm_accept(s, *rid, 0x66, 6, NULL) ||
	    rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev))
		return -1;
	return 0;
}

TEST(active_side_rejects_the_response)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_event ev;
	unsigned int cid, rid;
	int s, c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	ASSERT_EQ(0, answered_connect(s, c, ip, &cid, &rid))
		TH_LOG("set-up: %s", strerror(errno));
	/* Say the QP could not be readied: the client gives up. */
	ASSERT_EQ(0, rcm_reject(c, cid, "qp broke"))
		TH_LOG("reject: %s", strerror(errno));
	ASSERT_ERRNO(rcm_reject(c, cid, "qp broke"), EINVAL);
	ASSERT_ERRNO(rcm_simple(c, RCM_IOCTL_ESTABLISH, cid), EINVAL);
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_REJECTED, &ev))
		TH_LOG("passive: no REJECTED");
	ASSERT_TRUE(ev.id == rid && ev.status == RCM_REJ_CONSUMER_DEFINED &&
		    !strcmp((char *)ev.private_data, "qp broke"))
		TH_LOG("id %u status %d data '%.56s'", ev.id, ev.status,
		       ev.private_data);
	close(c);
	close(s);
}

/*
 * Issue 29 item 15: an active side that answers the REP late (the
 * application reads CONNECT_RESPONSE and readies its QP slowly) holds
 * the passive side with an MRA, as in-tree (the MRA goes when the REP
 * is repeated), so the passive side waits instead of timing out.
 */
TEST(late_rtu_is_covered_by_an_mra)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	long mra0 = rcm_cm_count("tx_msgs", "mra");
	long rep0 = rcm_cm_count("rx_duplicates", "rep");
	unsigned int cid, rid;
	struct rcm_event ev;
	int s, c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	if (mra0 < 0 || rep0 < 0)
		SKIP(return, "no ib_cm counters in sysfs");
	s = rcm_open_dev();
	c = rcm_open_dev();
	ASSERT_EQ(0, answered_connect(s, c, ip, &cid, &rid))
		TH_LOG("set-up: %s", strerror(errno));
	/* No RTU yet: the passive side repeats its REP after ~4 s. */
	ASSERT_TRUE(RCM_WAIT_FOR(rcm_cm_count("rx_duplicates", "rep") > rep0,
				 30000))
		TH_LOG("the REP was never repeated");
	/* Counted once the MRA's send completes. */
	ASSERT_TRUE(RCM_WAIT_FOR(rcm_cm_count("tx_msgs", "mra") > mra0, 30000))
		TH_LOG("the repeated REP got no MRA");
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, cid))
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("passive: %u, want ESTABLISHED", ev.event);
	close(c);
	close(s);
}

TEST(two_clients_at_once)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned int lid, cid[2], got = 0;
	unsigned short port = 0;
	struct rcm_event ev;
	int s, c, i;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x11, 0);
	cid[0] = rcm_routed_id(c, ip, port, 100);
	cid[1] = rcm_routed_id(c, ip, port, 101);
	ASSERT_TRUE(lid && cid[0] && cid[1])
		TH_LOG("set-up: %s", strerror(errno));
	ASSERT_TRUE(rcm_connect(c, cid[0], 0x70, "first") == 0 &&
		    rcm_connect(c, cid[1], 0x71, "second") == 0)
		TH_LOG("connect: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST,
					      &ev))
			TH_LOG("request %d", i);
		ASSERT_EQ(0, rcm_accept(s, ev.id, 0x80 + ev.conn.qp_num, ev.id,
					(char *)ev.private_data))
			TH_LOG("accept: %s", strerror(errno));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE,
					      &ev))
			TH_LOG("response %d", i);
		/* Each reply echoes its own request. */
		ASSERT_TRUE(ev.conn.qp_num == 0x80 + 0x70 + (ev.context - 100) &&
			    !strcmp((char *)ev.private_data,
			    ev.context == 100 ? "first" : "second"))
			TH_LOG("response qpn %#x data '%s' for %llu", ev.conn.qp_num,
			       ev.private_data, (unsigned long long)ev.context);
		got |= 1 << (ev.context - 100);
		ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, ev.id))
			TH_LOG("establish: %s", strerror(errno));
	}
	ASSERT_EQ(3, got)
		TH_LOG("responses %#x", got);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
			TH_LOG("established %d", i);
	}
	close(c);
	/* The client's close sends DREQs: the server sees both go. */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev))
			TH_LOG("disconnected %d", i);
	}
	close(s);
}

/*
 * Closing a file with live connections ends them: the peer hears each
 * go. The QPs outlive the ids (on iWARP, iw_cm resets the connections);
 * the other way, the QPs go first, then the server's ids.
 */
TEST_F(transport, close_with_live_connections)
{
	struct rcm_end ce[2] = {}, se[2] = {};
	unsigned short port = 0;
	struct rcm_event ev;
	int s, c, i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rcm_end_pair_open(&ce[i], &se[i],
					       variant->verbs))
			TH_LOG("verbs: %s", strerror(errno));
	}
	s = rcm_open_dev();
	c = rcm_open_dev();
	ASSERT_NE(0, rcm_listener(s, self->ip, &port, 0x11, 0))
		TH_LOG("listen: %s", strerror(errno));
	ASSERT_EQ(0, rcm_establish_n(s, c, self->ip, port, ce, se, 2))
		TH_LOG("connections: %s", strerror(errno));
	close(c);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev))
			TH_LOG("disconnected %d", i);
	}
	for (i = 0; i < 2; i++)
		rcm_end_close(&se[i]);
	close(s);
	for (i = 0; i < 2; i++)
		rcm_end_close(&ce[i]);
}

/*
 * A client in a child process, connecting to the listener on @ip:@port:
 * with @qp, a QP of its own on @verbs (rcm takes no other process's)
 * until it sees the connection up; without, mid-connect with a made-up
 * QP number. There it writes a byte to the pipe *@up reads and stays
 * until killed, as the parent holds open the pipe *@hold it waits on
 * (closed after rcm_kill()). Its pid.
 */
static pid_t client_held(struct __test_metadata *_metadata, const char *ip,
			 unsigned short port, bool qp,
			 enum ibv_transport_type verbs, int *up, int *hold)
{
	int u[2], h[2];
	pid_t pid;

	ASSERT_TRUE(pipe(u) == 0 && pipe(h) == 0);
	pid = fork();
	if (pid == 0) {
		int c = rcm_open_dev();
		unsigned int cid = rcm_routed_id(c, ip, port, qp ? 9 : 7);
		struct rcm_event ev;
		struct rcm_end ce;
		char b;

		close(h[1]);
		if (!cid)
			_exit(1);
		if (qp && (rcm_end_open(&ce, verbs, IBV_QPT_RC) ||
			   rcm_end_init(&ce, c, cid) ||
			   rcm_connect(c, cid, ce.qp->qp_num, "bye") ||
			   rcm_end_connected(&ce, c, cid, &ev)))
			_exit(1);
		if (!qp && rcm_connect(c, cid, 0x77, "bye"))
			_exit(1);
		if (write(u[1], "u", 1) != 1 || read(h[0], &b, 1) <= 0)
			_exit(2);
		_exit(3);
	}
	ASSERT_LT(0, pid)
		TH_LOG("fork");
	close(h[0]);
	close(u[1]);
	*up = u[0];
	*hold = h[1];
	return pid;
}

/*
 * Kill the client_held() @pid by SIGKILL, close its pipes @up and @hold,
 * and take the event of type @want its death brings to the server's
 * file @s, which is closed then.
 */
static void kill_held(struct __test_metadata *_metadata, pid_t pid, int up,
		      int hold, int s, unsigned int want)
{
	struct rcm_event ev;

	ASSERT_EQ(0, rcm_kill(pid))
		TH_LOG("client did not die by SIGKILL");
	close(hold);
	close(up);
	ASSERT_EQ(0, rcm_expect_event(s, want, &ev))
		TH_LOG("no event %u", want);
	close(s);
}

TEST(client_killed_mid_connect)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned short port = 0;
	struct rcm_event ev;
	unsigned int lid;
	int s, up, hold;
	pid_t pid;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	s = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x11, 0);
	ASSERT_TRUE(lid)
		TH_LOG("listen: %s", strerror(errno));
	pid = client_held(_metadata, ip, port, false, IBV_TRANSPORT_IB, &up,
			  &hold);
	/*
	 * The kill waits for the request: ib_cm may handle the REQ and the
	 * REJ the dying client's id sends on two CPUs at once, and a REJ
	 * handled first finds no id and is dropped (so in-tree too).
	 */
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	/* The dead client's ib_cm id answered for it: the request goes. */
	kill_held(_metadata, pid, up, hold, s, RCM_EVENT_REJECTED);
}

/*
 * A client killed by SIGKILL with a connection up: its file closes with
 * it, and the server hears the connection go.
 */
TEST_F(transport, killed_client_with_a_connection)
{
	unsigned short port = 0;
	struct rcm_event ev;
	unsigned int lid;
	int s, up, hold;
	pid_t pid;
	char b;

	s = rcm_open_dev();
	lid = rcm_listener(s, self->ip, &port, 0x11, 0);
	ASSERT_NE(0, lid)
		TH_LOG("listen: %s", strerror(errno));
	pid = client_held(_metadata, self->ip, port, true, variant->verbs, &up,
			  &hold);
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	ASSERT_EQ(0, rcm_end_accept(&self->se, s, ev.id, 0, NULL))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("not established");
	/* The kill waits for the client's side too (RoCE: its RTU sent). */
	ASSERT_EQ(1, read(up, &b, 1))
		TH_LOG("the client did not connect");
	kill_held(_metadata, pid, up, hold, s, RCM_EVENT_DISCONNECTED);
}

/*
 * Destroying a client id whose connect is unanswered: the destroy
 * returns in bounded time (iw_cm holds it until the MPA exchange ends,
 * here when siw gives up waiting for the reply, 10 s) and the id hears
 * nothing more. The server's request hears the REJ ib_cm sends for the
 * destroyed id on RoCE, nothing on iWARP; its id then goes quietly.
 */
TEST_F(transport, destroy_mid_connect)
{
	unsigned int cid, rid;
	struct timespec t0;
	struct rcm_event ev;
	int s, c;

	cid = requesting_client(_metadata, self, &s, &c, "going", &ev);
	rid = ev.id;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, rcm_destroy(c, cid))
		TH_LOG("destroy: %s", strerror(errno));
	printf("# destroy mid-connect took %ld ms\n", rcm_ms_since(&t0));
	ASSERT_GT(20000, rcm_ms_since(&t0))
		TH_LOG("destroy took %ld ms", rcm_ms_since(&t0));
	ASSERT_TRUE(rcm_wait_event(c, 500, &ev))
		TH_LOG("event %u after destroy", ev.event);
	if (variant->rtu) {
		/* ib_cm answers for a destroyed id whose REQ went: a REJ. */
		ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_REJECTED, &ev))
			TH_LOG("the request heard no REJ");
		ASSERT_EQ(rid, ev.id)
			TH_LOG("REJECTED on id %u", ev.id);
	}
	ASSERT_EQ(0, rcm_destroy(s, rid))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(s, 500, &ev))
		TH_LOG("event %u after destroy", ev.event);
	close(c);
	close(s);
}

/*
 * A connection between IPv6 addresses, which the request id and its
 * view hold; the server ends it.
 */
TEST_F(transport, ipv6_connection)
{
	const char *ip = getenv(variant->addr6);
	unsigned int lid, cid, rid;
	unsigned short port = 0;
	struct rcm_query_id q;
	struct rcm_event ev;
	int s, c;

	if (!ip)
		SKIP(return, "no %s", variant->addr6);
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x66, 0);
	ASSERT_NE(0, lid)
		TH_LOG("listen: %s", strerror(errno));
	cid = client_id_to(_metadata, self, c, ip, port);
	ASSERT_EQ(0, rcm_connect(c, cid, self->cqpn, "six"))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_TRUE(rcm_query(s, rid, &q) == 0 &&
		    q.out_src.ss_family == AF_INET6 &&
		    q.out_dst.ss_family == AF_INET6 && q.out_port_num == 1)
		TH_LOG("request addresses: family %u", q.out_src.ss_family);
	ASSERT_EQ(0, carried_info_matches(s, &ev))
		TH_LOG("the request's view, %u bytes", ev.id_info_len);
	ASSERT_TRUE(ev.id_info.node_guid &&
		    ev.id_info.num_paths == variant->paths)
		TH_LOG("view: guid %#llx paths %u",
		       (unsigned long long)ev.id_info.node_guid,
		       ev.id_info.num_paths);
	ASSERT_EQ(0, rcm_end_accept(&self->se, s, rid, 0, "ok"))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_TRUE(rcm_end_connected(&self->ce, c, cid, &ev) == 0 &&
		    !strcmp((char *)ev.private_data, "ok"))
		TH_LOG("active: not connected");
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("passive: not established");
	disconnect_from(_metadata, variant, s, rid, c, cid);
	close(c);
	close(s);
}

/*
 * An in-tree server (rcm_intree_server()) on the variant's address that
 * expects @data and answers @reply, and a client id *@cid of a new file
 * *@c that sent it a request with @data: the server's pid.
 */
static pid_t connect_to_intree(struct __test_metadata *_metadata,
			       FIXTURE_DATA(transport) *self,
			       const FIXTURE_VARIANT(transport) *variant,
			       const char *data, const char *reply, int *c,
			       unsigned int *cid)
{
	unsigned short port;
	pid_t pid;

	pid = rcm_intree_server(self->ip, &port, data, reply,
				variant->intree_qp);
	ASSERT_LT(0, pid)
		TH_LOG("in-tree server did not start");
	*c = rcm_open_dev();
	*cid = client_id(_metadata, self, *c, port);
	ASSERT_EQ(0, rcm_connect(*c, *cid, self->cqpn, data))
		TH_LOG("connect: %s", strerror(errno));
	return pid;
}

/*
 * An rcm client reaches a listener on the in-tree stack (./intree_server,
 * rdma-core's librdmacm over rdma_ucm.ko), which accepts with private
 * data and disconnects once the connection is up.
 */
TEST_F(transport, rcm_client_to_intree_listener)
{
	struct rcm_event ev;
	unsigned int cid, len;
	pid_t pid;
	int c;

	if (!rcm_have_intree_cm())
		SKIP(return, "in-tree rdma_ucm not loaded");
	pid = connect_to_intree(_metadata, self, variant, "from-rcm",
				"accept:from-intree", &c, &cid);
	ASSERT_EQ(0, rcm_expect_event(c, accepted_event(variant), &ev))
		TH_LOG("not accepted");
	/* librdmacm sends its string with the NUL: 12 bytes. */
	len = arrives(variant, 12, RCM_ACCEPT_PRIVATE_DATA_MAX);
	ASSERT_TRUE(ev.private_data_len == len &&
		    !strcmp((char *)ev.private_data, "from-intree"))
		TH_LOG("reply data '%.56s' len %u, want %u", ev.private_data,
		       ev.private_data_len, len);
	if (variant->rtu) {
		/* The number the in-tree server names: it has no QP here. */
		ASSERT_EQ(0x4321, ev.conn.qp_num)
			TH_LOG("response qpn %#x", ev.conn.qp_num);
		ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, cid))
			TH_LOG("establish: %s", strerror(errno));
	}
	/* The in-tree side disconnects once established; the DREP. */
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_DISCONNECTED, &ev))
		TH_LOG("no DISCONNECTED");
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_DISCONNECT, cid))
		TH_LOG("disconnect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_exit_status(pid))
		TH_LOG("in-tree server failed");
	close(c);
}

TEST_F(transport, intree_listener_rejects_rcm_client)
{
	struct rcm_event ev;
	unsigned int cid, len;
	pid_t pid;
	int c;

	if (!rcm_have_intree_cm())
		SKIP(return, "in-tree rdma_ucm not loaded");
	pid = connect_to_intree(_metadata, self, variant, "knock",
				"reject:no-thanks", &c, &cid);
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_REJECTED, &ev))
		TH_LOG("not rejected");
	len = arrives(variant, 10, RCM_REJECT_PRIVATE_DATA_MAX);
	ASSERT_TRUE(ev.status == variant->rejected &&
		    ev.private_data_len == len &&
		    !strcmp((char *)ev.private_data, "no-thanks"))
		TH_LOG("status %d data '%.56s' len %u, want %u", ev.status,
		       ev.private_data, ev.private_data_len, len);
	ASSERT_EQ(0, rcm_exit_status(pid))
		TH_LOG("in-tree server failed");
	close(c);
}

/*
 * The attribute sets an event carries: @ev's for the states in @states
 * (and no other), each equal to what RCM_IOCTL_INIT_QP_ATTR returns for
 * @id now. 0, or -1 after printing what differs.
 */
static int carried_sets_match(int fd, unsigned int id,
			      const struct rcm_event *ev, unsigned int states)
{
	struct rcm_init_qp_attr a;
	unsigned int s;

	if (ev->qp_attr_valid != states) {
		printf("# event %u carries %#x, want %#x\n", ev->event,
		       ev->qp_attr_valid, states);
		return -1;
	}
	if (rcm_qp_attrs(fd, id, states, &a)) {
		printf("# INIT_QP_ATTR %#x: %s\n", states, strerror(errno));
		return -1;
	}
	for (s = RCM_QPS_INIT; s <= RCM_QPS_RTS; s++) {
		if (memcmp(&ev->qp_attr[s - 1], &a.out_attr[s - 1],
			   sizeof(a.out_attr[0]))) {
			printf("# event %u state %u: mask %#x psn %#x/%#x, ",
			       ev->event, s, ev->qp_attr[s - 1].qp_attr_mask,
			       ev->qp_attr[s - 1].rq_psn,
			       ev->qp_attr[s - 1].sq_psn);
			printf("ioctl mask %#x psn %#x/%#x\n",
			       a.out_attr[s - 1].qp_attr_mask,
			       a.out_attr[s - 1].rq_psn,
			       a.out_attr[s - 1].sq_psn);
			return -1;
		}
	}
	return 0;
}

/*
 * Issue 16: the events before each QP transition carry the attributes
 * the transition needs, equal to what RCM_IOCTL_INIT_QP_ATTR returns at
 * that moment - INIT in ADDR_RESOLVED and ROUTE_RESOLVED, INIT, RTR and
 * RTS in CONNECT_REQUEST (of the request id) and CONNECT_RESPONSE - so
 * that userspace readies its QP without asking.
 */
TEST(events_carry_the_qp_attributes)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_resolve_addr r = {
		.size = sizeof(r), .timeout_ms = 2000,
	};
	unsigned int lid, cid, rid;
	unsigned short port = 0;
	struct rcm_event ev;
	int s, c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	/* rcm_open_dev() asks for sizeof(struct rcm_event). */
	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, ip, &port, 0x11, 0);
	cid = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 0xc1);
	ASSERT_TRUE(lid && cid)
		TH_LOG("listen: %s", strerror(errno));
	r.id = cid;
	rcm_sockaddr(&r.dst, ip, port);
	ASSERT_EQ(0, ioctl(c, RCM_IOCTL_RESOLVE_ADDR, &r))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ADDR_RESOLVED, &ev))
		TH_LOG("no ADDR_RESOLVED");
	ASSERT_EQ(0, carried_sets_match(c, cid, &ev, 1 << RCM_QPS_INIT))
		TH_LOG("ADDR_RESOLVED's INIT");
	ASSERT_EQ(0, rcm_route(c, cid, 0))
		TH_LOG("route: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ROUTE_RESOLVED, &ev))
		TH_LOG("no ROUTE_RESOLVED");
	ASSERT_EQ(0, carried_sets_match(c, cid, &ev, 1 << RCM_QPS_INIT))
		TH_LOG("ROUTE_RESOLVED's INIT");
	ASSERT_TRUE(ev.qp_attr[0].port_num == 1 &&
		    (ev.qp_attr[0].qp_attr_mask & QP_ATTR_STATE))
		TH_LOG("INIT port %u mask %#x", ev.qp_attr[0].port_num,
		       ev.qp_attr[0].qp_attr_mask);

	ASSERT_EQ(0, rcm_connect(c, cid, 0x111, "ping"))
		TH_LOG("connect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	rid = ev.id;
	ASSERT_EQ(0, carried_sets_match(s, rid, &ev, RCM_QP_STATES_ALL))
		TH_LOG("CONNECT_REQUEST's sets");
	ASSERT_TRUE(ev.qp_attr[1].dest_qp_num == 0x111 &&
		    ev.qp_attr[1].ah_attr.is_global && ev.qp_attr[1].path_mtu &&
		    ev.qp_attr[2].qp_state == RCM_QPS_RTS)
		TH_LOG("passive RTR qpn %#x", ev.qp_attr[1].dest_qp_num);
	ASSERT_EQ(0, rcm_accept(s, rid, 0x222, 0xacce, "pong"))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev))
		TH_LOG("no response");
	ASSERT_EQ(0, carried_sets_match(c, cid, &ev, RCM_QP_STATES_ALL))
		TH_LOG("CONNECT_RESPONSE's sets");
	ASSERT_EQ(0x222, ev.qp_attr[1].dest_qp_num)
		TH_LOG("active RTR qpn %#x", ev.qp_attr[1].dest_qp_num);

	/* Events that precede no QP transition carry nothing. */
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, cid))
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("not established");
	ASSERT_EQ(0, ev.qp_attr_valid)
		TH_LOG("ESTABLISHED carries %#x", ev.qp_attr_valid);
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_DISCONNECT, cid))
		TH_LOG("disconnect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev))
		TH_LOG("passive: no DISC");
	ASSERT_EQ(0, ev.qp_attr_valid)
		TH_LOG("DISCONNECTED carries %#x", ev.qp_attr_valid);
	close(c);
	close(s);
}

/* RCM_IOCTL_QUERY setting the record size of a file opened here. */
static int open_sized(unsigned int size)
{
	int fd = open(RCM_DEV, O_RDWR | O_CLOEXEC);
	struct rcm_query q = { .size = sizeof(q), .event_size = size };

	if (fd < 0 || ioctl(fd, RCM_IOCTL_QUERY, &q) ||
	    q.out_event_size != size)
		return -1;
	return fd;
}

/*
 * A listener (*@lid) in a file of @srec-byte records (*@s), and an id
 * (*@cid, context @ctx) in a file of @crec-byte records (*@c) whose
 * address resolution towards it has started: 0, or -1 with errno.
 */
static int sized_pair(const char *ip, unsigned int srec, unsigned int crec,
		      __u64 ctx, int *s, int *c, unsigned int *lid,
		      unsigned int *cid)
{
	struct rcm_resolve_addr r = { .size = sizeof(r), .timeout_ms = 2000 };
	unsigned short port = 0;

	*s = open_sized(srec);
	*c = open_sized(crec);
	if (*s < 0 || *c < 0)
		return -1;
	*lid = rcm_listener(*s, ip, &port, 0x11, 0);
	if (!*lid)
		return -1;
	*cid = rcm_create(*c, RCM_PS_TCP, RCM_QPT_RC, ctx);
	if (!*cid)
		return -1;
	r.id = *cid;
	rcm_sockaddr(&r.dst, ip, port);
	return ioctl(*c, RCM_IOCTL_RESOLVE_ADDR, &r);
}

/*
 * What an event carries is decided when it is queued, for the file's
 * record size then: a reader of records too short for the QP attribute
 * sets or the id's view (one built against a header of ABI version 2
 * before they grow, or any that asks) gets its records and no byte
 * more, without them; an event queued so and read as a whole record
 * carries none either, and the events queued after that carry both.
 */
TEST(short_records_carry_what_fits)
{
	enum {
		SREC = offsetof(struct rcm_event, id_info) + 64,
		CREC = RCM_EVENT_SIZE_MIN + 40,
	};
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_query q = {
		.size = sizeof(q), .event_size = sizeof(struct rcm_event),
	};
	unsigned int lid, cid;
	struct rcm_event ev;
	int s, c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	ASSERT_EQ(0, sized_pair(ip, SREC, CREC, 0xc2, &s, &c, &lid, &cid))
		TH_LOG("set-up: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_record(c, CREC, RCM_EVENT_ADDR_RESOLVED, &ev))
		TH_LOG("ADDR_RESOLVED record");
	ASSERT_TRUE(!ev.qp_attr_valid && !ev.id_info_len)
		TH_LOG("sets %#x, view %u", ev.qp_attr_valid, ev.id_info_len);
	/* Queued (at once) while the file reads short records... */
	ASSERT_EQ(0, rcm_route(c, cid, 0))
		TH_LOG("route: %s", strerror(errno));
	/* ...and read as a whole one: no sets, no view. */
	ASSERT_EQ(0, ioctl(c, RCM_IOCTL_QUERY, &q))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_EQ(sizeof(struct rcm_event), q.out_event_size)
		TH_LOG("record %u", q.out_event_size);
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_ROUTE_RESOLVED, &ev))
		TH_LOG("no ROUTE_RESOLVED");
	ASSERT_TRUE(!ev.qp_attr_valid && !ev.id_info_len &&
		    !ev.qp_attr[0].qp_state && !ev.id_info.port_num)
		TH_LOG("sets %#x, view %u in an event queued for %u bytes",
		       ev.qp_attr_valid, ev.id_info_len, CREC);

	ASSERT_EQ(0, rcm_connect(c, cid, 0x111, "ping"))
		TH_LOG("connect: %s", strerror(errno));
	/* Sets, but no view, in a record that ends inside it. */
	ASSERT_EQ(0, rcm_expect_record(s, SREC, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("%u-byte CONNECT_REQUEST", SREC);
	ASSERT_EQ(0, carried_sets_match(s, ev.id, &ev, RCM_QP_STATES_ALL))
		TH_LOG("its sets");
	ASSERT_TRUE(!ev.id_info_len && !ev.id_info.port_num)
		TH_LOG("view %u in a %u-byte record", ev.id_info_len, SREC);
	ASSERT_TRUE(!strcmp((char *)ev.private_data, "ping") &&
		    ev.conn.qp_num == 0x111 && ev.listen_id == lid)
		TH_LOG("request '%.56s' qpn %#x", ev.private_data,
		       ev.conn.qp_num);
	ASSERT_EQ(0, rcm_accept(s, ev.id, 0x222, 0xacce, "pong"))
		TH_LOG("accept: %s", strerror(errno));
	/* Queued for whole records: the sets. */
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev))
		TH_LOG("no response");
	ASSERT_EQ(0, carried_sets_match(c, cid, &ev, RCM_QP_STATES_ALL))
		TH_LOG("CONNECT_RESPONSE's sets");
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_ESTABLISH, cid))
		TH_LOG("establish: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_record(s, SREC, RCM_EVENT_ESTABLISHED, &ev))
		TH_LOG("ESTABLISHED record");
	close(c);
	close(s);
}

/*
 * Issue 16: a CONNECT_REQUEST carries its request id's view, equal to
 * what RCM_IOCTL_QUERY_ID returns for the request id, so that userspace
 * learns the new id without asking; a CONNECT_RESPONSE carries none.
 */
TEST(connect_request_carries_the_request_id_info)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned int lid, cid;
	struct rcm_event ev;
	int s, c;

	if (!ip)
		SKIP(return, "no Soft-RoCE device");
	s = rcm_open_dev();
	c = rcm_open_dev();
	ASSERT_TRUE(s >= 0 && c >= 0)
		TH_LOG("open/query: %s", strerror(errno));
	cid = rcm_connecting(s, c, ip, 0xc3, 0x444, "ping", &lid);
	ASSERT_TRUE(cid)
		TH_LOG("set-up: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		TH_LOG("no request");
	ASSERT_EQ(0, carried_info_matches(s, &ev))
		TH_LOG("CONNECT_REQUEST's view");
	ASSERT_EQ(0, carried_sets_match(s, ev.id, &ev, RCM_QP_STATES_ALL))
		TH_LOG("its sets");
	/* A request id's path is the REQ's, as in-tree. */
	ASSERT_TRUE(ev.id_info.port_num == 1 && ev.id_info.node_guid &&
		    ev.id_info.num_paths == 1 &&
		    (ev.id_info.flags & RCM_ID_INFO_IBDEV_INDEX) &&
		    ((struct sockaddr_in *)ev.id_info.src)->sin_port ==
		    htons(rcm_local_port(s, lid)) &&
		    ev.id_info.dst[0] | ev.id_info.dst[1])
		TH_LOG("port %u paths %u", ev.id_info.port_num,
		       ev.id_info.num_paths);
	ASSERT_TRUE(!strcmp((char *)ev.private_data, "ping") &&
		    ev.conn.qp_num == 0x444 && ev.listen_id == lid)
		TH_LOG("request '%.56s'", ev.private_data);
	ASSERT_EQ(0, rcm_accept(s, ev.id, 0x222, 0xacce, "pong"))
		TH_LOG("accept: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev))
		TH_LOG("no response");
	ASSERT_TRUE(!ev.id_info_len && !ev.id_info.port_num)
		TH_LOG("CONNECT_RESPONSE carries a view of %u", ev.id_info_len);
	close(c);
	close(s);
}

RCM_TEST_MAIN
