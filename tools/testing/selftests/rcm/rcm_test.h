/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the rcm selftests (rcm_test.c): the device, ids,
 * addresses, events, helper processes, module parameters and slab
 * counts. They report through return values, never through the harness:
 * a case checks what they return. The programs include rcm_harness.h,
 * which adds the kernel's kselftest harness to this.
 */
#ifndef RCM_TEST_H
#define RCM_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <unistd.h>

#define RCM_DEV "/dev/infiniband/rcm"

/*
 * Open the rcm device: a new file whose records are struct rcm_event as
 * the tests know it (RCM_IOCTL_QUERY); -1 on error.
 */
int rcm_open_dev(void);

struct rcm_event;
struct sockaddr;
/* Create an id; returns its handle, or 0 with errno set. */
unsigned int rcm_create(int fd, unsigned short ps, unsigned char qp_type,
			unsigned long long context);
/*
 * Create ids of port space @ps and QP type @qp_type, one for each
 * "unsigned int *" after it up to a NULL, with contexts 1, 2, ... in
 * turn: 0, or -1 with errno set at the first that fails.
 */
int rcm_create_ids(int fd, unsigned short ps, unsigned char qp_type, ...);
/* Destroy an id; returns the ioctl's result. */
int rcm_destroy(int fd, unsigned int id);
/* Fill a sockaddr_storage from "a.b.c.d" or an IPv6 literal and a port. */
void rcm_sockaddr(void *kss, const char *ip, unsigned short port);
/* Wait up to @ms for one event; 0 with *ev filled, -1 on timeout/error. */
int rcm_wait_event(int fd, int ms, struct rcm_event *ev);
/* Whether an event is there to read on @fd within @ms (none is read). */
bool rcm_readable(int fd, int ms);
/* Read every event queued on @fd now; the number of them of @type. */
int rcm_drain(int fd, unsigned int type);
/*
 * Read and log the events of @fd until @most DEVICE_REMOVAL events or
 * none for @ms: the number of DEVICE_REMOVAL events read.
 */
unsigned int rcm_removals(int fd, unsigned int most, int ms);
/*
 * One record of a file whose records are @size bytes, into a buffer of
 * a whole struct rcm_event and one byte more, within 30 s: 0 when
 * read() returned @size bytes, of @type, and left the rest alone; @ev
 * then holds them, zero beyond. -1 otherwise.
 */
int rcm_expect_record(int fd, unsigned int size, unsigned int type,
		      struct rcm_event *ev);
/*
 * The next event on @fd within 30 s, which must be of @type: 0, or -1
 * (with a TAP diagnostic when another event came).
 */
int rcm_expect_event(int fd, unsigned int type, struct rcm_event *ev);
/* Bind @id to @ip:@port; the ioctl's result. */
int rcm_bind(int fd, unsigned int id, const char *ip, unsigned short port);
/*
 * Start resolving @dst (port 0: no connect follows) from @src (NULL:
 * none); the ioctl's
 * result. rcm_resolved() also waits up to 10 s for ADDR_RESOLVED: 0 when
 * it came, -1 (errno EIO if another event came) otherwise.
 */
int rcm_resolve(int fd, unsigned int id, const char *src, const char *dst,
		unsigned int timeout_ms);
int rcm_resolved(int fd, unsigned int id, const char *dst);
/* The same towards @dst:@port. */
int rcm_resolved_to(int fd, unsigned int id, const char *dst,
		    unsigned short port);
/*
 * Resolve @dst:@port and its route, each within 10 s (the events read):
 * 0, or -1 with errno set (EIO: another event came).
 */
int rcm_routed(int fd, unsigned int id, const char *dst, unsigned short port);
/* A new RC id (context @ctx) routed to @ip:@port; its handle, or 0. */
unsigned int rcm_routed_id(int fd, const char *ip, unsigned short port,
			   unsigned long long ctx);
/*
 * Wait up to 30 s for rxe0 (RDMA device @dev) to carry the GID of IPv4
 * address @ip, the sign the device is usable: 0, or -1.
 */
