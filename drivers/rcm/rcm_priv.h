/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rcm: private definitions shared by the files of rcm.ko.
 *
 * Map of the module (one concern per file):
 *   rcm_main.c    module init/exit, the misc device
 *   rcm_device.c  ib_client: per-RDMA-device state
 *   rcm_file.c    file operations: open/release, ioctl dispatch table
 *   rcm_cmd.c     handlers of the global (id-less) commands
 *   rcm_id.c      communication ids: create, look up, destroy
 *   rcm_event.c   the per-file event queue, read() and poll()
 *   rcm_ps.c      port spaces: which id owns which port of RDMA_PS_*
 *   rcm_addr.c    bind, address resolution, attaching ids to devices
 *   rcm_route.c   route resolution: the RoCE path, the SA's path
 *                 (InfiniBand), or userspace's (RCM_OPTION_IB_PATH)
 *   rcm_netdev.c  netdev notifier: ADDR_CHANGE when an id's bond fails
 *                 over to another link-layer address
 *   rcm_option.c  id options (TOS, REUSEADDR, AFONLY, ACK, resolve and
 *                 connect timeouts, Q_Key)
 *   rcm_listen.c  passive side, every transport: listen, the backlog,
 *                 request ids, reject
 *   rcm_conn.c    connections, every transport: connect, accept,
 *                 establish, notify, disconnect, and their events
 *   rcm_ib.c      the IB CM transport (IB, RoCE): REQ/REP/RTU/REJ/DREQ,
 *                 ib_cm listens, incoming REQs checked against their
 *                 netdev, and ib_cm's events on a connection
 *   rcm_sidr.c    datagram (UD) ids over the IB CM: SIDR REQ and its
 *                 answer (active), SIDR requests, accept and reject
 *                 (passive)
 *   rcm_iw.c      iWARP over iw_cm: listens, requests, connect, accept,
 *                 reject, disconnect and the iw_cm events
 *   rcm_qp.c      the attributes a user QP needs for each transition
 *   rcm_fdinfo.c  /proc/PID/fdinfo of an rcm file: its ids, for rcm-stat
 *   rcm_trace.c   the tracepoints (rcm_trace.h: TRACE_SYSTEM rcm)
 *   rcm_mcast.c   multicast groups of UD ids: join, leave, and their IP
 *                 (IGMP) memberships
 *   rcm_wire.c    IB CM wire layer without a device (rcm_wire.h): CMA
 *                 header, service IDs, private-data limits, connection
 *                 parameters, multicast MGIDs
 *   rcm_*_kunit.c the KUnit suite of each file (built only when the
 *                 kernel has KUnit); what they test that no other file
 *                 calls is VISIBLE_IF_KUNIT, declared at the end here
 *   rcm_wire.h    declarations of the wire layer, included here
 *   rcm_compat.h  what differs between the kernels rcm builds for: the
 *                 one file that tests the kernel's version
 */
#ifndef _RCM_PRIV_H
#define _RCM_PRIV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/socket.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <rdma/rcm_user.h>

#include "rcm_compat.h"
#include "rcm_wire.h"

/**
 * struct rcm_device - rcm's state for one RDMA device
 * @ibdev: the ib_core device
 * @ref: lifetime count. The ib_client holds the initial reference from
 *       rcm_add_one() until rcm_remove_one(); every attached id holds
 *       one, and so do a listener's per-device listens and a destroy
 *       until the CM ids it took are destroyed (rcm_device_get()). The
 *       last put completes @done.
 * @done: completed when @ref drops to zero; rcm_remove_one() waits for
 *        it, so ib_core never frees @ibdev under a user of this struct.
 * @list: entry in the global device list, protected by rcm_devices_lock
 * @ids_lock: protects @ids. Taken inside an id's lock, never around one.
 * @ids: ids attached to the device (struct rcm_id.dev_node); each holds
 *       a reference on the device while attached. On removal the device
 *       detaches every one of them and reports RCM_EVENT_DEVICE_REMOVAL.
 * @num_ports: rdma_end_port(@ibdev)
 * @port_cm: per-port CM, indexed by port number - 1
 *
 * Created by the ib_client add callback and published on the device
 * list only when complete. Unpublished under rcm_devices_lock before the
 * remove callback waits, so no new reference can be taken after that.
 */
struct rcm_device {
	struct ib_device *ibdev;
	struct kref ref;
	struct completion done;
	struct list_head list;
	struct mutex ids_lock;		/* @ids */
	struct list_head ids;
	u32 num_ports;
	enum rcm_port_cm port_cm[];
};

/* rcm_device.c */
extern struct ib_client rcm_ib_client;
int rcm_device_init(void);
void rcm_device_exit(void);
u32 rcm_device_count(void);
bool rcm_device_serves_net(struct rcm_device *rdev, struct net *net);
void rcm_device_get(struct rcm_device *rdev);
void rcm_device_put(struct rcm_device *rdev);
struct ib_cm_id;
struct iw_cm_id;
void rcm_device_put_cm(struct rcm_device *rdev, struct ib_cm_id *cm_id,
		       struct iw_cm_id *iw);
