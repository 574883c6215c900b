// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: datagram rsockets (SOCK_DGRAM over UD), with librdmacm
 * 44's protocol (rsocket(7)), so that they talk to librdmacm's:
 *
 * - A datagram rsocket is a UDP socket, whose fd is the rsocket's
 *   number, and one UD QP for each local address it sends from: an id
 *   of RDMA_PS_UDP bound to that address and the socket's port, Q_Key
 *   RDMA_UDP_QKEY. A receive takes the GRH, then one RS_SNDLOWAT slot.
 * - Every message starts with a struct ds_header: the sender's address
 *   and port, which rrecvfrom() returns.
 * - A destination is an address. Until its QP number and address
 *   handle are known, messages to it go through the UDP socket, after
 *   a struct ds_udp_header naming the sender's QP (RS_OP_DATA). The
 *   receiver answers each with a header alone (RS_OP_CTRL) naming its
 *   own QP, makes an address handle to the sender, and passes the data
 *   to its own QP, so that all data is read from the QPs. The sender
 *   makes its address handle from the answer, and sends over UD from
 *   then on.
 *
 * librdmacm reads the UDP sockets in a service thread; here each call
 * on the rsocket (sends, receives, rpoll()) reads its socket, and a
 * call that waits polls the socket beside the completion channels (an
 * epoll fd of them), as the stream rsockets work without a thread.
 *
 * Where librdmacm 44 differs (README, rsocket(7) NOTES):
 * - the address handle a QP sends to itself: librdmacm's has no GRH,
 *   which the kernel refuses on RoCE (EINVAL), so its datagram
 *   rsockets fail on RoCE at the first rconnect() or rsendto(), with
 *   the ENOENT of its clean-up's epoll_ctl(); here it has one there;
 * - a message longer than fits in one UD packet (the port's MTU and a
 *   receive slot, less the header) fails with EMSGSIZE, where
 *   librdmacm overruns its send slot; rsend() without a destination
 *   fails with EDESTADDRREQ, where librdmacm crashes;
 * - rsendmsg() and rwritev() gather their vector into one datagram,
 *   where librdmacm takes a datagram rsocket for a stream one;
 * - rclose() of a datagram rsocket that never had queues returns at
 *   once, where librdmacm waits forever for the completions of sends
 *   it never made.
 *
 * Locking: @cq_lock of the rsocket covers everything here (QPs, the
 * destinations, the send slots and the receive queue, the UDP socket's
 * reads); it is dropped only to sleep. @slock and @rlock order the
 * senders and the receivers, taken before it.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>

#include "rcm_lib.h"
#include "rs_priv.h"

#define DS_UDP_TAG		0x55555555
#define DS_IPV4_HDR_LEN		8
#define DS_IPV6_HDR_LEN		24
#define DS_UDP_IPV4_HDR_LEN	16
#define DS_UDP_IPV6_HDR_LEN	28
#define DS_RESOLVE_MS		2000	/* librdmacm's, each step */
#define DS_WR_RECV		(1ULL << 63)
#define DS_UDP_BURST		64	/* datagrams read per call */

/* Before each message's data: the sender's address (network order). */
struct ds_header {
	uint8_t		version;	/* 4 or 6 */
	uint8_t		length;		/* DS_IPV4_HDR_LEN or DS_IPV6_HDR_LEN */
	uint16_t	port;
	union {
		uint32_t	ipv4;
		struct {
			uint32_t	flowinfo;
			uint8_t		addr[16];
		} ipv6;
	} addr;
};

/* Before a datagram that goes through the UDP socket (network order). */
struct ds_udp_header {
	uint32_t	tag;		/* DS_UDP_TAG */
	uint8_t		version;	/* 4 or 6 */
	uint8_t		op;		/* RS_OP_DATA or RS_OP_CTRL */
	uint8_t		length;		/* DS_UDP_IPV4_HDR_LEN or _IPV6_ */
	uint8_t		reserved;
	uint32_t	qpn;		/* the sender's QP, 24 bits */
	union {
		uint32_t	ipv4;
		uint8_t		ipv6[16];
	} addr;				/* the sender QP's address */
};

union ds_addr {
	struct sockaddr		sa;
	struct sockaddr_in	sin;
	struct sockaddr_in6	sin6;
};

/* A UD QP of the rsocket, for one local address. */
struct ds_qp {
	struct ds_qp		*next;
	struct rdma_cm_id	*cm_id;
	struct ds_header	hdr;		/* its address, for messages */
	struct ibv_ah		*self_ah;	/* to itself: UDP data passed on */
	struct ibv_mr		*smr;		/* the rsocket's send slots */
	struct ibv_mr		*rmr;
	uint8_t			*rbuf;		/* rq_size slots, then a GRH */
	uint32_t		max_msg;	/* longest data of a message */
	bool			cq_armed;
};

/* A destination: its address (the key), its QP number and AH once known. */
struct ds_dest {
	union ds_addr	addr;
	struct ds_qp	*qp;		/* ours that sends to it */
	struct ibv_ah	*ah;
	uint32_t	qpn;
};

/* A received message, in its QP's slot at @offset. */
struct ds_rmsg {
	struct ds_qp	*qp;
	uint32_t	offset;
	uint32_t	length;		/* after the GRH, header included */
};

struct rs_dgram {
	int		udp;		/* the rsocket's number */
	int		epfd;		/* the QPs' completion channels */
	struct ds_qp	*qps;
	void		*dests;		/* tsearch() tree of ds_dest */
	struct ds_dest	*conn;		/* rconnect()'s destination */
	uint16_t	*free_slots;	/* send slots free: rs->sqe_avail */
	struct ds_rmsg	*rmsg;		/* rq_size + 1, rs->rmsg_head/tail */
	int		rqe_avail;	/* room in @rmsg */
};

