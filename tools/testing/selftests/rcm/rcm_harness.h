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

#endif /* RCM_HARNESS_H */