struct rcm_id;
int rcm_device_attach(struct rcm_id *id);
int rcm_device_attach_at(struct rcm_id *id, struct ib_device *ibdev,
			 u32 port, const struct ib_gid_attr *attr);
int rcm_device_attach_dev(struct rcm_id *id, struct ib_device *ibdev);
int rcm_device_for_each(int (*fn)(struct rcm_device *rdev, void *arg),
			void *arg);
int rcm_device_attach_ib(struct rcm_id *id, const union ib_gid *dgid,
			 u16 pkey);
int rcm_device_attach_ib_loopback(struct rcm_id *id);

/* rcm_file.c */

/* No command struct is larger than this; bigger sizes fail with E2BIG. */
#define RCM_MAX_CMD_SIZE PAGE_SIZE

extern const struct file_operations rcm_fops;

/**
 * struct rcm_ioctl_op - one entry of the ioctl dispatch table
 * @execute: handler; @arg is a kernel copy of the command struct, of
 *           @size bytes, with user bytes beyond the kernel's size checked
 *           zero and bytes the user did not supply zeroed
 * @finish: when set, called after a successful @execute once the outputs
 *          were copied back (@copied) or could not be (EFAULT), so a
 *          command can undo what userspace would never learn of
 * @size: sizeof the kernel's command struct
 * @min_size: the smallest size the command takes: its struct of ABI
 *            version 2 (offsetofend of its last member then)
 * @out_offset: offset of the command's first output (out_) member
 * @out_end: end of its last output member; 0 for a command without
 *           outputs. Only [@out_offset, @out_end), cut at userspace's
 *           size, is copied back, and only after @execute succeeded.
 */
struct rcm_ioctl_op {
	int (*execute)(struct file *filp, void *arg);
	void (*finish)(struct file *filp, void *arg, bool copied);
	u32 size;
	u32 min_size;
	u32 out_offset;
	u32 out_end;
};

/**
 * struct rcm_file - one open of /dev/infiniband/rcm
 * @ids: handle -> struct rcm_id (allocating, handles from 1). An id is
 *       stored only once complete. Erasing its entry is how a destroyer
 *       (or a migration, to another file) claims an id, so exactly one
 *       thread destroys or moves each. Lookups take their reference
 *       under the xarray lock (rcm_id_get()).
 * @event_lock: protects @events and every id's @events_reported. Taken
 *              from process context only.
 * @events: queued struct rcm_uevent, oldest first
 * @nr_events: length of @events; written under @event_lock, read without
 *             it by rcm_event_room()
 * @read_mutex: held by read() while it copies events out and by the
 *              event purge of a destroy and a migration's move, so an
 *              event is never freed or moved while it is being copied.
 *              Taken after an id's @cmd_lock and before its @lock
 *              (nothing holds an id lock while taking it); two files'
 *              in address order.
 * @poll_wait: woken whenever an event is queued
 * @event_size: bytes of each record read() returns: RCM_EVENT_SIZE
 *              from open(), set by RCM_IOCTL_QUERY (rcm_read_set_size()).
 *              Written and read under @read_mutex, so one read() returns
 *              records of one size.
 * @nr_mcasts: multicast groups the file's ids hold (max_mcast_per_file);
 *             a join reserves one, a leave or destroy gives it back, a
 *             migration carries its id's over
 *
 * Allocated by open(), freed by release() after every id is destroyed.
 * Everything in it is private to the one open file.
 */
struct rcm_file {
	struct xarray ids;
	spinlock_t event_lock;		/* @events, ids' events_reported */
	struct list_head events;
	u32 nr_events;
	struct mutex read_mutex;	/* readers vs. event purge */
	wait_queue_head_t poll_wait;
	u32 event_size;			/* @read_mutex */
	atomic_t nr_mcasts;
};

/**
 * enum rcm_state - life of an id
 * @RCM_STATE_IDLE: created, nothing bound
 * @RCM_STATE_ADDR_BOUND: bound to a local address and port
 * @RCM_STATE_ADDR_QUERY: address resolution in flight
 * @RCM_STATE_ADDR_RESOLVED: destination resolved; attached to a device
 * @RCM_STATE_ROUTE_QUERY: path query to the subnet administrator in
 *                         flight (InfiniBand)
 * @RCM_STATE_ROUTE_RESOLVED: path built (RoCE), answered by the SA
 *                            (InfiniBand) or not needed (iWARP)
 * @RCM_STATE_LISTEN: listening for connection requests
 * @RCM_STATE_CONNECT: a connection: a request id (passive side) waiting
 *                     for its answer, accepted or established; or an id
 *                     that sent a request (active side) waiting for the
 *                     peer's answer, answered or established
 * @RCM_STATE_DISCONNECT: the connection is down (DISCONNECTED reported)
 * @RCM_STATE_DEVICE_REMOVAL: its device went away; only destroy is left
 * @RCM_STATE_DESTROYING: being destroyed; final
 *
 * Every asynchronous path takes the id's lock and checks the state it
 * expects, so a callback that loses a race with destroy or device
 * removal does nothing.
 */
