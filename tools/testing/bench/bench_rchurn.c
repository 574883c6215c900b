// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_rchurn: short stream rsockets (rsocket(7)) one after another, the
 * connection churn of a socket application on rsockets, through the
 * plain rsocket API of librdmacm.so.1, so that it measures whichever
 * library runs it (rcm's through LD_LIBRARY_PATH, or rdma-core's on the
 * in-tree rdma_ucm).
 *
 * Usage: bench_rchurn ADDRESS PROCS SECONDS [BYTES [block|poll]]
 *   PROCS client processes are forked first (before any RDMA resource
 *   exists); this process then listens on ADDRESS, port 0 (the port read
 *   back with rgetsockname() and handed to the clients through a pipe),
 *   accepts - "block" (the default): a thread blocked in raccept();
 *   "poll": rpoll() on the listener (and on a pipe that says when the
 *   clients are done), then raccept(), as an event loop does - and
 *   serves each accepted rsocket in a thread of its own: it reads
 *   BYTES (default 64), writes them back, waits for the client's close
 *   (rrecv() returning 0) and closes. Each client, for SECONDS, lives
 *   whole connections: rsocket(), rconnect(), rsend() of BYTES, rrecv()
 *   of the echo (checked), rclose().
 *
 *   Prints "rchurn PROCS BYTES SECONDS conns N conns_per_s X errors E
 *   life_p50_us A life_p99_us B connect_p50_us C connect_p99_us D
 *   echo_p50_us F close_p50_us G": connections completed per second of
 *   the clients' run (from the go to the last client's end), the lives
 *   that failed, the median and 99th percentile of a life (rsocket() to
 *   rclose() returned) and of its rsocket() and rconnect(), and the
 *   medians of its message exchange and of its rclose(), over every life
 *   of every client.
 *
 * Exit: 0 when the run completed (errors are counted, not fatal), 1 on a
 * set-up failure or when no connection completed, 2 on a usage error.
 */
#define BENCH_NAME "bench_rchurn"

#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "bench.h"

#define MAXLIVES	(1 << 16)	/* samples kept per client */
#define MAXBYTES	65536

struct lives {
	unsigned int	n;		/* completed lives */
	unsigned int	errors;
	uint32_t	life_us[MAXLIVES];
	uint32_t	connect_us[MAXLIVES];
	uint32_t	echo_us[MAXLIVES];
	uint32_t	close_us[MAXLIVES];
};

static unsigned int nbytes = 64;
static int served;		/* server threads still running */
static pthread_mutex_t served_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t served_none = PTHREAD_COND_INITIALIZER;

static void fill(uint8_t *buf, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < nbytes; i++)
		buf[i] = (uint8_t)(i * 13 + seed);
}

