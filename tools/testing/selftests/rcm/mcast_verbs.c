// SPDX-License-Identifier: GPL-2.0-only
/*
 * mcast_verbs: a datagram sent to a group joined through rcm comes back
 * to a UD QP attached to the group's MGID, on the same rxe device. The
 * send uses the address vector of the MULTICAST_JOIN event as it is,
 * with RCM_MCAST_QPN and the event's Q_Key; it reaches the local QP only
 * because the full join joined the IPv4 group on the netdev (the kernel
 * loops a multicast packet back to its own host only for a group the
 * netdev has joined): a send-only member's datagram does not come back.
 * Needs libibverbs with the rxe provider (Debian's). mckey and librdmacm
 * over groups are the userlib's tests.
 */
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"
#include "rcm_verbs.h"

#define MSG "rcm multicast datagram"

/* A UD QP in RTS with @qkey; 0 or an errno. */
static int ud_open(struct rcm_end *e, unsigned int qkey)
{
	struct ibv_qp_attr a = {};

	if (rcm_end_open(e, IBV_TRANSPORT_IB, IBV_QPT_UD))
		return errno;
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = qkey;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return errno;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE))
		return errno;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return errno;
	return 0;
}

/* One completion within @ms; 0 with *wc filled, -1 otherwise. */
static int poll_one(struct rcm_end *e, struct ibv_wc *wc, int ms)
{
	int n = 0;

	RCM_WAIT_FOR((n = ibv_poll_cq(e->cq, 1, wc)) != 0, ms);
	return n == 1 ? 0 : -1;
}

/*
 * Join @group with @flags, attach a UD QP to its MGID, send one datagram
 * to the group and collect the completions for up to @ms: *@got_recv is
 * 1 when the datagram came back (checked byte for byte).
 */
