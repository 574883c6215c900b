// SPDX-License-Identifier: GPL-2.0-only
/*
 * A module whose only job is to WARN when loaded. Used by the harness
 * self-test to prove that a kernel WARNING in a guest fails the run; it
 * is never part of the real test suite.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init rcm_harness_warn_init(void)
{
	WARN(1, "rcm harness self-test: deliberate warning\n");
	return 0;
}

static void __exit rcm_harness_warn_exit(void)
{
}

module_init(rcm_harness_warn_init);
module_exit(rcm_harness_warn_exit);
MODULE_DESCRIPTION("rcm harness self-test: WARN on load");
MODULE_LICENSE("GPL");