enum rcm_state {
	RCM_STATE_IDLE,
	RCM_STATE_ADDR_BOUND,
	RCM_STATE_ADDR_QUERY,
	RCM_STATE_ADDR_RESOLVED,
	RCM_STATE_ROUTE_QUERY,
	RCM_STATE_ROUTE_RESOLVED,
	RCM_STATE_LISTEN,
	RCM_STATE_CONNECT,
	RCM_STATE_DISCONNECT,
	RCM_STATE_DEVICE_REMOVAL,
	RCM_STATE_DESTROYING,
};

/**
 * union rcm_sockaddr - an address an id keeps
 * @sa: the family, and the address as the kernel's calls take it
 * @in: IPv4
 * @in6: IPv6
 * @ib: AF_IB, the largest rcm handles (48 bytes)
 *
 * Not a struct sockaddr_storage: an id keeps two addresses, and 128
 * bytes each would be 160 bytes more per id. Filled by rcm_addr_set(),
 * which zeroes what the family does not use.
 */
union rcm_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_ib ib;
};

/**
 * struct rcm_binding - what an id asks of its port space
 * @addr: local address and port (sockaddr_in or sockaddr_in6), or the
 *        GID, P_Key and service ID (sockaddr_ib; the port is the low 16
 *        bits of the service ID, its port space bits 31:16)
 * @reuseaddr: RCM option REUSEADDR
 * @afonly: IPv6 only / IPv4 only: does not share with the other family
 */
struct rcm_binding {
	union rcm_sockaddr addr;
	bool reuseaddr;
	bool afonly;
};

