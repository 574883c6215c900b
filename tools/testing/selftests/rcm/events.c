// SPDX-License-Identifier: GPL-2.0-only
/*
 * events: read() and poll() on the event queue follow the documented
 * rules when nothing is queued. (Event delivery itself is covered by the
 * tests of the operations that produce events.)
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

#define offsetofend(type, member)					\
	(offsetof(type, member) + sizeof(((type *)0)->member))

TEST(short_buffer_is_einval)
{
	char buf[RCM_EVENT_SIZE - 1];	/* a new file's record */
	int fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_ERRNO(read(fd, buf, sizeof(buf)), EINVAL);
	ASSERT_ERRNO(read(fd, buf, 0), EINVAL);
	close(fd);
}

TEST(nonblocking_read_of_empty_queue_is_eagain)
{
	struct rcm_event ev[4];
	int fd = open(RCM_DEV, O_RDWR | O_NONBLOCK);

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_ERRNO(read(fd, ev, sizeof(ev)), EAGAIN);
	close(fd);
}

TEST(poll_and_epoll_see_no_event)
{
	struct pollfd p = { .events = POLLIN };
	struct epoll_event e = { .events = EPOLLIN }, got;
	int ep, fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	p.fd = fd;
	ASSERT_EQ(0, poll(&p, 1, 50))
		TH_LOG("poll reported %#x", p.revents);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep)
		TH_LOG("epoll_create1");
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e))
		TH_LOG("epoll_ctl: %s", strerror(errno));
	ASSERT_EQ(0, epoll_wait(ep, &got, 1, 50))
		TH_LOG("epoll reported an event");
	close(ep);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

TEST(blocking_read_is_interruptible)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value.tv_usec = 200000 };
	struct rcm_event ev;
	int fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL))
		TH_LOG("sigaction");
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL))
		TH_LOG("setitimer");
	ASSERT_ERRNO(read(fd, &ev, sizeof(ev)), EINTR);
	close(fd);
}

TEST(event_record_layout_is_fixed)
{
	/*
	 * Userspace and kernel agree on one record for every arch: the
	 * head every reader gets (RCM_EVENT_SIZE_MIN bytes, then the
	 * private data), the QP attribute sets, the id's view.
	 */
	ASSERT_TRUE(sizeof(struct rcm_event) == RCM_EVENT_SIZE &&
		    RCM_EVENT_SIZE == 728)
		TH_LOG("sizeof %zu", sizeof(struct rcm_event));
	ASSERT_TRUE(offsetof(struct rcm_event, private_data) ==
		    RCM_EVENT_SIZE_MIN && RCM_EVENT_SIZE_MIN == 88)
		TH_LOG("private_data at %zu",
		       offsetof(struct rcm_event, private_data));
	ASSERT_TRUE(offsetof(struct rcm_event, ece_vendor_id) == 64 &&
		    offsetof(struct rcm_event, qp_attr_valid) == 72 &&
		    offsetof(struct rcm_event, id_info_len) == 76 &&
		    offsetof(struct rcm_event, private_data_len) == 80)
		TH_LOG("ECE at %zu", offsetof(struct rcm_event, ece_vendor_id));
	ASSERT_TRUE(sizeof(struct rcm_event_head) == 344 &&
		    offsetof(struct rcm_event, qp_attr) == 344 &&
		    sizeof(struct rcm_qp_attr) == 76)
		TH_LOG("qp_attr at %zu, %zu each",
		       offsetof(struct rcm_event, qp_attr),
		       sizeof(struct rcm_qp_attr));
	ASSERT_TRUE(offsetof(struct rcm_event, id_info) == 576 &&
		    sizeof(struct rcm_id_info) == 152)
		TH_LOG("id_info at %zu, %zu bytes",
		       offsetof(struct rcm_event, id_info),
		       sizeof(struct rcm_id_info));
	ASSERT_EQ(offsetof(struct rcm_event,
			   ud.ah_attr), offsetof(struct rcm_event, conn) + 8)
		TH_LOG("ud offset");
	ASSERT_EQ(RCM_IWARP_PRIVATE_DATA_MAX, RCM_EVENT_PRIVATE_DATA_MAX)
		TH_LOG("private data of an iWARP peer does not fit");
}

