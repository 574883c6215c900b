/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib: rsockets, declarations shared by rsocket.c (the socket
 * calls), rs_proto.c (the stream wire protocol), rs_dgram.c (datagram
 * rsockets, whose protocol it describes) and rs_poll.c (rpoll,
 * rselect). Not installed.
 *
 * The wire protocol is librdmacm 44's, so that an rsocket here talks to
 * one of rdma-core on the in-tree CM (rsocket(7), "PROTOCOL"):
 *
 * - Each side has a receive buffer (rbuf, SO_RCVBUF bytes) that the peer
 *   writes into with RDMA WRITE WITH IMMEDIATE, one half at a time, and
 *   a target SGL of RS_SGL_SIZE entries into which the peer writes the
 *   next half it may fill (RS_OP_SGL). The connection's private data
 *   (struct rs_conn_data, big-endian) gives the first half, the target
 *   SGL and the iomap table, and the receive credits (the RQ size).
 * - The immediate data says what a message is: bits 31..29 the op,
 *   28..0 its argument (the data's length, the credit sequence number,
 *   a control code, or an iomap index).
 * - Credits count messages: a side may send while its sequence number
 *   (sseq_no) differs from the last one granted (sseq_comp); the
 *   receiver grants rseq_no + rq_size with each RS_OP_SGL.
 * - The SGL entries a side writes into the peer's memory are in the
 *   peer's byte order (RS_CONN_FLAG_NET tells it).
 * - On iWARP (no immediate data) each message is an inline SEND of the
 *   32-bit value, after the RDMA WRITE it describes.
 */
#ifndef RS_PRIV_H
#define RS_PRIV_H

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define RS_OLAP_START_SIZE	2048	/* first write of an rsend() */
#define RS_MAX_TRANSFER		65536	/* largest single write */
#define RS_SNDLOWAT		2048	/* writable from this much room */
#define RS_QP_MIN_SIZE		16
#define RS_QP_MAX_SIZE		0xFFFE
#define RS_QP_CTRL_SIZE		4	/* control messages in flight */
#define RS_CONN_RETRIES		6
#define RS_SGL_SIZE		2	/* entries of the target SGL */
#define RS_CONF_DIR		"/etc/rdma/rsocket"

/* The message in the immediate data (struct rs_msg's op). */
enum {
	RS_OP_DATA,
	RS_OP_RSVD_DATA_MORE,
	RS_OP_WRITE,		/* local only: an riowrite(), no message */
	RS_OP_RSVD_DRA_MORE,
	RS_OP_SGL,
	RS_OP_RSVD,
	RS_OP_IOMAP_SGL,
	RS_OP_CTRL
};

#define RS_MSG(op, data)	(((uint32_t)(op) << 29) | (uint32_t)(data))
#define RS_MSG_OP(msg)		((uint32_t)(msg) >> 29)
#define RS_MSG_DATA(msg)	((uint32_t)(msg) & 0x1FFFFFFF)
#define RS_MSG_SIZE		sizeof(uint32_t)

/* RS_OP_CTRL's argument */
enum {
	RS_CTRL_DISCONNECT,
	RS_CTRL_KEEPALIVE,
	RS_CTRL_SHUTDOWN
};

/* A remote buffer, as written into the peer's target SGL. */
struct rs_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

/* An entry of the target iomap table: riomap()'s offset, and where. */
struct rs_iomap {
	uint64_t offset;
	struct rs_sge sge;
};

#define RS_CONN_VERSION		1
#define RS_CONN_FLAG_NET	(1 << 0)	/* sender is big-endian */
#define RS_CONN_FLAG_IOMAP	(1 << 1)	/* target_iomap_size valid */

/* The connect request's and reply's private data, all big-endian. */
struct rs_conn_data {
	uint8_t		version;
	uint8_t		flags;
	uint16_t	credits;
	uint8_t		reserved[3];
	uint8_t		target_iomap_size;	/* rs_value_to_scale(, 8) */
	struct rs_sge	target_sgl;
	struct rs_sge	data_buf;
};

/*
 * The state of an rsocket: passive, then opening, then connected (with
 * readable/writable while each direction is open), then ended.
 */
