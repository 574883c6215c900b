/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intree_common: what the in-tree stack's helper programs (intree_client,
 * intree_server, intree_udp) share. Built against Debian's librdmacm, never rcm's.
 */
#ifndef _RCM_INTREE_COMMON_H
#define _RCM_INTREE_COMMON_H

#include <stdio.h>
#include <rdma/rdma_cma.h>

/*
 * The next event of @ch, logged to @log as "@who: EVENT status N"; exits
 * with status 2 when there is none.
 */
struct rdma_cm_event *intree_next_event(struct rdma_event_channel *ch,
					const char *who, FILE *log);

/*
 * A listener of port space @ps on @addr:@port on @ch into *@lid (the
 * address info, to free, in *@res); prints "listening PORT", PORT the
 * one its bind got (@port "0": one it chose). 0, or -1.
 */
int intree_listen(struct rdma_event_channel *ch, const char *addr,
		  const char *port, enum rdma_port_space ps,
		  struct rdma_cm_id **lid, struct rdma_addrinfo **res);

/*
 * The next event of @ch, logged as intree_next_event() does, must be
 * @type: 0 (the event acked), or -1.
 */
int intree_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
		  const char *who, FILE *log);

/*
 * The end of a run that went as asked: @id (its QP first if @qp), @lid
 * (if not NULL), @ch and @res go. Returns 0, the exit status to give.
 */
int intree_done(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		struct rdma_cm_id *lid, int qp, struct rdma_addrinfo *res);

/* An RC QP for @id on its device, with a PD and CQ of its own; 0 or -1. */
int intree_create_qp(struct rdma_cm_id *id, const char *who);

#endif /* _RCM_INTREE_COMMON_H */
