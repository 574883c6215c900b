// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_churn: many processes and threads living whole connection lives
 * at once, through the plain librdmacm API, so that it measures
 * whichever library runs it (rcm's through LD_LIBRARY_PATH, or
 * rdma-core's on the in-tree rdma_ucm).
 *
 * Usage: bench_churn VARIANT PROCS THREADS SECONDS ADDRESS PORT [SILENT]
 *   A server process listens on ADDRESS:PORT (a synchronous listener,
 *   rdma_get_request(), one thread per connection). PROCS client
 *   processes of THREADS threads each loop for SECONDS over one
 *   connection's life: an event channel, an id, address and route
 *   resolution, a QP, the connect, one message each way, the
 *   disconnect (the server's, once its reply is acknowledged, which the
 *   client answers), and everything destroyed again. VARIANT:
 *     clean   only that;
 *     faults  one life in eight each is refused by the server (private
 *             data "R"), resolves towards SILENT (a neighbour that
 *             never answers: ADDR_ERROR after 500 ms) or abandons its
 *             connect (the id destroyed before the answer);
 *     kill    clean lives, and one client process killed with SIGKILL
 *             every 1 to 4 s and started again;
 *     cm      clean lives without the message: the connection manager's
 *             part alone (the QPs are made, no work is posted to them
 *             but the receive). Soft-RoCE under TCG loses about one
 *             message exchange in a thousand on either stack (no
 *             completion within 30 s), which make check's guard
 *             (selftests/rcm/churn.sh) must not fail on.
 *   Prints, when done:
 *     churn VARIANT PROCS THREADS SECONDS calls N calls_per_s X
 *       conns N conns_per_s X refused N silent N abandoned N errors N
 *       kills N stale N
 *     churn-call NAME COUNT P50_US P99_US MAX_US     (for each call)
 *     churn-failed NAME COUNT   (the step at which failed lives failed)
 *     churn-detail SIDE NAME CODE COUNT  (a failed message: its work
 *       completion status, 30 no completion in 30 s, 31 a call failed;
 *       a failed disconnect: the event type that came, 30 none)
 *   Each call's time includes the wait for its event or completion
 *   (resolve, connect, message, disconnect); "errors" counts lives that
 *   failed where they should not have, and a call that waited longer
 *   than 30 s for its event counts as one; "stale" counts connects that
 *   ib_cm refused as stale (the QP number's previous connection still in
 *   time wait: rxe reuses numbers at once), which are not errors. Exits 0 unless the set-up
 *   failed.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rdma_verbs.h>

#define BENCH_NAME "bench_churn"
#include "bench.h"

#define WAIT_MS		30000	/* an event or completion later is an error */
#define MSG_SIZE	64
#define NBUCKET		160	/* latency buckets of 2^(1/4) us */
#define STALE_CONN	10	/* IB_CM_REJ_STALE_CONN */
#define NDETAIL		32
#define D_TIMEOUT	30	/* no event or completion within WAIT_MS */
#define D_OTHER		31	/* a call failed */

enum call {
	C_CHANNEL, C_CREATE_ID, C_RESOLVE_ADDR, C_RESOLVE_ROUTE, C_CREATE_QP,
	C_REG_MR, C_CONNECT, C_MESSAGE, C_DISCONNECT, C_DESTROY_QP,
	C_DESTROY_ID, C_DESTROY_CHANNEL, C_GET_REQUEST, C_ACCEPT, C_REJECT,
	NCALL
};

static const char *const call_name[NCALL] = {
	"create_event_channel", "create_id", "resolve_addr", "resolve_route",
	"create_qp", "reg_msgs", "connect", "message", "disconnect",
	"destroy_qp", "destroy_id", "destroy_event_channel", "get_request",
	"accept", "reject",
};

struct call_stat {
	uint64_t count, max_us;
	uint64_t hist[NBUCKET];
};

/* One per process (the server's is the last); shared, so a killed
 * process's finished calls still count. */
struct slot {
	struct call_stat call[NCALL];
	uint64_t failed[NCALL];
	uint64_t connect_failed[16][64];	/* event type, status + 32 */
	/* A failed message: its wc status or D_*; a failed disconnect: the
	 * event that came instead, or D_TIMEOUT. */
	uint64_t detail[NCALL][NDETAIL];
	uint64_t conns, refused, silent, abandoned, errors, stale;
};

static struct slot *slots;
static struct slot *mine;
static enum { CLEAN, FAULTS, KILL, CM } variant;
static struct sockaddr_in dst, silent_addr;
static double deadline_us;

static void add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static void record(enum call c, double t0)
{
	struct call_stat *s = &mine->call[c];
	double us = now_us() - t0;
	uint64_t u = us < 1 ? 1 : (uint64_t)us, old;
	int b = (int)(4 * log2((double)u));

	add(&s->count, 1);
	add(&s->hist[b < NBUCKET ? b : NBUCKET - 1], 1);
	old = __atomic_load_n(&s->max_us, __ATOMIC_RELAXED);
	while (u > old && !__atomic_compare_exchange_n(&s->max_us, &old, u, 0,
						       __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

/* The next event of @ch within WAIT_MS, acked: its type, or -1. */
static int wait_event(struct rdma_event_channel *ch, int *status)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int type;

	for (;;) {
		if (!rdma_get_cm_event(ch, &ev))
			break;
		if (errno != EAGAIN || poll(&p, 1, WAIT_MS) != 1)
			return -1;
	}
	type = ev->event;
	if (status)
		*status = ev->status;
	rdma_ack_cm_event(ev);
	return type;
}

/*
 * A completion on @cq (whose channel is @cc) within WAIT_MS: 0, its
 * ibv_wc_status when not a success, D_TIMEOUT or D_OTHER.
 */
static int wait_comp(struct ibv_cq *cq, struct ibv_comp_channel *cc)
{
	struct pollfd p = { .fd = cc->fd, .events = POLLIN };
	struct ibv_wc wc;
	struct ibv_cq *ecq;
	void *ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n)
			return n < 0 ? D_OTHER : wc.status % D_TIMEOUT;
		if (ibv_req_notify_cq(cq, 0))
			return D_OTHER;
		n = ibv_poll_cq(cq, 1, &wc);
		if (n)
			return n < 0 ? D_OTHER : wc.status % D_TIMEOUT;
		if (poll(&p, 1, WAIT_MS) != 1)
			return D_TIMEOUT;
		if (ibv_get_cq_event(cc, &ecq, &ctx))
			return D_OTHER;
		ibv_ack_cq_events(ecq, 1);
	}
}

static void qp_attr(struct ibv_qp_init_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->cap.max_send_wr = a->cap.max_recv_wr = 2;
	a->cap.max_send_sge = a->cap.max_recv_sge = 1;
	a->qp_type = IBV_QPT_RC;
	a->sq_sig_all = 1;
}

/*
 * One message each way on @id's QP, the receive posted already: 0, or
 * what went wrong (wait_comp()).
 */
static int exchange(struct rdma_cm_id *id, struct ibv_mr *mr, char *buf,
		    bool first)
{
	int ret = 0;

	if (!first)
		ret = wait_comp(id->recv_cq, id->recv_cq_channel);
	if (!ret && rdma_post_send(id, NULL, buf + MSG_SIZE, MSG_SIZE, mr, 0))
		ret = D_OTHER;
	if (!ret)
		ret = wait_comp(id->send_cq, id->send_cq_channel);
	if (!ret && first)
		ret = wait_comp(id->recv_cq, id->recv_cq_channel);
	return ret;
}

/* A client's connection life; what went wrong counts in the slot. */
static void life(unsigned int seed)
{
	struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
	int kind = variant == FAULTS ? (int)(seed % 8) : 7, type, st;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct ibv_qp_init_attr attr;
	struct ibv_mr *mr = NULL;
	char buf[2 * MSG_SIZE] = "";
	enum call step = C_CHANNEL;
	bool ok = false, qp = false;
	double t;

	t = now_us();
	ch = rdma_create_event_channel();
	record(C_CHANNEL, t);
	if (!ch)
		goto out;
	step = C_CREATE_ID;
	t = now_us();
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		id = NULL;
		goto out;
	}
	record(C_CREATE_ID, t);
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);

	step = C_RESOLVE_ADDR;
	t = now_us();
	if (kind == 1) {
		/* An absent peer: ADDR_ERROR is the right answer. */
		if (!rdma_resolve_addr(id, NULL, (struct sockaddr *)&silent_addr,
				       500) &&
		    wait_event(ch, NULL) == RDMA_CM_EVENT_ADDR_ERROR) {
			record(C_RESOLVE_ADDR, t);
			add(&mine->silent, 1);
			ok = true;
		}
		goto out;
	}
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) ||
	    wait_event(ch, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED)
		goto out;
	record(C_RESOLVE_ADDR, t);
	step = C_RESOLVE_ROUTE;
	t = now_us();
	if (rdma_resolve_route(id, 2000) ||
	    wait_event(ch, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		goto out;
	record(C_RESOLVE_ROUTE, t);
	qp_attr(&attr);
	step = C_CREATE_QP;
	t = now_us();
	if (rdma_create_qp(id, NULL, &attr))
		goto out;
	record(C_CREATE_QP, t);
	qp = true;
	step = C_REG_MR;
	t = now_us();
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	if (!mr)
		goto out;
	record(C_REG_MR, t);
	if (rdma_post_recv(id, NULL, buf, MSG_SIZE, mr))
		goto out;

	if (kind == 0) {
		param.private_data = "R";
		param.private_data_len = 2;
	}
	step = C_CONNECT;
	t = now_us();
	if (rdma_connect(id, &param))
		goto out;
	if (kind == 2) {
		/* Abandoned: destroyed before the answer. */
		add(&mine->abandoned, 1);
		ok = true;
		goto out;
	}
	type = wait_event(ch, &st);
	if (kind == 0) {
		ok = type == RDMA_CM_EVENT_REJECTED;
		if (ok) {
			record(C_CONNECT, t);
			add(&mine->refused, 1);
		}
		goto out;
	}
	if (type == RDMA_CM_EVENT_REJECTED && st == STALE_CONN) {
		/* ib_cm: the QP number's last connection is in time wait. */
		add(&mine->stale, 1);
		ok = true;
		goto out;
	}
	if (type != RDMA_CM_EVENT_ESTABLISHED) {
		add(&mine->connect_failed[type & 15][(st + 32) & 63], 1);
		goto out;
	}
	record(C_CONNECT, t);
	step = C_MESSAGE;
	t = now_us();
	type = variant == CM ? 0 : exchange(id, mr, buf, true);
	if (type) {
		add(&mine->detail[C_MESSAGE][type], 1);
		goto out;
	}
	if (variant != CM)
		record(C_MESSAGE, t);
	/*
	 * The server disconnects once its reply is acknowledged: a client
	 * that moved its QP to the error state first (which disconnecting
	 * does) could leave that acknowledgement unsent, and the server's
	 * send to time out.
	 */
	step = C_DISCONNECT;
	t = now_us();
	type = wait_event(ch, NULL);
	if (type != RDMA_CM_EVENT_DISCONNECTED) {
		add(&mine->detail[C_DISCONNECT][type < 0 ? D_TIMEOUT :
						 type % D_TIMEOUT], 1);
		goto out;
	}
	if (rdma_disconnect(id))
		goto out;
	record(C_DISCONNECT, t);
	add(&mine->conns, 1);
	ok = true;
out:
	if (mr)
		rdma_dereg_mr(mr);
	if (qp) {
		t = now_us();
		rdma_destroy_qp(id);
		record(C_DESTROY_QP, t);
	}
	if (id) {
		t = now_us();
		rdma_destroy_id(id);
		record(C_DESTROY_ID, t);
	}
	if (ch) {
		t = now_us();
		rdma_destroy_event_channel(ch);
		record(C_DESTROY_CHANNEL, t);
	}
	if (!ok) {
		add(&mine->errors, 1);
		add(&mine->failed[step], 1);
	}
}

static void *client_thread(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (now_us() < deadline_us)
		life(rand_r(&seed));
	return NULL;
}

static void client(unsigned int threads, unsigned int seed)
{
	pthread_t t[64];
	unsigned int i;

	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, client_thread,
				   (void *)(uintptr_t)(seed * 64 + i)))
			die("pthread_create");
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	exit(0);
}

