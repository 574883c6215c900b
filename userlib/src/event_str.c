// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: rdma_event_str().
 */
#include "rcm_lib.h"

/* Each name is exactly the enumerator's, as librdmacm returns it. */
static const char *const rcm_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

/**
 * rdma_event_str() - name of an event type
 * @event: the event type, usually rdma_cm_event.event
 *
 * Return: the enumerator's name as a static string, or "UNKNOWN EVENT".
 * Never fails.
 */
RCM_EXPORT const char *rdma_event_str(enum rdma_cm_event_type event)
{
	/* Unsigned compare: an out-of-range value may be negative. */
	if ((unsigned int)event < ARRAY_SIZE(rcm_event_names))
		return rcm_event_names[event];
	return "UNKNOWN EVENT";
}
