// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_churn: many processes and threads living whole connection lives
 * at once, through the plain librdmacm API, so that it measures
 * whichever library runs it (rcm's through LD_LIBRARY_PATH, or
 * rdma-core's on the in-tree rdma_ucm).
 *
 * Usage: bench_churn VARIANT PROCS THREADS SECONDS ADDRESS PORT [SILENT]
 *   A server process listens on ADDRESS:PORT (a synchronous listener,
 *   rdma_get_request(), one thread per connection); PORT 0: on the port
 *   that binding port 0 draws, which the server reads back and a server
 *   started again after a crash takes over. PROCS client
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
 *     remove  kill, and the RDMA device removed and added again twice
 *             (rdma link delete, rdma link add: at a third and two
 *             thirds of SECONDS), as an administrator or a driver
 *             reset does. Every process does what librdmacm 44 needs
 *             of it to let the removal finish: what fails on the
 *             device is destroyed, and the device list read again
 *             (rdma_get_devices()); the server listens again once it
 *             can. A life that overlapped a removal (from its start to
 *             a second after the device came back) and failed is
 *             "lost", not an error. Needs RCM_NETDEV_RXE (the netdev
 *             of rxe0, as the guest sets it);
 *     cm      clean lives without the message: the connection manager's
 *             part alone (the QPs are made, no work is posted to them
 *             but the receive). Soft-RoCE under TCG loses about one
 *             message exchange in a thousand on either stack (no
 *             completion within 30 s), which make check's guard
 *             (selftests/rcm/churn.sh) must not fail on.
 *   Prints, when done:
 *     churn VARIANT PROCS THREADS SECONDS calls N calls_per_s X
 *       conns N conns_per_s X refused N silent N abandoned N errors N
 *       kills N stale N crashes N
 *     churn-removal I DELETE_MS RECOVER_MS LOST (remove: per removal,
 *       how long rdma link delete took, from rdma link add to the
 *       next connection, -1 if none; and the lives lost to it)
 *     churn-died WHO signal N|exit N (a client, the server or the
 *       remover that ended otherwise than by the bench's SIGKILL or
 *       exit 0: a crash)
 *     churn-rate BEFORE AFTER (remove: connections per second before
 *       the first removal, and from a second after the last re-add)
 *     churn-call NAME COUNT P50_US P99_US MAX_US     (for each call)
 *     churn-failed NAME COUNT   (the step at which failed lives failed)
 *     churn-detail SIDE NAME CODE COUNT  (a failed message: its work
 *       completion status, 30 no completion in 30 s, 31 a call failed;
 *       a failed disconnect: the event type that came, 30 none)
 *   With RCM_CHURN_MARK=1 in the environment, every thread names itself
 *   (prctl(PR_SET_NAME), so its comm in the scheduler's and perf's
 *   records) after its role and the call it is in: "c:" a client's, "s:"
 *   the server's, then the call's name cut to 13 characters
 *   ("c:resolve_addr", "s:accept"); the untimed steps between calls
 *   count to the call before them. guest-churn-attrib.sh splits its
 *   off-CPU time so. It costs a system call per call: not for the timed
 *   runs.
 *   Each call's time includes the wait for its event or completion
 *   (resolve, connect, message, disconnect); "errors" counts lives that
 *   failed where they should not have, and a call that waited longer
 *   than 30 s for its event counts as one; "stale" counts connects that
 *   ib_cm refused as stale (the QP number's previous connection still in
 *   time wait: rxe reuses numbers at once), which are not errors. Exits 0 unless the set-up
 *   failed.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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
#define D_EVENT		29	/* a CM event came instead (remove) */
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
	uint64_t lost[NCALL];		/* remove: the step lost lives failed at */
	uint64_t connect_failed[16][64];	/* event type, status + 32 */
	/* A failed message: its wc status or D_*; a failed disconnect: the
	 * event that came instead, or D_TIMEOUT. */
	uint64_t detail[NCALL][NDETAIL];
	uint64_t conns, refused, silent, abandoned, errors, stale;
};

