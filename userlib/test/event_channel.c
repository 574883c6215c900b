// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * event_channel: rdma_create_event_channel() opens $RCM_DEVICE (default
 * /dev/infiniband/rcm) O_RDWR|O_CLOEXEC and checks the module's ABI with
 * RCM_IOCTL_QUERY.
 *
 * - missing device node (module not loaded): NULL/ENODEV;
 * - other open errors (a directory: EISDIR) pass through;
 * - a file that is not rcm (/dev/null: ENOTTY): NULL/EPERM;
 * - another ABI version: NULL/EPERM; no managed device: NULL/ENODEV,
 *   but only until a channel of the process found one (as librdmacm 44,
 *   which fills its device list once): then the device count is not
 *   looked at again, so channels open while a device is re-added;
 * - libibverbs' device list is read by the first channel, as
 *   librdmacm 44's ucma_init() reads it, and only then: a module with
 *   devices but no verbs device listed is NULL/ENODEV;
 * - the event record: the query asks for sizeof(struct rcm_event); a
 *   module whose record is larger is accepted (it cuts its records to
 *   ours), one whose record is smaller is not (EPERM);
 * - failures leak no file descriptor;
 * - success: the channel's fd is the device, close-on-exec and
 *   read-write, queried with a correct struct rcm_query, and
 *   rdma_destroy_event_channel() closes it.
 *
 * The module is never needed: the program defines ioctl() itself, which
 * takes precedence over libc's for the library, and answers the query
 * the way each case needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rdma/rcm_user.h>

#include "fake_verbs.h"
#include "helpers.h"

static enum {
	REAL,		/* pass to the kernel */
	MODULE,		/* answer like the module would */
} ioctl_mode = REAL;
static unsigned int fake_abi = RCM_ABI_VERSION;
static unsigned int module_devices = 1;
/* The module's struct rcm_event. */
static unsigned int fake_record = sizeof(struct rcm_event);

static int query_calls;
static int query_fd = -1;
static struct rcm_query query_seen;

int ioctl(int fd, unsigned long request, ...)
{
	struct rcm_query *q;
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (ioctl_mode == REAL)
		return syscall(SYS_ioctl, fd, request, arg);

	if (request != RCM_IOCTL_QUERY) {
		errno = ENOTTY;
		return -1;
	}
	q = arg;
	query_calls++;
	query_fd = fd;
	query_seen = *q;
	if (q->size < sizeof(*q) || q->flags) {
		errno = EINVAL;
		return -1;
	}
	if (q->event_size)
		q->out_event_size = q->event_size < fake_record ?
				    q->event_size : fake_record;
	else
		q->out_event_size = RCM_EVENT_SIZE;
	q->out_abi_version = fake_abi;
	q->out_num_devices = module_devices;
	return 0;
}

static void expect_failure(const char *path, int want_errno)
{
	struct rdma_event_channel *ch;
	int fd = t_lowest_free_fd();

	setenv("RCM_DEVICE", path, 1);
	errno = 0;
	ch = rdma_create_event_channel();
	T_CHECK(ch == NULL);
	if (errno != want_errno) {
		fprintf(stderr, "%s: errno %d (%s), expected %d (%s)\n", path,
			errno, strerror(errno), want_errno,
			strerror(want_errno));
		t_failures++;
	}
	T_CHECK(t_lowest_free_fd() == fd);
}

static void missing_node(void)
{
	expect_failure("/nonexistent/infiniband/rcm", ENODEV);
	T_CHECK(query_calls == 0);
}

static void directory(void)
{
	expect_failure("/", EISDIR);
}

static void not_rcm(void)
{
	expect_failure("/dev/null", EPERM);
}

static void other_abi(void)
{
	ioctl_mode = MODULE;
	fake_abi = RCM_ABI_VERSION + 1;
	expect_failure("/dev/null", EPERM);
	T_CHECK(query_calls == 1);
}

static void no_devices(void)
{
	ioctl_mode = MODULE;
	module_devices = 0;
	expect_failure("/dev/null", ENODEV);
	T_CHECK(query_calls == 1);
}

static void no_verbs_devices(void)
{
	ioctl_mode = MODULE;
	fake_num_devices = 0;
	expect_failure("/dev/null", ENODEV);
	T_CHECK(fake_list_calls == 1);
}

static void expect_success(void)
{
	struct rdma_event_channel *ch;

	setenv("RCM_DEVICE", "/dev/null", 1);
	errno = 0;
	ch = rdma_create_event_channel();
	if (!ch) {
		fprintf(stderr, "channel: %s\n", strerror(errno));
		t_failures++;
		return;
	}
	rdma_destroy_event_channel(ch);
}

static void devices_looked_at_once(void)
{
	ioctl_mode = MODULE;
	expect_success();
	module_devices = 0;
	fake_num_devices = 0;
	expect_success();
	T_CHECK(query_calls == 2);
	T_CHECK(fake_list_calls == 1);
}

static void larger_record(void)
{
	ioctl_mode = MODULE;
	fake_record = sizeof(struct rcm_event) + 64;
	expect_success();
	T_CHECK(query_calls == 1);
	T_CHECK(query_seen.event_size == sizeof(struct rcm_event));
}

static void smaller_record(void)
{
	ioctl_mode = MODULE;
	fake_record = RCM_EVENT_SIZE - 8;
	expect_failure("/dev/null", EPERM);
	T_CHECK(query_calls == 1);
}

static void success(void)
{
	struct rdma_event_channel *ch, *ch2;
	int fd, flags;

	ioctl_mode = MODULE;
	setenv("RCM_DEVICE", "/dev/null", 1);
	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	fd = ch->fd;
	T_CHECK(fd >= 0);
	T_CHECK(query_calls == 1 && query_fd == fd);
	T_CHECK(fake_list_calls == 1);
	T_CHECK(query_seen.size == sizeof(struct rcm_query));
	T_CHECK(query_seen.flags == 0);
	T_CHECK(query_seen.event_size == sizeof(struct rcm_event));
	flags = fcntl(fd, F_GETFD);
	T_CHECK(flags >= 0 && (flags & FD_CLOEXEC));
	flags = fcntl(fd, F_GETFL);
	T_CHECK(flags >= 0 && (flags & O_ACCMODE) == O_RDWR);

	/* Each channel is its own open file. */
	ch2 = rdma_create_event_channel();
	T_CHECK(ch2 && ch2->fd != fd);
	rdma_destroy_event_channel(ch2);
	T_CHECK(fake_list_calls == 1);

	rdma_destroy_event_channel(ch);
	errno = 0;
	T_CHECK(fcntl(fd, F_GETFD) == -1 && errno == EBADF);
	rdma_destroy_event_channel(NULL);
}

/* The device path is read once per process: one child per case. */
int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_create_event_channel);
	fake_num_devices = 1;

	t_in_child("missing device node", missing_node);
	t_in_child("directory", directory);
	t_in_child("file that is not rcm", not_rcm);
	t_in_child("other ABI version", other_abi);
	t_in_child("module without devices", no_devices);
	t_in_child("module with devices, libibverbs without",
		   no_verbs_devices);
	t_in_child("module without devices after a first channel",
		   devices_looked_at_once);
	t_in_child("module with a larger record", larger_record);
	t_in_child("module with a record below RCM_EVENT_SIZE", smaller_record);
	t_in_child("success", success);
	return t_exit();
}
