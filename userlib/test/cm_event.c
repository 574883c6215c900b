// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_event: rdma_get_cm_event(), rdma_ack_cm_event(), and how
 * rdma_destroy_id() waits for acks.
 *
 * - one record per read(): each call reads one record (a buffer of one
 *   record) and leaves the others in the kernel, so the fd polls
 *   readable exactly while an event is pending; events are handed out
 *   in the kernel's order, with id, listen_id NULL, event, status
 *   verbatim (negative errno, positive reject reason) and private data
 *   copied into the event (pointer and length, RC in param.conn, UD in
 *   param.ud);
 * - a poll-driven loop (one rdma_get_cm_event() per wake-up, as Ceph's
 *   and SPDK's are) gets every one of 30 events (the library once read
 *   up to 16 at a time and stranded the rest);
 * - ADDR_RESOLVED refreshes the id before it is handed out: source and
 *   destination, port_num, verbs (the device whose node GUID the kernel
 *   reports), GID, destination GID (the address IPv4-mapped, as the
 *   in-tree rdma_read_gids()) and P_Key 0 (as in-tree); an unknown GUID
 *   turns the event into ADDR_ERROR with status -1 and errno ENODEV
 *   (librdmacm's ucma_process_addr_resolved());
 * - O_NONBLOCK channel with nothing pending: -1/EAGAIN; NULL arguments
 *   -1/EINVAL;
 * - destroy with events of the id still in the kernel: returns at once,
 *   and those events are never handed out, while the other ids' events
 *   keep their order;
 * - destroy while another thread has read a record of the id and not
 *   handed it out yet: waits for that thread, which drops the record
 *   and goes on with the next one;
 * - destroy with an event handed out and not acked: blocks until another
 *   thread acks it;
 * - destroy while another thread blocks in rdma_get_cm_event(): returns.
 *
 * The module is faked (fake_rcm.c), and so are libibverbs' devices
 * (fake_verbs.c). Waits are bounded: a hang fails the check.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rdma/rdma_cma.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

#define REC_SIZE	sizeof(struct rcm_event)

static struct rdma_event_channel *ch;

static uint32_t handle_of_last(void)
{
	return fake_last_create.out_id;
}

static struct rdma_cm_id *new_id(enum rdma_port_space ps, uint32_t *handle)
{
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(ch, &id, NULL, ps) == 0);
	*handle = handle_of_last();
	return id;
}

