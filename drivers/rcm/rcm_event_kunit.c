// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite of rcm_event.c: the queue.
 *
 * Built into rcm.ko when the kernel has KUnit (RCM_KUNIT); the suite
 * runs when the module loads and reports KTAP on the kernel log.
 */
#include "rcm_kunit.h"
#include "rcm_priv.h"

struct rcm_event_fixture {
	struct rcm_file file, file2;
	struct rcm_id a, b;
};

static void rcm_event_test_file(struct rcm_file *file)
{
	spin_lock_init(&file->event_lock);
	INIT_LIST_HEAD(&file->events);
	mutex_init(&file->read_mutex);
	init_waitqueue_head(&file->poll_wait);
}

static int rcm_event_test_init(struct kunit *test)
{
	struct rcm_event_fixture *f = kunit_kzalloc(test, sizeof(*f),
						    GFP_KERNEL);

	/* The suites run before the module's init: the cache, once. */
	if (!f || rcm_event_init())
		return -ENOMEM;
	rcm_event_test_file(&f->file);
	rcm_event_test_file(&f->file2);
	mutex_init(&f->a.lock);
	mutex_init(&f->b.lock);
	f->a.file = &f->file;
	f->a.handle = 1;
	f->a.context = 0xa;
	f->b.file = &f->file;
	f->b.handle = 2;
	f->b.context = 0xb;
	test->priv = f;
	return 0;
}

static void rcm_event_test_exit(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;

	/* Whatever a case left queued belongs to a or b. */
	rcm_event_purge(&f->file, &f->a);
	rcm_event_purge(&f->file, &f->b);
	rcm_event_purge(&f->file2, &f->a);
}

/* Queues @ev on its id's file as the module does: under the id's lock. */
static void rcm_event_test_queue(struct rcm_id *id, struct rcm_uevent *ev)
{
	mutex_lock(&id->lock);
	rcm_event_queue(id->file, ev);
	mutex_unlock(&id->lock);
}

static void rcm_event_queue_one(struct kunit *test, struct rcm_id *id, u32 type)
{
	struct rcm_uevent *ev = rcm_event_alloc(id, type, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ev);
	rcm_event_test_queue(id, ev);
}

static unsigned int rcm_event_count(struct rcm_file *file)
{
	struct rcm_uevent *ev;
	unsigned int n = 0;

	list_for_each_entry(ev, &file->events, list)
		n++;
	return n;
}

static void rcm_event_takes_handle_and_context_when_queued(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;

	ev = rcm_event_alloc(&f->a, RCM_EVENT_DEVICE_REMOVAL, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	/* Allocated early; the id changes before it is queued. */
	f->a.handle = 7;
	f->a.context = 0x77;
	rcm_event_test_queue(&f->a, ev);
	KUNIT_EXPECT_EQ(test, ev->ev.id, 7U);
	KUNIT_EXPECT_EQ(test, ev->ev.context, 0x77ULL);
}

static void rcm_event_connect_request_keeps_listener_context(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;

	ev = rcm_event_alloc(&f->b, RCM_EVENT_CONNECT_REQUEST, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->ev.context = 0xa;		/* the listener's */
	ev->ev.listen_id = f->a.handle;
	ev->listener = &f->a;
	rcm_event_test_queue(&f->b, ev);
	KUNIT_EXPECT_EQ(test, ev->ev.id, f->b.handle);
	KUNIT_EXPECT_EQ(test, ev->ev.context, 0xaULL);
}

static void rcm_event_purge_takes_only_its_id(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;
	u32 want[] = { RCM_EVENT_ADDR_RESOLVED, RCM_EVENT_ESTABLISHED };
	unsigned int i = 0;

	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_RESOLVED);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_ROUTE_RESOLVED);
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ESTABLISHED);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 4U);

	rcm_event_purge(&f->file, &f->b);
	KUNIT_ASSERT_EQ(test, rcm_event_count(&f->file), 2U);
	/* What is left is a's, in the order it happened. */
	list_for_each_entry(ev, &f->file.events, list) {
		KUNIT_EXPECT_PTR_EQ(test, ev->id, &f->a);
		KUNIT_EXPECT_EQ(test, ev->ev.event, want[i++]);
	}
}

