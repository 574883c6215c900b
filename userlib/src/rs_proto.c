// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: the stream rsocket wire protocol (see rs_priv.h): the
 * connection's buffers and QP, its private data, the messages in
 * immediate data, credits, and waiting for completions.
 *
 * Waiting never blocks in a verbs call: the completion channel's fd is
 * always O_NONBLOCK, and a waiter polls it together with the rsocket's
 * CM channel, so that a peer's DREQ (DISCONNECTED) ends a wait on data
 * that will never come, without a service thread.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>

#include "rcm_lib.h"
#include "rs_priv.h"

#define RS_WR_RECV	(1ULL << 63)
#define RS_WR_MSG_SEND	(1ULL << 62)	/* the SEND after an iWARP write */
#define RS_MAX_CTRL_MSG	sizeof(struct rs_sge)

#if __BYTE_ORDER == __BIG_ENDIAN
#define RS_HOST_IS_NET	1
#else
#define RS_HOST_IS_NET	0
#endif

/* Defaults, as librdmacm's; /etc/rdma/rsocket/ files override them. */
uint16_t rs_def_inline = 64;
uint16_t rs_def_sqsize = 384;
uint16_t rs_def_rqsize = 384;
uint16_t rs_def_iomap;
uint32_t rs_def_mem = 1 << 17;
uint32_t rs_def_wmem = 1 << 17;
uint32_t rs_polling_time = 10;		/* microseconds of busy polling */
int rs_wake_up_interval = 5000;		/* rpoll()'s longest sleep, ms */

/*
 * A size in 8 bits: values up to 128 as they are, larger ones as 128
 * plus the value shifted down by 8 (the iomap size's encoding).
 */
int rs_value_to_scale(int value, int bits)
{
	return value <= (1 << (bits - 1)) ?
	       value : (1 << (bits - 1)) | (value >> bits);
}

int rs_scale_to_value(int value, int bits)
{
	return value <= (1 << (bits - 1)) ?
	       value : (value & ~(1 << (bits - 1))) << bits;
}

static bool rs_read_conf(const char *name, const char *fmt, void *val)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", RS_CONF_DIR, name);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fscanf(f, fmt, val) == 1;
	fclose(f);
	return ok;
}

static void rs_configure_once(void)
{
	rs_read_conf("polling_time", "%u", &rs_polling_time);
	rs_read_conf("wake_up_interval", "%d", &rs_wake_up_interval);
	rs_read_conf("inline_default", "%hu", &rs_def_inline);
	rs_read_conf("sqsize_default", "%hu", &rs_def_sqsize);
	rs_read_conf("rqsize_default", "%hu", &rs_def_rqsize);
	if (rs_read_conf("mem_default", "%u", &rs_def_mem) && rs_def_mem < 1)
		rs_def_mem = 1;
	if (rs_read_conf("wmem_default", "%u", &rs_def_wmem) &&
	    rs_def_wmem < RS_SNDLOWAT)
		rs_def_wmem = RS_SNDLOWAT << 1;
	if (rs_read_conf("iomap_size", "%hu", &rs_def_iomap))
		rs_def_iomap = (uint8_t)rs_value_to_scale(
			(uint16_t)rs_scale_to_value(rs_def_iomap, 8), 8);
	if (rs_wake_up_interval <= 0)
		rs_wake_up_interval = 5000;
}

/**
 * rs_configure() - read the tuning files of /etc/rdma/rsocket once
 */
void rs_configure(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, rs_configure_once);
}

static uint64_t rs_time_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000ULL + now.tv_nsec / 1000;
}