/* The server's side of one connection, on its own thread. */
static void *serve_one(void *arg)
{
	struct rdma_cm_id *id = arg;
	struct ibv_qp_init_attr attr;
	struct ibv_mr *mr = NULL;
	char buf[2 * MSG_SIZE] = "";
	enum call step = NCALL;
	bool refuse;
	double t;
	int st;

	refuse = id->event &&
		 id->event->param.conn.private_data_len &&
		 ((const char *)id->event->param.conn.private_data)[0] == 'R';
	if (refuse) {
		t = now_us();
		rdma_reject(id, NULL, 0);
		record(C_REJECT, t);
		goto out;
	}
	qp_attr(&attr);
	step = C_CREATE_QP;
	if (rdma_create_qp(id, NULL, &attr))
		goto out;
	step = C_REG_MR;
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	if (!mr || rdma_post_recv(id, NULL, buf, MSG_SIZE, mr))
		goto out;
	step = C_ACCEPT;
	t = now_us();
	if (rdma_accept(id, NULL))
		goto out;	/* the client gave up, or was killed */
	record(C_ACCEPT, t);
	step = C_MESSAGE;
	st = variant == CM ? 0 : exchange(id, mr, buf, false);
	if (st) {
		add(&mine->detail[C_MESSAGE][st], 1);
		goto out;
	}
	/*
	 * This side disconnects, its reply acknowledged; the client answers.
	 * A synchronous id's disconnect returns with its DISCONNECTED (the
	 * DREP, or ib_cm's DREQ timeout when the client is gone).
	 */
	step = C_DISCONNECT;
	if (rdma_disconnect(id))
		goto out;
	step = NCALL;
out:
	if (step < NCALL) {
		static int told;

		if (__atomic_fetch_add(&told, 1, __ATOMIC_RELAXED) < 3)
			fprintf(stderr, "# server: %s failed: %s\n", call_name[step],
			       strerror(errno));
		add(&mine->failed[step], 1);
	}
	if (mr)
		rdma_dereg_mr(mr);
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return NULL;
}