/**
 * struct rcm_id - a communication identifier
 * @file: the owning file; it outlives the id (release() destroys all
 *        ids). Changed only by a migration, under @cmd_lock and @lock
 * @handle: index in @file->ids
 * @context: the user's value, echoed in every event of the id
 * @ref: the @file->ids entry holds the base reference; every command in
 *       flight on the id and every pending asynchronous operation holds
 *       one more. The last put completes @done, or frees a request id
 *       that was never published (rcm_request_abort() waits for nobody)
 * @done: destroy waits on it after dropping the base reference, so no
 *        command or callback can touch the id once it is freed
 * @cmd_lock: serialises the commands on the id (userspace may issue
 *            them from several threads at once). Taken before @lock.
 * @lock: serialises commands on the id with the callbacks acting on it;
 *        @state changes only under it. Never held across a call that
 *        waits for such a callback (address cancel, CM id destroy).
 * @state: enum rcm_state
 * @ps: port space (enum rcm_port_space)
 * @qp_type: enum rcm_qp_type
 * @events_reported: events of this id that read() returned; under
 *                   @file->event_lock
 * @events_queued: events of this id in @file's queue, for the listing;
 *                 written under @file->event_lock, read without it
 * @memcg: the memory cgroup the id and what it allocates are charged to
 *         (reference held): its creator's, and a request id's listener's.
 *         Set at creation, kept through a migration, put by the free
 * @net: network namespace of the creator (reference held)
 * @bind: local address, port and port-sharing options; under @lock
 * @dst_addr: remote address once known; under @lock
 * @port: the port held in the port space (0: none); see rcm_ps.c
 * @port_node: entry among the port's owners, under the port table lock
 *             of @net (rcm_ps.c)
 * @dev_addr: L2 and netdev view of the addresses, filled by ib_core's
 *            address resolution; its sgid_attr is the GID table entry
 *            held while attached
 * @rdev: the device the id is attached to (reference held), or NULL;
 *        set and cleared under @lock and @rdev->ids_lock
 * @port_num: port of @rdev
 * @num: the id's number, from one counter of the module, set at
 *       creation and never changed (a migration keeps it): what the
 *       tracepoints, fdinfo and rcm-stat name the id by, as the in-tree
 *       CM's traces and `rdma res show cm_id` name its ids by their
 *       restrack ID. A handle names an id only within its file. Wraps
 *       after 2^32 ids, as restrack's IDs do.
 * @dev_node: entry in @rdev->ids
 * @change_node: entry in the list of ids an address change concerns,
 *               used only by rcm_netdev.c's work (one at a time)
 * @resolve_used: an address resolution was issued on @dev_addr before;
 *                under @cmd_lock
 * @resolve_ev: the completion event of an address resolution in flight;
 *              whoever takes it (the callback, or the canceller after
 *              rdma_addr_cancel()) also drops the reference the
 *              resolution holds. Under @lock.
 * @removal_ev: the DEVICE_REMOVAL event, allocated when the id attaches
 *              so that the removal can always be reported
 * @tos: type of service of the id's traffic (RoCE traffic class)
 * @afonly_set: AFONLY was set explicitly; bind keeps it
 * @ack_timeout_set: @ack_timeout was set explicitly
 * @ack_timeout: local ACK timeout exponent (4.096 us * 2^n)
 * @resolve_timeout_ms: option RESOLVE_TIMEOUT: when non-zero, replaces
 *                      the timeout_ms of the address and route
 *                      resolutions issued afterwards. Under @lock
 * @route_ev: the completion event of an SA path query in flight; the
 *            query holds a reference on the id, which its callback
 *            drops when it takes the event (rcm_route.c). Under @lock.
 * @sa_query: the query in flight, for ib_sa_cancel_query(); valid while
 *            @route_ev is set, under @lock
 * @sa_query_id: its id, likewise
 * @qp_num: the QP number a connect or an accept announced (0 before),
 *          for the listing; under @lock
 * @path: the RoCE path once the route is resolved, the SA's answer on
 *        InfiniBand, or a request id's:
 *        the REQ's primary path, as in-tree; freed at destroy. Under
 *        @lock.
 * @listens: a listener's IB CM listens (struct rcm_listen_dev), under
 *           rcm_listeners_lock (rcm_listen.c)
 * @listener_node: a listener's entry in rcm_listeners, same lock
 * @listen_ibdev: a listener bound to a specific address: the device it
 *                listens on, set when it starts listening, for the port
 *                lookup of requests to compare against (never
 *                dereferenced: the port table lock does not keep the device)
 * @backlog: a listener's answer slots (struct rcm_backlog, referenced)
 * @slot: a request id's slot of its listener's backlog until its
 *        CONNECT_REQUEST is read (or the id is destroyed or loses its
 *        device); under @lock
 * @cm_id: the ib_cm id of the id's connection (a request id's, or the
 *         one an active id's connect created; for a UD id its SIDR REQ's
 *         or SIDR request's); destroyed (rejecting an unanswered
 *         request, sending a DREQ on an established connection,
 *         cancelling a SIDR REQ) when the id is destroyed, never under
 *         @lock
 * @iw: the iw_cm id of the id's connection on an iWARP port, under the
 *      same rules as @cm_id (iw_destroy_cm_id() waits for the id's
 *      iw_cm handlers, which take @lock, and rejects an unanswered
 *      request or resets an established connection). An id has at most
 *      one of @cm_id and @iw: the CM of its device's port decides.
 *      iw_cm runs the handlers of every iw_cm id on one ordered
 *      workqueue; nothing that waits for that workqueue
 *      (iw_destroy_cm_id(), iw_cm_disconnect() before the connection
 *      is up) is ever called under @lock.
 * @active: the id sent the connection request (RCM_IOCTL_CONNECT), or
 *          a UD id its SIDR REQ
 * @answered: passive: the request was answered (accept, reject) or the
 *            peer gave up; active: the peer's REP, REJ, SIDR REP or the
 *            timeout came. Under @lock
 * @accepted: passive: this side sent its REP; active: the peer's REP
 *            came. Under @lock
 * @established: the RTU went (active) or came (passive, or the user's
 *               notify), so the connection is up; on iWARP, iw_cm
 *               reported it up (CONNECT_REPLY or ESTABLISHED). Under @lock
 * @iw_disconnect: iWARP: userspace disconnected an accepted connection
 *                 before iw_cm reported it up, or a connect waiting
 *                 for its reply; the ESTABLISHED or CONNECT_REPLY
 *                 handler disconnects it then. Under @lock
 * @iw_connecting: active iWARP: rcm_iw_connect() waits for the driver's
 *                 connect without @lock; destroy and device removal
 *                 wait until it is clear (rcm_iw_lock_settled()).
 *                 Written under @lock
 * @req_param: a request id's REQ parameters, seen from this side
 * @seq_num: starting PSN this side announces (24 bits)
 * @qkey: a UD id's Q_Key (RCM_OPTION_ID_QKEY; RCM_UDP_QKEY by default
 *        for RCM_PS_UDP and RCM_PS_IB, a request id takes its
 *        listener's); under @lock
 * @connect_timeout_ms: RCM_OPTION_ID_CONNECT_TIMEOUT, 0 for the in-tree
 *                      rdma_cm's CM timers; under @lock
 * @mcasts: multicast groups the id joined (struct rcm_mcast.node); see
 *          struct rcm_mcast for the rules
 */
struct rcm_id {
	/* Ordered to leave few holes: memory per idle id (issue 16). */
	struct rcm_file *file;
	u64 context;
	u32 handle;
	refcount_t ref;
	struct completion done;
	struct mutex cmd_lock;		/* one command at a time */
	struct mutex lock;		/* commands vs. callbacks; @state */
	enum rcm_state state;
	u32 events_reported;
	u32 events_queued;
	u16 ps;
	u8 qp_type;
	bool resolve_used;
	u32 port_num;
	u32 num;
	struct mem_cgroup *memcg;
	struct net *net;
	struct rcm_binding bind;
	union rcm_sockaddr dst_addr;
	struct hlist_node port_node;
	struct rdma_dev_addr dev_addr;
	struct rcm_device *rdev;
	struct list_head dev_node;
	struct list_head change_node;
	struct rcm_uevent *resolve_ev;
	struct rcm_uevent *removal_ev;
	u16 port;
	u8 tos;
	bool afonly_set;
	bool ack_timeout_set;
	u8 ack_timeout;
	u32 resolve_timeout_ms;
	int sa_query_id;
	struct rcm_uevent *route_ev;
	struct ib_sa_query *sa_query;
	struct sa_path_rec *path;
	struct list_head listens;
	struct list_head listener_node;
	struct ib_device *listen_ibdev;
	struct rcm_backlog *backlog;
	struct rcm_backlog *slot;
	struct ib_cm_id *cm_id;
	struct iw_cm_id *iw;
	bool active;
	bool answered;
	bool accepted;
	bool established;
	bool iw_disconnect;
	bool iw_connecting;
	struct rcm_wire_conn_param req_param;
	u32 seq_num;
	u32 qkey;
	u32 connect_timeout_ms;
	u32 qp_num;
	struct list_head mcasts;
};

