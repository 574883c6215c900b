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

#include "rcm_harness.h"

TEST(node_is_a_world_rw_char_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(RCM_DEV, &st))
		TH_LOG("stat %s: %s", RCM_DEV, strerror(errno));
	ASSERT_TRUE(S_ISCHR(st.st_mode))
		TH_LOG("not a character device");
	ASSERT_EQ(0666, (st.st_mode & 0777))
		TH_LOG("mode %o, want 0666", st.st_mode & 0777);
}

/* RCM_IOCTL_QUERY of a new file into @q (its size set), which goes. */
static void query_once(struct __test_metadata *_metadata, struct rcm_query *q)
{
	int fd = rcm_open_dev();

	ASSERT_LE(0, fd)
		TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, RCM_IOCTL_QUERY, q))
		TH_LOG("query: %s", strerror(errno));
	close(fd);
}

TEST(query_reports_abi_version)
{
	struct rcm_query q = { .size = sizeof(q) };

	query_once(_metadata, &q);
	ASSERT_EQ(RCM_ABI_VERSION, q.out_abi_version)
		TH_LOG("abi %u, want %u", q.out_abi_version, RCM_ABI_VERSION);
	ASSERT_EQ(sizeof(q), q.size)
		TH_LOG("size member rewritten to %u", q.size);
}

TEST(query_counts_soft_rdma_devices)
{
	struct rcm_query q = { .size = sizeof(q) };
	const char *want_s = getenv("RCM_EXPECT_DEVICES");

	query_once(_metadata, &q);
	if (!want_s)
		SKIP(return, "RCM_EXPECT_DEVICES not set");
	ASSERT_EQ(q.out_num_devices, strtoul(want_s, NULL, 0))
		TH_LOG("%u devices, want %s", q.out_num_devices, want_s);
}

TEST(sysfs_abi_version_matches_header)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/class/misc/rcm/abi_version", "r");

	ASSERT_NE(NULL, f)
		TH_LOG("open abi_version: %s", strerror(errno));
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f))
		TH_LOG("read abi_version");
	fclose(f);
	ASSERT_EQ(RCM_ABI_VERSION, atoi(buf))
		TH_LOG("abi_version '%s'", buf);
}

TEST(unprivileged_user_can_open_and_query)
{
	pid_t pid;
	int status;

	if (geteuid() != 0)
		SKIP(return, "needs root to switch to an unprivileged user");
	pid = fork();
	ASSERT_LE(0, pid)
		TH_LOG("fork: %s", strerror(errno));
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
	status = rcm_exit_status(pid);
	ASSERT_EQ(0, status)
		TH_LOG("child as nobody failed at step %d", status);
}

TEST(many_opens_are_independent)
{
	int fds[64], i, n;

	for (n = 0; n < 64; n++) {
		fds[n] = rcm_open_dev();
		if (fds[n] < 0)
			break;
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	ASSERT_EQ(64, n)
		TH_LOG("open #%d failed: %s", n, strerror(errno));
}

RCM_TEST_MAIN
