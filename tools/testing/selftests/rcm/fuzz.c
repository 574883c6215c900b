// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz: seeded random sequences over the whole rcm uapi.
 *
 * RCM_FUZZ_WORKERS processes of RCM_FUZZ_THREADS threads each share a
 * few open rcm files per process and call every command on them: mostly
 * valid structs that follow an id's life (bind, resolve, route, listen,
 * connect, accept, establish, disconnect, over the guest's Soft-RoCE
 * device, so connections between the workers really happen), with one
 * mutation in four (size, flags, reserved, tail, handle, pointers, the
 * ioctl number), plus read() with every buffer size, poll(), dup(),
 * fork() (the child calls into the shared files and exits), files
 * closed under the other threads, ids migrated between files, and
 * destroys from several threads and processes at once. A separate
 * process deletes and re-adds rxe0 meanwhile (RCM_FUZZ_LINK=0: not).
 * Where /proc/thread-self/fail-nth exists (the test kernel), one call in
 * RCM_FUZZ_FAULT_PCT (default 10) percent has its Nth allocation or user
 * copy fail.
 *
 * What it checks besides the kernel log (the guest fails the run on any
 * KASAN, lockdep, kmemleak or WARN report):
 *  - every failing call returns an errno the header documents for that
 *    command, and the exact one of the header rule a mutation broke;
 *  - read() returns whole records (or EAGAIN, EINVAL below one record,
 *    EFAULT), and every record is well formed;
 *  - no event names a handle its file never had, or one destroyed (and
 *    not handed out again) before the event was read; a CONNECT_REQUEST
 *    names a live listener.
 *
 * Each thread draws from its own generator, seeded from RCM_FUZZ_SEED
 * (default: from the clock) and its worker and thread numbers; every
 * seed is printed. RCM_FUZZ_SEED=<seed> with the same RCM_FUZZ_WORKERS,
 * RCM_FUZZ_THREADS and RCM_FUZZ_OPS replays the same sequences (what
 * the kernel does concurrently is up to the scheduler). RCM_FUZZ_OPS
 * bounds the operations of the whole run, RCM_FUZZ_SECONDS its time.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest.h"
#include "rcm_test.h"
#include "fuzz_common.h"

#define NFILES 3
#define HMAX 65536	/* RCM_MAX_IDS: handles run from 1 to this */
#define RING 64
#define NPORTS 8	/* the ports the workers share */
#define MAX_REPORTS 40

enum hint {	/* what the fuzzer believes an id is doing */
	H_IDLE, H_BOUND, H_RESOLVING, H_RESOLVED, H_ROUTED, H_LISTEN,
	H_REQUEST, H_CONNECTING, H_RESPONDED, H_CONNECTED,
};

enum mark { M_NEVER, M_LIVE, M_DEAD };

/* Why a handle has its mark: said when an event contradicts it. */
enum why {
	W_NONE, W_CREATE, W_ADOPT, W_MIGRATE_IN, W_REQUEST, W_DESTROY,
	W_MIGRATE_OUT, W_MIGRATE_LOST,
};

static const char *const why_name[] = {
	"nothing", "CREATE_ID", "QUERY_ID after a lost copy-out",
	"MIGRATE_ID to it", "CONNECT_REQUEST", "DESTROY_ID",
	"MIGRATE_ID away", "MIGRATE_ID away (lost copy-out)",
};

enum verdict { V_ERRNO, V_HANDLE, V_READ, V_NCLASSES };

struct shared {		/* one per run, shared by every process */
	atomic_ulong ops, faults, calls, fails, events, forks, link_flips;
	atomic_ulong adopted;
	atomic_ulong evcount[RCM_EVENT_TIMEWAIT_EXIT + 1];
	atomic_ulong cmdok[RCM_NCMDS], cmderr[RCM_NCMDS];
	atomic_ulong bad[V_NCLASSES];
	atomic_int reports;
	atomic_int stop;
};

struct ffile {		/* one open rcm file of a worker process */
	pthread_mutex_t lock;	/* reads, checked destroys, migrations */
	int fd;
	unsigned char mark[HMAX + 1];
	unsigned char hint[HMAX + 1];
	unsigned char ud[HMAX + 1];
	unsigned char why[HMAX + 1];	/* enum why of the last mark */
	unsigned long when[HMAX + 1];	/* the run's op count then */
	unsigned int ring[RING];
	unsigned int nring;
	unsigned int maxh;	/* the highest handle the file had */
};

struct fz {		/* one fuzzing thread */
	uint64_t rng, seed;
	int worker, thread, ffd;
	bool child;		/* a fork() child: no locks, no reads */
	char *rdonly;		/* a page made read-only for one call */
	bool fired;		/* the last call() had a failure injected */
	unsigned long ops;
	pthread_t tid;
};

static struct shared *sh;
static struct ffile files[NFILES];
static const char *addr_rxe, *addr6_rxe, *addr_siw, *addr_silent,
	*addr_nordma, *netdev_rxe;
static unsigned short ports[NPORTS];	/* from bind(0), before they start */
static unsigned long ops_per_thread;
static double deadline;
static int fault_pct;
static char *noaccess;	/* a PROT_NONE page */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t rnd(struct fz *z)
{
	z->rng = rcm_mix(z->rng);
	return z->rng >> 32;
}

/* 0 .. n-1 */
static uint32_t below(struct fz *z, uint32_t n)
{
	return n ? rnd(z) % n : 0;
}

static bool chance(struct fz *z, unsigned int pct)
{
	return below(z, 100) < pct;
}

/* A line on stdout, written whole (threads and fork children print). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		return;
}

static void violation(struct fz *z, enum verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void violation(struct fz *z, enum verdict v, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	atomic_fetch_add(&sh->bad[v], 1);
	if (atomic_fetch_add(&sh->reports, 1) >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say("# VIOLATION worker %d thread %d%s seed %#llx op %lu: %s",
	    z->worker, z->thread, z->child ? " (fork child)" : "",
	    (unsigned long long)z->seed, z->ops, buf);
}

/* --- handles the fuzzer knows ------------------------------------------- */

static void lock2(int a, int b)
{
	if (a > b) {
		int t = a;

		a = b;
		b = t;
	}
	pthread_mutex_lock(&files[a].lock);
	if (b != a)
		pthread_mutex_lock(&files[b].lock);
}

static void unlock2(int a, int b)
{
	pthread_mutex_unlock(&files[a].lock);
	if (b != a)
		pthread_mutex_unlock(&files[b].lock);
}

/* Mark @h of @f (caller holds the file's lock), and say why. */
static void mark_locked(struct ffile *f, unsigned int h, enum mark m,
			enum why why)
{
	f->mark[h] = m;
	f->why[h] = why;
	f->when[h] = atomic_load(&sh->ops);
}

