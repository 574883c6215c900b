/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rcm: RDMA connection manager character device, userspace ABI.
 */
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
 * Every command is an ioctl numbered ``_IO(RCM_IOCTL_MAGIC, RCM_CMD_*)``
 * whose argument points to a command struct. The first member of every
 * command struct is ``__u32 size``: userspace sets it to the size of the
 * struct it was compiled with, which lets a struct grow at its end without
 * a new command number:
 *
 * - a size smaller than the struct of ABI version 2 (this header's)
 *   rejects the call with EINVAL;
 * - a size larger than the kernel knows is accepted only if every byte the
 *   kernel does not know is zero, else E2BIG; sizes above 4096 always fail
 *   with E2BIG;
 * - output members (``out_`` prefix) are written back only up to ``size``,
 *   and only when the command succeeds; nothing else is ever written, so
 *   a command without outputs may take its struct from read-only memory.
 *
 * The second member is ``__u32 flags``; unknown flag bits fail with
 * EOPNOTSUPP. Input members named ``reserved`` or ``reserved2`` must be
 * zero, else EINVAL; output members named ``out_reserved`` and the
 * ``reserved`` members of the structs an event or command returns are
 * written as zero.
 *
 * Errors common to every command:
 *
 * ========== ==========================================================
 * ENOTTY     unknown ioctl number (or not an rcm file)
 * EFAULT     the argument, or a pointer inside it, is not accessible
 * EINVAL     size below the minimum, reserved member not zero, or a
 *            value outside its documented range
 * E2BIG      size above 4096, or above what the kernel knows with
 *            non-zero tail bytes
 * EOPNOTSUPP a flag bit (no command takes one yet)
 * ENOMEM     the kernel could not allocate what the command needs
 *            (nothing changed)
 * ENXIO      the id's RDMA device was removed (the id reported
 *            RCM_EVENT_DEVICE_REMOVAL): a command that acts on the id,
 *            other than RCM_IOCTL_DESTROY_ID and RCM_IOCTL_QUERY_ID,
 *            fails so, as with the in-tree ucma, which closes the id
 * ========== ==========================================================
 *
 * Commands add their own errno values in their own documentation.
 */

/*
 * The ABI version, also in /sys/class/misc/rcm/abi_version. Frozen at 2:
 * the ABI grows by size and never breaks, so this number never changes
 * again. Command structs grow through their size member, the event
 * record through RCM_IOCTL_QUERY's @event_size (see "rcm events").
 */
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

/**
 * struct rcm_query - ioctl(RCM_IOCTL_QUERY)
 * @size: sizeof(struct rcm_query)
 * @flags: Must be 0
 * @out_abi_version: RCM_ABI_VERSION of the running module
 * @out_num_devices: number of RDMA devices that rcm currently manages
 *                   (those with at least one IB CM or iWARP CM port)
 * @out_event_size: the size of each record read() returns on this file
 *                  from now on: @event_size if the module's struct
 *                  rcm_event is at least that large, else the module's
 *                  record size; the file's current size when
 *                  @event_size is 0
 * @event_size: the record size the caller reads, normally the
 *              sizeof(struct rcm_event) it was compiled with: a multiple
 *              of 8, at least RCM_EVENT_SIZE_MIN. 0 keeps the file's
 *              record size (RCM_EVENT_SIZE until changed)
 *
 * Tells userspace which ABI the module speaks and sets the size of the
 * event records of this file (see "rcm events"). A caller that knows a
 * larger record than the module's learns it from @out_event_size being
 * smaller than its @event_size. Errors: EINVAL (@event_size not 0 and
 * below RCM_EVENT_SIZE_MIN or not a multiple of 8).
 */
struct rcm_query {
	__u32 size;
	__u32 flags;
	__u32 out_abi_version;
	__u32 out_num_devices;
	__u32 out_event_size;
	__u32 event_size;
};

#define RCM_IOCTL_QUERY _IO(RCM_IOCTL_MAGIC, RCM_CMD_QUERY)

/* Port spaces: the values of librdmacm's enum rdma_port_space. */
enum rcm_port_space {
	RCM_PS_IPOIB = 0x0002,
	RCM_PS_IB = 0x013F,
	RCM_PS_TCP = 0x0106,
	RCM_PS_UDP = 0x0111,
};

/*
 * QP types: the values of libibverbs' enum ibv_qp_type (and of the
 * kernel's enum ib_qp_type: XRC_SEND is its XRC_INI, XRC_RECV its
 * XRC_TGT).
 */
enum rcm_qp_type {
	RCM_QPT_RC = 2,
	RCM_QPT_UC = 3,
	RCM_QPT_UD = 4,
	RCM_QPT_XRC_SEND = 9,
	RCM_QPT_XRC_RECV = 10,
};

/**
 * struct rcm_create_id - ioctl(RCM_IOCTL_CREATE_ID)
 * @size: sizeof(struct rcm_create_id)
 * @flags: Must be 0
 * @context: opaque user value, returned in every event of the id
 * @port_space: enum rcm_port_space
 * @qp_type: enum rcm_qp_type; as in-tree, an RCM_PS_TCP id is RC and an
 *           RCM_PS_UDP or RCM_PS_IPOIB id UD whatever this says, and an
 *           RCM_PS_IB id takes RC, UC, UD, XRC_SEND or XRC_RECV
 * @reserved: Must be 0
 * @out_id: handle of the new id, valid in this open file only
 *
 * Creates a communication identifier owned by the file. A connected id
 * (RC, UC, XRC) connects with a REQ of its QP type and listens for REQs
 * of its type only (an XRC_RECV listener for XRC_SEND peers), as the
 * in-tree CM matches them; the QP attributes RCM_IOCTL_INIT_QP_ATTR
 * gives are those of the type (UC: no RDMA reads or atomics, no retry
 * counts). Errors: EINVAL for an unknown port space or an RCM_PS_IB QP
 * type not listed;
 * EMFILE when the file already holds as many ids as the module parameter
 * max_ids_per_file allows (RCM_MAX_IDS by default); ENOMEM.
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

#define RCM_IOCTL_CREATE_ID _IO(RCM_IOCTL_MAGIC, RCM_CMD_CREATE_ID)

/*
 * Default bound on the ids one open file holds (rcm.max_ids_per_file):
 * what only a runaway or hostile process meets; memory, charged to its
 * cgroup, is the real bound.
 */
