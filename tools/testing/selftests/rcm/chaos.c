// SPDX-License-Identifier: GPL-2.0-only
/*
 * chaos: the librdmacm API at random, from several processes and threads
 * at once, with kill -9 churn and device removal (issue 12, part 2.4).
 *
 * RCM_CHAOS_PROCS worker processes (4) of RCM_CHAOS_THREADS threads (3)
 * each share, per process, NCHANS event channel slots and NIDS id slots.
 * Every thread makes librdmacm calls at random on them for
 * RCM_CHAOS_SECONDS (30): create and destroy channels (moving their ids
 * away first) and ids (TCP and UDP port spaces; or destroy one and make
 * the next on the same channel at once, restarting a listener in place
 * half of the time), bind (then listen, as a server), resolve_addr and
 * resolve_route (towards the
 * rxe address, its IPv6 address, a silent neighbour, a netdev without
 * RDMA, a multicast group), listen, connect, accept, reject, establish,
 * disconnect, migrate_id between channels, set_option, join and leave
 * multicast groups, create and destroy QPs, and get events from a channel,
 * after poll() or blocking in rdma_get_cm_event() (a per-process kicker
 * interrupts a blocked thread with a signal after a while, as an
 * application's timer would). Each event is acked at once and then,
 * drawn at random, answered the way an application would (route after
 * the address, connect after the route, accept or reject a request,
 * establish, disconnect, destroy after DEVICE_REMOVAL...), so
 * connections between the processes really happen: listeners and
 * destinations share NPORTS ports (bind chose them, free, before the
 * workers start). One channel is read an eighth as often as the others,
 * so that listeners with unread requests get destroyed and their
 * handles and addresses reused (issue 12, 1.9, is the kind of bug this
 * is for).
 * Meanwhile the parent kills a random worker with SIGKILL every
 * RCM_CHAOS_KILL_MS (1500) on average and starts it again, and
 * RCM_CHAOS_REMOVALS times (1) deletes rxe0 with "rdma link delete" and
 * adds it back.
 *
 * What it checks, each event before it is acked:
 *  - its id is one this process created (or got from a CONNECT_REQUEST)
 *    and has not destroyed: rdma_destroy_id() has not returned;
 *  - it came from the channel the id is on (either, while a migration
 *    of the id is under way), and id->channel says so;
 *  - the id's context is still the one the program gave it;
 *  - its type fits what the id did: ADDR_* after resolve_addr, ROUTE_*
 *    after resolve_route, CONNECT_RESPONSE after connect, the other
 *    connection events after connect or on a request id, MULTICAST_*
 *    for a group the id is in (the event's context is the join's),
 *    DEVICE_REMOVAL and ADDR_CHANGE on an id that was attached;
 *  - a CONNECT_REQUEST's listen_id is a live id of this process that
 *    listened, on this channel, with the listener's context and port
 *    space copied to a new id that is no live id already (its address
 *    may be that of an id whose rdma_destroy_id() freed it and has not
 *    returned yet: counted); listen_id is NULL on every other event.
 * And: no worker dies by itself (a crash) or spends more than
 * RCM_CHAOS_HANG_S (60) in one call, nor takes that long to exit once
 * killed or stopped (a hang: the parent watches each thread's current
 * call and dumps the stuck tasks' kernel stacks; an alarm() bounds every
 * process), every id
 * destroy succeeds, rxe0 is back at the end, a run of 2000 successful
 * calls or more reached connection requests (6000: established
 * connections), and after all workers are
 * gone rcm's slab objects are back at their baseline (with rcm's
 * library; the kernel log is the guest harness's).
 *
 * Seeded: RCM_CHAOS_SEED (default from the clock) is printed; each
 * thread's calls come from a generator seeded from it and the worker's
 * number, incarnation (how often it was killed) and thread number, so
 * the same seed replays each thread's sequence of calls; the answers to
 * events come from a second generator, so they follow what the events
 * were. The parent's kills and removals come from the seed too.
 *
 * Linked against rcm's librdmacm.so.1 (userlib/); the same binary runs on
 * rdma-core's with LD_LIBRARY_PATH at the distribution's libraries, which
 * is how the checks themselves are checked (the in-tree stack passes).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <execinfo.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <rdma/rdma_cma.h>

#include "rcm_harness.h"

#define MAX_PROCS	8
#define MAX_THREADS	8
#define NIDS		32	/* id slots per process the calls pick from */
#define NSPARE		8	/* slots for request ids no NIDS slot took */
#define NSLOTS		(NIDS + NSPARE)
#define NCHANS		4
#define NPORTS		4
#define NGROUPS		4	/* 239.1.9.0 .. 239.1.9.3 */
#define MAX_REPORTS	30
#define NEVENTS		(RDMA_CM_EVENT_TIMEWAIT_EXIT + 1)
#define KICK_MS		200	/* a blocked rdma_get_cm_event() gets a signal */
#define UNKNOWN_WAIT_MS	5000	/* a request id may be registered this late */

enum op {
	OP_CREATE_CHANNEL, OP_DESTROY_CHANNEL, OP_CREATE_ID, OP_DESTROY_ID,
	OP_BIND, OP_RESOLVE_ADDR, OP_RESOLVE_ROUTE, OP_LISTEN, OP_CONNECT,
	OP_ACCEPT, OP_REJECT, OP_ESTABLISH, OP_DISCONNECT, OP_MIGRATE,
	OP_SET_OPTION, OP_JOIN, OP_LEAVE, OP_CREATE_QP, OP_DESTROY_QP,
	OP_GET_POLL, OP_GET_BLOCK, NOPS
};

static const char *const op_name[NOPS] = {
	"create_channel", "destroy_channel", "create_id", "destroy_id",
	"bind", "resolve_addr", "resolve_route", "listen", "connect",
	"accept", "reject", "establish", "disconnect", "migrate_id",
	"set_option", "join_multicast", "leave_multicast", "create_qp",
	"destroy_qp", "get_event_poll", "get_event_blocking",
};

/* How often each call is drawn, out of the sum. */
static const unsigned char op_weight[NOPS] = {
	1, 1, 6, 4, 4, 8, 3, 4, 3, 2, 2, 1, 3, 3, 3, 3, 2, 2, 1, 14, 8,
};

/* What an id did (sticky), which decides the events it may get. */
enum {
	DID_BIND = 1 << 0,
	DID_RESOLVE = 1 << 1,
	DID_ROUTE = 1 << 2,
	DID_LISTEN = 1 << 3,
	DID_CONNECT = 1 << 4,
	DID_REQUEST = 1 << 5,	/* made for a CONNECT_REQUEST */
	DID_JOIN = 1 << 6,
};

struct tslot {		/* one thread of a worker, for the parent's watchdog */
	atomic_int op;		/* the call under way + 1, or 0 */
	atomic_llong since_ms;
};

struct shared {		/* one per run, shared by every process */
	atomic_ulong ok[NOPS], failed[NOPS];
	atomic_ulong events[NEVENTS + 1];	/* the last: unknown types */
	atomic_ulong checked, reactions, violations, requests_without_device;
	atomic_ulong requests_at_destroyed_address;
	atomic_int reports, stop;
	atomic_uint incarnation[MAX_PROCS];
	struct tslot t[MAX_PROCS][MAX_THREADS + 1];
};

/*
 * An event channel slot. @use is held for reading by every call that
 * uses @ch (getting events, creating an id on it, migrating an id to
 * it), for writing to create or destroy it; everything takes it with a
 * try-lock, so that nobody waits for a channel while holding an id.
 */
struct chan {
	pthread_rwlock_t use;
	struct rdma_event_channel *ch;
	int nids;		/* ids on it or moving to it (under reg) */
};