/* Record @h as the file's (caller holds the file's lock). */
static void note_locked(struct ffile *f, unsigned int h, int hint, bool ud,
			enum why why)
{
	if (!h || h > HMAX)
		return;
	mark_locked(f, h, M_LIVE, why);
	f->hint[h] = hint;
	f->ud[h] = ud;
	f->ring[f->nring++ % RING] = h;
	if (h > f->maxh)
		f->maxh = h;
}

/*
 * A CREATE_ID or MIGRATE_ID whose output could not be written back
 * (EFAULT) may still have given the file an id, whose handle userspace
 * never learnt: find such ids (every handle the fuzzer does not believe
 * live that QUERY_ID knows) and take them as the file's, so events of
 * theirs are not taken for events of foreign handles. Caller holds the
 * file's lock.
 */
static void adopt_locked(struct ffile *f)
{
	unsigned int h, top = f->maxh + 16;
	struct rcm_query_id q;

	if (top > HMAX)
		top = HMAX;
	for (h = 1; h <= top; h++) {
		if (f->mark[h] == M_LIVE)
			continue;
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.id = h;
		if (!ioctl(f->fd, RCM_IOCTL_QUERY_ID, &q)) {
			note_locked(f, h, H_IDLE, false, W_ADOPT);
			atomic_fetch_add(&sh->adopted, 1);
		}
	}
}

static void set_hint(struct fz *z, int fi, unsigned int h, int hint)
{
	if (!z->child && h && h <= HMAX)
		files[fi].hint[h] = hint;	/* a hint: races are harmless */
}

/* A handle to use: mostly one the file had, sometimes anything. */
static unsigned int pick_handle(struct fz *z, int fi)
{
	struct ffile *f = &files[fi];
	unsigned int n = f->nring < RING ? f->nring : RING;

	if (n && !chance(z, 8))
		return f->ring[below(z, n)];
	switch (below(z, 4)) {
	case 0:
		return 0;
	case 1:
		return HMAX + 1 + below(z, 1000);
	case 2:
		return 0xffffffffu - below(z, 3);
	default:
		return 1 + below(z, 300);
	}
}

/* A handle the file had whose hint is @hint, or 0. */
static unsigned int pick_in(struct fz *z, int fi, int hint)
{
	struct ffile *f = &files[fi];
	unsigned int n = f->nring < RING ? f->nring : RING, i, start;

	if (!n)
		return 0;
	start = below(z, n);
	for (i = 0; i < n; i++) {
		unsigned int h = f->ring[(start + i) % n];

		if (f->hint[h] == hint && f->mark[h] == M_LIVE)
			return h;
	}
	return 0;
}

/* --- calling commands ---------------------------------------------------- */

/* Command structs live here, with room for tails and oversized sizes. */
union cmdbuf {
	struct rcm_query query;
	struct rcm_create_id create;
	struct rcm_destroy_id destroy;
	struct rcm_bind_addr bind;
	struct rcm_resolve_addr resolve;
	struct rcm_query_id query_id;
	struct rcm_resolve_route route;
	struct rcm_set_option opt;
	struct rcm_listen listen;
	struct rcm_reject reject;
	struct rcm_accept accept;
	struct rcm_disconnect disconnect;
	struct rcm_connect connect;
	struct rcm_establish establish;
	struct rcm_init_qp_attr qp;
	struct rcm_notify notify;
	struct rcm_migrate_id migrate;
	struct rcm_join_mcast join;
	struct rcm_leave_mcast leave;
	unsigned char bytes[8192];
	uint64_t align;
};

enum mutation {
	MUT_NONE, MUT_SIZE_SMALL, MUT_SIZE_HUGE, MUT_TAIL_ZERO,
	MUT_TAIL_DIRTY, MUT_FLAGS, MUT_NR, MUT_NULL, MUT_NOACCESS,
	MUT_RDONLY, MUT_BYTE, MUT_END,
};

/*
 * Issue command @nr with the struct in @b (its size member set) on @fd,
 * mutated by @mut; check the result against the header. Returns the
 * ioctl's result, with errno.
 */
static int call(struct fz *z, int fd, unsigned int nr, union cmdbuf *b,
		enum mutation mut)
{
	unsigned long req = _IO(RCM_IOCTL_MAGIC, nr);
	size_t size = rcm_cmd_size(nr);
	int want = 0, ret, err, slot = nr - RCM_CMD_BASE;
	bool armed = false, fired = false;
	void *arg = b;

	b->query.size = size;
	switch (mut) {
	case MUT_SIZE_SMALL:
		b->query.size = below(z, 8);	/* below every minimum */
		want = EINVAL;
		break;
	case MUT_SIZE_HUGE:
		b->query.size = 4097 + below(z, 4000);
		want = E2BIG;
		break;
	case MUT_TAIL_ZERO:
		b->query.size = size + 8 * (1 + below(z, 64));
		memset(b->bytes + size, 0, b->query.size - size);
		break;
	case MUT_TAIL_DIRTY:
		b->query.size = size + 8 * (1 + below(z, 64));
		memset(b->bytes + size, 0, b->query.size - size);
		b->bytes[size + below(z, b->query.size - size)] = 1 + below(z, 255);
		want = E2BIG;
		break;
	case MUT_FLAGS:
		b->query.flags = 1u << below(z, 32);
		want = EOPNOTSUPP;
		break;
	case MUT_NR:
		switch (below(z, 3)) {
		case 0:
			req = _IO(RCM_IOCTL_MAGIC, RCM_CMD_BASE + RCM_NCMDS +
				  below(z, 0x7f - RCM_NCMDS));
			break;
		case 1:
			req = _IOWR(RCM_IOCTL_MAGIC, nr, struct rcm_query);
			break;
		default:
			req = _IO(RCM_IOCTL_MAGIC + 1, nr);
			break;
		}
		want = ENOTTY;
		break;
	case MUT_NULL:
		arg = NULL;
		want = EFAULT;
		break;
	case MUT_NOACCESS:
		arg = noaccess + below(z, 8) * 8;
		want = EFAULT;
		break;
	case MUT_RDONLY:
		/* The header reads, the output cannot be written: EFAULT or 0. */
		memcpy(z->rdonly, b, size);
		arg = z->rdonly;
		break;
	case MUT_BYTE:
		b->bytes[8 + below(z, size - 8)] ^= 1u << below(z, 8);
		break;
	default:
		break;
	}
	if (mut == MUT_RDONLY && mprotect(z->rdonly, 4096, PROT_READ))
		return -1;
	if (z->ffd >= 0 && !z->child && chance(z, fault_pct))
		armed = !rcm_fault_arm(z->ffd, 1 + (chance(z, 70) ?
						   below(z, 6) : below(z, 40)));
	ret = ioctl(fd, req, arg);
	err = errno;
	z->fired = false;
	if (armed) {
		fired = rcm_fault_fired(z->ffd);
		z->fired = fired;
		if (fired)
			atomic_fetch_add(&sh->faults, 1);
	}
	if (mut == MUT_RDONLY) {
		mprotect(z->rdonly, 4096, PROT_READ | PROT_WRITE);
		memcpy(b, z->rdonly, size);
	}
	atomic_fetch_add(&sh->calls, 1);
	if (ret == 0) {
		atomic_fetch_add(&sh->cmdok[slot], 1);
		if (want && !fired)
			violation(z, V_ERRNO, "%s with mutation %d succeeded, the header says %s",
				  rcm_cmd_name(nr), mut, strerror(want));
		return 0;
	}
	atomic_fetch_add(&sh->fails, 1);
	atomic_fetch_add(&sh->cmderr[slot], 1);
	if (ret != -1) {
		violation(z, V_ERRNO, "%s returned %d", rcm_cmd_name(nr), ret);
	} else if (mut == MUT_NR || !rcm_errno_documented(nr, err)) {
		if (mut != MUT_NR || err != ENOTTY)
			violation(z, V_ERRNO, "%s%s: errno %d (%s) is not documented for it%s",
				  rcm_cmd_name(nr), mut == MUT_NR ? " (foreign number)" : "",
				  err, strerror(err),
				  fired ? " (an allocation or copy failed by injection)" : "");
	} else if (want && err != want && !fired) {
		violation(z, V_ERRNO, "%s with mutation %d: errno %d (%s), the header says %s",
			  rcm_cmd_name(nr), mut, err, strerror(err),
			  strerror(want));
	}
	errno = err;
	return -1;
}