#define RCM_MAX_IDS 1048576

/**
 * struct rcm_destroy_id - ioctl(RCM_IOCTL_DESTROY_ID)
 * @size: sizeof(struct rcm_destroy_id)
 * @flags: Must be 0
 * @id: the id to destroy
 * @out_events_reported: number of events of this id that read() has
 *                       returned, over its whole life
 *
 * Destroys the id: cancels what it has in flight, discards its events
 * that read() has not returned yet, and frees it. The handle is invalid
 * afterwards (ENOENT). Never blocks on userspace. Errors: ENOENT for a
 * handle that names no id of this file.
 */
struct rcm_destroy_id {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 out_events_reported;
};

#define RCM_IOCTL_DESTROY_ID _IO(RCM_IOCTL_MAGIC, RCM_CMD_DESTROY_ID)

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
	__u8 reserved[5];
};

/**
 * struct rcm_id_info - an id's addresses, device and path, compact
 * @port_num: port of the RDMA device, 0 when not attached
 * @num_paths: 1 once a path is resolved (RoCE) or, on a request id,
 *             from the REQ (as in-tree), else 0
 * @node_guid: node GUID of the RDMA device (network order), 0 when not
 *             attached
 * @sgid: the source GID the id uses, zero when not attached
 * @src: local address: a struct sockaddr_in or sockaddr_in6, family 0
 *       before the id is bound
 * @dst: remote address, the same way
 * @path: the path when @num_paths is 1
 * @flags: RCM_ID_INFO_IBDEV_INDEX when @ibdev_index is set (the id is
 *         attached)
 * @ibdev_index: the kernel's index of the RDMA device (what
 *               ibv_get_device_index() gives), which tells apart devices
 *               that share a node GUID
 *
 * What RCM_IOCTL_QUERY_ID reports, in a form small enough to travel
 * with the command or event that changed it: RCM_IOCTL_BIND_ADDR returns
 * it, and struct rcm_event carries it (see "rcm events"), so userspace
 * needs no query after them. 28 bytes hold a sockaddr_in6, the largest
 * address rcm takes.
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
 * @addr: a struct sockaddr_in or sockaddr_in6 (the rest zero). Port 0
 *        takes a free ephemeral port. An IPv6 link-local address needs
 *        its scope id.
 * @out_info: the id once bound: its address with the port taken, and the
 *            device it attached to, if any
 *
 * Binds the id to a local address and a port of its port space. A
 * specific address also attaches the id to the RDMA device and port
 * that own it. Errors: ENOENT (no such id), EINVAL (already bound,
 * link-local without scope, or non-zero bytes after the sockaddr),
 * EAFNOSUPPORT (family other than AF_INET/AF_INET6), EADDRNOTAVAIL (not
 * a local address, or no free port), ENODEV (no RDMA device owns the
 * address), EACCES (port below 1024 without CAP_NET_BIND_SERVICE),
 * EADDRINUSE (port taken for this address).
 */
struct rcm_bind_addr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
	struct __kernel_sockaddr_storage addr;
	struct rcm_id_info out_info;
};

#define RCM_IOCTL_BIND_ADDR _IO(RCM_IOCTL_MAGIC, RCM_CMD_BIND_ADDR)

/* Bound on the timeout of a resolution, in milliseconds. */
#define RCM_MAX_TIMEOUT_MS 600000

/**
 * struct rcm_resolve_addr - ioctl(RCM_IOCTL_RESOLVE_ADDR)
 * @size: sizeof(struct rcm_resolve_addr)
 * @flags: Must be 0
 * @id: the id: not bound yet, or bound and not resolved
 * @timeout_ms: how long to wait for the neighbour, 0..RCM_MAX_TIMEOUT_MS
 *              (0: fail unless it is known at once)
 * @src: optional source address (family 0: none); on an unbound id it
 *       is bound first, as if by RCM_IOCTL_BIND_ADDR, else the wildcard
 *       of @dst's family with an ephemeral port
 * @dst: destination, AF_INET or AF_INET6
 *
 * Starts resolving @dst to a local RDMA device, port and next hop. It
 * completes with one RCM_EVENT_ADDR_RESOLVED (status 0), or
 * RCM_EVENT_ADDR_ERROR with a negative errno: ETIMEDOUT (no neighbour
 * answer in time), ENODEV (no RDMA device behind the route's netdev),
 * or another negative errno from the kernel's address service. After
 * ADDR_RESOLVED the id is bound to the source address the route chose;
 * after ADDR_ERROR it is bound and may resolve again. Errors of the call itself: those of
 * RCM_IOCTL_BIND_ADDR, EINVAL (already resolved or resolving, timeout
 * out of range, @src and @dst of different families), ENETUNREACH (no
 * route to @dst at all), ENOBUFS (the file has the module's
 * max_events_per_file events unread) and ENOMEM.
 */
struct rcm_resolve_addr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 timeout_ms;
	struct __kernel_sockaddr_storage src;
	struct __kernel_sockaddr_storage dst;
};

#define RCM_IOCTL_RESOLVE_ADDR _IO(RCM_IOCTL_MAGIC, RCM_CMD_RESOLVE_ADDR)

