/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib: declarations shared by the library's source files.
 * Not installed.
 */
#ifndef RCM_LIB_H
#define RCM_LIB_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rcm.h>
#include <rdma/rcm_user.h>

/* Marks the definition of a function that the version script exports. */
#define RCM_EXPORT __attribute__((visibility("default")))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* The character device, and the environment variable that overrides it. */
#define RCM_DEFAULT_DEVICE	"/dev/infiniband/rcm"
#define RCM_DEVICE_ENV		"RCM_DEVICE"

/*
 * Timeouts that tune unmodified programs: each new id gets the matching
 * RCM_OPTION_ID_* option (see rdma_create_id(3)).
 */
#define RCM_RESOLVE_TIMEOUT_ENV	"RCM_RESOLVE_TIMEOUT_MS"
#define RCM_CONNECT_TIMEOUT_ENV	"RCM_CONNECT_TIMEOUT_MS"
/* Set (to anything but 0) to keep the library's one-line hints quiet. */
#define RCM_QUIET_ENV		"RCM_QUIET"

/*
 * errno when the module answers RCM_IOCTL_QUERY with another ABI version,
 * or the file does not understand the query at all: EPERM, as librdmacm
 * reports a bad kernel ABI; see rdma_create_event_channel(3).
 */
#define RCM_EABI		EPERM

/* librdmacm's convention: set errno, return -1. */
static inline int rcm_err(int err)
{
	errno = err;
	return -1;
}

/* init.c: settings read once per process */
const char *rcm_device_path(void);
unsigned int rcm_resolve_timeout_ms(void);
void rcm_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned int rcm_connect_timeout_ms(void);

/*
 * device.c: the verbs devices the library knows.
 *
 * The table is filled from ibv_get_device_list() by the first call that
 * finds at least one device, and re-synced with it as librdmacm does:
 * by rdma_get_devices(), and when the kernel names a device the table
 * does not know (one added later). An entry is allocated once and never
 * freed or moved; a device that left libibverbs' list is marked @dead
 * and never matched again. A device is opened on first use and stays
 * open while the library is loaded, so the ibv_context pointers handed
 * out (rdma_get_devices(), later id->verbs) are stable. rcm_dev_lock
 * protects the table, each entry's verbs, dead, attribute cache, pd and
 * refcnt.
 *
 * The default PD (librdmacm's id->pd) is allocated when an id first
 * attaches to the device (rcm_device_get()), the default XRC domain when
 * an XRC id first needs one (rcm_device_xrcd()); both go when the last
 * reference goes, as librdmacm does. Holders of a reference may
 * read verbs, pd and the cached attributes without the lock: they do
 * not change while a reference is held.
 */
#define RCM_DEVICE_INDEX_NONE	UINT32_MAX	/* index unknown */

struct rcm_verbs_device {
	struct ibv_device	*dev;
	__be64			guid;		/* ibv_get_device_guid() */
	uint32_t		index;		/* ibv_get_device_index() */
	bool			dead;		/* gone from libibverbs' list */
	struct ibv_context	*verbs;		/* NULL until opened */
	unsigned int		refcnt;		/* users of verbs */
	struct ibv_pd		*pd;		/* default PD */
	struct ibv_xrcd		*xrcd;		/* default XRC domain */
	/* cached from ibv_query_device() when opened */
	uint8_t			port_cnt;
	int			max_qp_wr;
	int			max_qp_rd_atom;
	int			max_qp_init_rd_atom;
};

int rcm_devices_init(void);
struct ibv_context *rcm_device_get(__be64 guid, uint32_t index);
void rcm_device_put(struct ibv_context *verbs);
void rcm_device_removed(struct ibv_context *verbs);
struct rcm_verbs_device *rcm_device_of(struct ibv_context *verbs);
struct ibv_xrcd *rcm_device_xrcd(struct ibv_context *verbs);

struct rcm_id_private;
struct rcm_mcast_private;

/*
 * struct rcm_cm_event - an event handed to the application
 * @event: what the application sees
 * @id: the id the event is charged to (a CONNECT_REQUEST's listener)
 * @mc: for MULTICAST_JOIN and MULTICAST_ERROR, the group the event is
 *      for; its ack counts for the group too (see rdma_leave_multicast())
 * @private_data: the event's private data; param.conn.private_data (or
 *                param.ud.private_data) points here until the ack, or
 *                is NULL when there is none
 */
