// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_mcast: what the multicast calls do with answers only a fake module
 * and provider give (the rest runs against rcm.ko in a guest:
 * guest/cm_mcast.c, and Debian's mckey in udaddy.sh).
 *
 * - MULTICAST_ERROR from the kernel passes its status and the context;
 *   a failed attach turns MULTICAST_JOIN into MULTICAST_ERROR with
 *   status -1 and errno set (librdmacm's ucma_process_join()), and the
 *   leave detaches nothing; an id without a QP joins with nothing to
 *   attach;
 * - leave: detaches what was attached, passes the join's address, gives
 *   EADDRNOTAVAIL for a group not joined (the port does not count), and
 *   waits until every event of the group the kernel reported is acked;
 *   one another thread read and had not handed out yet (the seam holds
 *   that reader) is dropped;
 * - rdma_destroy_id() with groups joined frees them (valgrind).
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs is faked (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm_helpers.h"

static struct sockaddr_in group = { .sin_family = AF_INET };
static struct sockaddr_in group2 = { .sin_family = AF_INET };
static const uint8_t mgid[16] = { [10] = 0xff, [11] = 0xff,
				  [12] = 239, [13] = 1, [14] = 2, [15] = 3 };

/* What JOIN_MCAST queues: MULTICAST_JOIN with mcast_ud, else ERROR. */
static int join_status;
static struct rcm_ud_param mcast_ud;

/* The groups joined: the join's context, and its events read. */
static struct {
	struct sockaddr_in	addr;
	uint64_t		context;
	uint32_t		reported;
} groups[4];

static int group_of(const struct __kernel_sockaddr_storage *addr)
{
	const struct sockaddr_in *a = (const struct sockaddr_in *)addr;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(groups); i++)
		if (groups[i].addr.sin_addr.s_addr == a->sin_addr.s_addr)
			return i;
	return -1;
}

/* Queue event of group addr of id handle. */
static bool push_group(int fd, uint32_t handle, const void *addr,
		       uint32_t event, int32_t status)
{
	int g = group_of(addr);
	struct rcm_event ev = seam_event(fd, handle, event, status);

	if (g < 0)
		return false;
	ev.context = groups[g].context;
	if (event == RCM_EVENT_MULTICAST_JOIN)
		ev.ud = mcast_ud;
	return seam_push(fd, &ev);
}

static int join(int fd, void *arg)
{
	const struct rcm_join_mcast *c = arg;
	int g = group_of(&c->addr);

	if (g < 0)
		g = group_of(&(struct __kernel_sockaddr_storage){ 0 });
	if (g < 0)
		return ENOMEM;
	memcpy(&groups[g].addr, &c->addr, sizeof(groups[g].addr));
	groups[g].context = c->context;
	groups[g].reported = 0;
	return push_group(fd, c->id, &c->addr, join_status ?
			  RCM_EVENT_MULTICAST_ERROR : RCM_EVENT_MULTICAST_JOIN,
			  join_status) ? 0 : ENOMEM;
}

static int leave(int fd, void *arg)
{
	struct rcm_leave_mcast *c = arg;
	int g = group_of(&c->addr);

	if (g < 0)
		return ENOENT;
	seam_discard(fd, c->id, groups[g].context);
	c->out_events_reported = groups[g].reported;
	memset(&groups[g], 0, sizeof(groups[g]));
	return 0;
}

static void count_read(int fd, const struct rcm_event *ev)
{
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(groups); i++)
		if (groups[i].context && groups[i].context == ev->context &&
		    (ev->event == RCM_EVENT_MULTICAST_JOIN ||
		     ev->event == RCM_EVENT_MULTICAST_ERROR))
			groups[i].reported++;
	script_read_hook(fd, ev);
}

static void setup(void)
{
	struct rcm_ah_attr *ah = &mcast_ud.ah_attr;

	group.sin_port = htons(5000);
	inet_pton(AF_INET, "239.1.2.3", &group.sin_addr);
	inet_pton(AF_INET, "239.1.2.4", &group2.sin_addr);
	seam_reply[SEAM_CMD(RCM_CMD_JOIN_MCAST)] = join;
	seam_reply[SEAM_CMD(RCM_CMD_LEAVE_MCAST)] = leave;
	seam_on_read = count_read;

	memset(script_qp_attr, 0, sizeof(script_qp_attr));
	script_qp_attr[0].qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				       IBV_QP_PORT | IBV_QP_QKEY;
	script_qp_attr[0].port_num = 1;
	script_qp_attr[0].qkey = RCM_UDP_QKEY;

	memset(&mcast_ud, 0, sizeof(mcast_ud));
	mcast_ud.qp_num = RCM_MCAST_QPN;
	mcast_ud.qkey = RCM_UDP_QKEY;
	memcpy(ah->dgid, mgid, sizeof(mgid));
	ah->flow_label = 0x12345;
	ah->sgid_index = 3;
	ah->hop_limit = 64;
	ah->traffic_class = 0x20;
	ah->sl = 5;
	ah->dlid = 0xc001;
	ah->src_path_bits = 1;
	ah->static_rate = 2;
	ah->is_global = 1;
	ah->port_num = 1;
	join_status = 0;
}

/* A UD id on c (NULL: synchronous), bound to 192.0.2.10 (attached). */
static struct rdma_cm_id *ud_id(struct rdma_event_channel *c, bool qp)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id = NULL;

	inet_pton(AF_INET, "192.0.2.10", &a.sin_addr);
	T_CHECK(rdma_create_id(c, &id, NULL, RDMA_PS_UDP) == 0);
	if (!id)
		return NULL;
	T_CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0);
	T_CHECK(id->verbs != NULL);
	if (!qp)
		return id;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_UD;
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	T_CHECK(rdma_create_qp(id, NULL, &attr) == 0);
	T_CHECK(id->qp && id->qp->state == IBV_QPS_RTS);
	return id;
}