#define NREMOVE		2
#define MAXSECS		600

/* remove: what the remover did, and when (us of now_us(), 0: not yet). */
struct removal {
	uint64_t del_us, gone_us, added_us, first_us, lost;
};

static struct ctl {
	struct removal rm[NREMOVE];
	unsigned int nrm;		/* removals begun */
	unsigned int nprocs;		/* client processes: slots[nprocs] is the server's */
	uint64_t start_us;
	uint64_t conns_at[MAXSECS];	/* connections made in each second */
} *ctl;

static struct slot *slots;
static struct slot *mine;
static enum { CLEAN, FAULTS, KILL, CM, REMOVE } variant;
static struct sockaddr_in dst, silent_addr;
static double deadline_us;
static bool marking;		/* RCM_CHURN_MARK=1 */

/*
 * The calling thread is in call @c now (RCM_CHURN_MARK): its name says
 * so. Returns now_us(), the call's start.
 */
static double start(enum call c)
{
	char name[16];

	if (marking) {
		snprintf(name, sizeof(name), "%c:%s",
			 mine == &slots[ctl->nprocs] ? 's' : 'c', call_name[c]);
		prctl(PR_SET_NAME, name);
	}
	return now_us();
}

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
 * Whether @cq had a completion: then *@ret is 0, its ibv_wc_status when
 * not a success, or D_OTHER when polling failed.
 */
static bool cq_polled(struct ibv_cq *cq, int *ret)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(cq, 1, &wc);

	if (!n)
		return false;
	*ret = n < 0 ? D_OTHER : wc.status % D_TIMEOUT;
	return true;
}

/*
 * A completion on @cq (whose channel is @cc) within WAIT_MS: 0, its
 * ibv_wc_status when not a success, D_TIMEOUT or D_OTHER; D_EVENT when,
 * in the remove variant, the connection's CM channel @cm has an event
 * instead (a removal, or the peer gone), left there.
 */
static int wait_comp(struct ibv_cq *cq, struct ibv_comp_channel *cc,
		     struct rdma_event_channel *cm)
{
	struct pollfd p[2] = {
		{ .fd = cc->fd, .events = POLLIN },
		{ .fd = variant == REMOVE ? cm->fd : -1, .events = POLLIN },
	};
	struct ibv_cq *ecq;
	void *ctx;
	int ret;

	for (;;) {
		if (cq_polled(cq, &ret))
			return ret;
		if (ibv_req_notify_cq(cq, 0))
			return D_OTHER;
		if (cq_polled(cq, &ret))
			return ret;
		if (poll(p, 2, WAIT_MS) < 1)
			return D_TIMEOUT;
		/* Only the CM channel: a completion may still have come. */
		if (!(p[0].revents & POLLIN))
			return cq_polled(cq, &ret) ? ret : D_EVENT;
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
		ret = wait_comp(id->recv_cq, id->recv_cq_channel, id->channel);
	if (!ret && rdma_post_send(id, NULL, buf + MSG_SIZE, MSG_SIZE, mr, 0))
		ret = D_OTHER;
	if (!ret)
		ret = wait_comp(id->send_cq, id->send_cq_channel, id->channel);
	if (!ret && first)
		ret = wait_comp(id->recv_cq, id->recv_cq_channel, id->channel);
	return ret;
}

/*
 * remove: the removal that a life from @t0 until now overlapped (from
 * its rdma link delete until a second after its rdma link add), or NULL.
 */
static struct removal *overlapped(double t0)
{
	unsigned int i, n = __atomic_load_n(&ctl->nrm, __ATOMIC_ACQUIRE);
	double t = now_us();

