// SPDX-License-Identifier: GPL-2.0-only
/*
 * observe_ids: one number names one id everywhere an operator looks.
 * Two processes hold rcm ids (one a listener, the request id of the
 * connection its other file's id is making to it, and that connecting
 * id; the other a listener and an idle id); ./rcm-stat -j lists them,
 * and every id it lists has its cm_id_create line in the trace with the
 * same cm.id and handle, from the same process - but for the request
 * id, which ib_cm's worker creates: its line is found by the number
 * alone, which is what the number is for. Also: the ids' numbers
 * differ, the connecting id shows the QP number its connect announced,
 * and the listing's filters (-p, -s, -P) keep what they name.
 *
 * Needs RCM_ADDR_RXE from the guest, ./rcm-stat beside the program and
 * the rcm events in tracefs (rcm_trace_start()).
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <rdma/rcm_user.h>

#include "rcm_harness.h"

#define QPN 0x1234

/* One id of the listing. */
struct listed {
	unsigned int id, pid, handle, qpn, sport;
	char state[32], role[16];
};

/* The output of @cmd in @buf (NUL-terminated); its wait status. */
static int run(const char *cmd, char *buf, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t n = 0;

	if (!f)
		return -1;
	while (n < size - 1 && fgets(buf + n, size - n, f))
		n += strlen(buf + n);
	buf[n] = '\0';
	return pclose(f);
}

/* The number after "\"@key\":" in @obj, or -1. */
static long json_num(const char *obj, const char *key)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(obj, k);
	return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

/* The string after "\"@key\":\"" in @obj, into @val of @size. */
static void json_str(const char *obj, const char *key, char *val, size_t size)
{
	char k[32];
	const char *p;
	size_t n = 0;

	snprintf(k, sizeof(k), "\"%s\":\"", key);
	p = strstr(obj, k);
	if (p)
		for (p += strlen(k); p[n] && p[n] != '"' && n < size - 1; n++)
			val[n] = p[n];
	val[n] = '\0';
}

/* The objects of rcm-stat -j's array in @json, at most @max; how many. */
static int parse_listing(char *json, struct listed *l, int max)
{
	char *obj = json, *end, *s;
	int n = 0;

	while (n < max && (obj = strchr(obj, '{')) && (end = strchr(obj, '}'))) {
		*end = '\0';
		l[n].id = json_num(obj, "id");
		l[n].pid = json_num(obj, "pid");
		l[n].handle = json_num(obj, "handle");
		l[n].qpn = json_num(obj, "qpn");
		s = strstr(obj, "\"src\":\"");
		l[n].sport = 0;
		if (s && (s = strchr(s + strlen("\"src\":\""), '"')) &&
		    (end = memrchr(obj, ':', s - obj)))
			l[n].sport = strtoul(end + 1, NULL, 10);
		end = obj + strlen(obj);
		json_str(obj, "state", l[n].state, sizeof(l[n].state));
		json_str(obj, "role", l[n].role, sizeof(l[n].role));
		n++;
		obj = end + 1;
	}
	return n;
}

/* A child's ids, then a byte on @w, then a wait for its end. */
static void holder(const char *ip, int w, bool connecting)
{
	int s = rcm_open_dev(), c = rcm_open_dev();
	unsigned int lid = 0, ok;

	if (connecting)
		ok = rcm_connecting(s, c, ip, 0x22, QPN, NULL, &lid) && lid;
	else
		ok = rcm_listener(s, ip, NULL, 2, 4) &&
		     rcm_create(s, RCM_PS_TCP, RCM_QPT_RC, 3);
	if (write(w, ok ? "y" : "n", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

TEST(listing_matches_trace)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	static char trace[1 << 20], json[16384], out[4096];
	struct listed l[16];
	unsigned short port;
	pid_t pid[2];
	int p[2], i, j, n, mine = 0, st;
	char cmd[128], needle[96], task[24], c;
	int ret;

	if (!ip)
		SKIP(return, "no RCM_ADDR_RXE");
	if (access("./rcm-stat", X_OK))
		SKIP(return, "no ./rcm-stat beside the tests");
	ret = rcm_trace_start();
	if (ret && errno == ENOENT)
		SKIP(return, "no rcm events in tracefs");
	ASSERT_EQ(0, ret)
		TH_LOG("cannot enable the rcm events: %s", strerror(errno));
	ASSERT_EQ(0, pipe(p))
		TH_LOG("pipe");
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i])
			TH_LOG("fork");
		if (!pid[i])
			holder(ip, p[1], i == 0);
		ASSERT_TRUE(read(p[0], &c, 1) == 1 && c == 'y')
			TH_LOG("holder %d: set-up failed", i);
	}
	st = run("./rcm-stat -j", json, sizeof(json));
	rcm_trace_stop(trace, sizeof(trace));
	printf("# %s", json);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("rcm-stat -j: status %d", st);
	n = parse_listing(json, l, 16);
	for (i = 0; i < n; i++) {
		if (l[i].pid != (unsigned int)pid[0] &&
		    l[i].pid != (unsigned int)pid[1])
			continue;
		mine++;
		snprintf(needle, sizeof(needle),
			 "cm_id_create: cm.id=%u handle=%u ", l[i].id,
			 l[i].handle);
		/* The task column, "comm-PID", comes first. */
		snprintf(task, sizeof(task), "-%u ", l[i].pid);
		EXPECT_TRUE(rcm_trace_line(trace, strcmp(l[i].role, "passive") ?
					   task : "", needle))
			TH_LOG("no \"%s\" of process %u in the trace", needle,
			       l[i].pid);
		for (j = 0; j < i; j++)
			EXPECT_NE(l[j].id, l[i].id)
				TH_LOG("two ids numbered %u", l[i].id);
		if (!strcmp(l[i].role, "active"))
			EXPECT_EQ(QPN, l[i].qpn)
				TH_LOG("the connecting id's qpn %u", l[i].qpn);
	}
	EXPECT_EQ(5, mine)
		TH_LOG("%d ids of the two processes listed, want 5", mine);

	/* Filters: the second process's listener, by state and by port. */
	snprintf(cmd, sizeof(cmd), "./rcm-stat -j -p %d -s LISTEN", pid[1]);
	st = run(cmd, json, sizeof(json));
	n = parse_listing(json, l, 16);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0 && n == 1 &&
		    !strcmp(l[0].state, "LISTEN"))
		TH_LOG("-p %d -s LISTEN: %d ids: %s", pid[1], n, json);
	port = n == 1 ? l[0].sport : 0;
	snprintf(cmd, sizeof(cmd), "./rcm-stat -q -j -P %u -p %d", port, pid[1]);
	st = run(cmd, json, sizeof(json));
	n = parse_listing(json, l, 16);
	EXPECT_TRUE(port && n == 1 && !strcmp(l[0].state, "LISTEN"))
		TH_LOG("-P %u: %d ids: %s", port, n, json);
	snprintf(cmd, sizeof(cmd), "./rcm-stat -q -p %d -s ESTABLISHED", pid[1]);
	EXPECT_EQ(1, WEXITSTATUS(run(cmd, out, sizeof(out))))
		TH_LOG("a filter that keeps nothing did not exit 1");
	rcm_kill(pid[0]);
	rcm_kill(pid[1]);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return rcm_test_main();
}
