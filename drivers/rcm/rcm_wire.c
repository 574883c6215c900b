// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: the device-free wire layer of the IB CM transport.
 *
 * Everything here is a pure function of its arguments: the CMA
 * private-data header that in-tree rdma_cm puts in front of the user data
 * of a REQ and a SIDR REQ, the IP service IDs, the private-data limits of
 * every CM message rcm sends, and the rules that turn a caller's connect
 * or accept parameters into the values that go on the wire. Nothing here
 * touches a device, sleeps or allocates, so all of it is unit tested in
 * rcm_wire_kunit.c.
 *
 * Wire compatibility with Linux 6.1's rdma_cm is the reference for every
 * rule; the function of the in-tree code each rule was checked against is
 * named next to it.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/socket.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "rcm_priv.h"

/* --- CMA private-data header ---------------------------------------- */

/*
 * The layout is fixed by the wire; cma.c (struct cma_hdr) has no
 * __packed either, so natural alignment must give exactly these offsets.
 */
static_assert(sizeof(union rcm_wire_ip) == 16);
static_assert(offsetof(union rcm_wire_ip, ip4.addr) == 12);
static_assert(offsetof(struct rcm_wire_hdr, cma_version) == 0);
static_assert(offsetof(struct rcm_wire_hdr, ip_version) == 1);
static_assert(offsetof(struct rcm_wire_hdr, port) == 2);
static_assert(offsetof(struct rcm_wire_hdr, src_addr) == 4);
static_assert(offsetof(struct rcm_wire_hdr, dst_addr) == 20);
static_assert(sizeof(struct rcm_wire_hdr) == RCM_WIRE_HDR_SIZE);
static_assert(RCM_WIRE_HDR_SIZE == 36);

/* The IP version lives in bits 7:4 of the second byte. */
#define RCM_WIRE_IP_VER_SHIFT	4

/**
 * rcm_wire_hdr_encode() - fill the CMA header of an outgoing (SIDR) REQ
 * @hdr: the header to fill; all 36 bytes are written
 * @src: the active side's own address, AF_INET or AF_INET6
 * @dst: the address the active side connects to, same family as @src
 *
 * Produces what cma.c:cma_format_hdr() produces for an IP id: version 0,
 * the IP version in bits 7:4 of byte 1 (bits 3:0 zero), the *source* port
 * of @src (not the destination port: the destination port travels in the
 * service ID), and both addresses. An IPv4 address goes in the last four
 * bytes of its 16-byte field after twelve zero bytes; it is not written in
 * the ::ffff:a.b.c.d form. An AF_INET6 address is copied as is, so an
 * IPv4-mapped IPv6 address is sent as IP version 6 carrying ::ffff:a.b.c.d,
 * exactly as cma.c does for an AF_INET6 id (it never converts between the
 * two). The scope id and flow info of an IPv6 address are not carried.
 *
 * The same header is used for a REQ (cma.c:cma_connect_ib()) and a SIDR
 * REQ (cma.c:cma_resolve_ib_udp()): both call cma_format_hdr() on the same
 * id, so the port is the source port in both.
 *
 * Context: any context.
 * Return: 0 on success, -EAFNOSUPPORT if @src is neither AF_INET nor
 * AF_INET6 (an AF_IB id sends no header), -EINVAL if @dst has another
 * family than @src. @hdr is left zeroed on error.
 */
VISIBLE_IF_KUNIT int rcm_wire_hdr_encode(struct rcm_wire_hdr *hdr,
					 const struct sockaddr *src,
					 const struct sockaddr *dst)
{
	memset(hdr, 0, sizeof(*hdr));

	if (src->sa_family != AF_INET && src->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (dst->sa_family != src->sa_family)
		return -EINVAL;

	hdr->cma_version = RCM_WIRE_CMA_VERSION;
	if (src->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)src;
		const struct sockaddr_in *d4 = (const struct sockaddr_in *)dst;

		hdr->ip_version = 4 << RCM_WIRE_IP_VER_SHIFT;
		hdr->port = s4->sin_port;
		hdr->src_addr.ip4.addr = s4->sin_addr.s_addr;
		hdr->dst_addr.ip4.addr = d4->sin_addr.s_addr;
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)src;
		const struct sockaddr_in6 *d6 = (const struct sockaddr_in6 *)dst;

		hdr->ip_version = 6 << RCM_WIRE_IP_VER_SHIFT;
		hdr->port = s6->sin6_port;
		hdr->src_addr.ip6 = s6->sin6_addr;
		hdr->dst_addr.ip6 = d6->sin6_addr;
	}
	return 0;
}