static void server(int ready)
{
	struct rdma_cm_id *listen, *id;
	pthread_attr_t pa;
	pthread_t t;
	double t0;

	if (rdma_create_id(NULL, &listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen, (struct sockaddr *)&dst) ||
	    rdma_listen(listen, 1024))
		die("listener");
	if (write(ready, "y", 1) != 1)
		die("ready");
	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	for (;;) {
		t0 = now_us();
		if (rdma_get_request(listen, &id))
			continue;
		record(C_GET_REQUEST, t0);
		if (pthread_create(&t, &pa, serve_one, id))
			rdma_destroy_id(id);
	}
}

/* The @q quantile of @s in microseconds (the bucket's upper edge). */
static double quantile(const struct call_stat *s, double q)
{
	uint64_t want = (uint64_t)ceil(q * s->count), seen = 0;
	int b;

	for (b = 0; b < NBUCKET; b++) {
		seen += s->hist[b];
		if (seen >= want && want)
			return pow(2, (b + 1) / 4.0);
	}
	return 0;
}

static void report(unsigned int procs, unsigned int threads,
		   unsigned int secs, unsigned int kills)
{
	struct slot sum = {};
	uint64_t calls = 0;
	unsigned int p, c, b;

	for (p = 0; p <= procs; p++) {
		struct slot *s = &slots[p];

		for (c = 0; c < NCALL; c++) {
			sum.call[c].count += s->call[c].count;
			if (s->call[c].max_us > sum.call[c].max_us)
				sum.call[c].max_us = s->call[c].max_us;
			for (b = 0; b < NBUCKET; b++)
				sum.call[c].hist[b] += s->call[c].hist[b];
		}
		sum.conns += s->conns;
		sum.refused += s->refused;
		sum.silent += s->silent;
		sum.abandoned += s->abandoned;
		sum.errors += s->errors;
		sum.stale += s->stale;
		for (c = 0; c < NCALL; c++)
			sum.failed[c] += s->failed[c];
	}
	for (c = 0; c < NCALL; c++)
		calls += sum.call[c].count;
	printf("churn %s %u %u %u calls %llu calls_per_s %.1f conns %llu conns_per_s %.2f refused %llu silent %llu abandoned %llu errors %llu kills %u stale %llu\n",
	       variant == CLEAN ? "clean" : variant == FAULTS ? "faults" :
	       variant == KILL ? "kill" : "cm",
	       procs, threads, secs, (unsigned long long)calls,
	       (double)calls / secs, (unsigned long long)sum.conns,
	       (double)sum.conns / secs, (unsigned long long)sum.refused,
	       (unsigned long long)sum.silent,
	       (unsigned long long)sum.abandoned,
	       (unsigned long long)sum.errors, kills,
	       (unsigned long long)sum.stale);
	for (p = 0; p <= procs; p++)
		for (c = 0; c < 16; c++)
			for (b = 0; b < 64; b++)
				if (slots[p].connect_failed[c][b])
					printf("churn-connect-failed %s %d %llu\n",
					       rdma_event_str(c), (int)b - 32,
					       (unsigned long long)slots[p].connect_failed[c][b]);
	for (p = 0; p <= procs; p++)
		for (c = 0; c < NCALL; c++)
			for (b = 0; b < NDETAIL; b++)
				if (slots[p].detail[c][b])
					printf("churn-detail %s %s %u %llu\n",
					       p == procs ? "server" : "client",
					       call_name[c], b,
					       (unsigned long long)slots[p].detail[c][b]);
	for (c = 0; c < NCALL; c++)
		if (sum.failed[c])
			printf("churn-failed %s %llu\n", call_name[c],
			       (unsigned long long)sum.failed[c]);
	for (c = 0; c < NCALL; c++)
		if (sum.call[c].count)
			printf("churn-call %s %llu %.0f %.0f %llu\n", call_name[c],
			       (unsigned long long)sum.call[c].count,
			       quantile(&sum.call[c], 0.5),
			       quantile(&sum.call[c], 0.99),
			       (unsigned long long)sum.call[c].max_us);
}