	for (i = 0; i < n && i < NREMOVE; i++) {
		struct removal *r = &ctl->rm[i];
		uint64_t added = __atomic_load_n(&r->added_us, __ATOMIC_RELAXED);

		if (t >= r->del_us && (!added || t0 <= added + 1e6))
			return r;
	}
	return NULL;
}

/* A connection was made: count it in its second, and after a removal. */
static void connected(void)
{
	double t = now_us();
	uint64_t sec = (uint64_t)(t - ctl->start_us) / 1000000, zero = 0;
	unsigned int n = __atomic_load_n(&ctl->nrm, __ATOMIC_ACQUIRE);

	add(&mine->conns, 1);
	if (sec < MAXSECS)
		add(&ctl->conns_at[sec], 1);
	if (n && ctl->rm[n - 1].added_us)
		__atomic_compare_exchange_n(&ctl->rm[n - 1].first_us, &zero,
					    (uint64_t)t, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
}

/*
 * A life or a listener failed: in the remove variant, read the device
 * list again, as an application must after a removal for librdmacm 44
 * to close the removed device (it keeps a device open until its list
 * no longer has it, and the removal waits for that).
 */
static void forget_devices(void)
{
	if (variant == REMOVE)
		rdma_free_devices(rdma_get_devices(NULL));
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
	double t, t0 = start(C_CHANNEL);
	struct removal *r;

	t = t0;
	ch = rdma_create_event_channel();
	record(C_CHANNEL, t);
	if (!ch)
		goto out;
	step = C_CREATE_ID;
	t = start(C_CREATE_ID);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		id = NULL;
		goto out;
	}
	record(C_CREATE_ID, t);
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);

	step = C_RESOLVE_ADDR;
	t = start(C_RESOLVE_ADDR);
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
	t = start(C_RESOLVE_ROUTE);
	if (rdma_resolve_route(id, 2000) ||
	    wait_event(ch, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		goto out;
	record(C_RESOLVE_ROUTE, t);
	qp_attr(&attr);
	step = C_CREATE_QP;
	t = start(C_CREATE_QP);
	if (rdma_create_qp(id, NULL, &attr))
		goto out;
	record(C_CREATE_QP, t);
	qp = true;
	step = C_REG_MR;
	t = start(C_REG_MR);
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
	t = start(C_CONNECT);
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
	t = start(C_MESSAGE);
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
	t = start(C_DISCONNECT);
	type = wait_event(ch, NULL);
	if (type != RDMA_CM_EVENT_DISCONNECTED) {
		add(&mine->detail[C_DISCONNECT][type < 0 ? D_TIMEOUT :
						 type % D_TIMEOUT], 1);
		goto out;
	}
	if (rdma_disconnect(id))
		goto out;
	record(C_DISCONNECT, t);
	connected();
	ok = true;
out:
	if (mr)
		rdma_dereg_mr(mr);
	if (qp) {
		t = start(C_DESTROY_QP);
		rdma_destroy_qp(id);
		record(C_DESTROY_QP, t);
	}
	if (id) {
		t = start(C_DESTROY_ID);
		rdma_destroy_id(id);
		record(C_DESTROY_ID, t);
	}
	if (ch) {
		t = start(C_DESTROY_CHANNEL);
		rdma_destroy_event_channel(ch);
		record(C_DESTROY_CHANNEL, t);
	}
	if (ok)
		return;
	r = variant == REMOVE ? overlapped(t0) : NULL;
	if (r) {
		add(&r->lost, 1);
		add(&mine->lost[step], 1);
	} else {
		add(&mine->errors, 1);
		add(&mine->failed[step], 1);
	}
	forget_devices();
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
		t = start(C_REJECT);
		rdma_reject(id, NULL, 0);
		record(C_REJECT, t);
		goto out;
	}
	qp_attr(&attr);
	step = C_CREATE_QP;
	start(C_CREATE_QP);
	if (rdma_create_qp(id, NULL, &attr))
		goto out;
	step = C_REG_MR;
	start(C_REG_MR);
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	if (!mr || rdma_post_recv(id, NULL, buf, MSG_SIZE, mr))
		goto out;
	step = C_ACCEPT;
	t = start(C_ACCEPT);
	/*
	 * A synchronous accept returns 0 for any event of status 0, a
	 * DEVICE_REMOVAL's too (as librdmacm's does): only ESTABLISHED is
	 * a connection, else the wait for the message would sit out its
	 * bound on an id that holds the removed device.
	 */
	if (rdma_accept(id, NULL) || !id->event ||
	    id->event->event != RDMA_CM_EVENT_ESTABLISHED)
		goto out;	/* the client gave up, was killed, or the
				 * device went away */
	record(C_ACCEPT, t);
	step = C_MESSAGE;
	start(C_MESSAGE);
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
	start(C_DISCONNECT);
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
	if (id->qp) {
		start(C_DESTROY_QP);
		rdma_destroy_qp(id);
	}
	start(C_DESTROY_ID);
	rdma_destroy_id(id);
	if (step < NCALL)
		forget_devices();
	return NULL;
}

/*
 * A synchronous listener on dst: 0, or -1 with nothing left over and
 * errno set; @what names the call that failed.
 */
static int listen_on(struct rdma_cm_id **listen, const char **what)
{
	int err;

	*what = "create_id";
	if (rdma_create_id(NULL, listen, NULL, RDMA_PS_TCP))
		return -1;
	*what = "bind_addr";
	if (!rdma_bind_addr(*listen, (struct sockaddr *)&dst)) {
		*what = "listen";
		if (!rdma_listen(*listen, 1024))
			return 0;
	}
	err = errno;
	rdma_destroy_id(*listen);
	errno = err;
	return -1;
}

/*
 * Listen on dst once that works (after a removal: once the device is
 * back and the removed one forgotten), saying why it does not yet.
 */
static struct rdma_cm_id *listen_again(void)
{
	const char *what, *told = NULL;
	struct rdma_cm_id *listen;

