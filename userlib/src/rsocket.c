// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: the rsocket calls (rsocket(7)): stream rsockets over RC,
 * datagram rsockets over UD.
 *
 * A stream rsocket is a synchronous id (rdma_create_id() with no
 * channel), and its number is the fd of the id's private channel, as in
 * librdmacm, so that it never collides with another descriptor of the
 * process. A datagram rsocket's number is its UDP socket's fd. The
 * stream protocol is in rs_proto.c, the datagram one in rs_dgram.c,
 * rpoll() and rselect() in rs_poll.c; each call here passes a datagram
 * rsocket to rs_dgram.c.
 *
 * AF_IB is refused (ENOTSUP): rcm does not prefix an rsocket's private
 * data with the IB connect header here.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "rcm_lib.h"
#include "rs_priv.h"

/* The rsockets by number: a table indexed by their channel's fd. */
static pthread_mutex_t rs_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rsock **rs_table;
static int rs_table_size;

/**
 * rs_lookup() - the rsocket of a number
 * @index: the number (an fd)
 *
 * Return: the rsocket, or NULL (errno untouched).
 */
struct rsock *rs_lookup(int index)
{
	struct rsock *rs = NULL;

	pthread_mutex_lock(&rs_table_lock);
	if (index >= 0 && index < rs_table_size)
		rs = rs_table[index];
	pthread_mutex_unlock(&rs_table_lock);
	return rs;
}

static int rs_insert(struct rsock *rs, int index)
{
	struct rsock **t;
	int n;

	pthread_mutex_lock(&rs_table_lock);
	if (index >= rs_table_size) {
		n = rs_table_size ? rs_table_size : 64;
		while (n <= index)
			n *= 2;
		t = realloc(rs_table, n * sizeof(*t));
		if (!t) {
			pthread_mutex_unlock(&rs_table_lock);
			return rcm_err(ENOMEM);
		}
		memset(t + rs_table_size, 0, (n - rs_table_size) * sizeof(*t));
		rs_table = t;
		rs_table_size = n;
	}
	rs_table[index] = rs;
	rs->index = index;
	pthread_mutex_unlock(&rs_table_lock);
	return 0;
}

static void rs_remove(struct rsock *rs)
{
	pthread_mutex_lock(&rs_table_lock);
	if (rs->index >= 0 && rs->index < rs_table_size &&
	    rs_table[rs->index] == rs)
		rs_table[rs->index] = NULL;
	pthread_mutex_unlock(&rs_table_lock);
	rs->index = -1;
}

/* A new rsocket; an accepted one takes its listener's sizes. */
static struct rsock *rs_alloc(const struct rsock *parent)
{
	struct rsock *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->index = -1;
	rs->type = SOCK_STREAM;
	if (parent) {
		rs->sbuf_size = parent->sbuf_size;
		rs->rbuf_size = parent->rbuf_size;
		rs->sq_inline = parent->sq_inline;
		rs->sq_size = parent->sq_size;
		rs->rq_size = parent->rq_size;
		rs->ctrl_max_seqno = parent->ctrl_max_seqno;
		rs->target_iomap_size = parent->target_iomap_size;
	} else {
		rs->sbuf_size = rs_def_wmem;
		rs->rbuf_size = rs_def_mem;
		rs->sq_inline = rs_def_inline;
		rs->sq_size = rs_def_sqsize;
		rs->rq_size = rs_def_rqsize;
		rs->ctrl_max_seqno = RS_QP_CTRL_SIZE;
		rs->target_iomap_size = rs_def_iomap;
	}
	pthread_mutex_init(&rs->slock, NULL);
	pthread_mutex_init(&rs->rlock, NULL);
	pthread_mutex_init(&rs->cq_lock, NULL);
	pthread_mutex_init(&rs->map_lock, NULL);
	return rs;
}

static void rs_free(struct rsock *rs)
{
	if (rs->index >= 0)
		rs_remove(rs);
	if (rs->type == SOCK_DGRAM)
		ds_free(rs);
	else
		rs_free_ep(rs);
	free(rs->route);
	pthread_mutex_destroy(&rs->slock);
	pthread_mutex_destroy(&rs->rlock);
	pthread_mutex_destroy(&rs->cq_lock);
	pthread_mutex_destroy(&rs->map_lock);
	free(rs);
}

static int rs_set_fd_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl) < 0 ? -1 : 0;
}