/*
 * An id slot. @op is held across any call on the id, and while @id
 * changes; @id, @chan, @mig_to, @did, @groups and @destroying change
 * under reg too, which is all the event checks take.
 */
struct idrec {
	pthread_mutex_t op;
	struct rdma_cm_id *id;	/* NULL: free */
	uintptr_t serial;	/* the id's context, unique in the process */
	int chan, mig_to;	/* mig_to: target of a migration, or -1 */
	unsigned int did, groups;	/* DID_*; groups joined (bits) */
	/*
	 * Joins of each group not left yet: an id may join a group again
	 * (librdmacm 44 and in-tree do too), and a leave ends one join.
	 */
	unsigned char joins[NGROUPS];
	bool destroying;	/* in rdma_destroy_id() */
	bool udp;
	/*
	 * From a connect that went out until the event that ends it is
	 * handed out: the library may use the id's QP meanwhile while it
	 * readies an event in another thread (CONNECT_RESPONSE: the QP to
	 * RTS and the RTU; REJECTED: the QP to ERR), as librdmacm does, so
	 * an application must not destroy the QP then (under @op).
	 */
	bool qp_in_use;
};

struct wt {		/* one thread of a worker */
	uint64_t rng, react_rng;
	int proc, thread;
	unsigned long ops;
	pthread_t tid;
	pthread_mutex_t kick_lock;
	bool blocked;		/* in rdma_get_cm_event() (under kick_lock) */
	long long blocked_ms;
};

/* An answer to an event, made after its ack. */
struct reaction {
	int type;
	int slot;		/* -1: none */
	uintptr_t serial;
	bool locked;		/* a request id: its slot is held already */
	uint32_t cookie;
};

static struct shared *sh;
static struct chan chans[NCHANS];
static struct idrec ids[NSLOTS];
static pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t next_serial;
static struct wt wts[MAX_THREADS];
static int nprocs, nthreads, me;
static atomic_int kicker_stop;
static const char *addr_rxe, *addr6_rxe, *addr_silent, *addr_nordma,
	*netdev_rxe;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static uint32_t draw(uint64_t *state)
{
	*state = rcm_mix(*state);
	return *state >> 32;
}

/* 0 .. @n - 1 */
static uint32_t below(uint64_t *state, uint32_t n)
{
	return n ? draw(state) % n : 0;
}