/**
 * struct rcm_query_id - ioctl(RCM_IOCTL_QUERY_ID)
 * @size: sizeof(struct rcm_query_id)
 * @flags: Must be 0
 * @id: the id
 * @out_port_num: port of the RDMA device, 0 when not attached
 * @out_node_guid: node GUID of the RDMA device (network order), 0 when
 *                 not attached
 * @out_sgid: the source GID the id uses, zero when not attached
 * @out_src: local address (family 0 before the id is bound)
 * @out_dst: remote address (family 0 before it is known)
 * @out_num_paths: 1 once a path is resolved (RoCE) or, on a request
 *                 id, from the REQ (as in-tree), else 0
 * @out_reserved: 0
 * @out_path: the path when @out_num_paths is 1
 * @out_flags: RCM_ID_INFO_IBDEV_INDEX when @out_ibdev_index is set
 * @out_ibdev_index: the kernel's index of the RDMA device, see struct
 *                   rcm_id_info
 *
 * Errors: ENOENT.
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

#define RCM_IOCTL_QUERY_ID _IO(RCM_IOCTL_MAGIC, RCM_CMD_QUERY_ID)

/**
 * struct rcm_resolve_route - ioctl(RCM_IOCTL_RESOLVE_ROUTE)
 * @size: sizeof(struct rcm_resolve_route)
 * @flags: Must be 0
 * @id: the id, whose address is resolved
 * @timeout_ms: bound on a path query, 0..RCM_MAX_TIMEOUT_MS. RoCE and
 *              iWARP routes are built locally at once, so it bounds
 *              nothing there.
 *
 * Builds the path towards the id's destination. Completes with
 * RCM_EVENT_ROUTE_RESOLVED, queued before the call returns. A RoCE path
 * takes its GIDs from the addresses, the next-hop MAC from the address
 * resolution, the MTU from the netdev, the traffic class from the id's
 * TOS and its service level from the netdev's priority map; an iWARP
 * route needs no path. Errors: ENOENT, EINVAL (address not resolved,
 * already routed, timeout out of range), ENODEV (the
 * netdev is gone), EOPNOTSUPP (an InfiniBand port: path queries to the
 * subnet administrator are not implemented), ENOBUFS (the file has
 * max_events_per_file events unread), ENOMEM.
 */
struct rcm_resolve_route {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 timeout_ms;
};

#define RCM_IOCTL_RESOLVE_ROUTE _IO(RCM_IOCTL_MAGIC, RCM_CMD_RESOLVE_ROUTE)

/* Option levels and names: the values of librdmacm's. */
enum rcm_option_level {
	RCM_OPTION_ID = 0,
};

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

/* The Q_Key of RCM_PS_UDP ids unless set (in-tree RDMA_UDP_QKEY). */
#define RCM_UDP_QKEY 0x01234567

/**
 * struct rcm_set_option - ioctl(RCM_IOCTL_SET_OPTION)
 * @size: sizeof(struct rcm_set_option)
 * @flags: Must be 0
 * @id: the id
 * @level: enum rcm_option_level
 * @optname: enum rcm_option_id
 * @reserved: Must be 0
 * @value: the option's value
 *
 * RCM_OPTION_ID_TOS (0..255): type of service of the id's traffic; a
 * RoCE route resolved afterwards carries it as traffic class and maps
 * it to a service level. Any state.
 *
 * RCM_OPTION_ID_REUSEADDR (0 or 1): the id may share its port with
 * other REUSEADDR ids. Turning it on is refused (EINVAL) while the id
 * listens; turning it off, once the id is bound.
 *
 * RCM_OPTION_ID_AFONLY (0 or 1): an IPv6 id does not share its port
 * with IPv4 ids (and the reverse). Before the id listens or resolves
 * only; the default is net.ipv6.bindv6only at bind time.
 *
 * RCM_OPTION_ID_ACK_TIMEOUT (0..31): local ACK timeout of the id's
 * connection, 4.096 us * 2^value; RC and XRC_SEND ids only (as
 * in-tree). A RoCE route resolved afterwards takes value - 1 as its
 * packet lifetime.
 *
 * RCM_OPTION_ID_RESOLVE_TIMEOUT (0, or 1..RCM_MAX_TIMEOUT_MS): when
 * non-zero, the timeout in milliseconds of the id's address and route
 * resolutions, replacing the timeout_ms each command passes; 0 (the
 * default) uses the command's. Any state; applies to resolutions issued
 * afterwards.
 *
 * RCM_OPTION_ID_CONNECT_TIMEOUT (0, or 1..RCM_MAX_TIMEOUT_MS): when
 * non-zero, the longest an IB CM exchange of the id waits for its peer
 * before it fails: a connect's REP or SIDR REP (then
 * RCM_EVENT_UNREACHABLE, status -ETIMEDOUT), through the CM response
 * timeout and retry count the REQ carries (a REQ also waits twice the
 * path's packet lifetime per try, about 2 s on RoCE). 0 (the default)
 * keeps the in-tree rdma_cm's values (about 4.3 s times 16 tries).
 * Before the id connects or accepts; EINVAL at connect on iWARP.
 *
 * RCM_OPTION_ID_QKEY (any 32-bit value without bit 31, which IB
 * reserves for controlled Q_Keys): the Q_Key of a UD id's QP, announced
 * in its SIDR replies and used for its multicast groups. UD ids only,
 * before the id accepts, connects or joins a group. The default is
 * RCM_UDP_QKEY for RCM_PS_UDP and RCM_PS_IB ids.
 *
 * Errors: ENOENT, ENOPROTOOPT (unknown level or option name), EINVAL
 * (value out of range, a state or QP type the option does not allow).
 */
struct rcm_set_option {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 level;
	__u32 optname;
	__u32 reserved;
	__aligned_u64 value;
};

#define RCM_IOCTL_SET_OPTION _IO(RCM_IOCTL_MAGIC, RCM_CMD_SET_OPTION)

/* Default and largest listen backlog. */
#define RCM_MAX_BACKLOG 1024

/**
 * struct rcm_listen - ioctl(RCM_IOCTL_LISTEN)
 * @size: sizeof(struct rcm_listen)
 * @flags: Must be 0
 * @id: the id: bound (or not: it is then bound to the IPv4 wildcard
 *      with an ephemeral port first)
 * @backlog: connection requests whose RCM_EVENT_CONNECT_REQUEST may wait
 *           unread at once (as ucma's: a request's slot is given back
 *           when its event is read, not when it is answered); 0 or above
 *           RCM_MAX_BACKLOG means RCM_MAX_BACKLOG. Requests beyond it are
 *           dropped without a reply, so the peer retries.
 *
 * Listens for connection requests on the id's address and port: on the
 * RDMA device of a specific address, or on every device with an IB CM
 * or iWARP port (now and added later) for a wildcard. Each request
 * arrives as RCM_EVENT_CONNECT_REQUEST on a new id of the same file (see
 * struct rcm_event). On an iWARP device the listen is a TCP listen, and
 * a request beyond the backlog is refused rather than dropped. A UD id
 * listens for
 * SIDR requests, on IB CM devices only (a wildcard UD listener leaves
 * iWARP devices out). A listener is alone on its address even when it
 * was bound with RCM_OPTION_ID_REUSEADDR (as in-tree, the port is checked
 * again as if the option were off, and the option stays off). Destroying
 * a listener refuses its requests whose CONNECT_REQUEST was not read yet
 * and destroys their ids. Errors: ENOENT, EINVAL
 * (state), EADDRINUSE (another id is bound to the address, or another
 * connection manager such as the in-tree rdma_cm listens on the same
 * service ID of a device; on iWARP, a TCP socket holds the port),
 * EADDRNOTAVAIL (another id shares the port and one of the two is bound
 * to a wildcard), ENODEV, ENOMEM (on iWARP also when the driver cannot
 * allocate its TCP socket), EOPNOTSUPP (a UD id bound to an iWARP
 * device; an RCM_PS_IPOIB id).
 */