/* Whole pages, so that fork protection never covers foreign memory. */
static void *rs_alloc_pages(size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	len = (len + page - 1) / page * page;
	if (posix_memalign(&p, page, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

static void rs_set_qp_size(struct rsock *rs)
{
	struct rcm_verbs_device *dev = rcm_device_of(rs->cm_id->verbs);
	int max = RS_QP_MAX_SIZE;

	if (dev && dev->max_qp_wr < max)
		max = dev->max_qp_wr;
	if (rs->sq_size > max)
		rs->sq_size = max;
	else if (rs->sq_size < RS_QP_MIN_SIZE)
		rs->sq_size = RS_QP_MIN_SIZE;
	if (rs->rq_size > max)
		rs->rq_size = max;
	else if (rs->rq_size < RS_QP_MIN_SIZE)
		rs->rq_size = RS_QP_MIN_SIZE;
}

static int rs_init_bufs(struct rsock *rs)
{
	size_t slen, tlen, rlen;

	rs->rmsg = calloc(rs->rq_size + 1, sizeof(*rs->rmsg));
	if (!rs->rmsg)
		return rcm_err(ENOMEM);

	/* Control messages that do not fit inline go after the data. */
	slen = rs->sbuf_size;
	if (rs->sq_inline < RS_MAX_CTRL_MSG)
		slen += RS_MAX_CTRL_MSG * RS_QP_CTRL_SIZE;
	rs->sbuf = rs_alloc_pages(slen);
	if (!rs->sbuf)
		return rcm_err(ENOMEM);
	rs->smr = rdma_reg_msgs(rs->cm_id, rs->sbuf, slen);
	if (!rs->smr)
		return -1;

	tlen = sizeof(struct rs_sge) * RS_SGL_SIZE +
	       sizeof(struct rs_iomap) * rs->target_iomap_size;
	rs->target_mem = rs_alloc_pages(tlen);
	if (!rs->target_mem)
		return rcm_err(ENOMEM);
	rs->target_mr = rdma_reg_write(rs->cm_id, rs->target_mem, tlen);
	if (!rs->target_mr)
		return -1;
	rs->target_sgl = rs->target_mem;
	if (rs->target_iomap_size)
		rs->target_iomap = (volatile struct rs_iomap *)
				   (rs->target_sgl + RS_SGL_SIZE);

	/* On iWARP each message lands after the data, one word a receive. */
	rlen = rs->rbuf_size;
	if (rs->opts & RS_OPT_MSG_SEND)
		rlen += rs->rq_size * RS_MSG_SIZE;
	rs->rbuf = rs_alloc_pages(rlen);
	if (!rs->rbuf)
		return rcm_err(ENOMEM);
	rs->rmr = rdma_reg_write(rs->cm_id, rs->rbuf, rlen);
	if (!rs->rmr)
		return -1;

	rs->ssgl[0].addr = rs->ssgl[1].addr = (uintptr_t)rs->sbuf;
	rs->ssgl[0].lkey = rs->ssgl[1].lkey = rs->smr->lkey;
	rs->sbuf_bytes_avail = rs->sbuf_size;
	/* The peer starts with the first half (the private data's). */
	rs->rbuf_free_offset = rs->rbuf_size >> 1;
	rs->rbuf_bytes_avail = rs->rbuf_size >> 1;
	rs->sqe_avail = rs->sq_size - rs->ctrl_max_seqno;
	rs->rseq_comp = rs->rq_size >> 1;
	return 0;
}

static int rs_post_recv(struct rsock *rs)
{
	struct ibv_recv_wr wr = { .wr_id = RS_WR_RECV }, *bad;
	struct ibv_sge sge;

	if (rs->opts & RS_OPT_MSG_SEND) {
		wr.wr_id |= rs->rbuf_msg_index;
		sge.addr = (uintptr_t)rs->rbuf + rs->rbuf_size +
			   rs->rbuf_msg_index * RS_MSG_SIZE;
		sge.length = RS_MSG_SIZE;
		sge.lkey = rs->rmr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (++rs->rbuf_msg_index == rs->rq_size)
			rs->rbuf_msg_index = 0;
	}
	errno = ibv_post_recv(rs->cm_id->qp, &wr, &bad);
	return errno ? -1 : 0;
}

/**
 * rs_make_cq() - an rsocket's CQ on @id, for sends and receives alike
 * @rs: the rsocket; its queue sizes give the CQ's
 * @id: the id whose fields get the CQ and its completion channel
 *
 * The completion channel is O_NONBLOCK; on failure it is gone again.
 *
 * Return: 0, or -1 with errno.
 */
int rs_make_cq(struct rsock *rs, struct rdma_cm_id *id)
{
	int fl;

	id->recv_cq_channel = ibv_create_comp_channel(id->verbs);
	if (!id->recv_cq_channel)
		return -1;
	fl = fcntl(id->recv_cq_channel->fd, F_GETFL);
	if (fl < 0 ||
	    fcntl(id->recv_cq_channel->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto err;
	id->recv_cq = ibv_create_cq(id->verbs, rs->sq_size + rs->rq_size,
				    id, id->recv_cq_channel, 0);
	if (!id->recv_cq)
		goto err;
	id->send_cq_channel = id->recv_cq_channel;
	id->send_cq = id->recv_cq;
	return 0;
err:
	ibv_destroy_comp_channel(id->recv_cq_channel);
	id->recv_cq_channel = NULL;
	return -1;
}

/**
 * rs_make_qp() - an rsocket's QP on @id, on the CQ of rs_make_cq()
 * @rs: the rsocket; its queue sizes and inline size give the QP's, and
 *	rs->sq_inline becomes the inline size the QP got
 * @id: the id, with its CQ
 * @context: the QP's context
 * @type: IBV_QPT_RC (a stream: a send's data may wrap around the ring
 *	  buffer, two SGEs) or IBV_QPT_UD (a datagram: a receive takes the
 *	  GRH and the data, two SGEs)
 *
 * Every send is signalled.
 *
 * Return: 0, or -1 with errno.
 */
int rs_make_qp(struct rsock *rs, struct rdma_cm_id *id, void *context,
	       enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.qp_context = context,
		.send_cq = id->send_cq,
		.recv_cq = id->recv_cq,
		.qp_type = type,
		.sq_sig_all = 1,
		.cap.max_send_wr = rs->sq_size,
		.cap.max_recv_wr = rs->rq_size,
		.cap.max_send_sge = type == IBV_QPT_UD ? 1 : 2,
		.cap.max_recv_sge = type == IBV_QPT_UD ? 2 : 1,
		.cap.max_inline_data = rs->sq_inline,
	};

	if (rdma_create_qp(id, NULL, &attr))
		return -1;
	rs->sq_inline = attr.cap.max_inline_data;
	return 0;
}

/**
 * rs_create_ep() - the connection's CQ, QP, buffers and receives
 * @rs: an rsocket whose id has a device (route resolved, or a request)
 *
 * Return: 0, or -1 with errno.
 */
int rs_create_ep(struct rsock *rs)
{
	int i;

	rs_set_qp_size(rs);
	if (rs->cm_id->verbs->device->transport_type == IBV_TRANSPORT_IWARP)
		rs->opts |= RS_OPT_MSG_SEND;
	if (rs_make_cq(rs, rs->cm_id) ||
	    rs_make_qp(rs, rs->cm_id, rs, IBV_QPT_RC))
		return -1;
	if ((rs->opts & RS_OPT_MSG_SEND) && rs->sq_inline < RS_MSG_SIZE)
		return rcm_err(ENOTSUP);

	if (rs_init_bufs(rs))
		return -1;
	for (i = 0; i < rs->rq_size; i++)
		if (rs_post_recv(rs))
			return -1;
	return 0;
}

/**
 * rs_free_ep() - undo rs_create_ep(), and destroy the id
 * @rs: the rsocket; its id and buffers are gone afterwards
 */
void rs_free_ep(struct rsock *rs)
{
	struct rs_iomap_mr *m;

	/*
	 * The QP first, then the MRs it may still be using (librdmacm 44
	 * deregisters first): rxe's deregistration waits up to 50 s for an
	 * MR's last reference and then WARNs, as a CI run of rsocket.sh's
	 * rstream_bw_rcm_server_intree_client did on Debian's 6.1. Once the
	 * QP is destroyed, nothing of it holds one.
	 */
	if (rs->cm_id && rs->cm_id->qp)
		rdma_destroy_qp(rs->cm_id);
	while ((m = rs->iomaps)) {
		rs->iomaps = m->next;
		ibv_dereg_mr(m->mr);
		free(m);
	}
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->target_mr)
		ibv_dereg_mr(rs->target_mr);
	free(rs->sbuf);
	free(rs->rbuf);
	free(rs->target_mem);
	free(rs->rmsg);
	if (rs->cm_id)
		rdma_destroy_id(rs->cm_id);
	rs->cm_id = NULL;
}

/**
 * rs_format_conn_data() - this side's private data
 * @rs: an rsocket after rs_create_ep()
 * @conn: filled in, big-endian
 */
void rs_format_conn_data(struct rsock *rs, struct rs_conn_data *conn)
{
	memset(conn, 0, sizeof(*conn));
	conn->version = RS_CONN_VERSION;
	conn->flags = RS_CONN_FLAG_IOMAP | (RS_HOST_IS_NET ? RS_CONN_FLAG_NET : 0);
	conn->credits = htobe16(rs->rq_size);
	conn->target_iomap_size =
		(uint8_t)rs_value_to_scale(rs->target_iomap_size, 8);
	conn->target_sgl.addr = htobe64((uintptr_t)rs->target_sgl);
	conn->target_sgl.length = htobe32(RS_SGL_SIZE);
	conn->target_sgl.key = htobe32(rs->target_mr->rkey);
	conn->data_buf.addr = htobe64((uintptr_t)rs->rbuf);
	conn->data_buf.length = htobe32(rs->rbuf_size >> 1);
	conn->data_buf.key = htobe32(rs->rmr->rkey);
}

/**
 * rs_check_conn_data() - whether a peer's private data is an rsocket's
 * @pdata: the private data
 * @len: its length
 *
 * Return: 0, or -1 with errno ENOTSUP: too short, another version, or
 * a target SGL or buffer that cannot be used.
 */
int rs_check_conn_data(const void *pdata, size_t len)
{
	struct rs_conn_data c;

	if (!pdata || len < sizeof(c))
		return rcm_err(ENOTSUP);
	memcpy(&c, pdata, sizeof(c));
	if (c.version != RS_CONN_VERSION || !c.credits ||
	    !be32toh(c.target_sgl.length) || !be32toh(c.data_buf.length))
		return rcm_err(ENOTSUP);
	return 0;
}

/**
 * rs_save_conn_data() - take the peer's private data
 * @rs: the rsocket
 * @conn: the peer's, checked by rs_check_conn_data()
 */
void rs_save_conn_data(struct rsock *rs, const struct rs_conn_data *conn)
{
	rs->remote_sgl.addr = be64toh(conn->target_sgl.addr);
	rs->remote_sgl.length = be32toh(conn->target_sgl.length);
	rs->remote_sgl.key = be32toh(conn->target_sgl.key);
	rs->remote_sge = 1;	/* the private data gave entry 0 */
	if (!!(conn->flags & RS_CONN_FLAG_NET) != RS_HOST_IS_NET)
		rs->opts |= RS_OPT_SWAP_SGL;
	if (conn->flags & RS_CONN_FLAG_IOMAP) {
		rs->remote_iomap.addr = rs->remote_sgl.addr +
			sizeof(struct rs_sge) * rs->remote_sgl.length;
		rs->remote_iomap.length =
			rs_scale_to_value(conn->target_iomap_size, 8);
		rs->remote_iomap.key = rs->remote_sgl.key;
	}
	rs->target_sgl[0].addr = be64toh(conn->data_buf.addr);
	rs->target_sgl[0].length = be32toh(conn->data_buf.length);
	rs->target_sgl[0].key = be32toh(conn->data_buf.key);
	rs->sseq_comp = be16toh(conn->credits);
}

static int rs_post(struct rsock *rs, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	errno = ibv_post_send(rs->cm_id->qp, wr, &bad);
	return errno ? -1 : 0;
}

/* iWARP: a message as an inline SEND of its 32 bits. */
static int rs_post_send_msg(struct rsock *rs, uint64_t wr_id, uint32_t msg)
{
	struct ibv_sge sge = { .addr = (uintptr_t)&msg, .length = sizeof(msg) };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE,
	};

	return rs_post(rs, &wr);
}

/* A message without data: a zero-length write with immediate. */
static int rs_post_msg(struct rsock *rs, uint32_t msg)
{
	struct ibv_send_wr wr = {
		.wr_id = msg, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data = htobe32(msg),
	};

	if (rs->opts & RS_OPT_MSG_SEND)
		return rs_post_send_msg(rs, msg, msg);
	return rs_post(rs, &wr);
}

static int rs_post_write(struct rsock *rs, struct ibv_sge *sgl, int nsge,
			 uint32_t wr_data, int flags, uint64_t addr,
			 uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_data, .sg_list = sgl, .num_sge = nsge,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = flags,
	};

	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	return rs_post(rs, &wr);
}

/* A write that carries a message: with immediate, or write then SEND. */
static int rs_post_write_msg(struct rsock *rs, struct ibv_sge *sgl, int nsge,
			     uint32_t msg, int flags, uint64_t addr,
			     uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = msg, .sg_list = sgl, .num_sge = nsge,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .send_flags = flags,
		.imm_data = htobe32(msg),
	};

	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	if (!(rs->opts & RS_OPT_MSG_SEND))
		return rs_post(rs, &wr);
	if (rs_post_write(rs, sgl, nsge, msg, flags, addr, rkey))
		return -1;
	return rs_post_send_msg(rs, RS_MSG(RS_MSG_OP(msg), 0) | RS_WR_MSG_SEND,
				msg);
}