typedef bool (*ds_test_fn)(struct rsock *rs);

static socklen_t ds_addrlen(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

/* @sa's family, port and address only: a key for the destinations. */
static int ds_key(union ds_addr *key, const struct sockaddr *sa, socklen_t len)
{
	memset(key, 0, sizeof(*key));
	if (!sa)
		return rcm_err(EDESTADDRREQ);
	if (sa->sa_family == AF_INET && len >= sizeof(key->sin)) {
		key->sin.sin_family = AF_INET;
		key->sin.sin_port = ((const struct sockaddr_in *)sa)->sin_port;
		key->sin.sin_addr = ((const struct sockaddr_in *)sa)->sin_addr;
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(key->sin6)) {
		memcpy(&key->sin6, sa, sizeof(key->sin6));
		key->sin6.sin6_flowinfo = 0;
		return 0;
	}
	return rcm_err(sa->sa_family == AF_INET || sa->sa_family == AF_INET6 ?
		       EINVAL : EAFNOSUPPORT);
}

static int ds_compare(const void *a, const void *b)
{
	const struct sockaddr *x = a, *y = b;

	if (x->sa_family != y->sa_family)
		return x->sa_family < y->sa_family ? -1 : 1;
	return memcmp(a, b, ds_addrlen(x));
}

static void ds_format_hdr(struct ds_header *hdr, const union ds_addr *a)
{
	memset(hdr, 0, sizeof(*hdr));
	if (a->sa.sa_family == AF_INET) {
		hdr->version = 4;
		hdr->length = DS_IPV4_HDR_LEN;
		hdr->port = a->sin.sin_port;
		hdr->addr.ipv4 = a->sin.sin_addr.s_addr;
	} else {
		hdr->version = 6;
		hdr->length = DS_IPV6_HDR_LEN;
		hdr->port = a->sin6.sin6_port;
		hdr->addr.ipv6.flowinfo = a->sin6.sin6_flowinfo;
		memcpy(hdr->addr.ipv6.addr, &a->sin6.sin6_addr, 16);
	}
}

static bool ds_valid_hdr(const struct ds_header *hdr, uint32_t len)
{
	return len >= DS_IPV4_HDR_LEN &&
	       ((hdr->version == 4 && hdr->length == DS_IPV4_HDR_LEN) ||
		(hdr->version == 6 && hdr->length == DS_IPV6_HDR_LEN &&
		 len >= DS_IPV6_HDR_LEN));
}

/* The sender's address of a message, as much as @len takes. */
static void ds_hdr_addr(const struct ds_header *hdr, struct sockaddr *sa,
			socklen_t *len)
{
	union ds_addr a;
	socklen_t size;

	memset(&a, 0, sizeof(a));
	if (hdr->version == 4) {
		a.sin.sin_family = AF_INET;
		a.sin.sin_port = hdr->port;
		a.sin.sin_addr.s_addr = hdr->addr.ipv4;
	} else {
		a.sin6.sin6_family = AF_INET6;
		a.sin6.sin6_port = hdr->port;
		a.sin6.sin6_flowinfo = hdr->addr.ipv6.flowinfo;
		memcpy(&a.sin6.sin6_addr, hdr->addr.ipv6.addr, 16);
	}
	size = ds_addrlen(&a.sa);
	memcpy(sa, &a, *len < size ? *len : size);
	*len = size;
}

/**
 * ds_init() - the UDP socket and epoll fd of a new datagram rsocket
 * @rs: the rsocket
 * @domain: AF_INET or AF_INET6
 *
 * Return: the UDP socket's fd (the rsocket's number), or -1 with errno.
 */
int ds_init(struct rsock *rs, int domain)
{
	struct rs_dgram *dg = calloc(1, sizeof(*dg));

	if (!dg)
		return rcm_err(ENOMEM);
	rs->dg = dg;
	dg->epfd = -1;
	dg->udp = socket(domain, SOCK_DGRAM, 0);
	if (dg->udp < 0)
		return -1;
	dg->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (dg->epfd < 0)
		return -1;
	return dg->udp;
}

/* The smallest max_qp_wr of the devices, as librdmacm's sizes take. */
static int ds_max_qp_wr(void)
{
	struct ibv_context **list = rdma_get_devices(NULL);
	struct rcm_verbs_device *dev;
	int i, max = RS_QP_MAX_SIZE;

	for (i = 0; list && list[i]; i++) {
		dev = rcm_device_of(list[i]);
		if (dev && dev->max_qp_wr < max)
			max = dev->max_qp_wr;
	}
	if (list)
		rdma_free_devices(list);
	return max;
}

/*
 * The queues and buffers, on the first rbind(), rconnect() or rsendto():
 * one RS_SNDLOWAT slot a queue entry. Caller holds cq_lock.
 */
static int ds_init_ep(struct rsock *rs)
{
	struct rs_dgram *dg = rs->dg;
	int max = ds_max_qp_wr(), i;

	if (rs->state)
		return 0;
	if (rs->sq_size > max)
		rs->sq_size = max;
	if (rs->rq_size > max)
		rs->rq_size = max;
	if (rs->rq_size > rs->rbuf_size / RS_SNDLOWAT)
		rs->rq_size = rs->rbuf_size / RS_SNDLOWAT;
	if (rs->sq_size > rs->sbuf_size / RS_SNDLOWAT)
		rs->sq_size = rs->sbuf_size / RS_SNDLOWAT;
	/* librdmacm would make a QP that never receives or sends */
	if (!rs->rq_size)
		rs->rq_size = 1;
	if (!rs->sq_size)
		rs->sq_size = 1;
	rs->rbuf_size = rs->rq_size * RS_SNDLOWAT;
	rs->sbuf_size = rs->sq_size * RS_SNDLOWAT;

	rs->sbuf = calloc(rs->sq_size, RS_SNDLOWAT);
	dg->free_slots = calloc(rs->sq_size, sizeof(*dg->free_slots));
	dg->rmsg = calloc(rs->rq_size + 1, sizeof(*dg->rmsg));
	if (!rs->sbuf || !dg->free_slots || !dg->rmsg)
		return rcm_err(ENOMEM);
	for (i = 0; i < rs->sq_size; i++)
		dg->free_slots[i] = i;
	rs->sqe_avail = rs->sq_size;
	dg->rqe_avail = rs->rq_size;
	rs->state = RS_READABLE | RS_WRITABLE;
	return 0;
}

static int ds_post_recv(struct rsock *rs, struct ds_qp *qp, uint32_t offset)
{
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)qp->rbuf + rs->rbuf_size,
		  .length = sizeof(struct ibv_grh), .lkey = qp->rmr->lkey },
		{ .addr = (uintptr_t)qp->rbuf + offset,
		  .length = RS_SNDLOWAT, .lkey = qp->rmr->lkey },
	};
	struct ibv_recv_wr wr = {
		.wr_id = DS_WR_RECV | offset, .sg_list = sge, .num_sge = 2,
	}, *bad;

	errno = ibv_post_recv(qp->cm_id->qp, &wr, &bad);
	return errno ? -1 : 0;
}