static void violation(struct wt *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void violation(struct wt *w, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	atomic_fetch_add(&sh->violations, 1);
	if (atomic_fetch_add(&sh->reports, 1) >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("# VIOLATION worker %d incarnation %u thread %d call %lu: %s\n",
	       me, atomic_load(&sh->incarnation[me]), w ? w->thread : -1,
	       w ? w->ops : 0, buf);
}

static void count(enum op op, int ret)
{
	atomic_fetch_add(ret ? &sh->failed[op] : &sh->ok[op], 1);
}

/* The watchdog's view: @w is in call @op (or, with -1, in none). */
static void in_call(struct wt *w, int op)
{
	struct tslot *t = &sh->t[me][w ? w->thread : nthreads];

	atomic_store(&t->since_ms, now_ms());
	atomic_store(&t->op, op + 1);
}

/* --- the registry ---------------------------------------------------- */

/*
 * The slot of live id @id, or -1 (under reg). An id whose
 * rdma_destroy_id() is under way may be freed already, and its address
 * taken by the id the library makes for a CONNECT_REQUEST read
 * meanwhile; so a slot not being destroyed comes first.
 */
static int find_live(const struct rdma_cm_id *id)
{
	int s, found = -1;

	for (s = 0; s < NSLOTS; s++) {
		if (!id || ids[s].id != id)
			continue;
		if (!ids[s].destroying)
			return s;
		found = s;
	}
	return found;
}

/* Fill slot @s (held) with @id on channel @c (under reg). */
static void fill_locked(int s, struct rdma_cm_id *id, int c, unsigned int did)
{
	struct idrec *r = &ids[s];

	r->id = id;
	r->serial = ++next_serial;
	r->chan = c;
	r->mig_to = -1;
	r->did = did;
	r->groups = 0;
	memset(r->joins, 0, sizeof(r->joins));
	r->destroying = false;
	r->udp = id->ps == RDMA_PS_UDP;
	chans[c].nids++;
}

static void mark(int s, unsigned int did)
{
	pthread_mutex_lock(&reg);
	ids[s].did |= did;
	pthread_mutex_unlock(&reg);
}

/* Take back a mark made before a call that failed, unless made before. */
static void unmark(int s, unsigned int did, unsigned int was)
{
	pthread_mutex_lock(&reg);
	ids[s].did &= ~(did & ~was);
	pthread_mutex_unlock(&reg);
}

/* --- calls on one id (its slot held) --------------------------------- */

static void addr_of(struct sockaddr_storage *ss, const char *ip, int port)
{
	rcm_sockaddr(ss, ip, port);
}

/* The workers' ports. */
static unsigned short ports[NPORTS];

static int pick_port(uint32_t p)
{
	return ports[(p >> 8) % NPORTS];
}

static const char *group_ip(uint32_t g)
{
	static const char *const groups[NGROUPS] = {
		"239.1.9.0", "239.1.9.1", "239.1.9.2", "239.1.9.3",
	};

	return groups[g % NGROUPS];
}

static void do_destroy(struct wt *w, int s)
{
	struct idrec *r = &ids[s];
	int ret;

	/* A QP the library may be using stays until the process exits. */
	if (r->id->qp && !r->qp_in_use)
		rdma_destroy_qp(r->id);
	pthread_mutex_lock(&reg);
	r->destroying = true;
	pthread_mutex_unlock(&reg);
	ret = rdma_destroy_id(r->id);
	count(OP_DESTROY_ID, ret);
	pthread_mutex_lock(&reg);
	r->destroying = false;
	if (!ret) {
		chans[r->chan].nids--;
		r->id = NULL;
		r->qp_in_use = false;
	}
	pthread_mutex_unlock(&reg);
	if (ret)
		violation(w, "rdma_destroy_id(serial %lu) failed: %s",
			  (unsigned long)r->serial, strerror(errno));
}

static void do_listen(int s, uint32_t p)
{
	unsigned int was = ids[s].did;
	int ret;

	mark(s, DID_LISTEN);
	ret = rdma_listen(ids[s].id, p % 4);
	count(OP_LISTEN, ret);
	if (ret) {
		/* No request follows; a bind on the way may stay. */
		unmark(s, DID_LISTEN, was);
		mark(s, DID_BIND);
	}
}

static void do_bind(int s, uint32_t p)
{
	struct sockaddr_storage ss;
	const char *ip = addr_rxe;
	int ret;

	switch (p % 8) {
	case 0:
		ip = "0.0.0.0";
		break;
	case 1:
		ip = addr6_rxe ? addr6_rxe : addr_rxe;
		break;
	case 2:
		ip = addr_nordma ? addr_nordma : addr_rxe;
		break;
	}
	addr_of(&ss, ip, (p >> 4) % 4 ? pick_port(p) : 0);
	mark(s, DID_BIND);
	ret = rdma_bind_addr(ids[s].id, (struct sockaddr *)&ss);
	count(OP_BIND, ret);
	/*
	 * DID_BIND stays after a failure: the library may fail a bind the
	 * kernel made (rcm's userlib answers -1 when it cannot open the
	 * device the kernel attached the id to, as during a removal), and
	 * DEVICE_REMOVAL then follows.
	 */
	if (!ret && p & 0x10000)
		do_listen(s, p);	/* a server: bind, then listen */
}

static void do_resolve(int s, uint32_t p)
{
	struct sockaddr_storage dst, src;
	const char *ip = addr_rxe;
	unsigned int was = ids[s].did;
	int ret;

	switch (p % 12) {
	case 0:
		ip = addr_silent ? addr_silent : addr_rxe;
		break;
	case 1:
		ip = addr_nordma ? addr_nordma : addr_rxe;
		break;
	case 2:
		ip = addr6_rxe ? addr6_rxe : addr_rxe;
		break;
	case 3:
	case 4:
		ip = group_ip(p >> 20);
		break;
	}
	addr_of(&dst, ip, pick_port(p));
	addr_of(&src, addr_rxe, 0);
	mark(s, DID_RESOLVE);
	ret = rdma_resolve_addr(ids[s].id,
				(p >> 4) % 3 ? NULL : (struct sockaddr *)&src,
				(struct sockaddr *)&dst, 500 + (p >> 12) % 1500);
	count(OP_RESOLVE_ADDR, ret);
	if (ret) {
		/*
		 * No ADDR_* event follows a failed call, but the bind on
		 * the way (to the source, attached to its device) may stay,
		 * as in-tree: DEVICE_REMOVAL can follow.
		 */
		unmark(s, DID_RESOLVE, was);
		mark(s, DID_BIND);
	}
}

static void do_route(int s)
{
	unsigned int was = ids[s].did;
	int ret;

	mark(s, DID_ROUTE);
	ret = rdma_resolve_route(ids[s].id, 1000);
	count(OP_RESOLVE_ROUTE, ret);
	if (ret)
		unmark(s, DID_ROUTE, was);
}

static void conn_param(struct rdma_conn_param *cp, uint32_t p)
{
	static const char data[] = "chaos";

	memset(cp, 0, sizeof(*cp));
	if (p & 1) {
		cp->private_data = data;
		cp->private_data_len = sizeof(data);
	}
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
}

static void do_connect(int s, uint32_t p)
{
	unsigned int was = ids[s].did;
	struct rdma_conn_param cp;
	int ret;

	conn_param(&cp, p);
	mark(s, DID_CONNECT);
	ret = rdma_connect(ids[s].id, &cp);
	count(OP_CONNECT, ret);
	if (ret)
		unmark(s, DID_CONNECT, was);
	else
		ids[s].qp_in_use = true;
}

static void do_accept(int s, uint32_t p)
{
	struct rdma_conn_param cp;

	conn_param(&cp, p);
	count(OP_ACCEPT, rdma_accept(ids[s].id, &cp));
}

static void do_reject(int s)
{
	count(OP_REJECT, rdma_reject(ids[s].id, "no", 3));
}

static void do_create_qp(int s)
{
	struct rdma_cm_id *id = ids[s].id;
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = ids[s].udp ? IBV_QPT_UD : IBV_QPT_RC,
	};

	if (id->qp)
		return;
	count(OP_CREATE_QP, rdma_create_qp(id, NULL, &attr));
}

static void do_join(int s, uint32_t p)
{
	unsigned int g = p % NGROUPS, was_did = ids[s].did;
	uintptr_t cookie = ids[s].serial << 8 | g;
	struct sockaddr_storage ss;
	bool was;
	int ret;

	addr_of(&ss, group_ip(g), 0);
	pthread_mutex_lock(&reg);
	was = ids[s].groups & 1u << g;
	ids[s].groups |= 1u << g;
	ids[s].did |= DID_JOIN;
	pthread_mutex_unlock(&reg);
	ret = rdma_join_multicast(ids[s].id, (struct sockaddr *)&ss,
				  (void *)cookie);
	count(OP_JOIN, ret);
	if (!ret) {
		pthread_mutex_lock(&reg);
		ids[s].joins[g]++;
		pthread_mutex_unlock(&reg);
	} else if (!was) {
		pthread_mutex_lock(&reg);
		ids[s].groups &= ~(1u << g);
		pthread_mutex_unlock(&reg);
		unmark(s, DID_JOIN, was_did);
	}
}

static void do_leave(int s, uint32_t p)
{
	unsigned int g = p % NGROUPS;
	struct sockaddr_storage ss;
	int ret;

	addr_of(&ss, group_ip(g), 0);
	ret = rdma_leave_multicast(ids[s].id, (struct sockaddr *)&ss);
	count(OP_LEAVE, ret);
	if (!ret) {
		/*
		 * That join's events were acked before the leave returned;
		 * another join of the group may still report.
		 */
		pthread_mutex_lock(&reg);
		if (ids[s].joins[g])
			ids[s].joins[g]--;
		if (!ids[s].joins[g])
			ids[s].groups &= ~(1u << g);
		pthread_mutex_unlock(&reg);
	}
}

static void do_option(int s, uint32_t p)
{
	static const int names[] = {
		RDMA_OPTION_ID_TOS, RDMA_OPTION_ID_REUSEADDR,
		RDMA_OPTION_ID_AFONLY, RDMA_OPTION_ID_ACK_TIMEOUT,
		77,	/* unknown: ENOSYS */
	};
	int name = names[p % 5], one = (p >> 16) & 1;
	uint8_t u8 = name == RDMA_OPTION_ID_ACK_TIMEOUT ? (p >> 8) % 32 : p >> 8;
	bool byte = name == RDMA_OPTION_ID_TOS ||
		    name == RDMA_OPTION_ID_ACK_TIMEOUT;

	count(OP_SET_OPTION, rdma_set_option(ids[s].id, RDMA_OPTION_ID, name,
					     byte ? (void *)&u8 : (void *)&one,
					     byte ? sizeof(u8) : sizeof(one)));
}

/*
 * Move the id of slot @s (held) to channel @c, whose use the caller
 * holds; the old channel stays (it has the id).
 */
static void do_migrate(int s, int c)
{
	struct idrec *r = &ids[s];
	int ret, old;

	pthread_mutex_lock(&reg);
	old = r->chan;
	r->mig_to = c;
	chans[c].nids++;
	pthread_mutex_unlock(&reg);
	ret = rdma_migrate_id(r->id, chans[c].ch);
	count(OP_MIGRATE, ret);
	pthread_mutex_lock(&reg);
	if (ret) {
		chans[c].nids--;
	} else {
		chans[old].nids--;
		r->chan = c;
	}
	r->mig_to = -1;
	pthread_mutex_unlock(&reg);
}

static void op_migrate(int s, int c)
{
	if (c == ids[s].chan || pthread_rwlock_tryrdlock(&chans[c].use))
		return;
	if (chans[c].ch)
		do_migrate(s, c);
	pthread_rwlock_unlock(&chans[c].use);
}

/* A new id in free slot @s (held) on channel @c. */
static void op_create_id(int s, int c, uint32_t p)
{
	struct rdma_cm_id *id;
	int ret;

	if (pthread_rwlock_tryrdlock(&chans[c].use))
		return;
	if (!chans[c].ch) {
		pthread_rwlock_unlock(&chans[c].use);
		return;
	}
	/* No event before a call on it: the context is set in time. */
	ret = rdma_create_id(chans[c].ch, &id, NULL,
			     p & 1 ? RDMA_PS_UDP : RDMA_PS_TCP);
	count(OP_CREATE_ID, ret);
	if (!ret) {
		pthread_mutex_lock(&reg);
		fill_locked(s, id, c, 0);
		id->context = (void *)ids[s].serial;
		pthread_mutex_unlock(&reg);
	}
	pthread_rwlock_unlock(&chans[c].use);
}

/*
 * Calls rdma-core's librdmacm makes only on an id with a device: it
 * dereferences id->verbs (rcm's library answers EINVAL instead). The
 * program keeps to that contract, so that it runs on both libraries.
 */
static bool needs_device(enum op op)
{
	switch (op) {
	case OP_RESOLVE_ROUTE:
	case OP_CONNECT:
	case OP_ACCEPT:
	case OP_REJECT:
	case OP_ESTABLISH:
	case OP_DISCONNECT:
	case OP_CREATE_QP:
		return true;
	default:
		return false;
	}
}

/*
 * Destroy the id of slot @s (held) and make a new one on the same
 * channel, from the same thread (so malloc() tends to hand out the
 * same address, and the kernel the same handle, the lowest free); a
 * listener is restarted on the same address half of the time, the
 * other half the new id only exists. Listeners with unread requests
 * meet this often (see the lazy channel in op_get()): an event of the
 * old id that names the new one is what it catches.
 */
static void op_recycle(struct wt *w, int s, uint32_t p)
{
	bool relisten = ids[s].did & DID_LISTEN && p & 8;
	struct sockaddr_storage local;
	int c = ids[s].chan;

	memcpy(&local, rdma_get_local_addr(ids[s].id), sizeof(local));
	do_destroy(w, s);
	if (ids[s].id)
		return;
	op_create_id(s, c, p);
	if (!ids[s].id || !relisten)
		return;
	mark(s, DID_BIND | DID_LISTEN);
	count(OP_BIND, rdma_bind_addr(ids[s].id, (struct sockaddr *)&local));
	do_listen(s, p);
}

/* One call on the id of slot @s (held, not free). */
static void id_call(struct wt *w, enum op call, int s, int c, uint32_t p)
{
	if (needs_device(call) && !ids[s].id->verbs)
		return;
	in_call(w, call);
	switch (call) {
	case OP_DESTROY_ID:
		/*
		 * Not in a spare slot: nothing but the reaction to its
		 * request destroys a spare's id, so a new one there would
		 * stay, and take_slot() would wait for ever once all are.
		 */
		if (p & 4 && w && s < NIDS)
			op_recycle(w, s, p);
		else
			do_destroy(w, s);
		break;
	case OP_BIND:
		do_bind(s, p);
		break;
	case OP_RESOLVE_ADDR:
		do_resolve(s, p);
		break;
	case OP_RESOLVE_ROUTE:
		do_route(s);
		break;
	case OP_LISTEN:
		do_listen(s, p);
		break;
	case OP_CONNECT:
		do_connect(s, p);
		break;
	case OP_ACCEPT:
		do_accept(s, p);
		break;
	case OP_REJECT:
		do_reject(s);
		break;
	case OP_ESTABLISH:
		count(call, rdma_establish(ids[s].id));
		break;
	case OP_DISCONNECT:
		count(call, rdma_disconnect(ids[s].id));
		break;
	case OP_MIGRATE:
		op_migrate(s, c);
		break;
	case OP_SET_OPTION:
		do_option(s, p);
		break;
	case OP_JOIN:
		do_join(s, p);
		break;
	case OP_LEAVE:
		do_leave(s, p);
		break;
	case OP_CREATE_QP:
		do_create_qp(s);
		break;
	case OP_DESTROY_QP:
		if (ids[s].id->qp && !ids[s].qp_in_use) {
			rdma_destroy_qp(ids[s].id);
			count(call, 0);
		}
		break;
	default:
		break;
	}
	in_call(w, -1);
}

/* --- channels -------------------------------------------------------- */

static void op_create_channel(int c)
{
	if (pthread_rwlock_trywrlock(&chans[c].use))
		return;
	if (!chans[c].ch) {
		chans[c].ch = rdma_create_event_channel();
		count(OP_CREATE_CHANNEL, chans[c].ch ? 0 : -1);
	}
	pthread_rwlock_unlock(&chans[c].use);
	/*
	 * No device (a removal): back off a little, as an application
	 * would; pacing the load, not a wait.
	 */
	if (!chans[c].ch)
		usleep(20000);
}

/*
 * Destroy channel @c: its ids move to another channel first (or are
 * destroyed when there is none), as an application closing one of its
 * channels would do; give up when one of them is busy.
 */
static void op_destroy_channel(struct wt *w, int c)
{
	int s, d, n;

	if (pthread_rwlock_trywrlock(&chans[c].use))
		return;
	for (d = 0; d < NCHANS; d++)
		if (d != c && !pthread_rwlock_tryrdlock(&chans[d].use)) {
			if (chans[d].ch)
				break;
			pthread_rwlock_unlock(&chans[d].use);
		}
	for (s = 0; chans[c].ch && s < NSLOTS; s++) {
		if (pthread_mutex_trylock(&ids[s].op))
			continue;
		if (ids[s].id && ids[s].chan == c) {
			if (d < NCHANS)
				do_migrate(s, d);
			else
				do_destroy(w, s);
		}
		pthread_mutex_unlock(&ids[s].op);
	}
	pthread_mutex_lock(&reg);
	n = chans[c].nids;
	pthread_mutex_unlock(&reg);
	if (chans[c].ch && !n) {
		rdma_destroy_event_channel(chans[c].ch);
		chans[c].ch = NULL;
		count(OP_DESTROY_CHANNEL, 0);
	}
	if (d < NCHANS)
		pthread_rwlock_unlock(&chans[d].use);
	pthread_rwlock_unlock(&chans[c].use);
}

/* --- events ---------------------------------------------------------- */

static unsigned int allowed_by(int type)
{
	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ADDR_ERROR:
		return DID_RESOLVE;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return DID_ROUTE;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		return DID_CONNECT;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		return DID_JOIN;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return DID_BIND | DID_RESOLVE | DID_LISTEN | DID_REQUEST |
		       DID_JOIN;
	default:	/* the other connection events */
		return DID_CONNECT | DID_REQUEST;
	}
}