struct rcm_listen {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 backlog;
};

#define RCM_IOCTL_LISTEN _IO(RCM_IOCTL_MAGIC, RCM_CMD_LISTEN)

/* IB CM reject reasons userspace may send. */
#define RCM_REJ_CONSUMER_DEFINED 28
#define RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED 35

/* Private data a reject carries at most over the IB CM (the REJ area). */
#define RCM_REJECT_PRIVATE_DATA_MAX 148

/*
 * Private data a connect, accept or reject on an iWARP device carries at
 * most, as the in-tree rdma_cm allows: 255 bytes (u8 lengths), with no
 * header. The driver's MPA limit may be lower (siw: 251 with MPA v2);
 * it refuses more with EINVAL. An event reports all of it.
 */
#define RCM_IWARP_PRIVATE_DATA_MAX 255

/**
 * struct rcm_reject - ioctl(RCM_IOCTL_REJECT)
 * @size: sizeof(struct rcm_reject)
 * @flags: Must be 0
 * @id: an id created by RCM_EVENT_CONNECT_REQUEST, not yet answered, or
 *      an active id that reported RCM_EVENT_CONNECT_RESPONSE and was not
 *      established (its QP could not be readied, say)
 * @reason: 0 (meaning RCM_REJ_CONSUMER_DEFINED), RCM_REJ_CONSUMER_DEFINED
 *          or RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED (checked, but not sent
 *          on iWARP, whose MPA reject has no reason)
 * @private_data_len: bytes at @private_data, at most
 *                    RCM_REJECT_PRIVATE_DATA_MAX (IB CM) or
 *                    RCM_IWARP_PRIVATE_DATA_MAX (iWARP)
 * @reserved: Must be 0
 * @private_data: user pointer to the private data (ignored when
 *                @private_data_len is 0)
 *
 * Refuses the connection request (or the accepted connection, on the
 * active side): the peer gets REJECTED with @reason and the private
 * data. Destroying such an id without an answer rejects too, with
 * RCM_REJ_CONSUMER_DEFINED and no data. iWARP: an MPA reject (the peer's
 * status is its driver's negative errno). UD request ids: a SIDR REP
 * with status 2 and at most RCM_UD_ACCEPT_PRIVATE_DATA_MAX bytes.
 *
 * Errors: ENOENT, EINVAL (not a request awaiting an answer, bad reason,
 * too much private data), EFAULT.
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

#define RCM_IOCTL_REJECT _IO(RCM_IOCTL_MAGIC, RCM_CMD_REJECT)

/*
 * Private data an accept carries at most (the IB CM REP area; on iWARP
 * the same, RCM_IWARP_PRIVATE_DATA_MAX).
 */
#define RCM_ACCEPT_PRIVATE_DATA_MAX 196

/**
 * struct rcm_accept - ioctl(RCM_IOCTL_ACCEPT)
 * @size: sizeof(struct rcm_accept)
 * @flags: Must be 0
 * @id: an id created by RCM_EVENT_CONNECT_REQUEST, not yet answered
 * @qp_num: the number of the QP that will carry the connection (24 bits)
 * @context: the user's value for this id's events from now on
 * @responder_resources: RDMA reads/atomics this side serves at once, as
 *                       given (not lowered to the peer's initiator
 *                       depth, as in-tree); lowered to the device's
 *                       max_qp_rd_atom
 * @initiator_depth: RDMA reads/atomics this side issues at once, as
 *                   given; lowered to the device's max_qp_init_rd_atom
 * @flow_control: this side's receive queue is flow controlled
 * @rnr_retry_count: RNR retries the peer should make, 0..7 (7: infinite);
 *                   above 7 is taken as 7 (a 3-bit field), as in-tree
 * @srq: the QP uses a shared receive queue
 * @reserved: Must be 0
 * @private_data_len: bytes at @private_data, at most
 *                    RCM_ACCEPT_PRIVATE_DATA_MAX
 * @reserved2: Must be 0
 * @private_data: user pointer (ignored when @private_data_len is 0)
 * @ece_vendor_id: the ECE vendor ID the REP carries (IB CM: its low 24
 *                 bits; 0: none)
 * @ece_attr_mod: the ECE options the REP carries
 *
 * Accepts the request: sends the IB CM REP. The connection is
 * established when the peer's RTU arrives (RCM_EVENT_ESTABLISHED), or
 * fails with RCM_EVENT_UNREACHABLE (no RTU after the retries) or
 * RCM_EVENT_REJECTED. The QP is the caller's: the kernel never touches
 * it. Errors: ENOENT, EINVAL (not an unanswered request, a value out of
 * range, too much private data, @qp_num above 24 bits), EFAULT.
 *
 * iWARP: the MPA reply, the depths as MPA IRD and ORD; @qp_num must
 * name a QP of the device that the caller created, in RESET or INIT
 * (else EINVAL, the request unanswered). ESTABLISHED follows once the
 * reply went; ECONNRESET: the peer gave up. UD request ids: a SIDR REP
 * with status 0, @qp_num, the id's Q_Key and at most
 * RCM_UD_ACCEPT_PRIVATE_DATA_MAX bytes; no event follows.
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

#define RCM_IOCTL_ACCEPT _IO(RCM_IOCTL_MAGIC, RCM_CMD_ACCEPT)

/**
 * struct rcm_disconnect - ioctl(RCM_IOCTL_DISCONNECT)
 * @size: sizeof(struct rcm_disconnect)
 * @flags: Must be 0
 * @id: a request id, or an id that sent a connection request
 * @reserved: Must be 0
 *
 * Ends the connection: sends a DREQ, or the DREP when the peer's DREQ
 * came first. RCM_EVENT_DISCONNECTED follows once when the connection
 * is down (DREP received, DREQ received, or the DREQ timed out; status
 * -ENOMEM, right away, when the DREQ could not even be allocated - ib_cm
 * then puts the connection in timewait without telling the peer, and
 * the in-tree CM reports nothing), and RCM_EVENT_TIMEWAIT_EXIT when the
 * QP may be reused. As with the in-tree
 * rdma_cm, the call succeeds and sends nothing when there is nothing to
 * end: a second call, a call after the DREQ/DREP exchange, after
 * RCM_EVENT_REJECTED, or before the connection is up (a UD id's SIDR
 * exchange included). Errors: ENOENT, EINVAL (the id never sent or
 * received a connection request), ENOMEM (nothing sent).
 *
 * iWARP: a graceful close; both sides report RCM_EVENT_DISCONNECTED
 * (status 0) once, and no TIMEWAIT_EXIT.
 */
