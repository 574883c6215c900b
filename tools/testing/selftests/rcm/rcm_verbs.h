/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One end of a connection as the selftests that need a real QP hold it
 * (rcm_verbs.c, on Debian's libibverbs): iw_cm hands an iWARP connection
 * to the QP named in connect and accept, so every iWARP case has one;
 * ib_cm never looks at the QP, so the RoCE cases name a number instead.
 */
#ifndef RCM_VERBS_H
#define RCM_VERBS_H

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
void rcm_end_close(struct rcm_end *e);
/* Move the QP of @e to INIT with the attributes rcm gives for @id. */
int rcm_end_init(struct rcm_end *e, int fd, unsigned int id);
/* Post one receive of the buffer, or one SEND of string @msg. */
int rcm_post_recv(struct rcm_end *e);
int rcm_post_send(struct rcm_end *e, const char *msg);
/* Wait up to 5 s for a good completion of @opcode: 0, or -1. */
int rcm_wait_wc(struct rcm_end *e, enum ibv_wc_opcode opcode);

#endif /* RCM_VERBS_H */