bool rs_ctrl_avail(struct rsock *rs)
{
	return rs->ctrl_seqno != rs->ctrl_max_seqno;
}

static bool rs_2ctrl_avail(struct rsock *rs)
{
	return (int)((rs->ctrl_seqno + 1) - rs->ctrl_max_seqno) < 0;
}

/* Grant the peer more messages, and the next half of rbuf if free. */
static void rs_send_credits(struct rsock *rs)
{
	struct rs_sge sge, *cbuf;
	struct ibv_sge isge;
	uint32_t half = rs->rbuf_size >> 1;
	uint32_t msg;
	int flags = 0;

	rs->ctrl_seqno++;
	rs->rseq_comp = rs->rseq_no + (rs->rq_size >> 1);
	msg = RS_MSG(RS_OP_SGL, (uint16_t)(rs->rseq_no + rs->rq_size));
	if (rs->rbuf_bytes_avail < (int)half) {
		rs_post_msg(rs, msg);
		return;
	}

	if (rs->opts & RS_OPT_MSG_SEND)
		rs->ctrl_seqno++;
	sge.addr = (uintptr_t)&rs->rbuf[rs->rbuf_free_offset];
	sge.key = rs->rmr->rkey;
	sge.length = half;
	if (rs->opts & RS_OPT_SWAP_SGL) {
		sge.addr = bswap_64(sge.addr);
		sge.key = bswap_32(sge.key);
		sge.length = bswap_32(sge.length);
	}
	isge.length = sizeof(sge);
	if (rs->sq_inline < sizeof(sge)) {
		cbuf = (struct rs_sge *)(rs->sbuf + rs->sbuf_size +
			RS_MAX_CTRL_MSG * (rs->ctrl_seqno & (RS_QP_CTRL_SIZE - 1)));
		*cbuf = sge;
		isge.addr = (uintptr_t)cbuf;
		isge.lkey = rs->smr->lkey;
	} else {
		isge.addr = (uintptr_t)&sge;
		isge.lkey = 0;
		flags = IBV_SEND_INLINE;
	}
	rs_post_write_msg(rs, &isge, 1, msg, flags,
			  rs->remote_sgl.addr +
			  rs->remote_sge * sizeof(struct rs_sge),
			  rs->remote_sgl.key);

	rs->rbuf_bytes_avail -= half;
	rs->rbuf_free_offset += half;
	if (rs->rbuf_free_offset >= (int)rs->rbuf_size)
		rs->rbuf_free_offset = 0;
	if (++rs->remote_sge == (int)rs->remote_sgl.length)
		rs->remote_sge = 0;
}