/* The index of @gid in the port's table, RoCE v2's when there are two. */
static int ds_gid_index(struct ibv_context *verbs, uint8_t port,
			const union ibv_gid *gid)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	union ibv_gid g;
	int i, found = -1;

	if (ibv_query_port(verbs, port, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (!ibv_query_gid_ex(verbs, port, i, &e, 0)) {
			if (memcmp(&e.gid, gid, sizeof(*gid)))
				continue;
			if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
				return i;
		} else if (ibv_query_gid(verbs, port, i, &g) ||
			   memcmp(&g, gid, sizeof(*gid))) {
			continue;
		}
		if (found < 0)
			found = i;
	}
	return found;
}

/*
 * The QP's AH to itself, for the UDP socket's data: the port's LID on
 * InfiniBand (librdmacm's), the address's GID through a GRH on RoCE,
 * where the kernel takes no AH without one.
 */
static int ds_self_ah(struct ds_qp *qp, const union ds_addr *src)
{
	struct rdma_cm_id *id = qp->cm_id;
	struct ibv_ah_attr attr = { .port_num = id->port_num };
	struct ibv_port_attr pa;
	int idx;

	if (ibv_query_port(id->verbs, id->port_num, &pa))
		return -1;
	qp->max_msg = (128u << pa.active_mtu) < RS_SNDLOWAT ?
		      (128u << pa.active_mtu) : RS_SNDLOWAT;
	qp->max_msg -= qp->hdr.length;
	if (pa.link_layer == IBV_LINK_LAYER_INFINIBAND) {
		attr.dlid = pa.lid;
	} else {
		union ibv_gid *gid = &attr.grh.dgid;

		if (src->sa.sa_family == AF_INET) {
			memset(gid, 0, sizeof(*gid));
			gid->raw[10] = gid->raw[11] = 0xff;
			memcpy(&gid->raw[12], &src->sin.sin_addr, 4);
		} else {
			memcpy(gid, &src->sin6.sin6_addr, 16);
		}
		idx = ds_gid_index(id->verbs, id->port_num, gid);
		if (idx < 0)
			return rcm_err(EADDRNOTAVAIL);
		attr.is_global = 1;
		attr.grh.sgid_index = idx;
		attr.grh.hop_limit = 64;
	}
	qp->self_ah = ibv_create_ah(id->pd, &attr);
	return qp->self_ah ? 0 : -1;
}

static void ds_free_qp(struct rsock *rs, struct ds_qp *qp)
{
	struct ibv_cq *cq;
	void *ctx;

	if (qp->self_ah)
		ibv_destroy_ah(qp->self_ah);
	if (qp->cm_id && qp->cm_id->recv_cq_channel) {
		epoll_ctl(rs->dg->epfd, EPOLL_CTL_DEL,
			  qp->cm_id->recv_cq_channel->fd, NULL);
		while (!ibv_get_cq_event(qp->cm_id->recv_cq_channel, &cq, &ctx))
			ibv_ack_cq_events(cq, 1);
	}
	if (qp->cm_id && qp->cm_id->qp)
		rdma_destroy_qp(qp->cm_id);
	if (qp->smr)
		ibv_dereg_mr(qp->smr);
	if (qp->rmr)
		ibv_dereg_mr(qp->rmr);
	free(qp->rbuf);
	if (qp->cm_id)
		rdma_destroy_id(qp->cm_id);
	free(qp);
}

/* The QP's CQ and completion channel (O_NONBLOCK), armed. */
static int ds_create_cq(struct rsock *rs, struct ds_qp *qp)
{
	struct rdma_cm_id *id = qp->cm_id;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = qp };

	if (rs_make_cq(rs, id))
		return -1;
	if (epoll_ctl(rs->dg->epfd, EPOLL_CTL_ADD, id->recv_cq_channel->fd,
		      &ev))
		return -1;
	if (ibv_req_notify_cq(id->recv_cq, 0))
		return -1;
	qp->cq_armed = true;
	return 0;
}

