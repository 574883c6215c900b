/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rcm: the IB CM wire layer (rcm_wire.c) - what goes on the wire between
 * rcm and any other CM, the in-tree rdma_cm included: the CMA
 * private-data header, service IDs, private-data limits, the rules of
 * connection parameters and CM timers, multicast MGIDs. Nothing here
 * needs a device or an id, so the KUnit suite of rcm_wire_kunit.c tests
 * all of it directly.
 */
#ifndef _RCM_WIRE_H
#define _RCM_WIRE_H

#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

/**
 * enum rcm_port_cm - which connection manager serves a port
 * @RCM_PORT_CM_NONE: the port has no CM (e.g. a raw Ethernet port)
 * @RCM_PORT_CM_IB: IB CM over MADs on QP1 (InfiniBand and RoCE)
 * @RCM_PORT_CM_IW: iWARP CM (MPA over TCP)
 */
enum rcm_port_cm {
	RCM_PORT_CM_NONE,
	RCM_PORT_CM_IB,
	RCM_PORT_CM_IW,
};

/**
 * struct rcm_wire_conn_param - the negotiated values of a REQ or REP
 * @responder_resources: RDMA reads/atomics this side serves at once
 * @initiator_depth: RDMA reads/atomics this side issues at once
 * @retry_count: transport retries, 0..7
 * @rnr_retry_count: RNR NAK retries, 0..7, 7 meaning infinite
 */
struct rcm_wire_conn_param {
	u32 responder_resources;
	u32 initiator_depth;
	u32 retry_count;
	u32 rnr_retry_count;
};

/* The CMA private-data header that in-tree rdma_cm (cma.c) speaks. */
#define RCM_WIRE_CMA_VERSION	0
#define RCM_WIRE_HDR_SIZE	36

/**
 * union rcm_wire_ip - an address field of the CMA header
 * @ip6: an IPv6 address, as is
 * @ip4: an IPv4 address in the last four bytes after twelve zero bytes
 * @ip4.pad: zero when sent, ignored when received
 * @ip4.addr: the IPv4 address
 */
union rcm_wire_ip {
	struct in6_addr ip6;
	struct {
		__be32 pad[3];
		__be32 addr;
	} ip4;
};

/**
 * struct rcm_wire_hdr - CMA header in front of the user data of a REQ and
 *                       a SIDR REQ, 36 bytes
 * @cma_version: RCM_WIRE_CMA_VERSION
 * @ip_version: 4 or 6 in bits 7:4, bits 3:0 zero
 * @port: the active side's source port
 * @src_addr: the active side's address
 * @dst_addr: the address the active side connects to
 */
struct rcm_wire_hdr {
	u8 cma_version;
	u8 ip_version;
	__be16 port;
	union rcm_wire_ip src_addr;
	union rcm_wire_ip dst_addr;
};

/**
 * union rcm_wire_addr - an AF_INET, AF_INET6 or AF_IB socket address
 * @sa: the family
 * @in: AF_INET
 * @in6: AF_INET6
 * @ib: AF_IB (a request on InfiniBand without a CMA header)
 */
union rcm_wire_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_ib ib;
};

/**
 * struct rcm_wire_req_addrs - a received request seen from the listener
 * @listen: the address the client targeted, with the service ID's port
 * @peer: the client's address and source port
 */
struct rcm_wire_req_addrs {
	union rcm_wire_addr listen;
	union rcm_wire_addr peer;
};

int rcm_wire_hdr_decode(const void *pdata, size_t len, u16 listen_port,
			struct rcm_wire_req_addrs *addrs);

int rcm_wire_sid_compose(u16 ps, u16 port, __be64 *sid);
int rcm_wire_sid_parse(__be64 sid, u16 *ps, u16 *port);

/**
 * enum rcm_wire_op - a CM operation that carries consumer private data
 * @RCM_WIRE_OP_CONNECT: REQ, SIDR REQ or MPA request
 * @RCM_WIRE_OP_ACCEPT: REP, SIDR REP or MPA reply
 * @RCM_WIRE_OP_REJECT: REJ, SIDR REP with status REJECT, or MPA reject
 * @RCM_WIRE_OP_NOPS: number of operations
 */
enum rcm_wire_op {
	RCM_WIRE_OP_CONNECT,
	RCM_WIRE_OP_ACCEPT,
	RCM_WIRE_OP_REJECT,
	RCM_WIRE_OP_NOPS,
};

int rcm_wire_max_private_data(enum rcm_port_cm cm, enum rcm_wire_op op,
			      enum ib_qp_type qp_type);
int rcm_wire_req_pdata_build(void *buf, size_t size, enum ib_qp_type qp_type,
			     const struct sockaddr *src,
			     const struct sockaddr *dst,
			     const void *udata, size_t ulen);

/* retry_count and rnr_retry_count are 3-bit; RNR retry 7 is infinite. */
#define RCM_WIRE_RETRY_MAX		7
#define RCM_WIRE_RNR_RETRY_INFINITE	7

int rcm_wire_connect_param(const struct rcm_wire_conn_param *user,
			   u32 max_qp_rd_atom, u32 max_qp_init_rd_atom,
			   struct rcm_wire_conn_param *out);
int rcm_wire_accept_param(const struct rcm_wire_conn_param *req,
			  const struct rcm_wire_conn_param *user,
			  u32 max_qp_rd_atom, u32 max_qp_init_rd_atom,
			  struct rcm_wire_conn_param *out);
int rcm_wire_cm_timeout(u32 bound_ms, u32 fixed_ms, u8 *timeout, u8 *retries);

/* The in-tree rdma_cm's CM timers, so both behave alike on the wire. */
#define RCM_CM_RESPONSE_TIMEOUT	20	/* 4.096 us * 2^20 = 4.3 s */
#define RCM_MAX_CM_RETRIES	15
void rcm_wire_mcast_mgid(const struct sockaddr *group,
			 enum ib_gid_type gid_type, union ib_gid *mgid);

#if IS_ENABLED(CONFIG_KUNIT)
/* For the KUnit suites only (VISIBLE_IF_KUNIT): static without KUnit. */
int rcm_wire_hdr_encode(struct rcm_wire_hdr *hdr, const struct sockaddr *src,
			const struct sockaddr *dst);
#endif

#endif /* _RCM_WIRE_H */