static bool rs_give_credits(struct rsock *rs)
{
	bool want = rs->rbuf_bytes_avail >= (int)(rs->rbuf_size >> 1) ||
		    (int16_t)(rs->rseq_no - rs->rseq_comp) >= 0;
	bool room = (rs->opts & RS_OPT_MSG_SEND) ? rs_2ctrl_avail(rs) :
						   rs_ctrl_avail(rs);

	return want && room && (rs->state & RS_CONNECTED);
}

static void rs_update_credits(struct rsock *rs)
{
	if (rs_give_credits(rs))
		rs_send_credits(rs);
}

static void rs_recv_msg(struct rsock *rs, uint32_t msg)
{
	switch (RS_MSG_OP(msg)) {
	case RS_OP_SGL:
		rs->sseq_comp = (uint16_t)RS_MSG_DATA(msg);
		break;
	case RS_OP_IOMAP_SGL:	/* the peer's iomap table entry: noted */
	case RS_OP_WRITE:	/* never sent */
		break;
	case RS_OP_CTRL:
		if (RS_MSG_DATA(msg) == RS_CTRL_DISCONNECT) {
			rs->state = RS_DISCONNECTED;
		} else if (RS_MSG_DATA(msg) == RS_CTRL_SHUTDOWN) {
			if (rs->state & RS_WRITABLE)
				rs->state &= ~RS_READABLE;
			else
				rs->state = RS_DISCONNECTED;
		}
		break;
	default:
		rs->rmsg[rs->rmsg_tail].op = RS_MSG_OP(msg);
		rs->rmsg[rs->rmsg_tail].data = RS_MSG_DATA(msg);
		if (++rs->rmsg_tail == rs->rq_size + 1)
			rs->rmsg_tail = 0;
		break;
	}
}