enum {
	RS_INIT			= 0,
	RS_BOUND		= 0x0001,
	RS_LISTENING		= 0x0002,
	RS_OPENING		= 0x0004,
	RS_RESOLVING_ADDR	= RS_OPENING | 0x0010,
	RS_RESOLVING_ROUTE	= RS_OPENING | 0x0020,
	RS_CONNECTING		= RS_OPENING | 0x0040,
	RS_CONNECTED		= 0x0100,
	RS_WRITABLE		= 0x0200,
	RS_READABLE		= 0x0400,
	RS_CONNECT_RDWR		= RS_CONNECTED | RS_READABLE | RS_WRITABLE,
	RS_CONNECT_ERROR	= 0x0800,
	RS_DISCONNECTED		= 0x1000,
	RS_ERROR		= 0x2000,
};

#define RS_OPT_SWAP_SGL		(1 << 0)	/* peer of other endianness */
#define RS_OPT_MSG_SEND		(1 << 1)	/* iWARP: messages as SENDs */
#define RS_OPT_KEEPALIVE	(1 << 3)

/* A received data message: how much is left of it. */
struct rs_rmsg {
	uint32_t op;
	uint32_t data;
};

/*
 * struct rs_iomap_mr - memory riomap() registered
 * @next: next of the rsocket's list
 * @offset: the offset the peer's riowrite() names it by
 * @mr: the registration
 * @index: slot in the peer's iomap table, or -1 (not writable)
 * @sent: its table entry was written to the peer
 */
struct rs_iomap_mr {
	struct rs_iomap_mr	*next;
	uint64_t		offset;
	struct ibv_mr		*mr;
	int			index;
	bool			sent;
};

#define RS_DGRAM_IOV_MAX	8	/* entries of a datagram's vector */

struct rs_dgram;

/*
 * struct rsock - an rsocket
 *
 * Locks: @slock serialises senders, @rlock receivers, @cq_lock the CQ,
 * the credit and buffer counters and @state; a sender or receiver takes
 * its own lock first, then @cq_lock. @map_lock protects @iomaps.
 *
 * A datagram rsocket (@type SOCK_DGRAM) has no @cm_id: its QPs and
 * destinations are in @dg; of the fields below it uses the sizes,
 * @sbuf (its send slots), @sqe_avail, @rmsg_head and @rmsg_tail, and
 * @state (RS_READABLE | RS_WRITABLE once it has queues).
 */
struct rsock {
	int			index;		/* the number the caller uses */
	int			type;		/* SOCK_STREAM or SOCK_DGRAM */
	struct rs_dgram		*dg;		/* rs_dgram.c's */
	pthread_mutex_t		slock;
	pthread_mutex_t		rlock;
	pthread_mutex_t		cq_lock;
	pthread_mutex_t		map_lock;

	struct rdma_cm_id	*cm_id;		/* synchronous */
	int			state;
	int			err;		/* SO_ERROR */
	int			fd_flags;	/* O_NONBLOCK */
	int			opts;		/* RS_OPT_* */
	int			retries;
	uint64_t		so_opts;
	uint64_t		tcp_opts;
	uint64_t		ipv6_opts;
	unsigned int		keepalive_time;
	void			*route;		/* RDMA_ROUTE, until connect */
	size_t			route_len;

	uint32_t		sbuf_size;
	uint32_t		rbuf_size;
	uint16_t		sq_size;
	uint16_t		rq_size;
	uint16_t		sq_inline;
	int			target_iomap_size;

	unsigned int		ctrl_seqno;
	unsigned int		ctrl_max_seqno;
	uint16_t		sseq_no;
	uint16_t		sseq_comp;
	uint16_t		rseq_no;
	uint16_t		rseq_comp;

	int			remote_sge;	/* next entry of the peer's SGL */
	struct rs_sge		remote_sgl;
	struct rs_sge		remote_iomap;

	struct ibv_mr		*target_mr;
	int			target_sge;
	void			*target_mem;
	volatile struct rs_sge	*target_sgl;
	volatile struct rs_iomap *target_iomap;

	int			rbuf_msg_index;
	int			rbuf_bytes_avail;
	int			rbuf_free_offset;
	int			rbuf_offset;
	struct ibv_mr		*rmr;
	uint8_t			*rbuf;