/* A UD QP for local address @src, its buffers and its receives. */
static struct ds_qp *ds_create_qp(struct rsock *rs, const union ds_addr *src)
{
	struct ds_qp *qp = calloc(1, sizeof(*qp));
	size_t rlen = rs->rbuf_size + sizeof(struct ibv_grh);
	int i, err;

	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	ds_format_hdr(&qp->hdr, src);
	if (rdma_create_id(NULL, &qp->cm_id, qp, RDMA_PS_UDP) ||
	    rdma_bind_addr(qp->cm_id, (struct sockaddr *)&src->sa))
		goto err;
	if (!qp->cm_id->verbs) {
		errno = ENODEV;
		goto err;
	}
	qp->rbuf = calloc(1, rlen);
	if (!qp->rbuf) {
		errno = ENOMEM;
		goto err;
	}
	qp->smr = rdma_reg_msgs(qp->cm_id, rs->sbuf, rs->sbuf_size);
	qp->rmr = qp->smr ? rdma_reg_msgs(qp->cm_id, qp->rbuf, rlen) : NULL;
	if (!qp->rmr || ds_create_cq(rs, qp))
		goto err;

	if (rs_make_qp(rs, qp->cm_id, qp, IBV_QPT_UD))
		goto err;
	if (ds_self_ah(qp, src))
		goto err;
	for (i = 0; i < rs->rq_size; i++)
		if (ds_post_recv(rs, qp, i * RS_SNDLOWAT))
			goto err;
	qp->next = rs->dg->qps;
	rs->dg->qps = qp;
	return qp;
err:
	err = errno;
	ds_free_qp(rs, qp);
	errno = err;
	return NULL;
}

static bool ds_any_addr(const union ds_addr *a)
{
	if (a->sa.sa_family == AF_INET)
		return a->sin.sin_addr.s_addr == htonl(INADDR_ANY) ||
		       a->sin.sin_addr.s_addr == htonl(INADDR_LOOPBACK);
	return IN6_IS_ADDR_UNSPECIFIED(&a->sin6.sin6_addr) ||
	       IN6_IS_ADDR_LOOPBACK(&a->sin6.sin6_addr);
}

/*
 * The local address that sends to @dst: the UDP socket's, or when that
 * is a wildcard (or loopback), the one the routing table picks, with
 * the socket's port. An unbound socket is bound first (to a wildcard
 * and port 0), so that the port its messages name is the one it reads.
 */
static int ds_src_addr(struct rsock *rs, const union ds_addr *dst,
		       union ds_addr *src)
{
	socklen_t len = sizeof(*src);
	union ds_addr any;
	uint16_t port;
	int s, ret;

	if (getsockname(rs->dg->udp, &src->sa, &len))
		return -1;
	if (src->sin.sin_port == 0) {
		memset(&any, 0, sizeof(any));
		any.sa.sa_family = src->sa.sa_family;
		if (bind(rs->dg->udp, &any.sa, ds_addrlen(&any.sa)))
			return -1;
		len = sizeof(*src);
		if (getsockname(rs->dg->udp, &src->sa, &len))
			return -1;
	}
	if (src->sa.sa_family != dst->sa.sa_family)
		return rcm_err(EAFNOSUPPORT);
	if (!ds_any_addr(src))
		return 0;
	port = src->sin.sin_port;	/* sin6_port is at the same place */
	s = socket(dst->sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	ret = connect(s, &dst->sa, ds_addrlen(&dst->sa));
	len = sizeof(*src);
	if (!ret)
		ret = getsockname(s, &src->sa, &len);
	close(s);
	src->sin.sin_port = port;
	return ret;
}

static struct ds_qp *ds_get_qp(struct rsock *rs, const union ds_addr *src)
{
	struct ds_qp *qp;

	for (qp = rs->dg->qps; qp; qp = qp->next)
		if (!ds_compare(rdma_get_local_addr(qp->cm_id), src))
			return qp;
	return ds_create_qp(rs, src);
}

/* The destination @key, made (with a QP to send from) if new. */
static struct ds_dest *ds_get_dest(struct rsock *rs, const union ds_addr *key)
{
	struct ds_dest **found, *d;
	union ds_addr src;
	struct ds_qp *qp;

	found = tfind(key, &rs->dg->dests, ds_compare);
	if (found)
		return *found;
	if (ds_src_addr(rs, key, &src))
		return NULL;
	qp = ds_get_qp(rs, &src);
	if (!qp)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->addr = *key;
	d->qp = qp;
	if (!tsearch(d, &rs->dg->dests, ds_compare)) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

/*
 * The AH to @d's QP @qpn: address and route resolved as a connection's
 * would be, from the address of the QP that sends to it.
 */
static void ds_dest_ah(struct ds_dest *d, uint32_t qpn)
{
	struct ibv_ah_attr attr = { 0 };
	struct ibv_sa_path_rec *p;
	struct rdma_cm_id *id;
	struct ibv_port_attr pa;
	union ds_addr src;
	int idx;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP))
		return;
	memcpy(&src, rdma_get_local_addr(d->qp->cm_id),
	       ds_addrlen(rdma_get_local_addr(d->qp->cm_id)));
	src.sin.sin_port = 0;
	if (rdma_resolve_addr(id, &src.sa, &d->addr.sa, DS_RESOLVE_MS) ||
	    rdma_resolve_route(id, DS_RESOLVE_MS) || !id->route.num_paths ||
	    ibv_query_port(id->verbs, id->port_num, &pa))
		goto out;
	p = id->route.path_rec;
	if (p->hop_limit > 1 || pa.link_layer != IBV_LINK_LAYER_INFINIBAND) {
		idx = ds_gid_index(id->verbs, id->port_num, &p->sgid);
		if (idx < 0)
			goto out;
		attr.is_global = 1;
		attr.grh.dgid = p->dgid;
		attr.grh.flow_label = be32toh(p->flow_label);
		attr.grh.sgid_index = idx;
		attr.grh.hop_limit = p->hop_limit ? p->hop_limit : 64;
		attr.grh.traffic_class = p->traffic_class;
	}
	attr.dlid = be16toh(p->dlid);
	attr.sl = p->sl;
	attr.src_path_bits = be16toh(p->slid) & ((1 << pa.lmc) - 1);
	attr.static_rate = p->rate;
	attr.port_num = id->port_num;
	if (d->ah)
		ibv_destroy_ah(d->ah);
	d->qpn = qpn;
	d->ah = ibv_create_ah(d->qp->cm_id->pd, &attr);
out:
	rdma_destroy_id(id);
}