static void rs_send_done(struct rsock *rs, struct ibv_wc *wc)
{
	uint32_t data = (uint32_t)wc->wr_id;

	switch (RS_MSG_OP(data)) {
	case RS_OP_SGL:
		rs->ctrl_max_seqno++;
		break;
	case RS_OP_CTRL:
		rs->ctrl_max_seqno++;
		if (RS_MSG_DATA(data) == RS_CTRL_DISCONNECT)
			rs->state = RS_DISCONNECTED;
		break;
	case RS_OP_IOMAP_SGL:
		rs->sqe_avail++;
		if (!(wc->wr_id & RS_WR_MSG_SEND))
			rs->sbuf_bytes_avail += sizeof(struct rs_iomap);
		break;
	default:
		rs->sqe_avail++;
		rs->sbuf_bytes_avail += RS_MSG_DATA(data);
		break;
	}
	if (wc->status != IBV_WC_SUCCESS && (rs->state & RS_CONNECTED)) {
		rs->state = RS_ERROR;
		rs->err = EIO;
	}
}

/* Caller holds cq_lock. Returns 0, or -1 with errno. */
static int rs_poll_cq(struct rsock *rs)
{
	struct ibv_wc wc;
	int n, recvs = 0, ret = 0;
	uint32_t msg;

	while ((n = ibv_poll_cq(rs->cm_id->recv_cq, 1, &wc)) > 0) {
		if (!(wc.wr_id & RS_WR_RECV)) {
			rs_send_done(rs, &wc);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			continue;
		recvs++;
		if (wc.wc_flags & IBV_WC_WITH_IMM)
			msg = be32toh(wc.imm_data);
		else
			msg = ((uint32_t *)(rs->rbuf + rs->rbuf_size))
			      [(uint32_t)wc.wr_id];
		rs_recv_msg(rs, msg);
		if (rs->state == RS_DISCONNECTED)
			return 0;
	}
	if (n < 0)
		return rcm_err(EIO);

	if (rs->state & RS_CONNECTED) {
		while (!ret && recvs--)
			ret = rs_post_recv(rs);
		if (ret) {
			rs->state = RS_ERROR;
			rs->err = errno;
		}
	}
	return ret;
}

/**
 * rs_cq_event() - take the completion channel's event, if any
 * @rs: the rsocket; caller holds cq_lock
 */
void rs_cq_event(struct rsock *rs)
{
	struct ibv_cq *cq;
	void *ctx;

	if (!rs->cm_id->recv_cq_channel)
		return;
	if (!ibv_get_cq_event(rs->cm_id->recv_cq_channel, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		rs->cq_armed = false;
	}
}

/**
 * rs_cm_event() - take a connected rsocket's CM event, if any
 * @rs: the rsocket; caller holds cq_lock
 *
 * DISCONNECTED (the peer's DREQ, or the peer's end) ends the
 * connection; DEVICE_REMOVAL makes it an error.
 */
void rs_cm_event(struct rsock *rs)
{
	struct rdma_cm_id *id = rs->cm_id;

	if (rcm_sync_complete(rcm_id(id)) && errno == EAGAIN)
		return;
	if (!id->event)
		return;
	switch (id->event->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		if (rs->state & RS_CONNECTED)
			rs->state = RS_DISCONNECTED;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (rs->state & RS_CONNECTED) {
			rs->state = RS_ERROR;
			rs->err = ENODEV;
		}
		break;
	default:
		break;
	}
}

/* Send a keep-alive: a zero-length RDMA WRITE the peer never sees. */
static void rs_keepalive(struct rsock *rs)
{
	if (rs_ctrl_avail(rs) && (rs->state & RS_CONNECTED)) {
		rs->ctrl_seqno++;
		rs_post_write(rs, NULL, 0, RS_MSG(RS_OP_CTRL, RS_CTRL_KEEPALIVE),
			      0, 0, 0);
	}
}

/*
 * Wait for the CQ's or the CM's next event. Caller holds cq_lock, and
 * holds it again on return.
 */
static void rs_wait(struct rsock *rs)
{
	struct pollfd fds[2] = {
		{ .fd = rs->cm_id->recv_cq_channel->fd, .events = POLLIN },
		{ .fd = rs->cm_id->channel->fd, .events = POLLIN },
	};
	int timeout = -1, n;

	if (rs->opts & RS_OPT_KEEPALIVE)
		timeout = rs->keepalive_time * 1000;
	pthread_mutex_unlock(&rs->cq_lock);
	n = poll(fds, 2, timeout);
	pthread_mutex_lock(&rs->cq_lock);
	if (n == 0)
		rs_keepalive(rs);
	if (fds[0].revents)
		rs_cq_event(rs);
	if (fds[1].revents)
		rs_cm_event(rs);
}

/**
 * rs_process() - process completions until @test holds
 * @rs: a connected (or once connected) rsocket
 * @nonblock: return EWOULDBLOCK instead of waiting
 * @test: the condition
 *
 * Gives the peer credits on the way.
 *
 * Return: 0 once @test holds, or -1 with errno (EWOULDBLOCK, or the
 * error that ended the connection).
 */
int rs_process(struct rsock *rs, bool nonblock, rs_test_fn test)
{
	int ret;

	pthread_mutex_lock(&rs->cq_lock);
	for (;;) {
		rs_update_credits(rs);
		ret = rs_poll_cq(rs);
		if (test(rs)) {
			ret = 0;
			break;
		}
		if (ret)
			break;
		if (nonblock) {
			ret = rcm_err(EWOULDBLOCK);
			break;
		}
		if (!rs->cq_armed) {
			ibv_req_notify_cq(rs->cm_id->recv_cq, 0);
			rs->cq_armed = true;
			continue;	/* poll once more: the race with arming */
		}
		rs_update_credits(rs);
		rs_wait(rs);
	}
	rs_update_credits(rs);
	pthread_mutex_unlock(&rs->cq_lock);
	return ret;
}

/**
 * rs_get_comp() - rs_process(), busy polling for rs_polling_time first
 * @rs: the rsocket
 * @nonblock: see rs_process()
 * @test: see rs_process()
 *
 * Return: see rs_process().
 */
int rs_get_comp(struct rsock *rs, bool nonblock, rs_test_fn test)
{
	uint64_t start = 0;

	do {
		if (!rs_process(rs, true, test))
			return 0;
		if (nonblock || errno != EWOULDBLOCK)
			return -1;
		if (!start)
			start = rs_time_us();
	} while (rs_time_us() - start <= rs_polling_time);
	return rs_process(rs, false, test);
}

/*
 * Room to send: a send queue entry (two on iWARP), RS_SNDLOWAT bytes
 * of send buffer, a credit, and room in the peer's current buffer.
 */
bool rs_can_send(struct rsock *rs)
{
	int sqes = (rs->opts & RS_OPT_MSG_SEND) ? 2 : 1;

	return rs->sqe_avail >= sqes &&
	       rs->sbuf_bytes_avail >= RS_SNDLOWAT &&
	       rs->sseq_no != rs->sseq_comp &&
	       rs->target_sgl[rs->target_sge].length != 0;
}

bool rs_conn_can_send(struct rsock *rs)
{
	return rs_can_send(rs) || !(rs->state & RS_WRITABLE);
}

bool rs_have_rdata(struct rsock *rs)
{
	return rs->rmsg_head != rs->rmsg_tail;
}

bool rs_conn_have_rdata(struct rsock *rs)
{
	return rs_have_rdata(rs) || !(rs->state & RS_READABLE);
}

bool rs_conn_can_send_ctrl(struct rsock *rs)
{
	return rs_ctrl_avail(rs) || !(rs->state & RS_CONNECTED);
}

bool rs_all_sends_done(struct rsock *rs)
{
	return ((int)rs->ctrl_max_seqno - (int)rs->ctrl_seqno) +
	       rs->sqe_avail == rs->sq_size || !(rs->state & RS_CONNECTED);
}

bool rs_any(struct rsock *rs)
{
	(void)rs;
	return true;
}

/**
 * rs_post_ctrl() - send a control message (RS_CTRL_*)
 * @rs: a connected rsocket; caller holds cq_lock
 * @ctrl: the message
 *
 * Return: 0, or -1 with errno.
 */
int rs_post_ctrl(struct rsock *rs, uint32_t ctrl)
{
	rs->ctrl_seqno++;
	return rs_post_msg(rs, RS_MSG(RS_OP_CTRL, ctrl));
}

/* Copy @len bytes from @src into @dst, advancing @src. */
static void rs_src_copy(void *dst, struct rs_src *src, size_t len)
{
	size_t n;

	while (len) {
		n = src->iov->iov_len - src->off;
		if (n > len)
			n = len;
		memcpy(dst, (char *)src->iov->iov_base + src->off, n);
		dst = (char *)dst + n;
		len -= n;
		src->off += n;
		if (src->off == src->iov->iov_len) {
			src->iov++;
			src->off = 0;
		}
	}
}

static uint32_t rs_sbuf_left(struct rsock *rs)
{
	return (uint32_t)((uintptr_t)&rs->sbuf[rs->sbuf_size] - rs->ssgl[0].addr);
}

/*
 * Stage @len bytes (from @src, or @obj when given) at the send buffer
 * ring's next free byte, rs->ssgl[0].addr: rs->ssgl then describes them
 * in one SGE, or two where the ring wraps. Returns the SGE count.
 */
static int rs_stage(struct rsock *rs, struct rs_src *src, const void *obj,
		    uint32_t len)
{
	uint32_t first = rs_sbuf_left(rs);
	struct iovec iov = { .iov_base = (void *)obj, .iov_len = len };
	struct rs_src osrc = { .iov = &iov };

	if (obj)
		src = &osrc;
	if (len <= first) {
		rs_src_copy((void *)(uintptr_t)rs->ssgl[0].addr, src, len);
		rs->ssgl[0].length = len;
		return 1;
	}
	rs_src_copy((void *)(uintptr_t)rs->ssgl[0].addr, src, first);
	rs->ssgl[0].length = first;
	rs_src_copy(rs->sbuf, src, len - first);
	rs->ssgl[1].length = len - first;
	return 2;
}

/* After the post: move the ring's next free byte past the data. */
static void rs_stage_done(struct rsock *rs, int nsge, uint32_t len)
{
	if (nsge == 2)
		rs->ssgl[0].addr = (uintptr_t)rs->sbuf + rs->ssgl[1].length;
	else if (len < rs_sbuf_left(rs))
		rs->ssgl[0].addr += len;
	else
		rs->ssgl[0].addr = (uintptr_t)rs->sbuf;
}

static volatile struct rs_iomap *rs_find_iomap(struct rsock *rs,
					       uint64_t offset)
{
	int i;

	for (i = 0; i < rs->target_iomap_size; i++) {
		volatile struct rs_iomap *m = &rs->target_iomap[i];

		if (m->sge.length && offset >= m->offset &&
		    offset < m->offset + m->sge.length)
			return m;
	}
	return NULL;
}

/*
 * Wait until a send may go, unless @nonblock. Caller holds slock.
 * Return: 0, or -1 with errno.
 */
static int rs_wait_send(struct rsock *rs, int flags)
{
	if (rs_can_send(rs))
		return 0;
	if (rs_get_comp(rs, rs_nonblocking(rs, flags), rs_conn_can_send))
		return -1;
	if (!(rs->state & RS_WRITABLE))
		return rcm_err(ECONNRESET);
	return 0;
}

/**
 * rs_send_data() - the sending loop of rsend(), rsendv() and riowrite()
 * @rs: a connected rsocket
 * @src: the bytes
 * @len: how many
 * @flags: MSG_DONTWAIT
 * @direct: riowrite(): into the peer's iomap at @offset, no message
 * @offset: see @direct
 *
 * Each write goes into the peer's current target buffer (or its
 * iomap), never across its end, 2 KiB first and doubling up to 64 KiB
 * as the data keeps coming, staged in the send buffer ring.
 *
 * Return: bytes sent, or -1 with errno when none could be.
 */
ssize_t rs_send_data(struct rsock *rs, struct rs_src *src, size_t len,
		     int flags, bool direct, uint64_t offset)
{
	volatile struct rs_iomap *iom = NULL;
	uint32_t xfer = 0, olen = RS_OLAP_START_SIZE;
	size_t left = len;
	uint64_t addr;
	uint32_t rkey;
	int ret = 0, nsge;

	pthread_mutex_lock(&rs->slock);
	if (rs->iomap_pending) {
		ret = rs_send_iomaps(rs, flags);
		if (ret)
			goto out;
	}
	for (; left; left -= xfer, offset += xfer) {
		if (direct && (!iom || offset >= iom->offset + iom->sge.length)) {
			iom = rs_find_iomap(rs, offset);
			if (!iom)
				break;
		}
		ret = rs_wait_send(rs, flags);
		if (ret)
			break;

		if (olen < left) {
			xfer = olen;
			if (olen < RS_MAX_TRANSFER)
				olen <<= 1;
		} else {
			xfer = left;
		}

		pthread_mutex_lock(&rs->cq_lock);
		if (xfer > (uint32_t)rs->sbuf_bytes_avail)
			xfer = rs->sbuf_bytes_avail;
		if (direct) {
			if (xfer > iom->offset + iom->sge.length - offset)
				xfer = iom->offset + iom->sge.length - offset;
		} else if (xfer > rs->target_sgl[rs->target_sge].length) {
			xfer = rs->target_sgl[rs->target_sge].length;
		}
		nsge = rs_stage(rs, src, NULL, xfer);
		rs->sqe_avail--;
		rs->sbuf_bytes_avail -= xfer;
		if (direct) {
			addr = iom->sge.addr + offset - iom->offset;
			ret = rs_post_write(rs, rs->ssgl, nsge,
					    RS_MSG(RS_OP_WRITE, xfer),
					    xfer <= rs->sq_inline ? IBV_SEND_INLINE : 0,
					    addr, iom->sge.key);
		} else {
			rs->sseq_no++;
			if (rs->opts & RS_OPT_MSG_SEND)
				rs->sqe_avail--;
			addr = rs->target_sgl[rs->target_sge].addr;
			rkey = rs->target_sgl[rs->target_sge].key;
			rs->target_sgl[rs->target_sge].addr += xfer;
			rs->target_sgl[rs->target_sge].length -= xfer;
			if (!rs->target_sgl[rs->target_sge].length &&
			    ++rs->target_sge == RS_SGL_SIZE)
				rs->target_sge = 0;
			ret = rs_post_write_msg(rs, rs->ssgl, nsge,
						RS_MSG(RS_OP_DATA, xfer),
						xfer <= rs->sq_inline ? IBV_SEND_INLINE : 0,
						addr, rkey);
		}
		rs_stage_done(rs, nsge, xfer);
		pthread_mutex_unlock(&rs->cq_lock);
		if (ret)
			break;
	}
out:
	pthread_mutex_unlock(&rs->slock);
	return (ret && left == len) ? ret : (ssize_t)(len - left);
}

/**
 * rs_send_iomaps() - tell the peer of the memory riomap() registered
 * @rs: the rsocket; caller holds slock
 * @flags: MSG_DONTWAIT
 *
 * Return: 0, or -1 with errno.
 */
int rs_send_iomaps(struct rsock *rs, int flags)
{
	struct rs_iomap_mr *m;
	struct rs_iomap iom;
	int ret = 0, nsge;

	pthread_mutex_lock(&rs->map_lock);
	for (m = rs->iomaps; m; m = m->next) {
		if (m->index < 0 || m->sent)
			continue;
		ret = rs_wait_send(rs, flags);
		if (ret)
			break;
		iom.offset = m->offset;
		iom.sge.addr = (uintptr_t)m->mr->addr;
		iom.sge.length = m->mr->length;
		iom.sge.key = m->mr->rkey;
		if (rs->opts & RS_OPT_SWAP_SGL) {
			iom.offset = bswap_64(iom.offset);
			iom.sge.addr = bswap_64(iom.sge.addr);
			iom.sge.length = bswap_32(iom.sge.length);
			iom.sge.key = bswap_32(iom.sge.key);
		}
		pthread_mutex_lock(&rs->cq_lock);
		nsge = rs_stage(rs, NULL, &iom, sizeof(iom));
		rs->sseq_no++;
		rs->sqe_avail--;
		if (rs->opts & RS_OPT_MSG_SEND)
			rs->sqe_avail--;
		rs->sbuf_bytes_avail -= sizeof(iom);
		ret = rs_post_write_msg(rs, rs->ssgl, nsge,
					RS_MSG(RS_OP_IOMAP_SGL, m->index),
					sizeof(iom) <= rs->sq_inline ? IBV_SEND_INLINE : 0,
					rs->remote_iomap.addr +
					m->index * sizeof(struct rs_iomap),
					rs->remote_iomap.key);
		rs_stage_done(rs, nsge, sizeof(iom));
		pthread_mutex_unlock(&rs->cq_lock);
		m->sent = true;
		if (ret)
			break;
	}
	if (!ret)
		rs->iomap_pending = false;
	pthread_mutex_unlock(&rs->map_lock);
	return ret;
}

/* Copy out of rbuf from @off, wrapping at its end; returns the new off. */
static int rs_copy_out(struct rsock *rs, uint8_t *dst, int off, uint32_t n)
{
	uint32_t end = rs->rbuf_size - off;

	if (n > end) {
		memcpy(dst, &rs->rbuf[off], end);
		dst += end;
		n -= end;
		off = 0;
	}
	memcpy(dst, &rs->rbuf[off], n);
	return off + n;
}

/**
 * rs_recv_data() - the receiving loop of rrecv()
 * @rs: a connected (or once connected) rsocket
 * @buf: where to
 * @len: at most this much
 * @flags: MSG_DONTWAIT, MSG_PEEK, MSG_WAITALL
 *
 * Data already received stays readable after the peer disconnected.
 *
 * Return: bytes read (0 at the end of the stream), or -1 with errno.
 */
ssize_t rs_recv_data(struct rsock *rs, void *buf, size_t len, int flags)
{
	uint8_t *p = buf;
	size_t left = len;
	uint32_t n;
	int ret = 0, head, off;

	pthread_mutex_lock(&rs->rlock);
	do {
		if (!rs_have_rdata(rs)) {
			ret = rs_get_comp(rs, rs_nonblocking(rs, flags),
					  rs_conn_have_rdata);
			if (ret)
				break;
		}
		pthread_mutex_lock(&rs->cq_lock);
		if (flags & MSG_PEEK) {
			head = rs->rmsg_head;
			off = rs->rbuf_offset;
			while (left && head != rs->rmsg_tail) {
				n = rs->rmsg[head].data;
				if (n > left)
					n = left;
				else if (++head == rs->rq_size + 1)
					head = 0;
				off = rs_copy_out(rs, p, off, n);
				p += n;
				left -= n;
			}
			pthread_mutex_unlock(&rs->cq_lock);
			break;
		}
		while (left && rs_have_rdata(rs)) {
			n = rs->rmsg[rs->rmsg_head].data;
			if (n > left) {
				n = left;
				rs->rmsg[rs->rmsg_head].data -= n;
			} else {
				rs->rseq_no++;
				if (++rs->rmsg_head == rs->rq_size + 1)
					rs->rmsg_head = 0;
			}
			rs->rbuf_offset = rs_copy_out(rs, p, rs->rbuf_offset, n);
			if (rs->rbuf_offset == (int)rs->rbuf_size)
				rs->rbuf_offset = 0;
			rs->rbuf_bytes_avail += n;
			p += n;
			left -= n;
		}
		if (rs->state & RS_CONNECTED)
			rs_update_credits(rs);
		pthread_mutex_unlock(&rs->cq_lock);
	} while (left && (flags & MSG_WAITALL) && (rs->state & RS_READABLE));
	pthread_mutex_unlock(&rs->rlock);
	return (ret && left == len) ? ret : (ssize_t)(len - left);
}