/* Mostly none; one call in four breaks one rule of the header. */
static enum mutation pick_mutation(struct fz *z, bool valid)
{
	if (valid || !chance(z, 25))
		return MUT_NONE;
	return 1 + below(z, MUT_END - 1);
}

static void fill_addr(struct fz *z, struct __kernel_sockaddr_storage *ss,
		      bool dst)
{
	static const char *const junk[] = {
		"127.0.0.1", "0.0.0.0", "::", "::1", "255.255.255.255",
		"239.1.2.3", "fe80::1", "198.18.254.1",
	};
	unsigned short port = ports[below(z, NPORTS)];
	const char *ip = addr_rxe;

	switch (below(z, 12)) {
	case 0:
		ip = addr6_rxe ? addr6_rxe : addr_rxe;
		break;
	case 1:
		ip = dst && addr_silent ? addr_silent : addr_rxe;
		break;
	case 2:
		ip = addr_nordma ? addr_nordma : addr_rxe;
		break;
	case 3:
		ip = addr_siw && chance(z, 30) ? addr_siw : addr_rxe;
		break;
	case 4:
		ip = junk[below(z, sizeof(junk) / sizeof(junk[0]))];
		break;
	case 5:
		port = chance(z, 50) ? 0 : below(z, 65536);
		break;
	case 6:
		if (!dst) {
			ip = "0.0.0.0";
			break;
		}
		/* fall through */
	default:
		break;
	}
	if (!dst && chance(z, 40))
		port = 0;
	rcm_sockaddr(ss, ip ? ip : "198.18.1.1", port);
	if (chance(z, 3)) {	/* an unknown family, or garbage after it */
		if (chance(z, 50))
			ss->ss_family = below(z, 64);
		else
			((unsigned char *)ss)[28 + below(z, 100)] = rnd(z);
	}
}

/* An address a program would pass: rxe's, a port of the shared range. */
static void fill_addr_valid(struct fz *z, struct __kernel_sockaddr_storage *ss,
			    bool dst)
{
	const char *ip = addr6_rxe && chance(z, 15) ? addr6_rxe : addr_rxe;
	unsigned short port = ports[below(z, NPORTS)];

	if (!dst && chance(z, 20))
		port = 0;
	rcm_sockaddr(ss, ip ? ip : "198.18.1.1", port);
}

static void fill_mcast(struct fz *z, struct __kernel_sockaddr_storage *ss)
{
	char ip[32];

	if (chance(z, 85)) {
		snprintf(ip, sizeof(ip), "239.1.%u.%u", below(z, 2),
			 1 + below(z, 4));
		rcm_sockaddr(ss, ip, 0);
	} else {
		fill_addr(z, ss, true);
	}
}

/* Private data: a length around the command's limits, a pointer. */
static void fill_pdata(struct fz *z, __u32 *len, __u64 *ptr,
		       unsigned int limit)
{
	static unsigned char data[512];

	*len = chance(z, 40) ? 0 : below(z, limit + 3);
	*ptr = (uintptr_t)data;
	switch (below(z, 20)) {
	case 0:
		*ptr = 0;
		break;
	case 1:
		*ptr = (uintptr_t)noaccess;
		break;
	case 2:
		*ptr = 0xffff888000000000ULL;
		break;
	case 3:
		*len = rnd(z);
		break;
	default:
		break;
	}
}

/* --- the operations ------------------------------------------------------ */

static int fd_of(int fi)
{
	return files[fi].fd;
}

static void op_create(struct fz *z, int fi)
{
	enum mutation mut = pick_mutation(z, false);
	static const uint16_t ps[] = {
		RCM_PS_TCP, RCM_PS_TCP, RCM_PS_TCP, RCM_PS_UDP, RCM_PS_IB,
		RCM_PS_IPOIB,
	};
	union cmdbuf b;
	bool ud;

	memset(&b, 0, sizeof(b));
	b.create.context = rnd(z);
	b.create.port_space = ps[below(z, sizeof(ps) / sizeof(ps[0]))];
	ud = b.create.port_space == RCM_PS_UDP ||
	     b.create.port_space == RCM_PS_IPOIB;
	if (b.create.port_space == RCM_PS_IB)
		ud = chance(z, 50);
	b.create.qp_type = ud ? RCM_QPT_UD : RCM_QPT_RC;
	if (chance(z, 4))
		b.create.qp_type = below(z, 256);
	if (chance(z, 3))
		b.create.port_space = rnd(z);
	if (chance(z, 3))
		b.create.reserved = 1 + below(z, 255);
	if (z->child)	/* the parent would not know the handle */
		return;
	/*
	 * Under the file's lock: a thread holding the handle from an id
	 * destroyed before may call on the new id at once, and its events
	 * must not be read before the handle is known to be live again.
	 */
	pthread_mutex_lock(&files[fi].lock);
	if (call(z, fd_of(fi), RCM_CMD_CREATE_ID, &b, mut)) {
		if (errno == EFAULT && (mut == MUT_RDONLY || z->fired))
			adopt_locked(&files[fi]);
	} else if (!b.create.out_id || b.create.out_id > HMAX) {
		violation(z, V_HANDLE, "CREATE_ID gave handle %u",
			  b.create.out_id);
	} else {
		note_locked(&files[fi], b.create.out_id, H_IDLE, ud, W_CREATE);
	}
	pthread_mutex_unlock(&files[fi].lock);
}

