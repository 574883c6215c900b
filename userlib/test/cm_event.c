// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_event: what rdma_get_cm_event() does with what the real module
 * cannot be made to show at will (the rest runs against rcm.ko in a
 * guest: guest/cm_event.c, and cm_poll_loop for one event per read).
 *
 * - ADDR_RESOLVED naming a node GUID no device has turns into ADDR_ERROR
 *   with status -1 and errno ENODEV (librdmacm's
 *   ucma_process_addr_resolved());
 * - destroy while another thread has read a record of the id and not
 *   handed it out yet: waits for that thread, which drops the record
 *   and goes on with the next one (the seam stops the reader at that
 *   instant);
 * - an event acked after the application destroyed its channel (the id
 *   left alive), as librdmacm 44 allows: no access to the freed channel
 *   (valgrind.sh).
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs' devices are faked (fake_verbs.c). Waits are bounded: a
 * hang fails the check.
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

#include "script.h"
#include "helpers.h"

#define REC_SIZE	sizeof(struct rcm_event)

static struct rdma_event_channel *ch;

static struct rdma_cm_id *new_id(enum rdma_port_space ps, uint32_t *handle)
{
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(ch, &id, NULL, ps) == 0);
	*handle = SEAM_LAST_HANDLE();
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

static void addr_resolved_unknown_device(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *a;
	uint32_t ha;

	script_info.node_guid = FAKE_GUID(3);	/* no such device */
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
	script_push(ch->fd, ha, RCM_EVENT_ESTABLISHED, 0);
	script_push(ch->fd, hb, RCM_EVENT_ESTABLISHED, 0);

	script_hold_next_read();
	T_CHECK(pthread_create(&getter, NULL, get_thread, &ev) == 0);
	T_CHECK(script_wait_held(2000));
	T_CHECK(seam_queued(ch->fd) == 1);

	start_destroy(&d, a);
	T_CHECK(!join_within(d.thread, 300));	/* waits for the reader */
	T_CHECK(SEAM_LAST(rcm_destroy_id,
			  RCM_CMD_DESTROY_ID)->out_events_reported == 1);
	script_release_read();
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

/* Still reachable at exit: the id outlives its channel on purpose. */
static struct rdma_cm_id *orphan;

/*
 * librdmacm 44 acks an event whose channel the application destroyed
 * first: the ack touches the id, never the channel. rcm's takes the
 * lock of the id's channel, whose memory the id keeps (valgrind.sh sees
 * the read of a freed channel otherwise).
 */
static void ack_after_channel_destroyed(void)
{
	struct rdma_cm_event *ev = NULL;
	uint32_t h;

	if (!open_channel())
		return;
	orphan = new_id(RDMA_PS_TCP, &h);
	T_CHECK(script_push(ch->fd, h, RCM_EVENT_ESTABLISHED, 0));
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0 && ev && ev->id == orphan);
	rdma_destroy_event_channel(ch);
	if (ev)
		T_CHECK(rdma_ack_cm_event(ev) == 0);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_get_cm_event);
	script_cm();

	t_in_child("ADDR_RESOLVED on an unknown device",
		   addr_resolved_unknown_device);
	t_in_child("destroy while another thread holds a record",
		   destroy_with_record_in_flight);
	t_in_child("an event acked after its channel was destroyed",
		   ack_after_channel_destroyed);
	return t_exit();
}
