// SPDX-License-Identifier: GPL-2.0-only
/*
 * TAP runner shared by the rcm selftests; see rcm_test.h.
 */
#include "rcm_test.h"

enum rcm_verdict rcm_verdict;
char rcm_why[256];
struct rcm_case rcm_cases[RCM_MAX_CASES];
int rcm_ncases;

void rcm_fail(const char *file, int line, const char *fmt, ...)
{
	int n = snprintf(rcm_why, sizeof(rcm_why), "%s:%d: ", file, line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rcm_why + n, sizeof(rcm_why) - n, fmt, ap);
	va_end(ap);
	rcm_verdict = RCM_FAILED;
}

void rcm_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rcm_why, sizeof(rcm_why), fmt, ap);
	va_end(ap);
	rcm_verdict = RCM_SKIPPED;
}

int rcm_open_dev(void)
{
	return open(RCM_DEV, O_RDWR | O_CLOEXEC);
}

int rcm_test_run(void)
{
	int i, failed = 0, skipped = 0;

	printf("TAP version 13\n1..%d\n", rcm_ncases);
	for (i = 0; i < rcm_ncases; i++) {
		rcm_verdict = RCM_OK;
		rcm_why[0] = '\0';
		rcm_cases[i].fn();
		switch (rcm_verdict) {
		case RCM_OK:
			printf("ok %d %s\n", i + 1, rcm_cases[i].name);
			break;
		case RCM_SKIPPED:
			skipped++;
			printf("ok %d %s # SKIP %s\n", i + 1, rcm_cases[i].name,
			       rcm_why);
			break;
		case RCM_FAILED:
			failed++;
			printf("# %s\nnot ok %d %s\n", rcm_why, i + 1,
			       rcm_cases[i].name);
			break;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%d fail:%d skip:%d\n",
	       rcm_ncases - failed - skipped, failed, skipped);
	if (failed)
		return KSFT_FAIL;
	if (skipped == rcm_ncases)
		return KSFT_SKIP;
	return KSFT_PASS;
}