struct rcm_disconnect {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
};

#define RCM_IOCTL_DISCONNECT _IO(RCM_IOCTL_MAGIC, RCM_CMD_DISCONNECT)

/*
 * Private data a connect carries at most over the IB CM: the REQ area
 * less the 36-byte header rcm puts in front, as the in-tree rdma_cm does.
 * iWARP: RCM_IWARP_PRIVATE_DATA_MAX, with no header.
 */
#define RCM_CONNECT_PRIVATE_DATA_MAX 56

/*
 * Datagram (UD) ids: private data of a SIDR REQ (its 216-byte area less
 * the 36-byte header) and of a SIDR REP, accept or reject alike.
 */
#define RCM_UD_CONNECT_PRIVATE_DATA_MAX 180
#define RCM_UD_ACCEPT_PRIVATE_DATA_MAX 136

/**
 * struct rcm_connect - ioctl(RCM_IOCTL_CONNECT)
 * @size: sizeof(struct rcm_connect)
 * @flags: Must be 0
 * @id: an RC id whose route is resolved
 * @qp_num: the number of the QP that will carry the connection (24 bits)
 * @responder_resources: RDMA reads/atomics this side serves at once;
 *                       lowered to the device's max_qp_rd_atom
 * @initiator_depth: RDMA reads/atomics this side issues at once;
 *                   lowered to the device's max_qp_init_rd_atom
 * @flow_control: this side's receive queue is flow controlled (0 or 1)
 * @retry_count: transport retries the QPs make, 0..7; above 7 is taken
 *               as 7 (a 3-bit field), as in-tree
 * @rnr_retry_count: RNR retries the peer should make, 0..7 (7: infinite);
 *                   above 7 is taken as 7
 * @srq: the QP uses a shared receive queue (0 or 1)
 * @reserved: Must be 0
 * @private_data_len: bytes at @private_data, at most
 *                    RCM_CONNECT_PRIVATE_DATA_MAX (IB CM) or
 *                    RCM_IWARP_PRIVATE_DATA_MAX (iWARP)
 * @reserved2: Must be 0
 * @private_data: user pointer (ignored when @private_data_len is 0)
 * @ece_vendor_id: the ECE vendor ID the REQ carries (IB CM: its low 24
 *                 bits; 0: none)
 * @ece_attr_mod: the ECE options the REQ carries
 *
 * Sends the connection request: an IB CM REQ for the id's service ID
 * (port space and destination port) carrying the in-tree rdma_cm's
 * 36-byte address header and the private data. The answer arrives as
 * RCM_EVENT_CONNECT_RESPONSE (the peer accepted: move the QP to RTR and
 * RTS, then RCM_IOCTL_ESTABLISH), RCM_EVENT_REJECTED (status: the reject
 * reason, e.g. 8 when nobody listens on the service ID, 28 when the
 * peer's consumer rejected) or RCM_EVENT_UNREACHABLE (status -ETIMEDOUT:
 * no answer after the CM's retries). Errors: ENOENT, EINVAL (route not
 * resolved, not an RC id, a value out of range, too much private data),
 * EFAULT, ENOBUFS (the file has
 * max_events_per_file events unread), ENOMEM.
 *
 * iWARP: an MPA request over TCP from the id's address and port, with
 * the private data as is and the depths as MPA ORD and IRD; @qp_num must
 * name a QP of the device that the caller created, in RESET or INIT,
 * which iw_cm takes over. The answer is RCM_EVENT_ESTABLISHED (no
 * CONNECT_RESPONSE, no RCM_IOCTL_ESTABLISH), REJECTED (-ECONNREFUSED or
 * -ECONNRESET), UNREACHABLE (-ETIMEDOUT, -EHOSTUNREACH, -ENETUNREACH) or
 * CONNECT_ERROR; a refusal or timeout seen during the call is its error.
 *
 * UD ids (IB CM ports only): a SIDR REQ with up to
 * RCM_UD_CONNECT_PRIVATE_DATA_MAX bytes, answered by
 * RCM_EVENT_ESTABLISHED carrying the peer's QP in @ud of struct
 * rcm_event, or RCM_EVENT_UNREACHABLE (-ETIMEDOUT, or the peer's
 * positive SIDR status). EOPNOTSUPP on iWARP and for RCM_PS_IPOIB ids.
 * rcm's Documentation/userspace-api.rst describes both at length.
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

#define RCM_IOCTL_CONNECT _IO(RCM_IOCTL_MAGIC, RCM_CMD_CONNECT)

/**
 * struct rcm_establish - ioctl(RCM_IOCTL_ESTABLISH)
 * @size: sizeof(struct rcm_establish)
 * @flags: Must be 0
 * @id: an id that reported RCM_EVENT_CONNECT_RESPONSE
 * @reserved: Must be 0
 *
 * Completes the connection on the active side: sends the IB CM RTU once
 * the caller's QP is ready to send (RTS). No event follows; the
 * connection is established when the call returns. Errors: ENOENT,
 * EINVAL (no accepted connect awaiting its RTU; always on iWARP, which
 * has no RTU).
 */
struct rcm_establish {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 reserved;
};

#define RCM_IOCTL_ESTABLISH _IO(RCM_IOCTL_MAGIC, RCM_CMD_ESTABLISH)