static void op_destroy(struct fz *z, int fi, unsigned int h, bool valid)
{
	enum mutation mut = pick_mutation(z, valid);
	bool checked = !z->child && chance(z, 50);
	struct ffile *f = &files[fi];
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.destroy.id = h;
	/*
	 * A checked destroy holds the file's lock, so no event of the id
	 * is being read meanwhile: after it, none may name the handle
	 * until the kernel hands it out again.
	 */
	if (checked)
		pthread_mutex_lock(&f->lock);
	/* A flipped bit may name another handle: the struct says which. */
	if (!call(z, f->fd, RCM_CMD_DESTROY_ID, &b, mut) && checked &&
	    b.destroy.id && b.destroy.id <= HMAX)
		mark_locked(f, b.destroy.id, M_DEAD, W_DESTROY);
	if (checked)
		pthread_mutex_unlock(&f->lock);
}

static void op_bind(struct fz *z, int fi, unsigned int h, bool valid)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.bind.id = h;
	if (valid)
		fill_addr_valid(z, &b.bind.addr, false);
	else
		fill_addr(z, &b.bind.addr, false);
	if (!valid && chance(z, 3))
		b.bind.reserved = 1;
	if (!call(z, fd_of(fi), RCM_CMD_BIND_ADDR, &b,
		  pick_mutation(z, valid)))
		set_hint(z, fi, h, H_BOUND);
}

static void op_resolve(struct fz *z, int fi, unsigned int h, bool valid)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.resolve.id = h;
	b.resolve.timeout_ms = chance(z, 80) ? 100 + below(z, 1500) :
			       (chance(z, 50) ? 0 : rnd(z));
	if (valid) {
		fill_addr_valid(z, &b.resolve.dst, true);
	} else {
		if (chance(z, 20))
			fill_addr(z, &b.resolve.src, false);
		fill_addr(z, &b.resolve.dst, true);
	}
	if (!call(z, fd_of(fi), RCM_CMD_RESOLVE_ADDR, &b,
		  pick_mutation(z, valid)))
		set_hint(z, fi, h, H_RESOLVING);
}

static void op_route(struct fz *z, int fi, unsigned int h, bool valid)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.route.id = h;
	b.route.timeout_ms = chance(z, 90) ? below(z, 2000) : rnd(z);
	if (!call(z, fd_of(fi), RCM_CMD_RESOLVE_ROUTE, &b,
		  pick_mutation(z, valid)))
		set_hint(z, fi, h, H_ROUTED);
}

static void op_query(struct fz *z, int fi)
{
	enum mutation mut = pick_mutation(z, false);
	union cmdbuf b;

	/*
	 * A flipped bit could choose another record size for the file
	 * (the events test covers that); the reads here check records of
	 * the default size.
	 */
	if (mut == MUT_BYTE)
		mut = MUT_NONE;
	memset(&b, 0, sizeof(b));
	if (!call(z, fd_of(fi), RCM_CMD_QUERY, &b, mut) &&
	    b.query.out_abi_version != RCM_ABI_VERSION)
		violation(z, V_ERRNO, "QUERY: ABI %u", b.query.out_abi_version);
}

static void op_query_id(struct fz *z, int fi, unsigned int h)
{
	enum mutation mut = pick_mutation(z, false);
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.query_id.id = h;
	if (call(z, fd_of(fi), RCM_CMD_QUERY_ID, &b, mut) || mut == MUT_BYTE)
		return;
	if (b.query_id.out_reserved || b.query_id.out_num_paths > 1)
		violation(z, V_ERRNO, "QUERY_ID: reserved %#x, %u paths",
			  b.query_id.out_reserved, b.query_id.out_num_paths);
}

static void op_option(struct fz *z, int fi, unsigned int h)
{
	static const uint32_t names[] = {
		RCM_OPTION_ID_TOS, RCM_OPTION_ID_REUSEADDR,
		RCM_OPTION_ID_AFONLY, RCM_OPTION_ID_ACK_TIMEOUT,
		RCM_OPTION_ID_RESOLVE_TIMEOUT, RCM_OPTION_ID_CONNECT_TIMEOUT,
		RCM_OPTION_ID_QKEY,
	};
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.opt.id = h;
	b.opt.level = chance(z, 95) ? RCM_OPTION_ID : rnd(z);
	b.opt.optname = chance(z, 95) ?
		names[below(z, sizeof(names) / sizeof(names[0]))] : rnd(z);
	switch (below(z, 4)) {
	case 0:
		b.opt.value = below(z, 2);
		break;
	case 1:
		b.opt.value = below(z, 40);
		break;
	case 2:
		b.opt.value = 500 + below(z, 3000);
		break;
	default:
		b.opt.value = ((uint64_t)rnd(z) << 32) | rnd(z);
		break;
	}
	call(z, fd_of(fi), RCM_CMD_SET_OPTION, &b, pick_mutation(z, false));
}

static void op_listen(struct fz *z, int fi, unsigned int h, bool valid)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.listen.id = h;
	b.listen.backlog = chance(z, 80) ? below(z, 8) : rnd(z);
	if (!call(z, fd_of(fi), RCM_CMD_LISTEN, &b, pick_mutation(z, valid)))
		set_hint(z, fi, h, H_LISTEN);
}

static void op_connect(struct fz *z, int fi, unsigned int h, bool valid)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.connect.id = h;
	b.connect.qp_num = chance(z, 95) ? below(z, 1 << 24) : rnd(z);
	b.connect.responder_resources = below(z, 20);
	b.connect.initiator_depth = below(z, 20);
	b.connect.flow_control = below(z, 3);
	b.connect.retry_count = below(z, 10);
	b.connect.rnr_retry_count = below(z, 10);
	b.connect.srq = below(z, 3);
	fill_pdata(z, &b.connect.private_data_len, &b.connect.private_data,
		   files[fi].ud[h <= HMAX ? h : 0] ?
		   RCM_UD_CONNECT_PRIVATE_DATA_MAX : RCM_CONNECT_PRIVATE_DATA_MAX);
	if (!valid && chance(z, 3))
		b.connect.reserved2 = 1;
	if (!call(z, fd_of(fi), RCM_CMD_CONNECT, &b, pick_mutation(z, valid)))
		set_hint(z, fi, h, H_CONNECTING);
}

static void op_accept(struct fz *z, int fi, unsigned int h, bool valid)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.accept.id = h;
	b.accept.qp_num = chance(z, 95) ? below(z, 1 << 24) : rnd(z);
	b.accept.context = rnd(z);
	b.accept.responder_resources = below(z, 20);
	b.accept.initiator_depth = below(z, 20);
	b.accept.flow_control = below(z, 3);
	b.accept.rnr_retry_count = below(z, 10);
	b.accept.srq = below(z, 3);
	fill_pdata(z, &b.accept.private_data_len, &b.accept.private_data,
		   RCM_ACCEPT_PRIVATE_DATA_MAX);
	if (!call(z, fd_of(fi), RCM_CMD_ACCEPT, &b, pick_mutation(z, valid)))
		set_hint(z, fi, h, H_CONNECTED);
}

