// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: shared replies of the seam, see script.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "script.h"

struct rcm_id_info script_info;
bool script_no_view;
struct rcm_qp_attr script_qp_attr[3];
struct rcm_conn_param script_response;
uint32_t script_peer_ece_vendor_id, script_peer_ece_attr_mod;
struct sockaddr_storage script_peer;

/* script_hold_next_read(): 0 idle, 1 armed, 2 a read held, 3 released */
static int hold_state;
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;

static void set_addr(uint8_t *to, const void *sa)
{
	sa_family_t family = ((const struct sockaddr *)sa)->sa_family;

	memset(to, 0, sizeof(script_info.src));
	memcpy(to, sa, family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in));
}

void script_cm(void)
{
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(50000) };
	struct sockaddr_in *peer = (struct sockaddr_in *)&script_peer;

	setenv("RCM_DEVICE", "/dev/null", 1);
	fake_num_devices = 1;
	script_no_view = false;
	inet_pton(AF_INET, "192.0.2.10", &src.sin_addr);
	memset(&script_info, 0, sizeof(script_info));
	script_info.port_num = 1;
	script_info.node_guid = FAKE_GUID(0);
	set_addr(script_info.src, &src);
	peer->sin_family = AF_INET;
	peer->sin_port = htons(41000);
	inet_pton(AF_INET, "192.0.2.30", &peer->sin_addr);
	seam_reply[SEAM_CMD(RCM_CMD_BIND_ADDR)] = script_bind;
	seam_reply[SEAM_CMD(RCM_CMD_RESOLVE_ADDR)] = script_resolve_addr;
	seam_reply[SEAM_CMD(RCM_CMD_RESOLVE_ROUTE)] = script_resolve_route;
	seam_reply[SEAM_CMD(RCM_CMD_QUERY_ID)] = script_query_id;
	seam_reply[SEAM_CMD(RCM_CMD_INIT_QP_ATTR)] = script_init_qp_attr;
	seam_reply[SEAM_CMD(RCM_CMD_CONNECT)] = script_connect;
	seam_on_read = script_read_hook;
}

int script_bind(int fd __attribute__((unused)), void *arg)
{
	struct rcm_bind_addr *c = arg;

	c->out_info = script_info;
	set_addr(c->out_info.src, &c->addr);
	return 0;
}

static int resolved(int fd, uint32_t handle, uint32_t event, const void *dst)
{
	struct rcm_event ev = seam_event(fd, handle, event, 0);

	if (!script_no_view) {
		ev.id_info = script_info;
		ev.id_info_len = sizeof(ev.id_info);
		if (dst)
			set_addr(ev.id_info.dst, dst);
	}
	return seam_push(fd, &ev) ? 0 : ENOMEM;
}

int script_resolve_addr(int fd, void *arg)
{
	struct rcm_resolve_addr *c = arg;

	return resolved(fd, c->id, RCM_EVENT_ADDR_RESOLVED, &c->dst);
}

int script_resolve_route(int fd, void *arg)
{
	struct rcm_resolve_route *c = arg;

	return resolved(fd, c->id, RCM_EVENT_ROUTE_RESOLVED, NULL);
}

int script_query_id(int fd __attribute__((unused)), void *arg)
{
	struct rcm_query_id *c = arg;
	const struct rcm_id_info *i = &script_info;

	c->out_port_num = i->port_num;
	c->out_node_guid = i->node_guid;
	memcpy(c->out_sgid, i->sgid, sizeof(c->out_sgid));
	memcpy(&c->out_src, i->src, sizeof(i->src));
	memcpy(&c->out_dst, i->dst, sizeof(i->dst));
	c->out_num_paths = i->num_paths;
	c->out_path = i->path;
	c->out_flags = i->flags;
	c->out_ibdev_index = i->ibdev_index;
	return 0;
}

int script_init_qp_attr(int fd __attribute__((unused)), void *arg)
{
	struct rcm_init_qp_attr *c = arg;
	int s;

	for (s = 0; s < 3; s++) {
		if (!(c->qp_states & (1U << (s + 1))))
			continue;
		c->out_attr[s] = script_qp_attr[s];
		c->out_attr[s].qp_state = s + 1;
	}
	return 0;
}

int script_connect(int fd, void *arg)
{
	struct rcm_connect *c = arg;
	struct rcm_event ev = seam_event(fd, c->id,
					 RCM_EVENT_CONNECT_RESPONSE, 0);

	ev.conn = script_response;
	ev.ece_vendor_id = script_peer_ece_vendor_id;
	ev.ece_attr_mod = script_peer_ece_attr_mod;
	ev.private_data_len = 196;
	return seam_push(fd, &ev) ? 0 : ENOMEM;
}

bool script_push(int fd, uint32_t handle, uint32_t event, int32_t status)
{
	struct rcm_event ev = seam_event(fd, handle, event, status);

	return seam_push(fd, &ev);
}

uint32_t script_request(int fd, uint32_t listen_handle,
			const struct rcm_conn_param *conn, const void *pdata,
			uint8_t len)
{
	struct rcm_event ev = seam_event(fd, listen_handle,
					 RCM_EVENT_CONNECT_REQUEST, 0);

	ev.id = seam_new_id(fd, 0);
	ev.listen_id = listen_handle;
	if (conn)
		ev.conn = *conn;
	if (len)
		memcpy(ev.private_data, pdata, len);
	ev.private_data_len = 56;
	if (!script_no_view) {
		ev.id_info = script_info;
		ev.id_info_len = sizeof(ev.id_info);
		set_addr(ev.id_info.dst, &script_peer);
	}
	return ev.id && seam_push(fd, &ev) ? ev.id : 0;
}

void script_hold_next_read(void)
{
	pthread_mutex_lock(&hold_lock);
	hold_state = 1;
	pthread_mutex_unlock(&hold_lock);
}

bool script_wait_held(int ms)
{
	struct timespec ts;
	bool held;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000 + 1;	/* rounded up */
	pthread_mutex_lock(&hold_lock);
	while (hold_state == 1)
		if (pthread_cond_timedwait(&hold_cond, &hold_lock, &ts))
			break;
	held = hold_state == 2;
	pthread_mutex_unlock(&hold_lock);
	return held;
}

void script_release_read(void)
{
	pthread_mutex_lock(&hold_lock);
	hold_state = hold_state == 2 ? 3 : 0;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
}

void script_read_hook(int fd __attribute__((unused)),
		      const struct rcm_event *ev __attribute__((unused)))
{
	pthread_mutex_lock(&hold_lock);
	if (hold_state == 1) {
		hold_state = 2;
		pthread_cond_broadcast(&hold_cond);
		while (hold_state == 2)
			pthread_cond_wait(&hold_cond, &hold_lock);
		hold_state = 0;
	}
	pthread_mutex_unlock(&hold_lock);
}
