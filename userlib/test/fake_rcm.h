/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: a stand-in for the rcm module.
 *
 * Only for what the real module cannot be made to show (injected
 * failures, a reader held at one instant, older records, devices
 * Soft-RoCE cannot be): everything else the library does across the
 * uapi runs against rcm.ko in a guest (userlib/test/guest/), and
 * Documentation/userlib-host-tests.rst says which case went where. It is
 * stricter than the uapi, so it cannot prove the struct-size rules.
 *
 * A test program that links fake_rcm.o defines ioctl() and read() itself;
 * the executable comes first in the symbol lookup order, so the library
 * under test calls these. Channels are opened on /dev/null (RCM_DEVICE,
 * set by fake_rcm_init()); the first RCM_IOCTL_QUERY on a file makes it a
 * fake rcm file. Other files get the real system calls.
 *
 * The fake follows the uapi documentation: per-file ids with handles from
 * 1, events queued per file and returned by read() as whole records
 * (blocking, or EAGAIN on an O_NONBLOCK file), poll() readable while
 * one is queued, DESTROY_ID discarding the
 * id's unread events and returning how many read() returned.
 * RCM_IOCTL_RESOLVE_ROUTE needs an id whose ADDR_RESOLVED was queued,
 * and routes it once; QUERY_ID then reports fake_route_num_paths and
 * fake_route_path. RCM_IOCTL_SET_OPTION checks level (ENOPROTOOPT), id,
 * name (ENOPROTOOPT) and value range (EINVAL; ACK_TIMEOUT on RC ids
 * only), and changes nothing. RCM_IOCTL_LISTEN binds an unbound id to
 * the IPv4 wildcard (port fake_ephemeral) and refuses ids listening
 * already (EINVAL);
 * fake_rcm_push_request() makes a request id as the module does for a
 * peer's REQ. RCM_IOCTL_REJECT checks reason, length and reserved
 * (EINVAL), copies the private data into fake_reject_data, and answers
 * an unanswered request id, or an active id that reported
 * CONNECT_RESPONSE and is not established (else EINVAL).
 *
 * Connections: RCM_IOCTL_CONNECT needs a routed RC id (EINVAL), checks
 * the ranges of the uapi (EINVAL; retry counts above 7 pass, the module
 * takes them as 7), copies the private data into
 * fake_connect_data and answers as fake_connect_mode says.
 * RCM_IOCTL_ESTABLISH takes an id that reported CONNECT_RESPONSE once.
 * RCM_IOCTL_ACCEPT takes an unanswered request id, checks the ranges,
 * copies the private data into fake_accept_data, makes the accept's
 * context the id's, and queues ESTABLISHED (the peer's RTU) if
 * fake_accept_establishes. RCM_IOCTL_INIT_QP_ATTR fills, for each state
 * S asked for, out_attr[S - 1] with fake_qp_attr[S - 1] and qp_state S:
 * INIT for an attached id, RTR and RTS for a request id or an id that
 * reported CONNECT_RESPONSE (else EINVAL). RCM_IOCTL_NOTIFY takes event
 * 9 on an accepted id not established yet and queues ESTABLISHED.
 * RCM_IOCTL_DISCONNECT takes a request id or an id that connected
 * (else EINVAL); for an accepted request id or an id that reported
 * CONNECT_RESPONSE (and was not rejected), the first one queues
 * DISCONNECTED if fake_disconnect_event, the others do nothing. RCM_IOCTL_MIGRATE_ID
 * moves an id (its state, its reported count and its unread events,
 * re-stamped with the new handle, behind the destination's own) to the
 * lowest free handle of the fake file of fd: EBADF for an fd that is not
 * open, EINVAL for one that is no fake rcm file, EBUSY while an unread
 * CONNECT_REQUEST names the id as request or listener, EMFILE when the
 * destination is full, ENOMEM when its event queue is; its own file
 * returns the same handle. Every command sets
 * fake_cmd_seq[] from fake_seq (fake_verbs.h), so that tests can check
 * the order of module commands and QP changes.
 */
#ifndef RCM_TEST_FAKE_RCM_H
#define RCM_TEST_FAKE_RCM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/rcm_user.h>

#include "fake_verbs.h"

#define FAKE_RCM_MAX_IDS	32

/*
 * The ids a fake file holds (EMFILE beyond): FAKE_RCM_MAX_IDS unless a
 * test sets more; a file takes the value when it is opened (its
 * RCM_IOCTL_QUERY).
 */
extern int fake_rcm_max_ids;

/* How RCM_IOCTL_RESOLVE_ADDR completes. */
enum fake_resolve {
	FAKE_RESOLVE_OK,	/* RCM_EVENT_ADDR_RESOLVED, id attached */
	FAKE_RESOLVE_ERROR,	/* RCM_EVENT_ADDR_ERROR, fake_resolve_status */
	FAKE_RESOLVE_SILENT,	/* no event (yet) */
};

extern enum fake_resolve fake_resolve_mode;
extern int fake_resolve_status;

/* How RCM_IOCTL_RESOLVE_ROUTE completes. */
enum fake_route {
	FAKE_ROUTE_OK,		/* RCM_EVENT_ROUTE_RESOLVED, id routed */
	FAKE_ROUTE_ERROR,	/* RCM_EVENT_ROUTE_ERROR, fake_route_status */
	FAKE_ROUTE_SILENT,	/* id routed, no event: the test pushes it */
};

extern enum fake_route fake_route_mode;
extern int fake_route_status;
/* What a routed id reports in RCM_IOCTL_QUERY_ID (0: iWARP, no path). */
extern uint32_t fake_route_num_paths;
/*
 * Bind returns the id's view and ADDR_RESOLVED/ROUTE_RESOLVED carry it
 * (default true); false fakes a kernel that sends none, so the library
 * queries.
 */
extern bool fake_send_info;
extern struct rcm_path fake_route_path;

/* What an attached id reports in RCM_IOCTL_QUERY_ID. */
extern uint64_t fake_attach_guid;	/* network order */
/* The device index reported with it; -1 (default): none, as before. */
extern int fake_attach_index;
extern uint32_t fake_attach_port;
extern uint8_t fake_attach_sgid[16];
/* Local address the fake gives a resolving id (port: fake_ephemeral). */
extern struct sockaddr_storage fake_resolve_src;
extern uint16_t fake_ephemeral;		/* host order */

/* How RCM_IOCTL_CONNECT is answered. */
/*
 * ACCEPT: CONNECT_RESPONSE with fake_connect_response and fake_peer_data
 * (196 bytes); REJECT: REJECTED with fake_connect_status and
 * fake_peer_data (148 bytes); UNREACHABLE: UNREACHABLE, -ETIMEDOUT;
 * SILENT: nothing (yet).
 */
enum fake_connect {
	FAKE_CONNECT_ACCEPT,
	FAKE_CONNECT_REJECT,
	FAKE_CONNECT_UNREACHABLE,
	FAKE_CONNECT_SILENT,
};

extern enum fake_connect fake_connect_mode;
extern int fake_connect_status;
extern struct rcm_conn_param fake_connect_response;
extern uint8_t fake_peer_data[RCM_EVENT_PRIVATE_DATA_MAX];
extern bool fake_accept_establishes;	/* default false */
extern bool fake_disconnect_event;	/* default true */
/* What RCM_IOCTL_INIT_QP_ATTR reports for INIT, RTR and RTS. */
extern struct rcm_qp_attr fake_qp_attr[3];
/*
 * Events carry those sets as the module does (default false: a module
 * that carries none): ADDR_RESOLVED and ROUTE_RESOLVED INIT,
 * CONNECT_REQUEST (fake_rcm_push_request()) and CONNECT_RESPONSE INIT,
 * RTR and RTS, each with qp_state S.
 */
extern bool fake_carry_qp_attr;
/*
 * CONNECT_REQUEST (fake_rcm_push_request() and
 * fake_rcm_push_ud_request()) carries the request id's view, what
 * RCM_IOCTL_QUERY_ID reports for it, as the module does (default false:
 * a module that carries none).
 */
extern bool fake_carry_id_info;

/*
 * UD ids: RCM_IOCTL_CONNECT is a SIDR REQ, answered as fake_connect_mode
 * says: ACCEPT gives ESTABLISHED with fake_sidr_ud and fake_peer_data
 * (136 bytes); REJECT gives UNREACHABLE with fake_sidr_status (2) and
 * fake_peer_data; UNREACHABLE gives UNREACHABLE, -ETIMEDOUT. Private
 * data: 180 bytes at most for a connect, 136 for an accept or reject.
 */
extern struct rcm_ud_param fake_sidr_ud;
extern int fake_sidr_status;

/*
 * Multicast: RCM_IOCTL_JOIN_MCAST takes an attached UD id (else EINVAL;
 * ENOENT for no id), a multicast IPv4/IPv6 address (EINVAL) and join
 * flags 0 or 1 (EINVAL), EADDRINUSE for a group the id joined already,
 * and answers as fake_join_mode says: OK queues MULTICAST_JOIN with
 * fake_mcast_ud, ERROR queues MULTICAST_ERROR with fake_join_status,
 * SILENT nothing. Events carry the join's context. read() counts a
 * group's events for the group and the id. RCM_IOCTL_LEAVE_MCAST finds
 * the group by id and address (ENOENT), discards its unread events and
 * returns how many read() returned. DESTROY_ID forgets the id's groups.
 */
enum fake_join {
	FAKE_JOIN_OK,
	FAKE_JOIN_ERROR,
	FAKE_JOIN_SILENT,
};

extern enum fake_join fake_join_mode;
extern int fake_join_status;
extern struct rcm_ud_param fake_mcast_ud;

/* Queue another event of the group addr of id handle. */
bool fake_rcm_push_group(int fd, uint32_t handle, const void *addr,
			 uint32_t event, int32_t status);

/* One-shot errno for the next call of a command (index: RCM_CMD_*). */
void fake_rcm_fail_next(unsigned int cmd, int err);

/* The argument of the last call of each command, as the library passed it. */
extern struct rcm_create_id fake_last_create;
extern struct rcm_destroy_id fake_last_destroy;
extern struct rcm_bind_addr fake_last_bind;
extern struct rcm_resolve_addr fake_last_resolve;
extern struct rcm_query_id fake_last_query_id;
extern struct rcm_resolve_route fake_last_resolve_route;
extern struct rcm_set_option fake_last_set_option;
/* false: RESOLVE_TIMEOUT and CONNECT_TIMEOUT are ENOPROTOOPT (old kernel) */
extern bool fake_timeout_options;
extern struct rcm_listen fake_last_listen;
extern struct rcm_reject fake_last_reject;
extern struct rcm_accept fake_last_accept;
extern struct rcm_disconnect fake_last_disconnect;
extern struct rcm_connect fake_last_connect;
/* The ECE a peer's REQ (pushed requests) and REP (CONNECT_RESPONSE) carry. */
extern uint32_t fake_peer_ece_vendor_id;
extern uint32_t fake_peer_ece_attr_mod;
extern struct rcm_establish fake_last_establish;
extern struct rcm_init_qp_attr fake_last_init_qp_attr;
extern struct rcm_notify fake_last_notify;
extern struct rcm_migrate_id fake_last_migrate;
/* The private data of the last RCM_IOCTL_REJECT that got so far. */
extern uint8_t fake_reject_data[RCM_REJECT_PRIVATE_DATA_MAX];
/* The same for RCM_IOCTL_CONNECT (UD: up to 180) and RCM_IOCTL_ACCEPT. */
extern uint8_t fake_connect_data[RCM_UD_CONNECT_PRIVATE_DATA_MAX];
extern uint8_t fake_accept_data[RCM_ACCEPT_PRIVATE_DATA_MAX];
extern struct rcm_join_mcast fake_last_join;
extern struct rcm_leave_mcast fake_last_leave;
#define FAKE_NR_CMDS	19
extern int fake_calls[FAKE_NR_CMDS];	/* per RCM_CMD_* - RCM_CMD_BASE */
#define FAKE_CALLS(cmd)	fake_calls[(cmd) - RCM_CMD_BASE]
/* fake_seq after the last call of each command (failed ones too). */
extern int fake_cmd_seq[FAKE_NR_CMDS];
#define FAKE_SEQ(cmd)	fake_cmd_seq[(cmd) - RCM_CMD_BASE]

/* read() on fake files: calls (also failed ones), last buffer size. */
extern int fake_read_calls;
extern size_t fake_read_len;
extern int fake_read_blocked;		/* readers waiting right now */
/*
 * Hold the next read() on a fake file that returns records: after it
 * took them from the file (and let go of the fake's lock), it waits
 * until fake_rcm_release_read(). fake_rcm_wait_held() waits up to ms
 * milliseconds for a read() to be held and says whether one is.
 */
void fake_rcm_hold_next_read(void);
bool fake_rcm_wait_held(int ms);
void fake_rcm_release_read(void);

/*
 * poll() sees fake files as the module's are: POLLIN | POLLRDNORM while
 * an event is queued. It takes either fake files only (waiting up to
 * timeout ms for an event, -1 forever) or none (the real poll()).
 */

/* Point RCM_DEVICE at /dev/null. Call before the first library call. */
void fake_rcm_init(void);

/*
 * Queue an event for id handle of the file fd, as the module would.
 * Returns false if there is no such id.
 */
bool fake_rcm_push(int fd, uint32_t handle, uint32_t event, int32_t status,
		   const void *pdata, uint8_t len);

/*
 * A peer's connection request to the listening id listen_handle of fd:
 * a new id (context 0, attached, bound to the listener's address, with
 * peer as destination), and RCM_EVENT_CONNECT_REQUEST with the
 * listener's context, the new handle, listen_id, conn and pdata (len
 * bytes, the rest of the 56-byte area zero; private_data_len 56).
 * Returns the new handle, or 0 if listen_handle does not listen.
 */
uint32_t fake_rcm_push_request(int fd, uint32_t listen_handle,
			       const struct rcm_conn_param *conn,
			       const struct sockaddr_storage *peer,
			       const void *pdata, uint8_t len);

/*
 * A peer's SIDR REQ to the listening UD id listen_handle of fd: as
 * fake_rcm_push_request(), with a UD request id, no connection
 * parameters and a 180-byte private data area.
 */
uint32_t fake_rcm_push_ud_request(int fd, uint32_t listen_handle,
				  const struct sockaddr_storage *peer,
				  const void *pdata, uint8_t len);

/* Whether handle is a request id of fd that was rejected (by the call). */
bool fake_rcm_rejected(int fd, uint32_t handle);

/* The context the module reports handle's events with. */
uint64_t fake_rcm_context(int fd, uint32_t handle);

/* Number of events queued (unread) in the file of fd. */
int fake_rcm_queued(int fd);

/* The RESOLVE_TIMEOUT or CONNECT_TIMEOUT option of an id; 0 if unset. */
uint64_t fake_rcm_option(int fd, uint32_t handle, uint32_t optname);

/* Whether handle is a live id of the file of fd. */
bool fake_rcm_id_live(int fd, uint32_t handle);

/*
 * The set-up most programs share: one device (FAKE_GUID(0), port 1) to
 * attach to, and @peer, the address requests come from (192.0.2.30,
 * port 41000).
 */
void fake_rcm_one_device(struct sockaddr_storage *peer);

#endif /* RCM_TEST_FAKE_RCM_H */
