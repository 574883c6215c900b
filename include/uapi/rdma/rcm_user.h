/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/* rcm: RDMA connection manager character device, userspace ABI. */
#ifndef _UAPI_RDMA_RCM_USER_H
#define _UAPI_RDMA_RCM_USER_H

#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/ioctl.h>
#include <linux/socket.h>

/**
 * DOC: rcm ioctl ABI
 *
 * The character device is ``/dev/infiniband/rcm``. Any user may open it;
 * everything an open file creates is private to that file.
 *
 * Every command is ``ioctl(fd, RCM_IOCTL_*, ptr)``. The first member of
 * every command struct is ``__u32 size``, the size of the struct
 * userspace was compiled with, so a struct grows at its end without a
 * new command number: a size below this header's struct is EINVAL; a
 * larger one is accepted only if every byte the kernel does not know is
 * zero (else E2BIG, and always above 4096). Output members (``out_``
 * prefix) are written back up to ``size``, only on success, and nothing
 * else is written. The second member is ``__u32 flags`` (unknown bits:
 * EOPNOTSUPP). Input members named ``reserved*`` must be zero (EINVAL);
 * output ones are written as zero. A member ``id`` is a handle of an id
 * of the open file the command is issued on.
 *
 * Errors of every command, besides each command's own:
 *
 * ========== ==========================================================
 * ENOTTY     unknown ioctl number
 * EFAULT     the argument, or a pointer in it, is not accessible
 * EINVAL     size below the minimum, a reserved member not zero, a value
 *            out of range
 * E2BIG      size above 4096, or unknown tail bytes not zero
 * EOPNOTSUPP a flag bit (no command takes one yet)
 * ENOENT     ``id`` names no id of this file
 * ENOBUFS    a resolution, connect or join: max_events_per_file unread
 * ENOMEM     no memory (nothing changed)
 * ENXIO      the id reported RCM_EVENT_DEVICE_REMOVAL: every command on
 *            it but RCM_IOCTL_DESTROY_ID and RCM_IOCTL_QUERY_ID fails
 * ========== ==========================================================
 */

/* Also in /sys/class/misc/rcm/abi_version. Frozen: NEWS says why. */
#define RCM_ABI_VERSION 2

/* Unassigned in Documentation/userspace-api/ioctl/ioctl-number.rst (6.1). */
#define RCM_IOCTL_MAGIC 0xDE

enum rcm_cmd {
	RCM_CMD_BASE = 0x80,
	RCM_CMD_QUERY = RCM_CMD_BASE,
	RCM_CMD_CREATE_ID,
	RCM_CMD_DESTROY_ID,
	RCM_CMD_BIND_ADDR,
	RCM_CMD_RESOLVE_ADDR,
	RCM_CMD_QUERY_ID,
	RCM_CMD_RESOLVE_ROUTE,
	RCM_CMD_SET_OPTION,
	RCM_CMD_LISTEN,
	RCM_CMD_REJECT,
	RCM_CMD_ACCEPT,
	RCM_CMD_DISCONNECT,
	RCM_CMD_CONNECT,
	RCM_CMD_ESTABLISH,
	RCM_CMD_INIT_QP_ATTR,
	RCM_CMD_NOTIFY,
	RCM_CMD_MIGRATE_ID,
	RCM_CMD_JOIN_MCAST,
	RCM_CMD_LEAVE_MCAST,
};

#define RCM_IOCTL_QUERY		_IO(RCM_IOCTL_MAGIC, RCM_CMD_QUERY)
#define RCM_IOCTL_CREATE_ID	_IO(RCM_IOCTL_MAGIC, RCM_CMD_CREATE_ID)
#define RCM_IOCTL_DESTROY_ID	_IO(RCM_IOCTL_MAGIC, RCM_CMD_DESTROY_ID)
#define RCM_IOCTL_BIND_ADDR	_IO(RCM_IOCTL_MAGIC, RCM_CMD_BIND_ADDR)
#define RCM_IOCTL_RESOLVE_ADDR	_IO(RCM_IOCTL_MAGIC, RCM_CMD_RESOLVE_ADDR)
#define RCM_IOCTL_QUERY_ID	_IO(RCM_IOCTL_MAGIC, RCM_CMD_QUERY_ID)
#define RCM_IOCTL_RESOLVE_ROUTE	_IO(RCM_IOCTL_MAGIC, RCM_CMD_RESOLVE_ROUTE)
#define RCM_IOCTL_SET_OPTION	_IO(RCM_IOCTL_MAGIC, RCM_CMD_SET_OPTION)
#define RCM_IOCTL_LISTEN	_IO(RCM_IOCTL_MAGIC, RCM_CMD_LISTEN)
#define RCM_IOCTL_REJECT	_IO(RCM_IOCTL_MAGIC, RCM_CMD_REJECT)
#define RCM_IOCTL_ACCEPT	_IO(RCM_IOCTL_MAGIC, RCM_CMD_ACCEPT)
#define RCM_IOCTL_DISCONNECT	_IO(RCM_IOCTL_MAGIC, RCM_CMD_DISCONNECT)
#define RCM_IOCTL_CONNECT	_IO(RCM_IOCTL_MAGIC, RCM_CMD_CONNECT)
#define RCM_IOCTL_ESTABLISH	_IO(RCM_IOCTL_MAGIC, RCM_CMD_ESTABLISH)
#define RCM_IOCTL_INIT_QP_ATTR	_IO(RCM_IOCTL_MAGIC, RCM_CMD_INIT_QP_ATTR)
#define RCM_IOCTL_NOTIFY	_IO(RCM_IOCTL_MAGIC, RCM_CMD_NOTIFY)
#define RCM_IOCTL_MIGRATE_ID	_IO(RCM_IOCTL_MAGIC, RCM_CMD_MIGRATE_ID)
#define RCM_IOCTL_JOIN_MCAST	_IO(RCM_IOCTL_MAGIC, RCM_CMD_JOIN_MCAST)
#define RCM_IOCTL_LEAVE_MCAST	_IO(RCM_IOCTL_MAGIC, RCM_CMD_LEAVE_MCAST)