int rcm_wait_gid(const char *ip);
int rcm_wait_gid_on(const char *dev, const char *ip);
/* iproute2's: busybox's ip knows no bonds and no veth peers. */
#define RCM_IP "/usr/sbin/ip"
/*
 * A bond for the cases that fail one over: RCM_BOND, active-backup with
 * fail_over_mac=active over two veths rcmbs0 and rcmbs1 (their peers
 * up, so each has a link; rcmbs0 active), RCM_BOND_IP on it, and a
 * Soft-RoCE device RCM_BOND_RXE on it. rcm_bond_up() builds them (after
 * removing any left over): 0, or -1 with a TAP diagnostic;
 * rcm_bond_down() removes them; rcm_bond_failover() makes rcmbs@n the
 * active slave: 0, or -1.
 */
#define RCM_BOND "rcmbond0"
#define RCM_BOND_IP "198.18.40.1"
#define RCM_BOND_RXE "rxebond"
#define RCM_BOND_ACTIVE "/sys/class/net/" RCM_BOND "/bonding/active_slave"
int rcm_bond_up(void);
void rcm_bond_down(void);
int rcm_bond_failover(int n);
/*
 * Make sure rxe0 (on $RCM_NETDEV_RXE) is there and usable: a case that
 * failed half-way may have left it deleted, and those after it need it.
 */
void rcm_restore_rxe(void);
/* RCM_IOCTL_RESOLVE_ROUTE; the ioctl's result. */
struct rcm_query_id;
int rcm_route(int fd, unsigned int id, unsigned int timeout_ms);
/*
 * Resolve the route of @id (its address resolved), its ROUTE_RESOLVED
 * within 10 s, then RCM_IOCTL_QUERY_ID into @q: 0, or -1 (errno EIO:
 * another event came).
 */
int rcm_route_query(int fd, unsigned int id, struct rcm_query_id *q);
/* RCM_IOCTL_LISTEN; the ioctl's result. */
int rcm_listen(int fd, unsigned int id, unsigned int backlog);
/*
 * An RC id listening on @ip with @ctx; its handle, or 0. It binds to
 * *@port, 0 for one bind chooses, and leaves the port it got there
 * (@port NULL: any port, not told).
 */
unsigned int rcm_listener(int fd, const char *ip, unsigned short *port,
			  unsigned long long ctx, unsigned int backlog);
/*
 * A port of @ip no rcm id of port space @ps holds: one bind chose for
 * an id that is gone again (a destination nobody listens on); 0 on
 * error.
 */
unsigned short rcm_free_port(const char *ip, unsigned short ps);
/*
 * @n distinct such ports into @ports, bound at once and then let go (a
 * range a test shares between its processes); 0, or -1 on error.
 */
int rcm_free_ports(const char *ip, unsigned short ps, unsigned short *ports,
		   unsigned int n);
/*
 * RCM_IOCTL_CONNECT and RCM_IOCTL_ACCEPT with QP number @qpn, one RDMA
 * read each way, 7 retries and @len bytes of @data as private data, and
 * RCM_IOCTL_REJECT with those; the ioctl's result.
 */
int rcm_connect_data(int fd, unsigned int id, unsigned int qpn,
		     const void *data, unsigned int len);
int rcm_accept_data(int fd, unsigned int id, unsigned int qpn,
		    unsigned long long ctx, const void *data, unsigned int len);
int rcm_reject_data(int fd, unsigned int id, const void *data,
		    unsigned int len);
/* The same with the string @data and its NUL (NULL: none). */
int rcm_connect(int fd, unsigned int id, unsigned int qpn, const char *data);
int rcm_accept(int fd, unsigned int id, unsigned int qpn,
	       unsigned long long ctx, const char *data);
int rcm_reject(int fd, unsigned int id, const char *data);
/*
 * A listener of file @s on @ip (context 0x11; a port bind chose; its
 * handle in *@lid) and a client id of file @c (context @ctx) routed to
 * it and connecting with QP number @qpn and string @data: the client's
 * id, or 0 with errno set. Nothing of the request is read.
 */
unsigned int rcm_connecting(int s, int c, const char *ip,
			    unsigned long long ctx, unsigned int qpn,
			    const char *data, unsigned int *lid);
