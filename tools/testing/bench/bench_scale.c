// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_scale: the cost of one connection as the number of established
 * connections grows, through the plain librdmacm API, so that it
 * measures whichever library runs it (rcm's through LD_LIBRARY_PATH, or
 * rdma-core's on the in-tree rdma_ucm).
 *
 * Usage: bench_scale COUNT WINDOW REPEAT ADDRESS PORT (0: a free one)
 *   The listener (this process) forks one client process, which, REPEAT
 *   times, connects COUNT ids with at most WINDOW of them being set up
 *   at any time (create, resolve address and route, connect, establish)
 *   and all established ones kept, then disconnects and destroys them
 *   (WINDOW at a time). The listener accepts every request and destroys
 *   each request id on its DISCONNECTED. No QPs: the CM's work alone
 *   (connect and accept name a QP number; the client calls
 *   rdma_establish(), which sends the RTU).
 *
 *   The bounded window keeps the queue through ib_cm, MAD and the
 *   device the same at every COUNT, unlike a driver that puts every
 *   connection in flight at once (cmtime): what grows with COUNT is
 *   then the cost of the tables and lists that hold the established
 *   connections.
 *
 *   An error event (address, route, unreachable, rejected, connect
 *   error) costs the id, which is destroyed and replaced: the run goes
 *   on and counts it, and gives up after COUNT failures.
 *
 *   Prints "scale COUNT WINDOW REPEAT connect_us C connect_cpu_us CC
 *   teardown_us T teardown_cpu_us TC slab_bytes_per_conn S failed F":
 *   per connection, the wall time and the guest-wide CPU time (user +
 *   system + irq + softirq of /proc/stat's cpu line: both sides and the
 *   kernel's work for them) of setting up and of tearing down, summed
 *   over the REPEAT rounds; the growth of the kernel's slab memory
 *   from before the listener to COUNT connections established, per
 *   connection; and the failed connections.
 *
 *   Then "phases COUNT WINDOW addr_us A route_us R connect_us C
 *   set_up_us S": medians over the connections established in all
 *   rounds, as the client sees them, of the time from rdma_create_id()
 *   to reading ADDR_RESOLVED, from there to reading ROUTE_RESOLVED (and
 *   calling rdma_connect()), from there to reading CONNECT_RESPONSE, and
 *   of the whole. With WINDOW connections in set-up, the phases share
 *   WINDOW times the wall time per connection between them: a phase
 *   that gets shorter leaves the others more of the queue.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define BENCH_NAME "bench_scale"
#include "bench.h"

/* Busy ticks of /proc/stat's cpu line: user, nice, system, irq, softirq. */
static long long busy_ticks(void)
{
	long long v[7] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f || fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld", &v[0],
			 &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7) {
		fprintf(stderr, "bench_scale: /proc/stat unreadable\n");
		exit(1);
	}
	fclose(f);
	return v[0] + v[1] + v[2] + v[5] + v[6];
}

/* The phases of one connection's set-up, kept in its id's context. */
enum { PH_ADDR, PH_ROUTE, PH_CONNECT, PH_ALL, PH_N };

struct conn_times {
	double start, addr, route;
};

struct client {
	struct rdma_event_channel *ch;
	struct sockaddr_in *dst;
	struct rdma_cm_id **up;		/* the established ids */
	int n, window;
	int nup, inflight, failed;
	unsigned int qpn;		/* the next QP number to name */
	double *phase[PH_N];		/* per established connection */
	int nphase, maxphase;
};

/*
 * An id being set up failed (@what: the event or the call): it goes, and
 * another takes its place.
 */
static void failed(struct client *c, struct rdma_cm_id *id, const char *what,
		   int status)
{
	if (c->failed++ < 3)
		fprintf(stderr, "bench_scale: %s, status %d: replaced\n", what,
			status);
	if (c->failed > c->n) {
		fprintf(stderr, "bench_scale: %d failures, giving up\n",
			c->failed);
		exit(1);
	}
	c->inflight--;
	free(id->context);
	rdma_destroy_id(id);
}

/* Start setting up one more id. */
static void start(struct client *c)
{
	struct conn_times *t = calloc(1, sizeof(*t));
	struct rdma_cm_id *id;

	if (!t)
		die("calloc");
	t->start = now_us();
	if (rdma_create_id(c->ch, &id, t, RDMA_PS_TCP))
		die("rdma_create_id");
	c->inflight++;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)c->dst, 30000))
		failed(c, id, "rdma_resolve_addr", -errno);
}