/**
 * struct rcm_query - ioctl(RCM_IOCTL_QUERY)
 * @size: sizeof(struct rcm_query)
 * @flags: Must be 0
 * @out_abi_version: RCM_ABI_VERSION of the running module
 * @out_num_devices: RDMA devices with an IB CM or iWARP CM port
 * @out_event_size: the file's record size from now on: min(@event_size, the
 *	module's), or the current one if @event_size is 0
 * @event_size: the record size the caller reads, a multiple of 8 from
 *	RCM_EVENT_SIZE_MIN on (EINVAL); 0 keeps the file's
 */
struct rcm_query {
	__u32 size;
	__u32 flags;
	__u32 out_abi_version;
	__u32 out_num_devices;
	__u32 out_event_size;
	__u32 event_size;
};

/* Port spaces: the values of librdmacm's enum rdma_port_space. */
enum rcm_port_space {
	RCM_PS_IPOIB = 0x0002,
	RCM_PS_IB = 0x013F,
	RCM_PS_TCP = 0x0106,
	RCM_PS_UDP = 0x0111,
};

/* QP types: libibverbs' enum ibv_qp_type (the kernel's XRC_INI, XRC_TGT). */
enum rcm_qp_type {
	RCM_QPT_RC = 2,
	RCM_QPT_UC = 3,
	RCM_QPT_UD = 4,
	RCM_QPT_XRC_SEND = 9,
	RCM_QPT_XRC_RECV = 10,
};

#define RCM_MAX_IDS		1048576	/* default of max_ids_per_file */
#define RCM_MAX_BACKLOG		1024	/* default and largest listen backlog */
#define RCM_MAX_TIMEOUT_MS	600000	/* bound on a resolution's timeout */

/* Private data limits: IB CM message areas (less rdma_cm's header), MPA's. */
#define RCM_CONNECT_PRIVATE_DATA_MAX	56	/* REQ */
#define RCM_ACCEPT_PRIVATE_DATA_MAX	196	/* REP */
#define RCM_REJECT_PRIVATE_DATA_MAX	148	/* REJ */
#define RCM_UD_CONNECT_PRIVATE_DATA_MAX	180	/* SIDR REQ */
#define RCM_UD_ACCEPT_PRIVATE_DATA_MAX	136	/* SIDR REP */
#define RCM_IWARP_PRIVATE_DATA_MAX	255	/* a driver's may be lower */
#define RCM_EVENT_PRIVATE_DATA_MAX	255	/* an event's (iWARP) */

/**
 * struct rcm_create_id - ioctl(RCM_IOCTL_CREATE_ID)
 * @size: sizeof(struct rcm_create_id)
 * @flags: Must be 0
 * @context: returned in every event of the id
 * @port_space: enum rcm_port_space
 * @qp_type: enum rcm_qp_type; as in-tree, an RCM_PS_TCP id is RC and an
 *	RCM_PS_UDP or RCM_PS_IPOIB id UD whatever this says, and an RCM_PS_IB
 *	id takes RC, UC, UD, XRC_SEND or XRC_RECV
 * @reserved: Must be 0
 * @out_id: handle of the new id
 *
 * Errors: EINVAL (unknown port space, an RCM_PS_IB QP type not listed),
 * EMFILE (the file holds max_ids_per_file ids).
 */
struct rcm_create_id {
	__u32 size;
	__u32 flags;
	__aligned_u64 context;
	__u16 port_space;
	__u8 qp_type;
	__u8 reserved;
	__u32 out_id;
};

/**
 * struct rcm_destroy_id - ioctl(RCM_IOCTL_DESTROY_ID)
 * @size: sizeof(struct rcm_destroy_id)
 * @flags: Must be 0
 * @id: the id
 * @out_events_reported: events of this id read() returned in its life
 *
 * Cancels what the id has in flight, discards its unread events and
 * frees it; never waits for userspace.
 */
struct rcm_destroy_id {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 out_events_reported;
};

/**
 * struct rcm_path - the path an id's connection will take
 * @dgid: destination GID
 * @sgid: source GID
 * @dmac: next-hop MAC address (RoCE)
 * @hop_limit: IP hop limit / TTL (RoCE v2)
 * @traffic_class: IP traffic class (the id's TOS)
 * @flow_label: IPv6 flow label / RoCE v2 UDP source port entropy
 * @pkey: partition key (0xffff on RoCE)
 * @sl: service level, from the TOS through the netdev's priority map
 * @mtu: path MTU as enum ib_mtu (1: 256 ... 5: 4096)
 * @rate: static rate as enum ib_rate (2: port current)
 * @packet_life_time: log2(4.096 us units) of the one-way packet lifetime
 * @rec_type: 0 InfiniBand, 1 RoCE v1, 2 RoCE v2
 * @reserved: 0
 * @dlid: destination LID (InfiniBand; 0 on RoCE)
 * @slid: source LID (InfiniBand; 0 on RoCE)
 */
struct rcm_path {
	__u8 dgid[16];
	__u8 sgid[16];
	__u8 dmac[6];
	__u8 hop_limit;
	__u8 traffic_class;
	__u32 flow_label;
	__u16 pkey;
	__u8 sl;
	__u8 mtu;
	__u8 rate;
	__u8 packet_life_time;
	__u8 rec_type;
	__u8 reserved;
	__u16 dlid;
	__u16 slid;
};