struct rcm_cm_event {
	struct rdma_cm_event	event;
	struct rcm_id_private	*id;
	struct rcm_mcast_private *mc;
	/* As librdmacm's: RDMA_MAX_PRIVATE_DATA, what a u8 length can say. */
	uint8_t			private_data[RCM_IWARP_PRIVATE_DATA_MAX + 1];
};

/* The buckets a channel's id table starts with (1 << RCM_ID_BITS). */
#define RCM_ID_BITS		6
/* Where a table stops growing: 16M buckets, past any kernel's ids. */
#define RCM_ID_BITS_MAX		24

/*
 * struct rcm_id_table - a hash table of a channel's ids
 * @buckets: 1 << @bits chains (malloc'd), linked through the ids' hnext
 *           or, in a channel's @handles, hnext_handle
 * @bits: log2 of the number of buckets
 * @count: the ids in the table
 * @by_handle: keyed by the ids' handle, else by their address
 *
 * The table starts with 1 << RCM_ID_BITS buckets and doubles them when
 * it holds more than two ids per bucket, so that a lookup stays short
 * with tens of thousands of ids on one channel. A table that cannot get
 * the memory to grow keeps its buckets: it stays correct, only its
 * chains get longer. It never shrinks.
 */
struct rcm_id_table {
	struct rcm_id_private	**buckets;
	uint32_t		bits;
	uint32_t		count;
	bool			by_handle;
};

/*
 * struct rcm_channel - an event channel (one open file of the rcm device)
 * @ch: what the application sees
 * @lock: protects @ids, @handles and, of every id of the channel, chan,
 *        hnext, hnext_handle, destroyed, events_completed, events_read
 *        and its groups (mcasts, and their leaving, attached and
 *        events_completed); an id's handle changes only under it
 * @ids: the channel's ids other than request ids, hashed by the
 *       context value given to the kernel (the id's address), from
 *       before RCM_IOCTL_CREATE_ID until rdma_destroy_id() has accounted
 *       for all its events
 * @handles: all the channel's ids whose kernel handle is known, hashed
 *           by it: the ids of connection requests from when they are
 *           made (the kernel reports their later events with context 0),
 *           the others from when RCM_IOCTL_CREATE_ID returned, until
 *           they are destroyed; a multicast group's events name the id
 *           by handle only
 * @event_size: the size of the file's records: sizeof(struct rcm_event)
 * @sync: the private channel of a synchronous id, its only id, as in
 *        librdmacm (a synchronous listener's requests get channels of
 *        their own, see rcm_request_private()); closed with the id, and
 *        no other id may move onto it
 * @refs: the channel's memory is kept by the open channel and by each id
 *        on it (rcm_channel_get()), so that an id whose channel was
 *        destroyed can still take its lock: librdmacm's ids keep
 *        working, e.g. rdma_ack_cm_event() after
 *        rdma_destroy_event_channel(). Atomic
 */
struct rcm_channel {
	struct rdma_event_channel ch;
	pthread_mutex_t		lock;
	struct rcm_id_table	ids;
	struct rcm_id_table	handles;
	uint32_t		event_size;
	bool			sync;
	unsigned int		refs;
};

static inline struct rcm_channel *rcm_channel(struct rdma_event_channel *ch)
{
	return container_of(ch, struct rcm_channel, ch);
}

/* channel.c */
struct rcm_channel *rcm_channel_open(void);
void rcm_channel_close(struct rcm_channel *chan);
void rcm_channel_get(struct rcm_channel *chan);
void rcm_channel_put(struct rcm_channel *chan);
void rcm_channel_add_id(struct rcm_channel *chan, struct rcm_id_private *id);
void rcm_channel_del_id(struct rcm_channel *chan, struct rcm_id_private *id);
void rcm_channel_add_id_locked(struct rcm_channel *chan, struct rcm_id_private *id);
void rcm_channel_set_handle_locked(struct rcm_channel *chan,
				   struct rcm_id_private *id, uint32_t handle);
struct rcm_id_private *rcm_channel_find_id(struct rcm_channel *chan,
					   uint64_t context, uint32_t handle);
struct rcm_id_private *rcm_channel_find_handle(struct rcm_channel *chan,
					       uint32_t handle);
struct rcm_channel *rcm_id_channel_lock(struct rcm_id_private *id);