/**
 * rcm_charge_begin() - charge what follows to an id's memory cgroup
 * @id: the id whose work this is
 *
 * The CMs' handlers run in kernel threads, which no cgroup pays for:
 * what they allocate for a file's ids (request ids, events, paths, QP
 * attributes) is charged to the id's cgroup through this scope, so that
 * a process's memory limit bounds it as it bounds what its ioctls make.
 *
 * Return: the previous scope, for rcm_charge_end().
 */
static inline struct mem_cgroup *rcm_charge_begin(const struct rcm_id *id)
{
	return set_active_memcg(id->memcg);
}

/**
 * rcm_charge_end() - end a scope of rcm_charge_begin()
 * @old: what it returned
 */
static inline void rcm_charge_end(struct mem_cgroup *old)
{
	set_active_memcg(old);
}

/**
 * struct rcm_mcast_igmp - an IP multicast membership a group holds
 * @node: entry in the list of memberships a thread drops at once
 * @ifindex: the netdev (in the id's namespace) it was joined on
 * @group: the IPv4 group address
 *
 * Allocated by a full-member join on RoCE v2 that joined the IPv4 group
 * on the id's netdev (ip_mc_inc_group()). Exactly one thread drops it
 * (ip_mc_dec_group()) and frees it: the one that takes the pointer from
 * its group under the id's lock (leave, device removal, or the destroy,
 * which owns the id by then), outside every rcm lock, under RTNL.
 */
struct rcm_mcast_igmp {
	struct list_head node;
	int ifindex;
	__be32 group;
};

/**
 * struct rcm_mcast - a multicast group an id joined
 * @node: entry in the id's @mcasts; added by the join, removed by the
 *        leave, both under the id's @cmd_lock and @lock; walked by device
 *        removal under the id's @lock; emptied by the destroy once
 *        nothing else can reach the id
 * @id: the id that joined
 * @addr: the group's IP address, as the join gave it (port ignored)
 * @context: the user's value for the group's events
 * @join_flags: enum rcm_mcast_join_flags
 * @mgid: the MGID the address maps to on the id's port
 * @events_reported: events of the group read() returned; under the
 *                   event lock of the id's file, like the id's own count
 * @igmp: the group's IP membership on the netdev, or NULL (send-only,
 *        RoCE v1, or already dropped by a device removal); under the
 *        id's @lock
 * @sa_mc: InfiniBand: the SA membership (ib_sa_join_multicast()), or
 *         NULL once the thread that frees it (leave, device removal,
 *         destroy) took it; set and taken under the id's @lock. Its
 *         callback queues the group's events under that lock, only
 *         while @sa_mc is still the membership it was called for, and
 *         ib_sa_free_multicast() waits for a callback that is running,
 *         so none queues an event once the taker's free returned.
 *
 * Lifetime: allocated by RCM_IOCTL_JOIN_MCAST and freed by
 * RCM_IOCTL_LEAVE_MCAST or by the id's destroy - never by anyone else,
 * and never while an event of the group is queued: a queued
 * struct rcm_uevent points at its group (@mc), and both the leave and
 * the destroy purge those events under the file's read mutex before the
 * group is freed. On RoCE the only events of a group are the JOIN or
 * ERROR its join queues before the ioctl returns, so once the leave
 * (which holds the command lock a join needs) has purged them, none can
 * appear. On InfiniBand the SA membership's callback queues them (see
 * @sa_mc), and the leave and the destroy purge only after
 * ib_sa_free_multicast() returned.
 */
struct rcm_mcast {
	struct list_head node;
	struct rcm_id *id;
	struct sockaddr_storage addr;
	u64 context;
	u32 join_flags;
	union ib_gid mgid;
	u32 events_reported;
	struct rcm_mcast_igmp *igmp;
	struct ib_sa_multicast *sa_mc;
};

/**
 * struct rcm_uevent - an event on its way to userspace
 * @list: entry in the file's event queue
 * @id: the id it is about; its destroy purges the event first
 * @mc: the multicast group it is about (MULTICAST_JOIN/ERROR), or NULL;
 *      the group's leave purges the event first. It counts in both the
 *      id's and the group's events_reported when read.
 * @listener: a CONNECT_REQUEST's listener, else NULL. The listener's
 *            destroy takes the event out unread (and destroys @id), so
 *            it never outlives the listener; reading it gives @id's
 *            backlog slot back.
 * @ev: the head of the record read() copies out, every event's
 * @qp: the record's @qp_attr, the QP attribute sets of the few events
 *      that carry them (rcm_qp_event_attrs()), freed with the event; or
 *      NULL, read as zeros. Apart, so that the records every attached id
 *      holds (its DEVICE_REMOVAL) stay small.
 * @info: the record's @id_info, the id's view a resolution or request
 *        carries (rcm_id_info_event()), freed with the event; or NULL,
 *        read as zeros. Apart for the same reason.
 */