/**
 * rcm_wire_hdr_decode() - validate the CMA header of a received (SIDR) REQ
 * @pdata: the private data of the REQ as ib_cm delivers it
 * @len: bytes at @pdata; ib_cm always delivers the whole area (92 or 216)
 * @listen_port: the port the request was sent to, i.e. the port of its
 *               service ID (see rcm_wire_sid_parse()), in host order
 * @addrs: the listen-side view, written only on success
 *
 * The passive-side counterpart of rcm_wire_hdr_encode(), following
 * cma.c:cma_save_ip_info() and its cma_save_ip4_info()/cma_save_ip6_info():
 * @addrs->listen is the address the client targeted (the header's
 * destination address) with @listen_port, @addrs->peer is the client's
 * address (the header's source address) with the header's port. The
 * family follows the header's IP version only: version 4 gives AF_INET
 * from the last four bytes of each field (the twelve bytes before them
 * are ignored, as in-tree), version 6 gives AF_INET6 with all sixteen
 * bytes, an IPv4-mapped address included. Bits 3:0 of the IP-version
 * byte are ignored, as cma.c:cma_get_ip_ver() does. The IPv6 scope id and
 * flow info come out zero; the caller sets the scope id of a link-local
 * address from the receiving interface.
 *
 * Everything after the first 36 bytes is user data and is not looked at.
 *
 * Context: any context.
 * Return: 0 on success; -EINVAL if @len is shorter than the header or the
 * header's cma_version is not 0 (in-tree turns this into REJ 28); or
 * -EAFNOSUPPORT if the IP version is neither 4 nor 6 (in-tree treats such
 * a request as AF_IB, without a netdev).
 */
int rcm_wire_hdr_decode(const void *pdata, size_t len, u16 listen_port,
			struct rcm_wire_req_addrs *addrs)
{
	const struct rcm_wire_hdr *hdr = pdata;

	if (!pdata || len < sizeof(*hdr))
		return -EINVAL;
	if (hdr->cma_version != RCM_WIRE_CMA_VERSION)
		return -EINVAL;

	switch (hdr->ip_version >> RCM_WIRE_IP_VER_SHIFT) {
	case 4:
		memset(addrs, 0, sizeof(*addrs));
		addrs->listen.in.sin_family = AF_INET;
		addrs->listen.in.sin_addr.s_addr = hdr->dst_addr.ip4.addr;
		addrs->listen.in.sin_port = htons(listen_port);
		addrs->peer.in.sin_family = AF_INET;
		addrs->peer.in.sin_addr.s_addr = hdr->src_addr.ip4.addr;
		addrs->peer.in.sin_port = hdr->port;
		return 0;
	case 6:
		memset(addrs, 0, sizeof(*addrs));
		addrs->listen.in6.sin6_family = AF_INET6;
		addrs->listen.in6.sin6_addr = hdr->dst_addr.ip6;
		addrs->listen.in6.sin6_port = htons(listen_port);
		addrs->peer.in6.sin6_family = AF_INET6;
		addrs->peer.in6.sin6_addr = hdr->src_addr.ip6;
		addrs->peer.in6.sin6_port = hdr->port;
		return 0;
	default:
		return -EAFNOSUPPORT;
	}
}

/* --- Service IDs ------------------------------------------------------ */

#define RCM_WIRE_SID_PS_SHIFT	16

/* The uapi's port-space numbers and rdma_cm.h's SID ranges must agree. */
static_assert(((u64)RDMA_PS_TCP << RCM_WIRE_SID_PS_SHIFT) == RDMA_IB_IP_PS_TCP);
static_assert(((u64)RDMA_PS_UDP << RCM_WIRE_SID_PS_SHIFT) == RDMA_IB_IP_PS_UDP);
static_assert(((u64)RDMA_PS_IB << RCM_WIRE_SID_PS_SHIFT) == RDMA_IB_IP_PS_IB);
static_assert((RDMA_IB_IP_PS_MASK & 0xffffULL) == 0);

