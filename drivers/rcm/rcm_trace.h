/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rcm: tracepoints (TRACE_SYSTEM rcm). Where an event means what one of
 * the in-tree rdma_cma events means, it has its name (cm_send_req,
 * cm_send_rep, cm_send_rtu, cm_send_rej, cm_send_sidr_req,
 * cm_send_sidr_rep, cm_disconnect, cm_id_destroy, cm_id_attach,
 * cm_req_handler), so a trace of either stack reads the same; ib_cm's
 * own ib_cma events fire under both. The rest follow the pattern:
 * cm_id_create, cm_resolve_addr, cm_resolve_route, cm_listen, and an
 * event record queued for a file (cm_event_queued) and read from it
 * (cm_event_read).
 *
 * Every event of an id carries its number (cm.id, as in-tree's events
 * carry the restrack ID: unique in the module, the ID column of
 * rcm-stat and the id= of the file's fdinfo, whichever process or
 * kernel worker fires it) and its handle (per file), then port space,
 * state, addresses and TOS. Fired under the id's lock, except
 * cm_event_read (the file's read mutex) and the device events
 * (cm_add_one, cm_remove_one: the device list's).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rcm

#if !defined(_RCM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RCM_TRACE_H

#include <linux/tracepoint.h>
#include <linux/in6.h>

#include "rcm_priv.h"

#define rcm_show_state(state)						\
	__print_symbolic(state,						\
		{ RCM_STATE_IDLE, "IDLE" },				\
		{ RCM_STATE_ADDR_BOUND, "ADDR_BOUND" },			\
		{ RCM_STATE_ADDR_QUERY, "ADDR_QUERY" },			\
		{ RCM_STATE_ADDR_RESOLVED, "ADDR_RESOLVED" },		\
		{ RCM_STATE_ROUTE_QUERY, "ROUTE_QUERY" },		\
		{ RCM_STATE_ROUTE_RESOLVED, "ROUTE_RESOLVED" },		\
		{ RCM_STATE_LISTEN, "LISTEN" },				\
		{ RCM_STATE_CONNECT, "CONNECT" },			\
		{ RCM_STATE_DISCONNECT, "DISCONNECT" },			\
		{ RCM_STATE_DEVICE_REMOVAL, "DEVICE_REMOVAL" },		\
		{ RCM_STATE_DESTROYING, "DESTROYING" })

#define rcm_show_event(type)						\
	__print_symbolic(type,						\
		{ RCM_EVENT_ADDR_RESOLVED, "ADDR_RESOLVED" },		\
		{ RCM_EVENT_ADDR_ERROR, "ADDR_ERROR" },			\
		{ RCM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED" },		\
		{ RCM_EVENT_ROUTE_ERROR, "ROUTE_ERROR" },		\
		{ RCM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" },	\
		{ RCM_EVENT_CONNECT_RESPONSE, "CONNECT_RESPONSE" },	\
		{ RCM_EVENT_CONNECT_ERROR, "CONNECT_ERROR" },		\
		{ RCM_EVENT_UNREACHABLE, "UNREACHABLE" },		\
		{ RCM_EVENT_REJECTED, "REJECTED" },			\
		{ RCM_EVENT_ESTABLISHED, "ESTABLISHED" },		\
		{ RCM_EVENT_DISCONNECTED, "DISCONNECTED" },		\
		{ RCM_EVENT_DEVICE_REMOVAL, "DEVICE_REMOVAL" },		\
		{ RCM_EVENT_MULTICAST_JOIN, "MULTICAST_JOIN" },		\
		{ RCM_EVENT_MULTICAST_ERROR, "MULTICAST_ERROR" },	\
		{ RCM_EVENT_ADDR_CHANGE, "ADDR_CHANGE" },		\
		{ RCM_EVENT_TIMEWAIT_EXIT, "TIMEWAIT_EXIT" })

DECLARE_EVENT_CLASS(rcm_id_class,
	TP_PROTO(const struct rcm_id *id),

	TP_ARGS(id),

	TP_STRUCT__entry(
		__field(u32, num)
		__field(u32, handle)
		__field(u16, ps)
		__field(u8, state)
		__field(u8, tos)
		__array(u8, srcaddr, sizeof(struct sockaddr_in6))
		__array(u8, dstaddr, sizeof(struct sockaddr_in6))
	),

	TP_fast_assign(
		__entry->num = id->num;
		__entry->handle = id->handle;
		__entry->ps = id->ps;
		__entry->state = id->state;
		__entry->tos = id->tos;
		memcpy(__entry->srcaddr, &id->bind.addr,
		       sizeof(struct sockaddr_in6));
		memcpy(__entry->dstaddr, &id->dst_addr,
		       sizeof(struct sockaddr_in6));
	),

	TP_printk("cm.id=%u handle=%u ps=%#x state=%s src=%pISpc dst=%pISpc tos=%u",
		  __entry->num, __entry->handle, __entry->ps,
		  rcm_show_state(__entry->state),
		  __entry->srcaddr, __entry->dstaddr, __entry->tos)
);

#define DEFINE_RCM_ID_EVENT(name)					\
	DEFINE_EVENT(rcm_id_class, cm_##name,				\
		     TP_PROTO(const struct rcm_id *id),			\
		     TP_ARGS(id))

DEFINE_RCM_ID_EVENT(id_create);
DEFINE_RCM_ID_EVENT(id_destroy);
DEFINE_RCM_ID_EVENT(resolve_addr);
DEFINE_RCM_ID_EVENT(resolve_route);
DEFINE_RCM_ID_EVENT(listen);
DEFINE_RCM_ID_EVENT(send_req);
DEFINE_RCM_ID_EVENT(send_rep);
DEFINE_RCM_ID_EVENT(send_rtu);
DEFINE_RCM_ID_EVENT(send_rej);
DEFINE_RCM_ID_EVENT(send_sidr_req);
DEFINE_RCM_ID_EVENT(send_sidr_rep);
DEFINE_RCM_ID_EVENT(disconnect);

TRACE_EVENT(cm_id_attach,
	TP_PROTO(const struct rcm_id *id, const struct ib_device *device),

	TP_ARGS(id, device),

	TP_STRUCT__entry(
		__field(u32, num)
		__field(u32, handle)
		__field(u32, port)
		__array(u8, srcaddr, sizeof(struct sockaddr_in6))
		__string(devname, dev_name(&device->dev))
	),

	TP_fast_assign(
		__entry->num = id->num;
		__entry->handle = id->handle;
		__entry->port = id->port_num;
		memcpy(__entry->srcaddr, &id->bind.addr,
		       sizeof(struct sockaddr_in6));
		rcm_assign_str(devname, dev_name(&device->dev));
	),

	TP_printk("cm.id=%u handle=%u src=%pISpc device=%s port=%u",
		  __entry->num, __entry->handle, __entry->srcaddr,
		  __get_str(devname), __entry->port)
);

TRACE_EVENT(cm_req_handler,
	TP_PROTO(const struct rcm_id *listener, int result),

	TP_ARGS(listener, result),

	TP_STRUCT__entry(
		__field(u32, num)
		__field(u32, handle)
		__field(u16, ps)
		__field(int, result)
		__array(u8, srcaddr, sizeof(struct sockaddr_in6))
	),

	TP_fast_assign(
		__entry->num = listener->num;
		__entry->handle = listener->handle;
		__entry->ps = listener->ps;
		__entry->result = result;
		memcpy(__entry->srcaddr, &listener->bind.addr,
		       sizeof(struct sockaddr_in6));
	),

	TP_printk("cm.id=%u handle=%u ps=%#x src=%pISpc result=%d",
		  __entry->num, __entry->handle, __entry->ps, __entry->srcaddr,
		  __entry->result)
);

/*
 * A connection request that no id took, and why: "qp-type",
 * "service-id", "header" (no CMA header of rcm's), "gid", "netdev" (no
 * netdev or namespace for its address), "no-listener", "not-listening",
 * "backlog-full" or "no-request" (the request id could not be made). The
 * listener's cm.id is 0 when none was found.
 */
TRACE_EVENT(cm_req_refused,
	TP_PROTO(const struct ib_device *device, u32 port,
		 const struct rcm_id *listener, const char *reason, int result),

	TP_ARGS(device, port, listener, reason, result),

	TP_STRUCT__entry(
		__string(devname, dev_name(&device->dev))
		__string(reason, reason)
		__field(u32, port)
		__field(u32, num)
		__field(u32, handle)
		__field(int, result)
	),

	TP_fast_assign(
		rcm_assign_str(devname, dev_name(&device->dev));
		rcm_assign_str(reason, reason);
		__entry->port = port;
		__entry->num = listener ? listener->num : 0;
		__entry->handle = listener ? listener->handle : 0;
		__entry->result = result;
	),

	TP_printk("cm.id=%u handle=%u device=%s port=%u reason=%s result=%d",
		  __entry->num, __entry->handle, __get_str(devname),
		  __entry->port, __get_str(reason), __entry->result)
);

DECLARE_EVENT_CLASS(rcm_event_class,
	TP_PROTO(const struct rcm_uevent *uevent),

	TP_ARGS(uevent),

	TP_STRUCT__entry(
		__field(u32, num)
		__field(u32, handle)
		__field(u32, event)
		__field(int, status)
	),

	TP_fast_assign(
		__entry->num = uevent->id->num;
		__entry->handle = uevent->ev.id;
		__entry->event = uevent->ev.event;
		__entry->status = uevent->ev.status;
	),

	TP_printk("cm.id=%u handle=%u event=%s status=%d", __entry->num,
		  __entry->handle, rcm_show_event(__entry->event),
		  __entry->status)
);

DEFINE_EVENT(rcm_event_class, cm_event_queued,
	     TP_PROTO(const struct rcm_uevent *uevent),
	     TP_ARGS(uevent));

DEFINE_EVENT(rcm_event_class, cm_event_read,
	     TP_PROTO(const struct rcm_uevent *uevent),
	     TP_ARGS(uevent));

DECLARE_EVENT_CLASS(rcm_device_class,
	TP_PROTO(const struct ib_device *device),

	TP_ARGS(device),

	TP_STRUCT__entry(
		__string(devname, dev_name(&device->dev))
		__field(u32, ports)
	),

	TP_fast_assign(
		rcm_assign_str(devname, dev_name(&device->dev));
		__entry->ports = rdma_end_port(device);
	),

	TP_printk("device=%s ports=%u", __get_str(devname), __entry->ports)
);

/* The names of ib_client's callbacks, which the in-tree CM traces too. */
DEFINE_EVENT(rcm_device_class, cm_add_one,
	     TP_PROTO(const struct ib_device *device),
	     TP_ARGS(device));

DEFINE_EVENT(rcm_device_class, cm_remove_one,
	     TP_PROTO(const struct ib_device *device),
	     TP_ARGS(device));

#endif /* _RCM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE rcm_trace

#include <trace/define_trace.h>