/* A datagram through the UDP socket: a ds_udp_header, then @iov. */
static ssize_t ds_send_udp(struct rsock *rs, struct ds_dest *d,
			   const struct iovec *iov, int iovcnt, int flags,
			   uint8_t op)
{
	struct ds_udp_header hdr = {
		.tag = htobe32(DS_UDP_TAG), .op = op,
		.version = d->qp->hdr.version,
		.qpn = htobe32(d->qp->cm_id->qp->qp_num & 0xFFFFFF),
	};
	struct iovec v[1 + RS_DGRAM_IOV_MAX];
	struct msghdr msg = {
		.msg_name = &d->addr, .msg_namelen = ds_addrlen(&d->addr.sa),
		.msg_iov = v, .msg_iovlen = iovcnt + 1,
	};
	ssize_t ret;

	if (hdr.version == 4) {
		hdr.length = DS_UDP_IPV4_HDR_LEN;
		hdr.addr.ipv4 = d->qp->hdr.addr.ipv4;
	} else {
		hdr.length = DS_UDP_IPV6_HDR_LEN;
		memcpy(hdr.addr.ipv6, d->qp->hdr.addr.ipv6.addr, 16);
	}
	v[0].iov_base = &hdr;
	v[0].iov_len = hdr.length;
	if (iovcnt)
		memcpy(&v[1], iov, iovcnt * sizeof(*iov));
	ret = sendmsg(rs->dg->udp, &msg, flags);
	return ret > 0 ? ret - hdr.length : ret;
}

/* Take the QPs' completions: received messages queued, slots freed. */
static void ds_poll_cqs(struct rsock *rs)
{
	struct rs_dgram *dg = rs->dg;
	struct ds_header *hdr;
	struct ds_rmsg *m;
	struct ibv_wc wc;
	struct ds_qp *qp;
	uint32_t off;
	bool more;

	do {
		more = false;
		for (qp = dg->qps; qp; qp = qp->next) {
			/* No room for a message: leave it in the CQ. */
			if (!dg->rqe_avail && rs->sqe_avail)
				return;
			if (ibv_poll_cq(qp->cm_id->recv_cq, 1, &wc) <= 0)
				continue;
			more = true;
			if (!(wc.wr_id & DS_WR_RECV)) {
				dg->free_slots[rs->sqe_avail++] = (uint16_t)wc.wr_id;
				continue;
			}
			off = (uint32_t)wc.wr_id;
			hdr = (struct ds_header *)(qp->rbuf + off);
			if (!dg->rqe_avail || wc.status != IBV_WC_SUCCESS ||
			    wc.byte_len < sizeof(struct ibv_grh) ||
			    !ds_valid_hdr(hdr, wc.byte_len - sizeof(struct ibv_grh))) {
				ds_post_recv(rs, qp, off);
				continue;
			}
			dg->rqe_avail--;
			m = &dg->rmsg[rs->rmsg_tail];
			m->qp = qp;
			m->offset = off;
			m->length = wc.byte_len - sizeof(struct ibv_grh);
			if (++rs->rmsg_tail == rs->rq_size + 1)
				rs->rmsg_tail = 0;
		}
	} while (more);
}

/* Post one message (header, then @len bytes of @iov) to @ah/@qpn. */
static int ds_post_send(struct rsock *rs, struct ds_qp *qp,
			const struct ds_header *hdr, const struct iovec *iov,
			int iovcnt, size_t len, struct ibv_ah *ah, uint32_t qpn)
{
	uint16_t slot = rs->dg->free_slots[--rs->sqe_avail];
	uint8_t *p = rs->sbuf + (size_t)slot * RS_SNDLOWAT;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p, .length = hdr->length + len,
		.lkey = qp->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = sge.length <= rs->sq_inline ? IBV_SEND_INLINE : 0,
		.wr.ud = { .ah = ah, .remote_qpn = qpn,
			   .remote_qkey = RDMA_UDP_QKEY },
	}, *bad;
	int i;

	memcpy(p, hdr, hdr->length);
	p += hdr->length;
	for (i = 0; i < iovcnt && len; i++) {
		size_t n = iov[i].iov_len < len ? iov[i].iov_len : len;

		memcpy(p, iov[i].iov_base, n);
		p += n;
		len -= n;
	}
	errno = ibv_post_send(qp->cm_id->qp, &wr, &bad);
	if (errno) {
		rs->dg->free_slots[rs->sqe_avail++] = slot;
		return -1;
	}
	return 0;
}

/* Take the completion channels' events (the CQs need arming again). */
static void ds_cq_events(struct rsock *rs)
{
	struct ibv_cq *cq;
	struct ds_qp *qp;
	void *ctx;

	for (qp = rs->dg->qps; qp; qp = qp->next) {
		while (!ibv_get_cq_event(qp->cm_id->recv_cq_channel, &cq, &ctx)) {
			ibv_ack_cq_events(cq, 1);
			qp->cq_armed = false;
		}
	}
}