static bool rcm_wire_ps_known(u16 ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
	case RDMA_PS_UDP:
	case RDMA_PS_IB:
	case RDMA_PS_IPOIB:
		return true;
	default:
		return false;
	}
}

/**
 * rcm_wire_sid_compose() - the IB service ID of an IP port
 * @ps: port space, one of RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB and
 *      RDMA_PS_IPOIB
 * @port: port number in host order; every value including 0 is encoded
 *        (a bound id never has port 0, but the codec does not care)
 * @sid: where the service ID is stored, in network order as ib_cm wants
 *
 * As cma.c:rdma_get_service_id() does for an AF_INET/AF_INET6 address:
 * SID = @ps << 16 | @port, which is IBTA annex A11's RDMA IP CM service
 * range 0x0000000001PPXXXX (@ps is 0x0106 TCP, 0x0111 UDP, 0x013F IB; see
 * RDMA_IB_IP_PS_* in rdma_cm.h and IB_CMA_SERVICE_ID in ib_cm.h). IPoIB's
 * 0x0002 lies outside that range (SID 0x000000000002XXXX), as in-tree.
 *
 * Context: any context.
 * Return: 0, or -EINVAL for an unknown port space (ucma.c:ucma_get_qp_type()
 * refuses those with -EINVAL too); @sid is written only on success.
 */
int rcm_wire_sid_compose(u16 ps, u16 port, __be64 *sid)
{
	if (!rcm_wire_ps_known(ps))
		return -EINVAL;
	*sid = cpu_to_be64((u64)ps << RCM_WIRE_SID_PS_SHIFT | port);
	return 0;
}

/**
 * rcm_wire_sid_parse() - split an IP service ID into port space and port
 * @sid: the service ID, network order, as ib_cm reports it
 * @ps: the port space, bits 31:16 of @sid
 * @port: the port, bits 15:0 of @sid, in host order
 *
 * The passive side's view of a REQ's service ID, as
 * cma.c:rdma_ps_from_service_id() and cma_port_from_service_id() take it
 * apart. Unlike those (which can rely on ib_cm having matched the SID
 * against a listen they registered), this checks that the SID is one
 * rcm_wire_sid_compose() can produce: bits 63:32 zero and a known port
 * space. Port 0 is accepted.
 *
 * Context: any context.
 * Return: 0, or -EINVAL for a SID outside the RDMA IP ranges; @ps and
 * @port are written only on success.
 */
int rcm_wire_sid_parse(__be64 sid, u16 *ps, u16 *port)
{
	u64 v = be64_to_cpu(sid);
	u16 p = (v >> RCM_WIRE_SID_PS_SHIFT) & 0xffff;

	if (v >> 32 || !rcm_wire_ps_known(p))
		return -EINVAL;
	*ps = p;
	*port = v & 0xffff;
	return 0;
}

/* --- Private-data limits --------------------------------------------- */

/*
 * What an iWARP consumer may send. iw_cm enforces nothing itself; the
 * limit in-tree is the type of the length: rdma_conn_param.private_data_len
 * and the length argument of iw_cm_reject() are u8. (cma.c:cma_connect_iw(),
 * cma_accept_iw() and rdma_reject() pass the length on untouched.) The
 * driver then applies its MPA limit and may refuse less: cxgb4 and erdma
 * 256, siw 256 minus the 4-byte MPA v2 parameters, irdma 512.
 */
#define RCM_WIRE_IW_PDATA_MAX	RCM_IWARP_PRIVATE_DATA_MAX
static_assert(RCM_WIRE_IW_PDATA_MAX == U8_MAX);

enum {
	RCM_WIRE_QP_CONNECTED,	/* RC, UC: REQ / REP / REJ */
	RCM_WIRE_QP_DATAGRAM,	/* UD: SIDR REQ / SIDR REP */
	RCM_WIRE_QP_NCLASSES,
};