static void rcm_event_move_takes_only_its_id_in_order(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_uevent *ev;
	u32 want[] = { RCM_EVENT_ROUTE_RESOLVED, RCM_EVENT_ADDR_RESOLVED,
		       RCM_EVENT_ESTABLISHED };
	unsigned int i = 0;

	f->b.file = &f->file2;
	rcm_event_queue_one(test, &f->b, RCM_EVENT_ROUTE_RESOLVED);
	f->b.file = &f->file;
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_RESOLVED);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_DISCONNECTED);
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ESTABLISHED);

	rcm_event_readers_lock(&f->file, &f->file2);
	mutex_lock(&f->a.lock);
	KUNIT_EXPECT_EQ(test, rcm_event_can_move(&f->file, &f->a), 0);
	rcm_event_move(&f->file, &f->file2, &f->a, 9);
	mutex_unlock(&f->a.lock);
	rcm_event_readers_unlock(&f->file, &f->file2);

	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 1U);
	KUNIT_ASSERT_EQ(test, rcm_event_count(&f->file2), 3U);
	/* Behind what was there, in their order, with the new handle. */
	list_for_each_entry(ev, &f->file2.events, list) {
		KUNIT_EXPECT_EQ(test, ev->ev.event, want[i]);
		if (i++)
			KUNIT_EXPECT_EQ(test, ev->ev.id, 9U);
	}
	rcm_event_purge(&f->file2, &f->b);
}

static u32 rcm_event_test_pending(struct rcm_id *id)
{
	u32 n;

	mutex_lock(&id->lock);
	n = rcm_event_pending(id);
	mutex_unlock(&id->lock);
	return n;
}

/* The per-id count the listing prints follows queue, purge and move. */
static void rcm_event_pending_counts_per_id(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;

	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_RESOLVED);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_ROUTE_RESOLVED);
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, rcm_event_test_pending(&f->a), 2U);
	KUNIT_EXPECT_EQ(test, rcm_event_test_pending(&f->b), 1U);

	rcm_event_readers_lock(&f->file, &f->file2);
	mutex_lock(&f->a.lock);
	rcm_event_move(&f->file, &f->file2, &f->a, 9);
	mutex_unlock(&f->a.lock);
	rcm_event_readers_unlock(&f->file, &f->file2);
	f->a.file = &f->file2;
	KUNIT_EXPECT_EQ(test, rcm_event_test_pending(&f->a), 2U);

	rcm_event_purge(&f->file, &f->b);
	KUNIT_EXPECT_EQ(test, rcm_event_test_pending(&f->b), 0U);
	rcm_event_purge(&f->file2, &f->a);
	KUNIT_EXPECT_EQ(test, rcm_event_test_pending(&f->a), 0U);
}

/*
 * A listener with an unread request may move (the request goes along);
 * the request id itself, whose CONNECT_REQUEST is the listener's record,
 * may not.
 */
static void rcm_event_unread_request_goes_with_its_listener(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_id *reqs[2] = { NULL, NULL };
	struct rcm_uevent *ev;

	/* b is a's request: its CONNECT_REQUEST names a as listener. */
	refcount_set(&f->b.ref, 1);	/* its file's, for the lookup's get */
	ev = rcm_event_alloc(&f->b, RCM_EVENT_CONNECT_REQUEST, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->ev.listen_id = f->a.handle;
	ev->listener = &f->a;
	rcm_event_test_queue(&f->b, ev);
	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_CHANGE);

	rcm_event_readers_lock(&f->file, &f->file2);
	mutex_lock(&f->a.lock);
	KUNIT_EXPECT_EQ(test, rcm_event_can_move(&f->file, &f->a), 0);
	KUNIT_EXPECT_EQ(test, rcm_event_requests_of(&f->file, &f->a, NULL, 0),
			1U);
	KUNIT_EXPECT_EQ(test, rcm_event_requests_of(&f->file, &f->a, reqs, 2),
			1U);
	KUNIT_EXPECT_PTR_EQ(test, reqs[0], &f->b);
	KUNIT_EXPECT_PTR_EQ(test, reqs[1], NULL);
	rcm_id_put(reqs[0]);
	/* The listener, then its request: the record names a's new handle. */
	f->a.handle = 7;
	rcm_event_move(&f->file, &f->file2, &f->a, 7);
	/* The request under its own lock, nested in its listener's. */
	mutex_lock_nested(&f->b.lock, SINGLE_DEPTH_NESTING);
	rcm_event_move(&f->file, &f->file2, &f->b, 8);
	mutex_unlock(&f->b.lock);
	mutex_unlock(&f->a.lock);
	mutex_lock(&f->b.lock);
	KUNIT_EXPECT_EQ(test, rcm_event_can_move(&f->file2, &f->b), -EBUSY);
	mutex_unlock(&f->b.lock);
	rcm_event_readers_unlock(&f->file, &f->file2);

	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 0U);
	KUNIT_ASSERT_EQ(test, rcm_event_count(&f->file2), 2U);
	ev = list_last_entry(&f->file2.events, struct rcm_uevent, list);
	KUNIT_EXPECT_EQ(test, ev->ev.event, (u32)RCM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, ev->ev.id, 8U);
	KUNIT_EXPECT_EQ(test, ev->ev.listen_id, 7U);
	rcm_event_purge(&f->file2, &f->a);
	rcm_event_purge(&f->file2, &f->b);
}