/**
 * struct rcm_id_info - what RCM_IOCTL_QUERY_ID reports, in bind and events
 * @port_num: port of the RDMA device, 0 when not attached
 * @num_paths: 1 once a path is resolved (RoCE) or, on a request id, from the
 *	REQ (as in-tree), else 0
 * @node_guid: node GUID of the RDMA device (network order), 0 when not
 *	attached
 * @sgid: the source GID the id uses, zero when not attached
 * @src: local address, a sockaddr_in or sockaddr_in6; family 0 when unbound
 *	and for AF_IB (RCM_IOCTL_QUERY_ID's @out_src has it)
 * @dst: remote address, the same way
 * @path: the path when @num_paths is 1
 * @flags: RCM_ID_INFO_IBDEV_INDEX when @ibdev_index is set (attached)
 * @ibdev_index: the kernel's index of the RDMA device, as
 *	ibv_get_device_index(): tells apart equal node GUIDs
 */
struct rcm_id_info {
	__u32 port_num;
	__u32 num_paths;
	__aligned_be64 node_guid;
	__u8 sgid[16];
	__u8 src[28];
	__u8 dst[28];
	struct rcm_path path;
	__u32 flags;
	__u32 ibdev_index;
};

#define RCM_ID_INFO_IBDEV_INDEX		(1U << 0)

/**
 * struct rcm_bind_addr - ioctl(RCM_IOCTL_BIND_ADDR)
 * @size: sizeof(struct rcm_bind_addr)
 * @flags: Must be 0
 * @id: the id, which must not be bound yet
 * @reserved: Must be 0
 * @addr: a sockaddr_in or sockaddr_in6 (the rest zero; port 0: an ephemeral
 *	one; link-local needs its scope id), or a sockaddr_ib: its GID names an
 *	IB port, its service ID and mask the port space and port, its P_Key the
 *	partition
 * @out_info: the id once bound: the port taken, the device attached
 *
 * A specific address also attaches the id to the device and port that
 * own it. Errors: EINVAL (already bound, link-local without scope,
 * non-zero bytes after the sockaddr), EAFNOSUPPORT, EADDRNOTAVAIL (not
 * local, or no free port), ENODEV (no RDMA device owns the address; an
 * AF_IB GID of no InfiniBand port), EPROTONOSUPPORT (an AF_IB service
 * ID of no port space the id may use), EACCES (port below 1024 without
 * CAP_NET_BIND_SERVICE), EADDRINUSE.
 */
struct rcm_bind_addr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
	struct __kernel_sockaddr_storage addr;
	struct rcm_id_info out_info;
};

/**
 * struct rcm_resolve_addr - ioctl(RCM_IOCTL_RESOLVE_ADDR)
 * @size: sizeof(struct rcm_resolve_addr)
 * @flags: Must be 0
 * @id: the id: not bound yet, or bound and not resolved
 * @timeout_ms: wait for the neighbour, 0..RCM_MAX_TIMEOUT_MS
 * @src: an unbound id is bound to it first (family 0: the wildcard of @dst's
 *	family, ephemeral port)
 * @dst: destination, AF_INET, AF_INET6 or AF_IB (its GID is used as given: no
 *	neighbour to resolve; the source port is the bound one, else the port
 *	with that GID or on its subnet prefix)
 *
 * Completes with RCM_EVENT_ADDR_RESOLVED or RCM_EVENT_ADDR_ERROR.
 * Errors: those of RCM_IOCTL_BIND_ADDR, EINVAL (resolved or resolving,
 * timeout out of range, @src and @dst of different families),
 * ENETUNREACH (no route).
 */
struct rcm_resolve_addr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 timeout_ms;
	struct __kernel_sockaddr_storage src;
	struct __kernel_sockaddr_storage dst;
};

/**
 * struct rcm_query_id - ioctl(RCM_IOCTL_QUERY_ID)
 * @size: sizeof(struct rcm_query_id)
 * @flags: Must be 0
 * @id: the id
 * @out_port_num: as struct rcm_id_info's @port_num
 * @out_node_guid: @node_guid
 * @out_sgid: @sgid
 * @out_src: @src, as a sockaddr_storage (an AF_IB id's sockaddr_ib)
 * @out_dst: @dst, the same way
 * @out_num_paths: @num_paths
 * @out_reserved: 0
 * @out_path: @path
 * @out_flags: @flags
 * @out_ibdev_index: @ibdev_index
 */
struct rcm_query_id {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 out_port_num;
	__aligned_be64 out_node_guid;
	__u8 out_sgid[16];
	struct __kernel_sockaddr_storage out_src;
	struct __kernel_sockaddr_storage out_dst;
	__u32 out_num_paths;
	__u32 out_reserved;
	struct rcm_path out_path;
	__u32 out_flags;
	__u32 out_ibdev_index;
};

/**
 * struct rcm_resolve_route - ioctl(RCM_IOCTL_RESOLVE_ROUTE)
 * @size: sizeof(struct rcm_resolve_route)
 * @flags: Must be 0
 * @id: the id, whose address is resolved
 * @timeout_ms: bound on the SA's path query on InfiniBand,
 *	0..RCM_MAX_TIMEOUT_MS
 *
 * On RoCE and iWARP, RCM_EVENT_ROUTE_RESOLVED is queued before the call
 * returns. On InfiniBand the SA's PathRecord answer comes later:
 * RCM_EVENT_ROUTE_RESOLVED, or RCM_EVENT_ROUTE_ERROR with ib_sa's status
 * (-EINVAL for an SA error status, -ETIMEDOUT) and the id back in its
 * address-resolved state; a destroy or the device's removal cancels the
 * query. Errors: EINVAL (address not resolved, already routed or
 * routing, timeout out of range), ENODEV (the netdev is gone).
 */