	while (listen_on(&listen, &what)) {
		if (what != told)
			fprintf(stderr, "# server: %s failed: %s\n", what,
				strerror(errno));
		told = what;
		forget_devices();
		usleep(20000);
	}
	fprintf(stderr, "# server: listening again at %.1f s\n",
		(now_us() - ctl->start_us) / 1e6);
	return listen;
}

/*
 * The server process; @ready (or -1) gets the port it listens on (network
 * order) once it does: dst's, or the one port 0 drew.
 */
static void server(int ready)
{
	const char *what;
	struct rdma_cm_id *listen, *id;
	pthread_attr_t pa;
	pthread_t t;
	double t0;

	if (ready < 0)
		listen = listen_again();	/* after a crash */
	else if (listen_on(&listen, &what))
		die(what);
	dst.sin_port = rdma_get_src_port(listen);
	if (ready >= 0 &&
	    write(ready, &dst.sin_port, sizeof(dst.sin_port)) !=
	    sizeof(dst.sin_port))
		die("ready");
	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	for (;;) {
		t0 = start(C_GET_REQUEST);
		if (rdma_get_request(listen, &id)) {
			if (variant != REMOVE)
				continue;
			/*
			 * The listener's device went away (DEVICE_REMOVAL,
			 * which rdma_get_request() fails on): listen again
			 * once the device is back.
			 */
			fprintf(stderr, "# server: get_request failed (%s) at %.1f s\n",
				strerror(errno), (now_us() - ctl->start_us) / 1e6);
			rdma_destroy_id(listen);
			listen = listen_again();
			continue;
		}
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

/* remove: connections per second over the whole seconds [@from, @to). */
static double rate(double from, double to)
{
	unsigned int a = (unsigned int)ceil(from), b = (unsigned int)to, i;
	uint64_t n = 0;

	if (b > MAXSECS)
		b = MAXSECS;
	if (b <= a)
		return 0;
	for (i = a; i < b; i++)
		n += ctl->conns_at[i];
	return (double)n / (b - a);
}

static void report_removals(unsigned int secs)
{
	const struct removal *first = &ctl->rm[0];
	const struct removal *last = &ctl->rm[ctl->nrm - 1];
	unsigned int i;

	for (i = 0; i < ctl->nrm; i++) {
		const struct removal *r = &ctl->rm[i];

		printf("churn-removal %u %.0f %.0f %llu\n", i + 1,
		       r->gone_us ? (r->gone_us - r->del_us) / 1e3 : -1.0,
		       r->first_us ? (r->first_us - r->added_us) / 1e3 : -1.0,
		       (unsigned long long)r->lost);
	}
	/*
	 * A removal that ended less than two seconds before the run did
	 * leaves no "after" to measure: its recovery reads -1 for that
	 * reason, not for want of a connection.
	 */
	if (ctl->nrm && last->added_us &&
	    last->added_us + 2e6 > ctl->start_us + secs * 1e6) {
		printf("# remover: the last re-add came %.0f ms before the run's end: no rate after it\n",
		       (ctl->start_us + secs * 1e6 - last->added_us) / 1e3);
		return;
	}
	if (ctl->nrm && last->added_us)
		printf("churn-rate %.2f %.2f\n",
		       rate(0, (first->del_us - ctl->start_us) / 1e6),
		       rate((last->added_us - ctl->start_us) / 1e6 + 1, secs));
}

static void report(unsigned int procs, unsigned int threads,
		   unsigned int secs, unsigned int kills, unsigned int crashes)
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
		for (c = 0; c < NCALL; c++) {
			sum.failed[c] += s->failed[c];
			sum.lost[c] += s->lost[c];
		}
	}
	for (c = 0; c < NCALL; c++)
		calls += sum.call[c].count;
	printf("churn %s %u %u %u calls %llu calls_per_s %.1f conns %llu conns_per_s %.2f refused %llu silent %llu abandoned %llu errors %llu kills %u stale %llu crashes %u\n",
	       variant == CLEAN ? "clean" : variant == FAULTS ? "faults" :
	       variant == KILL ? "kill" : variant == REMOVE ? "remove" : "cm",
	       procs, threads, secs, (unsigned long long)calls,
	       (double)calls / secs, (unsigned long long)sum.conns,
	       (double)sum.conns / secs, (unsigned long long)sum.refused,
	       (unsigned long long)sum.silent,
	       (unsigned long long)sum.abandoned,
	       (unsigned long long)sum.errors, kills,
	       (unsigned long long)sum.stale, crashes);
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
		if (sum.lost[c])
			printf("churn-lost %s %llu\n", call_name[c],
			       (unsigned long long)sum.lost[c]);
	for (c = 0; c < NCALL; c++)
		if (sum.call[c].count)
			printf("churn-call %s %llu %.0f %.0f %llu\n", call_name[c],
			       (unsigned long long)sum.call[c].count,
			       quantile(&sum.call[c], 0.5),
			       quantile(&sum.call[c], 0.99),
			       (unsigned long long)sum.call[c].max_us);
	if (variant == REMOVE)
		report_removals(secs);
}

/* Print @path's lines, each after "# remover:   ". */
static void print_lines(const char *path, const char *prefix)
{
	char line[512];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!prefix || !strncmp(line, prefix, strlen(prefix)))
			printf("# remover:   %s", line);
	if (f)
		fclose(f);
}

