// SPDX-License-Identifier: GPL-2.0-only
/*
 * The uapi header's promises as tables, shared by fuzz.c and faults.c;
 * see fuzz_common.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fuzz_common.h"

#define MAX_ERRS 12

static const struct {
	const char *name;
	size_t size;
	int errs[MAX_ERRS];	/* the command's own, 0-terminated */
} cmds[RCM_NCMDS] = {
#define C(_nr, _name, _struct, ...)					\
	[RCM_CMD_##_nr - RCM_CMD_BASE] = {				\
		_name, sizeof(struct _struct), { __VA_ARGS__ }		\
	}
	C(QUERY, "QUERY", rcm_query, 0),
	C(CREATE_ID, "CREATE_ID", rcm_create_id, EMFILE),
	C(DESTROY_ID, "DESTROY_ID", rcm_destroy_id, ENOENT),
	C(BIND_ADDR, "BIND_ADDR", rcm_bind_addr, ENOENT, EAFNOSUPPORT,
	  EADDRNOTAVAIL, ENODEV, EACCES, EADDRINUSE),
	C(RESOLVE_ADDR, "RESOLVE_ADDR", rcm_resolve_addr, ENOENT,
	  EAFNOSUPPORT, EADDRNOTAVAIL, ENODEV, EACCES, EADDRINUSE,
	  ENETUNREACH, ENOBUFS, ENOMEM),
	C(QUERY_ID, "QUERY_ID", rcm_query_id, ENOENT),
	C(RESOLVE_ROUTE, "RESOLVE_ROUTE", rcm_resolve_route, ENOENT, ENODEV,
	  ENOBUFS, ENOMEM),
	C(SET_OPTION, "SET_OPTION", rcm_set_option, ENOENT, ENOPROTOOPT),
	C(LISTEN, "LISTEN", rcm_listen, ENOENT, EADDRINUSE, EADDRNOTAVAIL,
	  ENODEV, ENOMEM),
	C(REJECT, "REJECT", rcm_reject, ENOENT),
	/* iWARP: "ECONNRESET (or another driver errno)". */
	C(ACCEPT, "ACCEPT", rcm_accept, ENOENT, ECONNRESET),
	C(DISCONNECT, "DISCONNECT", rcm_disconnect, ENOENT, ENODEV),
	C(CONNECT, "CONNECT", rcm_connect, ENOENT, ENODEV, ENOBUFS, ENOMEM,
	  EADDRINUSE),
	C(ESTABLISH, "ESTABLISH", rcm_establish, ENOENT),
	C(INIT_QP_ATTR, "INIT_QP_ATTR", rcm_init_qp_attr, ENOENT, ENODEV),
	C(NOTIFY, "NOTIFY", rcm_notify, ENOENT, EISCONN),
	C(MIGRATE_ID, "MIGRATE_ID", rcm_migrate_id, ENOENT, EBADF, EMFILE,
	  EBUSY, ENOMEM),
	C(JOIN_MCAST, "JOIN_MCAST", rcm_join_mcast, ENOENT, EADDRINUSE,
	  ENODEV, ENOBUFS, ENOMEM),
	C(LEAVE_MCAST, "LEAVE_MCAST", rcm_leave_mcast, ENOENT),
#undef C
};

/* "Errors common to every command" (the DOC block of rcm_user.h). */
static const int common_errs[] = {
	ENOTTY, EFAULT, EINVAL, E2BIG, EOPNOTSUPP, ENOMEM, ENODEV, ENXIO,
};

const char *rcm_cmd_name(unsigned int nr)
{
	if (nr < RCM_CMD_BASE || nr - RCM_CMD_BASE >= RCM_NCMDS)
		return "?";
	return cmds[nr - RCM_CMD_BASE].name;
}

unsigned long rcm_cmd_ioctl(unsigned int i)
{
	return _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE + i);
}