struct rcm_resolve_route {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 timeout_ms;
};

/* Option levels and names: the values of librdmacm's. */
enum rcm_option_level {
	RCM_OPTION_ID = 0,
	RCM_OPTION_IB = 1,
};

/**
 * enum rcm_option_ib - options of level RCM_OPTION_IB
 * @RCM_OPTION_IB_PATH: the route: @value points at @optlen bytes of struct
 *	ib_path_rec_data (librdmacm's ibv_path_data); the first record whose
 *	flags are IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL is the
 *	path (on RoCE the id's GID type and next-hop MAC replace the record's).
 *	On an id whose address is resolved, which becomes ROUTE_RESOLVED and
 *	queues that event, as in-tree.
 */
enum rcm_option_ib {
	RCM_OPTION_IB_PATH = 1,
};

/**
 * enum rcm_option_id - options of level RCM_OPTION_ID
 * @RCM_OPTION_ID_TOS: 0..255, the type of service of routes resolved
 *	afterwards; any state
 * @RCM_OPTION_ID_REUSEADDR: 0 or 1, share the port with other REUSEADDR ids;
 *	not turned on while listening, nor off once bound
 * @RCM_OPTION_ID_AFONLY: 0 or 1, an IPv6 id shares no port with IPv4 ids;
 *	before the id listens or resolves
 * @RCM_OPTION_ID_ACK_TIMEOUT: 0..31, local ACK timeout (4.096 us * 2^value) of
 *	RC and XRC_SEND ids
 * @RCM_OPTION_ID_RESOLVE_TIMEOUT: 0 or 1..RCM_MAX_TIMEOUT_MS, replaces the
 *	timeout_ms of later resolutions; any state
 * @RCM_OPTION_ID_CONNECT_TIMEOUT: 0 or 1..RCM_MAX_TIMEOUT_MS, the longest an
 *	IB CM request waits for its answer; before the id connects or accepts
 * @RCM_OPTION_ID_QKEY: the Q_Key of a UD id (bit 31 clear); before it
 *	connects, accepts or joins
 */
enum rcm_option_id {
	RCM_OPTION_ID_TOS = 0,
	RCM_OPTION_ID_REUSEADDR = 1,
	RCM_OPTION_ID_AFONLY = 2,
	RCM_OPTION_ID_ACK_TIMEOUT = 3,
	/* rcm's own, outside librdmacm's numbering */
	RCM_OPTION_ID_RESOLVE_TIMEOUT = 0x100,
	RCM_OPTION_ID_CONNECT_TIMEOUT = 0x101,
	RCM_OPTION_ID_QKEY = 0x102,
};

#define RCM_UDP_QKEY 0x01234567	/* RCM_PS_UDP ids' unless set, as in-tree */

/**
 * struct rcm_set_option - ioctl(RCM_IOCTL_SET_OPTION)
 * @size: sizeof(struct rcm_set_option)
 * @flags: Must be 0
 * @id: the id
 * @level: enum rcm_option_level
 * @optname: enum rcm_option_id or enum rcm_option_ib
 * @optlen: the bytes @value points at (RCM_OPTION_IB_PATH); Must be 0 for the
 *	options of RCM_OPTION_ID
 * @value: the option's value, or a pointer to it (RCM_OPTION_IB_PATH)
 *
 * Errors: ENOPROTOOPT (unknown level or option name), EINVAL (value out
 * of range, a state or QP type the option does not allow; IB_PATH: no
 * whole records, none of a route, an iWARP id), ENODEV (IB_PATH on
 * RoCE: the netdev is gone).
 */
struct rcm_set_option {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 level;
	__u32 optname;
	__u32 optlen;
	__aligned_u64 value;
};

/**
 * struct rcm_listen - ioctl(RCM_IOCTL_LISTEN)
 * @size: sizeof(struct rcm_listen)
 * @flags: Must be 0
 * @id: the id (an unbound one is bound to the IPv4 wildcard first)
 * @backlog: requests whose CONNECT_REQUEST may wait unread at once; 0 or above
 *	RCM_MAX_BACKLOG means RCM_MAX_BACKLOG
 *
 * Listens on the id's address and port: on the device of a specific
 * address, on every device (also those added later) for a wildcard.
 * Each request arrives as RCM_EVENT_CONNECT_REQUEST on a new id of the
 * same file. Errors: EINVAL (state), EADDRINUSE (the address is taken,
 * another CM listens on the service ID, or on iWARP a TCP socket holds
 * the port), EADDRNOTAVAIL (a wildcard conflict), ENODEV, EOPNOTSUPP (a
 * UD id on iWARP; an RCM_PS_IPOIB id).
 */
struct rcm_listen {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 backlog;
};

/* IB CM reject reasons userspace may send. */
#define RCM_REJ_CONSUMER_DEFINED 28
#define RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED 35

/**
 * struct rcm_reject - ioctl(RCM_IOCTL_REJECT)
 * @size: sizeof(struct rcm_reject)
 * @flags: Must be 0
 * @id: an unanswered request id, or an active id that reported
 *	RCM_EVENT_CONNECT_RESPONSE and is not established
 * @reason: 0 or RCM_REJ_CONSUMER_DEFINED, or
 *	RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED (not sent on iWARP)
 * @private_data_len: bytes at @private_data, at most
 *	RCM_REJECT_PRIVATE_DATA_MAX (IB CM) or RCM_IWARP_PRIVATE_DATA_MAX
 *	(iWARP)
 * @reserved: Must be 0
 * @private_data: user pointer (ignored when @private_data_len is 0)
 *
 * Refuses the request (or, on the active side, the accepted connection):
 * the peer gets REJECTED with @reason and the private data. Errors:
 * EINVAL (nothing to answer, bad reason, too much private data).
 */
