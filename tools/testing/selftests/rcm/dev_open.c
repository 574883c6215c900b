// SPDX-License-Identifier: GPL-2.0-only
/*
 * dev_open: the rcm character device exists, any user may open it, and
 * it answers RCM_IOCTL_QUERY with the ABI the header promises.
 */
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

RCM_TEST(node_is_a_world_rw_char_device)
{
	struct stat st;

	CHECK(stat(RCM_DEV, &st) == 0, "stat %s: %s", RCM_DEV, strerror(errno));
	CHECK(S_ISCHR(st.st_mode), "not a character device");
	CHECK((st.st_mode & 0777) == 0666, "mode %o, want 0666",
	      st.st_mode & 0777);
}

RCM_TEST(query_reports_abi_version)
{
	struct rcm_query q = { .size = sizeof(q) };
	int fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK(ioctl(fd, RCM_IOCTL_QUERY, &q) == 0, "query: %s",
	      strerror(errno));
	close(fd);
	CHECK(q.out_abi_version == RCM_ABI_VERSION, "abi %u, want %u",
	      q.out_abi_version, RCM_ABI_VERSION);
	CHECK(q.size == sizeof(q), "size member rewritten to %u", q.size);
}

RCM_TEST(query_counts_soft_rdma_devices)
{
	struct rcm_query q = { .size = sizeof(q) };
	const char *want_s = getenv("RCM_EXPECT_DEVICES");
	int fd = rcm_open_dev();

	CHECK(fd >= 0, "open: %s", strerror(errno));
	CHECK(ioctl(fd, RCM_IOCTL_QUERY, &q) == 0, "query: %s",
	      strerror(errno));
	close(fd);
	if (!want_s)
		SKIP("RCM_EXPECT_DEVICES not set");
	CHECK(q.out_num_devices == strtoul(want_s, NULL, 0),
	      "%u devices, want %s", q.out_num_devices, want_s);
}

RCM_TEST(sysfs_abi_version_matches_header)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/class/misc/rcm/abi_version", "r");

	CHECK(f, "open abi_version: %s", strerror(errno));
	CHECK(fgets(buf, sizeof(buf), f), "read abi_version");
	fclose(f);
	CHECK(atoi(buf) == RCM_ABI_VERSION, "abi_version '%s'", buf);
}

RCM_TEST(unprivileged_user_can_open_and_query)
{
	pid_t pid;
	int status;

	if (geteuid() != 0)
		SKIP("needs root to switch to an unprivileged user");
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct rcm_query q = { .size = sizeof(q) };
		int fd;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		fd = rcm_open_dev();
		if (fd < 0)
			_exit(3);
		if (ioctl(fd, RCM_IOCTL_QUERY, &q) || q.out_abi_version !=
		    RCM_ABI_VERSION)
			_exit(4);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child as nobody failed at step %d", WEXITSTATUS(status));
}

RCM_TEST(many_opens_are_independent)
{
	int fds[64], i, n;

	for (n = 0; n < 64; n++) {
		fds[n] = rcm_open_dev();
		if (fds[n] < 0)
			break;
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	CHECK(n == 64, "open #%d failed: %s", n, strerror(errno));
}

int main(void)
{
	return rcm_test_run();
}
