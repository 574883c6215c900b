// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * hints: when the rcm device is missing, the library keeps librdmacm's
 * errno (ENODEV) and says once per process, on stderr, what is wrong
 * and how to fix it; RCM_QUIET=1 keeps it quiet. Each case runs in a
 * child whose stderr the parent reads, since the library reads its
 * environment once per process.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "helpers.h"

/* Run two channel creations with @quiet; return what stderr got. */
static void run(const char *quiet, char *out, size_t len)
{
	int p[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	T_CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		int ok = 1, i;

		dup2(p[1], 2);
		close(p[0]);
		setenv("RCM_DEVICE", "/nonexistent/rcm", 1);
		if (quiet)
			setenv("RCM_QUIET", quiet, 1);
		else
			unsetenv("RCM_QUIET");
		for (i = 0; i < 2; i++) {
			errno = 0;
			ok &= !rdma_create_event_channel() && errno == ENODEV;
		}
		_exit(ok ? 0 : 1);
	}
	close(p[1]);
	while (got < (ssize_t)len - 1 &&
	       (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = 0;
	close(p[0]);
	T_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		WEXITSTATUS(st) == 0);
}

int main(int argc, char *argv[])
{
	char out[1024];
	char *nl;

	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_create_event_channel);

	run(NULL, out, sizeof(out));
	T_CHECK(!strncmp(out, "rcm: /nonexistent/rcm is missing", 32));
	T_CHECK(strstr(out, "modprobe rcm") != NULL);
	/* Once per process: one line for two failed calls. */
	nl = strchr(out, '\n');
	T_CHECK(nl && nl[1] == 0);

	run("1", out, sizeof(out));
	T_CHECK_STR(out, "");
	run("0", out, sizeof(out));
	T_CHECK(!strncmp(out, "rcm: ", 5));
	return t_exit();
}