struct rcm_reject {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reason;
	__u32 private_data_len;
	__u32 reserved;
	__aligned_u64 private_data;
};

/**
 * struct rcm_accept - ioctl(RCM_IOCTL_ACCEPT)
 * @size: sizeof(struct rcm_accept)
 * @flags: Must be 0
 * @id: an id created by RCM_EVENT_CONNECT_REQUEST, not yet answered
 * @qp_num: the number of the QP that will carry the connection (24 bits)
 * @context: the user's value for this id's events from now on
 * @responder_resources: RDMA reads/atomics this side serves at once (at most
 *	the device's max_qp_rd_atom)
 * @initiator_depth: RDMA reads/atomics this side issues at once (at most the
 *	device's max_qp_init_rd_atom)
 * @flow_control: this side's receive queue is flow controlled
 * @rnr_retry_count: RNR retries the peer should make, 0..7 (7 and above:
 *	infinite)
 * @srq: the QP uses a shared receive queue
 * @reserved: Must be 0
 * @private_data_len: bytes at @private_data, at most
 *	RCM_ACCEPT_PRIVATE_DATA_MAX
 * @reserved2: Must be 0
 * @private_data: user pointer (ignored when @private_data_len is 0)
 * @ece_vendor_id: the ECE vendor ID the REP carries (IB CM: its low 24 bits;
 *	0: none)
 * @ece_attr_mod: the ECE options the REP carries
 *
 * Sends the IB CM REP (iWARP: the MPA reply; UD: the SIDR REP). The
 * connection is up at RCM_EVENT_ESTABLISHED, or fails with
 * RCM_EVENT_UNREACHABLE or RCM_EVENT_REJECTED. Errors: EINVAL (not an
 * unanswered request, a value out of range, too much private data,
 * @qp_num above 24 bits or, on iWARP, not a QP of the device in RESET or
 * INIT), ECONNRESET (iWARP: the peer gave up).
 */
struct rcm_accept {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 qp_num;
	__aligned_u64 context;
	__u8 responder_resources;
	__u8 initiator_depth;
	__u8 flow_control;
	__u8 rnr_retry_count;
	__u8 srq;
	__u8 reserved[3];
	__u32 private_data_len;
	__u32 reserved2;
	__aligned_u64 private_data;
	__u32 ece_vendor_id;
	__u32 ece_attr_mod;
};

/**
 * struct rcm_disconnect - ioctl(RCM_IOCTL_DISCONNECT)
 * @size: sizeof(struct rcm_disconnect)
 * @flags: Must be 0
 * @id: a request id, or an id that sent a connection request
 * @reserved: Must be 0
 *
 * Sends a DREQ, or the DREP to the peer's DREQ (iWARP: closes).
 * RCM_EVENT_DISCONNECTED follows once, then RCM_EVENT_TIMEWAIT_EXIT
 * (IB CM). With nothing to end (again, after REJECTED, before the
 * connection is up) it succeeds and sends nothing. Errors: EINVAL (the
 * id never sent or received a request).
 */
struct rcm_disconnect {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
};

/**
 * struct rcm_connect - ioctl(RCM_IOCTL_CONNECT)
 * @size: sizeof(struct rcm_connect)
 * @flags: Must be 0
 * @id: an id whose route is resolved
 * @qp_num: the number of the QP that will carry the connection (24 bits)
 * @responder_resources: as in struct rcm_accept
 * @initiator_depth: as in struct rcm_accept
 * @flow_control: this side's receive queue is flow controlled (0 or 1)
 * @retry_count: transport retries the QPs make, 0..7 (above: 7)
 * @rnr_retry_count: RNR retries the peer should make, 0..7 (7: infinite)
 * @srq: the QP uses a shared receive queue (0 or 1)
 * @reserved: Must be 0
 * @private_data_len: bytes at @private_data, at most
 *	RCM_CONNECT_PRIVATE_DATA_MAX (IB CM) or RCM_IWARP_PRIVATE_DATA_MAX
 *	(iWARP)
 * @reserved2: Must be 0
 * @private_data: user pointer (ignored when @private_data_len is 0)
 * @ece_vendor_id: the ECE vendor ID the REQ carries (IB CM: its low 24 bits;
 *	0: none)
 * @ece_attr_mod: the ECE options the REQ carries
 *
 * Sends an IB CM REQ for the id's service ID with the in-tree rdma_cm's
 * 36-byte address header (iWARP: an MPA request; UD: a SIDR REQ). The
 * answer is RCM_EVENT_CONNECT_RESPONSE (move the QP to RTR and RTS, then
 * RCM_IOCTL_ESTABLISH; on iWARP and UD: RCM_EVENT_ESTABLISHED),
 * RCM_EVENT_REJECTED or RCM_EVENT_UNREACHABLE. Errors: EINVAL (route not
 * resolved, a value out of range, too much private data, on iWARP
 * @qp_num not a QP of the device in RESET or INIT), EOPNOTSUPP (UD on
 * iWARP, RCM_PS_IPOIB); on iWARP also the driver's refusal or timeout.
 */
struct rcm_connect {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 qp_num;
	__u8 responder_resources;
	__u8 initiator_depth;
	__u8 flow_control;
	__u8 retry_count;
	__u8 rnr_retry_count;
	__u8 srq;
	__u8 reserved[2];
	__u32 private_data_len;
	__u32 reserved2;
	__aligned_u64 private_data;
	__u32 ece_vendor_id;
	__u32 ece_attr_mod;
};