/* RCM_IOCTL_QUERY asking for @event_size; out_event_size, or -1. */
static int set_record_size(int fd, unsigned int event_size)
{
	struct rcm_query q = { .size = sizeof(q), .event_size = event_size };

	if (ioctl(fd, RCM_IOCTL_QUERY, &q))
		return -1;
	return q.out_event_size;
}

TEST(record_size_is_set_per_file_by_query)
{
	struct rcm_query short_q = { .size = offsetofend(struct rcm_query,
							 out_event_size) };
	/* Not rcm_open_dev(): that one chooses the record size. */
	int fd = open(RCM_DEV, O_RDWR | O_CLOEXEC);
	int fd2 = open(RCM_DEV, O_RDWR | O_CLOEXEC);

	ASSERT_TRUE(fd >= 0 && fd2 >= 0)
		TH_LOG("open: %s", strerror(errno));
	/* A new file returns whole records. */
	ASSERT_EQ(RCM_EVENT_SIZE, set_record_size(fd, 0))
		TH_LOG("default %d", set_record_size(fd, 0));
	/* A reader that knows more gets the module's record. */
	ASSERT_EQ(set_record_size(fd, 4096), (int)sizeof(struct rcm_event))
		TH_LOG("capped at %d", set_record_size(fd, 0));
	ASSERT_EQ(RCM_EVENT_SIZE_MIN, set_record_size(fd, RCM_EVENT_SIZE_MIN))
		TH_LOG("smallest");
	ASSERT_EQ(128, set_record_size(fd, 128))
		TH_LOG("128");
	/* 0 keeps the file's size; a query shorter than the struct fails. */
	ASSERT_EQ(128, set_record_size(fd, 0))
		TH_LOG("0 changed the size");
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &short_q), EINVAL);
	ASSERT_EQ(128, set_record_size(fd, 0))
		TH_LOG("a short query changed the size");
	/* Per file. */
	ASSERT_EQ(RCM_EVENT_SIZE, set_record_size(fd2, 0))
		TH_LOG("another file's size changed");
	/* Below the smallest, or not a multiple of 8. */
	ASSERT_ERRNO(set_record_size(fd, 8), EINVAL);
	ASSERT_ERRNO(set_record_size(fd, RCM_EVENT_SIZE_MIN - 8), EINVAL);
	ASSERT_ERRNO(set_record_size(fd, RCM_EVENT_SIZE_MIN + 4), EINVAL);
	ASSERT_ERRNO(set_record_size(fd, RCM_EVENT_SIZE + 1), EINVAL);
	ASSERT_EQ(128, set_record_size(fd, 0))
		TH_LOG("a refused size changed it");
	/* A buffer below the file's record fails; one record is enough. */
	{
		char buf[128];

		ASSERT_ERRNO(read(fd, buf, 127), EINVAL);
		ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK))
			TH_LOG("O_NONBLOCK");
		ASSERT_ERRNO(read(fd, buf, 128), EAGAIN);
	}
	close(fd2);
	close(fd);
}

/*
 * A file of the device's with records of struct rcm_event, and the rxe
 * address to resolve; the cases skip without an rxe device.
 */
FIXTURE(rxe)
{
	const char *ip;
	int fd;
};

FIXTURE_SETUP(rxe)
{
	self->fd = -1;
	self->ip = getenv("RCM_ADDR_RXE");
	if (!self->ip)
		SKIP(return, "RCM_ADDR_RXE not set (no rxe device here)");
	ASSERT_RCM_OPEN(self->fd);
}

RCM_FD_FIXTURE_TEARDOWN(rxe);

/*
 * A reader whose record is smaller than the module's (one built against
 * an older header, once the record grows) reads whole events: each
 * record is the first bytes of one event, the next record is the next
 * event, and nothing is written past the records returned. A record too
 * short for the id's view and the QP attribute sets says it has none.
 */