/*
 * Max user private data per [CM][operation][QP class]; -EOPNOTSUPP where
 * the combination does not exist. IB CM values are ib_cm.h's
 * enum ib_cm_data_size minus the CMA header where one is sent (REQ and
 * SIDR REQ only, cma.c:cma_user_data_offset()). A UD reject is a SIDR REP
 * with status IB_SIDR_REJECT (cma.c:rdma_reject()), so it has the SIDR REP
 * area. ib_cm enforces the areas in cm.c: cm_validate_req_param(),
 * ib_send_cm_rep(), cm_send_rej_locked(), ib_send_cm_sidr_req() and
 * cm_send_sidr_rep_locked().
 */
static const s16 rcm_wire_pdata_max[][RCM_WIRE_OP_NOPS][RCM_WIRE_QP_NCLASSES] = {
	[RCM_PORT_CM_IB] = {
		[RCM_WIRE_OP_CONNECT] = {
			IB_CM_REQ_PRIVATE_DATA_SIZE - RCM_WIRE_HDR_SIZE,
			IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - RCM_WIRE_HDR_SIZE,
		},
		[RCM_WIRE_OP_ACCEPT] = {
			IB_CM_REP_PRIVATE_DATA_SIZE,
			IB_CM_SIDR_REP_PRIVATE_DATA_SIZE,
		},
		[RCM_WIRE_OP_REJECT] = {
			IB_CM_REJ_PRIVATE_DATA_SIZE,
			IB_CM_SIDR_REP_PRIVATE_DATA_SIZE,
		},
	},
	[RCM_PORT_CM_IW] = {
		[RCM_WIRE_OP_CONNECT] = { RCM_WIRE_IW_PDATA_MAX, -EOPNOTSUPP },
		[RCM_WIRE_OP_ACCEPT] = { RCM_WIRE_IW_PDATA_MAX, -EOPNOTSUPP },
		[RCM_WIRE_OP_REJECT] = { RCM_WIRE_IW_PDATA_MAX, -EOPNOTSUPP },
	},
};

static int rcm_wire_qp_class(enum ib_qp_type qp_type)
{
	switch (qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return RCM_WIRE_QP_CONNECTED;
	case IB_QPT_UD:
		return RCM_WIRE_QP_DATAGRAM;
	default:
		return -EINVAL;
	}
}

/**
 * rcm_wire_max_private_data() - how much private data a consumer may send
 * @cm: the CM of the port, RCM_PORT_CM_IB or RCM_PORT_CM_IW
 * @op: connect, accept or reject
 * @qp_type: IB_QPT_RC or IB_QPT_UC (connected) or IB_QPT_UD (datagram)
 *
 * For ids with an IP address (AF_INET/AF_INET6), which carry the CMA
 * header in a REQ and a SIDR REQ:
 *
 * - IB CM, RC/UC: connect 56 (REQ area 92 - 36), accept 196 (REP),
 *   reject 148 (REJ);
 * - IB CM, UD: connect 180 (SIDR REQ area 216 - 36), accept 136 (SIDR
 *   REP), reject 136 (a SIDR REP with status REJECT);
 * - iWARP, RC/UC: 255 for connect, accept and reject (u8 lengths; the
 *   driver's MPA limit may be lower).
 *
 * These are the lengths librdmacm documents (56/180 connect, 196/136
 * accept) and what in-tree rdma_cm lets through. iWARP has no UD.
 *
 * Context: any context.
 * Return: the limit in bytes, -EOPNOTSUPP for UD on iWARP, -EINVAL for an
 * unknown @cm, @op or @qp_type.
 */
int rcm_wire_max_private_data(enum rcm_port_cm cm, enum rcm_wire_op op,
			      enum ib_qp_type qp_type)
{
	int qpc = rcm_wire_qp_class(qp_type);

	if (cm != RCM_PORT_CM_IB && cm != RCM_PORT_CM_IW)
		return -EINVAL;
	if ((unsigned int)op >= RCM_WIRE_OP_NOPS || qpc < 0)
		return -EINVAL;
	return rcm_wire_pdata_max[cm][op][qpc];
}