/* Arm every CQ; true when one was not (poll once more before sleeping). */
static bool ds_arm(struct rsock *rs)
{
	struct ds_qp *qp;
	bool armed = false;

	for (qp = rs->dg->qps; qp; qp = qp->next) {
		if (!qp->cq_armed) {
			ibv_req_notify_cq(qp->cm_id->recv_cq, 0);
			qp->cq_armed = true;
			armed = true;
		}
	}
	return armed;
}

static bool ds_can_send(struct rsock *rs)
{
	return rs->sqe_avail > 0;
}

static bool ds_have_rdata(struct rsock *rs)
{
	return rs->rmsg_head != rs->rmsg_tail;
}

static bool ds_all_sends_done(struct rsock *rs)
{
	return rs->sqe_avail == rs->sq_size;
}

/*
 * Wait, with cq_lock dropped, for a completion, or with @udp, for the
 * UDP socket too; -1 ms: no bound.
 */
static void ds_sleep(struct rsock *rs, bool udp, int ms)
{
	struct pollfd fds[2] = {
		{ .fd = rs->dg->epfd, .events = POLLIN },
		{ .fd = udp ? rs->dg->udp : -1, .events = POLLIN },
	};

	pthread_mutex_unlock(&rs->cq_lock);
	poll(fds, 2, ms);
	pthread_mutex_lock(&rs->cq_lock);
	if (fds[0].revents)
		ds_cq_events(rs);
}

/*
 * Until @test holds, take completions only (no UDP), sleeping at most
 * @sleeps times rs_wake_up_interval: a UD send completes at once, or is
 * flushed. True when @test holds.
 */
static bool ds_wait_sends(struct rsock *rs, ds_test_fn test, int sleeps)
{
	for (;;) {
		ds_poll_cqs(rs);
		if (test(rs) || !rs->dg->qps)
			return test(rs);
		if (ds_arm(rs))
			continue;	/* poll once more: the race with arming */
		if (sleeps-- <= 0)
			return false;
		ds_sleep(rs, false, rs_wake_up_interval);
	}
}

/*
 * A datagram of the UDP socket, from @from: an RS_OP_DATA is answered
 * (RS_OP_CTRL, our QP), its data passed to our QP as if sent to it; an
 * AH to the sender's QP is made when it is new or changed.
 */
static void ds_udp_datagram(struct rsock *rs, uint8_t *buf, size_t n,
			    const union ds_addr *from)
{
	struct ds_udp_header *uh = (struct ds_udp_header *)buf;
	struct ds_header hdr;
	struct ds_dest *d;
	struct iovec iov;
	uint32_t qpn;

	if (n < DS_UDP_IPV4_HDR_LEN || be32toh(uh->tag) != DS_UDP_TAG ||
	    !((uh->version == 4 && from->sa.sa_family == AF_INET &&
	       uh->length == DS_UDP_IPV4_HDR_LEN) ||
	      (uh->version == 6 && from->sa.sa_family == AF_INET6 &&
	       uh->length == DS_UDP_IPV6_HDR_LEN)) ||
	    n < uh->length || (uh->op != RS_OP_DATA && uh->op != RS_OP_CTRL))
		return;
	qpn = be32toh(uh->qpn) & 0xFFFFFF;
	d = ds_get_dest(rs, from);
	if (!d)
		return;
	if (uh->op == RS_OP_DATA)
		ds_send_udp(rs, d, NULL, 0, MSG_DONTWAIT, RS_OP_CTRL);
	if (!d->ah || d->qpn != qpn)
		ds_dest_ah(d, qpn);
	if (uh->op != RS_OP_DATA)
		return;
	iov.iov_base = buf + uh->length;
	iov.iov_len = n - uh->length;
	/* As librdmacm, which reads into RS_SNDLOWAT bytes: cut, not lost. */
	if (iov.iov_len > d->qp->max_msg)
		iov.iov_len = d->qp->max_msg;
	if (!ds_wait_sends(rs, ds_can_send, 1))
		return;
	ds_format_hdr(&hdr, from);
	ds_post_send(rs, d->qp, &hdr, &iov, 1, iov.iov_len, d->qp->self_ah,
		     d->qp->cm_id->qp->qp_num);
}

/* Read what the UDP socket has, without waiting. Caller holds cq_lock. */
static void ds_udp_read(struct rsock *rs)
{
	uint8_t buf[RS_SNDLOWAT];
	union ds_addr from, key;
	socklen_t len;
	ssize_t n;
	int i;

	if (!rs->state)
		return;
	for (i = 0; i < DS_UDP_BURST; i++) {
		len = sizeof(from);
		n = recvfrom(rs->dg->udp, buf, sizeof(buf), MSG_DONTWAIT,
			     &from.sa, &len);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		/* An ICMP error of an earlier send: taken, and ignored. */
		if (n < 0 || ds_key(&key, &from.sa, len))
			continue;
		ds_udp_datagram(rs, buf, n, &key);
	}
}

/*
 * Read the UDP socket and the completions until @test holds. Caller
 * holds cq_lock; it is dropped while sleeping.
 *
 * Return: 0, or -1 with EWOULDBLOCK when @nonblock and @test fails.
 */