struct rcm_uevent {
	struct list_head list;
	struct rcm_id *id;
	struct rcm_mcast *mc;
	struct rcm_id *listener;
	struct rcm_event_head ev;
	struct rcm_event_qp *qp;
	struct rcm_id_info *info;
};

/* The QP attribute sets of an event, its record's @qp_attr. */
struct rcm_event_qp {
	struct rcm_qp_attr attr[3];
};

/* rcm_id.c */
int rcm_id_init(void);
void rcm_id_exit(void);
struct rcm_id *rcm_id_alloc(struct rcm_file *file, u64 context, u16 ps,
			    u8 qp_type, struct net *net);
int rcm_id_publish(struct rcm_id *id);
void rcm_id_free(struct rcm_id *id);
int rcm_id_state_errno(struct rcm_id *id);
struct rcm_id *rcm_id_get(struct rcm_file *file, u32 handle);
struct rcm_id *rcm_id_lock(struct rcm_file *file, u32 handle);
void rcm_id_unlock(struct rcm_id *id);
void rcm_id_put(struct rcm_id *id);
void rcm_file_destroy_ids(struct rcm_file *file);
/*
 * CREATE_ID's command struct in the dispatcher's buffer, with what its
 * finish needs: the new id, referenced until the handle is copied out.
 */
struct rcm_create_id_call {
	struct rcm_create_id cmd;
	struct rcm_id *id;
};

int rcm_cmd_create_id(struct file *filp, void *arg);
void rcm_cmd_create_id_finish(struct file *filp, void *arg, bool copied);
int rcm_cmd_destroy_id(struct file *filp, void *arg);
struct rcm_id *rcm_id_claim(struct rcm_file *file, u32 handle);
u32 rcm_id_destroy(struct rcm_id *id);
int rcm_cmd_migrate_id(struct file *filp, void *arg);

/* rcm_ps.c */
/* The port-space bits of an AF_IB service ID (rdma_cm.h's RDMA_IB_IP_PS_MASK). */
#define RCM_IB_IP_PS_MASK 0xFFFFFFFFFFFF0000ULL
int rcm_ps_ib_select(u16 ps, struct sockaddr_ib *sib);
bool rcm_addr_is_any(const struct sockaddr *sa);
u16 rcm_addr_port(const struct sockaddr *sa);
int rcm_ps_init(void);
void rcm_ps_exit(void);
int rcm_ps_bind(struct rcm_id *id);
void rcm_ps_set_addrs(struct rcm_id *id, const struct sockaddr *src,
		      const struct sockaddr_storage *dst);
void rcm_ps_release(struct rcm_id *id);
void rcm_ps_set_sharing(struct rcm_id *id, bool reuseaddr, bool afonly);
int rcm_ps_listen_exclusive(struct rcm_id *id);
struct rcm_id *rcm_ps_find_listener(u16 ps, u16 port, struct net *net,
				    const struct sockaddr *dialled,
				      struct ib_device *ibdev);

/* rcm_addr.c */
int rcm_addr_from_user(const struct __kernel_sockaddr_storage *kss,
		       struct sockaddr_storage *out);
int rcm_addr_from_user_id(const struct __kernel_sockaddr_storage *kss,
			  struct sockaddr_storage *out);
void rcm_addr_set(union rcm_sockaddr *to, const struct sockaddr *from);
int rcm_ipoib_hw_gid(const u8 *hw, unsigned int len, union ib_gid *gid);
int rcm_addr_bind(struct rcm_id *id, const struct sockaddr_storage *addr);
void rcm_addr_detach(struct rcm_id *id);
void rcm_addr_device_removed(struct rcm_id *id);
void rcm_addr_cancel(struct rcm_id *id);
int rcm_cmd_bind_addr(struct file *filp, void *arg);
int rcm_cmd_resolve_addr(struct file *filp, void *arg);
int rcm_cmd_query_id(struct file *filp, void *arg);
void rcm_id_info_event(struct rcm_id *id, struct rcm_uevent *ev);
void rcm_id_resolved(struct rcm_id *id, struct rcm_uevent *ev, int status,
		     u32 err_type, enum rcm_state back, enum rcm_state next);

/* rcm_route.c */
extern struct ib_sa_client rcm_sa_client;
int rcm_route_init(void);
void rcm_route_exit(void);
int rcm_cmd_resolve_route(struct file *filp, void *arg);
void rcm_route_cancel(struct rcm_id *id);
void rcm_route_fill(struct rcm_id *id, u32 *num, struct rcm_path *out);
struct ib_path_rec_data;
int rcm_route_ib_path_from_user(u64 uptr, u32 len,
				struct ib_path_rec_data *data);
int rcm_route_set_ib_path(struct rcm_file *file, u32 handle,
			  const struct ib_path_rec_data *data);
struct net_device;
u8 rcm_route_tos_to_sl(struct net_device *ndev, u8 tos);