RCM_EXPORT int rsocket(int domain, int type, int protocol)
{
	struct rsock *rs;
	int fd;

	if ((domain != AF_INET && domain != AF_INET6) ||
	    (type != SOCK_STREAM && type != SOCK_DGRAM) ||
	    (type == SOCK_STREAM && protocol && protocol != IPPROTO_TCP) ||
	    (type == SOCK_DGRAM && protocol && protocol != IPPROTO_UDP))
		return rcm_err(ENOTSUP);

	rs_configure();
	rs = rs_alloc(NULL);
	if (!rs)
		return rcm_err(ENOMEM);
	if (type == SOCK_DGRAM) {
		rs->type = SOCK_DGRAM;
		fd = ds_init(rs, domain);
		if (fd < 0)
			goto err;
	} else {
		if (rdma_create_id(NULL, &rs->cm_id, rs, RDMA_PS_TCP))
			goto err;
		rs->cm_id->route.addr.src_addr.sa_family = domain;
		fd = rs->cm_id->channel->fd;
	}
	if (rs_insert(rs, fd))
		goto err;
	return rs->index;
err:
	{
		int e = errno;

		rs_free(rs);
		return rcm_err(e);
	}
}

RCM_EXPORT int rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rsock *rs = rs_lookup(socket);

	if (!rs)
		return rcm_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return ds_bind(rs, addr, addrlen);
	if (rdma_bind_addr(rs->cm_id, (struct sockaddr *)addr))
		return -1;
	rs->state = RS_BOUND;
	return 0;
}

RCM_EXPORT int rlisten(int socket, int backlog)
{
	struct rsock *rs = rs_lookup(socket);

	if (!rs)
		return rcm_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return rcm_err(EOPNOTSUPP);	/* librdmacm crashes */
	if (rs->state == RS_LISTENING)
		return 0;
	if (rdma_listen(rs->cm_id, backlog))
		return -1;
	rs->state = RS_LISTENING;
	return 0;
}

/*
 * Once connected, the CM channel is read only after poll(2) said it is
 * readable, by whichever waiter comes first (rs_cm_event()): O_NONBLOCK,
 * so that the others do not block on what the first one took.
 */
static int rs_cm_nonblock(struct rsock *rs)
{
	if (rs_set_fd_nonblock(rs->cm_id->channel->fd, true)) {
		rs->state = RS_ERROR;
		rs->err = errno;
		return -1;
	}
	return 0;
}

/* Reject and forget a request that is not an rsocket's. */
static void rs_refuse(struct rdma_cm_id *id)
{
	rdma_reject(id, NULL, 0);
	rdma_destroy_id(id);
}

/*
 * The listener's next request, accepted: blocks unless the listener is
 * O_NONBLOCK (EAGAIN). A request with private data that is not an
 * rsocket's (another version, too short) is rejected and skipped.
 */
static struct rsock *rs_accept_one(struct rsock *l)
{
	struct rdma_conn_param param;
	struct rs_conn_data creq, cresp;
	struct rdma_cm_id *id;
	struct rsock *rs;
	int err;

	for (;;) {
		if (rdma_get_request(l->cm_id, &id))
			return NULL;
		param = id->event->param.conn;
		if (rs_check_conn_data(param.private_data,
				       param.private_data_len)) {
			rs_refuse(id);
			continue;
		}
		memcpy(&creq, param.private_data, sizeof(creq));

		rs = rs_alloc(l);
		if (!rs) {
			rs_refuse(id);
			errno = ENOMEM;
			return NULL;
		}
		rs->cm_id = id;
		id->context = rs;
		if (rs_create_ep(rs)) {
			err = errno;
			rdma_reject(id, NULL, 0);
			rs_free(rs);
			errno = err;
			return NULL;
		}
		rs_save_conn_data(rs, &creq);
		rs_format_conn_data(rs, &cresp);
		param.private_data = &cresp;
		param.private_data_len = sizeof(cresp);
		/* The request's channel is blocking: this waits for the RTU. */
		if (rdma_accept(id, &param)) {
			rs_free(rs);
			continue;
		}
		rs->state = RS_CONNECT_RDWR;
		if (rs_cm_nonblock(rs) || rs_insert(rs, id->channel->fd)) {
			rs_free(rs);
			errno = ENOMEM;
			return NULL;
		}
		return rs;
	}
}

RCM_EXPORT int raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rsock *l = rs_lookup(socket), *rs;

	if (!l || l->state != RS_LISTENING)
		return rcm_err(EBADF);
	rs = rs_accept_one(l);
	if (!rs)
		return -1;
	if (addr && addrlen)
		rgetpeername(rs->index, addr, addrlen);
	return rs->index;
}