static int ds_process(struct rsock *rs, bool nonblock, ds_test_fn test)
{
	uint64_t spin = 0;
	struct timespec t;
	uint64_t now;

	for (;;) {
		int err = errno;

		ds_udp_read(rs);
		ds_poll_cqs(rs);
		errno = err;
		if (test(rs))
			return 0;
		if (nonblock)
			return rcm_err(EWOULDBLOCK);
		/* librdmacm busy-polls polling_time microseconds first */
		clock_gettime(CLOCK_MONOTONIC, &t);
		now = t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
		if (!spin)
			spin = now + rs_polling_time;
		if (now < spin)
			continue;
		if (ds_arm(rs))
			continue;	/* poll once more: the race with arming */
		ds_sleep(rs, true, -1);
	}
}

/**
 * ds_bind() - rbind() of a datagram rsocket
 * @rs: the rsocket
 * @addr: the address
 * @len: its length
 *
 * Return: 0, or -1 with bind(2)'s errno.
 */
int ds_bind(struct rsock *rs, const struct sockaddr *addr, socklen_t len)
{
	int ret;

	pthread_mutex_lock(&rs->cq_lock);
	ret = ds_init_ep(rs);
	pthread_mutex_unlock(&rs->cq_lock);
	return ret ? ret : bind(rs->dg->udp, addr, len);
}

/**
 * ds_connect() - rconnect() of a datagram rsocket: its destination
 * @rs: the rsocket
 * @addr: the destination of rsend() and rwrite()
 * @len: its length
 *
 * As librdmacm, nothing goes to the peer: the UDP socket is connected,
 * and the QP that sends to @addr made. Return: 0, or -1 with errno.
 */
int ds_connect(struct rsock *rs, const struct sockaddr *addr, socklen_t len)
{
	union ds_addr key;
	struct ds_dest *d = NULL;
	int ret;

	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->cq_lock);
	ret = ds_init_ep(rs);
	if (!ret)
		ret = connect(rs->dg->udp, addr, len);
	if (!ret)
		ret = ds_key(&key, addr, len);
	if (!ret) {
		d = ds_get_dest(rs, &key);
		if (d)
			rs->dg->conn = d;
		else
			ret = -1;
	}
	pthread_mutex_unlock(&rs->cq_lock);
	pthread_mutex_unlock(&rs->slock);
	return ret;
}

/**
 * ds_sendv() - send one datagram: rsend(), rsendto(), rsendmsg()...
 * @rs: the rsocket
 * @iov: the data
 * @iovcnt: entries of @iov
 * @flags: MSG_DONTWAIT, or flags for the UDP socket
 * @to: the destination, or NULL for rconnect()'s
 * @tolen: its length
 *
 * Return: the bytes sent, or -1 with errno: EWOULDBLOCK (no send slot,
 * non-blocking), EMSGSIZE (longer than a UD packet takes), EDESTADDRREQ,
 * EINVAL, or the CM's and verbs' (the destination's QP).
 */
ssize_t ds_sendv(struct rsock *rs, const struct iovec *iov, int iovcnt,
		 int flags, const struct sockaddr *to, socklen_t tolen)
{
	struct ds_dest *d = NULL;
	union ds_addr key;
	size_t len = 0;
	ssize_t ret = 0;
	int i;

	if (iovcnt < 0 || (iovcnt && !iov))
		return rcm_err(EINVAL);
	if (iovcnt > RS_DGRAM_IOV_MAX)
		return rcm_err(ENOTSUP);	/* librdmacm's UDP path */
	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;

	pthread_mutex_lock(&rs->slock);
	pthread_mutex_lock(&rs->cq_lock);
	if (to) {
		ret = ds_init_ep(rs);
		if (!ret)
			ret = ds_key(&key, to, tolen);
		if (!ret && !(rs->dg->conn && !ds_compare(&key, &rs->dg->conn->addr)))
			d = ds_get_dest(rs, &key);
		else if (!ret)
			d = rs->dg->conn;
		if (!ret && !d)
			ret = -1;
	} else {
		d = rs->dg->conn;
		if (!d)
			ret = rcm_err(EDESTADDRREQ);
	}
	if (ret)
		goto out;
	if (len > d->qp->max_msg) {
		ret = rcm_err(EMSGSIZE);
		goto out;
	}
	/* An answer that names the peer's QP switches to UD at once. */
	ds_udp_read(rs);
	if (!d->ah) {
		ret = ds_send_udp(rs, d, iov, iovcnt, flags, RS_OP_DATA);
		goto out;
	}
	if (!ds_can_send(rs)) {
		ret = ds_process(rs, rs_nonblocking(rs, flags), ds_can_send);
		if (ret)
			goto out;
	}
	ret = ds_post_send(rs, d->qp, &d->qp->hdr, iov, iovcnt, len, d->ah,
			   d->qpn);
	if (!ret)
		ret = len;
out:
	pthread_mutex_unlock(&rs->cq_lock);
	pthread_mutex_unlock(&rs->slock);
	return ret;
}

/**
 * ds_recvfrom() - receive one datagram: rrecv(), rrecvfrom(), rread()...
 * @rs: the rsocket
 * @buf: where its data goes; what does not fit is lost, as on UDP
 * @len: the room in @buf
 * @flags: MSG_DONTWAIT, MSG_PEEK
 * @from: the sender's address, or NULL
 * @fromlen: in, @from's room; out, the address's length
 *
 * Return: the bytes of data, or -1 with errno: EINVAL before the
 * rsocket was bound, connected or sent from (librdmacm's), EWOULDBLOCK.
 */
ssize_t ds_recvfrom(struct rsock *rs, void *buf, size_t len, int flags,
		    struct sockaddr *from, socklen_t *fromlen)
{
	struct ds_header *hdr;
	struct ds_rmsg *m;
	ssize_t ret = 0;