/**
 * struct rcm_establish - ioctl(RCM_IOCTL_ESTABLISH)
 * @size: sizeof(struct rcm_establish)
 * @flags: Must be 0
 * @id: an id that reported RCM_EVENT_CONNECT_RESPONSE
 * @reserved: Must be 0
 *
 * Sends the IB CM RTU once the caller's QP is in RTS; the connection is
 * up when the call returns, with no event. Errors: EINVAL (no accepted
 * connect awaiting its RTU; always on iWARP).
 */
struct rcm_establish {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
};

/* QP states: the values of libibverbs' enum ibv_qp_state. */
enum rcm_qp_state {
	RCM_QPS_INIT = 1,
	RCM_QPS_RTR = 2,
	RCM_QPS_RTS = 3,
};

/**
 * struct rcm_ah_attr - libibverbs' ibv_ah_attr members, under their names
 * @dgid: destination GID (RoCE: the kernel resolves the next-hop MAC from
 *	it when the QP is modified)
 * @flow_label: IPv6 flow label
 * @sgid_index: index of the source GID in the port's GID table
 * @hop_limit: IP hop limit
 * @traffic_class: IP traffic class
 * @sl: service level
 * @dlid: destination LID (InfiniBand; 0 on RoCE)
 * @src_path_bits: source path bits (InfiniBand)
 * @static_rate: enum ibv_rate
 * @is_global: a GRH is used (always 1 on RoCE)
 * @port_num: port of the device
 * @reserved: 0
 */
struct rcm_ah_attr {
	__u8 dgid[16];
	__u32 flow_label;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;
	__u16 dlid;
	__u8 src_path_bits;
	__u8 static_rate;
	__u8 is_global;
	__u8 port_num;
	__u8 reserved[2];
};

/**
 * struct rcm_qp_attr - QP attributes for one state transition
 * @qp_attr_mask: the attributes that are valid, as enum ibv_qp_attr_mask bits
 *	(IBV_QP_STATE, IBV_QP_AV, ...): pass it to ibv_modify_qp() as is
 * @qp_state: enum rcm_qp_state
 * @path_mtu: enum ibv_mtu
 * @qkey: Q_Key (UD)
 * @rq_psn: first PSN the receive queue expects
 * @sq_psn: first PSN the send queue sends
 * @dest_qp_num: the peer's QP number
 * @qp_access_flags: enum ibv_access_flags bits
 * @pkey_index: index of the partition key
 * @port_num: port of the device
 * @max_rd_atomic: RDMA reads/atomics the QP issues at once
 * @max_dest_rd_atomic: RDMA reads/atomics the QP serves at once
 * @min_rnr_timer: RNR NAK timer code
 * @timeout: local ACK timeout, 4.096 us * 2^timeout
 * @retry_cnt: transport retries
 * @rnr_retry: RNR retries (7: infinite)
 * @reserved: 0
 * @ah_attr: the path to the peer
 */
struct rcm_qp_attr {
	__u32 qp_attr_mask;
	__u32 qp_state;
	__u32 path_mtu;
	__u32 qkey;
	__u32 rq_psn;
	__u32 sq_psn;
	__u32 dest_qp_num;
	__u32 qp_access_flags;
	__u16 pkey_index;
	__u8 port_num;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 reserved[3];
	struct rcm_ah_attr ah_attr;
};

/**
 * struct rcm_init_qp_attr - ioctl(RCM_IOCTL_INIT_QP_ATTR)
 * @size: sizeof(struct rcm_init_qp_attr)
 * @flags: Must be 0
 * @id: the id
 * @qp_states: the states wanted, a mask of (1 << enum rcm_qp_state) bits
 * @out_attr: for each state S asked for, the attributes that move a QP into S,
 *	at index S - 1; the other entries are zero
 * @reserved: Must be 0
 *
 * The attributes for ibv_modify_qp() into each state asked for: INIT
 * needs an id attached to a device, RTR and RTS a request received or a
 * RCM_EVENT_CONNECT_RESPONSE (a UD id: attached, any state). Errors:
 * EINVAL (no state, a state other than INIT/RTR/RTS, or one the id is
 * not ready for).
 */
struct rcm_init_qp_attr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 qp_states;
	struct rcm_qp_attr out_attr[3];
	__u32 reserved;
};

#define RCM_NOTIFY_COMM_EST 4	/* ibv_event_type's IBV_EVENT_COMM_EST */

/**
 * struct rcm_notify - ioctl(RCM_IOCTL_NOTIFY)
 * @size: sizeof(struct rcm_notify)
 * @flags: Must be 0
 * @id: an id whose connection is accepted (passive side)
 * @event: the QP's asynchronous event, an ibv_event_type value
 *
 * Passes a QP's asynchronous event to the CM, as rdma_notify() does:
 * RCM_NOTIFY_COMM_EST (data before the RTU) establishes the connection
 * with RCM_EVENT_ESTABLISHED; IB_EVENT_PATH_MIG moves it to its
 * alternate path; on iWARP every event is 0 and does nothing. Errors:
 * EISCONN (COMM_EST when established), EINVAL (no connection waiting
 * for its RTU, another event).
 */
struct rcm_notify {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 event;
};