static int rs_resolve_addr(struct rsock *rs)
{
	return rdma_resolve_addr(rs->cm_id, NULL,
				 &rs->cm_id->route.addr.dst_addr,
				 1000 << rs->retries++);
}

static int rs_resolve_route(struct rsock *rs)
{
	int to = 1000 << rs->retries++;

	if (!rs->route)
		return rdma_resolve_route(rs->cm_id, to);
	/* An RDMA_ROUTE path: rcm refuses it (rdma_set_option(3)). */
	to = rdma_set_option(rs->cm_id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
			     rs->route, rs->route_len);
	free(rs->route);
	rs->route = NULL;
	if (!to)
		return rcm_sync_complete(rcm_id(rs->cm_id));
	return -1;
}

/*
 * One resolution step of a connect, @start (which doubles the timeout
 * with each retry): begun afresh, or, with the rsocket in @waiting (the
 * step under way on an O_NONBLOCK rsocket), its completion taken, and
 * begun again after an ETIMEDOUT while retries remain. A @start that
 * does not complete at once leaves the rsocket in @waiting.
 *
 * Return: 0 once the step is done, or -1 with errno.
 */
static int rs_resolve_step(struct rsock *rs, int (*start)(struct rsock *),
			   int waiting)
{
	int ret;

	if (rs->state == waiting) {
		ret = rcm_sync_complete(rcm_id(rs->cm_id));
		if (!ret || errno != ETIMEDOUT ||
		    rs->retries > RS_CONN_RETRIES)
			return ret;
	} else {
		rs->retries = 0;
	}
	ret = start(rs);
	if (ret)
		rs->state = waiting;
	return ret;
}

static int rs_start_connect(struct rsock *rs)
{
	struct rdma_conn_param param = {
		.flow_control = 1, .retry_count = 7, .rnr_retry_count = 7,
	};
	struct rs_conn_data creq;

	if (rs_create_ep(rs))
		return -1;
	rs_format_conn_data(rs, &creq);
	param.private_data = &creq;
	param.private_data_len = sizeof(creq);
	/* iWARP reads during the connection's set-up */
	if (rs->opts & RS_OPT_MSG_SEND)
		param.initiator_depth = 1;
	rs->retries = 0;
	return rdma_connect(rs->cm_id, &param);
}

static int rs_connected(struct rsock *rs)
{
	struct rdma_cm_event *ev = rs->cm_id->event;
	struct rs_conn_data cresp;

	if (!ev || rs_check_conn_data(ev->param.conn.private_data,
				      ev->param.conn.private_data_len))
		return rcm_err(ENOTSUP);
	memcpy(&cresp, ev->param.conn.private_data, sizeof(cresp));
	rs_save_conn_data(rs, &cresp);
	rs->state = RS_CONNECT_RDWR;
	return rs_cm_nonblock(rs);
}

/**
 * rs_do_connect() - drive an rsocket's connection as far as it goes
 * @rs: the rsocket
 *
 * Address, route (each retried with a doubling timeout on ETIMEDOUT),
 * then the connect; on an O_NONBLOCK rsocket each step that would wait
 * returns EINPROGRESS, and the next call goes on from there.
 *
 * Return: 0 once connected, or -1 with errno (EINPROGRESS, ENOTCONN
 * after a failed connection, ENOTSUP for a peer that answered with
 * private data that is not an rsocket's, the CM's errors).
 */
int rs_do_connect(struct rsock *rs)
{
	int ret;

	pthread_mutex_lock(&rs->slock);
	switch (rs->state) {
	case RS_INIT:
	case RS_BOUND:
	case RS_RESOLVING_ADDR:
		ret = rs_resolve_step(rs, rs_resolve_addr, RS_RESOLVING_ADDR);
		if (ret)
			break;
		/* fall through */
	case RS_RESOLVING_ROUTE:
		ret = rs_resolve_step(rs, rs_resolve_route, RS_RESOLVING_ROUTE);
		if (ret)
			break;
		ret = rs_start_connect(rs);
		if (ret) {
			if (rs->cm_id->qp)
				rs->state = RS_CONNECTING;
			break;
		}
		ret = rs_connected(rs);
		break;
	case RS_CONNECTING:
		ret = rcm_sync_complete(rcm_id(rs->cm_id));
		if (!ret)
			ret = rs_connected(rs);
		break;
	case RS_CONNECT_ERROR:
	case RS_DISCONNECTED:
	case RS_ERROR:
		pthread_mutex_unlock(&rs->slock);
		return rcm_err(ENOTCONN);
	default:
		pthread_mutex_unlock(&rs->slock);
		return (rs->state & RS_CONNECTED) ? 0 : rcm_err(EINVAL);
	}

	if (ret) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			errno = EINPROGRESS;
		} else {
			rs->state = RS_CONNECT_ERROR;
			rs->err = errno;
		}
	}
	pthread_mutex_unlock(&rs->slock);
	return ret;
}

