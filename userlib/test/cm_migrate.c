// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_migrate: what rdma_migrate_id() does where only the seam can stage
 * the moment or the failure (the rest runs against rcm.ko in a
 * guest: guest/cm_migrate.c, and cm_connect's case 4).
 *
 * - a record of the id that another thread read from the old file and
 *   had not looked at when the kernel moved the id is handed out there
 *   (as in librdmacm), and the call waits for that thread and the ack;
 * - errors: NULL id and another synchronous id's private channel
 *   (EINVAL, no ioctl), the id's own channel (a no-op without an
 *   ioctl), kernel errors (injected ENOENT, ENOMEM, EMFILE) that leave
 *   the id where it was (a private channel opened for it is closed
 *   again).
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs' devices are faked (fake_verbs.c). Waits are bounded: a
 * hang fails the check.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

static struct rdma_event_channel *channel(void)
{
	struct rdma_event_channel *c = rdma_create_event_channel();

	T_CHECK(c != NULL);
	return c;
}

static struct rdma_cm_id *new_id(struct rdma_event_channel *c,
				 uint32_t *handle)
{
	struct rdma_cm_id *id = NULL;

	T_CHECK(rdma_create_id(c, &id, NULL, RDMA_PS_TCP) == 0);
	if (handle)
		*handle = SEAM_LAST_HANDLE();
	return id;
}

/* The next event of c must be type for id (any if NULL); acked unless kept. */
static struct rdma_cm_event *expect(struct rdma_event_channel *c,
				    enum rdma_cm_event_type type,
				    struct rdma_cm_id *id, bool keep)
{
	struct rdma_cm_event *ev = NULL;

	T_CHECK(rdma_get_cm_event(c, &ev) == 0);
	if (!ev)
		return NULL;
	if (ev->event != type || (id && ev->id != id)) {
		fprintf(stderr, "  wanted %s, got %s%s\n",
			rdma_event_str(type), rdma_event_str(ev->event),
			ev->id != id ? " of another id" : "");
		t_failures++;
	}
	if (keep)
		return ev;
	rdma_ack_cm_event(ev);
	return NULL;
}

struct migrator {
	struct rdma_cm_id *id;
	struct rdma_event_channel *to;
	pthread_t thread;
	int ret;
	int err;
};

static void *migrate_thread(void *arg)
{
	struct migrator *m = arg;

	m->ret = rdma_migrate_id(m->id, m->to);
	m->err = errno;
	return NULL;
}

static void start_migrate(struct migrator *m, struct rdma_cm_id *id,
			  struct rdma_event_channel *to)
{
	m->id = id;
	m->to = to;
	m->ret = -2;
	m->err = 0;
	T_CHECK(pthread_create(&m->thread, NULL, migrate_thread, m) == 0);
}

static void in_flight_record(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct cm_getter g;
	struct rdma_cm_id *a, *b;
	struct migrator m;
	uint32_t ha, hb;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	a = new_id(a_ch, &ha);
	b = new_id(a_ch, &hb);
	script_push(a_ch->fd, ha, RCM_EVENT_UNREACHABLE, -ETIMEDOUT);
	script_push(a_ch->fd, hb, RCM_EVENT_ESTABLISHED, 0);
	script_push(a_ch->fd, ha, RCM_EVENT_TIMEWAIT_EXIT, 0);

	script_hold_next_read();
	cm_start_get(&g, a_ch);
	T_CHECK(script_wait_held(2000));
	T_CHECK(seam_queued(a_ch->fd) == 2);	/* one read */

	start_migrate(&m, a, b_ch);
	T_CHECK(!cm_join_within(m.thread, 300));	/* waits for the reader */
	T_CHECK(SEAM_CALLS(RCM_CMD_MIGRATE_ID) == 1);
	T_CHECK(SEAM_LAST(rcm_migrate_id,
			  RCM_CMD_MIGRATE_ID)->out_events_reported == 1);
	T_CHECK(seam_queued(b_ch->fd) == 1);	/* TIMEWAIT_EXIT */

	script_release_read();
	T_CHECK(cm_join_within(g.thread, 2000));
	T_CHECK(g.ev && g.ev->id == a &&
		g.ev->event == RDMA_CM_EVENT_UNREACHABLE);
	T_CHECK(!cm_join_within(m.thread, 300));	/* and for its ack */
	T_CHECK(a->channel == b_ch);
	if (g.ev)
		rdma_ack_cm_event(g.ev);
	T_CHECK(cm_join_within(m.thread, 2000));
	T_CHECK(m.ret == 0);

	cm_set_nonblock(a_ch->fd);
	cm_set_nonblock(b_ch->fd);
	expect(a_ch, RDMA_CM_EVENT_ESTABLISHED, b, false);
	expect(b_ch, RDMA_CM_EVENT_TIMEWAIT_EXIT, a, false);
	cm_expect_none(b_ch);
	cm_expect_none(a_ch);
	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

static void errors(void)
{
	struct rdma_event_channel *a_ch, *b_ch;
	struct rdma_cm_id *a, *s;
	int fd_before;
	uint32_t ha;

	a_ch = channel();
	b_ch = channel();
	if (!a_ch || !b_ch)
		return;
	a = new_id(a_ch, &ha);
	s = new_id(NULL, NULL);
	if (!a || !s)
		return;

	errno = 0;
	T_CHECK(rdma_migrate_id(NULL, b_ch) == -1 && errno == EINVAL);
	T_CHECK(rdma_migrate_id(a, a_ch) == 0);	/* its own: no-op */
	T_CHECK(rdma_migrate_id(s, s->channel) == 0);
	T_CHECK(s->channel != a_ch);		/* still synchronous */
	errno = 0;	/* another id's private channel */
	T_CHECK(rdma_migrate_id(a, s->channel) == -1 && errno == EINVAL);
	T_CHECK(a->channel == a_ch);
	T_CHECK(SEAM_CALLS(RCM_CMD_MIGRATE_ID) == 0);
	T_CHECK(rdma_destroy_id(s) == 0);

	seam_fail_next(RCM_CMD_MIGRATE_ID, ENOENT);
	errno = 0;
	T_CHECK(rdma_migrate_id(a, b_ch) == -1 && errno == ENOENT);
	T_CHECK(a->channel == a_ch);

	fd_before = t_lowest_free_fd();
	seam_fail_next(RCM_CMD_MIGRATE_ID, ENOMEM);
	errno = 0;
	T_CHECK(rdma_migrate_id(a, NULL) == -1 && errno == ENOMEM);
	T_CHECK(a->channel == a_ch);
	T_CHECK(t_lowest_free_fd() == fd_before);

	/* Still on a_ch under its old handle. */
	script_push(a_ch->fd, ha, RCM_EVENT_UNREACHABLE, -ETIMEDOUT);
	expect(a_ch, RDMA_CM_EVENT_UNREACHABLE, a, false);

	/* A full destination: the kernel's EMFILE. */
	seam_fail_next(RCM_CMD_MIGRATE_ID, EMFILE);
	errno = 0;
	T_CHECK(rdma_migrate_id(a, b_ch) == -1 && errno == EMFILE);
	T_CHECK(a->channel == a_ch);

	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(SEAM_LAST(rcm_destroy_id, RCM_CMD_DESTROY_ID)->id == ha);
	rdma_destroy_event_channel(a_ch);
	rdma_destroy_event_channel(b_ch);
}

CM_MAIN(rdma_migrate_id,
	{ "a record a reader holds is waited for", in_flight_record },
	{ "errors", errors })