	int			sbuf_bytes_avail;
	struct ibv_mr		*smr;
	uint8_t			*sbuf;
	struct ibv_sge		ssgl[2];
	int			sqe_avail;

	struct rs_rmsg		*rmsg;		/* rq_size + 1 */
	int			rmsg_head;
	int			rmsg_tail;

	bool			cq_armed;
	struct rs_iomap_mr	*iomaps;
	bool			iomap_pending;	/* an iomap not sent yet */
};

/* What a wait waits for: true when the caller may go on. */
typedef bool (*rs_test_fn)(struct rsock *rs);

/* rsocket.c */
struct rsock *rs_lookup(int index);
int rs_do_connect(struct rsock *rs);

/* rs_proto.c: the connection's set-up */
extern uint16_t rs_def_inline, rs_def_sqsize, rs_def_rqsize, rs_def_iomap;
extern uint32_t rs_def_mem, rs_def_wmem, rs_polling_time;
extern int rs_wake_up_interval;
void rs_configure(void);
int rs_value_to_scale(int value, int bits);
int rs_scale_to_value(int value, int bits);
int rs_make_cq(struct rsock *rs, struct rdma_cm_id *id);
int rs_make_qp(struct rsock *rs, struct rdma_cm_id *id, void *context,
	       enum ibv_qp_type type);
int rs_create_ep(struct rsock *rs);
void rs_format_conn_data(struct rsock *rs, struct rs_conn_data *conn);
int rs_check_conn_data(const void *pdata, size_t len);
void rs_save_conn_data(struct rsock *rs, const struct rs_conn_data *conn);
void rs_free_ep(struct rsock *rs);

/* rs_proto.c: the data path */
int rs_post_ctrl(struct rsock *rs, uint32_t ctrl);
int rs_process(struct rsock *rs, bool nonblock, rs_test_fn test);
int rs_get_comp(struct rsock *rs, bool nonblock, rs_test_fn test);
void rs_cm_event(struct rsock *rs);
void rs_cq_event(struct rsock *rs);
bool rs_can_send(struct rsock *rs);
bool rs_conn_can_send(struct rsock *rs);
bool rs_have_rdata(struct rsock *rs);
bool rs_conn_have_rdata(struct rsock *rs);
bool rs_conn_can_send_ctrl(struct rsock *rs);
bool rs_ctrl_avail(struct rsock *rs);
bool rs_all_sends_done(struct rsock *rs);
bool rs_any(struct rsock *rs);

/* A source of bytes for rs_send_data(): a buffer or an iovec. */
struct rs_src {
	const struct iovec	*iov;
	size_t			off;	/* into iov[0] */
};

ssize_t rs_send_data(struct rsock *rs, struct rs_src *src, size_t len,
		     int flags, bool direct, uint64_t offset);
ssize_t rs_recv_data(struct rsock *rs, void *buf, size_t len, int flags);
int rs_send_iomaps(struct rsock *rs, int flags);

/* rs_dgram.c: datagram rsockets */
int ds_init(struct rsock *rs, int domain);
int ds_bind(struct rsock *rs, const struct sockaddr *addr, socklen_t len);
int ds_connect(struct rsock *rs, const struct sockaddr *addr, socklen_t len);
ssize_t ds_sendv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		 int flags, const struct sockaddr *to, socklen_t tolen);
ssize_t ds_recvfrom(struct rsock *rs, void *buf, size_t len, int flags,
		    struct sockaddr *from, socklen_t *fromlen);
short ds_poll(struct rsock *rs, short events, struct pollfd *wait);
void ds_poll_wake(struct rsock *rs, const struct pollfd *wait);
int ds_name(struct rsock *rs, struct sockaddr *addr, socklen_t *len, bool peer);
int ds_setsockopt(struct rsock *rs, int level, int optname,
		  const void *optval, socklen_t optlen);
bool ds_active(struct rsock *rs);
void ds_free(struct rsock *rs);

static inline bool rs_nonblocking(struct rsock *rs, int flags)
{
	return (rs->fd_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

#endif /* RS_PRIV_H */
