// SPDX-License-Identifier: GPL-2.0-only
/*
 * observe: what a user sees of rcm without a debugger (issue 15, item 4).
 * - fdinfo_lists_every_id: /proc/self/fdinfo of an rcm file has one
 *   "rcm-id:" line per id with its handle, port space, QP type, state,
 *   role, addresses, device, port, a listener's backlog and its unread
 *   events: an idle id, a bound one, a listener, both ends of an
 *   established connection (the passive one in another file), and an id
 *   whose ADDR_RESOLVED waits unread;
 * - fdinfo_of_thousands_of_ids_and_events: the listing of a file with
 *   12000 ids, each with an unread event, reads within 8 s, which a
 *   listing walking the event queue once per id (144 M steps, redone at
 *   each growth of the seq_file buffer) overruns (about 20 s on the
 *   distro kernel, where 5000 ids took 3.6 s; the count kept per id
 *   lists 5000 in 0.9 s on the KASAN test kernel);
 * - rcm_stat_lists_another_process: ./rcm-stat -p PID (the userlib's
 *   tool, copied beside the tests) prints a child's ids, one line each,
 *   and exits 1 for a process without an rcm file;
 * - tracepoints_fire: with the rcm tracepoints enabled in tracefs, one
 *   connection's life - create, resolve, route, listen, request,
 *   accept, RTU, disconnect, destroy, events queued and read - leaves
 *   each of its events in the trace, naming the ids' handles;
 * - refused_requests_are_traced: a request no id takes (the second on a
 *   listener of backlog 1 that reads none) leaves a cm_req_refused line
 *   naming the listener, reason backlog-full, result -ENOMEM (for
 *   which ib_cm drops the REQ without a REJ).
 *
 * Needs RCM_ADDR_RXE from the guest; the trace case tracefs (mounted
 * here if it is not).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

/* /proc/self/fdinfo/@fd into @buf (NUL-terminated): 0 or -1. */
static int fdinfo(int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	n = read(f, buf, len - 1);
	close(f);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The "rcm-id:" line of @handle in @info, copied into @line, or NULL. */
static char *id_line(const char *info, unsigned int handle, char *line,
		     size_t len)
{
	char key[32];
	const char *p, *end;

	snprintf(key, sizeof(key), "rcm-id:\thandle=%u ", handle);
	p = strstr(info, key);
	if (!p)
		return NULL;
	end = strchr(p, '\n');
	snprintf(line, len, "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	return line;
}

/* Does the line of @handle hold every space-separated pair of @want? */
static int id_has(const char *info, unsigned int handle, const char *want)
{
	char line[512], w[256], *tok, *save;

	if (!id_line(info, handle, line, sizeof(line))) {
		printf("# no line for id %u\n", handle);
		return 0;
	}
	snprintf(w, sizeof(w), "%s", want);
	strcat(line, " ");
	for (tok = strtok_r(w, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char pair[80];

		snprintf(pair, sizeof(pair), " %s ", tok);
		if (!strstr(line, pair)) {
			printf("# id %u: no \"%s\" in: %s\n", handle, tok, line);
			return 0;
		}
	}
	return 1;
}

TEST(fdinfo_lists_every_id)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	unsigned int idle, bound, lid, cid, rid, pend;
	unsigned short port = 0, bport;
	char info[8192], want[160];
	int s, c;

	if (!ip)
		SKIP(return, "no RCM_ADDR_RXE");
	s = rcm_open_dev();
	c = rcm_open_dev();
	idle = rcm_create(c, RCM_PS_UDP, RCM_QPT_UD, 1);
	bound = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 2);
	ASSERT_TRUE(idle && bound && rcm_bind(c, bound, ip, 0) == 0)
		TH_LOG("set-up: %s", strerror(errno));
	bport = rcm_local_port(c, bound);
	lid = rcm_listener(s, ip, &port, 3, 5);
	ASSERT_TRUE(lid)
		TH_LOG("listener: %s", strerror(errno));
	ASSERT_EQ(0, rcm_establish(s, c, ip, port, &cid, &rid))
		TH_LOG("connection: %s", strerror(errno));
	pend = rcm_create(c, RCM_PS_TCP, RCM_QPT_RC, 4);
	ASSERT_TRUE(pend && rcm_resolve(c, pend, NULL, ip, 2000) == 0)
		TH_LOG("resolve: %s", strerror(errno));
	/* ADDR_RESOLVED queued, left unread. */
	ASSERT_TRUE(RCM_WAIT_FOR(rcm_events_queued(c) == 1, 30000))
		TH_LOG("%ld events queued", rcm_events_queued(c));

	ASSERT_EQ(0, fdinfo(c, info, sizeof(info)))
		TH_LOG("fdinfo: %s", strerror(errno));
	printf("# %s", info);
	ASSERT_TRUE(strstr(info, "rcm-events-queued:\t1\n") &&
		    strstr(info, "rcm-event-size:\t"))
		TH_LOG("no file lines");
	ASSERT_TRUE(id_has(info, idle,
		    "ps=udp qp=ud state=IDLE role=- src=- dst=- dev=- port=- events=0"))
		TH_LOG("idle id");
	snprintf(want, sizeof(want),
		 "ps=tcp qp=rc state=ADDR_BOUND src=%s:%hu dev=rxe0 port=1",
		 ip, bport);
	ASSERT_TRUE(id_has(info, bound, want))
		TH_LOG("bound id");
	snprintf(want, sizeof(want),
		 "state=CONNECT role=active dst=%s:%hu dev=rxe0 events=0", ip,
		 port);
	ASSERT_TRUE(id_has(info, cid, want))
		TH_LOG("active id");
	ASSERT_TRUE(id_has(info, pend, "state=ADDR_RESOLVED events=1"))
		TH_LOG("id with an unread event");

	ASSERT_EQ(0, fdinfo(s, info, sizeof(info)))
		TH_LOG("fdinfo: %s", strerror(errno));
	snprintf(want, sizeof(want),
		 "state=LISTEN role=listener src=%s:%hu backlog=5", ip, port);
	ASSERT_TRUE(id_has(info, lid, want))
		TH_LOG("listener");
	snprintf(want, sizeof(want), "state=CONNECT role=passive src=%s:%hu",
		 ip, port);
	ASSERT_TRUE(id_has(info, rid, want))
		TH_LOG("passive id");
	close(c);
	close(s);
}

/* "rcm-events-queued:" of the file's listing, read in *@ms; -1 on error. */
static long fdinfo_queued(int fd, char *info, size_t len, long *ms)
{
	struct timespec t0;
	const char *p;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (fdinfo(fd, info, len))
		return -1;
	*ms = rcm_ms_since(&t0);
	p = strstr(info, "rcm-events-queued:\t");
	return p ? atol(p + strlen("rcm-events-queued:\t")) : -1;
}

TEST(fdinfo_of_thousands_of_ids_and_events)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const size_t len = 4 << 20;
	long queued = 0, ms = 0;
	struct timespec t0;
	unsigned int i, id;
	char *info;
	int fd;

	if (!ip)
		SKIP(return, "no RCM_ADDR_RXE");
	info = malloc(len);
	fd = rcm_open_dev();
	ASSERT_TRUE(info && fd >= 0);
	for (i = 0; i < 12000; i++) {
		id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, i);
		ASSERT_TRUE(id && rcm_resolve(fd, id, NULL, ip, 20000) == 0)
			TH_LOG("id %u: %s", i, strerror(errno));
	}
	/* Every read of the listing is bounded, also while events arrive. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		queued = fdinfo_queued(fd, info, len, &ms);
		ASSERT_LE(0, queued)
			TH_LOG("fdinfo: %s", strerror(errno));
		ASSERT_GT(8000, ms)
			TH_LOG("listing %ld events of 12000 ids took %ld ms",
			       queued, ms);
		if (queued >= 12000 || rcm_ms_since(&t0) > 60000)
			break;
		rcm_pause();
	}
	ASSERT_EQ(12000, queued)
		TH_LOG("resolutions still unanswered after %ld ms",
		       rcm_ms_since(&t0));
	ASSERT_TRUE(id_has(info, id, "state=ADDR_RESOLVED events=1"));
	printf("# 12000 ids with an event each listed in %ld ms\n", ms);
	close(fd);
	free(info);
}

TEST(rcm_stat_lists_another_process)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	char cmd[128], out[4096];
	int p[2], st, lines = 0;
	size_t n = 0;
	FILE *f;
	pid_t pid;
	char c;

	if (!ip)
		SKIP(return, "no RCM_ADDR_RXE");
	if (access("./rcm-stat", X_OK))
		SKIP(return, "no ./rcm-stat beside the tests");
	ASSERT_EQ(0, pipe(p))
		TH_LOG("pipe");
	pid = fork();
	ASSERT_LE(0, pid)
		TH_LOG("fork");
	if (!pid) {
		int fd = rcm_open_dev();
		unsigned int a = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, 1);
		unsigned int b = rcm_listener(fd, ip, NULL, 2, 4);

		if (write(p[1], a && b ? "y" : "n", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_TRUE(read(p[0], &c, 1) == 1 && c == 'y')
		TH_LOG("child set-up failed");
	snprintf(cmd, sizeof(cmd), "./rcm-stat -q -p %d", pid);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f)
		TH_LOG("popen");
	while (n < sizeof(out) - 1 && fgets(out + n, sizeof(out) - n, f)) {
		n += strlen(out + n);
		lines++;
	}
	st = pclose(f);
	rcm_kill(pid);
	printf("# %s", out);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("rcm-stat status %d", st);
	ASSERT_EQ(2, lines)
		TH_LOG("%d lines, want 2", lines);
	ASSERT_TRUE(strstr(out, " LISTEN ") && strstr(out, " IDLE "))
		TH_LOG("no LISTEN and IDLE ids");
	snprintf(cmd, sizeof(cmd), "./rcm-stat -q -p %d >/dev/null", getppid());
	ASSERT_EQ(1, WEXITSTATUS(system(cmd)))
		TH_LOG("rcm-stat found an rcm file in a process without one");
	close(p[0]);
	close(p[1]);
}

/* The rcm tracepoints enabled, for the cases that read the trace. */
FIXTURE(traced) {
	const char *ip;
};

