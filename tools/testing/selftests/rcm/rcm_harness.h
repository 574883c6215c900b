/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one header of an rcm selftest program: the kernel's own harness,
 * tools/testing/selftests/kselftest_harness.h of linux-source-6.1, with
 * what rcm adds to it (rcm_ksft.h), and the helpers of rcm_test.h.
 *
 * A program declares its cases with TEST(), or TEST_F() on a FIXTURE()
 * whose FIXTURE_VARIANT()s are the transports, checks with ASSERT_*() /
 * EXPECT_*() followed by TH_LOG() saying why, and ends with
 * RCM_TEST_MAIN (or calls rcm_test_main() from a main of its own). Each
 * case runs in a child process of its own, under a timeout; the output
 * is TAP, and the exit status is 0 when no case failed.
 */
#ifndef RCM_HARNESS_H
#define RCM_HARNESS_H

#include "rcm_ksft.h"
#include "rcm_test.h"

/* Open the rcm file into @fd, or fail the case (or set-up) saying why. */
#define ASSERT_RCM_OPEN(fd)						\
	do {								\
		(fd) = rcm_open_dev();					\
		ASSERT_LE(0, (fd))					\
			TH_LOG("open: %s", strerror(errno));		\
	} while (0)

/*
 * FIXTURE_TEARDOWN() of fixture @name whose one resource is the rcm file
 * self->fd, -1 until its FIXTURE_SETUP() opened it (the 6.1 harness
 * tears down after a SKIP() in the set-up too).
 */
#define RCM_FD_FIXTURE_TEARDOWN(name)					\
	FIXTURE_TEARDOWN(name)						\
	{								\
		if (self->fd >= 0)					\
			close(self->fd);				\
	}

#endif /* RCM_HARNESS_H */