TEST_F(rxe, smaller_record_reader_gets_whole_events)
{
	const char *ip = self->ip;
	enum { NIDS = 3, REC = RCM_EVENT_SIZE_MIN + 56 };
	unsigned char buf[NIDS * REC + 100];
	struct rcm_event ev;
	struct pollfd p = { .events = POLLIN };
	unsigned int ids[NIDS];
	int fd = self->fd, got = 0, i, n;

	ASSERT_EQ(REC, set_record_size(fd, REC))
		TH_LOG("record size %d", set_record_size(fd, 0));
	for (i = 0; i < NIDS; i++) {
		ids[i] = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 0xabc0 + i);
		ASSERT_TRUE(ids[i])
			TH_LOG("create: %s", strerror(errno));
		ASSERT_EQ(0, rcm_resolve(fd, ids[i], NULL, ip, 2000))
			TH_LOG("resolve: %s", strerror(errno));
	}
	/* Wait for all three queued, then read them with one call. */
	ASSERT_TRUE(RCM_WAIT_FOR(rcm_events_queued(fd) == NIDS, 30000))
		TH_LOG("%ld of %d resolved in 30 s", rcm_events_queued(fd),
		       NIDS);
	p.fd = fd;
	ASSERT_EQ(1, poll(&p, 1, 10000))
		TH_LOG("not readable");

	memset(buf, 0xa5, sizeof(buf));
	n = read(fd, buf, sizeof(buf));
	ASSERT_TRUE(n > 0 && n % REC == 0)
		TH_LOG("read %d bytes, records of %d", n, REC);
	for (i = n; i < (int)sizeof(buf); i++) {
		ASSERT_EQ(0xa5, buf[i])
			TH_LOG("byte %d past %d written", i, n);
	}
	got = n / REC;
	/* Events queued after the poll may be read separately. */
	while (got < NIDS) {
		ASSERT_EQ(1, poll(&p, 1, 10000))
			TH_LOG("%d events only", got);
		n = read(fd, buf + got * REC, REC);
		ASSERT_EQ(REC, n)
			TH_LOG("read %d, want one record of %d", n, REC);
		got++;
	}
	for (i = 0; i < NIDS; i++) {
		memset(&ev, 0, sizeof(ev));
		memcpy(&ev, buf + i * REC, REC);
		ASSERT_TRUE(ev.event == RCM_EVENT_ADDR_RESOLVED &&
			    ev.status == 0)
			TH_LOG("record %d: event %u status %d", i, ev.event, ev.status);
		ASSERT_TRUE(ev.id == ids[i] && ev.context == 0xabc0u + i)
			TH_LOG("record %d: id %u context %llx", i, ev.id,
			       (unsigned long long)ev.context);
		ASSERT_TRUE(!ev.private_data_len && !ev.id_info_len &&
			    !ev.qp_attr_valid)
			TH_LOG("record %d: private data %u, id info %u, sets %#x",
			       i, ev.private_data_len, ev.id_info_len,
			       ev.qp_attr_valid);
	}
	/* Each event came out once: nothing is left of them. */
	ASSERT_EQ(0, poll(&p, 1, 0))
		TH_LOG("still readable");
	for (i = 0; i < NIDS; i++) {
		struct rcm_destroy_id d = { .size = sizeof(d), .id = ids[i] };

		ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_DESTROY_ID, &d))
			TH_LOG("destroy");
		ASSERT_EQ(1, d.out_events_reported)
			TH_LOG("id %u: %u events reported",
			       ids[i], d.out_events_reported);
	}
}

/*
 * An ADDR_RESOLVED carries what RCM_IOCTL_QUERY_ID and the INIT set of
 * RCM_IOCTL_INIT_QP_ATTR return, in a whole record; a record that ends
 * before @id_info carries the set and says it has no view.
 */
