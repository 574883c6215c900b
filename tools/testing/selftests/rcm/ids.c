// SPDX-License-Identifier: GPL-2.0-only
/*
 * ids: communication ids are created and destroyed with the documented
 * checks, their handles belong to one open file, and closing a file
 * destroys whatever ids it still holds.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

static int create_id(int fd, uint16_t ps, uint8_t qp_type, uint64_t ctx,
		     uint32_t *out)
{
	struct rcm_create_id c = {
		.size = sizeof(c), .context = ctx,
		.port_space = ps, .qp_type = qp_type,
	};
	int ret = ioctl(fd, RCM_IOCTL_CREATE_ID, &c);

	if (!ret)
		*out = c.out_id;
	return ret;
}

static int destroy_id(int fd, uint32_t id, uint32_t *reported)
{
	struct rcm_destroy_id d = { .size = sizeof(d), .id = id };
	int ret = ioctl(fd, RCM_IOCTL_DESTROY_ID, &d);

	if (!ret && reported)
		*reported = d.out_events_reported;
	return ret;
}

TEST(create_then_destroy)
{
	uint32_t id, reported = 99;
	int fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, create_id(fd, RCM_PS_TCP, RCM_QPT_RC, 42, &id))
		TH_LOG("create: %s", strerror(errno));
	ASSERT_NE(0, id)
		TH_LOG("handle 0 returned");
	ASSERT_EQ(0, destroy_id(fd, id, &reported))
		TH_LOG("destroy: %s", strerror(errno));
	ASSERT_EQ(0, reported)
		TH_LOG("%u events reported for a fresh id", reported);
	ASSERT_ERRNO(destroy_id(fd, id, NULL), ENOENT);
	close(fd);
}

TEST(every_port_space_takes_its_qp_types)
{
	/*
	 * As the in-tree ucma_get_qp_type(): TCP ids are RC and UDP/IPoIB
	 * ids UD whatever is asked, IB ids take RC, UC, UD and XRC.
	 */
	static const struct { uint16_t ps; uint8_t qpt; int ok; } cases[] = {
		{ RCM_PS_TCP, RCM_QPT_RC, 1 }, { RCM_PS_TCP, RCM_QPT_UD, 1 },
		{ RCM_PS_TCP, RCM_QPT_UC, 1 },
		{ RCM_PS_UDP, RCM_QPT_UD, 1 }, { RCM_PS_UDP, RCM_QPT_RC, 1 },
		{ RCM_PS_IPOIB, RCM_QPT_UD, 1 }, { RCM_PS_IPOIB, RCM_QPT_RC, 1 },
		{ RCM_PS_IB, RCM_QPT_RC, 1 }, { RCM_PS_IB, RCM_QPT_UD, 1 },
		{ RCM_PS_IB, RCM_QPT_UC, 1 }, { RCM_PS_IB, RCM_QPT_XRC_SEND, 1 },
		{ RCM_PS_IB, RCM_QPT_XRC_RECV, 1 }, { RCM_PS_IB, 0, 0 },
		{ RCM_PS_IB, 8, 0 }, { 0, RCM_QPT_RC, 0 },
		{ 0x0107, RCM_QPT_RC, 0 }, { 0xffff, RCM_QPT_UD, 0 },
	};
	unsigned int i;
	uint32_t id;
	int fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = create_id(fd, cases[i].ps, cases[i].qpt, i, &id);

		if (cases[i].ok) {
			ASSERT_EQ(0, ret)
				TH_LOG("ps %#x qpt %u: %s", cases[i].ps,
				       cases[i].qpt, strerror(errno));
			ASSERT_EQ(0, destroy_id(fd, id, NULL))
				TH_LOG("destroy");
		} else {
			ASSERT_TRUE(ret == -1 && errno == EINVAL)
				TH_LOG("ps %#x qpt %u: ret %d errno %d, want EINVAL",
				       cases[i].ps, cases[i].qpt, ret, errno);
		}
	}
	close(fd);
}

TEST(reserved_member_must_be_zero)
{
	struct rcm_create_id c = {
		.size = sizeof(c), .port_space = RCM_PS_TCP,
		.qp_type = RCM_QPT_RC, .reserved = 1,
	};
	int fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_ERRNO(ioctl(fd, RCM_IOCTL_CREATE_ID, &c), EINVAL);
	close(fd);
}