/* rcm_mcast.c */
int rcm_cmd_join_mcast(struct file *filp, void *arg);
int rcm_cmd_leave_mcast(struct file *filp, void *arg);
void rcm_mcast_device_removed(struct rcm_id *id);
void rcm_mcast_destroy(struct rcm_id *id);
void rcm_mcast_move(struct rcm_id *id, struct rcm_file *src,
		    struct rcm_file *dst);

/* rcm_netdev.c */
int rcm_netdev_init(void);
void rcm_netdev_exit(void);
void rcm_netdev_record(struct rcm_id *id);
void rcm_netdev_record_ndev(struct rcm_id *id, const struct net_device *ndev);

/* rcm_listen.c */
int rcm_cmd_listen(struct file *filp, void *arg);
int rcm_cmd_reject(struct file *filp, void *arg);
void rcm_listen_stop(struct rcm_id *id);
void rcm_listen_drop_backlog(struct rcm_id *id);
u32 rcm_listen_backlog(const struct rcm_id *id);
void rcm_listen_release_slot(struct rcm_id *id);
void rcm_listen_request_read(struct rcm_id *id);
void rcm_listen_destroy_requests(struct rcm_id *listener);
struct rcm_uevent *rcm_request_publish(struct rcm_id *child,
				       struct rcm_id *listener);
struct rcm_id *rcm_request_lock(struct rcm_file *file, u32 handle);
void rcm_request_answered(struct rcm_id *id);
struct rcm_id *rcm_request_begin(struct rcm_id *listener);
void rcm_request_abort(struct rcm_id *child);
void rcm_listen_device_added(struct rcm_device *rdev);
void rcm_listen_device_removed(struct rcm_device *rdev);

/* A request id (passive side) that userspace has not answered yet. */
static inline bool rcm_id_is_request(const struct rcm_id *id)
{
	return id->state == RCM_STATE_CONNECT && !id->active &&
	       (id->cm_id || id->iw) && !id->answered;
}

/* An active id the peer accepted, whose RTU userspace has not sent. */
static inline bool rcm_id_awaits_rtu(const struct rcm_id *id)
{
	return id->state == RCM_STATE_CONNECT && id->active && id->cm_id &&
	       id->accepted && !id->established;
}

/* A datagram id: its "connections" are SIDR lookups (rcm_sidr.c). */
static inline bool rcm_id_is_ud(const struct rcm_id *id)
{
	return id->qp_type == RCM_QPT_UD;
}

/* rcm_conn.c */
int rcm_private_data_from_user(void *buf, u64 uptr, u32 len);
struct rdma_ucm_ece;
void rcm_conn_report_ece(struct rcm_id *id, u32 type, int status,
			 const void *pdata, u8 len,
			 const struct rcm_conn_param *conn,
			 const struct rdma_ucm_ece *ece);
void rcm_conn_report(struct rcm_id *id, u32 type, int status,
		     const void *pdata, u8 len,
		     const struct rcm_conn_param *conn);
int rcm_cmd_connect(struct file *filp, void *arg);
int rcm_cmd_accept(struct file *filp, void *arg);
int rcm_cmd_establish(struct file *filp, void *arg);
int rcm_cmd_notify(struct file *filp, void *arg);
int rcm_cmd_disconnect(struct file *filp, void *arg);
/* The private data limit of an operation on an id's transport. */
int rcm_conn_pdata_max(struct rcm_id *id, enum rcm_wire_op op);

/* rcm_ib.c */
struct ib_cm_id;
struct ib_cm_event;
struct rcm_wire_req_addrs;
void rcm_ib_cm_timers(struct rcm_id *id, u32 fixed_ms, u8 *timeout,
		      u8 *retries);
int rcm_ib_connect(struct rcm_id *id, const struct rcm_connect *cmd,
		   const struct rcm_wire_conn_param *param, const void *udata,
		   struct ib_cm_id **dead);
int rcm_ib_accept(struct rcm_id *id, const struct rcm_accept *cmd,
		  const struct rcm_wire_conn_param *param, const void *pdata);
int rcm_ib_establish(struct rcm_id *id);
int rcm_ib_notify(struct rcm_id *id, u32 event);
int rcm_ib_reject(struct rcm_id *id, u32 reason, const void *pdata, u8 len);
int rcm_ib_disconnect(struct rcm_id *id);
struct ib_cm_id *rcm_ib_listen(struct rcm_id *id, struct rcm_device *rdev);

/* rcm_sidr.c */
int rcm_sidr_connect(struct rcm_id *id, const void *udata, u32 ulen,
		     struct ib_cm_id **dead);
void rcm_sidr_req_event(struct rcm_uevent *ev, struct rcm_id *listener,
			const struct ib_cm_event *event);
int rcm_sidr_accept(struct rcm_id *id, u32 qp_num, const void *pdata, u8 len);
int rcm_sidr_reject(struct rcm_id *id, const void *pdata, u8 len);

/* rcm_iw.c */
struct iw_cm_id;
struct iw_cm_id *rcm_iw_listen(struct rcm_id *listener,
			       struct ib_device *ibdev, int backlog);