RCM_EXPORT int rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rsock *rs = rs_lookup(socket);

	if (!rs)
		return rcm_err(EBADF);
	if (!addr || addrlen > sizeof(struct sockaddr_storage))
		return rcm_err(EINVAL);
	if (rs->type == SOCK_DGRAM)
		return ds_connect(rs, addr, addrlen);
	if (!(rs->state & RS_OPENING) && rs->state <= RS_BOUND)
		memcpy(&rs->cm_id->route.addr.dst_addr, addr, addrlen);
	return rs_do_connect(rs);
}

/* Before data moves: finish a connection in progress (EAGAIN if not). */
static int rs_ready(struct rsock *rs)
{
	if (rs->state & RS_OPENING) {
		if (rs_do_connect(rs)) {
			if (errno == EINPROGRESS)
				errno = EAGAIN;
			return -1;
		}
	}
	if (!(rs->state & (RS_CONNECTED | RS_DISCONNECTED | RS_ERROR)))
		return rcm_err(ENOTCONN);
	return 0;
}

RCM_EXPORT ssize_t rrecv(int socket, void *buf, size_t len, int flags)
{
	struct rsock *rs = rs_lookup(socket);

	if (!rs)
		return rcm_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return ds_recvfrom(rs, buf, len, flags, NULL, NULL);
	if (rs_ready(rs))
		return -1;
	return rs_recv_data(rs, buf, len, flags);
}

RCM_EXPORT ssize_t rrecvfrom(int socket, void *buf, size_t len, int flags,
			     struct sockaddr *src_addr, socklen_t *addrlen)
{
	struct rsock *rs = rs_lookup(socket);
	ssize_t ret;

	if (rs && rs->type == SOCK_DGRAM)
		return ds_recvfrom(rs, buf, len, flags, src_addr, addrlen);
	ret = rrecv(socket, buf, len, flags);

	if (ret > 0 && src_addr && addrlen)
		rgetpeername(socket, src_addr, addrlen);
	return ret;
}

/* As librdmacm: a vector receive fills the first buffer only. */
RCM_EXPORT ssize_t rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	if (msg->msg_control && msg->msg_controllen)
		return rcm_err(ENOTSUP);
	if (!msg->msg_iovlen)
		return 0;
	return rrecv(socket, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len,
		     flags);
}

RCM_EXPORT ssize_t rread(int socket, void *buf, size_t count)
{
	return rrecv(socket, buf, count, 0);
}

RCM_EXPORT ssize_t rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	if (iovcnt <= 0)
		return iovcnt ? rcm_err(EINVAL) : 0;
	return rrecv(socket, iov[0].iov_base, iov[0].iov_len, 0);
}

static ssize_t rsendv(int socket, const struct iovec *iov, int iovcnt,
		      int flags)
{
	struct rsock *rs = rs_lookup(socket);
	struct rs_src src = { .iov = iov };
	size_t len = 0;
	int i;

	if (!rs)
		return rcm_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return ds_sendv(rs, iov, iovcnt, flags, NULL, 0);
	if (iovcnt < 0)
		return rcm_err(EINVAL);
	if (rs_ready(rs))
		return -1;
	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	/* Skip leading empty vectors: rs_src_copy() expects bytes. */
	while (len && !src.iov->iov_len)
		src.iov++;
	return rs_send_data(rs, &src, len, flags, false, 0);
}

RCM_EXPORT ssize_t rsend(int socket, const void *buf, size_t len, int flags)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return rsendv(socket, &iov, 1, flags);
}

RCM_EXPORT ssize_t rsendto(int socket, const void *buf, size_t len, int flags,
			   const struct sockaddr *dest_addr, socklen_t addrlen)
{
	struct rsock *rs = rs_lookup(socket);

	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (!rs)
		return rcm_err(EBADF);
	if (rs->type == SOCK_DGRAM)
		return ds_sendv(rs, &iov, 1, flags, dest_addr, addrlen);
	/* librdmacm 44: a stream rsocket takes no address, not even a length. */
	if (dest_addr || addrlen)
		return rcm_err(EISCONN);
	return rsend(socket, buf, len, flags);
}

