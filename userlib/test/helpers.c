// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: shared helpers.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

int t_failures;

void t_require_our_lib(const void *symbol)
{
	char want[PATH_MAX], got[PATH_MAX];
	Dl_info info;

	if (!dladdr(symbol, &info) || !info.dli_fname) {
		fprintf(stderr, "dladdr failed\n");
		t_failures++;
		return;
	}
	if (!realpath(RCM_TEST_LIB, want) || !realpath(info.dli_fname, got) ||
	    strcmp(want, got)) {
		fprintf(stderr, "testing %s instead of %s\n", info.dli_fname,
			RCM_TEST_LIB);
		t_failures++;
	}
}

void t_in_child(const char *what, void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		t_failures++;
		return;
	}
	if (!pid) {
		t_failures = 0;
		fn();
		fflush(NULL);
		_exit(t_failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "case \"%s\" failed\n", what);
		t_failures++;
	}
}

int t_lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

int t_exit(void)
{
	return t_failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