static void op_reject(struct fz *z, int fi, unsigned int h, bool valid)
{
	static const uint32_t reasons[] = {
		0, RCM_REJ_CONSUMER_DEFINED,
		RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED, 8,
	};
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.reject.id = h;
	b.reject.reason = chance(z, 90) ? reasons[below(z, 4)] : rnd(z);
	fill_pdata(z, &b.reject.private_data_len, &b.reject.private_data,
		   RCM_REJECT_PRIVATE_DATA_MAX);
	call(z, fd_of(fi), RCM_CMD_REJECT, &b, pick_mutation(z, valid));
}

/* ESTABLISH, NOTIFY, DISCONNECT: an id and little else. */
static void op_small(struct fz *z, int fi, unsigned int nr, unsigned int h,
		     bool valid)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.disconnect.id = h;
	if (nr == RCM_CMD_NOTIFY)
		b.notify.event = chance(z, 80) ? RCM_NOTIFY_COMM_EST : rnd(z);
	call(z, fd_of(fi), nr, &b, pick_mutation(z, valid));
}

static void op_init_qp(struct fz *z, int fi, unsigned int h)
{
	enum mutation mut = pick_mutation(z, false);
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	b.qp.id = h;
	b.qp.qp_states = chance(z, 85) ? (below(z, 8) << 1) : rnd(z);
	if (call(z, fd_of(fi), RCM_CMD_INIT_QP_ATTR, &b, mut) ||
	    mut == MUT_BYTE)
		return;
	if (!(b.qp.qp_states & 2) && b.qp.out_attr[0].qp_attr_mask)
		violation(z, V_ERRNO, "INIT_QP_ATTR filled INIT, not asked for");
}

static void op_mcast(struct fz *z, int fi, unsigned int h, bool join)
{
	union cmdbuf b;

	memset(&b, 0, sizeof(b));
	if (join) {
		b.join.id = h;
		b.join.join_flags = chance(z, 90) ? below(z, 2) : rnd(z);
		b.join.context = rnd(z);
		fill_mcast(z, &b.join.addr);
		call(z, fd_of(fi), RCM_CMD_JOIN_MCAST, &b,
		     pick_mutation(z, false));
	} else {
		b.leave.id = h;
		fill_mcast(z, &b.leave.addr);
		call(z, fd_of(fi), RCM_CMD_LEAVE_MCAST, &b,
		     pick_mutation(z, false));
	}
}

static void op_migrate(struct fz *z, int fi)
{
	int to = below(z, NFILES), tmp = -1, dst_fd, ret;
	enum mutation mut = pick_mutation(z, false);
	struct rcm_query_id q = { .size = sizeof(q) };
	struct ffile *src = &files[fi], *dst = &files[to];
	unsigned int h;
	union cmdbuf b;
	bool bogus;

	if (z->child)
		return;
	/* A flipped bit in @fd could name another file, unlocked. */
	if (mut == MUT_BYTE)
		mut = MUT_NONE;
	memset(&b, 0, sizeof(b));
	/*
	 * Both files locked: the moved events are not read while the
	 * handles change hands.
	 */
	lock2(fi, to);
	h = pick_handle(z, fi);
	b.migrate.id = h;
	dst_fd = dst->fd;
	bogus = chance(z, 10);
	if (bogus) {
		switch (below(z, 3)) {
		case 0:
			tmp = open("/dev/null", O_RDONLY | O_CLOEXEC);
			dst_fd = tmp;
			break;
		case 1:
			dst_fd = 1000 + below(z, 1000);
			break;
		default:
			dst_fd = -1 - below(z, 3);
			break;
		}
	}
	b.migrate.fd = dst_fd;
	ret = call(z, src->fd, RCM_CMD_MIGRATE_ID, &b, mut);
	if (!ret && bogus) {
		violation(z, V_ERRNO, "MIGRATE_ID to fd %d succeeded", dst_fd);
	} else if (!ret && mut != MUT_RDONLY) {
		unsigned int out = b.migrate.out_id;

		if (!out || out > HMAX || (to == fi && out != h)) {
			violation(z, V_HANDLE, "MIGRATE_ID of %u to file %d gave %u",
				  h, to, out);
		} else if (to != fi) {
			int hint = h <= HMAX ? src->hint[h] : H_IDLE;
			bool ud = h <= HMAX ? src->ud[h] : false;

			if (h <= HMAX)
				mark_locked(src, h, M_DEAD, W_MIGRATE_OUT);
			note_locked(dst, out, hint, ud, W_MIGRATE_IN);
		}
	} else if (ret && errno == EFAULT && !bogus &&
		   (mut == MUT_RDONLY || z->fired)) {
		/* Moved or not? Unless the id is still here, it moved. */
		q.id = h;
		if (to != fi && h && h <= HMAX &&
		    ioctl(src->fd, RCM_IOCTL_QUERY_ID, &q))
			mark_locked(src, h, M_DEAD, W_MIGRATE_LOST);
		adopt_locked(dst);
	}
	unlock2(fi, to);
	if (tmp >= 0)
		close(tmp);
}

/* --- events -------------------------------------------------------------- */

static void react(struct fz *z, int fi, const struct rcm_event *ev);

/* What the kernel's fdinfo says of handle @h of @fd now, on stdout. */
static void say_fdinfo(int fd, unsigned int h)
{
	char path[64], key[32], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(key, sizeof(key), "handle=%u ", h);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strstr(line, key))
			say("#   fdinfo: %s", line);
	}
	fclose(f);
}

/* Check one record read from file @fi (its lock held). */
static void check_event(struct fz *z, int fi, const struct rcm_event *ev)
{
	struct ffile *f = &files[fi];
	const char *bad = rcm_event_malformed(ev);

	atomic_fetch_add(&sh->events, 1);
	if (ev->event <= RCM_EVENT_TIMEWAIT_EXIT)
		atomic_fetch_add(&sh->evcount[ev->event], 1);
	if (bad) {
		violation(z, V_READ, "event %u id %u status %d: %s", ev->event,
			  ev->id, ev->status, bad);
		return;
	}
	if (ev->id > HMAX) {
		violation(z, V_HANDLE, "event %u names handle %u", ev->event,
			  ev->id);
		return;
	}
	if (ev->event == RCM_EVENT_CONNECT_REQUEST) {
		if (ev->listen_id > HMAX || f->mark[ev->listen_id] != M_LIVE)
			violation(z, V_HANDLE, "CONNECT_REQUEST (id %u) names listener %u, which this file %s",
				  ev->id, ev->listen_id,
				  ev->listen_id > HMAX ||
				  f->mark[ev->listen_id] == M_NEVER ?
				  "never had" : "destroyed");
		/* The request's own id is new: the file has it from now on. */
		note_locked(f, ev->id, H_REQUEST,
			    ev->listen_id <= HMAX && f->ud[ev->listen_id],
			    W_REQUEST);
		return;
	}
	if (f->mark[ev->id] != M_LIVE) {
		violation(z, V_HANDLE, "event %u status %d names handle %u, which file %d %s (marked by %s at op %lu; now op %lu)",
			  ev->event, ev->status, ev->id, fi,
			  f->mark[ev->id] == M_NEVER ? "never had" :
			  "destroyed before the event was read",
			  why_name[f->why[ev->id]], f->when[ev->id],
			  atomic_load(&sh->ops));
		say_fdinfo(f->fd, ev->id);
	}
}