RCM_EXPORT ssize_t rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	struct rsock *rs = rs_lookup(socket);

	if (msg->msg_control && msg->msg_controllen)
		return rcm_err(ENOTSUP);
	if (rs && rs->type == SOCK_DGRAM)
		return ds_sendv(rs, msg->msg_iov, (int)msg->msg_iovlen, flags,
				msg->msg_name, msg->msg_namelen);
	return rsendv(socket, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

RCM_EXPORT ssize_t rwrite(int socket, const void *buf, size_t count)
{
	return rsend(socket, buf, count, 0);
}

RCM_EXPORT ssize_t rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	return rsendv(socket, iov, iovcnt, 0);
}

/* Flush the QP, so that waiters on the CQ see the end. */
static void rs_flush_qp(struct rsock *rs)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	if (rs->cm_id && rs->cm_id->qp)
		ibv_modify_qp(rs->cm_id->qp, &attr, IBV_QP_STATE);
}

/*
 * Tell the peer (RS_CTRL_SHUTDOWN, or DISCONNECT once both directions
 * are closed) and wait until every send completed.
 */
static int rs_shutdown(struct rsock *rs, int how)
{
	uint32_t ctrl;
	int ret = 0;

	if (rs->state & RS_CONNECTED) {
		if (how == SHUT_RDWR) {
			ctrl = RS_CTRL_DISCONNECT;
			rs->state &= ~(RS_READABLE | RS_WRITABLE);
		} else if (how == SHUT_WR) {
			rs->state &= ~RS_WRITABLE;
			ctrl = (rs->state & RS_READABLE) ? RS_CTRL_SHUTDOWN :
							   RS_CTRL_DISCONNECT;
		} else {
			rs->state &= ~RS_READABLE;
			if (rs->state & RS_WRITABLE)
				return 0;
			ctrl = RS_CTRL_DISCONNECT;
		}
		if (!rs_ctrl_avail(rs))
			ret = rs_process(rs, false, rs_conn_can_send_ctrl);
		if (!ret) {
			pthread_mutex_lock(&rs->cq_lock);
			if ((rs->state & RS_CONNECTED) && rs_ctrl_avail(rs))
				ret = rs_post_ctrl(rs, ctrl);
			pthread_mutex_unlock(&rs->cq_lock);
		}
		if (rs->state & RS_CONNECTED)
			rs_process(rs, false, rs_all_sends_done);
	}
	if (rs->state & RS_DISCONNECTED)
		rs_flush_qp(rs);
	return ret;
}

RCM_EXPORT int rshutdown(int socket, int how)
{
	struct rsock *rs = rs_lookup(socket);

	if (!rs)
		return rcm_err(EBADF);
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return rcm_err(EINVAL);
	return rs_shutdown(rs, how);
}

RCM_EXPORT int rclose(int socket)
{
	struct rsock *rs = rs_lookup(socket);

	/* As librdmacm: the positive value, errno untouched. */
	if (!rs)
		return EBADF;
	rs_remove(rs);
	if (rs->state & RS_CONNECTED)
		rs_shutdown(rs, SHUT_RDWR);
	rs_flush_qp(rs);
	rs_free(rs);
	return 0;
}

static void rs_copy_addr(struct sockaddr *dst, const struct sockaddr *src,
			 socklen_t *len)
{
	socklen_t size = src->sa_family == AF_INET6 ?
			 sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	memcpy(dst, src, *len < size ? *len : size);
	*len = size;
}

/* The local or, with @peer, the remote address of rsocket @socket. */
static int rs_name(int socket, struct sockaddr *addr, socklen_t *addrlen,
		   bool peer)
{
	struct rsock *rs = rs_lookup(socket);

	if (!rs)
		return rcm_err(EBADF);
	if (!addr || !addrlen)
		return rcm_err(EFAULT);
	if (rs->type == SOCK_DGRAM)
		return ds_name(rs, addr, addrlen, peer);
	rs_copy_addr(addr, peer ? rdma_get_peer_addr(rs->cm_id) :
				  rdma_get_local_addr(rs->cm_id), addrlen);
	return 0;
}

RCM_EXPORT int rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return rs_name(socket, addr, addrlen, true);
}

RCM_EXPORT int rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return rs_name(socket, addr, addrlen, false);
}

static int rs_opt_int(const void *optval, socklen_t optlen)
{
	int v = 0;

	if (optval && optlen >= sizeof(int))
		memcpy(&v, optval, sizeof(v));
	return v;
}

