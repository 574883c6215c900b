// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: rdma_event_str().
 */
#include "rcm_lib.h"

#define EV(name) [RDMA_CM_EVENT_##name] = "RDMA_CM_EVENT_" #name

static const char *const rcm_event_names[] = {
	EV(ADDR_RESOLVED),
	EV(ADDR_ERROR),
	EV(ROUTE_RESOLVED),
	EV(ROUTE_ERROR),
	EV(CONNECT_REQUEST),
	EV(CONNECT_RESPONSE),
	EV(CONNECT_ERROR),
	EV(UNREACHABLE),
	EV(REJECTED),
	EV(ESTABLISHED),
	EV(DISCONNECTED),
	EV(DEVICE_REMOVAL),
	EV(MULTICAST_JOIN),
	EV(MULTICAST_ERROR),
	EV(ADDR_CHANGE),
	EV(TIMEWAIT_EXIT),
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