static void destroy(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	T_CHECK(rdma_destroy_id(id) == 0);
}

static struct rdma_cm_event *next_event(struct rdma_event_channel *c)
{
	struct rdma_cm_event *ev = NULL;

	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	return ev;
}

static void join_errors(void)
{
	struct rdma_event_channel *c;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct fake_qp *f;
	int ctx;

	setup();
	c = rdma_create_event_channel();
	id = ud_id(c, true);
	if (!c || !id || !id->qp)
		return;
	f = fake_qp(id->qp);

	/* The kernel's MULTICAST_ERROR: its status, the context. */
	join_status = -ENETUNREACH;
	T_CHECK(rdma_join_multicast(id, (struct sockaddr *)&group, &ctx) == 0);
	ev = next_event(c);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_MULTICAST_ERROR &&
		ev->status == -ENETUNREACH &&
		ev->param.ud.private_data == &ctx && ev->id == id);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(f->attach_calls == 0);
	T_CHECK(rdma_leave_multicast(id, (struct sockaddr *)&group) == 0);

	/* The attach fails: MULTICAST_ERROR, status -1, its errno. */
	join_status = 0;
	fake_attach_errno = ENOMEM;
	T_CHECK(rdma_join_multicast(id, (struct sockaddr *)&group, &ctx) == 0);
	errno = 0;
	ev = next_event(c);
	T_CHECK(errno == ENOMEM);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_MULTICAST_ERROR &&
		ev->status == -1 && ev->param.ud.private_data == &ctx);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(f->nmcast == 0);
	/* Nothing attached: nothing detached. */
	T_CHECK(rdma_leave_multicast(id, (struct sockaddr *)&group) == 0);
	T_CHECK(f->detach_calls == 0);

	/* An id without a QP joins; nothing to attach. */
	destroy(id);
	id = ud_id(c, false);
	if (!id)
		return;
	T_CHECK(rdma_join_multicast(id, (struct sockaddr *)&group, &ctx) == 0);
	ev = next_event(c);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_MULTICAST_JOIN);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(rdma_leave_multicast(id, (struct sockaddr *)&group) == 0);
	destroy(id);
	rdma_destroy_event_channel(c);
}

struct leaver {
	struct rdma_cm_id *id;
	int ret;
};

static void *leave_thread(void *arg)
{
	struct leaver *l = arg;

	l->ret = rdma_leave_multicast(l->id, (struct sockaddr *)&group);
	return NULL;
}

/*
 * The group has two events the kernel reported: one handed out and not
 * acked (the leave waits for it), and one another thread has read and
 * not handed out yet (dropped when it looks at it). One more is unread
 * in the kernel behind another group's event: the kernel discards it,
 * the other group's stays and is what that thread gets.
 */
static void leave_accounting(void)
{
	struct rdma_event_channel *c;
	struct rdma_cm_event *ev;
	struct leaver l = { .ret = -2 };
	struct cm_getter g;
	struct rdma_cm_id *id;
	pthread_t thread;
	uint32_t h;
	int fd;

	setup();
	c = rdma_create_event_channel();
	id = ud_id(c, true);
	if (!c || !id || !id->qp)
		return;
	fd = c->fd;
	h = SEAM_LAST_HANDLE();

	T_CHECK(rdma_join_multicast(id, (struct sockaddr *)&group, NULL) == 0);
	T_CHECK(push_group(fd, h, &group, RCM_EVENT_MULTICAST_ERROR,
				    -ENETRESET));
	T_CHECK(rdma_join_multicast(id, (struct sockaddr *)&group2,
				    &l) == 0);
	T_CHECK(push_group(fd, h, &group, RCM_EVENT_MULTICAST_ERROR,
				    -ENETRESET));
	/* JOIN, ERROR, JOIN of group2, ERROR: one read() each. */
	ev = next_event(c);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_MULTICAST_JOIN &&
		ev->param.ud.private_data == NULL);
	T_CHECK(seam_queued(fd) == 3);

	/* Another thread reads the ERROR and is held before looking at it. */
	script_hold_next_read();
	cm_start_get(&g, c);
	T_CHECK(script_wait_held(2000));

	l.id = id;
	T_CHECK(pthread_create(&thread, NULL, leave_thread, &l) == 0);
	T_CHECK(!cm_join_within(thread, 200));
	T_CHECK(SEAM_LAST(rcm_leave_mcast,
			  RCM_CMD_LEAVE_MCAST)->out_events_reported == 2);
	T_CHECK(seam_queued(fd) == 1);

	/* The held ERROR is dropped; the reader gets group2's JOIN. */
	script_release_read();
	T_CHECK(cm_join_within(g.thread, 2000));
	T_CHECK(g.ev && g.ev->event == RDMA_CM_EVENT_MULTICAST_JOIN &&
		g.ev->param.ud.private_data == &l);
	if (g.ev)
		rdma_ack_cm_event(g.ev);
	T_CHECK(!cm_join_within(thread, 200));	/* ev is not acked yet */
	rdma_ack_cm_event(ev);
	T_CHECK(cm_join_within(thread, 2000));
	T_CHECK(l.ret == 0);

	cm_expect_none(c);
	destroy(id);
	rdma_destroy_event_channel(c);
}

CM_MAIN(rdma_join_multicast,
	{ "join errors", join_errors },
	{ "leave waits for the group's events", leave_accounting })