/*
 * The slot of live id @id, waiting a while for it: a request id is
 * registered by the thread that got its CONNECT_REQUEST, which another
 * thread may see an event of first (under reg on return).
 */
static int find_waiting(const struct rdma_cm_id *id)
{
	long long until = now_ms() + UNKNOWN_WAIT_MS;
	int s;

	for (;;) {
		pthread_mutex_lock(&reg);
		s = find_live(id);
		if (s >= 0 || now_ms() > until)
			return s;
		pthread_mutex_unlock(&reg);
		/* The registry looked at every 2 ms, for UNKNOWN_WAIT_MS. */
		usleep(2000);
	}
}

/*
 * A slot for the new id @id of a CONNECT_REQUEST read from channel @c:
 * held on return, filled; one of the NIDS first, else a spare one
 * (waiting for one to free up: they are destroyed straight away).
 */
static int take_slot(struct wt *w, struct rdma_cm_id *id, int c)
{
	int i, s;

	for (i = 0;; i++) {
		s = i < NIDS ? (int)((below(&w->react_rng, NIDS) + i) % NIDS) :
			NIDS + i % NSPARE;
		/* Each round of the slots 1 ms apart, the bound below. */
		if (i >= NIDS && !(i % NSLOTS))
			usleep(1000);
		if (i == NIDS + 5000 * NSLOTS)	/* about 5 s */
			printf("# worker %d thread %d: no slot frees up for a request id\n",
			       me, w->thread);
		if (pthread_mutex_trylock(&ids[s].op))
			continue;
		pthread_mutex_lock(&reg);
		if (!ids[s].id) {
			fill_locked(s, id, c, DID_REQUEST);
			pthread_mutex_unlock(&reg);
			return s;
		}
		pthread_mutex_unlock(&reg);
		pthread_mutex_unlock(&ids[s].op);
	}
}

static void check_request(struct wt *w, int c, struct rdma_cm_event *ev,
			  struct reaction *r)
{
	struct rdma_cm_id *id = ev->id, *lid = ev->listen_id;
	int ls, s;