static void op_read(struct fz *z, int fi)
{
	static const size_t recsz = sizeof(struct rcm_event);
	struct rcm_event evs[4], saved[4];
	struct ffile *f = &files[fi];
	size_t len;
	void *buf = evs;
	ssize_t n;
	int i, err, want = 0;

	switch (below(z, 10)) {
	case 0:
		len = below(z, recsz);	/* below one record */
		want = EINVAL;
		break;
	case 1:
		len = recsz + below(z, recsz);
		break;
	case 2:
		buf = noaccess;
		len = recsz;
		break;
	case 3:
		len = sizeof(evs);
		break;
	default:
		len = recsz;
		break;
	}
	if (z->child)
		return;
	pthread_mutex_lock(&f->lock);
	n = read(f->fd, buf, len);
	err = errno;
	if (n > 0 && buf == evs)
		memcpy(saved, evs, n);
	if (n < 0) {
		if (err != EAGAIN && err != EINVAL && err != EFAULT)
			violation(z, V_READ, "read(%zu): errno %d (%s)", len,
				  err, strerror(err));
		else if (want && err != want)
			violation(z, V_READ, "read(%zu): errno %d, want EINVAL",
				  len, err);
		else if (!want && err == EINVAL)
			violation(z, V_READ, "read(%zu): EINVAL", len);
	} else if (want || n % recsz || (size_t)n > len || n == 0) {
		violation(z, V_READ, "read(%zu) returned %zd: not whole records",
			  len, n);
	} else if (buf == evs) {
		for (i = 0; i < n / (ssize_t)recsz; i++)
			check_event(z, fi, &evs[i]);
	}
	pthread_mutex_unlock(&f->lock);
	if (n > 0 && buf == evs && !(n % recsz))
		for (i = 0; i < n / (ssize_t)recsz; i++)
			react(z, fi, &saved[i]);
}

static void op_poll(struct fz *z)
{
	struct pollfd p[NFILES];
	int i, n;

	for (i = 0; i < NFILES; i++) {
		p[i].fd = files[i].fd;
		p[i].events = POLLIN | POLLOUT | POLLPRI;
		p[i].revents = 0;
	}
	n = poll(p, NFILES, below(z, 3) ? 0 : below(z, 20));
	if (n < 0)
		return;
	for (i = 0; i < NFILES; i++)
		if (p[i].revents & ~(POLLIN | POLLRDNORM | POLLNVAL))
			violation(z, V_READ, "poll revents %#x", p[i].revents);
}

/* Answer an event the way a program would, most of the time. */
static void react(struct fz *z, int fi, const struct rcm_event *ev)
{
	unsigned int h = ev->id;

	if (!chance(z, 75))
		return;
	switch (ev->event) {
	case RCM_EVENT_ADDR_RESOLVED:
		set_hint(z, fi, h, H_RESOLVED);
		op_route(z, fi, h, true);
		break;
	case RCM_EVENT_ROUTE_RESOLVED:
		op_connect(z, fi, h, true);
		break;
	case RCM_EVENT_CONNECT_REQUEST:
		if (chance(z, 70))
			op_accept(z, fi, h, true);
		else if (chance(z, 60))
			op_reject(z, fi, h, true);
		break;
	case RCM_EVENT_CONNECT_RESPONSE:
		if (chance(z, 80))
			op_small(z, fi, RCM_CMD_ESTABLISH, h, true);
		else
			op_reject(z, fi, h, true);
		break;
	case RCM_EVENT_ESTABLISHED:
		set_hint(z, fi, h, H_CONNECTED);
		if (chance(z, 40))
			op_small(z, fi, RCM_CMD_DISCONNECT, h, true);
		break;
	case RCM_EVENT_DISCONNECTED:
	case RCM_EVENT_TIMEWAIT_EXIT:
	case RCM_EVENT_DEVICE_REMOVAL:
	case RCM_EVENT_REJECTED:
	case RCM_EVENT_UNREACHABLE:
	case RCM_EVENT_ADDR_ERROR:
	case RCM_EVENT_ROUTE_ERROR:
	case RCM_EVENT_CONNECT_ERROR:
		if (chance(z, 50))
			op_destroy(z, fi, h, true);
		break;
	default:
		break;
	}
}

/* --- files, dup, fork ---------------------------------------------------- */

/*
 * A new rcm file whose records are struct rcm_event as this program
 * knows it (op_read() reads and checks records of that size).
 */
static int open_file(void)
{
	struct rcm_query q = {
		.size = sizeof(q), .event_size = sizeof(struct rcm_event),
	};
	int fd = open(RCM_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && (ioctl(fd, RCM_IOCTL_QUERY, &q) ||
			q.out_event_size != sizeof(struct rcm_event))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Close a file while the other threads use it: the descriptor is
 * replaced by a new rcm file in one dup2(), so it never names anything
 * else; calls in flight finish on the old file, which is then released
 * (destroying every id in it).
 */
static void op_reopen(struct fz *z, int fi)
{
	struct ffile *f = &files[fi];
	int nfd;

	if (z->child)
		return;
	nfd = open_file();
	if (nfd < 0) {
		violation(z, V_ERRNO, "open %s: %s", RCM_DEV, strerror(errno));
		return;
	}
	pthread_mutex_lock(&f->lock);
	if (dup2(nfd, f->fd) < 0)
		violation(z, V_ERRNO, "dup2: %s", strerror(errno));
	memset(f->mark, 0, sizeof(f->mark));
	memset(f->why, 0, sizeof(f->why));
	memset(f->hint, 0, sizeof(f->hint));
	f->nring = 0;
	f->maxh = 0;
	pthread_mutex_unlock(&f->lock);
	close(nfd);
}

/* A call through a dup() of the file, then the dup closed. */
static void op_dup(struct fz *z, int fi)
{
	union cmdbuf b;
	int d = dup(files[fi].fd);

	if (d < 0)
		return;
	memset(&b, 0, sizeof(b));
	b.query_id.id = pick_handle(z, fi);
	call(z, d, RCM_CMD_QUERY_ID, &b, MUT_NONE);
	close(d);
}

static void one_op(struct fz *z);

/*
 * fork(): the child shares the files and calls into them (destroys
 * among them) while the parent's threads go on, then exits. It reads
 * no events and creates no ids there, since the parent could not know
 * their handles.
 */
static void op_fork(struct fz *z)
{
	pid_t pid;
	int st;

	atomic_fetch_add(&sh->forks, 1);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		int i, n = 1 + below(z, 20);

		z->child = true;
		for (i = 0; i < n; i++)
			one_op(z);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) == pid && !(WIFEXITED(st) &&
					     WEXITSTATUS(st) == 0))
		violation(z, V_ERRNO, "fork child ended with status %#x", st);
}

