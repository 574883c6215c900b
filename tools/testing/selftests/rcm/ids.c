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

#include "rcm_test.h"

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

RCM_TEST(create_then_destroy)
{
	uint32_t id, reported = 99;
	int fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK(create_id(fd, RCM_PS_TCP, RCM_QPT_RC, 42, &id) == 0,
	      "create: %s", strerror(errno));
	CHECK(id != 0, "handle 0 returned");
	CHECK(destroy_id(fd, id, &reported) == 0, "destroy: %s",
	      strerror(errno));
	CHECK(reported == 0, "%u events reported for a fresh id", reported);
	CHECK_ERRNO(destroy_id(fd, id, NULL), ENOENT);
	close(fd);
}

RCM_TEST(every_port_space_takes_its_qp_types)
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

	CHECK(fd >= 0, "open: %s", strerror(errno));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = create_id(fd, cases[i].ps, cases[i].qpt, i, &id);

		if (cases[i].ok) {
			CHECK(ret == 0, "ps %#x qpt %u: %s", cases[i].ps,
			      cases[i].qpt, strerror(errno));
			CHECK(destroy_id(fd, id, NULL) == 0, "destroy");
		} else {
			CHECK(ret == -1 && errno == EINVAL,
			      "ps %#x qpt %u: ret %d errno %d, want EINVAL",
			      cases[i].ps, cases[i].qpt, ret, errno);
		}
	}
	close(fd);
}

RCM_TEST(reserved_member_must_be_zero)
{
	struct rcm_create_id c = {
		.size = sizeof(c), .port_space = RCM_PS_TCP,
		.qp_type = RCM_QPT_RC, .reserved = 1,
	};
	int fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_CREATE_ID, &c), EINVAL);
	close(fd);
}

RCM_TEST(handles_are_unique)
{
	uint32_t ids[256];
	int i, j, fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	for (i = 0; i < 256; i++)
		CHECK(create_id(fd, RCM_PS_UDP, RCM_QPT_UD, i, &ids[i]) == 0,
		      "create #%d: %s", i, strerror(errno));
	for (i = 0; i < 256; i++)
		for (j = i + 1; j < 256; j++)
			CHECK(ids[i] != ids[j], "handle %u twice", ids[i]);
	close(fd);	/* destroys all 256 */
}

RCM_TEST(unknown_handles_are_enoent)
{
	int fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK_ERRNO(destroy_id(fd, 0, NULL), ENOENT);
	CHECK_ERRNO(destroy_id(fd, 1, NULL), ENOENT);
	CHECK_ERRNO(destroy_id(fd, UINT32_MAX, NULL), ENOENT);
	close(fd);
}

RCM_TEST(handles_of_another_file_are_enoent)
{
	int a = rcm_open_dev(), b = rcm_open_dev();
	uint32_t id;

	CHECK(a >= 0 && b >= 0, "open: %s", strerror(errno));
	CHECK(create_id(a, RCM_PS_TCP, RCM_QPT_RC, 1, &id) == 0, "create");
	CHECK_ERRNO(destroy_id(b, id, NULL), ENOENT);
	CHECK(destroy_id(a, id, NULL) == 0, "the owner cannot destroy: %s",
	      strerror(errno));
	close(a);
	close(b);
}

RCM_TEST(file_holds_at_most_max_ids_per_file)
{
	static const char param[] = "/sys/module/rcm/parameters/max_ids_per_file";
	long limit = rcm_read_long(param);
	int i, fd, other, full_errno, other_ok, refill_ok;
	unsigned int id;

	CHECK(limit >= 0, "read %s: %s", param, strerror(errno));
	CHECK(limit == RCM_MAX_IDS, "default limit %ld, want %u", limit,
	      RCM_MAX_IDS);
	if (geteuid() != 0)
		SKIP("needs root to lower the limit");

	/* Creating 65536 ids is slow under KASAN: prove the rule on 500. */
	CHECK(rcm_write_long(param, 500) == 0, "set limit: %s", strerror(errno));
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
	CHECK(rcm_write_long(param, limit) == 0, "restore limit");

	CHECK(i == 500, "only %d ids fit under a limit of 500", i);
	CHECK(full_errno == EMFILE, "id 501: errno %d, want EMFILE",
	      full_errno);
	CHECK(other_ok, "another file was refused");
	CHECK(refill_ok, "no room after a destroy");
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

RCM_TEST(concurrent_create_and_destroy_on_one_file)
{
	struct racer r[3];
	pthread_t t[3];
	int i, fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	for (i = 0; i < 3; i++) {
		r[i].fd = fd;
		r[i].failures = 0;
		CHECK(pthread_create(&t[i], NULL, i == 2 ? destroy_guesses_loop :
				     create_destroy_loop, &r[i]) == 0,
		      "pthread_create");
	}
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	close(fd);
	/* A guessing thread may destroy a racer's id first: bounded. */
	CHECK(r[0].failures + r[1].failures < 4000, "every create failed");
}

int main(void)
{
	return rcm_test_run();
}
