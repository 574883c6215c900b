// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioctl_errors: every malformed ioctl gets the errno the uapi header's
 * table documents, and nothing else (the guest harness separately fails
 * the run on any kernel splat these calls might cause).
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

static int fd = -1;

static int dev(void)
{
	if (fd < 0)
		fd = rcm_open_dev();
	return fd;
}

#define NEED_DEV()							\
	do {								\
		if (dev() < 0) {					\
			rcm_fail(__FILE__, __LINE__, "open %s: %s",	\
				 RCM_DEV, strerror(errno));		\
			return;						\
		}							\
	} while (0)

RCM_TEST(unknown_command_is_enotty)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE + 0x7f), &q),
		    ENOTTY);
	CHECK_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE - 1), &q),
		    ENOTTY);
	CHECK_ERRNO(ioctl(fd, _IO(RCM_IOCTL_MAGIC, 0), &q), ENOTTY);
}

RCM_TEST(foreign_magic_is_enotty)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, _IO(0x1b, RCM_CMD_QUERY), &q), ENOTTY);
	/* The right number encoded with a direction and size is not ours. */
	CHECK_ERRNO(ioctl(fd, _IOWR(RCM_IOCTL_MAGIC, RCM_CMD_QUERY,
				    struct rcm_query), &q), ENOTTY);
}

RCM_TEST(size_below_minimum_is_einval)
{
	struct rcm_query q = { .size = 0 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
	q.size = sizeof(q) - 1;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
	q.size = 8;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EINVAL);
}

RCM_TEST(size_above_page_is_e2big)
{
	struct rcm_query q = { .size = 4097 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), E2BIG);
	q.size = UINT32_MAX;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), E2BIG);
}

RCM_TEST(larger_struct_with_zero_tail_is_accepted)
{
	struct {
		struct rcm_query q;
		uint64_t future[4];
	} big = { .q.size = sizeof(big) };

	NEED_DEV();
	CHECK(ioctl(fd, RCM_IOCTL_QUERY, &big) == 0, "query: %s",
	      strerror(errno));
	CHECK(big.q.out_abi_version == RCM_ABI_VERSION, "abi %u",
	      big.q.out_abi_version);
	CHECK(big.future[0] == 0 && big.future[3] == 0,
	      "kernel wrote past its struct");
}

RCM_TEST(larger_struct_with_nonzero_tail_is_e2big)
{
	struct {
		struct rcm_query q;
		uint64_t future[4];
	} big = { .q.size = sizeof(big), .future[3] = 1 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &big), E2BIG);
}

RCM_TEST(unknown_flags_are_eopnotsupp)
{
	struct rcm_query q = { .size = sizeof(q), .flags = 1 };

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EOPNOTSUPP);
	q.flags = 0x80000000u;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, &q), EOPNOTSUPP);
}

RCM_TEST(bad_pointers_are_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	struct rcm_query *q;
	char *map;

	NEED_DEV();
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, NULL), EFAULT);
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, (void *)8), EFAULT);
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, (void *)-4096L), EFAULT);

	/* Header readable, the rest of the struct on an unmapped page. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(munmap(map + page, page) == 0, "munmap");
	q = (struct rcm_query *)(map + page - 8);
	q->size = sizeof(*q);
	q->flags = 0;
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, q), EFAULT);

	/* A read-only struct: the output cannot be written back. */
	q = (struct rcm_query *)map;
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	CHECK(mprotect(map, page, PROT_READ) == 0, "mprotect");
	CHECK_ERRNO(ioctl(fd, RCM_IOCTL_QUERY, q), EFAULT);
	munmap(map, page);
}

RCM_TEST(failed_calls_leave_the_file_usable)
{
	struct rcm_query q = { .size = sizeof(q) };

	NEED_DEV();
	CHECK(ioctl(fd, RCM_IOCTL_QUERY, &q) == 0, "query: %s",
	      strerror(errno));
	CHECK(q.out_abi_version == RCM_ABI_VERSION, "abi %u",
	      q.out_abi_version);
}

RCM_TEST(write_and_seek_are_refused)
{
	char buf[8];

	NEED_DEV();
	CHECK_ERRNO(write(fd, buf, sizeof(buf)), EINVAL);
	CHECK(lseek(fd, 0, SEEK_SET) == -1 && errno == ESPIPE,
	      "lseek did not fail with ESPIPE");
}

int main(void)
{
	int ret = rcm_test_run();

	if (fd >= 0)
		close(fd);
	return ret;
}