/* QP states: the values of libibverbs' enum ibv_qp_state. */
enum rcm_qp_state {
	RCM_QPS_INIT = 1,
	RCM_QPS_RTR = 2,
	RCM_QPS_RTS = 3,
};

/**
 * struct rcm_ah_attr - the address vector of a QP attribute set
 * @dgid: destination GID
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
 *
 * The members libibverbs' struct ibv_ah_attr (and its ibv_global_route)
 * takes, under the same names. On RoCE the kernel resolves the next-hop
 * MAC address from @dgid when the QP is modified.
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
 * @qp_attr_mask: the attributes that are valid, as enum ibv_qp_attr_mask
 *                bits (IBV_QP_STATE, IBV_QP_AV, ...): pass it to
 *                ibv_modify_qp() as is
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
 * @out_attr: for each state S asked for, @out_attr[S - 1] holds the
 *            attributes that move a QP into S; the others are zero
 * @reserved: Must be 0
 *
 * Returns the attributes the id's QP needs for its next transitions, so
 * userspace moves its own QP with ibv_modify_qp(). One call may ask for
 * several states: RTR and RTS together are what a QP needs once the
 * peer's answer is in. INIT needs an id attached to a device; RTR and RTS
 * need a connection request received (passive side) or a
 * RCM_EVENT_CONNECT_RESPONSE (active side). The per-id ACK timeout
 * option replaces the computed @timeout of RTS. A UD id needs only to be
 * attached to an IB CM port, in any state: INIT gives the state, P_Key
 * index, port and the id's Q_Key; RTR the state; RTS the state and send
 * PSN 0. Errors: ENOENT, EINVAL
 * (no state, a state other than INIT/RTR/RTS, or a state the id is not
 * ready for).
 *
 * iWARP: before a connect or request, INIT only, with no access flags
 * (state and access flags valid); once the id has a connection, INIT
 * and RTR give remote read and write access and RTS gives nothing
 * (@qp_attr_mask 0): the driver moves the QP to RTS itself. EINVAL once
 * the connection is closing.
 */
struct rcm_init_qp_attr {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 qp_states;
	struct rcm_qp_attr out_attr[3];
	__u32 reserved;
};

#define RCM_IOCTL_INIT_QP_ATTR _IO(RCM_IOCTL_MAGIC, RCM_CMD_INIT_QP_ATTR)

/* The asynchronous event rcm_notify passes on: ibv_event_type's value. */
#define RCM_NOTIFY_COMM_EST 4

/**
 * struct rcm_notify - ioctl(RCM_IOCTL_NOTIFY)
 * @size: sizeof(struct rcm_notify)
 * @flags: Must be 0
 * @id: an id whose connection is accepted (passive side)
 * @event: the QP's asynchronous event, an ibv_event_type value
 *
 * Passes a QP's asynchronous event to the CM of the id's connection, as
 * the in-tree rdma_notify() does. RCM_NOTIFY_COMM_EST: the QP received
 * data before the RTU arrived, so the connection counts as established:
 * RCM_EVENT_ESTABLISHED follows, as if the RTU had come. On an IB or
 * RoCE connection, IB_EVENT_PATH_MIG switches an established connection
 * to its alternate path, as ib_cm does, and any other event is EINVAL;
 * on an iWARP connection every event is 0 and nothing is done. Errors:
 * ENOENT, EISCONN (COMM_EST on a connection established already, on
 * either side), EINVAL (no connection, no accepted connection waiting
 * for its RTU, an event the IB CM does not take).
 */
struct rcm_notify {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 event;
};

#define RCM_IOCTL_NOTIFY _IO(RCM_IOCTL_MAGIC, RCM_CMD_NOTIFY)

/**
 * struct rcm_migrate_id - ioctl(RCM_IOCTL_MIGRATE_ID)
 * @size: sizeof(struct rcm_migrate_id)
 * @flags: Must be 0
 * @id: the id to move, in the file the ioctl is issued on
 * @fd: an open rcm file descriptor of the caller, the destination
 * @out_id: the id's handle in the destination file
 * @out_events_reported: number of events of this id that read() has
 *                       returned (from either file), over its whole life
 *
 * Moves an id, with its events that read() has not returned yet, to
 * another open rcm file: from then on its events (and, for a listener,
 * its connection requests) are read from there and only there, and its
 * old handle names nothing. A listener's unread connection requests go
 * along, their request ids too (each gets a handle in the destination,
 * which its CONNECT_REQUEST carries, with the listener's new one), so a
 * listener always moves, as in-tree. Moving an id to its own file
 * changes nothing and returns its handle. Errors: ENOENT (no such id),
 * EBADF (@fd is not open), EINVAL (@fd is not an rcm file), EMFILE (the
 * destination cannot hold the id and its unread requests' ids), EBUSY
 * (a request id whose own CONNECT_REQUEST is still unread: userspace
 * has not been told its handle yet), ENOMEM.
 */
struct rcm_migrate_id {
	__u32 size;
	__u32 flags;
	__u32 id;
	__s32 fd;
	__u32 out_id;
	__u32 out_events_reported;
};

#define RCM_IOCTL_MIGRATE_ID _IO(RCM_IOCTL_MAGIC, RCM_CMD_MIGRATE_ID)

/* Join flags: the values of librdmacm's enum rdma_cm_mc_join_flags. */
enum rcm_mcast_join_flags {
	RCM_MC_JOIN_FULLMEMBER = 0,
	RCM_MC_JOIN_SENDONLY_FULLMEMBER = 1,
};