size_t rcm_cmd_size(unsigned int nr)
{
	return cmds[nr - RCM_CMD_BASE].size;
}

bool rcm_errno_documented(unsigned int nr, int err)
{
	unsigned int i;

	for (i = 0; i < sizeof(common_errs) / sizeof(common_errs[0]); i++)
		if (err == common_errs[i])
			return true;
	if (nr < RCM_CMD_BASE || nr - RCM_CMD_BASE >= RCM_NCMDS)
		return false;
	for (i = 0; i < MAX_ERRS && cmds[nr - RCM_CMD_BASE].errs[i]; i++)
		if (err == cmds[nr - RCM_CMD_BASE].errs[i])
			return true;
	return false;
}

const char *rcm_event_malformed(const struct rcm_event *ev)
{
	unsigned int i;

	if (ev->event > RCM_EVENT_TIMEWAIT_EXIT)
		return "unknown event type";
	if (ev->id == 0)
		return "id 0";
	if ((ev->event == RCM_EVENT_CONNECT_REQUEST) != (ev->listen_id != 0))
		return "listen_id set on another event than CONNECT_REQUEST, or missing";
	/*
	 * A positive status is a transport reason: REJECTED's, and the SIDR
	 * status of a UD id's UNREACHABLE.
	 */
	if (ev->status > 0 && ev->event != RCM_EVENT_REJECTED &&
	    ev->event != RCM_EVENT_UNREACHABLE)
		return "positive status";
	if ((ev->event == RCM_EVENT_ADDR_RESOLVED ||
	     ev->event == RCM_EVENT_ROUTE_RESOLVED) &&
	    (ev->status || ev->private_data_len))
		return "a resolution event with a status or private data";
	if (ev->id_info_len && ev->id_info_len != sizeof(struct rcm_id_info))
		return "id_info_len neither 0 nor sizeof(struct rcm_id_info)";
	if (ev->id_info_len && ev->event != RCM_EVENT_ADDR_RESOLVED &&
	    ev->event != RCM_EVENT_ROUTE_RESOLVED &&
	    ev->event != RCM_EVENT_CONNECT_REQUEST)
		return "an id's view in an event that carries none";
	for (i = 0; i < sizeof(ev->reserved); i++)
		if (ev->reserved[i])
			return "reserved not zero";
	for (i = ev->private_data_len; i < sizeof(ev->private_data); i++)
		if (ev->private_data[i])
			return "private data not zero padded";
	return NULL;
}

int rcm_fault_open(void)
{
	return open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
}

static int write_knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = -1;

	if (fd < 0)
		return -1;
	if (write(fd, val, strlen(val)) == (ssize_t)strlen(val))
		ret = 0;
	close(fd);
	return ret;
}

int rcm_fault_setup(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/debug/failslab",
		"/sys/kernel/debug/fail_page_alloc",
		"/sys/kernel/debug/fail_usercopy",
	};
	char path[128];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/verbose", dirs[i]);
		ret |= write_knob(path, "0");
		if (i == 2)
			continue;
		snprintf(path, sizeof(path), "%s/ignore-gfp-wait", dirs[i]);
		ret |= write_knob(path, "N");
	}
	return ret;
}

int rcm_fault_arm(int ffd, unsigned int nth)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%u", nth);

	return pwrite(ffd, buf, n, 0) == n ? 0 : -1;
}

bool rcm_fault_fired(int ffd)
{
	char buf[16] = "";
	ssize_t n;

	/*
	 * Reading copies to user memory, itself a fault point: with one
	 * step left the read fails (EFAULT) and uses it up. The armed
	 * failure was not injected in the call then.
	 */
	n = pread(ffd, buf, sizeof(buf) - 1, 0);
	if (n > 0 && buf[0] == '0')
		return true;
	/* Disarm; writing "0" may itself use the last step up: harmless. */
	if (pwrite(ffd, "0", 1, 0) != 1 && errno != EFAULT)
		return false;
	return false;
}