/*
 * struct rcm_id_private - a communication identifier
 * @id: what the application sees
 * @chan: the channel of @id.channel (the private one in sync mode); only
 *        rdma_migrate_id() changes it, holding the locks of both
 *        channels, so either lock keeps it stable (see rcm_id_channel_lock())
 * @handle: the kernel's handle, valid in @chan's file only, 0 until
 *          RCM_IOCTL_CREATE_ID returned; a migration gives the id a new
 *          one (set under @chan->lock: it is @chan->handles' key)
 * @sync: created with a NULL channel, migrated to none, or a request of
 *        such a listener: @chan is its private channel (see
 *        rcm_channel.sync)
 * @request: made for RCM_EVENT_CONNECT_REQUEST; in @chan->handles only,
 *           not in ids
 * @destroyed: rdma_destroy_id() has run RCM_IOCTL_DESTROY_ID; no event of
 *             the id is handed out any more (under @chan->lock)
 * @events_completed: events of the id the kernel reported that are done
 *                    with: acked by the application, or dropped by the
 *                    library (under @chan->lock)
 * @events_charged: events the library charged to the id that the kernel
 *                  reported for another one: a listener's
 *                  CONNECT_REQUESTs, which the kernel counts for the
 *                  request id (under @chan->lock)
 * @events_read: records of the id read() returned that a reader has
 *               claimed (rcm_record_claim()), the way the kernel counts
 *               them (a request id's CONNECT_REQUEST is its own);
 *               rdma_migrate_id() waits for it to reach the kernel's
 *               count, so that a record another thread has read but not
 *               claimed yet still finds the id in the old channel
 *               (under @chan->lock)
 * @acked: signalled when @events_completed or @events_read grows (with
 *         @chan->lock)
 * @hnext: next id in the same bucket of @chan->ids (under @chan->lock)
 * @hnext_handle: the same in @chan->handles
 * @connect_error: the library failed to complete the connection after
 *                 CONNECT_RESPONSE and reported CONNECT_ERROR; the id's
 *                 later REJECTED and DISCONNECTED are dropped, as
 *                 librdmacm does (under @chan->lock)
 * @req_responder_resources: of a request id, the CONNECT_REQUEST's
 *                           responder resources (the peer's initiator
 *                           depth): what rdma_accept() defaults to
 * @req_initiator_depth: the same for the initiator depth
 * @accepted: rdma_accept() sent the reply; another one would only wreck
 *            the QP
 * @local_ece: what rdma_set_local_ece() stored
 * @remote_ece: the peer's ECE, from its REQ (CONNECT_REQUEST) or REP
 *              (CONNECT_RESPONSE)
 * @qp_init_attr: a passive rdma_create_ep()'s QP attributes, for the
 *                QPs rdma_get_request() makes (malloc'd, or NULL)
 * @connect_hdr: an active rdma_create_ep()'s ai_connect, put in front of
 *               the next rdma_connect()'s private data (malloc'd, or
 *               NULL)
 * @connect_hdr_len: its length
 * @mcasts: the multicast groups the id joined, newest first (struct
 *          rcm_mcast.next), under @chan->lock
 * @ev_qp_attr_valid: which of @ev_qp_attr hold a set (1 << RCM_QPS_*
 *                    bits), under @chan->lock: the QP attribute sets the
 *                    id's latest event carried (see "rcm events"), which
 *                    the library's own QP transitions take instead of
 *                    RCM_IOCTL_INIT_QP_ATTR; every later record of the
 *                    id replaces them, and what may change them
 *                    (connect, accept, disconnect, an option, a new
 *                    resolution) forgets them (rcm_qp_attr_forget())
 * @ev_qp_attr: those sets, indexed by state - 1
 *
 * Lifetime: freed by rdma_destroy_id() once @events_completed reaches
 * the kernel's out_events_reported plus @events_charged, so that a
 * record or event still pointing at the id never outlives it.
 */
struct rcm_id_private {
	struct rdma_cm_id	id;
	struct rcm_channel	*chan;
	uint32_t		handle;
	bool			sync;
	bool			request;
	bool			destroyed;
	uint32_t		events_completed;
	uint32_t		events_charged;
	uint32_t		events_read;
	pthread_cond_t		acked;
	struct rcm_id_private		*hnext;
	struct rcm_id_private		*hnext_handle;
	bool			connect_error;
	uint8_t			req_responder_resources;
	uint8_t			req_initiator_depth;
	bool			accepted;
	struct ibv_ece		local_ece;
	struct ibv_ece		remote_ece;
	struct ibv_qp_init_attr	*qp_init_attr;
	void			*connect_hdr;
	uint8_t			connect_hdr_len;
	bool			answered;
	struct rcm_mcast_private	*mcasts;
	uint32_t		ev_qp_attr_valid;
	struct rcm_qp_attr	ev_qp_attr[3];
};