	pthread_mutex_lock(&reg);
	ls = find_live(lid);
	if (ls < 0) {
		violation(w, "CONNECT_REQUEST on channel %d names listen_id %p, no live id of this process",
			  c, (void *)lid);
	} else {
		struct idrec *l = &ids[ls];

		if (!(l->did & DID_LISTEN))
			violation(w, "CONNECT_REQUEST names listen_id serial %lu, which never listened (did %#x)",
				  (unsigned long)l->serial, l->did);
		if (l->chan != c && l->mig_to != c)
			violation(w, "CONNECT_REQUEST for listener serial %lu on channel %d came from channel %d",
				  (unsigned long)l->serial, l->chan, c);
		if (lid->context != (void *)l->serial)
			violation(w, "listener serial %lu has context %p",
				  (unsigned long)l->serial, lid->context);
		if (id && id->context != lid->context)
			violation(w, "request id context %p, listener's %p",
				  id->context, lid->context);
		if (id && id->ps != lid->ps)
			violation(w, "request id port space %#x, listener's %#x",
				  id->ps, lid->ps);
	}
	s = find_live(id);
	if (!id || (s >= 0 && !ids[s].destroying)) {
		violation(w, "CONNECT_REQUEST's new id %p is %s", (void *)id,
			  id ? "a live id already" : "NULL");
		pthread_mutex_unlock(&reg);
		return;
	}
	/* The address of an id in rdma_destroy_id(), freed by now. */
	if (s >= 0)
		atomic_fetch_add(&sh->requests_at_destroyed_address, 1);
	if (id->channel != chans[c].ch)
		violation(w, "request id on channel %p, read from channel %d (%p)",
			  (void *)id->channel, c, (void *)chans[c].ch);
	/*
	 * A device removal between the request's arrival and its read
	 * leaves the id without a device; both libraries hand it out so.
	 */
	if (!id->verbs)
		atomic_fetch_add(&sh->requests_without_device, 1);
	pthread_mutex_unlock(&reg);
	r->slot = take_slot(w, id, c);
	r->locked = true;
	pthread_mutex_lock(&reg);
	id->context = (void *)ids[r->slot].serial;
	r->serial = ids[r->slot].serial;
	pthread_mutex_unlock(&reg);
}

static void check_other(struct wt *w, int c, struct rdma_cm_event *ev,
			struct reaction *r)
{
	struct rdma_cm_id *id = ev->id;
	struct idrec *e;
	uintptr_t cookie;
	int s, type = ev->event;

	s = find_waiting(id);	/* reg held */
	if (s < 0) {
		violation(w, "%s (status %d) on channel %d names id %p, no live id of this process",
			  rdma_event_str(type), ev->status, c, (void *)id);
		pthread_mutex_unlock(&reg);
		return;
	}
	e = &ids[s];
	if (e->chan != c && e->mig_to != c)
		violation(w, "%s for id serial %lu (channel %d) came from channel %d",
			  rdma_event_str(type), (unsigned long)e->serial,
			  e->chan, c);
	else if (e->mig_to < 0 && id->channel != chans[c].ch)
		violation(w, "%s: id serial %lu says channel %p, read from %p",
			  rdma_event_str(type), (unsigned long)e->serial,
			  (void *)id->channel, (void *)chans[c].ch);
	if (id->context != (void *)e->serial)
		violation(w, "%s: id serial %lu has context %p",
			  rdma_event_str(type), (unsigned long)e->serial,
			  id->context);
	if (!(e->did & allowed_by(type)))
		violation(w, "%s (status %d) to id serial %lu, which did %#x",
			  rdma_event_str(type), ev->status,
			  (unsigned long)e->serial, e->did);
	if (ev->listen_id)
		violation(w, "%s with listen_id %p", rdma_event_str(type),
			  (void *)ev->listen_id);
	if (type == RDMA_CM_EVENT_MULTICAST_JOIN ||
	    type == RDMA_CM_EVENT_MULTICAST_ERROR) {
		cookie = (uintptr_t)ev->param.ud.private_data;
		if (cookie >> 8 != e->serial ||
		    !(e->groups & 1u << (cookie & 0xff)))
			violation(w, "%s with context %#lx to id serial %lu in groups %#x",
				  rdma_event_str(type), (unsigned long)cookie,
				  (unsigned long)e->serial, e->groups);
		r->cookie = cookie & 0xff;
	}
	r->slot = s;
	r->serial = e->serial;
	pthread_mutex_unlock(&reg);
}

/* Check @ev, read from channel @c, and ack it; what to answer in @r. */
static void check_event(struct wt *w, int c, struct rdma_cm_event *ev,
			struct reaction *r)
{
	int type = ev->event;

	r->type = type;
	r->slot = -1;
	r->locked = false;
	atomic_fetch_add(&sh->checked, 1);
	atomic_fetch_add(&sh->events[type >= 0 && type < NEVENTS ?
				     type : NEVENTS], 1);
	if (type < 0 || type >= NEVENTS)
		violation(w, "event of unknown type %d", type);
	else if (type == RDMA_CM_EVENT_CONNECT_REQUEST)
		check_request(w, c, ev, r);
	else
		check_other(w, c, ev, r);
	if (rdma_ack_cm_event(ev))
		violation(w, "rdma_ack_cm_event: %s", strerror(errno));
}

/* Answer an event the way an application would, by a coin of its own. */
static void react(struct wt *w, struct reaction *r)
{
	uint32_t coin = below(&w->react_rng, 100), p = draw(&w->react_rng);
	struct idrec *e;
	enum op op = NOPS;

	if (r->slot < 0)
		return;
	e = &ids[r->slot];
	if (!r->locked)
		pthread_mutex_lock(&e->op);
	if (!e->id || e->serial != r->serial)
		goto out;	/* destroyed meanwhile */
	/* The connect's end, handed out: the library is done with the QP. */
	if (r->type == RDMA_CM_EVENT_CONNECT_RESPONSE ||
	    r->type == RDMA_CM_EVENT_ESTABLISHED ||
	    r->type == RDMA_CM_EVENT_REJECTED ||
	    r->type == RDMA_CM_EVENT_UNREACHABLE ||
	    r->type == RDMA_CM_EVENT_CONNECT_ERROR)
		e->qp_in_use = false;
	atomic_fetch_add(&sh->reactions, 1);
	switch (r->type) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (r->slot >= NIDS || coin < 20) {
			id_call(w, OP_REJECT, r->slot, 0, p);
			op = r->slot >= NIDS ? OP_DESTROY_ID : NOPS;
		} else if (coin < 85) {
			if (p & 2)
				id_call(w, OP_CREATE_QP, r->slot, 0, p);
			op = OP_ACCEPT;
		}
		break;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		op = e->udp && coin < 40 ? OP_JOIN :
			coin < 90 ? OP_RESOLVE_ROUTE : NOPS;
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (p & 2)
			id_call(w, OP_CREATE_QP, r->slot, 0, p);
		op = coin < 90 ? OP_CONNECT : NOPS;
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		op = coin < 85 ? OP_ESTABLISH : OP_REJECT;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		op = coin < 25 ? OP_DISCONNECT : NOPS;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		op = coin < 50 ? OP_DISCONNECT : coin < 80 ? OP_DESTROY_ID : NOPS;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		op = OP_DESTROY_ID;	/* what librdmacm asks of the application */
		break;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		p = r->cookie;
		op = coin < 40 ? OP_LEAVE : NOPS;
		break;
	default:	/* errors, rejects, timewait: often the end */
		op = coin < 50 ? OP_DESTROY_ID : NOPS;
		break;
	}
	if (op != NOPS)
		id_call(w, op, r->slot, 0, p);
out:
	pthread_mutex_unlock(&e->op);
}

/*
 * Get one event of channel @c: after poll() (@block false) or straight
 * away (then the kicker's signal ends a long wait with EINTR).
 */