/* The first line of /proc/@pid/@name, without its newline, into @buf. */
static void proc_line(const char *pid, const char *name, char *buf,
		      size_t size)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f && fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/*
 * What a removal waits for, printed as "# remover:" lines: the task
 * @deleter (rdma link delete) and every task in D state with its state
 * and kernel stack, and every open uverbs or rcm file
 * (Soft-RoCE's removal waits until each uverbs file is closed) with its
 * process and the ids of an rcm file (its fdinfo).
 */
static void removal_waits(double after_ms, pid_t deleter)
{
	char path[600], buf[256], comm[64];
	struct dirent *p, *f;
	DIR *procs, *fds;
	const char *st;

	printf("# remover: rdma link delete still running after %.0f ms\n",
	       after_ms);
	procs = opendir("/proc");
	while (procs && (p = readdir(procs))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		proc_line(p->d_name, "comm", comm, sizeof(comm));
		proc_line(p->d_name, "stat", buf, sizeof(buf));
		st = strrchr(buf, ')');
		if (st && st[1] == ' ' &&
		    (st[2] == 'D' || atoi(p->d_name) == deleter)) {
			printf("# remover: %s %s (%c) is in:\n", p->d_name,
			       comm, st[2]);
			snprintf(path, sizeof(path), "/proc/%s/stack", p->d_name);
			print_lines(path, NULL);
		}
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		while (fds && (f = readdir(fds))) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
				 p->d_name, f->d_name);
			n = readlink(path, buf, sizeof(buf) - 1);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			if (strncmp(buf, "/dev/infiniband/", 16))
				continue;
			printf("# remover: %s %s holds %s\n", p->d_name, comm,
			       buf);
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s",
				 p->d_name, f->d_name);
			if (!strcmp(buf, "/dev/infiniband/rcm"))
				print_lines(path, "rcm-id:");
		}
		if (fds)
			closedir(fds);
	}
	if (procs)
		closedir(procs);
	fflush(stdout);
}