/*
 * A listener of file @s on @ip of backlog 1 (its handle in *@lid) that
 * reads nothing, a request of file @c that takes the backlog's slot and
 * is abandoned (its id destroyed), and a second request, with a 3 s
 * connect timeout, that the full backlog drops: 0 once the second
 * reports UNREACHABLE, else -1 with errno (EPROTO: another event, left
 * in *@ev).
 */
int rcm_dropped_at_full_backlog(int s, int c, const char *ip,
				unsigned int *lid, struct rcm_event *ev);
/*
 * A connection without QPs (ib_cm never looks at them: RoCE only) from
 * file @c to a listener of file @s on @ip:@port, the events of both
 * sides read up to ESTABLISHED: *@cid the active id, *@rid the passive
 * one. 0, or -1 with errno.
 */
int rcm_establish(int s, int c, const char *ip, unsigned short port,
		  unsigned int *cid, unsigned int *rid);
/*
 * End an established connection: a DISCONNECT of the active id @cid of
 * file @c (the DREQ), DISCONNECTED of @rid on file @s, a DISCONNECT of
 * @rid (the DREP), DISCONNECTED of @cid on @c. 0, or -1 with errno
 * (EPROTO: an event of another id).
 */
int rcm_disconnect_pair(int c, unsigned int cid, int s, unsigned int rid);
/* RCM_IOCTL_SET_OPTION of @name at @level on @id; the ioctl's result. */
int rcm_set_option(int fd, unsigned int id, unsigned int level,
		   unsigned int name, unsigned long long value);
/* RCM_IOCTL_ESTABLISH or RCM_IOCTL_DISCONNECT (@cmd) on @id. */
int rcm_simple(int fd, unsigned long cmd, unsigned int id);
/*
 * RCM_IOCTL_INIT_QP_ATTR for @id and the states in bit mask @states (bit
 * RCM_QPS_x), into a zeroed @a; the ioctl's result.
 */
#define RCM_QP_STATES_ALL						\
	((1 << RCM_QPS_INIT) | (1 << RCM_QPS_RTR) | (1 << RCM_QPS_RTS))
struct rcm_init_qp_attr;
int rcm_qp_attrs(int fd, unsigned int id, unsigned int states,
		 struct rcm_init_qp_attr *a);
/* RCM_IOCTL_QUERY_ID into a zeroed @q; the ioctl's result. */
int rcm_query(int fd, unsigned int id, struct rcm_query_id *q);
/* The local port of bound id @id (its own, or the one bind chose), or 0. */
unsigned short rcm_local_port(int fd, unsigned int id);

/*
 * Start the helper program at path @argv[0] with @argv (NULL-terminated;
 * @argv[0] is also its name, as execv() passes it), its standard output
 * on a pipe, and return once it printed a line "listening PORT": its
 * pid, the port in *@port (if not NULL), or -1 (the helper reaped) if
 * it never did.
 */
pid_t rcm_spawn_listening(char *const argv[], unsigned short *port);
/*
 * The peers on the in-tree stack (rdma-core's librdmacm over rdma_ucm):
 * ./intree_server listening on @ip and port *@port (0: one its bind
 * chooses, left in *@port) for a request carrying
 * @expect, answered with @reply ("accept:DATA", "reject:DATA"), started
 * as rcm_spawn_listening() does; ./intree_client connecting to it with
 * @data, which must see @expect ("accept:DATA", "reject:REASON:DATA"),
 * forked: its pid, or -1. @qp gives the in-tree end a QP of its own,
 * which iWARP needs (without one it names a made-up QP number). Their
 * exit status says whether all went as asked (rcm_exit_status()).
 */
pid_t rcm_intree_server(const char *ip, unsigned short *port,
			const char *expect, const char *reply, bool qp);
pid_t rcm_intree_client(const char *ip, unsigned short port,
			const char *data, const char *expect, bool qp);
/* Reap @pid: its exit status, 128 if a signal ended it, -1 on error. */
int rcm_exit_status(pid_t pid);
/* Kill @pid with SIGKILL and reap it: 0 when SIGKILL ended it, or -1. */
int rcm_kill(pid_t pid);
/* The MAC address of netdev @dev into @mac (18 bytes): 0 or -1. */
int rcm_netdev_mac(const char *dev, char *mac);
/* Milliseconds since @t0 (CLOCK_MONOTONIC). */
struct timespec;
long rcm_ms_since(const struct timespec *t0);
/*
 * The waits on a state no event announces (a count in sysfs or fdinfo,
 * a child's exit, a completion queue): evaluate @cond until it holds,
 * at most @ms milliseconds; whether it held. rcm_pause() between two
 * looks is the one sleep these waits have, and no wait ends by it.
 */
