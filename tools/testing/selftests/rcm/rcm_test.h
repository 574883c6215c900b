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
/* Destroy an id; returns the ioctl's result. */
int rcm_destroy(int fd, unsigned int id);
/* Fill a sockaddr_storage from "a.b.c.d" or an IPv6 literal and a port. */
void rcm_sockaddr(void *kss, const char *ip, unsigned short port);
/* Wait up to @ms for one event; 0 with *ev filled, -1 on timeout/error. */
int rcm_wait_event(int fd, int ms, struct rcm_event *ev);
/*
 * The next event on @fd within 30 s, which must be of @type: 0, or -1
 * (with a TAP diagnostic when another event came).
 */
int rcm_expect_event(int fd, unsigned int type, struct rcm_event *ev);
/* Bind @id to @ip:@port; the ioctl's result. */
int rcm_bind(int fd, unsigned int id, const char *ip, unsigned short port);
/*
 * Start resolving @dst (port 7471) from @src (NULL: none); the ioctl's
 * result. rcm_resolved() also waits up to 10 s for ADDR_RESOLVED: 0 when
 * it came, -1 (errno EIO if another event came) otherwise.
 */
int rcm_resolve(int fd, unsigned int id, const char *src, const char *dst,
		unsigned int timeout_ms);
int rcm_resolved(int fd, unsigned int id, const char *dst);
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
int rcm_route(int fd, unsigned int id, unsigned int timeout_ms);
/* RCM_IOCTL_LISTEN; the ioctl's result. */
int rcm_listen(int fd, unsigned int id, unsigned int backlog);
/* An RC id listening on @ip:@port with @ctx; its handle, or 0. */
unsigned int rcm_listener(int fd, const char *ip, unsigned short port,
			  unsigned long long ctx, unsigned int backlog);
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
struct rcm_query_id;
int rcm_query(int fd, unsigned int id, struct rcm_query_id *q);
/* The local port of bound id @id (its own, or the one bind chose), or 0. */
unsigned short rcm_local_port(int fd, unsigned int id);

/*
 * Start the helper program at path @argv[0] with @argv (NULL-terminated;
 * @argv[0] is also its name, as execv() passes it), its standard output
 * on a pipe, and return once it printed a line starting with
 * "listening": its pid, or -1 (the helper reaped) if it never did.
 */
pid_t rcm_spawn_listening(char *const argv[]);
/*
 * The peers on the in-tree stack (rdma-core's librdmacm over rdma_ucm):
 * ./intree_server listening on @ip:@port for a request carrying
 * @expect, answered with @reply ("accept:DATA", "reject:DATA"), started
 * as rcm_spawn_listening() does; ./intree_client connecting to it with
 * @data, which must see @expect ("accept:DATA", "reject:REASON:DATA"),
 * forked: its pid, or -1. @qp gives the in-tree end a QP of its own,
 * which iWARP needs (without one it names a made-up QP number). Their
 * exit status says whether all went as asked (rcm_exit_status()).
 */
pid_t rcm_intree_server(const char *ip, unsigned short port,
			const char *expect, const char *reply, bool qp);
pid_t rcm_intree_client(const char *ip, unsigned short port,
			const char *data, const char *expect, bool qp);
/* Reap @pid: its exit status, 128 if a signal ended it, -1 on error. */
int rcm_exit_status(pid_t pid);
/* The MAC address of netdev @dev into @mac (18 bytes): 0 or -1. */
int rcm_netdev_mac(const char *dev, char *mac);
/* Milliseconds since @t0 (CLOCK_MONOTONIC). */
struct timespec;
long rcm_ms_since(const struct timespec *t0);
/* Whether the in-tree user-space CM (rdma_ucm) is there to be a peer. */
bool rcm_have_intree_cm(void);
/*
 * Run a shell command quietly (its output to /dev/null: a redirection of
 * its own stdout would be overridden, so write files with fopen());
 * returns its exit status.
 */
int rcm_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

#endif /* RCM_TEST_H */