/**
 * struct rcm_join_mcast - ioctl(RCM_IOCTL_JOIN_MCAST)
 * @size: sizeof(struct rcm_join_mcast)
 * @flags: Must be 0
 * @id: a UD id (RCM_PS_UDP, or RCM_PS_IB with RCM_QPT_UD) attached to a
 *      device: bound to a local address of it, or address resolved
 * @join_flags: RCM_MC_JOIN_FULLMEMBER (send and receive) or
 *              RCM_MC_JOIN_SENDONLY_FULLMEMBER (send only)
 * @context: the user's value for this group's events
 * @addr: the group: an IPv4 or IPv6 multicast address (a
 *        struct sockaddr_in or sockaddr_in6; the port is ignored)
 *
 * Joins the multicast group on the id's device and port. On RoCE the
 * group's MGID is derived from the address as the in-tree rdma_cm does
 * (IPv4: ::ffff:a.b.c.d on RoCE v2, ff0e::ffff:a.b.c.d on RoCE v1; IPv6:
 * the address itself) and a full member join also joins the IP group
 * on the id's netdev (IGMP), so switches forward it. The result is
 * RCM_EVENT_MULTICAST_JOIN with the group's UD parameters (qp_num
 * RCM_MCAST_QPN, the id's Q_Key, the address vector with the MGID as
 * dgid): attach the QP to that GID to receive; or
 * RCM_EVENT_MULTICAST_ERROR with a negative errno. Both carry @context.
 * Errors: ENOENT, EINVAL (not a UD id, not attached to a device, not a
 * multicast address, unknown @join_flags), EOPNOTSUPP (an IPv6 group on
 * RoCE v2, as in-tree; an iWARP device), ENODEV (the id's netdev is
 * gone), ENOBUFS (the file has max_events_per_file events unread, or its
 * ids hold the module's max_mcast_per_file groups), ENOMEM. An id may
 * join a group again, as in-tree: each join is a group of its own, and
 * RCM_IOCTL_LEAVE_MCAST ends the latest.
 */
struct rcm_join_mcast {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 join_flags;
	__aligned_u64 context;
	struct __kernel_sockaddr_storage addr;
};

#define RCM_IOCTL_JOIN_MCAST _IO(RCM_IOCTL_MAGIC, RCM_CMD_JOIN_MCAST)

/**
 * struct rcm_leave_mcast - ioctl(RCM_IOCTL_LEAVE_MCAST)
 * @size: sizeof(struct rcm_leave_mcast)
 * @flags: Must be 0
 * @id: the id that joined
 * @out_events_reported: events of this group that read() returned
 * @addr: the group's address, as given to RCM_IOCTL_JOIN_MCAST
 *
 * Leaves the group (and the IP group on the netdev). Events of the group
 * that read() has not returned yet are discarded; the group's events
 * count in the id's events too (RCM_IOCTL_DESTROY_ID). Destroying the id
 * leaves every group it joined. Detaching the QP is the caller's.
 * Errors: ENOENT (no such id, or it has not joined @addr), EINVAL.
 */
struct rcm_leave_mcast {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 out_events_reported;
	struct __kernel_sockaddr_storage addr;
};

#define RCM_IOCTL_LEAVE_MCAST _IO(RCM_IOCTL_MAGIC, RCM_CMD_LEAVE_MCAST)

/**
 * DOC: rcm events
 *
 * Events are read from the file with read(), as records of the file's
 * record size. A read returns as many whole records as fit in the
 * buffer, never a partial one; a buffer smaller than one record fails
 * with EINVAL. With no event queued, read() blocks, or fails with EAGAIN
 * on an O_NONBLOCK file. poll() and epoll report EPOLLIN | EPOLLRDNORM
 * while an event is queued. Events of one file come out in the order
 * they happened; a reader that reads one record per read() leaves the
 * file readable exactly while an event is queued.
 *
 * The record is struct rcm_event, RCM_EVENT_SIZE bytes, from open() on.
 * It grows at its end and never changes what is there; RCM_IOCTL_QUERY's
 * @event_size sets another record size for the file (at least
 * RCM_EVENT_SIZE_MIN). A record shorter than the module's struct is its
 * first bytes, as ucma copies min(out_len, sizeof(resp)), except that
 * @qp_attr_valid and @id_info_len read 0 in a record too short to hold
 * what they describe; @private_data_len counts all the private data the
 * event carried, also what did not fit.
 *
 * The status of an event is 0 on success, a negative errno for a local
 * failure, or, for RCM_EVENT_REJECTED only, a positive transport reject
 * reason (the IB CM REJ reason). On iWARP, REJECTED carries the driver's
 * negative errno instead, as the in-tree rdma_cm passes it on:
 * -ECONNREFUSED or -ECONNRESET (siw reports a consumer's reject as
 * -ECONNRESET).
 *
 * Some events carry what a command would have returned for their id when
 * the event was queued, so that userspace needs no ioctl after them; each
 * describes that moment only (a later option, connect, accept or event
 * makes it stale; the ioctl answers for the id as it is now), and is
 * left out when the kernel had no memory for it:
 *
 * ========================== =========================================
 * RCM_EVENT_ADDR_RESOLVED    @id_info; @qp_attr INIT
 * RCM_EVENT_ROUTE_RESOLVED   @id_info; @qp_attr INIT
 * RCM_EVENT_CONNECT_REQUEST  @id_info of the request id (IB CM, SIDR
 *                            and iWARP requests); @qp_attr INIT, RTR
 *                            and RTS (RC, UC and XRC requests over the
 *                            IB CM)
 * RCM_EVENT_CONNECT_RESPONSE @qp_attr INIT, RTR and RTS
 * ========================== =========================================
 *
 * @id_info is what RCM_IOCTL_QUERY_ID returns, @qp_attr what
 * RCM_IOCTL_INIT_QP_ATTR returns; a state the ioctl would refuse is left
 * out of @qp_attr_valid.
 */

