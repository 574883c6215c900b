/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: the replies to the seam's commands (seam.h) that
 * the host programs share.
 *
 * Each reply is a script, not a module: it answers every call the same
 * way, whatever the id did before. script_cm() installs them all.
 */
#ifndef RCM_TEST_SCRIPT_H
#define RCM_TEST_SCRIPT_H

#include <sys/socket.h>

#include "fake_verbs.h"
#include "seam.h"

/*
 * What bind, ADDR_RESOLVED, ROUTE_RESOLVED, CONNECT_REQUEST and
 * RCM_IOCTL_QUERY_ID report: attached to fake_devices[0] (FAKE_GUID(0),
 * port 1, no index), src 192.0.2.10 port 50000, no path. Bind reports
 * the address bound, and a resolution its destination, instead.
 */
extern struct rcm_id_info script_info;
/* Events carry no view (as an older module's): the library queries. */
extern bool script_no_view;
/* What RCM_IOCTL_INIT_QP_ATTR reports for INIT, RTR and RTS. */
extern struct rcm_qp_attr script_qp_attr[3];
/* The conn of CONNECT_RESPONSE (and ECE of its REP). */
extern struct rcm_conn_param script_response;
extern uint32_t script_peer_ece_vendor_id, script_peer_ece_attr_mod;
/* The address requests come from: 192.0.2.30 port 41000. */
extern struct sockaddr_storage script_peer;

/*
 * RCM_DEVICE at /dev/null (call it before the first library call), one
 * device (fake_num_devices), and the replies: bind,
 * RESOLVE_ADDR (ADDR_RESOLVED), RESOLVE_ROUTE (ROUTE_RESOLVED),
 * QUERY_ID, INIT_QP_ATTR and CONNECT (CONNECT_RESPONSE).
 */
void script_cm(void);

int script_bind(int fd, void *arg);
int script_resolve_addr(int fd, void *arg);
int script_resolve_route(int fd, void *arg);
int script_query_id(int fd, void *arg);
int script_init_qp_attr(int fd, void *arg);
int script_connect(int fd, void *arg);

/* Queue event of handle's with status; false if fd is no seam file. */
bool script_push(int fd, uint32_t handle, uint32_t event, int32_t status);

/*
 * A peer's request to the listener listen_handle of fd: a new id and
 * CONNECT_REQUEST with the listener's context, conn, script_info (dst:
 * script_peer) and pdata (len bytes of a 56-byte area). Returns the
 * new handle, 0 on failure.
 */
uint32_t script_request(int fd, uint32_t listen_handle,
			const struct rcm_conn_param *conn, const void *pdata,
			uint8_t len);

/*
 * Hold the next read() that returns records: after it took them from
 * the file, it waits until script_release_read(). script_wait_held()
 * waits up to ms milliseconds for a read() to be held and says whether
 * one is. script_cm() makes script_read_hook() seam_on_read; a program
 * with a hook of its own calls it from there.
 */
void script_hold_next_read(void);
bool script_wait_held(int ms);
void script_release_read(void);
void script_read_hook(int fd, const struct rcm_event *ev);

#endif /* RCM_TEST_SCRIPT_H */