/**
 * struct rcm_migrate_id - ioctl(RCM_IOCTL_MIGRATE_ID)
 * @size: sizeof(struct rcm_migrate_id)
 * @flags: Must be 0
 * @id: the id to move
 * @fd: the destination, an open rcm file of the caller
 * @out_id: the id's handle in the destination file
 * @out_events_reported: events of this id read() returned (from either
 *	file) in its life
 *
 * Moves the id and its unread events (a listener: also its unread
 * requests and their ids) to another rcm file; the old handle names
 * nothing. Errors: EBADF (@fd not open), EINVAL (not an rcm file),
 * EMFILE (no room in the destination), EBUSY (a request id whose
 * CONNECT_REQUEST is unread).
 */
struct rcm_migrate_id {
	__u32 size;
	__u32 flags;
	__u32 id;
	__s32 fd;
	__u32 out_id;
	__u32 out_events_reported;
};

/* Join flags: the values of librdmacm's enum rdma_cm_mc_join_flags. */
enum rcm_mcast_join_flags {
	RCM_MC_JOIN_FULLMEMBER = 0,
	RCM_MC_JOIN_SENDONLY_FULLMEMBER = 1,
};

/**
 * struct rcm_join_mcast - ioctl(RCM_IOCTL_JOIN_MCAST)
 * @size: sizeof(struct rcm_join_mcast)
 * @flags: Must be 0
 * @id: a UD id attached to a device (bound to its address, or resolved)
 * @join_flags: enum rcm_mcast_join_flags
 * @context: the user's value for this group's events
 * @addr: the group's IPv4 or IPv6 address (port ignored), or an AF_IB
 *	address whose GID is the MGID (zero: the SA assigns one)
 *
 * Joins the group on the id's device and port: on RoCE locally (and the
 * IP group on the netdev), on InfiniBand with an MCMemberRecord Set to
 * the SA. The result is RCM_EVENT_MULTICAST_JOIN with the group's UD
 * parameters (on InfiniBand the SA's: its MLID is the DLID), or
 * RCM_EVENT_MULTICAST_ERROR with the SA's error. Errors: EINVAL (not a
 * UD id, not attached, not a multicast address, unknown @join_flags),
 * EOPNOTSUPP (an IPv6 group on RoCE v2; iWARP), ENODEV, ENOBUFS (also:
 * max_mcast_per_file groups).
 */
struct rcm_join_mcast {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 join_flags;
	__aligned_u64 context;
	struct __kernel_sockaddr_storage addr;
};

/**
 * struct rcm_leave_mcast - ioctl(RCM_IOCTL_LEAVE_MCAST)
 * @size: sizeof(struct rcm_leave_mcast)
 * @flags: Must be 0
 * @id: the id that joined
 * @out_events_reported: events of this group that read() returned
 * @addr: the group's address, as given to RCM_IOCTL_JOIN_MCAST
 *
 * Leaves the group and discards its unread events. Errors: ENOENT (the
 * id has not joined @addr), EINVAL.
 */
struct rcm_leave_mcast {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 out_events_reported;
	struct __kernel_sockaddr_storage addr;
};

/**
 * DOC: rcm events
 *
 * read() returns as many whole records as fit (a buffer smaller than
 * one: EINVAL), in the order the events happened; with none queued it
 * blocks, or fails with EAGAIN on an O_NONBLOCK file. poll() reports
 * EPOLLIN | EPOLLRDNORM while an event is queued.
 *
 * The record is struct rcm_event, RCM_EVENT_SIZE bytes from open() on.
 * It grows at its end only; RCM_IOCTL_QUERY's @event_size sets another
 * size (at least RCM_EVENT_SIZE_MIN). A shorter record is the first
 * bytes of the module's, except that @qp_attr_valid and @id_info_len
 * read 0 when what they describe does not fit; @private_data_len counts
 * what did not fit too.
 *
 * Some events carry what a command would have returned for their id when
 * they were queued (left out when the kernel had no memory for it):
 *
 * ========================== =========================================
 * RCM_EVENT_ADDR_RESOLVED    @id_info; @qp_attr INIT
 * RCM_EVENT_ROUTE_RESOLVED   @id_info; @qp_attr INIT
 * RCM_EVENT_CONNECT_REQUEST  @id_info of the request id; @qp_attr INIT,
 *                            RTR and RTS (RC, UC and XRC over the IB CM)
 * RCM_EVENT_CONNECT_RESPONSE @qp_attr INIT, RTR and RTS
 * ========================== =========================================
 */

/**
 * enum rcm_event_type - what an event reports (librdmacm's values)
 * @RCM_EVENT_ADDR_RESOLVED: the address is resolved; status 0
 * @RCM_EVENT_ADDR_ERROR: status -ETIMEDOUT, -ENODEV or the address service's
 *	negative errno
 * @RCM_EVENT_ROUTE_RESOLVED: the path is built; status 0
 * @RCM_EVENT_ROUTE_ERROR: the SA's path query failed (InfiniBand)
 * @RCM_EVENT_CONNECT_REQUEST: a request for a listener, on a new id
 * @RCM_EVENT_CONNECT_RESPONSE: the peer accepted (IB CM REP)
 * @RCM_EVENT_CONNECT_ERROR: an iWARP connect failed otherwise (an errno)
 * @RCM_EVENT_UNREACHABLE: no answer (-ETIMEDOUT; -EHOSTUNREACH or -ENETUNREACH
 *	on iWARP), or a SIDR reply's positive status
 * @RCM_EVENT_REJECTED: the peer refused: the IB CM reject reason (positive),
 *	or a negative errno on iWARP
 * @RCM_EVENT_ESTABLISHED: the connection is up, or a SIDR reply's QP (@ud)
 * @RCM_EVENT_DISCONNECTED: the connection is down; once per connection
 * @RCM_EVENT_DEVICE_REMOVAL: the id's device is going away (then ENXIO)
 * @RCM_EVENT_MULTICAST_JOIN: a join succeeded; @ud is the group's
 * @RCM_EVENT_MULTICAST_ERROR: a join failed; a negative errno
 * @RCM_EVENT_ADDR_CHANGE: the link-layer address of the id's netdev changed
 * @RCM_EVENT_TIMEWAIT_EXIT: the QP of an IB CM connection may be reused
 */