static bool open_channel(void)
{
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	return ch != NULL;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void expect_eagain(void)
{
	struct rdma_cm_event *ev = NULL;

	errno = 0;
	T_CHECK(rdma_get_cm_event(ch, &ev) == -1);
	T_CHECK(errno == EAGAIN);
	T_CHECK(ev == NULL);
	if (ev)			/* an event left behind: not a hang */
		rdma_ack_cm_event(ev);
}

/* Whether poll() says the channel's fd is readable, without waiting. */
static bool readable(void)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

static void one_record_per_read(void)
{
	static const char pd[] = "private data";
	struct rdma_cm_id *a, *b;
	struct rdma_cm_event *ev[4];
	uint32_t ha, hb;
	int i;

	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	b = new_id(RDMA_PS_UDP, &hb);
	T_CHECK(!readable());
	fake_rcm_push(ch->fd, ha, RCM_EVENT_CONNECT_ERROR, -ETIMEDOUT, NULL, 0);
	fake_rcm_push(ch->fd, hb, RCM_EVENT_UNREACHABLE, 1, pd, sizeof(pd));
	fake_rcm_push(ch->fd, ha, RCM_EVENT_REJECTED, 28, pd, 5);
	fake_rcm_push(ch->fd, ha, RCM_EVENT_DISCONNECTED, 0, NULL, 0);

	for (i = 0; i < 4; i++) {
		T_CHECK(readable());
		ev[i] = NULL;
		T_CHECK(rdma_get_cm_event(ch, &ev[i]) == 0);
		if (!ev[i])
			return;
		/* One record read, the others left in the kernel. */
		T_CHECK(fake_read_calls == i + 1);
		T_CHECK(fake_read_len == REC_SIZE);
		T_CHECK(fake_rcm_queued(ch->fd) == 3 - i);
	}
	T_CHECK(!readable());

	T_CHECK(ev[0]->id == a && ev[0]->listen_id == NULL);
	T_CHECK(ev[0]->event == RDMA_CM_EVENT_CONNECT_ERROR);
	T_CHECK(ev[0]->status == -ETIMEDOUT);
	T_CHECK(ev[0]->param.conn.private_data_len == 0);

	T_CHECK(ev[1]->id == b);
	T_CHECK(ev[1]->event == RDMA_CM_EVENT_UNREACHABLE);
	T_CHECK(ev[1]->status == 1);
	T_CHECK(ev[1]->param.ud.private_data_len == sizeof(pd));
	T_CHECK(ev[1]->param.ud.private_data &&
		!memcmp(ev[1]->param.ud.private_data, pd, sizeof(pd)));

	T_CHECK(ev[2]->id == a && ev[2]->event == RDMA_CM_EVENT_REJECTED);
	T_CHECK(ev[2]->status == 28);
	T_CHECK(ev[2]->param.conn.private_data_len == 5);
	T_CHECK(ev[2]->param.conn.private_data &&
		!memcmp(ev[2]->param.conn.private_data, "priva", 5));
	/* Each event owns its copy. */
	T_CHECK(ev[2]->param.conn.private_data !=
		ev[1]->param.ud.private_data);

	T_CHECK(ev[3]->id == a && ev[3]->event == RDMA_CM_EVENT_DISCONNECTED);
	T_CHECK(ev[3]->status == 0);

	for (i = 0; i < 4; i++)
		T_CHECK(rdma_ack_cm_event(ev[i]) == 0);
	errno = 0;
	T_CHECK(rdma_ack_cm_event(NULL) == -1 && errno == EINVAL);

	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

#define LOOP_IDS	3
#define LOOP_EVENTS	10	/* per id: 30 in all, more than 16 */

/*
 * The event loop of Ceph's RDMA messenger and SPDK's nvmf target: poll
 * the fd, get one event per wake-up. Every event comes out; none is left
 * where poll() cannot see it.
 */
static void poll_driven_loop(void)
{
	struct rdma_cm_id *id[LOOP_IDS];
	uint32_t h[LOOP_IDS];
	int next[LOOP_IDS] = { 0 };
	struct rdma_cm_event *ev;
	int i, k, got = 0;

	if (!open_channel())
		return;
	for (k = 0; k < LOOP_IDS; k++)
		id[k] = new_id(RDMA_PS_TCP, &h[k]);
	for (i = 0; i < LOOP_EVENTS; i++)
		for (k = 0; k < LOOP_IDS; k++)
			T_CHECK(fake_rcm_push(ch->fd, h[k],
					      RCM_EVENT_UNREACHABLE, -i - 1,
					      NULL, 0));

	while (readable() && got < LOOP_IDS * LOOP_EVENTS + 1) {
		ev = NULL;
		T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
		if (!ev)
			break;
		got++;
		for (k = 0; k < LOOP_IDS && ev->id != id[k]; k++)
			;
		/* Each id's events in the kernel's order. */
		T_CHECK(k < LOOP_IDS && ev->status == -next[k] - 1);
		if (k < LOOP_IDS)
			next[k]++;
		rdma_ack_cm_event(ev);
	}
	T_CHECK(got == LOOP_IDS * LOOP_EVENTS);
	T_CHECK(fake_rcm_queued(ch->fd) == 0);
	/* Nothing stranded in the library either. */
	set_nonblock(ch->fd);
	expect_eagain();
	for (k = 0; k < LOOP_IDS; k++)
		T_CHECK(rdma_destroy_id(id[k]) == 0);
	rdma_destroy_event_channel(ch);
}

static void nonblocking_and_args(void)
{
	struct rdma_cm_event *ev = NULL;

	if (!open_channel())
		return;
	set_nonblock(ch->fd);
	expect_eagain();
	T_CHECK(fake_read_calls == 1);
	errno = 0;
	T_CHECK(rdma_get_cm_event(ch, NULL) == -1 && errno == EINVAL);
	errno = 0;
	T_CHECK(rdma_get_cm_event(NULL, &ev) == -1 && errno == EINVAL);
	rdma_destroy_event_channel(ch);
}

static void addr_resolved_refresh(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(7471) };
	struct rdma_cm_event *ev = NULL;
	struct ibv_context **devs;
	const struct sockaddr_in *src;
	struct rdma_cm_id *a;
	uint32_t ha;
	int n;

	fake_num_devices = 3;
	fake_attach_guid = FAKE_GUID(2);
	fake_attach_port = 1;
	fake_attach_sgid[0] = 0xfe;
	fake_attach_sgid[15] = 0x77;
	inet_pton(AF_INET, "192.0.2.20", &dst.sin_addr);
	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	T_CHECK(rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst, 500) == 0);
	T_CHECK(a->verbs == NULL && a->port_num == 0);	/* not yet */
	T_CHECK(rdma_get_src_port(a) == 0);

	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	if (!ev)
		return;
	T_CHECK(ev->event == RDMA_CM_EVENT_ADDR_RESOLVED && ev->status == 0);
	T_CHECK(ev->id == a);
	/* The event carried the id's view: no query. */
	T_CHECK(FAKE_CALLS(RCM_CMD_QUERY_ID) == 0);
	(void)ha;
	devs = rdma_get_devices(&n);
	T_CHECK(devs && n == 3 && a->verbs == devs[2]);
	rdma_free_devices(devs);
	T_CHECK(a->port_num == 1);
	T_CHECK(a->route.addr.addr.ibaddr.sgid.raw[0] == 0xfe);
	T_CHECK(a->route.addr.addr.ibaddr.sgid.raw[15] == 0x77);
	/* The destination as a GID, P_Key 0: what in-tree reports. */
	T_CHECK(a->route.addr.addr.ibaddr.dgid.raw[10] == 0xff &&
		a->route.addr.addr.ibaddr.dgid.raw[11] == 0xff &&
		!memcmp(&a->route.addr.addr.ibaddr.dgid.raw[12],
			&dst.sin_addr, 4));
	T_CHECK(a->route.addr.addr.ibaddr.pkey == 0);
	src = (const struct sockaddr_in *)rdma_get_local_addr(a);
	T_CHECK(src->sin_family == AF_INET);
	T_CHECK(rdma_get_src_port(a) == htons(fake_ephemeral));
	T_CHECK(!memcmp(rdma_get_peer_addr(a), &dst, sizeof(dst)));
	rdma_ack_cm_event(ev);
	T_CHECK(rdma_destroy_id(a) == 0);
	rdma_destroy_event_channel(ch);
}