/* rsend() of all @len bytes: 0, or -1. */
static int send_all(int s, const uint8_t *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = rsend(s, buf, len, 0);
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

/* One life on @dst: 0 with its times in @l's next slot, or -1. */
static int life(const struct sockaddr_in *dst, struct lives *l,
		unsigned int seed)
{
	uint8_t out[MAXBYTES], in[MAXBYTES];
	double t0, t1, t2, t3;
	int s, ok;

	fill(out, seed);
	t0 = now_us();
	s = rsocket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	if (rconnect(s, (const struct sockaddr *)dst, sizeof(*dst))) {
		rclose(s);
		return -1;
	}
	t1 = now_us();
	ok = !send_all(s, out, nbytes) &&
	     rrecv(s, in, nbytes, MSG_WAITALL) == (ssize_t)nbytes &&
	     !memcmp(in, out, nbytes);
	t2 = now_us();
	if (rclose(s) || !ok)
		return -1;
	t3 = now_us();
	if (l->n < MAXLIVES) {
		l->life_us[l->n] = (uint32_t)(t3 - t0);
		l->connect_us[l->n] = (uint32_t)(t1 - t0);
		l->echo_us[l->n] = (uint32_t)(t2 - t1);
		l->close_us[l->n] = (uint32_t)(t3 - t2);
	}
	return 0;
}

/* A client process: wait for the port on @go, live lives for @secs. */
static void client(struct lives *l, int go, unsigned int secs,
		   struct sockaddr_in dst, unsigned int k)
{
	unsigned short port;
	unsigned int seed = k * 7919, streak = 0;
	double end;

	if (read(go, &port, sizeof(port)) != sizeof(port))
		exit(1);
	dst.sin_port = port;
	end = now_us() + secs * 1e6;
	while (now_us() < end) {
		if (!life(&dst, l, seed++)) {
			l->n++;
			streak = 0;
			continue;
		}
		l->errors++;
		/* A stack that refuses every connection ends the run. */
		if (++streak >= 100)
			exit(1);
	}
	exit(0);
}

/*
 * rrecv() of @len bytes, or less at the end of the stream. librdmacm 44
 * fails even a blocking rrecv() with EAGAIN while an accepted rsocket's
 * connection is not yet established: wait for it with rpoll(), as an
 * application must.
 */
static ssize_t recv_some(int s, uint8_t *buf, size_t len, int flags)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	ssize_t n;

	while ((n = rrecv(s, buf, len, flags)) < 0 && errno == EAGAIN)
		if (rpoll(&p, 1, 60000) <= 0)
			break;
	return n;
}

/* A server thread: echo one message, wait for the close, close. */
static void *serve_one(void *arg)
{
	uint8_t buf[MAXBYTES];
	int s = (int)(intptr_t)arg;

	if (recv_some(s, buf, nbytes, MSG_WAITALL) == (ssize_t)nbytes &&
	    !send_all(s, buf, nbytes))
		while (recv_some(s, buf, sizeof(buf), 0) > 0)
			;
	rclose(s);
	pthread_mutex_lock(&served_lock);
	if (!--served)
		pthread_cond_signal(&served_none);
	pthread_mutex_unlock(&served_lock);
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The @pct percentile of @v's @n values (sorted here). */
static uint32_t percentile(uint32_t *v, size_t n, unsigned int pct)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u32);
	return v[(n - 1) * pct / 100];
}

/* Serve accepted rsocket @s in a thread of its own. */
static void serve(int s)
{
	pthread_attr_t pa;
	pthread_t t;

	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&served_lock);
	served++;
	pthread_mutex_unlock(&served_lock);
	if (pthread_create(&t, &pa, serve_one, (void *)(intptr_t)s))
		die("pthread_create");
	pthread_attr_destroy(&pa);
}

/* The "block" accept thread: raccept() until the process ends. */
static void *accept_thread(void *arg)
{
	int lsock = (int)(intptr_t)arg, s;

	for (;;) {
		s = raccept(lsock, NULL, NULL);
		if (s >= 0)
			serve(s);
		else if (errno != EINTR && errno != EAGAIN)
			return NULL;
	}
}

/*
 * Accept and serve until every client has ended (@done hangs up): in a
 * thread blocked in raccept(), or with @use_poll by rpoll().
 */
