// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by the rcm selftests; see rcm_test.h.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "rcm_test.h"

int rcm_open_dev(void)
{
	struct rcm_query q = {
		.size = sizeof(q), .event_size = sizeof(struct rcm_event),
	};
	int fd = open(RCM_DEV, O_RDWR | O_CLOEXEC);

	/* Records of the struct the tests read (the ECE included). */
	if (fd >= 0 && ioctl(fd, RCM_IOCTL_QUERY, &q)) {
		close(fd);
		return -1;
	}
	return fd;
}

unsigned int rcm_create(int fd, unsigned short ps, unsigned char qp_type,
			unsigned long long context)
{
	struct rcm_create_id c = {
		.size = sizeof(c), .context = context,
		.port_space = ps, .qp_type = qp_type,
	};

	return ioctl(fd, RCM_IOCTL_CREATE_ID, &c) ? 0 : c.out_id;
}

int rcm_create_ids(int fd, unsigned short ps, unsigned char qp_type, ...)
{
	unsigned long long context = 1;
	unsigned int *id;
	va_list ap;
	int ret = 0;

	va_start(ap, qp_type);
	while (!ret && (id = va_arg(ap, unsigned int *))) {
		*id = rcm_create(fd, ps, qp_type, context++);
		if (!*id)
			ret = -1;
	}
	va_end(ap);
	return ret;
}

int rcm_destroy(int fd, unsigned int id)
{
	struct rcm_destroy_id d = { .size = sizeof(d), .id = id };

	return ioctl(fd, RCM_IOCTL_DESTROY_ID, &d);
}