/**
 * rcm_wire_req_pdata_build() - the private data of an outgoing (SIDR) REQ
 * @buf: output buffer
 * @size: bytes at @buf; at least the area of the message (92 for a REQ,
 *        216 for a SIDR REQ)
 * @qp_type: IB_QPT_RC or IB_QPT_UC for a REQ, IB_QPT_UD for a SIDR REQ
 * @src: the active side's address (see rcm_wire_hdr_encode())
 * @dst: the address connected to
 * @udata: the consumer's private data; may be NULL if @ulen is 0
 * @ulen: bytes at @udata
 *
 * Writes the CMA header, then @udata, then zeroes up to the end of the
 * message's private-data area. Sending the whole area is the same on the
 * wire as sending header + @ulen bytes: ib_cm copies the data into a MAD
 * that is zeroed, and the receiver always gets the full area because IB
 * CM carries no length (cma.c:cma_connect_ib() sends 36 + @ulen bytes,
 * the remainder of the area goes out as zeros all the same).
 *
 * Context: any context.
 * Return: the number of bytes to pass to ib_cm as private_data_len (the
 * area size) on success; -EINVAL if @ulen exceeds
 * rcm_wire_max_private_data() for a connect, if @udata is NULL with a
 * non-zero @ulen, if @qp_type is not RC/UC/UD, or for mismatched address
 * families; -EAFNOSUPPORT if @src is not AF_INET/AF_INET6; -ENOBUFS if
 * @size is smaller than the area. Nothing is written on error.
 */
int rcm_wire_req_pdata_build(void *buf, size_t size, enum ib_qp_type qp_type,
			     const struct sockaddr *src,
			     const struct sockaddr *dst,
			     const void *udata, size_t ulen)
{
	struct rcm_wire_hdr hdr;
	size_t area;
	int max, ret;

	max = rcm_wire_max_private_data(RCM_PORT_CM_IB, RCM_WIRE_OP_CONNECT,
					qp_type);
	if (max < 0)
		return max;
	if (ulen > (size_t)max || (ulen && !udata))
		return -EINVAL;

	area = max + sizeof(hdr);
	if (size < area)
		return -ENOBUFS;

	ret = rcm_wire_hdr_encode(&hdr, src, dst);
	if (ret)
		return ret;

	memcpy(buf, &hdr, sizeof(hdr));
	if (ulen)
		memcpy(buf + sizeof(hdr), udata, ulen);
	memset(buf + sizeof(hdr) + ulen, 0, area - sizeof(hdr) - ulen);
	return area;
}

/* --- Connection parameters ------------------------------------------- */

/* responder_resources and initiator_depth are 8-bit fields of REQ and REP. */
#define RCM_WIRE_RD_ATOM_MAX	U8_MAX

static u32 rcm_wire_rd_clamp(u32 want, u32 dev_max, u32 peer_max)
{
	return min3(want, dev_max, peer_max);
}

/* retry_count and rnr_retry_count are 3-bit fields of REQ and REP. */
static u32 rcm_wire_retry_clamp(u32 count)
{
	return min_t(u32, count, RCM_WIRE_RETRY_MAX);
}

/**
 * rcm_wire_connect_param() - the REQ's parameters from a connect request
 * @user: what the consumer asked for
 * @max_qp_rd_atom: the device's max_qp_rd_atom (ib_device_attr)
 * @max_qp_init_rd_atom: the device's max_qp_init_rd_atom
 * @out: the values to put in the REQ
 *
 * - responder_resources is lowered to @max_qp_rd_atom and
 *   initiator_depth to @max_qp_init_rd_atom, both to 255 (8-bit REQ
 *   fields). A caller that wants "the device maximum" passes 255, which
 *   is what librdmacm's RDMA_MAX_RESP_RES / RDMA_MAX_INIT_DEPTH mean.
 *   In-tree cma.c:cma_connect_ib() passes both through untouched and
 *   leaves the checking to librdmacm (ucma_valid_param()); rcm clamps in
 *   the kernel instead, so the QP transitions cannot fail on them.
 * - retry_count and rnr_retry_count are 3-bit fields; a value above 7 is
 *   lowered to 7, as in-tree cma_connect_ib() does with
 *   min_t(u8, 7, ...): libfabric's verbs provider asks for 15 on every
 *   connect. rnr_retry_count 7 (RCM_WIRE_RNR_RETRY_INFINITE) means retry
 *   forever.
 *
 * Context: any context.
 * Return: 0.
 */
