/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intree_common: what the in-tree stack's helper programs (intree_client,
 * intree_server) share. Built against Debian's librdmacm, never rcm's.
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

/* An RC QP for @id on its device, with a PD and CQ of its own; 0 or -1. */
int intree_create_qp(struct rdma_cm_id *id, const char *who);

#endif /* _RCM_INTREE_COMMON_H */