int rcm_iw_connect(struct rcm_id *id, const struct rcm_connect *cmd,
		   const struct rcm_wire_conn_param *param, const void *pdata,
		   struct iw_cm_id **dead);
int rcm_iw_accept(struct rcm_id *id, const struct rcm_accept *cmd,
		  const struct rcm_wire_conn_param *param, const void *pdata);
int rcm_iw_reject(struct rcm_id *id, const void *pdata, u8 len);
int rcm_iw_disconnect(struct rcm_id *id);
void rcm_iw_lock_settled(struct rcm_id *id);
int rcm_iw_qp_attr(struct rcm_id *id, struct ib_qp_attr *attr, int *mask);

/* rcm_qp.c */
#define RCM_QP_STATES (BIT(RCM_QPS_INIT) | BIT(RCM_QPS_RTR) | BIT(RCM_QPS_RTS))
int rcm_cmd_init_qp_attr(struct file *filp, void *arg);
void rcm_qp_event_attrs(struct rcm_uevent *uevent, struct rcm_id *id,
			u32 states);

/* rcm_option.c */
int rcm_cmd_set_option(struct file *filp, void *arg);

/* rcm_event.c */
int rcm_event_init(void);
void rcm_event_exit(void);
void rcm_event_free(struct rcm_uevent *uevent);
struct rcm_uevent *rcm_event_alloc(struct rcm_id *id, u32 type, gfp_t gfp);
void rcm_event_set_private_data(struct rcm_uevent *uevent, const void *pdata,
				u8 len);
u32 rcm_event_pending(struct rcm_id *id);
void rcm_event_queue(struct rcm_file *file, struct rcm_uevent *uevent);
int rcm_event_room(struct rcm_file *file);
void rcm_event_purge(struct rcm_file *file, struct rcm_id *id);
void rcm_event_purge_mcast(struct rcm_file *file, struct rcm_mcast *mc);
void rcm_event_take_requests(struct rcm_file *file, struct rcm_id *listener,
			     struct list_head *claimed);
void rcm_event_readers_lock(struct rcm_file *a, struct rcm_file *b);
void rcm_event_readers_unlock(struct rcm_file *a, struct rcm_file *b);
int rcm_event_can_move(struct rcm_file *src, struct rcm_id *id);
unsigned int rcm_event_requests_of(struct rcm_file *src,
				   struct rcm_id *listener,
				   struct rcm_id **reqs, unsigned int max);
void rcm_event_move(struct rcm_file *src, struct rcm_file *dst,
		    struct rcm_id *id, u32 handle);
ssize_t rcm_read(struct file *filp, char __user *buf, size_t len,
		 loff_t *pos);
__poll_t rcm_poll(struct file *filp, struct poll_table_struct *wait);
u32 rcm_read_set_size(struct rcm_file *file, u32 size);

/* rcm_cmd.c */
int rcm_cmd_query(struct file *filp, void *arg);

/* rcm_fdinfo.c */
struct seq_file;
void rcm_show_fdinfo(struct seq_file *m, struct file *filp);

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * For the KUnit suites only (VISIBLE_IF_KUNIT, <kunit/visibility.h>):
 * static in a kernel without KUnit, so they never widen the interface
 * between rcm's own files.
 */
enum rcm_port_cm rcm_port_cm_from_caps(u32 core_cap_flags);
const struct rcm_ioctl_op *rcm_ioctl_lookup(unsigned int cmd);
int rcm_ioctl_check_header(const struct rcm_ioctl_op *op, u32 user_size,
			   u32 flags);
int rcm_id_qp_type(u16 ps, u8 qp_type);
int rcm_ps_conflict(const struct rcm_binding *new,
		    const struct rcm_binding *cur);
bool rcm_ps_unique(const struct sockaddr *a_src, const struct sockaddr *a_dst,
		   const struct sockaddr *b_src, const struct sockaddr *b_dst);
bool rcm_ps_listen_match(const struct rcm_binding *bound,
			 const struct sockaddr *dialled);
ib_sa_comp_mask rcm_route_ib_mask(sa_family_t family, const struct sockaddr *src,
				  u8 tos, struct sa_path_rec *rec);
u32 rcm_route_flow_label(const struct sockaddr *src,
			 const struct sockaddr *dst);
bool rcm_route_path_unpack(const struct ib_path_rec_data *data, bool opa,
			   struct sa_path_rec *path);
ib_sa_comp_mask rcm_mcast_ib_rec(const struct sockaddr *group, u16 ps,
				 const u8 *broadcast,
				 const union ib_gid *port_gid, u16 pkey,
				 u32 qkey, u32 join_flags,
				 struct ib_sa_mcmember_rec *rec);
bool rcm_ib_addrs_plausible(const struct rcm_wire_req_addrs *addrs);
void rcm_qp_attr_to_user(const struct ib_qp_attr *attr, int mask,
			 struct rcm_qp_attr *out);
extern const struct rcm_ioctl_op rcm_ioctl_ops[];
extern const unsigned int rcm_ioctl_num_ops;
#endif

#endif /* _RCM_PRIV_H */