TEST_F(rxe, resolved_event_carries_the_view_and_init_set)
{
	const char *ip = self->ip;
	const unsigned int rec = offsetof(struct rcm_event, id_info);
	struct rcm_query_id q;
	struct rcm_event ev;
	unsigned int a, b;
	int fd = self->fd;

	a = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	ASSERT_NE(0, a)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_resolve(fd, a, NULL, ip, 2000))
		TH_LOG("resolve: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(fd, RCM_EVENT_ADDR_RESOLVED, &ev))
		TH_LOG("no ADDR_RESOLVED");
	ASSERT_EQ(0, rcm_query(fd, a, &q))
		TH_LOG("query: %s", strerror(errno));
	ASSERT_TRUE(ev.id_info_len == sizeof(ev.id_info) &&
		    ev.id_info.port_num == q.out_port_num &&
		    ev.id_info.port_num == 1 &&
		    !memcmp(ev.id_info.sgid, q.out_sgid, sizeof(q.out_sgid)))
		TH_LOG("id info %u bytes, port %u", ev.id_info_len,
		       ev.id_info.port_num);
	ASSERT_TRUE(ev.qp_attr_valid == 1u << RCM_QPS_INIT &&
		    ev.qp_attr[RCM_QPS_INIT - 1].qp_state == RCM_QPS_INIT &&
		    !ev.private_data_len)
		TH_LOG("sets %#x, private data %u", ev.qp_attr_valid,
		       ev.private_data_len);

	ASSERT_EQ(rec, set_record_size(fd, rec))
		TH_LOG("record size %d", set_record_size(fd, 0));
	b = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_NE(0, b)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_resolve(fd, b, NULL, ip, 2000))
		TH_LOG("resolve: %s", strerror(errno));
	memset(&ev, 0xa5, sizeof(ev));
	ASSERT_EQ(0, poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1,
			  10000) == 1 ? 0 : -1)
		TH_LOG("no second event");
	ASSERT_EQ(rec, read(fd, &ev, sizeof(ev)))
		TH_LOG("read: %s", strerror(errno));
	ASSERT_TRUE(ev.event == RCM_EVENT_ADDR_RESOLVED && ev.id == b &&
		    ev.qp_attr_valid == 1u << RCM_QPS_INIT && !ev.id_info_len &&
		    ev.id_info.port_num == 0xa5a5a5a5)
		TH_LOG("event %u id %u sets %#x id info %u", ev.event, ev.id,
		       ev.qp_attr_valid, ev.id_info_len);
}

/*
 * One record per read(), as the userlib and librdmacm read: the file
 * stays readable exactly while an event is left, whatever the size.
 */
TEST_F(rxe, one_record_per_read_leaves_the_rest_readable)
{
	const char *ip = self->ip;
	enum { REC = RCM_EVENT_SIZE_MIN };
	unsigned char buf[2 * REC];
	struct pollfd p = { .events = POLLIN };
	struct rcm_event ev = {};
	unsigned int a, b;
	int fd = self->fd;

	ASSERT_EQ(REC, set_record_size(fd, REC))
		TH_LOG("record size");
	a = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
	b = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_TRUE(a && b)
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, rcm_resolve(fd, a, NULL, ip, 2000))
		TH_LOG("resolve");
	p.fd = fd;
	ASSERT_EQ(1, poll(&p, 1, 10000))
		TH_LOG("first event");
	ASSERT_EQ(0, rcm_resolve(fd, b, NULL, ip, 2000))
		TH_LOG("resolve");
	/* Both queued, the first unread. */
	ASSERT_TRUE(RCM_WAIT_FOR(rcm_events_queued(fd) == 2, 30000))
		TH_LOG("%ld queued", rcm_events_queued(fd));
	/* A buffer of exactly one record, then of almost two: one each. */
	ASSERT_TRUE(read(fd, buf, REC) == REC &&
		    (memcpy(&ev, buf, REC), ev.id == a && ev.context == 1))
		TH_LOG("first read: id %u", ev.id);
	ASSERT_EQ(1, poll(&p, 1, 0))
		TH_LOG("not readable with an event left");
	ASSERT_TRUE(read(fd, buf, REC + REC - 1) == REC &&
		    (memcpy(&ev, buf, REC), ev.id == b && ev.context == 2))
		TH_LOG("second read: id %u", ev.id);
	ASSERT_EQ(0, poll(&p, 1, 0))
		TH_LOG("readable with no event left");
}

RCM_TEST_MAIN