static void op_get(struct wt *w, int c, bool block, uint32_t p)
{
	struct rdma_cm_event *ev;
	struct reaction r = { .slot = -1 };
	struct pollfd pfd;
	int ret;

	/*
	 * The last channel is a lazy one, read an eighth as often: its
	 * events wait, and its listeners have unread requests.
	 */
	if (c == NCHANS - 1 && p % 8)
		return;
	if (pthread_rwlock_tryrdlock(&chans[c].use))
		return;
	if (!chans[c].ch)
		goto out;
	in_call(w, block ? OP_GET_BLOCK : OP_GET_POLL);
	if (!block) {
		pfd.fd = chans[c].ch->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (p >> 4) % 20) != 1)
			goto out;
	}
	pthread_mutex_lock(&w->kick_lock);
	w->blocked = true;
	w->blocked_ms = now_ms();
	pthread_mutex_unlock(&w->kick_lock);
	ret = rdma_get_cm_event(chans[c].ch, &ev);
	pthread_mutex_lock(&w->kick_lock);
	w->blocked = false;
	pthread_mutex_unlock(&w->kick_lock);
	count(block ? OP_GET_BLOCK : OP_GET_POLL, ret);
	if (!ret)
		check_event(w, c, ev, &r);
	else if (errno != EINTR && errno != EAGAIN && errno != ENODATA)
		violation(w, "rdma_get_cm_event: %s", strerror(errno));
out:
	in_call(w, -1);
	pthread_rwlock_unlock(&chans[c].use);
	react(w, &r);
}

/* --- threads and workers --------------------------------------------- */

static enum op pick_op(uint32_t x)
{
	unsigned int sum = 0, i;

	for (i = 0; i < NOPS; i++)
		sum += op_weight[i];
	x %= sum;
	for (i = 0; x >= op_weight[i]; i++)
		x -= op_weight[i];
	return i;
}

/* One call drawn from the thread's sequence: four draws each. */
static void one_op(struct wt *w)
{
	enum op op = pick_op(draw(&w->rng));
	int s = below(&w->rng, NIDS), c = below(&w->rng, NCHANS);
	uint32_t p = draw(&w->rng);

	w->ops++;
	switch (op) {
	case OP_CREATE_CHANNEL:
		in_call(w, op);
		op_create_channel(c);
		in_call(w, -1);
		return;
	case OP_DESTROY_CHANNEL:
		in_call(w, op);
		op_destroy_channel(w, c);
		in_call(w, -1);
		return;
	case OP_GET_POLL:
	case OP_GET_BLOCK:
		op_get(w, c, op == OP_GET_BLOCK, p);
		return;
	default:
		break;
	}
	pthread_mutex_lock(&ids[s].op);
	if (!ids[s].id) {	/* any call on a free slot creates an id */
		in_call(w, OP_CREATE_ID);
		op_create_id(s, c, p);
		in_call(w, -1);
	} else if (op != OP_CREATE_ID) {
		id_call(w, op, s, c, p);
	}
	pthread_mutex_unlock(&ids[s].op);
}

static void *thread_main(void *arg)
{
	struct wt *w = arg;

	while (!atomic_load(&sh->stop))
		one_op(w);
	return NULL;
}

static void on_kick(int sig)
{
	(void)sig;
}

/* Interrupt threads blocked in rdma_get_cm_event() for over KICK_MS. */
static void *kicker(void *arg)
{
	int t;

	(void)arg;
	while (!atomic_load(&kicker_stop)) {
		/* The kicker's period, not a wait. */
		usleep(50000);
		for (t = 0; t < nthreads; t++) {
			pthread_mutex_lock(&wts[t].kick_lock);
			if (wts[t].blocked &&
			    now_ms() - wts[t].blocked_ms > KICK_MS)
				pthread_kill(wts[t].tid, SIGUSR1);
			pthread_mutex_unlock(&wts[t].kick_lock);
		}
	}
	return NULL;
}

/* A crash says where before the worker dies of it (the parent counts it). */
static void on_crash(int sig)
{
	char head[96];
	void *pcs[32];
	int n, len;

	len = snprintf(head, sizeof(head),
		       "# CRASH worker %d: signal %d, backtrace:\n", me, sig);
	if (write(1, head, len) < 0)
		_exit(5);
	n = backtrace(pcs, 32);
	backtrace_symbols_fd(pcs, n, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A hang: each thread of the worker says where it is (see dump_stacks). */
static void on_where(int sig)
{
	char head[96];
	void *pcs[32];
	int n, len;

	(void)sig;
	len = snprintf(head, sizeof(head), "# worker %d thread %d is at:\n",
		       me, (int)gettid());
	if (write(1, head, len) < 0)
		return;
	n = backtrace(pcs, 32);
	backtrace_symbols_fd(pcs, n, 1);
}

static uint64_t thread_seed(uint64_t base, int p, unsigned int inc, int t)
{
	return rcm_mix(base ^ rcm_mix((uint64_t)p << 40 |
				      (uint64_t)inc << 8 | t));
}

static int worker(uint64_t base, int p, unsigned int inc, unsigned int secs)
{
	struct sigaction sa = { .sa_handler = on_kick };	/* no SA_RESTART */
	struct sigaction where = { .sa_handler = on_where, .sa_flags = SA_RESTART };
	pthread_t kick;
	int s, c, t;

	me = p;
	alarm(secs + 120);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGABRT, on_crash);
	sigaction(SIGUSR2, &where, NULL);
	for (c = 0; c < NCHANS; c++) {
		pthread_rwlock_init(&chans[c].use, NULL);
		chans[c].ch = rdma_create_event_channel();
	}
	for (s = 0; s < NSLOTS; s++)
		pthread_mutex_init(&ids[s].op, NULL);
	for (t = 0; t < nthreads; t++) {
		wts[t].proc = p;
		wts[t].thread = t;
		wts[t].rng = thread_seed(base, p, inc, t);
		wts[t].react_rng = rcm_mix(wts[t].rng);
		pthread_mutex_init(&wts[t].kick_lock, NULL);
		if (pthread_create(&wts[t].tid, NULL, thread_main, &wts[t]))
			return 2;
	}
	if (pthread_create(&kick, NULL, kicker, NULL))
		return 2;
	for (t = 0; t < nthreads; t++)
		pthread_join(wts[t].tid, NULL);
	atomic_store(&kicker_stop, 1);
	pthread_join(kick, NULL);
	/* What the application leaves at the end: all of it destroyed. */
	in_call(NULL, OP_DESTROY_ID);
	for (s = 0; s < NSLOTS; s++)
		if (ids[s].id)
			do_destroy(NULL, s);
	for (c = 0; c < NCHANS; c++)
		if (chans[c].ch)
			rdma_destroy_event_channel(chans[c].ch);
	in_call(NULL, -1);
	return 0;
}

/* --- the parent ------------------------------------------------------ */

struct run {
	uint64_t seed, rng;
	unsigned int secs, kill_ms, removals, hang_s;
	pid_t pid[MAX_PROCS], remover;
	long long killed_ms[MAX_PROCS];	/* when SIGKILL was sent, or 0 */
	bool exit_hang[MAX_PROCS];	/* reported not exiting */
	unsigned long kills, crashes, hangs, removed, readded;
	long long readd_at, removal_ms, longest_removal_ms, longest_exit_ms;
	char lib[256];
};

static struct run run;

static pid_t spawn(int p)
{
	unsigned int inc = atomic_load(&sh->incarnation[p]);
	pid_t pid;

	memset(sh->t[p], 0, sizeof(sh->t[p]));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(worker(run.seed, p, inc, run.secs));
	return pid;
}

/* Kill worker @p; reap() starts its next incarnation once it is gone. */
static void churn(int p)
{
	if (run.pid[p] <= 0 || run.killed_ms[p])
		return;
	kill(run.pid[p], SIGKILL);
	run.killed_ms[p] = now_ms();
	run.kills++;
}

/*
 * Worker @p ended with status @st: killed, or by itself (a crash, or
 * at the stop, where it must have exited 0).
 */
static void worker_gone(int p, int st)
{
	bool stop = atomic_load(&sh->stop);

	if (run.killed_ms[p]) {
		if (now_ms() - run.killed_ms[p] > run.longest_exit_ms)
			run.longest_exit_ms = now_ms() - run.killed_ms[p];
	} else if (!stop || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("# worker %d incarnation %u ended by itself%s: %s %d\n",
		       p, atomic_load(&sh->incarnation[p]),
		       stop ? " at the stop" : "",
		       WIFSIGNALED(st) ? "signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		run.crashes++;
	}
	run.killed_ms[p] = 0;
	run.exit_hang[p] = false;
	atomic_fetch_add(&sh->incarnation[p], 1);
	run.pid[p] = stop ? -1 : spawn(p);
}

static bool running(void)
{
	int p;

	for (p = 0; p < nprocs; p++)
		if (run.pid[p] > 0)
			return true;
	return false;
}

/* Reap what ended: workers and the remover. */
static void reap(void)
{
	pid_t pid;
	int st, p;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == run.remover) {
			run.remover = 0;
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				printf("# rdma link delete rxe0 failed (status %#x)\n",
				       st);
			if (now_ms() - run.removal_ms > run.longest_removal_ms)
				run.longest_removal_ms = now_ms() - run.removal_ms;
			run.readd_at = now_ms() + 100 + below(&run.rng, 900);
			continue;
		}
		for (p = 0; p < nprocs; p++)
			if (run.pid[p] == pid)
				break;
		if (p < nprocs)
			worker_gone(p, st);
	}
}