static pid_t spawn_client(unsigned int k, unsigned int threads,
			  unsigned int seed)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		mine = &slots[k];
		client(threads, seed);
	}
	return pid;
}

int main(int argc, char *argv[])
{
	unsigned int procs, threads, secs, k, kills = 0, seed = 1;
	pid_t srv, pids[64];
	double next_kill;
	int pipefd[2];
	char c;

	if (argc < 7) {
		fprintf(stderr, "usage: %s clean|faults|kill|cm PROCS THREADS SECONDS ADDRESS PORT [SILENT]\n",
			argv[0]);
		return 2;
	}
	variant = !strcmp(argv[1], "faults") ? FAULTS :
		  !strcmp(argv[1], "kill") ? KILL :
		  !strcmp(argv[1], "cm") ? CM : CLEAN;
	procs = atoi(argv[2]);
	threads = atoi(argv[3]);
	secs = atoi(argv[4]);
	if (!procs || procs > 64 || !threads || threads > 64 || !secs)
		return 2;
	dst.sin_family = AF_INET;
	dst.sin_port = htons(atoi(argv[6]));
	silent_addr.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[5], &dst.sin_addr) != 1 ||
	    inet_pton(AF_INET, argc > 7 ? argv[7] : "198.18.0.254",
		      &silent_addr.sin_addr) != 1)
		return 2;
	slots = mmap(NULL, (procs + 1) * sizeof(*slots),
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED)
		die("mmap");

	if (pipe(pipefd))
		die("pipe");
	srv = fork();
	if (srv < 0)
		die("fork");
	if (!srv) {
		mine = &slots[procs];
		server(pipefd[1]);
	}
	if (read(pipefd[0], &c, 1) != 1) {
		fprintf(stderr, "%s: the server did not start\n", BENCH_NAME);
		return 1;
	}

	deadline_us = now_us() + secs * 1e6;
	for (k = 0; k < procs; k++)
		pids[k] = spawn_client(k, threads, seed++);
	next_kill = now_us() + (1 + rand_r(&seed) % 3) * 1e6;
	while (variant == KILL && now_us() < deadline_us - 1e6) {
		usleep(50000);
		if (now_us() < next_kill)
			continue;
		k = rand_r(&seed) % procs;
		kill(pids[k], SIGKILL);
		waitpid(pids[k], NULL, 0);
		kills++;
		pids[k] = spawn_client(k, threads, seed++);
		next_kill = now_us() + (1 + rand_r(&seed) % 4) * 1e6;
	}
	for (k = 0; k < procs; k++)
		waitpid(pids[k], NULL, 0);
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	report(procs, threads, secs, kills);
	return 0;
}