static int rs_keepalive_default(void)
{
	unsigned int t = 7200;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_keepalive_time", "re");

	if (f) {
		if (fscanf(f, "%u", &t) != 1)
			t = 7200;
		fclose(f);
	}
	return t;
}

RCM_EXPORT int rsetsockopt(int socket, int level, int optname, const void *optval,
			   socklen_t optlen)
{
	struct rsock *rs = rs_lookup(socket);
	uint64_t *opts = NULL;
	int ret = rcm_err(ENOTSUP), on = 0, v;

	if (!rs)
		return rcm_err(EBADF);
	if (!optval || optlen < sizeof(int))
		return rcm_err(EINVAL);
	v = rs_opt_int(optval, optlen);
	/* A datagram rsocket's UDP socket takes all but SOL_RDMA's first. */
	if (rs->type == SOCK_DGRAM && level != SOL_RDMA) {
		ret = ds_setsockopt(rs, level, optname, optval, optlen);
		if (ret)
			return ret;
	}

	switch (level) {
	case SOL_SOCKET:
		opts = &rs->so_opts;
		switch (optname) {
		case SO_REUSEADDR:
			if (rs->type == SOCK_DGRAM) {
				on = v;
				break;
			}
			ret = rdma_set_option(rs->cm_id, RDMA_OPTION_ID,
					      RDMA_OPTION_ID_REUSEADDR,
					      (void *)optval, optlen);
			/* As librdmacm: too late on a bound IB id is fine */
			if (ret && (errno == ENOSYS || rs->state != RS_INIT))
				ret = 0;
			on = v;
			break;
		case SO_RCVBUF:
			if (rs->type == SOCK_DGRAM ? !ds_active(rs) : !rs->rbuf)
				rs->rbuf_size = (uint32_t)v << 1;
			ret = 0;
			break;
		case SO_SNDBUF:
			if (!rs->sbuf)
				rs->sbuf_size = (uint32_t)v << 1;
			if (rs->sbuf_size < RS_SNDLOWAT)
				rs->sbuf_size = RS_SNDLOWAT << 1;
			ret = 0;
			break;
		case SO_LINGER:
			if (optlen < sizeof(struct linger))
				return rcm_err(EINVAL);
			/* Stored inverted, so that the default 0 is on. */
			on = !((const struct linger *)optval)->l_onoff;
			ret = 0;
			break;
		case SO_KEEPALIVE:
			if (v && !rs->keepalive_time)
				rs->keepalive_time = rs_keepalive_default();
			if (v)
				rs->opts |= RS_OPT_KEEPALIVE;
			else
				rs->opts &= ~RS_OPT_KEEPALIVE;
			on = v;
			ret = 0;
			break;
		case SO_OOBINLINE:
			on = v;
			ret = 0;
			break;
		}
		break;
	case IPPROTO_TCP:
		opts = &rs->tcp_opts;
		switch (optname) {
		case TCP_KEEPCNT:
		case TCP_KEEPINTVL:
		case TCP_MAXSEG:
			ret = 0;	/* nothing to do on a reliable connection */
			break;
		case TCP_KEEPIDLE:
			if (v <= 0)
				return rcm_err(EINVAL);
			rs->keepalive_time = v;
			ret = 0;
			break;
		case TCP_NODELAY:
			on = v;
			ret = 0;
			break;
		}
		break;
	case IPPROTO_IPV6:
		opts = &rs->ipv6_opts;
		if (optname == IPV6_V6ONLY) {
			if (rs->type != SOCK_DGRAM)
				ret = rdma_set_option(rs->cm_id, RDMA_OPTION_ID,
						      RDMA_OPTION_ID_AFONLY,
						      (void *)optval, optlen);
			on = v;
		}
		break;
	case SOL_RDMA:
		if (rs->state >= RS_OPENING)
			return rcm_err(EINVAL);
		switch (optname) {
		case RDMA_SQSIZE:
			rs->sq_size = (uint32_t)v < RS_QP_MAX_SIZE ? v : RS_QP_MAX_SIZE;
			ret = 0;
			break;
		case RDMA_RQSIZE:
			rs->rq_size = (uint32_t)v < RS_QP_MAX_SIZE ? v : RS_QP_MAX_SIZE;
			ret = 0;
			break;
		case RDMA_INLINE:
			rs->sq_inline = (uint32_t)v < RS_QP_MAX_SIZE ? v : RS_QP_MAX_SIZE;
			ret = 0;
			break;
		case RDMA_IOMAPSIZE:
			rs->target_iomap_size = (uint16_t)rs_scale_to_value(
				(uint8_t)rs_value_to_scale(v, 8), 8);
			ret = 0;
			break;
		case RDMA_ROUTE:
			free(rs->route);
			rs->route = malloc(optlen);
			if (!rs->route)
				return rcm_err(ENOMEM);
			memcpy(rs->route, optval, optlen);
			rs->route_len = optlen;
			ret = 0;
			break;
		}
		break;
	}

	if (!ret && opts && optname < 64) {
		if (on)
			*opts |= 1ULL << optname;
		else
			*opts &= ~(1ULL << optname);
	}
	return ret;
}