/* The kernel stacks of @pid's threads, on stdout. */
static void dump_stacks(pid_t pid)
{
	struct dirent *de;
	char cmd[128];
	DIR *dir;

	if (pid <= 0)
		return;
	/* The user-space stacks first (on_where), then the kernel's. */
	snprintf(cmd, sizeof(cmd), "/proc/%d/task", (int)pid);
	fflush(stdout);
	dir = opendir(cmd);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		syscall(SYS_tgkill, pid, atoi(de->d_name), SIGUSR2);
		/* Not a wait: keeps the threads' stack dumps apart. */
		usleep(200000);
	}
	if (dir)
		closedir(dir);
	snprintf(cmd, sizeof(cmd),
		 "for t in /proc/%d/task/*; do echo \"# $t:\"; sed 's/^/#   /' $t/stack; done",
		 (int)pid);
	fflush(stdout);
	if (system(cmd))
		printf("# no stacks of %d\n", (int)pid);
}

/*
 * A thread in one call for longer than RCM_CHAOS_HANG_S is a hang; so
 * is a killed worker that has not exited by then (its files' release).
 */
static void watchdog(void)
{
	long long t0 = now_ms();
	int p, t, op;

	for (p = 0; p < nprocs; p++) {
		if (run.pid[p] <= 0)
			continue;	/* gone at the stop */
		if (run.killed_ms[p]) {
			if (run.exit_hang[p] ||
			    t0 - run.killed_ms[p] < run.hang_s * 1000LL)
				continue;
			printf("# HANG worker %d incarnation %u: killed %u s ago, not gone\n",
			       p, atomic_load(&sh->incarnation[p]), run.hang_s);
			dump_stacks(run.pid[p]);
			run.exit_hang[p] = true;
			run.hangs++;
			continue;
		}
		for (t = 0; t <= nthreads; t++) {
			op = atomic_load(&sh->t[p][t].op);
			if (!op || t0 - atomic_load(&sh->t[p][t].since_ms) <
			    run.hang_s * 1000LL)
				continue;
			printf("# HANG worker %d incarnation %u thread %d: %s for over %u s\n",
			       p, atomic_load(&sh->incarnation[p]), t,
			       op_name[op - 1], run.hang_s);
			dump_stacks(run.pid[p]);
			run.hangs++;
			churn(p);
			break;
		}
	}
}

static void remove_rxe(void)
{
	fflush(stdout);
	run.remover = fork();
	if (run.remover == 0)
		_exit(rcm_sh("timeout 100 rdma link delete rxe0"));
	run.removal_ms = now_ms();
	run.removed++;
}

/*
 * The parent's own watchdog: something it waits for never ended. Not
 * async-signal-safe, but the parent has one thread and is ending.
 */
static void on_alarm(int sig)
{
	int p;

	(void)sig;
	printf("# the parent's watchdog expired: workers' stacks follow\n");
	for (p = 0; p < nprocs; p++)
		if (run.pid[p] > 0)
			dump_stacks(run.pid[p]);
	_exit(3);
}