/* --- the loop ------------------------------------------------------------ */

static void one_op(struct fz *z)
{
	int fi = below(z, NFILES);
	unsigned int h = pick_handle(z, fi), g;
	unsigned int r = below(z, 100);

	z->ops++;
	atomic_fetch_add(&sh->ops, 1);
	/* Steps of an id's life first, on ids the fuzzer believes ready. */
	if (r < 30) {
		switch (below(z, 6)) {
		case 0:
			op_create(z, fi);
			return;
		case 1:
			g = pick_in(z, fi, H_IDLE);
			if (g && chance(z, 30)) {
				op_bind(z, fi, g, true);
				return;
			}
			if (g) {
				op_resolve(z, fi, g, true);
				return;
			}
			break;
		case 2:
			g = pick_in(z, fi, H_BOUND);
			if (g && files[fi].ud[g] && chance(z, 50)) {
				op_mcast(z, fi, g, true);
				return;
			}
			if (g) {
				op_listen(z, fi, g, true);
				return;
			}
			break;
		case 3:
			g = pick_in(z, fi, H_RESOLVED);
			if (g) {
				op_route(z, fi, g, true);
				return;
			}
			break;
		case 4:
			g = pick_in(z, fi, H_ROUTED);
			if (g) {
				op_connect(z, fi, g, true);
				return;
			}
			break;
		default:
			g = pick_in(z, fi, H_CONNECTED);
			if (g) {
				op_small(z, fi, RCM_CMD_DISCONNECT, g, true);
				return;
			}
			break;
		}
		op_read(z, fi);
		return;
	}
	switch (below(z, 26)) {
	case 0:
	case 1:
		op_create(z, fi);
		break;
	case 2:
	case 3:
		op_destroy(z, fi, h, false);
		break;
	case 4:
		op_bind(z, fi, h, false);
		break;
	case 5:
		op_resolve(z, fi, h, false);
		break;
	case 6:
		op_route(z, fi, h, false);
		break;
	case 7:
		op_query(z, fi);
		break;
	case 8:
		op_query_id(z, fi, h);
		break;
	case 9:
		op_option(z, fi, h);
		break;
	case 10:
		op_listen(z, fi, h, false);
		break;
	case 11:
		op_connect(z, fi, h, false);
		break;
	case 12:
		op_accept(z, fi, h, false);
		break;
	case 13:
		op_reject(z, fi, h, false);
		break;
	case 14:
		op_small(z, fi, RCM_CMD_ESTABLISH + below(z, 2) * 2, h, false);
		break;
	case 15:
		op_small(z, fi, RCM_CMD_DISCONNECT, h, false);
		break;
	case 16:
		op_init_qp(z, fi, h);
		break;
	case 17:
		op_mcast(z, fi, h, chance(z, 60));
		break;
	case 18:
		op_migrate(z, fi);
		break;
	case 19:
	case 20:
	case 21:
		op_read(z, fi);
		break;
	case 22:
		op_poll(z);
		break;
	case 23:
		op_dup(z, fi);
		break;
	case 24:
		if (chance(z, 10))
			op_reopen(z, fi);
		else
			op_query(z, fi);
		break;
	default:
		if (chance(z, 5) && !z->child)
			op_fork(z);
		else
			op_read(z, fi);
		break;
	}
}

static void *thread_main(void *arg)
{
	struct fz *z = arg;

	z->ffd = fault_pct ? rcm_fault_open() : -1;
	z->rdonly = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (z->rdonly == MAP_FAILED)
		return NULL;
	while (z->ops < ops_per_thread && !atomic_load(&sh->stop)) {
		one_op(z);
		if (!(z->ops & 15) && now() > deadline)
			break;
	}
	if (z->ffd >= 0)
		close(z->ffd);
	z->ffd = -1;
	return NULL;
}

static uint64_t thread_seed(uint64_t base, int w, int t)
{
	return rcm_mix(base ^ rcm_mix(((uint64_t)w << 16) | t));
}