void rcm_pause(void);
#define RCM_WAIT_FOR(cond, ms)						\
	({								\
		struct timespec __t0;					\
		bool __ok;						\
									\
		clock_gettime(CLOCK_MONOTONIC, &__t0);			\
		while (!(__ok = (cond)) && rcm_ms_since(&__t0) < (ms))	\
			rcm_pause();					\
		__ok;							\
	})
/*
 * Wait up to @ms for thread @tid (a process's pid, or a thread's id)
 * to be asleep inside system call @nr (/proc/TID/syscall, and state S
 * or D in its stat): 0, or -1.
 */
int rcm_wait_in_syscall(pid_t tid, long nr, int ms);
/* Whether the in-tree user-space CM (rdma_ucm) is there to be a peer. */
bool rcm_have_intree_cm(void);
/*
 * Run a shell command quietly (its output to /dev/null: a redirection of
 * its own stdout would be overridden, so write files with fopen());
 * returns its exit status.
 */
int rcm_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * One printf'd command, fewer than 512 bytes, written to the control
 * file @path of a test module (its debugfs "ctl") in one write(): 0, or
 * -1 with errno the open's or the write's (EINVAL for a longer command).
 */
int rcm_ctl(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The number in environment variable @name (any base strtoul takes), or @def. */
unsigned long rcm_env_ul(const char *name, unsigned long def);
/* splitmix64's step: a well-mixed 64-bit value from @x (seeds, generators). */
unsigned long long rcm_mix(unsigned long long x);

/*
 * Objects in use in slab cache @name, exactly: the cache is shrunk
 * first, which flushes the per-CPU slabs (and KASAN's quarantine), so
 * free objects are not counted as in use. From the cache's "objects"
 * in sysfs, else /proc/slabinfo; -1 where neither has it (the cache
 * merged with another, no statistics).
 */
long rcm_slab_objects(const char *name);
/*
 * The events queued on rcm file @fd, unread ("rcm-events-queued" of its
 * /proc/self/fdinfo): counting them frees no backlog slot, as reading
 * does. -1 on error.
 */
long rcm_events_queued(int fd);
/*
 * ib_cm's count of rxe0 port 1: @dir "tx_msgs" (counted when a send
 * completes: a REP's retries only once it is answered), "rx_msgs" (as
 * each arrives, whichever ib_cm id of the port it is for) or
 * "rx_duplicates" (as each repeat comes), message @msg ("req", "rej",
 * "mra", ...); -1 where sysfs has no such count.
 */
long rcm_cm_count(const char *dir, const char *msg);
/* The number in file @path (a module parameter, a sysctl), or -1. */
long rcm_read_long(const char *path);
/* Write @value to file @path: 0, or -1. */
int rcm_write_long(const char *path, long value);
/*
 * Wait (up to 30 s) until rcm's live ids and event records, "rcm_id" and
 * "rcm_uevent", are back at or below @ids0 and @evs0: 0, or -1. The last
 * counts are left in *@ids and *@evs.
 */
int rcm_slabs_back_to(long ids0, long evs0, long *ids, long *evs);
/*
 * Start tracing rcm's events: tracefs mounted at /sys/kernel/tracing if
 * it is not, the trace emptied, events/rcm enabled. 0; -1 with errno
 * ENOENT where the kernel has no rcm events, else the write's errno.
 */
int rcm_trace_start(void);
/*
 * Stop tracing rcm's events and read the trace into @buf of @size
 * (NUL-terminated, cut at @size - 1): its length.
 */
size_t rcm_trace_stop(char *buf, size_t size);
/*
 * A line of @trace (from rcm_trace_stop()) with @first in it and, after
 * it on the same line, @then ("" matches anywhere).
 */
bool rcm_trace_line(const char *trace, const char *first, const char *then);

#endif /* RCM_TEST_H */