static void find_library(void)
{
	char line[512], *path;
	FILE *f = fopen("/proc/self/maps", "r");

	snprintf(run.lib, sizeof(run.lib), "?");
	while (f && fgets(line, sizeof(line), f)) {
		path = strchr(line, '/');
		if (path && strstr(path, "librdmacm")) {
			path[strcspn(path, "\n")] = '\0';
			snprintf(run.lib, sizeof(run.lib), "%s", path);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* Calls of all workers that succeeded. */
static unsigned long calls_ok(void)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < NOPS; i++)
		n += atomic_load(&sh->ok[i]);
	return n;
}

static void print_figures(long long ms)
{
	unsigned long ops = 0, fails = 0;
	char line[1024];
	int i, n;

	n = snprintf(line, sizeof(line), "# calls ok/failed:");
	for (i = 0; i < NOPS; i++) {
		ops += atomic_load(&sh->ok[i]) + atomic_load(&sh->failed[i]);
		fails += atomic_load(&sh->failed[i]);
		if (n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s %lu/%lu",
				      op_name[i], atomic_load(&sh->ok[i]),
				      atomic_load(&sh->failed[i]));
	}
	printf("%s\n", line);
	n = snprintf(line, sizeof(line), "# events checked %lu:",
		     atomic_load(&sh->checked));
	for (i = 0; i <= NEVENTS && n < (int)sizeof(line); i++)
		if (atomic_load(&sh->events[i]))
			n += snprintf(line + n, sizeof(line) - n, " %s %lu",
				      i < NEVENTS ? rdma_event_str(i) : "unknown",
				      atomic_load(&sh->events[i]));
	printf("%s\n", line);
	printf("# requests handed out without a device (a removal raced them): %lu\n",
	       atomic_load(&sh->requests_without_device));
	printf("# request ids at the address of an id being destroyed (freed, then reused): %lu\n",
	       atomic_load(&sh->requests_at_destroyed_address));
	printf("# figures: seed %#llx, %d x %d, %.1f s: %lu calls (%lu failed, %lu answers to events), %lu events checked, %lu kills (longest exit %lld ms), %lu device removals (longest %lld ms), %lu violations, %lu crashes, %lu hangs\n",
	       (unsigned long long)run.seed, nprocs, nthreads, ms / 1000.0,
	       ops, fails, atomic_load(&sh->reactions),
	       atomic_load(&sh->checked), run.kills, run.longest_exit_ms,
	       run.removed,
	       run.longest_removal_ms, atomic_load(&sh->violations),
	       run.crashes, run.hangs);
}

/*
 * What the run (the first case) leaves for the cases that check it:
 * each case is a child process of its own, so this, like sh, is shared
 * memory mapped in main() before the cases start.
 */
struct outcome {
	bool ran, rcm_lib;
	long slab_ids0, slab_evs0;
	struct run run;		/* a copy of the run's record, at its end */
};

static struct outcome *out;

TEST(every_event_names_a_live_id_of_its_channel)
{
	long long start, end, next_kill, next_removal;
	struct sigaction sa = { .sa_handler = on_alarm };
	struct rdma_event_channel *probe;
	unsigned int r = 0;
	bool stuck = false;
	int p;

	addr_rxe = getenv("RCM_ADDR_RXE");
	addr6_rxe = getenv("RCM_ADDR6_RXE");
	addr_silent = getenv("RCM_ADDR_SILENT");
	addr_nordma = getenv("RCM_ADDR_NORDMA");
	netdev_rxe = getenv("RCM_NETDEV_RXE");
	if (!addr_rxe)
		SKIP(return, "no Soft-RoCE device");
	/* rcm's port spaces are the in-tree CM's numbers. */
	ASSERT_EQ(0, rcm_free_ports("0.0.0.0", RDMA_PS_TCP, ports, NPORTS))
		TH_LOG("no free port: %s", strerror(errno));
	nprocs = rcm_env_ul("RCM_CHAOS_PROCS", 4);
	nthreads = rcm_env_ul("RCM_CHAOS_THREADS", 3);
	if (nprocs < 1 || nprocs > MAX_PROCS || nthreads < 1 ||
	    nthreads > MAX_THREADS)
		SKIP(return, "RCM_CHAOS_PROCS 1..%d, RCM_CHAOS_THREADS 1..%d",
		     MAX_PROCS, MAX_THREADS);
	/* The library's hints (no device during a removal) are noise here. */
	setenv("RCM_QUIET", "1", 0);
	run.secs = rcm_env_ul("RCM_CHAOS_SECONDS", 30);
	run.kill_ms = rcm_env_ul("RCM_CHAOS_KILL_MS", 1500);
	run.removals = netdev_rxe ? rcm_env_ul("RCM_CHAOS_REMOVALS", 1) : 0;
	run.hang_s = rcm_env_ul("RCM_CHAOS_HANG_S", 60);
	run.seed = rcm_env_ul("RCM_CHAOS_SEED", 0);
	if (!getenv("RCM_CHAOS_SEED"))
		run.seed = rcm_mix(time(NULL) ^ (uint64_t)getpid() << 32);
	run.rng = rcm_mix(run.seed ^ 0xc4a05);
	probe = rdma_create_event_channel();
	if (!probe)
		SKIP(return, "rdma_create_event_channel: %s", strerror(errno));
	rdma_destroy_event_channel(probe);
	find_library();
	out->rcm_lib = !strstr(run.lib, "x86_64-linux-gnu");
	memset(sh, 0, sizeof(*sh));
	printf("# seed %#llx (RCM_CHAOS_SEED replays): %d workers x %d threads, %u s, a kill every %u ms on average, %u device removals, library %s\n",
	       (unsigned long long)run.seed, nprocs, nthreads, run.secs,
	       run.kill_ms, run.removals, run.lib);
	if (out->rcm_lib) {
		out->slab_ids0 = rcm_slab_objects("rcm_id");
		out->slab_evs0 = rcm_slab_objects("rcm_uevent");
	}
	sigaction(SIGALRM, &sa, NULL);
	alarm(run.secs + 300);
	out->ran = true;
	start = now_ms();
	end = start + run.secs * 1000LL;
	for (p = 0; p < nprocs; p++)
		run.pid[p] = spawn(p);
	next_kill = start + 300 + below(&run.rng, 2 * run.kill_ms);
	next_removal = run.removals ?
		start + run.secs * 1000LL / (run.removals + 1) : end;
	while (now_ms() < end) {
		/* The supervisor's tick (reaping, kills, removals). */
		usleep(20000);
		reap();
		watchdog();
		if (now_ms() >= next_kill) {
			churn(below(&run.rng, nprocs));
			/* Under a removal, fast: it waits for the old ones. */
			next_kill = now_ms() + (run.remover ?
				200 + below(&run.rng, 400) :
				300 + below(&run.rng, 2 * run.kill_ms));
		}
		if (run.readd_at && now_ms() >= run.readd_at) {
			rcm_restore_rxe();
			run.readded++;
			run.readd_at = 0;
		}
		if (r < run.removals && now_ms() >= next_removal &&
		    !run.remover && !run.readd_at) {
			remove_rxe();
			r++;
			next_removal = start + run.secs * 1000LL * (r + 1) /
				(run.removals + 1);
		}
	}
	/* The stop: each worker destroys what it has and exits 0. */
	atomic_store(&sh->stop, 1);
	end = now_ms();
	while (running() || run.remover > 0) {
		/* The supervisor's tick, bounded by run.hang_s below. */
		usleep(20000);
		reap();
		watchdog();
		if (now_ms() - end < run.hang_s * 1000LL || stuck)
			continue;
		printf("# HANG: workers or the removal still there %u s after the stop\n",
		       run.hang_s);
		for (p = 0; p < nprocs; p++)
			if (run.pid[p] > 0)
				dump_stacks(run.pid[p]);
		if (run.remover > 0)
			dump_stacks(run.remover);
		run.hangs++;
		stuck = true;
	}
	rcm_restore_rxe();
	alarm(0);
	out->run = run;
	print_figures(now_ms() - start);
	ASSERT_TRUE(!atomic_load(&sh->violations))
		TH_LOG("%lu violations", atomic_load(&sh->violations));
	ASSERT_TRUE(atomic_load(&sh->checked))
		TH_LOG("no event was checked");
}

TEST(workers_neither_crash_nor_hang)
{
	unsigned long ncalls;

	if (!out->ran)
		SKIP(return, "no chaos run");
	ASSERT_TRUE(!out->run.crashes && !out->run.hangs)
		TH_LOG("%lu crashes, %lu hangs", out->run.crashes,
		       out->run.hangs);
	ASSERT_TRUE(!access("/sys/class/infiniband/rxe0", F_OK))
		TH_LOG("rxe0 is missing after the run");
	/*
	 * A run that never connected exercised only the early states. How
	 * far a run gets depends on the machine (a KASAN guest sharing its
	 * cores made 344 calls in 30 s, one alone ten times as many), so
	 * the bar is the calls that succeeded: runs of about 2000 had ten
	 * connection requests, of 6000 or more a few established ones.
	 */
	ncalls = calls_ok();
	ASSERT_TRUE(ncalls < 2000 ||
		    atomic_load(&sh->events[RDMA_CM_EVENT_CONNECT_REQUEST]))
		TH_LOG("no connection request in %lu successful calls", ncalls);
	ASSERT_TRUE(ncalls < 6000 ||
		    atomic_load(&sh->events[RDMA_CM_EVENT_ESTABLISHED]))
		TH_LOG("no established connection in %lu successful calls", ncalls);
}

TEST(rcm_slab_objects_back_to_baseline)
{
	long ids, evs;

	if (!out->ran)
		SKIP(return, "no chaos run");
	if (!out->rcm_lib)
		SKIP(return, "not rcm's library: %s", out->run.lib);
	if (out->slab_ids0 < 0 || out->slab_evs0 < 0)
		SKIP(return, "no rcm caches in /proc/slabinfo");
	ASSERT_EQ(0, rcm_slabs_back_to(out->slab_ids0, out->slab_evs0, &ids,
				       &evs))
		TH_LOG("after the run: %ld ids (%ld before), %ld events (%ld before)",
		       ids, out->slab_ids0, evs, out->slab_evs0);
	printf("# rcm_id %ld (baseline %ld), rcm_uevent %ld (baseline %ld)\n",
	       ids, out->slab_ids0, evs, out->slab_evs0);
}

int main(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || out == MAP_FAILED) {
		perror("mmap");
		return KSFT_FAIL;
	}
	out->slab_ids0 = -1;
	out->slab_evs0 = -1;
	return rcm_test_main();
}
