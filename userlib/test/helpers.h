/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: shared helpers.
 *
 * Every test is a program that exits T_EXIT_PASS, T_EXIT_FAIL or
 * T_EXIT_SKIP (the automake convention runtests.sh understands), and
 * prints one line per failed check on stderr.
 */
#ifndef RCM_TEST_HELPERS_H
#define RCM_TEST_HELPERS_H

#include <stdio.h>
#include <string.h>

enum {
	T_EXIT_PASS = 0,
	T_EXIT_FAIL = 1,
	T_EXIT_SKIP = 77,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern int t_failures;

/* Record a failure and go on, so that one run shows every failed check. */
#define T_CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			t_failures++;					\
		}							\
	} while (0)

#define T_CHECK_STR(a, b)						\
	do {								\
		const char *a_ = (a), *b_ = (b);			\
		if (!a_ || !b_ || strcmp(a_, b_)) {			\
			fprintf(stderr, "%s:%d: %s: \"%s\" != \"%s\"\n",\
				__FILE__, __LINE__, #a,			\
				a_ ? a_ : "(null)", b_ ? b_ : "(null)");\
			t_failures++;					\
		}							\
	} while (0)

/*
 * Fail unless symbol comes from the library under test (RCM_TEST_LIB)
 * rather than from an installed librdmacm.
 */
void t_require_our_lib(const void *symbol);

/*
 * Run fn in a child process, for checks that depend on state the library
 * sets up once per process. The child's failures are reported on stderr
 * and counted in the parent.
 */
void t_in_child(const char *what, void (*fn)(void));

/* The lowest free file descriptor; a leak shows up as a change. */
int t_lowest_free_fd(void);

/* T_EXIT_FAIL if a check failed, else T_EXIT_PASS. */
int t_exit(void);

#endif /* RCM_TEST_HELPERS_H */