void rcm_sockaddr(void *kss, const char *ip, unsigned short port)
{
	struct sockaddr_in6 *in6 = kss;
	struct sockaddr_in *in = kss;

	memset(kss, 0, sizeof(struct __kernel_sockaddr_storage));
	if (inet_pton(AF_INET, ip, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
	} else if (inet_pton(AF_INET6, ip, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
	}
}

int rcm_bind(int fd, unsigned int id, const char *ip, unsigned short port)
{
	struct rcm_bind_addr b = { .size = sizeof(b), .id = id };

	rcm_sockaddr(&b.addr, ip, port);
	return ioctl(fd, RCM_IOCTL_BIND_ADDR, &b);
}

/* RCM_IOCTL_RESOLVE_ADDR from @src (NULL: none) to @dst:@port. */
static int resolve_to(int fd, unsigned int id, const char *src,
		      const char *dst, unsigned short port,
		      unsigned int timeout_ms)
{
	struct rcm_resolve_addr r = {
		.size = sizeof(r), .id = id, .timeout_ms = timeout_ms,
	};

	if (src)
		rcm_sockaddr(&r.src, src, 0);
	rcm_sockaddr(&r.dst, dst, port);
	return ioctl(fd, RCM_IOCTL_RESOLVE_ADDR, &r);
}

int rcm_resolve(int fd, unsigned int id, const char *src, const char *dst,
		unsigned int timeout_ms)
{
	return resolve_to(fd, id, src, dst, 0, timeout_ms);
}

/* Wait up to 10 s for one event of type @type: 0, or -1 (errno EIO). */
static int rcm_expect(int fd, unsigned int type)
{
	struct rcm_event ev;

	if (rcm_wait_event(fd, 10000, &ev))
		return -1;
	if (ev.event != type) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int rcm_resolved_to(int fd, unsigned int id, const char *dst,
		    unsigned short port)
{
	if (resolve_to(fd, id, NULL, dst, port, 2000))
		return -1;
	return rcm_expect(fd, RCM_EVENT_ADDR_RESOLVED);
}

int rcm_resolved(int fd, unsigned int id, const char *dst)
{
	return rcm_resolved_to(fd, id, dst, 0);
}

int rcm_routed(int fd, unsigned int id, const char *dst, unsigned short port)
{
	if (rcm_resolved_to(fd, id, dst, port) || rcm_route(fd, id, 0))
		return -1;
	return rcm_expect(fd, RCM_EVENT_ROUTE_RESOLVED);
}

unsigned int rcm_routed_id(int fd, const char *ip, unsigned short port,
			   unsigned long long ctx)
{
	unsigned int id = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, ctx);

	if (!id || rcm_routed(fd, id, ip, port))
		return 0;
	return id;
}

int rcm_wait_gid_on(const char *dev, const char *ip)
{
	unsigned char b[4];

	if (inet_pton(AF_INET, ip, b) != 1)
		return -1;
	return RCM_WAIT_FOR(!rcm_sh("grep -qs 'ffff:%02x%02x:%02x%02x' "
				    "/sys/class/infiniband/%s/ports/1/gids/[0-9]*",
				    b[0], b[1], b[2], b[3], dev), 30000) ? 0 : -1;
}

int rcm_wait_gid(const char *ip)
{
	return rcm_wait_gid_on("rxe0", ip);
}

void rcm_bond_down(void)
{
	rcm_sh("rdma link delete " RCM_BOND_RXE);
	rcm_sh(RCM_IP " link del " RCM_BOND);
	rcm_sh(RCM_IP " link del rcmbp0");
	rcm_sh(RCM_IP " link del rcmbp1");
}

int rcm_bond_up(void)
{
	static const char *const steps[] = {
		RCM_IP " link add " RCM_BOND " type bond mode active-backup fail_over_mac active",
		RCM_IP " link add rcmbs0 type veth peer name rcmbp0",
		RCM_IP " link add rcmbs1 type veth peer name rcmbp1",
		RCM_IP " link set rcmbs0 master " RCM_BOND,
		RCM_IP " link set rcmbs1 master " RCM_BOND,
		RCM_IP " link set rcmbp0 up",
		RCM_IP " link set rcmbp1 up",
		RCM_IP " link set " RCM_BOND " up",
		"echo rcmbs0 >" RCM_BOND_ACTIVE,
		RCM_IP " addr add " RCM_BOND_IP "/24 dev " RCM_BOND,
		"rdma link add " RCM_BOND_RXE " type rxe netdev " RCM_BOND,
	};
	unsigned int i;

	rcm_bond_down();
	rcm_sh("modprobe -q bonding");
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (rcm_sh("%s", steps[i])) {
			printf("# bond: '%s' failed\n", steps[i]);
			return -1;
		}
	}
	if (rcm_wait_gid_on(RCM_BOND_RXE, RCM_BOND_IP)) {
		printf("# bond: no RoCE GID of " RCM_BOND_IP " on " RCM_BOND_RXE "\n");
		return -1;
	}
	return 0;
}

int rcm_bond_failover(int n)
{
	char name[8];
	int fd, ret;

	fd = open(RCM_BOND_ACTIVE, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = snprintf(name, sizeof(name), "rcmbs%d", n);
	ret = write(fd, name, ret) == ret ? 0 : -1;
	close(fd);
	return ret;
}

void rcm_restore_rxe(void)
{
	const char *ip = getenv("RCM_ADDR_RXE");
	const char *netdev = getenv("RCM_NETDEV_RXE");

	if (!ip || !netdev)
		return;
	if (access("/sys/class/infiniband/rxe0", F_OK))
		rcm_sh("rdma link add rxe0 type rxe netdev %s", netdev);
	rcm_wait_gid(ip);
}

int rcm_route(int fd, unsigned int id, unsigned int timeout_ms)
{
	struct rcm_resolve_route r = {
		.size = sizeof(r), .id = id, .timeout_ms = timeout_ms,
	};

	return ioctl(fd, RCM_IOCTL_RESOLVE_ROUTE, &r);
}

int rcm_route_query(int fd, unsigned int id, struct rcm_query_id *q)
{
	if (rcm_route(fd, id, 2000) || rcm_expect(fd, RCM_EVENT_ROUTE_RESOLVED))
		return -1;
	return rcm_query(fd, id, q);
}

int rcm_listen(int fd, unsigned int id, unsigned int backlog)
{
	struct rcm_listen l = { .size = sizeof(l), .id = id,
				.backlog = backlog };

	return ioctl(fd, RCM_IOCTL_LISTEN, &l);
}

unsigned int rcm_listener(int fd, const char *ip, unsigned short *port,
			  unsigned long long ctx, unsigned int backlog)
{
	unsigned int lid = rcm_create(fd, RCM_PS_TCP, RCM_QPT_RC, ctx);

	if (!lid || rcm_bind(fd, lid, ip, port ? *port : 0) ||
	    rcm_listen(fd, lid, backlog))
		return 0;
	if (port)
		*port = rcm_local_port(fd, lid);
	return !port || *port ? lid : 0;
}

int rcm_free_ports(const char *ip, unsigned short ps, unsigned short *ports,
		   unsigned int n)
{
	int fd = rcm_open_dev(), ret = 0;
	unsigned int i, id;

	if (fd < 0)
		return -1;
	for (i = 0; i < n && !ret; i++) {
		id = rcm_create(fd, ps,
				ps == RCM_PS_TCP ? RCM_QPT_RC : RCM_QPT_UD, 0);
		ports[i] = id && !rcm_bind(fd, id, ip, 0) ?
			   rcm_local_port(fd, id) : 0;
		ret = ports[i] ? 0 : -1;
	}
	close(fd);
	return ret;
}

unsigned short rcm_free_port(const char *ip, unsigned short ps)
{
	unsigned short port;

	return rcm_free_ports(ip, ps, &port, 1) ? 0 : port;
}

int rcm_connect_data(int fd, unsigned int id, unsigned int qpn,
		     const void *data, unsigned int len)
{
	struct rcm_connect c = {
		.size = sizeof(c), .id = id, .qp_num = qpn,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = (uintptr_t)data, .private_data_len = len,
	};

	return ioctl(fd, RCM_IOCTL_CONNECT, &c);
}

int rcm_accept_data(int fd, unsigned int id, unsigned int qpn,
		    unsigned long long ctx, const void *data, unsigned int len)
{
	struct rcm_accept a = {
		.size = sizeof(a), .id = id, .qp_num = qpn, .context = ctx,
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
		.private_data = (uintptr_t)data, .private_data_len = len,
	};

	return ioctl(fd, RCM_IOCTL_ACCEPT, &a);
}

int rcm_reject_data(int fd, unsigned int id, const void *data,
		    unsigned int len)
{
	struct rcm_reject r = {
		.size = sizeof(r), .id = id,
		.private_data = (uintptr_t)data, .private_data_len = len,
	};

	return ioctl(fd, RCM_IOCTL_REJECT, &r);
}

/* The length of string @data with its NUL, 0 for none. */
static unsigned int str_len(const char *data)
{
	return data ? strlen(data) + 1 : 0;
}

int rcm_connect(int fd, unsigned int id, unsigned int qpn, const char *data)
{
	return rcm_connect_data(fd, id, qpn, data, str_len(data));
}

int rcm_accept(int fd, unsigned int id, unsigned int qpn,
	       unsigned long long ctx, const char *data)
{
	return rcm_accept_data(fd, id, qpn, ctx, data, str_len(data));
}

int rcm_reject(int fd, unsigned int id, const char *data)
{
	return rcm_reject_data(fd, id, data, str_len(data));
}

int rcm_dropped_at_full_backlog(int s, int c, const char *ip,
				unsigned int *lid, struct rcm_event *ev)
{
	unsigned short port = 0;
	unsigned int a, b;

	*lid = rcm_listener(s, ip, &port, 0xb1, 1);
	a = *lid ? rcm_routed_id(c, ip, port, 0xa) : 0;
	b = a ? rcm_routed_id(c, ip, port, 0xb) : 0;
	if (!b ||
	    rcm_set_option(c, b, RCM_OPTION_ID, RCM_OPTION_ID_CONNECT_TIMEOUT,
			   3000) ||
	    rcm_connect(c, a, 0x10, "first"))
		return -1;
	if (!rcm_readable(s, 30000)) {
		errno = ETIMEDOUT;
		return -1;
	}
	/* The peer abandons its request (a REJ): the slot stays taken. */
	if (rcm_destroy(c, a) || rcm_connect(c, b, 0x11, "second") ||
	    rcm_wait_event(c, 40000, ev))
		return -1;
	if (ev->event != RCM_EVENT_UNREACHABLE || ev->id != b) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

unsigned int rcm_connecting(int s, int c, const char *ip,
			    unsigned long long ctx, unsigned int qpn,
			    const char *data, unsigned int *lid)
{
	unsigned short port = 0;
	unsigned int cid;

	*lid = rcm_listener(s, ip, &port, 0x11, 0);
	if (!*lid)
		return 0;
	cid = rcm_routed_id(c, ip, port, ctx);
	if (!cid || rcm_connect(c, cid, qpn, data))
		return 0;
	return cid;
}

int rcm_establish(int s, int c, const char *ip, unsigned short port,
		  unsigned int *cid, unsigned int *rid)
{
	struct rcm_event ev;

	*cid = rcm_routed_id(c, ip, port, 7);
	if (!*cid || rcm_connect(c, *cid, 0x1234, NULL) ||
	    rcm_expect_event(s, RCM_EVENT_CONNECT_REQUEST, &ev))
		return -1;
	*rid = ev.id;
	if (rcm_accept(s, *rid, 0x5678, 8, NULL) ||
	    rcm_expect_event(c, RCM_EVENT_CONNECT_RESPONSE, &ev) ||
	    rcm_simple(c, RCM_IOCTL_ESTABLISH, *cid) ||
	    rcm_expect_event(s, RCM_EVENT_ESTABLISHED, &ev))
		return -1;
	return 0;
}

int rcm_disconnect_pair(int c, unsigned int cid, int s, unsigned int rid)
{
	struct rcm_event ev;

	if (rcm_simple(c, RCM_IOCTL_DISCONNECT, cid) ||
	    rcm_expect_event(s, RCM_EVENT_DISCONNECTED, &ev))
		return -1;
	if (ev.id != rid)
		goto wrong_id;
	if (rcm_simple(s, RCM_IOCTL_DISCONNECT, rid) ||
	    rcm_expect_event(c, RCM_EVENT_DISCONNECTED, &ev))
		return -1;
	if (ev.id != cid)
		goto wrong_id;
	return 0;
wrong_id:
	errno = EPROTO;
	return -1;
}

int rcm_set_option(int fd, unsigned int id, unsigned int level,
		   unsigned int name, unsigned long long value)
{
	struct rcm_set_option o = {
		.size = sizeof(o), .id = id, .level = level,
		.optname = name, .value = value,
	};

	return ioctl(fd, RCM_IOCTL_SET_OPTION, &o);
}

int rcm_simple(int fd, unsigned long cmd, unsigned int id)
{
	/* ESTABLISH and DISCONNECT share their shape. */
	struct rcm_establish e = { .size = sizeof(e), .id = id };

	return ioctl(fd, cmd, &e);
}

int rcm_query(int fd, unsigned int id, struct rcm_query_id *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->id = id;
	return ioctl(fd, RCM_IOCTL_QUERY_ID, q);
}

unsigned short rcm_local_port(int fd, unsigned int id)
{
	struct rcm_query_id q;
	const struct sockaddr_in6 *a = (const void *)&q.out_src;

	if (rcm_query(fd, id, &q))
		return 0;
	/* sin_port and sin6_port sit at the same offset. */
	return ntohs(a->sin6_port);
}

int rcm_wait_event(int fd, int ms, struct rcm_event *ev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return read(fd, ev, sizeof(*ev)) == sizeof(*ev) ? 0 : -1;
}

bool rcm_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

int rcm_drain(int fd, unsigned int type)
{
	struct rcm_event ev;
	int n = 0;

	while (rcm_readable(fd, 0) && read(fd, &ev, sizeof(ev)) == sizeof(ev))
		if (ev.event == type)
			n++;
	return n;
}

unsigned int rcm_removals(int fd, unsigned int most, int ms)
{
	struct rcm_event ev;
	unsigned int seen = 0;

	while (seen < most && rcm_wait_event(fd, ms, &ev) == 0) {
		printf("# event %u status %d on id %u\n", ev.event, ev.status,
		       ev.id);
		if (ev.event == RCM_EVENT_DEVICE_REMOVAL)
			seen++;
	}
	return seen;
}

int rcm_expect_record(int fd, unsigned int size, unsigned int type,
		      struct rcm_event *ev)
{
	unsigned char buf[sizeof(struct rcm_event) + 1];
	ssize_t n;
	size_t i;

	memset(buf, 0xa5, sizeof(buf));
	if (!rcm_readable(fd, 30000))
		return -1;
	n = read(fd, buf, sizeof(buf));
	if (n != (ssize_t)size) {
		printf("# read %zd, want %u\n", n, size);
		return -1;
	}
	for (i = size; i < sizeof(buf); i++)
		if (buf[i] != 0xa5)
			return -1;
	memset(ev, 0, sizeof(*ev));
	memcpy(ev, buf, size);
	return ev->event == type ? 0 : -1;
}

int rcm_expect_event(int fd, unsigned int type, struct rcm_event *ev)
{
	if (rcm_wait_event(fd, 30000, ev))
		return -1;
	if (ev->event != type) {
		printf("# got event %u status %d, want %u\n", ev->event,
		       ev->status, type);
		return -1;
	}
	return 0;
}

pid_t rcm_spawn_listening(char *const argv[], unsigned short *port)
{
	char line[64] = "";
	int p[2];
	pid_t pid;
	FILE *f;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execv(argv[0], argv);
		_exit(3);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "listening", 9))
			break;
	if (f)
		fclose(f);
	else
		close(p[0]);
	if (strncmp(line, "listening", 9)) {
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (port && sscanf(line, "listening %hu", port) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

pid_t rcm_intree_server(const char *ip, unsigned short *port,
			const char *expect, const char *reply, bool qp)
{
	char p[8];

	snprintf(p, sizeof(p), "%hu", *port);
	return rcm_spawn_listening((char *[]){ "./intree_server", (char *)ip,
		p, (char *)expect, (char *)reply, qp ? "qp" : NULL, NULL },
		port);
}

pid_t rcm_intree_client(const char *ip, unsigned short port,
			const char *data, const char *expect, bool qp)
{
	char p[8];
	pid_t pid;

	snprintf(p, sizeof(p), "%hu", port);
	pid = fork();
	if (pid == 0) {
		execl("./intree_client", "intree_client", ip, p, data, expect,
		      qp ? "qp" : NULL, (char *)NULL);
		_exit(3);
	}
	return pid;
}

int rcm_exit_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int rcm_kill(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : -1;
}

/* The MAC address of netdev @dev into @mac (18 bytes): 0 or -1. */
int rcm_netdev_mac(const char *dev, char *mac)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%17s", mac) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int rcm_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " >/dev/null 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int rcm_ctl(const char *path, const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int fd, n, ret;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(cmd)) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, cmd, n) == n ? 0 : -1;
	n = errno;
	close(fd);
	errno = n;
	return ret;
}

unsigned long rcm_env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

unsigned long long rcm_mix(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

long rcm_read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

long rcm_cm_count(const char *dir, const char *msg)
{
	char path[96];

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/rxe0/ports/1/cm_%s/%s", dir, msg);
	return rcm_read_long(path);
}

int rcm_write_long(const char *path, long value)
{
	FILE *f = fopen(path, "w");
	int bad;

	if (!f)
		return -1;
	bad = fprintf(f, "%ld\n", value) < 0;
	return fclose(f) || bad ? -1 : 0;
}

long rcm_events_queued(int fd)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rcm-events-queued: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

long rcm_slab_objects(const char *name)
{
	char path[128], line[256], cname[64];
	long n = -1, active;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
	f = fopen(path, "w");
	if (f) {
		fputs("1", f);
		fclose(f);
	}
	/* SLUB's own count where it keeps one (CONFIG_SLUB_DEBUG). */
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/objects", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
		return n;
	}
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", cname, &active) == 2 &&
		    !strcmp(cname, name))
			n = active;
	fclose(f);
	return n;
}

int rcm_slabs_back_to(long ids0, long evs0, long *ids, long *evs)
{
	/* Slab frees of other CPUs (RCU, workqueues) settle. */
	return RCM_WAIT_FOR((*ids = rcm_slab_objects("rcm_id"),
			     *evs = rcm_slab_objects("rcm_uevent"),
			     *ids <= ids0 && *evs <= evs0), 30000) ? 0 : -1;
}

int rcm_qp_attrs(int fd, unsigned int id, unsigned int states,
		 struct rcm_init_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->id = id;
	a->qp_states = states;
	return ioctl(fd, RCM_IOCTL_INIT_QP_ATTR, a);
}

long rcm_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

void rcm_pause(void)
{
	/* Between two looks at a state: the wait is RCM_WAIT_FOR()'s bound. */
	usleep(10000);
}

/* Whether thread @tid sleeps inside system call @nr now. */
static bool in_syscall(pid_t tid, long nr)
{
	char path[64], st[256];
	long got = -2;
	char *s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &got) != 1)
		got = -2;
	fclose(f);
	if (got != nr)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	s = fgets(st, sizeof(st), f);
	fclose(f);
	/* The state follows the name, which may hold ')' itself. */
	s = s ? strrchr(st, ')') : NULL;
	return s && (s[2] == 'S' || s[2] == 'D');
}