static void addr_resolved_unknown_device(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *a;
	uint32_t ha;

	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(3);	/* no such device */
	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	T_CHECK(rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst, 500) == 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	if (!ev)
		return;
	T_CHECK(ev->event == RDMA_CM_EVENT_ADDR_ERROR);
	T_CHECK(ev->status == -1 && errno == ENODEV);
	T_CHECK(a->verbs == NULL);
	rdma_ack_cm_event(ev);
	T_CHECK(rdma_destroy_id(a) == 0);
	rdma_destroy_event_channel(ch);
}

struct destroyer {
	struct rdma_cm_id *id;
	pthread_t thread;
	int ret;
	int done;		/* __atomic: read while the thread runs */
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->ret = rdma_destroy_id(d->id);
	__atomic_store_n(&d->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void start_destroy(struct destroyer *d, struct rdma_cm_id *id)
{
	d->id = id;
	d->done = 0;
	d->ret = -2;
	T_CHECK(pthread_create(&d->thread, NULL, destroy_thread, d) == 0);
}

/* Join within ms milliseconds; false (and the thread left) on timeout. */
static bool join_within(pthread_t thread, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(thread, NULL, &ts) == 0;
}

static void destroy_discards_unread(void)
{
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *a, *b;
	struct destroyer d;
	uint32_t ha, hb;

	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	b = new_id(RDMA_PS_TCP, &hb);
	fake_rcm_push(ch->fd, hb, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(ch->fd, ha, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(ch->fd, hb, RCM_EVENT_DISCONNECTED, 0, NULL, 0);
	fake_rcm_push(ch->fd, ha, RCM_EVENT_DISCONNECTED, 0, NULL, 0);
	fake_rcm_push(ch->fd, hb, RCM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);

	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->id == b && ev->event == RDMA_CM_EVENT_ESTABLISHED);
	T_CHECK(fake_read_calls == 1 && fake_rcm_queued(ch->fd) == 4);

	/* a's two events are in the kernel only: no wait. */
	start_destroy(&d, a);
	T_CHECK(join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
	T_CHECK(fake_last_destroy.id == ha);
	T_CHECK(fake_last_destroy.out_events_reported == 0);
	T_CHECK(fake_rcm_queued(ch->fd) == 2);

	rdma_ack_cm_event(ev);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->id == b && ev->event == RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->id == b && ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT);
	rdma_ack_cm_event(ev);
	/* Nothing of a ever comes out. */
	set_nonblock(ch->fd);
	expect_eagain();
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

static void *get_thread(void *arg)
{
	struct rdma_cm_event **ev = arg;

	if (rdma_get_cm_event(ch, ev))
		*ev = NULL;
	return NULL;
}

/*
 * Another thread read a's record and has not looked at it yet when a is
 * destroyed: the kernel counts it as reported, so the destroy waits for
 * that thread, which drops it and hands out the next record instead.
 */
static void destroy_with_record_in_flight(void)
{
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *a, *b;
	struct destroyer d;
	pthread_t getter;
	uint32_t ha, hb;

	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	b = new_id(RDMA_PS_TCP, &hb);
	fake_rcm_push(ch->fd, ha, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(ch->fd, hb, RCM_EVENT_ESTABLISHED, 0, NULL, 0);

	fake_rcm_hold_next_read();
	T_CHECK(pthread_create(&getter, NULL, get_thread, &ev) == 0);
	T_CHECK(fake_rcm_wait_held(2000));
	T_CHECK(fake_rcm_queued(ch->fd) == 1);

	start_destroy(&d, a);
	T_CHECK(!join_within(d.thread, 300));	/* waits for the reader */
	T_CHECK(fake_last_destroy.out_events_reported == 1);
	fake_rcm_release_read();
	T_CHECK(join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
	T_CHECK(join_within(getter, 2000));
	T_CHECK(ev && ev->id == b && ev->event == RDMA_CM_EVENT_ESTABLISHED);
	if (ev)
		rdma_ack_cm_event(ev);
	set_nonblock(ch->fd);
	expect_eagain();
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

static void destroy_waits_for_ack(void)
{
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *a;
	struct destroyer d;
	uint32_t ha;

	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	fake_rcm_push(ch->fd, ha, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	fake_rcm_push(ch->fd, ha, RCM_EVENT_DISCONNECTED, 0, NULL, 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	if (!ev)
		return;

	start_destroy(&d, a);
	T_CHECK(!join_within(d.thread, 300));	/* blocked on the ack */
	T_CHECK(!__atomic_load_n(&d.done, __ATOMIC_SEQ_CST));
	T_CHECK(!fake_rcm_id_live(ch->fd, ha));	/* kernel id gone already */
	rdma_ack_cm_event(ev);
	T_CHECK(join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);

	set_nonblock(ch->fd);
	expect_eagain();			/* DISCONNECTED dropped */
	rdma_destroy_event_channel(ch);
}

static void destroy_during_blocking_get(void)
{
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *a, *b;
	struct destroyer d;
	pthread_t getter;
	uint32_t ha, hb;
	int i;

	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	b = new_id(RDMA_PS_TCP, &hb);
	T_CHECK(pthread_create(&getter, NULL, get_thread, &ev) == 0);
	for (i = 0; i < 200 && !fake_read_blocked; i++)
		usleep(10000);
	T_CHECK(fake_read_blocked == 1);	/* the getter sleeps in read() */

	start_destroy(&d, a);
	T_CHECK(join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);

	fake_rcm_push(ch->fd, hb, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	T_CHECK(join_within(getter, 2000));
	T_CHECK(ev && ev->id == b);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_get_cm_event);
	fake_rcm_init();

	t_in_child("one record per read, the fd readable while pending",
		   one_record_per_read);
	t_in_child("a poll-driven loop gets every event", poll_driven_loop);
	t_in_child("non-blocking channel, bad arguments", nonblocking_and_args);
	t_in_child("ADDR_RESOLVED refreshes the id", addr_resolved_refresh);
	t_in_child("ADDR_RESOLVED on an unknown device",
		   addr_resolved_unknown_device);
	t_in_child("destroy discards the id's unread events",
		   destroy_discards_unread);
	t_in_child("destroy while another thread holds a record",
		   destroy_with_record_in_flight);
	t_in_child("destroy waits for handed-out events", destroy_waits_for_ack);
	t_in_child("destroy during a blocking get", destroy_during_blocking_get);
	return t_exit();
}