static struct rcm_uevent *rcm_event_queue_group(struct kunit *test,
						struct rcm_id *id,
						struct rcm_mcast *mc)
{
	struct rcm_uevent *ev;

	ev = rcm_event_alloc(id, RCM_EVENT_MULTICAST_JOIN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->mc = mc;
	rcm_event_test_queue(id, ev);
	return ev;
}

static void rcm_event_group_event_takes_group_context(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_mcast mc = { .id = &f->a, .context = 0x6c };
	struct rcm_uevent *ev = rcm_event_queue_group(test, &f->a, &mc);

	KUNIT_EXPECT_EQ(test, ev->ev.id, f->a.handle);
	KUNIT_EXPECT_EQ(test, ev->ev.context, 0x6cULL);
}

static void rcm_event_purge_mcast_takes_only_its_group(struct kunit *test)
{
	struct rcm_event_fixture *f = test->priv;
	struct rcm_mcast mc1 = { .id = &f->a, .context = 1 };
	struct rcm_mcast mc2 = { .id = &f->a, .context = 2 };
	struct rcm_uevent *ev;
	u64 want[] = { 0xa, 2, 0xb };
	unsigned int i = 0;

	rcm_event_queue_one(test, &f->a, RCM_EVENT_ADDR_RESOLVED);
	rcm_event_queue_group(test, &f->a, &mc1);
	rcm_event_queue_group(test, &f->a, &mc2);
	rcm_event_queue_group(test, &f->a, &mc1);
	rcm_event_queue_one(test, &f->b, RCM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 5U);

	rcm_event_purge_mcast(&f->file, &mc1);
	KUNIT_ASSERT_EQ(test, rcm_event_count(&f->file), 3U);
	/* The id's own event, the other group's and b's stay, in order. */
	list_for_each_entry(ev, &f->file.events, list) {
		KUNIT_EXPECT_PTR_NE(test, ev->mc, &mc1);
		KUNIT_EXPECT_EQ(test, ev->ev.context, want[i]);
		i++;
	}
	/* The id's purge (its destroy) takes the groups' events too. */
	rcm_event_purge(&f->file, &f->a);
	KUNIT_EXPECT_EQ(test, rcm_event_count(&f->file), 1U);
}

RCM_KUNIT_SUITE_FIXTURE(rcm_event, rcm_event_test_init, rcm_event_test_exit,
			KUNIT_CASE(rcm_event_group_event_takes_group_context),
			KUNIT_CASE(rcm_event_purge_mcast_takes_only_its_group),
			KUNIT_CASE(rcm_event_takes_handle_and_context_when_queued),
			KUNIT_CASE(rcm_event_connect_request_keeps_listener_context),
			KUNIT_CASE(rcm_event_purge_takes_only_its_id),
			KUNIT_CASE(rcm_event_pending_counts_per_id),
			KUNIT_CASE(rcm_event_move_takes_only_its_id_in_order),
			KUNIT_CASE(rcm_event_unread_request_goes_with_its_listener));