static inline struct rcm_id_private *rcm_id(struct rdma_cm_id *id)
{
	return container_of(id, struct rcm_id_private, id);
}

/* Caller holds id->chan->lock. */
static inline void rcm_id_complete_locked(struct rcm_id_private *id)
{
	id->events_completed++;
	pthread_cond_broadcast(&id->acked);
}

/* addr.c: a sockaddr's length for the kernel; 0 for an unknown family */
size_t rcm_addr_len(const struct sockaddr *addr);

/* id.c */
int rcm_create_id(struct rdma_event_channel *channel,
		  struct rdma_cm_id **out, void *context,
		  enum rdma_port_space ps, enum ibv_qp_type qp_type);
int rcm_id_apply(struct rcm_id_private *id, const struct rcm_id_info *info,
		 bool route);
int rcm_id_refresh(struct rcm_id_private *id, bool route);
struct rcm_id_private *rcm_request_new(struct rcm_channel *chan,
				       struct rcm_id_private *listener, uint32_t handle);
int rcm_request_private(struct rcm_id_private *req);
void rcm_request_discard(struct rcm_id_private *req);
uint32_t rcm_kernel_destroy_id(struct rcm_channel *chan, uint32_t handle);
int rcm_sync_complete(struct rcm_id_private *id);

/* qp.c: the id's QP and the attributes the kernel gives for it */
int rcm_qp_ready(struct rcm_id_private *id, int responder_resources,
		 int initiator_depth);
int rcm_qp_move(struct rdma_cm_id *id, enum ibv_qp_state state);
void rcm_qp_attr_keep(struct rcm_id_private *id, const struct rcm_event *rec);
void rcm_qp_attr_forget(struct rcm_id_private *id);

/* conn.c: connection events, and the private data limits */
enum rcm_pdata_op { RCM_PDATA_CONNECT, RCM_PDATA_ACCEPT, RCM_PDATA_REJECT };
unsigned int rcm_pdata_max(const struct rdma_cm_id *id, enum rcm_pdata_op op);
void rcm_conn_event(struct rcm_id_private *id, struct rcm_cm_event *ev,
		    const struct rcm_event *rec);

/*
 * mcast.c: multicast groups.
 *
 * struct rcm_mcast_private - a group an id joined
 * @next: the id's next group (rcm_id.mcasts), under the channel's lock
 * @id: the id
 * @context: the application's value, handed out in the events'
 *           param.ud.private_data as librdmacm does
 * @addr: the group's address, as given to the join
 * @join_flags: RDMA_MC_JOIN_FLAG_FULLMEMBER or _SENDONLY_FULLMEMBER
 * @mgid: the group's GID, from MULTICAST_JOIN (zero before it)
 * @mlid: the group's LID, from MULTICAST_JOIN
 * @attached: the id's QP is attached to @mgid (by the library)
 * @leaving: rdma_leave_multicast() took the group off the kernel: its
 *           records read after that are completed at once (under the
 *           channel's lock)
 * @events_completed: events of the group acked or dropped (under the
 *                    channel's lock; the id's acked condition signals
 *                    its growth, see rcm_id_complete_locked())
 *
 * Lifetime: made by the join, on the id's list before the kernel can
 * report it (the kernel's context for its events is its address, only
 * ever compared); freed by rdma_leave_multicast() once every event the
 * kernel reported for it is completed, or by rdma_destroy_id() after it
 * waited for all the id's events, which include the groups'.
 */
struct rcm_mcast_private {
	struct rcm_mcast_private	*next;
	struct rcm_id_private		*id;
	void			*context;
	struct sockaddr_storage	addr;
	uint32_t		join_flags;
	union ibv_gid		mgid;
	uint16_t		mlid;
	bool			attached;
	bool			leaving;
	uint32_t		events_completed;
};

bool rcm_mcast_event(uint32_t event);
struct rcm_mcast_private *rcm_mcast_find(struct rcm_channel *chan, uint64_t context,
					 uint32_t handle);
void rcm_mcast_joined(struct rcm_cm_event *ev);
void rcm_mcast_free_all(struct rcm_id_private *id);

/* Caller holds the id's channel lock: one event of @mc is done with. */
static inline void rcm_mcast_complete_locked(struct rcm_mcast_private *mc)
{
	mc->events_completed++;
	rcm_id_complete_locked(mc->id);
}

/* event.c: a kernel address vector as libibverbs takes it */
void rcm_ah_attr_convert(struct ibv_ah_attr *to,
			 const struct rcm_ah_attr *from);

#endif /* RCM_LIB_H */