/* An id is established: its phases join the client's. */
static void phases_add(struct client *c, struct rdma_cm_id *id)
{
	struct conn_times *t = id->context;
	double now = now_us();

	if (c->nphase < c->maxphase) {
		c->phase[PH_ADDR][c->nphase] = t->addr - t->start;
		c->phase[PH_ROUTE][c->nphase] = t->route - t->addr;
		c->phase[PH_CONNECT][c->nphase] = now - t->route;
		c->phase[PH_ALL][c->nphase] = now - t->start;
		c->nphase++;
	}
	free(t);
	id->context = NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of one phase (sorts it). */
static double phase_median(struct client *c, int ph)
{
	if (!c->nphase)
		return 0;
	qsort(c->phase[ph], c->nphase, sizeof(double), cmp_double);
	return c->phase[ph][c->nphase / 2];
}

/* Connect c->n ids, at most c->window in set-up at a time. */
static void connect_all(struct client *c)
{
	struct rdma_conn_param p = BENCH_CONNECT_PARAM;
	struct rdma_cm_id *id;
	int type, status;

	c->nup = 0;
	while (c->nup < c->n) {
		while (c->inflight < c->window && c->nup + c->inflight < c->n)
			start(c);
		if (!c->inflight)
			continue;
		type = next_event(c->ch, &id, &status);
		switch (type) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			((struct conn_times *)id->context)->addr = now_us();
			if (rdma_resolve_route(id, 30000))
				failed(c, id, "rdma_resolve_route", -errno);
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			/*
			 * A QP number of its own: ib_cm refuses a second
			 * connection from the same QP (REJ "stale connection").
			 */
			((struct conn_times *)id->context)->route = now_us();
			p.qp_num = 0x10000 + c->qpn++ % 0x7f0000;
			if (rdma_connect(id, &p))
				failed(c, id, "rdma_connect", -errno);
			break;
		case RDMA_CM_EVENT_CONNECT_RESPONSE:
			if (rdma_establish(id)) {
				failed(c, id, "rdma_establish", -errno);
				break;
			}
			/* fall through */
		case RDMA_CM_EVENT_ESTABLISHED:
			phases_add(c, id);
			c->up[c->nup++] = id;
			c->inflight--;
			break;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
			failed(c, id, rdma_event_str(type), status);
			break;
		default:
			fprintf(stderr, "bench_scale: connecting: %s, status %d\n",
				rdma_event_str(type), status);
			exit(1);
		}
	}
}

/* Disconnect and destroy the established ids, c->window at a time. */
static void disconnect_all(struct client *c)
{
	struct rdma_cm_id *id;
	int next = 0, done = 0, status, type;

	c->inflight = 0;
	while (done < c->nup) {
		while (c->inflight < c->window && next < c->nup) {
			if (rdma_disconnect(c->up[next++]))
				die("rdma_disconnect");
			c->inflight++;
		}
		type = next_event(c->ch, &id, &status);
		if (type == RDMA_CM_EVENT_TIMEWAIT_EXIT)
			continue;
		if (type != RDMA_CM_EVENT_DISCONNECTED) {
			fprintf(stderr, "bench_scale: disconnecting: %s, status %d\n",
				rdma_event_str(type), status);
			exit(1);
		}
		rdma_destroy_id(id);
		c->inflight--;
		done++;
	}
	c->inflight = 0;
}