/**
 * enum rcm_event_type - what an event reports
 * @RCM_EVENT_ADDR_RESOLVED: RCM_IOCTL_RESOLVE_ADDR found a device, port and
 *                           next hop; status 0
 * @RCM_EVENT_ADDR_ERROR: the address resolution failed; status a negative errno
 *                        (-ETIMEDOUT, -ENODEV, or the kernel address service's)
 * @RCM_EVENT_ROUTE_RESOLVED: RCM_IOCTL_RESOLVE_ROUTE built the path; status 0
 * @RCM_EVENT_ROUTE_ERROR: a route resolution failed; never reported yet (RoCE
 *                         and iWARP routes are built at once or not at all)
 * @RCM_EVENT_CONNECT_REQUEST: a peer's connection (or SIDR) request for a
 *                             listener, on a new request id; see struct
 *                             rcm_event
 * @RCM_EVENT_CONNECT_RESPONSE: the peer accepted (IB CM REP); move the QP to
 *                              RTR and RTS, then RCM_IOCTL_ESTABLISH
 * @RCM_EVENT_CONNECT_ERROR: an iWARP connect failed otherwise than refused or
 *                           unreachable; status a negative errno
 * @RCM_EVENT_UNREACHABLE: no answer after the retries (status -ETIMEDOUT, or
 *                         -EHOSTUNREACH/-ENETUNREACH on iWARP), or a SIDR
 *                         reply's positive status
 * @RCM_EVENT_REJECTED: the peer refused; status the IB CM reject reason
 *                      (positive), or a negative errno on iWARP
 * @RCM_EVENT_ESTABLISHED: the connection is up (RTU received, MPA reply on
 *                         iWARP), or a SIDR reply gave the peer's QP (ud)
 * @RCM_EVENT_DISCONNECTED: the connection is down (DREQ or DREP received, DREQ
 *                          timed out, stream closed); once per connection
 * @RCM_EVENT_DEVICE_REMOVAL: the id's RDMA device is going away; the id is
 *                            detached and answers ENXIO to all but
 *                            RCM_IOCTL_QUERY_ID and RCM_IOCTL_DESTROY_ID
 * @RCM_EVENT_MULTICAST_JOIN: RCM_IOCTL_JOIN_MCAST succeeded; ud holds the
 *                            group's parameters, context the join's
 * @RCM_EVENT_MULTICAST_ERROR: the join failed, status a negative errno; context
 *                             the join's
 * @RCM_EVENT_ADDR_CHANGE: the link-layer address of the id's netdev changed
 *                         (new MAC, bonding failover); status 0
 * @RCM_EVENT_TIMEWAIT_EXIT: the QP of a disconnected IB CM connection may be
 *                           reused; not on iWARP
 *
 * The values of librdmacm's enum rdma_cm_event_type.
 *
 * RCM_EVENT_ADDR_CHANGE goes to every id attached through the netdev
 * whose recorded address differs from the new one, which it now takes:
 * ids bound to a specific address, resolved, listening on a specific
 * address, and both sides of a connection get one each; ids that are not
 * attached, or resolving, get none. The id is otherwise unchanged.
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

/* The largest private data an event carries: an iWARP peer's MPA data. */
#define RCM_EVENT_PRIVATE_DATA_MAX 255

/**
 * struct rcm_conn_param - connection parameters carried by an event
 * @qp_num: the peer's QP number
 * @responder_resources: RDMA reads and atomics this side may serve at
 *                       once (for a request: the peer's initiator depth)
 * @initiator_depth: RDMA reads and atomics this side may issue at once
 *                   (for a request: the peer's responder resources)
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

/* The remote QP number a multicast group's events report. */
#define RCM_MCAST_QPN 0xffffff

/**
 * struct rcm_ud_param - datagram parameters carried by an event
 * @qp_num: the remote QP number; RCM_MCAST_QPN for a multicast group
 * @qkey: the Q_Key to send with
 * @ah_attr: the address vector to reach the peer or the group with; on
 *           RoCE @ah_attr.dgid is the peer's GID or the group's MGID
 */
struct rcm_ud_param {
	__u32 qp_num;
	__u32 qkey;
	struct rcm_ah_attr ah_attr;
};

/**
 * struct rcm_event - one event record returned by read()
 * @context: the context of the id the event is for; for
 *           RCM_EVENT_CONNECT_REQUEST, the listening id's context; for
 *           RCM_EVENT_MULTICAST_JOIN and RCM_EVENT_MULTICAST_ERROR, the
 *           context given to RCM_IOCTL_JOIN_MCAST
 * @id: the handle of that id; for RCM_EVENT_CONNECT_REQUEST, the new id
 *      that represents the request (owned by the same file)
 * @event: enum rcm_event_type
 * @status: 0, a negative errno, or a positive reject reason
 * @listen_id: for RCM_EVENT_CONNECT_REQUEST, the listening id; else 0
 * @conn: connection parameters of RCM_EVENT_CONNECT_REQUEST and
 *        RCM_EVENT_CONNECT_RESPONSE; on iWARP of CONNECT_REQUEST and
 *        ESTABLISHED, the MPA IRD and ORD as depths only (no QP number)
 * @ud: instead of @conn, for events of UD ids: RCM_EVENT_ESTABLISHED
 *      after a SIDR REP (the peer's QP), RCM_EVENT_MULTICAST_JOIN (the
 *      group); zero for a UD RCM_EVENT_CONNECT_REQUEST
 * @ece_vendor_id: for RCM_EVENT_CONNECT_REQUEST and
 *                 RCM_EVENT_CONNECT_RESPONSE on the IB CM, the ECE vendor
 *                 ID of the peer's REQ or REP (0: none)
 * @ece_attr_mod: the ECE options of that REQ or REP
 * @qp_attr_valid: the QP attribute sets at @qp_attr, a mask of
 *                 (1 << enum rcm_qp_state) bits: @qp_attr[S - 1] holds
 *                 state S's when bit S is set, else zeros
 * @id_info_len: sizeof(struct rcm_id_info) when @id_info is carried,
 *               else 0
 * @private_data_len: bytes of @private_data that are valid. The IB CM
 *                    carries no length, so this is the whole area the
 *                    message has for the consumer (56 for a request,
 *                    196 for a response, 148 for a reject; SIDR: 180 for
 *                    a request, 136 for a reply); iWARP (request, reply
 *                    in ESTABLISHED, reject) the length the peer sent
 * @reserved: 0
 * @private_data: private data the peer sent with the message behind the
 *                event, zero padded
 * @head: the members above, every record's (up to
 *        RCM_EVENT_SIZE_MIN bytes, and the private data)
 * @qp_attr: the attributes RCM_IOCTL_INIT_QP_ATTR returned for the id,
 *           for each state in @qp_attr_valid (its @out_attr, the same
 *           way)
 * @id_info: what RCM_IOCTL_QUERY_ID returned for the id (for
 *           RCM_EVENT_CONNECT_REQUEST, the request id), when
 *           @id_info_len says so; else zeros
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

/*
 * The record a file returns from open() on, sizeof(struct rcm_event) of
 * this ABI forever; and the smallest a reader may ask for, every member
 * before @private_data.
 */
#define RCM_EVENT_SIZE 728
#define RCM_EVENT_SIZE_MIN 88

#endif /* _UAPI_RDMA_RCM_USER_H */
