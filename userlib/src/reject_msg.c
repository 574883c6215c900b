// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: rdma_reject_msg(), an rcm extension.
 *
 * The status of an RDMA_CM_EVENT_REJECTED event is a positive IB CM REJ
 * reason on InfiniBand and RoCE, and a negative errno on iWARP. The
 * strings are the ones the kernel's rdma_reject_msg() prints, so a
 * message in an application log matches the one in dmesg.
 */
#include "rcm_lib.h"

/* IB CM REJ reasons (IBTA vol 1, CM REJ; enum ib_cm_rej_reason) */
static const char *const rcm_ib_rej_msgs[] = {
	[1]  = "no QP",
	[2]  = "no EEC",
	[3]  = "no resources",
	[4]  = "timeout",
	[5]  = "unsupported",
	[6]  = "invalid comm ID",
	[7]  = "invalid comm instance",
	[8]  = "invalid service ID",
	[9]  = "invalid transport type",
	[10] = "stale conn",
	[11] = "RDC not exist",
	[12] = "invalid GID",
	[13] = "invalid LID",
	[14] = "invalid SL",
	[15] = "invalid traffic class",
	[16] = "invalid hop limit",
	[17] = "invalid packet rate",
	[18] = "invalid alt GID",
	[19] = "invalid alt LID",
	[20] = "invalid alt SL",
	[21] = "invalid alt traffic class",
	[22] = "invalid alt hop limit",
	[23] = "invalid alt packet rate",
	[24] = "port CM redirect",
	[25] = "port redirect",
	[26] = "invalid MTU",
	[27] = "insufficient resp resources",
	[28] = "consumer defined",
	[29] = "invalid RNR retry",
	[30] = "duplicate local comm ID",
	[31] = "invalid class version",
	[32] = "invalid flow label",
	[33] = "invalid alt flow label",
	[35] = "vendor option is not supported",
};

/* iWARP connect failures, indexed by the positive errno */
static const char *const rcm_iw_rej_msgs[] = {
	[ECONNRESET]	= "reset by remote host",
	[ECONNREFUSED]	= "refused by remote application",
	[ETIMEDOUT]	= "setup timeout",
};

static const char *rcm_lookup(const char *const *table, size_t n,
			      long long index)
{
	if (index >= 0 && (unsigned long long)index < n && table[index])
		return table[index];
	return "unrecognized reason";
}

/**
 * rdma_reject_msg() - describe the status of a REJECTED event
 * @id: the id of the event, or NULL
 * @reason: rdma_cm_event.status
 *
 * The transport is taken from @id's device when the id is bound to one;
 * otherwise the sign of @reason decides (IB reasons are positive, iWARP
 * ones negative).
 *
 * Return: a static string; "unrecognized reason" for a value the
 * transport does not define. Never fails.
 */
RCM_EXPORT const char *rdma_reject_msg(struct rdma_cm_id *id, int reason)
{
	int iwarp = reason < 0;

	if (id && id->verbs && id->verbs->device) {
		switch (id->verbs->device->transport_type) {
		case IBV_TRANSPORT_IB:
			iwarp = 0;
			break;
		case IBV_TRANSPORT_IWARP:
			iwarp = 1;
			break;
		default:
			break;
		}
	}

	/* long long: negating INT_MIN must not overflow */
	if (iwarp)
		return rcm_lookup(rcm_iw_rej_msgs, ARRAY_SIZE(rcm_iw_rej_msgs),
				  -(long long)reason);
	return rcm_lookup(rcm_ib_rej_msgs, ARRAY_SIZE(rcm_ib_rej_msgs),
			  reason);
}