static int worker(uint64_t base, int w, int nthreads)
{
	struct fz *zs = calloc(nthreads, sizeof(*zs));
	int i, j;

	if (!zs)
		return 2;
	for (i = 0; i < NFILES; i++) {
		pthread_mutex_init(&files[i].lock, NULL);
		files[i].fd = open_file();
		if (files[i].fd < 0)
			return 2;
	}
	for (i = 0; i < nthreads; i++) {
		zs[i].worker = w;
		zs[i].thread = i;
		zs[i].seed = thread_seed(base, w, i);
		zs[i].rng = zs[i].seed;
		if (pthread_create(&zs[i].tid, NULL, thread_main, &zs[i]))
			return 2;
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(zs[i].tid, NULL);
	/* Drain what is left, checking it too, then close. */
	for (i = 0; i < NFILES; i++) {
		for (j = 0; j < 64; j++)
			op_read(&zs[0], i);
		close(files[i].fd);
	}
	free(zs);
	return 0;
}

/* --- rdma link delete / add ---------------------------------------------- */

static bool rxe_present(void)
{
	return !access("/sys/class/infiniband/rxe0", F_OK);
}

static int restore_rxe(void)
{
	if (!rxe_present() &&
	    rcm_sh("rdma link add rxe0 type rxe netdev %s", netdev_rxe))
		return -1;
	return addr_rxe ? rcm_wait_gid(addr_rxe) : 0;
}

/* Delete and re-add rxe0 at seeded intervals until told to stop. */
static void link_churn(uint64_t seed)
{
	struct fz z = { .rng = seed, .seed = seed, .worker = -1 };

	/* The churn's seeded pacing (the subject), not waits. */
	while (!atomic_load(&sh->stop)) {
		usleep(1000 * (1000 + below(&z, 3000)));
		if (atomic_load(&sh->stop))
			break;
		rcm_sh("rdma link delete rxe0");
		atomic_fetch_add(&sh->link_flips, 1);
		usleep(1000 * (200 + below(&z, 1500)));
		restore_rxe();
	}
	_exit(restore_rxe() ? 1 : 0);
}

static const char *const evnames[] = {
	"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
	"CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR",
	"UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED",
	"DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR",
	"ADDR_CHANGE", "TIMEWAIT_EXIT",
};

int main(void)
{
	unsigned long ops = rcm_env_ul("RCM_FUZZ_OPS", 20000);
	int nworkers = rcm_env_ul("RCM_FUZZ_WORKERS", 3);
	int nthreads = rcm_env_ul("RCM_FUZZ_THREADS", 3);
	unsigned long secs = rcm_env_ul("RCM_FUZZ_SECONDS", 150);
	uint64_t base = rcm_env_ul("RCM_FUZZ_SEED", 0);
	bool churn = rcm_env_ul("RCM_FUZZ_LINK", 1);
	int i, t, st, bad_exit = 0, ffd, probe;
	pid_t link = -1, *pids;
	double start;
	char line[600];
	int n;

	setvbuf(stdout, NULL, _IONBF, 0);
	ksft_print_header();
	probe = open_file();
	if (probe < 0)
		return ksft_exit_skip("%s: %s\n", RCM_DEV, strerror(errno));
	close(probe);
	if (!getenv("RCM_FUZZ_SEED")) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		base = rcm_mix((ts.tv_sec * 1000000000ULL + ts.tv_nsec) ^ getpid());
	}
	if (nworkers < 1 || nworkers > 16 || nthreads < 1 || nthreads > 16)
		return ksft_exit_skip("RCM_FUZZ_WORKERS and _THREADS: 1..16\n");
	addr_rxe = getenv("RCM_ADDR_RXE");
	addr6_rxe = getenv("RCM_ADDR6_RXE");
	addr_siw = getenv("RCM_ADDR_SIW");
	addr_silent = getenv("RCM_ADDR_SILENT");
	addr_nordma = getenv("RCM_ADDR_NORDMA");
	netdev_rxe = getenv("RCM_NETDEV_RXE");
	if (!netdev_rxe || !addr_rxe || geteuid())
		churn = false;
	/* Free ports bind chose, before the workers start. */
	rcm_free_ports("0.0.0.0", RCM_PS_TCP, ports, NPORTS);
	fault_pct = rcm_env_ul("RCM_FUZZ_FAULT_PCT", 10);
	ffd = rcm_fault_open();
	if (ffd < 0 || rcm_fault_setup())
		fault_pct = 0;
	if (ffd >= 0)
		close(ffd);
	ops_per_thread = (ops + nworkers * nthreads - 1) / (nworkers * nthreads);
	start = now();
	deadline = start + secs;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	pids = calloc(nworkers, sizeof(*pids));
	if (sh == MAP_FAILED || noaccess == MAP_FAILED || !pids)
		return ksft_exit_skip("out of memory\n");
	memset(sh, 0, sizeof(*sh));
	ksft_set_plan(4);
	printf("# seed %#llx: %d workers x %d threads, %lu ops, %lu s cap, faults %d%%%s, link churn %s\n",
	       (unsigned long long)base, nworkers, nthreads, ops, secs,
	       fault_pct, fault_pct ? "" : " (no fail-nth)",
	       churn ? "on" : "off");
	printf("# replay: RCM_FUZZ_SEED=%#llx RCM_FUZZ_WORKERS=%d RCM_FUZZ_THREADS=%d RCM_FUZZ_OPS=%lu ./fuzz\n",
	       (unsigned long long)base, nworkers, nthreads, ops);
	for (i = 0; i < nworkers; i++)
		for (t = 0; t < nthreads; t++)
			printf("# worker %d thread %d seed %#llx\n", i, t,
			       (unsigned long long)thread_seed(base, i, t));

	if (churn && rxe_present()) {
		link = fork();
		if (link == 0)
			link_churn(thread_seed(base, 99, 0));
	}
	for (i = 0; i < nworkers; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(worker(base, i, nthreads));
	}
	for (i = 0; i < nworkers; i++) {
		if (pids[i] < 0 || waitpid(pids[i], &st, 0) != pids[i] ||
		    !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("# worker %d ended with status %#x\n", i, st);
			bad_exit++;
		}
	}
	atomic_store(&sh->stop, 1);
	if (link > 0 && (waitpid(link, &st, 0) != link || !WIFEXITED(st) ||
			 WEXITSTATUS(st))) {
		printf("# rxe0 could not be restored (status %#x)\n", st);
		bad_exit++;
	}
	if (netdev_rxe && restore_rxe()) {
		printf("# rxe0 missing at the end\n");
		bad_exit++;
	}

	printf("# %lu ops (%lu ioctls, %lu failed), %lu events, %lu faults injected, %lu forks, %lu link deletions in %.1f s\n",
	       atomic_load(&sh->ops), atomic_load(&sh->calls),
	       atomic_load(&sh->fails), atomic_load(&sh->events),
	       atomic_load(&sh->faults), atomic_load(&sh->forks),
	       atomic_load(&sh->link_flips), now() - start);
	printf("# %lu ids whose handle a failed copy-out hid were found by QUERY_ID\n",
	       atomic_load(&sh->adopted));
	n = snprintf(line, sizeof(line), "# calls ok/failed:");
	for (i = 0; i < RCM_NCMDS && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " %s %lu/%lu",
			      rcm_cmd_name(RCM_CMD_BASE + i),
			      atomic_load(&sh->cmdok[i]),
			      atomic_load(&sh->cmderr[i]));
	printf("%s\n", line);
	n = snprintf(line, sizeof(line), "# events:");
	for (i = 0; i <= RCM_EVENT_TIMEWAIT_EXIT && n < (int)sizeof(line); i++)
		if (atomic_load(&sh->evcount[i]))
			n += snprintf(line + n, sizeof(line) - n, " %s %lu",
				      evnames[i], atomic_load(&sh->evcount[i]));
	printf("%s\n", line);

	ksft_print_msg("%lu, %lu and %lu violations of the first three\n",
		       atomic_load(&sh->bad[V_ERRNO]),
		       atomic_load(&sh->bad[V_HANDLE]),
		       atomic_load(&sh->bad[V_READ]));
	ksft_test_result(!sh->bad[V_ERRNO], "errnos_are_documented\n");
	ksft_test_result(!sh->bad[V_HANDLE],
			 "events_name_handles_of_their_file\n");
	ksft_test_result(!sh->bad[V_READ],
			 "reads_return_whole_wellformed_records\n");
	/*
	 * A run long enough must have reached connections: else the
	 * fuzzer exercised only the early states and proved little.
	 */
	if (!bad_exit && addr_rxe && atomic_load(&sh->ops) >= 5000 &&
	    !atomic_load(&sh->evcount[RCM_EVENT_CONNECT_REQUEST])) {
		ksft_print_msg("no connection request in %lu ops\n",
			       atomic_load(&sh->ops));
		bad_exit++;
	}
	ksft_test_result(!bad_exit, "workers_finish_and_rxe0_is_back\n");
	ksft_finished();
}