static void rs_path_data(const struct ibv_sa_path_rec *p,
			 struct ibv_path_data *d)
{
	uint32_t fl = be32toh(p->flow_label) << 8;

	memset(d, 0, sizeof(*d));
	d->path.dgid = p->dgid;
	d->path.sgid = p->sgid;
	d->path.dlid = p->dlid;
	d->path.slid = p->slid;
	d->path.flowlabel_hoplimit = htobe32(fl | p->hop_limit);
	d->path.tclass = p->traffic_class;
	d->path.reversible_numpath = p->reversible << 7 | 1;
	d->path.pkey = p->pkey;
	d->path.qosclass_sl = htobe16(p->sl);
	d->path.mtu = p->mtu | 2 << 6;		/* exactly */
	d->path.rate = p->rate | 2 << 6;
	d->path.packetlifetime = p->packet_life_time | 2 << 6;
	d->flags = p->preference;
}

static int rs_get_route(struct rsock *rs, void *optval, socklen_t *optlen)
{
	struct ibv_path_data d;
	socklen_t len = 0;
	int i;

	if (rs->route) {
		if (*optlen < rs->route_len)
			return rcm_err(EINVAL);
		memcpy(optval, rs->route, rs->route_len);
		*optlen = rs->route_len;
		return 0;
	}
	if (!rs->cm_id)
		return rcm_err(ENOTSUP);	/* datagram: librdmacm crashes */
	if (*optlen < sizeof(d))
		return rcm_err(EINVAL);
	for (i = 0; i < rs->cm_id->route.num_paths &&
		    len + sizeof(d) <= *optlen; i++) {
		rs_path_data(&rs->cm_id->route.path_rec[i], &d);
		memcpy((char *)optval + len, &d, sizeof(d));
		len += sizeof(d);
	}
	*optlen = len;
	return 0;
}

RCM_EXPORT int rgetsockopt(int socket, int level, int optname, void *optval,
			   socklen_t *optlen)
{
	struct rsock *rs = rs_lookup(socket);
	int v;

	if (!rs)
		return rcm_err(EBADF);
	if (!optval || !optlen)
		return rcm_err(EINVAL);

	switch (level) {
	case SOL_SOCKET:
		switch (optname) {
		case SO_REUSEADDR:
		case SO_KEEPALIVE:
		case SO_OOBINLINE:
			v = !!(rs->so_opts & (1ULL << optname));
			break;
		case SO_RCVBUF:
			v = rs->rbuf_size;
			break;
		case SO_SNDBUF:
			v = rs->sbuf_size;
			break;
		case SO_LINGER:
			if (*optlen < sizeof(struct linger))
				return rcm_err(EINVAL);
			((struct linger *)optval)->l_onoff =
				!(rs->so_opts & (1ULL << optname));
			((struct linger *)optval)->l_linger = 0;
			*optlen = sizeof(struct linger);
			return 0;
		case SO_ERROR:
			v = rs->err;
			rs->err = 0;
			break;
		default:
			return rcm_err(ENOTSUP);
		}
		break;
	case IPPROTO_TCP:
		switch (optname) {
		case TCP_KEEPCNT:
		case TCP_KEEPINTVL:
			v = 1;
			break;
		case TCP_KEEPIDLE:
			v = rs->keepalive_time;
			break;
		case TCP_NODELAY:
			v = !!(rs->tcp_opts & (1ULL << optname));
			break;
		case TCP_MAXSEG:
			v = rs->cm_id && rs->cm_id->route.num_paths ?
			    1 << (7 + rs->cm_id->route.path_rec->mtu) : 2048;
			break;
		default:
			return rcm_err(ENOTSUP);
		}
		break;
	case IPPROTO_IPV6:
		if (optname != IPV6_V6ONLY)
			return rcm_err(ENOTSUP);
		v = !!(rs->ipv6_opts & (1ULL << optname));
		break;
	case SOL_RDMA:
		switch (optname) {
		case RDMA_SQSIZE:
			v = rs->sq_size;
			break;
		case RDMA_RQSIZE:
			v = rs->rq_size;
			break;
		case RDMA_INLINE:
			v = rs->sq_inline;
			break;
		case RDMA_IOMAPSIZE:
			v = rs->target_iomap_size;
			break;
		case RDMA_ROUTE:
			return rs_get_route(rs, optval, optlen);
		default:
			return rcm_err(ENOTSUP);
		}
		break;
	default:
		return rcm_err(ENOTSUP);
	}
	if (*optlen < sizeof(int))
		return rcm_err(EINVAL);
	memcpy(optval, &v, sizeof(v));
	*optlen = sizeof(int);
	return 0;
}