int rcm_wire_connect_param(const struct rcm_wire_conn_param *user,
			   u32 max_qp_rd_atom, u32 max_qp_init_rd_atom,
			   struct rcm_wire_conn_param *out)
{
	out->responder_resources = rcm_wire_rd_clamp(user->responder_resources,
						     max_qp_rd_atom,
						     RCM_WIRE_RD_ATOM_MAX);
	out->initiator_depth = rcm_wire_rd_clamp(user->initiator_depth,
						 max_qp_init_rd_atom,
						 RCM_WIRE_RD_ATOM_MAX);
	out->retry_count = rcm_wire_retry_clamp(user->retry_count);
	out->rnr_retry_count = rcm_wire_retry_clamp(user->rnr_retry_count);
	return 0;
}

/**
 * rcm_wire_accept_param() - the REP's parameters on the passive side
 * @req: the REQ's values as ib_cm reports them in IB_CM_REQ_RECEIVED,
 *       i.e. already seen from this side: ib_cm
 *       (cm.c:cm_format_req_event()) stores the peer's initiator depth in
 *       responder_resources and the peer's responder resources in
 *       initiator_depth
 * @user: what the consumer asked for, or NULL for an accept without
 *        connection parameters
 * @max_qp_rd_atom: the device's max_qp_rd_atom
 * @max_qp_init_rd_atom: the device's max_qp_init_rd_atom
 * @out: the values for the REP and this side's QP, written only on success
 *
 * With @user, responder_resources (RDMA reads/atomics this side will
 * serve) and initiator_depth (reads/atomics this side will issue) are
 * the consumer's as given, as in-tree cma.c:cma_accept_ib() puts them in
 * the REP, only lowered to @max_qp_rd_atom and @max_qp_init_rd_atom (and
 * to 255) as rcm_wire_connect_param() does. Only librdmacm's "NULL
 * conn_param, or RDMA_MAX_RESP_RES / RDMA_MAX_INIT_DEPTH" case takes the
 * request's values, which librdmacm works out itself and passes here as
 * @user.
 *
 * Without @user, the request's own values are used, lowered to the local
 * limits: responder_resources to the peer's initiator depth, and
 * initiator_depth to the peer's responder resources, which this side
 * must not exceed; rnr_retry_count then mirrors the REQ's.
 *
 * With @user, rnr_retry_count is the consumer's, which goes in the REP and
 * is what the *active* QP will use; above 7 it is lowered to 7, as
 * cma_accept_ib() does. retry_count has no REP field: this side's QP uses
 * the REQ's (cm.c:cm_init_qp_rts_attr()), so @out->retry_count is @req's
 * and @user->retry_count is not used.
 *
 * Context: any context.
 * Return: 0, or -EINVAL if @req holds values no REQ can carry (retry
 * counts above 7, depths above 255).
 */
int rcm_wire_accept_param(const struct rcm_wire_conn_param *req,
			  const struct rcm_wire_conn_param *user,
			  u32 max_qp_rd_atom, u32 max_qp_init_rd_atom,
			  struct rcm_wire_conn_param *out)
{
	const struct rcm_wire_conn_param *from;

	if (req->retry_count > RCM_WIRE_RETRY_MAX ||
	    req->rnr_retry_count > RCM_WIRE_RETRY_MAX ||
	    req->responder_resources > RCM_WIRE_RD_ATOM_MAX ||
	    req->initiator_depth > RCM_WIRE_RD_ATOM_MAX)
		return -EINVAL;

	/* The request's rnr_retry_count, checked above, is left as it is. */
	from = user ? user : req;
	out->responder_resources =
		rcm_wire_rd_clamp(from->responder_resources, max_qp_rd_atom,
				  RCM_WIRE_RD_ATOM_MAX);
	out->initiator_depth =
		rcm_wire_rd_clamp(from->initiator_depth, max_qp_init_rd_atom,
				  RCM_WIRE_RD_ATOM_MAX);
	out->rnr_retry_count = rcm_wire_retry_clamp(from->rnr_retry_count);
	out->retry_count = req->retry_count;
	return 0;
}

/* --- CM timers -------------------------------------------------------- */