TEST(handles_are_unique)
{
	uint32_t ids[256];
	int i, j, fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	for (i = 0; i < 256; i++) {
		ASSERT_EQ(0, create_id(fd, RCM_PS_UDP, RCM_QPT_UD, i, &ids[i]))
			TH_LOG("create #%d: %s", i, strerror(errno));
	}
	for (i = 0; i < 256; i++)
		for (j = i + 1; j < 256; j++) {
			ASSERT_NE(ids[i], ids[j])
				TH_LOG("handle %u twice", ids[i]);
		}
	close(fd);	/* destroys all 256 */
}

TEST(unknown_handles_are_enoent)
{
	int fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_ERRNO(destroy_id(fd, 0, NULL), ENOENT);
	ASSERT_ERRNO(destroy_id(fd, 1, NULL), ENOENT);
	ASSERT_ERRNO(destroy_id(fd, UINT32_MAX, NULL), ENOENT);
	close(fd);
}

TEST(handles_of_another_file_are_enoent)
{
	int a = rcm_open_dev(), b = rcm_open_dev();
	uint32_t id;

	ASSERT_TRUE(a >= 0 && b >= 0)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, create_id(a, RCM_PS_TCP, RCM_QPT_RC, 1, &id))
		TH_LOG("create");
	ASSERT_ERRNO(destroy_id(b, id, NULL), ENOENT);
	ASSERT_EQ(0, destroy_id(a, id, NULL))
		TH_LOG("the owner cannot destroy: %s", strerror(errno));
	close(a);
	close(b);
}

TEST(file_holds_at_most_max_ids_per_file)
{
	static const char param[] = "/sys/module/rcm/parameters/max_ids_per_file";
	long limit = rcm_read_long(param);
	int i, fd, other, full_errno, other_ok, refill_ok;
	unsigned int id;

	ASSERT_LE(0, limit)
		TH_LOG("read %s: %s", param, strerror(errno));
	ASSERT_EQ(RCM_MAX_IDS, limit)
		TH_LOG("default limit %ld, want %u", limit, RCM_MAX_IDS);
	if (geteuid() != 0)
		SKIP(return, "needs root to lower the limit");

	/* Creating 65536 ids is slow under KASAN: prove the rule on 500. */
	ASSERT_EQ(0, rcm_write_long(param, 500))
		TH_LOG("set limit: %s", strerror(errno));
	fd = rcm_open_dev();
	other = rcm_open_dev();
	for (i = 0; i < 500; i++)
		if (!rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i))
			break;
	full_errno = create_id(fd, RCM_PS_TCP, RCM_QPT_RC, 0, &id) ? errno : 0;
	/* The limit is per file; one destroyed makes room for one more. */
	other_ok = rcm_create(other, RCM_PS_TCP, RCM_QPT_RC, 0) != 0;
	refill_ok = destroy_id(fd, 500, NULL) == 0 &&
		    create_id(fd, RCM_PS_TCP, RCM_QPT_RC, 0, &id) == 0;
	close(fd);
	close(other);
	ASSERT_EQ(0, rcm_write_long(param, limit))
		TH_LOG("restore limit");

	ASSERT_EQ(500, i)
		TH_LOG("only %d ids fit under a limit of 500", i);
	ASSERT_EQ(EMFILE, full_errno)
		TH_LOG("id 501: errno %d, want EMFILE", full_errno);
	ASSERT_TRUE(other_ok)
		TH_LOG("another file was refused");
	ASSERT_TRUE(refill_ok)
		TH_LOG("no room after a destroy");
}

struct racer {
	int fd;
	int failures;
};

static void *create_destroy_loop(void *arg)
{
	struct racer *r = arg;
	uint32_t id;
	int i;

	for (i = 0; i < 2000; i++) {
		if (create_id(r->fd, RCM_PS_TCP, RCM_QPT_RC, i, &id) ||
		    destroy_id(r->fd, id, NULL))
			r->failures++;
	}
	return NULL;
}

static void *destroy_guesses_loop(void *arg)
{
	struct racer *r = arg;
	uint32_t h;

	/* Destroying handles the other threads own must be harmless. */
	for (h = 0; h < 20000; h++)
		destroy_id(r->fd, 1 + h % 64, NULL);
	return NULL;
}

TEST(concurrent_create_and_destroy_on_one_file)
{
	struct racer r[3];
	pthread_t t[3];
	int i, fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	for (i = 0; i < 3; i++) {
		r[i].fd = fd;
		r[i].failures = 0;
		ASSERT_EQ(0, pthread_create(&t[i], NULL,
					    i == 2 ? destroy_guesses_loop : create_destroy_loop, &r[i]))
			TH_LOG("pthread_create");
	}
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	close(fd);
	/* A guessing thread may destroy a racer's id first: bounded. */
	ASSERT_GT(4000, r[0].failures + r[1].failures)
		TH_LOG("every create failed");
}

RCM_TEST_MAIN