static void accept_loop(int lsock, int done, bool use_poll)
{
	struct pollfd p[2];
	pthread_t t;
	char c;
	int s;

	if (!use_poll) {
		if (pthread_create(&t, NULL, accept_thread,
				   (void *)(intptr_t)lsock))
			die("pthread_create");
		while (read(done, &c, 1) < 0 && errno == EINTR)
			;
		return;
	}
	for (;;) {
		p[0] = (struct pollfd){ .fd = lsock, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = done, .events = POLLIN };
		if (rpoll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("rpoll");
		}
		if (p[1].revents)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		s = raccept(lsock, NULL, NULL);
		if (s >= 0)
			serve(s);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	unsigned int procs, secs, k, conns = 0, errors = 0, i, j;
	uint32_t *life_us, *connect_us, *echo_us, *close_us;
	int go[2], done[2], lsock, st, bad = 0;
	bool use_poll = argc > 5 && !strcmp(argv[5], "poll");
	struct lives *lives;
	struct timespec until;
	double t0, t1;
	pid_t *pids;

	if (argc < 4 || inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1 ||
	    !(procs = atoi(argv[2])) || procs > 64 ||
	    !(secs = atoi(argv[3])) ||
	    (argc > 4 && (!(nbytes = atoi(argv[4])) || nbytes > MAXBYTES)) ||
	    (argc > 5 && !use_poll && strcmp(argv[5], "block"))) {
		fprintf(stderr, "usage: %s ADDRESS PROCS SECONDS [BYTES [block|poll]]\n",
			argv[0]);
		return 2;
	}
	lives = mmap(NULL, procs * sizeof(*lives), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(procs, sizeof(*pids));
	if (lives == MAP_FAILED || !pids || pipe(go) || pipe(done))
		die("set-up");
	signal(SIGPIPE, SIG_IGN);
	for (k = 0; k < procs; k++) {
		pids[k] = fork();
		if (pids[k] < 0)
			die("fork");
		if (!pids[k]) {
			close(go[1]);
			close(done[0]);
			client(&lives[k], go[0], secs, sin, k);
		}
	}
	close(go[0]);
	close(done[1]);
	lsock = rsocket(AF_INET, SOCK_STREAM, 0);
	if (lsock < 0 || rbind(lsock, (struct sockaddr *)&sin, sizeof(sin)) ||
	    rlisten(lsock, 1024) ||
	    rgetsockname(lsock, (struct sockaddr *)&sin, &len))
		die("listen");
	t0 = now_us();
	for (k = 0; k < procs; k++)
		if (write(go[1], &sin.sin_port, sizeof(sin.sin_port)) !=
		    sizeof(sin.sin_port))
			die("go");
	accept_loop(lsock, done[0], use_poll);
	t1 = now_us();
	for (k = 0; k < procs; k++)
		if (waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad = 1;
	/*
	 * The last server threads see their clients' closes; 30 s is a
	 * bound only a hang reaches.
	 */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&served_lock);
	while (served && !pthread_cond_timedwait(&served_none, &served_lock,
						  &until))
		;
	pthread_mutex_unlock(&served_lock);
	/* The "block" accept thread stays in raccept() until exit. */
	if (use_poll)
		rclose(lsock);

	for (k = 0; k < procs; k++) {
		conns += lives[k].n;
		errors += lives[k].errors;
	}
	life_us = calloc(conns + 1, sizeof(*life_us));
	connect_us = calloc(conns + 1, sizeof(*connect_us));
	echo_us = calloc(conns + 1, sizeof(*echo_us));
	close_us = calloc(conns + 1, sizeof(*close_us));
	if (!life_us || !connect_us || !echo_us || !close_us)
		die("calloc");
	for (k = 0, j = 0; k < procs; k++)
		for (i = 0; i < lives[k].n && i < MAXLIVES; i++, j++) {
			life_us[j] = lives[k].life_us[i];
			connect_us[j] = lives[k].connect_us[i];
			echo_us[j] = lives[k].echo_us[i];
			close_us[j] = lives[k].close_us[i];
		}
	printf("rchurn %u %u %u conns %u conns_per_s %.1f errors %u life_p50_us %u life_p99_us %u connect_p50_us %u connect_p99_us %u echo_p50_us %u close_p50_us %u\n",
	       procs, nbytes, secs, conns, conns / ((t1 - t0) / 1e6), errors,
	       percentile(life_us, j, 50), percentile(life_us, j, 99),
	       percentile(connect_us, j, 50), percentile(connect_us, j, 99),
	       percentile(echo_us, j, 50), percentile(close_us, j, 50));
	if (bad)
		fprintf(stderr, "bench_rchurn: a client failed\n");
	return bad || !conns;
}