RCM_EXPORT int rfcntl(int socket, int cmd, ...)
{
	struct rsock *rs = rs_lookup(socket);
	va_list ap;
	int arg;

	if (!rs)
		return rcm_err(EBADF);
	switch (cmd) {
	case F_GETFL:
		return rs->fd_flags;
	case F_SETFL:
		va_start(ap, cmd);
		arg = va_arg(ap, int);
		va_end(ap);
		/* The CM channel waits for the CM until connected. */
		if (((rs->fd_flags ^ arg) & O_NONBLOCK) && rs->cm_id &&
		    (rs->state == RS_LISTENING || rs->state < RS_CONNECTED) &&
		    rs_set_fd_nonblock(rs->cm_id->channel->fd, arg & O_NONBLOCK))
			return -1;
		rs->fd_flags = arg;
		return 0;
	default:
		return rcm_err(ENOTSUP);
	}
}

RCM_EXPORT off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
			off_t offset)
{
	struct rsock *rs = rs_lookup(socket);
	int access = IBV_ACCESS_LOCAL_WRITE, used = 0, index = -1;
	struct rs_iomap_mr *m, **pos;

	(void)flags;
	if (!rs)
		return rcm_err(EBADF);
	if (!rs->cm_id || !rs->cm_id->pd || (prot & ~(PROT_WRITE | PROT_NONE)))
		return rcm_err(EINVAL);

	pthread_mutex_lock(&rs->map_lock);
	if (prot & PROT_WRITE) {
		/* The first slot of the peer's table that is free. */
		for (index = 0; index < (int)rs->remote_iomap.length; index++) {
			used = 0;
			for (m = rs->iomaps; m; m = m->next)
				if (m->index == index)
					used = 1;
			if (!used)
				break;
		}
		if (index >= (int)rs->remote_iomap.length) {
			pthread_mutex_unlock(&rs->map_lock);
			return rcm_err(ENOMEM);
		}
		access |= IBV_ACCESS_REMOTE_WRITE;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		pthread_mutex_unlock(&rs->map_lock);
		return rcm_err(ENOMEM);
	}
	m->index = index;
	m->mr = ibv_reg_mr(rs->cm_id->pd, buf, len, access);
	if (!m->mr) {
		free(m);
		pthread_mutex_unlock(&rs->map_lock);
		return -1;
	}
	if (offset == -1)
		offset = (uintptr_t)buf;
	m->offset = offset;
	for (pos = &rs->iomaps; *pos; pos = &(*pos)->next)
		;
	*pos = m;
	if (index >= 0)
		rs->iomap_pending = true;
	pthread_mutex_unlock(&rs->map_lock);
	return offset;
}

RCM_EXPORT int riounmap(int socket, void *buf, size_t len)
{
	struct rsock *rs = rs_lookup(socket);
	struct rs_iomap_mr *m, **pos;

	if (!rs)
		return rcm_err(EBADF);
	pthread_mutex_lock(&rs->map_lock);
	for (pos = &rs->iomaps; (m = *pos); pos = &m->next) {
		if (m->mr->addr == buf && m->mr->length == len) {
			*pos = m->next;
			ibv_dereg_mr(m->mr);
			free(m);
			pthread_mutex_unlock(&rs->map_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&rs->map_lock);
	return rcm_err(EINVAL);
}

RCM_EXPORT size_t riowrite(int socket, const void *buf, size_t count, off_t offset,
			   int flags)
{
	struct rsock *rs = rs_lookup(socket);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = count };
	struct rs_src src = { .iov = &iov };

	if (!rs)
		return (size_t)rcm_err(EBADF);
	if (rs_ready(rs))
		return (size_t)-1;
	/* librdmacm's riowrite returns size_t: -1 converted, as it does. */
	return (size_t)rs_send_data(rs, &src, count, flags, true, offset);
}
