/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What rcm's test programs add to the kernel's own harness,
 * tools/testing/selftests/kselftest_harness.h of linux-source-6.1 (the
 * Makefiles find it with tools/testing/kernel-script.sh kselftest): the
 * selftests (through rcm_harness.h) and the userlib's guest programs
 * (userlib/test/guest/common/guest.h) include it.
 *
 * RCM_TEST_ONLY=NAME in the environment runs only the cases called NAME
 * ("case" or "fixture.case", every variant of it), for debugging one
 * case in a guest: the 6.1 harness takes no options. RCM_TEST_TIMEOUT=S
 * gives every case S seconds instead of TEST_TIMEOUT_DEFAULT (the long
 * runs of make stress).
 */
#ifndef RCM_KSFT_H
#define RCM_KSFT_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

/*
 * Every wait of a case has a bound of its own (30 s at most per event);
 * the harness's bound per case only ever stops a hang. The harness reads
 * TEST_TIMEOUT_DEFAULT where TEST() and TEST_F() are expanded.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 240

/* @call must fail: return -1 with errno @err. */
#define ASSERT_ERRNO(call, err)						\
	do {								\
		long _r = (call);					\
		int _e = errno;						\
		ASSERT_TRUE(_r == -1 && _e == (err))			\
			TH_LOG("%s returned %ld errno %d (%s), want -1 errno %d (%s)", \
			       #call, _r, _r == -1 ? _e : 0,		\
			       _r == -1 ? strerror(_e) : "-", (err),	\
			       strerror(err));				\
	} while (0)

/*
 * SKIP() for FIXTURE_SETUP(): the 6.1 harness still runs the case's body
 * after a SKIP() in the set-up (later kernels return), so the child ends
 * at once, with the status the harness reads as a skip.
 */
#define SKIP_SETUP(fmt, ...)						\
	SKIP({ fflush(NULL); _exit(255); }, fmt, ##__VA_ARGS__)

/* Does RCM_TEST_ONLY (@only) name case @t of fixture @f? */
static inline bool rcm_case_chosen(const char *only,
				   struct __fixture_metadata *f,
				   struct __test_metadata *t)
{
	size_t n = strlen(f->name);

	return !strcmp(only, t->name) ||
	       (!strncmp(only, f->name, n) && only[n] == '.' &&
		!strcmp(only + n + 1, t->name));
}

/*
 * Run the cases (those RCM_TEST_ONLY names, if set) and exit. Output is
 * line-buffered: what a case prints before it hangs or its child exits
 * is never lost.
 */
static inline int rcm_test_main(void)
{
	const char *only = getenv("RCM_TEST_ONLY");
	const char *t_env = getenv("RCM_TEST_TIMEOUT");
	unsigned long timeout = t_env ? strtoul(t_env, NULL, 0) : 0;
	struct __fixture_metadata *f;
	struct __test_metadata *t, *next, *head, *tail;
	char *argv[] = { "rcm", NULL };

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (f = __fixture_list; f; f = f->next) {
		for (t = f->tests; t && timeout; t = t->next)
			t->timeout = timeout;
		if (!only)
			continue;
		head = tail = NULL;
		for (t = f->tests; t; t = next) {
			next = t->next;
			if (!rcm_case_chosen(only, f, t))
				continue;
			t->next = NULL;
			t->prev = tail ? tail : t;
			if (tail)
				tail->next = t;
			else
				head = t;
			tail = t;
		}
		if (head)
			head->prev = tail;
		f->tests = head;
	}
	return test_harness_run(1, argv);
}

#define RCM_TEST_MAIN							\
	int main(void)							\
	{								\
		return rcm_test_main();					\
	}

#endif /* RCM_KSFT_H */