static void send_to_group(struct __test_metadata *_metadata,
			  const char *group, unsigned int flags, int ms,
			  int *got_recv)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	struct rcm_join_mcast j = { .size = sizeof(j), .context = 77,
				    .join_flags = flags };
	struct rcm_leave_mcast l = { .size = sizeof(l) };
	const struct rcm_ah_attr *av;
	struct ibv_ah_attr ah = {};
	struct ibv_sge rsge, ssge;
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &ssge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct ibv_wc wc;
	struct rcm_event ev;
	static struct rcm_end e;
	union ibv_gid mgid;
	int fd, ret, got_send = 0, i;
	unsigned int id;

	*got_recv = 0;
	memset(&e, 0, sizeof(e));
	if (!ip)
		SKIP(return, "no Soft-RoCE device in this guest");
	fd = rcm_open_dev();
	id = rcm_create(fd, RCM_PS_UDP, RCM_QPT_UD, 1);
	ASSERT_TRUE(id && rcm_bind(fd, id, ip, 0) == 0)
		TH_LOG("UD id: %s", strerror(errno));
	j.id = id;
	rcm_sockaddr(&j.addr, group, 0);
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_JOIN_MCAST, &j))
		TH_LOG("join: %s", strerror(errno));
	ASSERT_TRUE(rcm_wait_event(fd, 0, &ev) == 0 &&
		    ev.event == RCM_EVENT_MULTICAST_JOIN)
		TH_LOG("no MULTICAST_JOIN");

	ret = ud_open(&e, ev.ud.qkey);
	if (ret == ENODEV) {
		rcm_end_close(&e);
		SKIP(return, "no rxe0 verbs device (libibverbs provider missing?)");
	}
	ASSERT_TRUE(!ret)
		TH_LOG("UD QP: %s", strerror(ret));
	av = &ev.ud.ah_attr;
	memcpy(mgid.raw, av->dgid, 16);
	ret = ibv_attach_mcast(e.qp, &mgid, 0);
	ASSERT_TRUE(!ret)
		TH_LOG("attach to the MGID: %s", strerror(ret));

	rsge = (struct ibv_sge){ .addr = (uintptr_t)e.buf[0],
				 .length = sizeof(e.buf[0]),
				 .lkey = e.mr->lkey };
	ASSERT_EQ(0, ibv_post_recv(e.qp, &rwr, &rbad))
		TH_LOG("post_recv: %s", strerror(errno));

	ah.is_global = av->is_global;
	memcpy(ah.grh.dgid.raw, av->dgid, 16);
	ah.grh.flow_label = av->flow_label;
	ah.grh.sgid_index = av->sgid_index;
	ah.grh.hop_limit = av->hop_limit;
	ah.grh.traffic_class = av->traffic_class;
	ah.dlid = av->dlid;
	ah.sl = av->sl;
	ah.src_path_bits = av->src_path_bits;
	ah.static_rate = av->static_rate;
	ah.port_num = av->port_num;
	e.ah = ibv_create_ah(e.pd, &ah);
	ASSERT_NE(NULL, e.ah)
		TH_LOG("create_ah from the event's address vector: %s",
		       strerror(errno));

	strcpy(e.buf[1], MSG);
	ssge = (struct ibv_sge){ .addr = (uintptr_t)e.buf[1],
				 .length = sizeof(MSG), .lkey = e.mr->lkey };
	swr.wr.ud.ah = e.ah;
	swr.wr.ud.remote_qpn = ev.ud.qp_num;
	swr.wr.ud.remote_qkey = ev.ud.qkey;
	ASSERT_EQ(0, ibv_post_send(e.qp, &swr, &sbad))
		TH_LOG("post_send: %s", strerror(errno));

	for (i = 0; i < 2 && poll_one(&e, &wc, ms) == 0; i++) {
		ASSERT_EQ(IBV_WC_SUCCESS, wc.status)
			TH_LOG("completion %s (wr %llu)",
			       ibv_wc_status_str(wc.status),
			       (unsigned long long)wc.wr_id);
		if (wc.opcode == IBV_WC_SEND)
			got_send = 1;
		if (wc.opcode == IBV_WC_RECV) {
			*got_recv = 1;
			ASSERT_EQ(wc.byte_len, RCM_GRH_LEN + sizeof(MSG))
				TH_LOG("received %u bytes", wc.byte_len);
			ASSERT_TRUE(!memcmp(e.buf[0] + RCM_GRH_LEN, MSG,
					    sizeof(MSG)))
				TH_LOG("received other bytes");
			ASSERT_TRUE(wc.src_qp == e.qp->qp_num)
				TH_LOG("from QP %u, want %u", wc.src_qp, e.qp->qp_num);
		}
	}
	ASSERT_TRUE(got_send)
		TH_LOG("the send did not complete");

	ibv_detach_mcast(e.qp, &mgid, 0);
	rcm_end_close(&e);
	l.id = id;
	rcm_sockaddr(&l.addr, group, 0);
	ASSERT_TRUE(ioctl(fd, RCM_IOCTL_LEAVE_MCAST, &l) == 0 &&
		    l.out_events_reported == 1)
		TH_LOG("leave: %s", strerror(errno));
	close(fd);
}

TEST(datagram_to_the_group_comes_back)
{
	int got = -1;

	send_to_group(_metadata, "239.1.2.20", RCM_MC_JOIN_FULLMEMBER, 5000, &got);
	if (!_metadata->skip) {
		ASSERT_EQ(1, got)
			TH_LOG("nothing came back over the group");
	}
}

/*
 * The control: a send-only member has not joined the IP group, so the
 * host drops its own looped-back datagram. What delivered it above was
 * the full join's membership.
 */
TEST(send_only_member_gets_nothing_back)
{
	int got = -1;

	send_to_group(_metadata, "239.1.2.21", RCM_MC_JOIN_SENDONLY_FULLMEMBER, 1000,
		      &got);
	if (!_metadata->skip) {
		ASSERT_EQ(0, got)
			TH_LOG("a send-only member received its datagram");
	}
}

RCM_TEST_MAIN