static void client(int n, int window, int repeat, struct sockaddr_in *dst,
		   long slab0)
{
	struct client c = { .dst = dst, .n = n, .window = window };
	double conn_us = 0, down_us = 0, t0, t1, t2;
	long long conn_ticks = 0, down_ticks = 0, k0, k1, k2;
	long slab = 0;
	int r;

	c.ch = rdma_create_event_channel();
	c.up = calloc(n, sizeof(*c.up));
	if (!c.ch || !c.up)
		die("client set-up");
	c.maxphase = n * repeat;
	for (r = 0; r < PH_N; r++) {
		c.phase[r] = calloc(c.maxphase, sizeof(double));
		if (!c.phase[r])
			die("client set-up");
	}
	for (r = 0; r < repeat; r++) {
		k0 = busy_ticks();
		t0 = now_us();
		connect_all(&c);
		t1 = now_us();
		k1 = busy_ticks();
		if (r == repeat - 1)
			slab = slab_kb();
		disconnect_all(&c);
		t2 = now_us();
		k2 = busy_ticks();
		conn_us += t1 - t0;
		down_us += t2 - t1;
		conn_ticks += k1 - k0;
		down_ticks += k2 - k1;
	}
	n *= repeat;
	printf("scale %d %d %d connect_us %.1f connect_cpu_us %.1f teardown_us %.1f teardown_cpu_us %.1f slab_bytes_per_conn %ld failed %d\n",
	       c.n, window, repeat, conn_us / n,
	       conn_ticks * 1e6 / sysconf(_SC_CLK_TCK) / n, down_us / n,
	       down_ticks * 1e6 / sysconf(_SC_CLK_TCK) / n,
	       (slab - slab0) * 1024 / c.n, c.failed);
	printf("phases %d %d addr_us %.1f route_us %.1f connect_us %.1f set_up_us %.1f\n",
	       c.n, window, phase_median(&c, PH_ADDR),
	       phase_median(&c, PH_ROUTE), phase_median(&c, PH_CONNECT),
	       phase_median(&c, PH_ALL));
	fflush(stdout);
	rdma_destroy_event_channel(c.ch);
	exit(0);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_conn_param p = BENCH_ACCEPT_PARAM;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listener, *id;
	int n, window, repeat, st, status, type, errors = 0, done[2];
	unsigned int nreq = 0;
	struct pollfd pfd[2];
	long slab0;
	pid_t pid;

	if (argc != 6 || (n = atoi(argv[1])) <= 0 ||
	    (window = atoi(argv[2])) <= 0 || (repeat = atoi(argv[3])) <= 0 ||
	    inet_pton(AF_INET, argv[4], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: %s COUNT WINDOW REPEAT IPV4-ADDRESS PORT\n",
			argv[0]);
		return 2;
	}
	sin.sin_port = htons(atoi(argv[5]));
	if (pipe(done))
		die("pipe");
	slab0 = slab_kb();
	listener = bench_listener(&ch, &sin);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(done[0]);
		rdma_destroy_event_channel(ch);
		client(n, window, repeat, &sin, slab0);
	}
	close(done[1]);
	/*
	 * Accept every request; a request id goes on its DISCONNECTED (its
	 * destroy answers the DREQ) or on an error event. Until the client
	 * has exited (the pipe's end closes with it).
	 */
	pfd[0] = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = done[0], .events = POLLIN };
	while (!(pfd[1].revents & (POLLIN | POLLHUP))) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		type = next_event(ch, &id, &status);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			p.qp_num = 0x800000 + nreq++ % 0x7f0000;
			if (rdma_accept(id, &p)) {
				errors++;
				rdma_destroy_id(id);
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_destroy_id(id);
			break;
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
			if (id != listener) {
				errors++;
				rdma_destroy_id(id);
				break;
			}
			/* fall through */
		default:
			fprintf(stderr, "bench_scale: listener: %s, status %d\n",
				rdma_event_str(type), status);
			kill(pid, SIGTERM);
			waitpid(pid, &st, 0);
			return 1;
		}
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	if (errors)
		fprintf(stderr, "bench_scale: listener: %d request ids failed\n",
			errors);
	/* The listener's request ids still open go with the channel's file. */
	rdma_destroy_id(listener);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