/*
 * ib_cm waits 2^(t - 8) ms, at least 1 ms, for an exponent t of 4.096 us
 * units (cm.c:cm_convert_to_ms()); max_cm_retries is a 4-bit REQ field.
 */
#define RCM_WIRE_CM_TIMEOUT_MIN		8
#define RCM_WIRE_CM_TIMEOUT_MAX		31
#define RCM_WIRE_CM_RETRIES_MAX		15
/* Tries the bound is first divided into. */
#define RCM_WIRE_CM_TRIES		4

/**
 * rcm_wire_cm_timeout() - CM response timeout and retries within a bound
 * @bound_ms: the longest the whole exchange may wait, in milliseconds
 * @fixed_ms: what ib_cm adds to every try besides the response timeout
 *            (a REQ: twice the path's packet lifetime in ms, as
 *            cm.c:ib_send_cm_req() computes it; a SIDR REQ: 0)
 * @timeout: the response timeout exponent (4.096 us * 2^@timeout), written
 *           always; ib_cm waits 2^(@timeout - 8) ms
 * @retries: max_cm_retries, 0..15, written always
 *
 * ib_cm sends a request once and then @retries more times, each try
 * waiting @fixed_ms + 2^(@timeout - 8) ms, so the whole exchange waits
 * (@retries + 1) * (@fixed_ms + 2^(@timeout - 8)) ms. This picks the
 * values that keep that product within @bound_ms: the bound is split in
 * up to four tries, the response timeout rounded down to a power of two,
 * and then as many tries (up to 16) as still fit.
 *
 * Context: any context.
 * Return: 0; -ERANGE when not even one try of @fixed_ms + 1 ms fits in
 * @bound_ms (@bound_ms 0 included): then the shortest exchange, one try
 * of 1 ms response timeout, is given.
 */
int rcm_wire_cm_timeout(u32 bound_ms, u32 fixed_ms, u8 *timeout, u8 *retries)
{
	u32 tries, per, resp, exp, fits;

	for (tries = RCM_WIRE_CM_TRIES; tries >= 1; tries--) {
		per = bound_ms / tries;
		if (per <= fixed_ms)
			continue;
		resp = per - fixed_ms;
		exp = min_t(u32, RCM_WIRE_CM_TIMEOUT_MIN + ilog2(resp),
			    RCM_WIRE_CM_TIMEOUT_MAX);
		fits = bound_ms / (fixed_ms +
				   (1U << (exp - RCM_WIRE_CM_TIMEOUT_MIN)));
		*timeout = exp;
		*retries = min_t(u32, fits, RCM_WIRE_CM_RETRIES_MAX + 1) - 1;
		return 0;
	}
	*timeout = RCM_WIRE_CM_TIMEOUT_MIN;
	*retries = 0;
	return -ERANGE;
}

/* --- multicast groups ------------------------------------------------ */

/**
 * rcm_wire_mcast_mgid() - the MGID of an IP multicast group on RoCE
 * @group: the group, an AF_INET or AF_INET6 multicast address
 * @gid_type: the GID type of the joining id's source GID entry
 * @mgid: the MGID
 *
 * As cma.c:cma_iboe_set_mgid() derives it: an IPv6 group is its own
 * MGID; an IPv4 group a.b.c.d becomes ::ffff:a.b.c.d on RoCE v2 (the
 * IPv4-mapped form RoCE v2 sends as an IPv4 packet) and
 * ff0e::ffff:a.b.c.d on RoCE v1 (and InfiniBand), a global-scope IPv6
 * multicast GID. The in-tree CM gives the wildcard address a zero MGID;
 * rcm refuses a non-multicast address before it gets here.
 *
 * Context: any context.
 */
void rcm_wire_mcast_mgid(const struct sockaddr *group,
			 enum ib_gid_type gid_type, union ib_gid *mgid)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)group;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)group;

	memset(mgid, 0, sizeof(*mgid));
	if (group->sa_family == AF_INET6) {
		memcpy(mgid->raw, &sin6->sin6_addr, sizeof(mgid->raw));
		return;
	}
	if (gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x0e;
	}
	mgid->raw[10] = 0xff;
	mgid->raw[11] = 0xff;
	memcpy(&mgid->raw[12], &sin->sin_addr.s_addr, 4);
}
