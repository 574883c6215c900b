/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm: extensions to the librdmacm API.
 *
 * Functions declared here are not part of librdmacm; they are exported in
 * the RCM_1.0 version node of librdmacm.so.1 (also installed as
 * librcm.so.1). A program that uses them runs only on rcm's library.
 */
#ifndef RCM_RDMA_RCM_H
#define RCM_RDMA_RCM_H

#include <rdma/rdma_cma.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * rdma_reject_msg - describe the status of an RDMA_CM_EVENT_REJECTED event
 * @id: the id the event was reported on, or NULL
 * @reason: event->status
 *
 * Returns a static string and never fails; see rdma_reject_msg(3).
 */
const char *rdma_reject_msg(struct rdma_cm_id *id, int reason);

#ifdef __cplusplus
}
#endif

#endif /* RCM_RDMA_RCM_H */
