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
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

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

/*
 * Another thread read a's record and has not looked at it yet when a is
 * destroyed: the kernel counts it as reported, so the destroy waits for
 * that thread, which drops it and hands out the next record instead.
 */
static void destroy_with_record_in_flight(void)
{
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *a, *b;
	struct cm_destroyer d;
	struct cm_getter g;
	uint32_t ha, hb;

	if (!open_channel())
		return;
	a = new_id(RDMA_PS_TCP, &ha);
	b = new_id(RDMA_PS_TCP, &hb);
	script_push(ch->fd, ha, RCM_EVENT_ESTABLISHED, 0);
	script_push(ch->fd, hb, RCM_EVENT_ESTABLISHED, 0);

	script_hold_next_read();
	cm_start_get(&g, ch);
	T_CHECK(script_wait_held(2000));
	T_CHECK(seam_queued(ch->fd) == 1);

	cm_start_destroy(&d, a);
	T_CHECK(!cm_join_within(d.thread, 300));	/* waits for the reader */
	T_CHECK(SEAM_LAST(rcm_destroy_id,
			  RCM_CMD_DESTROY_ID)->out_events_reported == 1);
	script_release_read();
	T_CHECK(cm_join_within(d.thread, 2000));
	T_CHECK(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST) && d.ret == 0);
	T_CHECK(cm_join_within(g.thread, 2000));
	ev = g.ev;
	T_CHECK(ev && ev->id == b && ev->event == RDMA_CM_EVENT_ESTABLISHED);
	if (ev)
		rdma_ack_cm_event(ev);
	cm_expect_none(ch);
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

CM_MAIN(rdma_get_cm_event,
	{ "ADDR_RESOLVED on an unknown device", addr_resolved_unknown_device },
	{ "destroy while another thread holds a record",
	  destroy_with_record_in_flight },
	{ "an event acked after its channel was destroyed",
	  ack_after_channel_destroyed })