	pthread_mutex_lock(&rs->rlock);
	pthread_mutex_lock(&rs->cq_lock);
	if (!(rs->state & RS_READABLE)) {
		ret = rcm_err(EINVAL);
		goto out;
	}
	ret = ds_process(rs, rs_nonblocking(rs, flags), ds_have_rdata);
	if (ret)
		goto out;
	m = &rs->dg->rmsg[rs->rmsg_head];
	hdr = (struct ds_header *)(m->qp->rbuf + m->offset);
	if (len > m->length - hdr->length)
		len = m->length - hdr->length;
	memcpy(buf, (uint8_t *)hdr + hdr->length, len);
	if (from && fromlen)
		ds_hdr_addr(hdr, from, fromlen);
	if (!(flags & MSG_PEEK)) {
		ds_post_recv(rs, m->qp, m->offset);
		if (++rs->rmsg_head == rs->rq_size + 1)
			rs->rmsg_head = 0;
		rs->dg->rqe_avail++;
	}
	ret = len;
out:
	pthread_mutex_unlock(&rs->cq_lock);
	pthread_mutex_unlock(&rs->rlock);
	return ret;
}

/**
 * ds_poll() - the ready events of a datagram rsocket, for rpoll()
 * @rs: the rsocket
 * @events: POLLIN, POLLOUT
 * @wait: NULL, or two entries to fill with what to sleep on when none
 *        is ready (the completion channels' epoll fd, the UDP socket),
 *        the CQs armed
 *
 * Return: the events ready.
 */
short ds_poll(struct rsock *rs, short events, struct pollfd *wait)
{
	short revents = 0;

	pthread_mutex_lock(&rs->cq_lock);
	do {
		ds_udp_read(rs);
		ds_poll_cqs(rs);
		revents = 0;
		if ((events & POLLIN) && ds_have_rdata(rs))
			revents |= POLLIN;
		if ((events & POLLOUT) && ds_can_send(rs))
			revents |= POLLOUT;
	} while (!revents && wait && ds_arm(rs));
	if (wait) {
		wait[0].fd = rs->dg->epfd;
		wait[1].fd = rs->dg->udp;
		wait[0].events = wait[1].events = POLLIN;
		wait[0].revents = wait[1].revents = 0;
	}
	pthread_mutex_unlock(&rs->cq_lock);
	return revents;
}

/**
 * ds_poll_wake() - after rpoll()'s sleep, take the completion events
 * @rs: the rsocket
 * @wait: the entries ds_poll() filled, with their revents
 */
void ds_poll_wake(struct rsock *rs, const struct pollfd *wait)
{
	if (!wait[0].revents)
		return;
	pthread_mutex_lock(&rs->cq_lock);
	ds_cq_events(rs);
	pthread_mutex_unlock(&rs->cq_lock);
}

/**
 * ds_name() - rgetsockname() or rgetpeername(): the UDP socket's
 * @rs: the rsocket
 * @addr: filled in
 * @len: in, @addr's room; out, the address's length
 * @peer: the peer's (rconnect()'s) rather than ours
 *
 * Return: 0, or -1 with getsockname(2)'s or getpeername(2)'s errno.
 */
int ds_name(struct rsock *rs, struct sockaddr *addr, socklen_t *len, bool peer)
{
	return peer ? getpeername(rs->dg->udp, addr, len) :
		      getsockname(rs->dg->udp, addr, len);
}

/**
 * ds_setsockopt() - the UDP socket's part of rsetsockopt()
 * @rs: the rsocket
 * @level: not SOL_RDMA
 * @optname: the option
 * @optval: its value
 * @optlen: its length
 *
 * As librdmacm, every option but SOL_RDMA's goes to the UDP socket
 * first, and its error is the call's.
 *
 * Return: 0, or -1 with setsockopt(2)'s errno.
 */
int ds_setsockopt(struct rsock *rs, int level, int optname,
		  const void *optval, socklen_t optlen)
{
	return setsockopt(rs->dg->udp, level, optname, optval, optlen);
}

/**
 * ds_active() - whether the rsocket has a QP (its buffer sizes are set)
 * @rs: the rsocket
 *
 * Return: true once a QP exists.
 */
bool ds_active(struct rsock *rs)
{
	return rs->dg && rs->dg->qps;
}

static void ds_free_dest(void *p)
{
	struct ds_dest *d = p;

	if (d->ah)
		ibv_destroy_ah(d->ah);
	free(d);
}

/**
 * ds_free() - rclose() of a datagram rsocket: wait for its sends to
 *             complete, then free it all
 * @rs: the rsocket, out of the table
 */
void ds_free(struct rsock *rs)
{
	struct rs_dgram *dg = rs->dg;
	struct ds_qp *qp;

	if (!dg)
		return;
	if (rs->state && dg->qps) {
		pthread_mutex_lock(&rs->cq_lock);
		rs->state &= ~(RS_READABLE | RS_WRITABLE);
		/* Nothing is read any more: room for all, so sends are seen. */
		rs->rmsg_head = rs->rmsg_tail = 0;
		dg->rqe_avail = rs->rq_size;
		ds_wait_sends(rs, ds_all_sends_done, 4);
		pthread_mutex_unlock(&rs->cq_lock);
	}
	tdestroy(dg->dests, ds_free_dest);
	while ((qp = dg->qps)) {
		dg->qps = qp->next;
		ds_free_qp(rs, qp);
	}
	if (dg->udp >= 0)
		close(dg->udp);
	if (dg->epfd >= 0)
		close(dg->epfd);
	free(dg->free_slots);
	free(dg->rmsg);
	free(rs->sbuf);
	rs->sbuf = NULL;
	free(dg);
	rs->dg = NULL;
}