enum rcm_event_type {
	RCM_EVENT_ADDR_RESOLVED,
	RCM_EVENT_ADDR_ERROR,
	RCM_EVENT_ROUTE_RESOLVED,
	RCM_EVENT_ROUTE_ERROR,
	RCM_EVENT_CONNECT_REQUEST,
	RCM_EVENT_CONNECT_RESPONSE,
	RCM_EVENT_CONNECT_ERROR,
	RCM_EVENT_UNREACHABLE,
	RCM_EVENT_REJECTED,
	RCM_EVENT_ESTABLISHED,
	RCM_EVENT_DISCONNECTED,
	RCM_EVENT_DEVICE_REMOVAL,
	RCM_EVENT_MULTICAST_JOIN,
	RCM_EVENT_MULTICAST_ERROR,
	RCM_EVENT_ADDR_CHANGE,
	RCM_EVENT_TIMEWAIT_EXIT,
};

/**
 * struct rcm_conn_param - connection parameters carried by an event
 * @qp_num: the peer's QP number
 * @responder_resources: RDMA reads and atomics this side may serve at once
 *	(for a request: the peer's initiator depth)
 * @initiator_depth: RDMA reads and atomics this side may issue at once (for a
 *	request: the peer's responder resources)
 * @flow_control: the peer's receive queue is flow controlled
 * @retry_count: transport retries, 0..7
 * @rnr_retry_count: RNR retries, 0..7 (7: infinite)
 * @srq: the peer's QP uses a shared receive queue
 * @reserved: 0
 */
struct rcm_conn_param {
	__u32 qp_num;
	__u8 responder_resources;
	__u8 initiator_depth;
	__u8 flow_control;
	__u8 retry_count;
	__u8 rnr_retry_count;
	__u8 srq;
	__u8 reserved[2];
};

#define RCM_MCAST_QPN 0xffffff	/* the remote QP number of a group's events */

/**
 * struct rcm_ud_param - datagram parameters carried by an event
 * @qp_num: the remote QP number; RCM_MCAST_QPN for a multicast group
 * @qkey: the Q_Key to send with
 * @ah_attr: the address vector to reach the peer or the group with; on RoCE
 *	@ah_attr.dgid is the peer's GID or the group's MGID
 */
struct rcm_ud_param {
	__u32 qp_num;
	__u32 qkey;
	struct rcm_ah_attr ah_attr;
};

/**
 * struct rcm_event - one event record returned by read()
 * @context: the id's context; for RCM_EVENT_CONNECT_REQUEST the listening
 *	id's, for RCM_EVENT_MULTICAST_* the one given to RCM_IOCTL_JOIN_MCAST
 * @id: the id; for RCM_EVENT_CONNECT_REQUEST, the new id of the request
 * @event: enum rcm_event_type
 * @status: 0, a negative errno, or a positive reject reason
 * @listen_id: for RCM_EVENT_CONNECT_REQUEST, the listening id; else 0
 * @conn: connection parameters of CONNECT_REQUEST and CONNECT_RESPONSE; on
 *	iWARP of CONNECT_REQUEST and ESTABLISHED, the MPA IRD and ORD only
 * @ud: instead of @conn for UD ids: ESTABLISHED after a SIDR REP (the
 *	peer's QP), MULTICAST_JOIN (the group); zero for CONNECT_REQUEST
 * @ece_vendor_id: the ECE vendor ID of the peer's REQ or REP (IB CM
 *	CONNECT_REQUEST and CONNECT_RESPONSE; 0: none)
 * @ece_attr_mod: the ECE options of that REQ or REP
 * @qp_attr_valid: a mask of (1 << enum rcm_qp_state) bits: bit S set, the
 *	set of state S is at index S - 1 of @qp_attr
 * @id_info_len: sizeof(struct rcm_id_info) when @id_info is carried, else 0
 * @private_data_len: the valid bytes of @private_data: the IB CM message's
 *	whole area (it carries no length), on iWARP what the peer sent
 * @reserved: 0
 * @private_data: what the peer sent with the message, zero padded
 * @head: the members above, in every record
 * @qp_attr: RCM_IOCTL_INIT_QP_ATTR's @out_attr for the id, for the states
 *	in @qp_attr_valid (a state it would refuse is left out)
 * @id_info: RCM_IOCTL_QUERY_ID's answer for the id (CONNECT_REQUEST: the
 *	request id) when @id_info_len says so; else zeros
 */
struct rcm_event {
	__struct_group(rcm_event_head, head, /* no attributes */,
		__aligned_u64 context;
		__u32 id;
		__u32 event;
		__s32 status;
		__u32 listen_id;
		union {
			struct rcm_conn_param conn;
			struct rcm_ud_param ud;
		};
		__u32 ece_vendor_id;
		__u32 ece_attr_mod;
		__u32 qp_attr_valid;
		__u32 id_info_len;
		__u8 private_data_len;
		__u8 reserved[7];
		__u8 private_data[RCM_EVENT_PRIVATE_DATA_MAX + 1];
	);
	struct rcm_qp_attr qp_attr[3];
	struct rcm_id_info id_info;
};

/* sizeof(struct rcm_event); the smallest record ends before @private_data. */
#define RCM_EVENT_SIZE 728
#define RCM_EVENT_SIZE_MIN 88

#endif /* _UAPI_RDMA_RCM_USER_H */