FIXTURE_SETUP(traced)
{
	int ret;

	self->ip = getenv("RCM_ADDR_RXE");
	if (!self->ip)
		SKIP(return, "no RCM_ADDR_RXE");
	ret = rcm_trace_start();
	if (ret && errno == ENOENT)
		SKIP(return, "no rcm events in tracefs");
	ASSERT_EQ(0, ret)
		TH_LOG("cannot enable: %s", strerror(errno));
}

FIXTURE_TEARDOWN(traced)
{
}

TEST_F(traced, tracepoints_fire)
{
	static const char *const want[] = {
		"cm_id_create:", "cm_id_attach:", "cm_resolve_addr:",
		"cm_resolve_route:", "cm_listen:", "cm_send_req:",
		"cm_req_handler:", "cm_send_rep:", "cm_send_rtu:",
		"cm_disconnect:", "cm_id_destroy:", "cm_event_queued:",
		"cm_event_read:",
	};
	unsigned int lid, cid, rid;
	unsigned short port = 0;
	static char trace[1 << 18];
	char needle[64];
	size_t i;
	int s, c;

	s = rcm_open_dev();
	c = rcm_open_dev();
	lid = rcm_listener(s, self->ip, &port, 3, 4);
	ASSERT_TRUE(lid && rcm_establish(s, c, self->ip, port, &cid, &rid) == 0)
		TH_LOG("connection: %s", strerror(errno));
	ASSERT_EQ(0, rcm_simple(c, RCM_IOCTL_DISCONNECT, cid))
		TH_LOG("disconnect: %s", strerror(errno));
	close(c);
	close(s);
	rcm_trace_stop(trace, sizeof(trace));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ASSERT_NE(NULL, strstr(trace, want[i]))
			TH_LOG("no %s in the trace", want[i]);
	}
	/* After the id's number (cm.id), which observe_ids checks. */
	snprintf(needle, sizeof(needle), " handle=%u ps=0x106 ", cid);
	ASSERT_TRUE(rcm_trace_line(trace, "cm_send_req: cm.id=", needle))
		TH_LOG("no cm_send_req line with \"%s\"", needle);
	snprintf(needle, sizeof(needle), " handle=%u ps=0x106 ", lid);
	ASSERT_TRUE(rcm_trace_line(trace, "cm_listen: cm.id=", needle))
		TH_LOG("no cm_listen line with \"%s\"", needle);
	ASSERT_NE(NULL, strstr(trace, "event=CONNECT_REQUEST status=0"))
		TH_LOG("no CONNECT_REQUEST event in the trace");
}

/*
 * A request no id takes is traced with its reason: here the second of
 * two requests on a listener of backlog 1 that reads neither, which
 * ib_cm drops for the peer to retry until its connect times out.
 */
TEST_F(traced, refused_requests_are_traced)
{
	static char trace[1 << 18];
	struct rcm_event ev;
	char needle[64];
	unsigned int lid;
	int s, c;

	s = rcm_open_dev();
	c = rcm_open_dev();
	ASSERT_EQ(0, rcm_dropped_at_full_backlog(s, c, self->ip, &lid, &ev))
		TH_LOG("second request: %s, event %u status %d, want UNREACHABLE",
		       strerror(errno), ev.event, ev.status);
	close(c);
	close(s);
	rcm_trace_stop(trace, sizeof(trace));
	snprintf(needle, sizeof(needle), " handle=%u device=", lid);
	ASSERT_TRUE(rcm_trace_line(trace, "cm_req_refused: cm.id=", needle))
		TH_LOG("no cm_req_refused line of listener %u", lid);
	ASSERT_TRUE(rcm_trace_line(trace, needle, " reason=backlog-full result=-12"))
		TH_LOG("the refusal is not traced as backlog-full, -ENOMEM");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return rcm_test_main();
}