int rcm_wait_in_syscall(pid_t tid, long nr, int ms)
{
	return RCM_WAIT_FOR(in_syscall(tid, nr), ms) ? 0 : -1;
}

bool rcm_have_intree_cm(void)
{
	return access("/dev/infiniband/rdma_cm", R_OK | W_OK) == 0;
}

#define RCM_TRACEFS "/sys/kernel/tracing"

/* Write @val to tracefs file @file: 0, or -1 with errno. */
static int rcm_trace_write(const char *file, const char *val)
{
	char path[128];
	int f, ok;

	snprintf(path, sizeof(path), RCM_TRACEFS "/%s", file);
	f = open(path, O_WRONLY | O_TRUNC);
	if (f < 0)
		return -1;
	ok = write(f, val, strlen(val)) == (ssize_t)strlen(val);
	close(f);
	return ok ? 0 : -1;
}

int rcm_trace_start(void)
{
	if (access(RCM_TRACEFS "/events", F_OK))
		mount("tracefs", RCM_TRACEFS, "tracefs", 0, NULL);
	if (access(RCM_TRACEFS "/events/rcm/enable", W_OK)) {
		errno = ENOENT;
		return -1;
	}
	if (rcm_trace_write("trace", "") ||
	    rcm_trace_write("events/rcm/enable", "1"))
		return -1;
	return 0;
}

size_t rcm_trace_stop(char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	int f;

	rcm_trace_write("events/rcm/enable", "0");
	f = open(RCM_TRACEFS "/trace", O_RDONLY);
	while (f >= 0 && n < size - 1 &&
	       (r = read(f, buf + n, size - 1 - n)) > 0)
		n += r;
	if (f >= 0)
		close(f);
	buf[n] = '\0';
	return n;
}

bool rcm_trace_line(const char *trace, const char *first, const char *then)
{
	const char *line = trace, *eol, *at;

	for (; *line; line = eol + 1) {
		eol = strchrnul(line, '\n');
		at = memmem(line, eol - line, first, strlen(first));
		if (at && memmem(at + strlen(first), eol - at - strlen(first),
				 then, strlen(then)))
			return true;
		if (!*eol)
			break;
	}
	return false;
}