/*
 * rdma link delete rxe0, timed into @r; when it takes over two seconds,
 * say once what it waits for.
 */
static void remove_device(struct removal *r)
{
	bool told = false;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		execlp("rdma", "rdma", "link", "delete", "rxe0", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		double ms = (now_us() - r->del_us) / 1e3;

		if (!told && ms > 2000) {
			removal_waits(ms, pid);
			told = true;
		}
		usleep(20000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fprintf(stderr, "%s: rdma link delete failed\n", BENCH_NAME);
}

/*
 * remove: rxe0 deleted and added again at a third and at two thirds of
 * @secs from the start; the times go to ctl. A child process, so that
 * the kills go on while rdma link delete waits.
 */
static pid_t spawn_remover(unsigned int secs, const char *netdev)
{
	pid_t pid = fork();
	unsigned int i;
	char cmd[256];

	if (pid < 0)
		die("fork");
	if (pid)
		return pid;
	for (i = 0; i < NREMOVE; i++) {
		struct removal *r = &ctl->rm[i];
		double at = ctl->start_us + secs * 1e6 * (i + 1) / (NREMOVE + 1);

		while (now_us() < at)
			usleep(10000);
		r->del_us = (uint64_t)now_us();
		__atomic_store_n(&ctl->nrm, i + 1, __ATOMIC_RELEASE);
		remove_device(r);
		r->gone_us = (uint64_t)now_us();
		snprintf(cmd, sizeof(cmd), "rdma link add rxe0 type rxe netdev %s",
			 netdev);
		if (system(cmd))
			fprintf(stderr, "%s: rdma link add failed\n",
				BENCH_NAME);
		__atomic_store_n(&r->added_us, (uint64_t)now_us(),
				 __ATOMIC_RELEASE);
	}
	exit(0);
}

/* A process of the bench ended otherwise than it should have. */
static void died(const char *who, int status)
{
	if (WIFSIGNALED(status))
		printf("churn-died %s signal %d\n", who, WTERMSIG(status));
	else
		printf("churn-died %s exit %d\n", who, WEXITSTATUS(status));
	fflush(stdout);
}

/*
 * Wait for @pid, which should end by signal @sig, or exit 0 if 0: 1
 * when it ended otherwise (said), else 0.
 */
static int reap(pid_t pid, const char *who, int sig)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return 0;
	if (sig ? WIFSIGNALED(status) && WTERMSIG(status) == sig :
		  WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	died(who, status);
	return 1;
}

static pid_t spawn_server(unsigned int procs, int ready)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		mine = &slots[procs];
		server(ready);
	}
	return pid;
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
	const char *netdev = getenv("RCM_NETDEV_RXE");
	unsigned int crashes = 0;
	pid_t srv, remover = 0, pids[64];
	int status;
	double next_kill;
	int pipefd[2];

	if (argc < 7) {
		fprintf(stderr, "usage: %s clean|faults|kill|remove|cm PROCS THREADS SECONDS ADDRESS PORT [SILENT]\n",
			argv[0]);
		return 2;
	}
	variant = !strcmp(argv[1], "faults") ? FAULTS :
		  !strcmp(argv[1], "kill") ? KILL :
		  !strcmp(argv[1], "remove") ? REMOVE :
		  !strcmp(argv[1], "cm") ? CM : CLEAN;
	procs = atoi(argv[2]);
	threads = atoi(argv[3]);
	secs = atoi(argv[4]);
	if (!procs || procs > 64 || !threads || threads > 64 || !secs ||
	    secs > MAXSECS || (variant == REMOVE && !netdev))
		return 2;
	dst.sin_family = AF_INET;
	dst.sin_port = htons(atoi(argv[6]));
	silent_addr.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[5], &dst.sin_addr) != 1 ||
	    inet_pton(AF_INET, argc > 7 ? argv[7] : "198.18.0.254",
		      &silent_addr.sin_addr) != 1)
		return 2;
	marking = getenv("RCM_CHURN_MARK") && atoi(getenv("RCM_CHURN_MARK"));
	slots = mmap(NULL, (procs + 1) * sizeof(*slots),
		     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED)
		die("mmap");
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED)
		die("mmap");
	ctl->nprocs = procs;

	if (pipe(pipefd))
		die("pipe");
	srv = spawn_server(procs, pipefd[1]);
	if (read(pipefd[0], &dst.sin_port, sizeof(dst.sin_port)) !=
	    sizeof(dst.sin_port)) {
		fprintf(stderr, "%s: the server did not start\n", BENCH_NAME);
		return 1;
	}

	ctl->start_us = (uint64_t)now_us();
	deadline_us = ctl->start_us + secs * 1e6;
	for (k = 0; k < procs; k++)
		pids[k] = spawn_client(k, threads, seed++);
	if (variant == REMOVE)
		remover = spawn_remover(secs, netdev);
	next_kill = now_us() + (1 + rand_r(&seed) % 3) * 1e6;
	/*
	 * A process that crashed is started again, as a supervisor would,
	 * and counted; so is one killed (kill, remove).
	 */
	while (now_us() < deadline_us - 1e6) {
		usleep(50000);
		for (k = 0; k < procs; k++) {
			if (waitpid(pids[k], &status, WNOHANG) != pids[k])
				continue;
			died("client", status);
			crashes++;
			pids[k] = spawn_client(k, threads, seed++);
		}
		if (waitpid(srv, &status, WNOHANG) == srv) {
			died("server", status);
			crashes++;
			srv = spawn_server(procs, -1);
		}
		if ((variant != KILL && variant != REMOVE) ||
		    now_us() < next_kill)
			continue;
		k = rand_r(&seed) % procs;
		kill(pids[k], SIGKILL);
		crashes += reap(pids[k], "client", SIGKILL);
		kills++;
		pids[k] = spawn_client(k, threads, seed++);
		next_kill = now_us() + (1 + rand_r(&seed) % 4) * 1e6;
	}
	for (k = 0; k < procs; k++)
		crashes += reap(pids[k], "client", 0);
	/* The server must still run: it only ends by this kill. */
	kill(srv, SIGKILL);
	crashes += reap(srv, "server", SIGKILL);
	if (remover)
		reap(remover, "remover", 0);
	report(procs, threads, secs, kills, crashes);
	return 0;
}
