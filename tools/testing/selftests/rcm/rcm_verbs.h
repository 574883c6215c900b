/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One end of a connection as the selftests that need a real QP hold it
 * (rcm_verbs.c, on Debian's libibverbs): iw_cm hands an iWARP connection
 * to the QP named in connect and accept, so every iWARP case has one.
 * ib_cm never looks at the QP: the RoCE-only cases name a number
 * instead, and the cases on both transports (rcm_transport.h) ready
 * real ones as a consumer does.
 */
#ifndef RCM_VERBS_H
#define RCM_VERBS_H

#include <stdbool.h>
#include <infiniband/verbs.h>

/* What a UD receive puts before the datagram. */
#define RCM_GRH_LEN 40

/*
 * A PD, a CQ, a registered buffer and a QP on one device; a UD end's
 * address handle too (its owner makes it, rcm_end_close() frees it).
 */
struct rcm_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	char buf[2][RCM_GRH_LEN + 256];	/* [0] receives, [1] sends */
};

/*
 * Open @e with a QP of @qp_type (RC, UD), in RESET, on the first device
 * of @transport (IBV_TRANSPORT_IWARP: siw; IBV_TRANSPORT_IB: rxe): 0, or
 * -1 with errno set (what was made is left for rcm_end_close(), which
 * undoes any part of it).
 */
int rcm_end_open(struct rcm_end *e, enum ibv_transport_type transport,
		 enum ibv_qp_type qp_type);
/*
 * The client's @ce and the server's @se of an RC connection on
 * @transport: rcm_end_open() of each, 0 or -1 with errno set.
 */
int rcm_end_pair_open(struct rcm_end *ce, struct rcm_end *se,
		      enum ibv_transport_type transport);
void rcm_end_close(struct rcm_end *e);
/*
 * Move the QP of @e to INIT, or to RTR and then RTS, with the attributes
 * rcm gives for @id: 0, or -1 with errno set. RTR and RTS are the IB
 * CM's, once the peer's QP number and PSN are in (its request, or the
 * CONNECT_RESPONSE); iw_cm moves an iWARP QP to RTS itself.
 */
int rcm_end_init(struct rcm_end *e, int fd, unsigned int id);
int rcm_end_rts(struct rcm_end *e, int fd, unsigned int id);
/* Whether @e is on a device of the IB CM (RoCE), not of iw_cm (iWARP). */
bool rcm_end_ib_cm(const struct rcm_end *e);
/*
 * The active side of @id, whose QP is @e: wait up to 30 s for the
 * accept, into @ev, and end the handshake. On the IB CM that is a
 * CONNECT_RESPONSE, then the QP to RTR and RTS and the RTU
 * (RCM_IOCTL_ESTABLISH); iWARP has no RTU, the MPA reply is ESTABLISHED.
 * 0, or -1.
 */
struct rcm_event;
int rcm_end_connected(struct rcm_end *e, int fd, unsigned int id,
		      struct rcm_event *ev);
/*
 * Accept request @id with the QP of @e, readied first (on the IB CM up
 * to RTS, as before a REP), with context @ctx and the string @data
 * (NULL: none) as private data; the accept's result, or -1.
 */
int rcm_end_accept(struct rcm_end *e, int fd, unsigned int id,
		   unsigned long long ctx, const char *data);
/*
 * Establish @n connections from file @c to the listener of file @s on
 * @ip:@port, the QPs of @ce[i] and @se[i] (open) on both ends, client
 * contexts 100 + i, request contexts 200 + i: 0 when all are up on both
 * sides, -1 as soon as one is not.
 */
int rcm_establish_n(int s, int c, const char *ip, unsigned short port,
		    struct rcm_end *ce, struct rcm_end *se, int n);
/* Post one receive of the buffer, or one SEND of string @msg. */
int rcm_post_recv(struct rcm_end *e);
int rcm_post_send(struct rcm_end *e, const char *msg);
/*
 * Wait for a good completion of @opcode, each completion (of other work
 * too) within 10 s: 0, or -1.
 */
int rcm_wait_wc(struct rcm_end *e, enum ibv_wc_opcode opcode);

#endif /* RCM_VERBS_H */
