// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: a stand-in for the rcm module, see fake_rcm.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_rcm.h"

#define FAKE_MAX_FILES	16
#define FAKE_MAX_EVENTS	64

struct fake_id {
	bool		live;
	uint64_t	context;
	uint32_t	reported;
	bool		bound;
	bool		resolving;
	bool		attached;
	bool		addr_resolved;
	bool		routed;
	bool		listening;
	bool		request;
	bool		answered;
	bool		rejected;
	bool		connecting;	/* CONNECT issued */
	bool		responded;	/* CONNECT_RESPONSE queued */
	bool		accepted;	/* ACCEPT issued */
	bool		established;
	bool		disconnected;
	uint32_t	qp_type;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	uint64_t	resolve_timeout;	/* options, 0 unless set */
	uint64_t	connect_timeout;
};

/* A multicast group an id joined. */
struct fake_group {
	bool		live;
	uint32_t	handle;		/* the id */
	uint64_t	context;	/* of the join */
	struct sockaddr_storage addr;
	uint32_t	reported;	/* its events read() returned */
};

#define FAKE_MAX_GROUPS	8

struct fake_file {
	int		fd;		/* -1: slot free */
	struct fake_id	*ids;		/* handle h is ids[h - 1] */
	int		max_ids;	/* fake_rcm_max_ids when opened */
	struct rcm_event events[FAKE_MAX_EVENTS];
	int		nevents;
	struct fake_group groups[FAKE_MAX_GROUPS];
};

enum fake_route fake_route_mode = FAKE_ROUTE_OK;
int fake_route_status = -ETIMEDOUT;
uint32_t fake_route_num_paths = 1;
bool fake_send_info = true;
bool fake_carry_qp_attr;
bool fake_carry_id_info;
struct rcm_path fake_route_path;
enum fake_resolve fake_resolve_mode = FAKE_RESOLVE_OK;
int fake_resolve_status = -ETIMEDOUT;
uint64_t fake_attach_guid;
int fake_attach_index = -1;
uint32_t fake_attach_port = 1;
uint8_t fake_attach_sgid[16];
struct sockaddr_storage fake_resolve_src;
uint16_t fake_ephemeral = 50000;

struct rcm_create_id fake_last_create;
struct rcm_destroy_id fake_last_destroy;
struct rcm_bind_addr fake_last_bind;
struct rcm_resolve_addr fake_last_resolve;
struct rcm_query_id fake_last_query_id;
struct rcm_resolve_route fake_last_resolve_route;
struct rcm_set_option fake_last_set_option;
bool fake_timeout_options = true;
struct rcm_listen fake_last_listen;
struct rcm_reject fake_last_reject;
struct rcm_accept fake_last_accept;
struct rcm_disconnect fake_last_disconnect;
struct rcm_connect fake_last_connect;
uint32_t fake_peer_ece_vendor_id;
uint32_t fake_peer_ece_attr_mod;
struct rcm_establish fake_last_establish;
struct rcm_init_qp_attr fake_last_init_qp_attr;
struct rcm_notify fake_last_notify;
struct rcm_migrate_id fake_last_migrate;
struct rcm_join_mcast fake_last_join;
struct rcm_leave_mcast fake_last_leave;
enum fake_join fake_join_mode = FAKE_JOIN_OK;
int fake_join_status = -ENETUNREACH;
struct rcm_ud_param fake_mcast_ud;
struct rcm_ud_param fake_sidr_ud;
int fake_sidr_status = 2;
uint8_t fake_reject_data[RCM_REJECT_PRIVATE_DATA_MAX];
uint8_t fake_connect_data[RCM_UD_CONNECT_PRIVATE_DATA_MAX];
uint8_t fake_accept_data[RCM_ACCEPT_PRIVATE_DATA_MAX];
enum fake_connect fake_connect_mode = FAKE_CONNECT_ACCEPT;
int fake_connect_status = 8;
struct rcm_conn_param fake_connect_response;
uint8_t fake_peer_data[RCM_EVENT_PRIVATE_DATA_MAX];
bool fake_accept_establishes;
bool fake_disconnect_event = true;
struct rcm_qp_attr fake_qp_attr[3];
int fake_cmd_seq[FAKE_NR_CMDS];
int fake_calls[FAKE_NR_CMDS];
int fake_read_calls;
size_t fake_read_len;
int fake_read_blocked;
int fake_rcm_max_ids = FAKE_RCM_MAX_IDS;

static int fail_next[FAKE_NR_CMDS];
static struct fake_file files[FAKE_MAX_FILES];
static bool files_init;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;

/* fake_rcm_hold_next_read(): 0 idle, 1 armed, 2 a read held, 3 released */
static int hold_state;
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;

void fake_rcm_init(void)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&fake_resolve_src;

	setenv("RCM_DEVICE", "/dev/null", 1);
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, "192.0.2.10", &sin->sin_addr);
}

void fake_rcm_fail_next(unsigned int cmd, int err)
{
	fail_next[cmd - RCM_CMD_BASE] = err;
}

/* Caller holds lock. */
static struct fake_file *file_of(int fd, bool create)
{
	struct fake_file *free_slot = NULL;
	int i;

	if (!files_init) {
		for (i = 0; i < FAKE_MAX_FILES; i++)
			files[i].fd = -1;
		files_init = true;
	}
	for (i = 0; i < FAKE_MAX_FILES; i++) {
		if (files[i].fd == fd)
			return &files[i];
		if (files[i].fd < 0 && !free_slot)
			free_slot = &files[i];
	}
	if (!create || !free_slot)
		return NULL;
	free_slot->fd = fd;
	return free_slot;
}

/*
 * Make @f a new open file of @fd, with room for fake_rcm_max_ids ids.
 * Returns false (and frees the slot) without the memory. Caller holds
 * lock.
 */
static bool file_reset(struct fake_file *f, int fd)
{
	free(f->ids);
	memset(f, 0, sizeof(*f));
	f->ids = calloc(fake_rcm_max_ids, sizeof(*f->ids));
	f->fd = f->ids ? fd : -1;
	f->max_ids = f->ids ? fake_rcm_max_ids : 0;
	return f->ids;
}

static struct fake_id *id_of(struct fake_file *f, uint32_t handle)
{
	if (!handle || handle > (uint32_t)f->max_ids ||
	    !f->ids[handle - 1].live)
		return NULL;
	return &f->ids[handle - 1];
}

/* The id's view as bind returns it and the resolution events carry it. */
static void fill_info(const struct fake_id *id, struct rcm_id_info *info)
{
	const struct sockaddr *src = (const struct sockaddr *)&id->src;
	const struct sockaddr *dst = (const struct sockaddr *)&id->dst;

	memset(info, 0, sizeof(*info));
	if (src->sa_family)
		memcpy(info->src, src, src->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	if (dst->sa_family)
		memcpy(info->dst, dst, dst->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	if (id->attached) {
		info->port_num = fake_attach_port;
		info->node_guid = fake_attach_guid;
		memcpy(info->sgid, fake_attach_sgid, sizeof(info->sgid));
		if (fake_attach_index >= 0) {
			info->flags = RCM_ID_INFO_IBDEV_INDEX;
			info->ibdev_index = fake_attach_index;
		}
	}
	if (id->routed && fake_route_num_paths) {
		info->num_paths = fake_route_num_paths;
		info->path = fake_route_path;
	}
}

/* The sets of fake_qp_attr the module's event @ev carries, if asked to. */
static void carry_qp_attr(struct rcm_event *ev)
{
	uint32_t s, states = 0;

	if (!fake_carry_qp_attr)
		return;
	if (ev->event == RCM_EVENT_ADDR_RESOLVED ||
	    ev->event == RCM_EVENT_ROUTE_RESOLVED)
		states = 1u << RCM_QPS_INIT;
	else if (ev->event == RCM_EVENT_CONNECT_REQUEST ||
		 ev->event == RCM_EVENT_CONNECT_RESPONSE)
		states = (1u << RCM_QPS_INIT) | (1u << RCM_QPS_RTR) |
			 (1u << RCM_QPS_RTS);
	for (s = RCM_QPS_INIT; s <= RCM_QPS_RTS; s++) {
		if (!(states & (1u << s)))
			continue;
		ev->qp_attr[s - 1] = fake_qp_attr[s - 1];
		ev->qp_attr[s - 1].qp_state = s;
	}
	ev->qp_attr_valid = states;
}

static struct rcm_event *push_locked(struct fake_file *f, uint32_t handle,
				     uint32_t event, int32_t status,
				     const void *pdata, uint8_t len)
{
	struct fake_id *id = id_of(f, handle);
	struct rcm_event *ev;

	if (!id || f->nevents == FAKE_MAX_EVENTS)
		return NULL;
	ev = &f->events[f->nevents++];
	memset(ev, 0, sizeof(*ev));
	ev->context = id->context;
	ev->id = handle;
	ev->event = event;
	ev->status = status;
	ev->private_data_len = len;
	if (len)
		memcpy(ev->private_data, pdata, len);
	carry_qp_attr(ev);
	pthread_cond_broadcast(&queued);
	return ev;
}

/* @id's view in its event @ev, as the module carries it. */
static void carry_info(struct rcm_event *ev, const struct fake_id *id)
{
	fill_info(id, &ev->id_info);
	ev->id_info_len = sizeof(ev->id_info);
}

/* A resolution's event, with the id's view unless told to leave it out. */
static void push_info_locked(struct fake_file *f, const struct fake_id *id,
			     uint32_t handle, uint32_t event)
{
	struct rcm_event *ev = push_locked(f, handle, event, 0, NULL, 0);

	if (ev && fake_send_info)
		carry_info(ev, id);
}

static bool mcast_event(uint32_t event)
{
	return event == RCM_EVENT_MULTICAST_JOIN ||
	       event == RCM_EVENT_MULTICAST_ERROR;
}

static bool same_group(const struct sockaddr_storage *a, const void *b)
{
	const struct sockaddr *sb = b;

	if (a->ss_family != sb->sa_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

static struct fake_group *group_of(struct fake_file *f, uint32_t handle,
				   const void *addr)
{
	int i;

	for (i = 0; i < FAKE_MAX_GROUPS; i++)
		if (f->groups[i].live && f->groups[i].handle == handle &&
		    same_group(&f->groups[i].addr, addr))
			return &f->groups[i];
	return NULL;
}

/* A group's event: its context, not the id's; the group's parameters. */
static struct rcm_event *push_group_locked(struct fake_file *f,
					   const struct fake_group *g,
					   uint32_t event, int32_t status)
{
	struct rcm_event *ev = push_locked(f, g->handle, event, status,
					   NULL, 0);

	if (!ev)
		return NULL;
	ev->context = g->context;
	if (event == RCM_EVENT_MULTICAST_JOIN)
		ev->ud = fake_mcast_ud;
	return ev;
}

bool fake_rcm_push_group(int fd, uint32_t handle, const void *addr,
			 uint32_t event, int32_t status)
{
	struct fake_group *g;
	struct fake_file *f;
	bool ok = false;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	g = f ? group_of(f, handle, addr) : NULL;
	if (g)
		ok = push_group_locked(f, g, event, status) != NULL;
	pthread_mutex_unlock(&lock);
	return ok;
}

bool fake_rcm_push(int fd, uint32_t handle, uint32_t event, int32_t status,
		   const void *pdata, uint8_t len)
{
	struct fake_file *f;
	bool ok = false;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	if (f)
		ok = push_locked(f, handle, event, status, pdata, len) != NULL;
	pthread_mutex_unlock(&lock);
	return ok;
}

static uint32_t push_request(int fd, uint32_t listen_handle,
			     const struct rcm_conn_param *conn,
			     const struct sockaddr_storage *peer,
			     const void *pdata, uint8_t len)
{
	struct fake_id *l, *r;
	struct fake_file *f;
	struct rcm_event *ev;
	uint32_t handle = 0;
	uint8_t area;
	int i;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	l = f ? id_of(f, listen_handle) : NULL;
	area = l && l->qp_type == RCM_QPT_UD ? RCM_UD_CONNECT_PRIVATE_DATA_MAX :
	       56;
	if (!l || !l->listening || f->nevents == FAKE_MAX_EVENTS ||
	    len > area || (!conn) != (l->qp_type == RCM_QPT_UD))
		goto out;
	for (i = 0; i < f->max_ids && f->ids[i].live; i++)
		;
	if (i == f->max_ids)
		goto out;
	r = &f->ids[i];
	memset(r, 0, sizeof(*r));
	r->live = true;
	r->request = true;
	r->bound = true;
	r->attached = true;
	r->qp_type = l->qp_type;
	r->src = l->src;
	r->dst = *peer;
	handle = i + 1;

	ev = &f->events[f->nevents++];
	memset(ev, 0, sizeof(*ev));
	ev->context = l->context;
	ev->id = handle;
	ev->listen_id = listen_handle;
	ev->event = RCM_EVENT_CONNECT_REQUEST;
	ev->ece_vendor_id = fake_peer_ece_vendor_id;
	ev->ece_attr_mod = fake_peer_ece_attr_mod;
	if (conn)
		ev->conn = *conn;
	ev->private_data_len = area;
	if (len)
		memcpy(ev->private_data, pdata, len);
	carry_qp_attr(ev);
	if (fake_carry_id_info)
		carry_info(ev, r);
	pthread_cond_broadcast(&queued);
out:
	pthread_mutex_unlock(&lock);
	return handle;
}

uint32_t fake_rcm_push_request(int fd, uint32_t listen_handle,
			       const struct rcm_conn_param *conn,
			       const struct sockaddr_storage *peer,
			       const void *pdata, uint8_t len)
{
	return conn ? push_request(fd, listen_handle, conn, peer, pdata, len) :
		      0;
}

uint32_t fake_rcm_push_ud_request(int fd, uint32_t listen_handle,
				  const struct sockaddr_storage *peer,
				  const void *pdata, uint8_t len)
{
	return push_request(fd, listen_handle, NULL, peer, pdata, len);
}

bool fake_rcm_rejected(int fd, uint32_t handle)
{
	struct fake_file *f;
	bool rej = false;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	if (f && handle && handle <= (uint32_t)f->max_ids)
		rej = f->ids[handle - 1].rejected;
	pthread_mutex_unlock(&lock);
	return rej;
}

uint64_t fake_rcm_context(int fd, uint32_t handle)
{
	struct fake_file *f;
	struct fake_id *id;
	uint64_t ctx = 0;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	id = f ? id_of(f, handle) : NULL;
	if (id)
		ctx = id->context;
	pthread_mutex_unlock(&lock);
	return ctx;
}

int fake_rcm_queued(int fd)
{
	struct fake_file *f;
	int n = -1;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	if (f)
		n = f->nevents;
	pthread_mutex_unlock(&lock);
	return n;
}

bool fake_rcm_id_live(int fd, uint32_t handle)
{
	struct fake_file *f;
	bool live = false;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	if (f)
		live = id_of(f, handle) != NULL;
	pthread_mutex_unlock(&lock);
	return live;
}

uint64_t fake_rcm_option(int fd, uint32_t handle, uint32_t optname)
{
	struct fake_file *f;
	struct fake_id *id;
	uint64_t v = 0;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	id = f ? id_of(f, handle) : NULL;
	if (id && optname == RCM_OPTION_ID_RESOLVE_TIMEOUT)
		v = id->resolve_timeout;
	else if (id && optname == RCM_OPTION_ID_CONNECT_TIMEOUT)
		v = id->connect_timeout;
	pthread_mutex_unlock(&lock);
	return v;
}

static size_t sockaddr_len(int family)
{
	return family == AF_INET ? sizeof(struct sockaddr_in) :
	       family == AF_INET6 ? sizeof(struct sockaddr_in6) : 0;
}

/* The kernel's checks of an address argument. */
static int check_addr(const struct __kernel_sockaddr_storage *a)
{
	size_t len = sockaddr_len(a->ss_family), i;
	const uint8_t *p = (const uint8_t *)a;

	if (!len)
		return EAFNOSUPPORT;
	for (i = len; i < sizeof(*a); i++)
		if (p[i])
			return EINVAL;
	return 0;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static bool zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static int do_connect(struct fake_file *f, struct rcm_connect *c)
{
	struct fake_id *id;
	struct rcm_event *ev;

	fake_last_connect = *c;
	if (c->size != sizeof(*c) || c->flags || c->reserved2 ||
	    !zero(c->reserved, sizeof(c->reserved)))
		return EINVAL;
	id = id_of(f, c->id);
	if (!id)
		return ENOENT;
	/* Retry counts above 7 are taken as 7, as in-tree. */
	if (!id->routed || id->connecting ||
	    c->flow_control > 1 || c->srq > 1 || c->qp_num > 0xffffff ||
	    c->private_data_len > (id->qp_type == RCM_QPT_UD ?
				   RCM_UD_CONNECT_PRIVATE_DATA_MAX :
				   RCM_CONNECT_PRIVATE_DATA_MAX))
		return EINVAL;
	memset(fake_connect_data, 0, sizeof(fake_connect_data));
	if (c->private_data_len)
		memcpy(fake_connect_data,
		       (const void *)(uintptr_t)c->private_data,
		       c->private_data_len);
	id->connecting = true;
	if (id->qp_type == RCM_QPT_UD) {
		/* SIDR: the peer's QP, or UNREACHABLE; no connection. */
		switch (fake_connect_mode) {
		case FAKE_CONNECT_ACCEPT:
			ev = push_locked(f, c->id, RCM_EVENT_ESTABLISHED, 0,
					 fake_peer_data,
					 RCM_UD_ACCEPT_PRIVATE_DATA_MAX);
			if (ev)
				ev->ud = fake_sidr_ud;
			break;
		case FAKE_CONNECT_REJECT:
			push_locked(f, c->id, RCM_EVENT_UNREACHABLE,
				    fake_sidr_status, fake_peer_data,
				    RCM_UD_ACCEPT_PRIVATE_DATA_MAX);
			break;
		case FAKE_CONNECT_UNREACHABLE:
			push_locked(f, c->id, RCM_EVENT_UNREACHABLE,
				    -ETIMEDOUT, NULL, 0);
			break;
		case FAKE_CONNECT_SILENT:
			break;
		}
		return 0;
	}
	switch (fake_connect_mode) {
	case FAKE_CONNECT_ACCEPT:
		ev = push_locked(f, c->id, RCM_EVENT_CONNECT_RESPONSE, 0,
				 fake_peer_data, RCM_ACCEPT_PRIVATE_DATA_MAX);
		if (ev) {
			ev->conn = fake_connect_response;
			ev->ece_vendor_id = fake_peer_ece_vendor_id;
			ev->ece_attr_mod = fake_peer_ece_attr_mod;
		}
		id->responded = true;
		break;
	case FAKE_CONNECT_REJECT:
		push_locked(f, c->id, RCM_EVENT_REJECTED, fake_connect_status,
			    fake_peer_data, RCM_REJECT_PRIVATE_DATA_MAX);
		break;
	case FAKE_CONNECT_UNREACHABLE:
		push_locked(f, c->id, RCM_EVENT_UNREACHABLE, -ETIMEDOUT,
			    NULL, 0);
		break;
	case FAKE_CONNECT_SILENT:
		break;
	}
	return 0;
}

static int do_accept(struct fake_file *f, struct rcm_accept *c)
{
	struct fake_id *id;

	fake_last_accept = *c;
	if (c->size != sizeof(*c) || c->flags || c->reserved2 ||
	    !zero(c->reserved, sizeof(c->reserved)))
		return EINVAL;
	id = id_of(f, c->id);
	if (!id)
		return ENOENT;
	if (!id->request || id->answered || c->flow_control > 1 ||
	    c->srq > 1 || c->qp_num > 0xffffff ||
	    c->private_data_len > (id->qp_type == RCM_QPT_UD ?
				   RCM_UD_ACCEPT_PRIVATE_DATA_MAX :
				   RCM_ACCEPT_PRIVATE_DATA_MAX))
		return EINVAL;
	memset(fake_accept_data, 0, sizeof(fake_accept_data));
	if (c->private_data_len)
		memcpy(fake_accept_data,
		       (const void *)(uintptr_t)c->private_data,
		       c->private_data_len);
	id->answered = true;
	id->accepted = true;
	id->context = c->context;
	/* A SIDR REP: nothing follows. */
	if (fake_accept_establishes && id->qp_type != RCM_QPT_UD) {
		id->established = true;
		push_locked(f, c->id, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
	}
	return 0;
}

static int do_init_qp_attr(struct fake_file *f, struct rcm_init_qp_attr *c)
{
	const uint32_t all = (1u << RCM_QPS_INIT) | (1u << RCM_QPS_RTR) |
			     (1u << RCM_QPS_RTS);
	struct fake_id *id;
	uint32_t s;

	fake_last_init_qp_attr = *c;
	if (c->size != sizeof(*c) || c->flags)
		return EINVAL;
	id = id_of(f, c->id);
	if (!id)
		return ENOENT;
	if (!c->qp_states || (c->qp_states & ~all))
		return EINVAL;
	if ((c->qp_states & (1u << RCM_QPS_INIT)) && !id->attached)
		return EINVAL;
	if ((c->qp_states & ~(1u << RCM_QPS_INIT)) &&
	    !(id->request && !id->rejected) && !id->responded)
		return EINVAL;
	memset(c->out_attr, 0, sizeof(c->out_attr));
	for (s = RCM_QPS_INIT; s <= RCM_QPS_RTS; s++) {
		if (!(c->qp_states & (1u << s)))
			continue;
		c->out_attr[s - 1] = fake_qp_attr[s - 1];
		c->out_attr[s - 1].qp_state = s;
	}
	return 0;
}

/* Free id slots of @to, and room for @n more events; 0 or an errno. */
static int migrate_room(struct fake_file *to, int ids, int n)
{
	int slot, free_slots = 0;

	for (slot = 0; slot < to->max_ids; slot++)
		free_slots += !to->ids[slot].live;
	if (free_slots < ids)
		return EMFILE;
	if (to->nevents + n > FAKE_MAX_EVENTS)
		return ENOMEM;
	return 0;
}

/*
 * Move id @old of @f, with its unread events (re-stamped), to the lowest
 * free slot of @to; its unread CONNECT_REQUEST records as listener name
 * its new handle. Returns the new handle; room was checked.
 */
static uint32_t migrate_one(struct fake_file *f, struct fake_file *to,
			    uint32_t old)
{
	int i, slot, keep = 0;
	uint32_t handle;

	for (slot = 0; to->ids[slot].live; slot++)
		;
	handle = slot + 1;
	to->ids[slot] = f->ids[old - 1];
	f->ids[old - 1].live = false;
	for (i = 0; i < f->nevents; i++) {
		if (f->events[i].event == RCM_EVENT_CONNECT_REQUEST &&
		    f->events[i].listen_id == old)
			f->events[i].listen_id = handle;
		if (f->events[i].id != old) {
			f->events[keep++] = f->events[i];
			continue;
		}
		to->events[to->nevents] = f->events[i];
		to->events[to->nevents++].id = handle;
	}
	f->nevents = keep;
	return handle;
}

static int do_migrate(struct fake_file *f, struct rcm_migrate_id *c)
{
	uint32_t reqs[FAKE_MAX_EVENTS];
	int i, n = 0, nreqs = 0, err;
	struct fake_file *to;
	struct fake_id *id;
	uint32_t handle;

	fake_last_migrate = *c;
	if (c->size != sizeof(*c) || c->flags)
		return EINVAL;
	id = id_of(f, c->id);
	if (!id)
		return ENOENT;
	if (fcntl(c->fd, F_GETFD) < 0)
		return EBADF;
	to = file_of(c->fd, false);
	if (!to)
		return EINVAL;
	if (to == f) {
		c->out_id = c->id;
		c->out_events_reported = id->reported;
		fake_last_migrate = *c;
		return 0;
	}
	/* A listener's unread requests go along: their ids and events. */
	for (i = 0; i < f->nevents; i++) {
		if (f->events[i].event == RCM_EVENT_CONNECT_REQUEST &&
		    f->events[i].id == c->id)
			return EBUSY;
		if (f->events[i].event == RCM_EVENT_CONNECT_REQUEST &&
		    f->events[i].listen_id == c->id)
			reqs[nreqs++] = f->events[i].id;
	}
	for (i = 0; i < f->nevents; i++) {
		int j;

		n += f->events[i].id == c->id;
		for (j = 0; j < nreqs; j++)
			n += f->events[i].id == reqs[j];
	}
	err = migrate_room(to, 1 + nreqs, n);
	if (err)
		return err;

	handle = migrate_one(f, to, c->id);
	for (i = 0; i < nreqs; i++)
		migrate_one(f, to, reqs[i]);
	if (n)
		pthread_cond_broadcast(&queued);
	c->out_id = handle;
	c->out_events_reported = id_of(to, handle)->reported;
	fake_last_migrate = *c;
	return 0;
}

static bool multicast_addr(const struct __kernel_sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return IN_MULTICAST(ntohl(((const struct sockaddr_in *)a)->
					   sin_addr.s_addr));
	return IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)a)->
				     sin6_addr);
}

static int do_join(struct fake_file *f, struct rcm_join_mcast *c)
{
	struct fake_group *g = NULL;
	struct fake_id *id;
	int err, i;

	fake_last_join = *c;
	if (c->size != sizeof(*c) || c->flags)
		return EINVAL;
	id = id_of(f, c->id);
	if (!id)
		return ENOENT;
	err = check_addr(&c->addr);
	if (err)
		return err == EAFNOSUPPORT ? EINVAL : err;
	if (id->qp_type != RCM_QPT_UD || !id->attached ||
	    !multicast_addr(&c->addr) ||
	    c->join_flags > RCM_MC_JOIN_SENDONLY_FULLMEMBER)
		return EINVAL;
	if (group_of(f, c->id, &c->addr))
		return EADDRINUSE;
	for (i = 0; i < FAKE_MAX_GROUPS && !g; i++)
		if (!f->groups[i].live)
			g = &f->groups[i];
	if (!g)
		return ENOMEM;
	memset(g, 0, sizeof(*g));
	g->live = true;
	g->handle = c->id;
	g->context = c->context;
	memcpy(&g->addr, &c->addr, sizeof(g->addr));
	if (fake_join_mode == FAKE_JOIN_OK)
		push_group_locked(f, g, RCM_EVENT_MULTICAST_JOIN, 0);
	else if (fake_join_mode == FAKE_JOIN_ERROR)
		push_group_locked(f, g, RCM_EVENT_MULTICAST_ERROR,
				  fake_join_status);
	return 0;
}

static int do_leave(struct fake_file *f, struct rcm_leave_mcast *c)
{
	struct fake_group *g;
	int i, to = 0;

	fake_last_leave = *c;
	if (c->size != sizeof(*c) || c->flags)
		return EINVAL;
	if (!id_of(f, c->id))
		return ENOENT;
	g = group_of(f, c->id, &c->addr);
	if (!g)
		return ENOENT;
	for (i = 0; i < f->nevents; i++)
		if (f->events[i].id != c->id ||
		    !mcast_event(f->events[i].event) ||
		    f->events[i].context != g->context)
			f->events[to++] = f->events[i];
	f->nevents = to;
	g->live = false;
	c->out_events_reported = g->reported;
	fake_last_leave = *c;
	return 0;
}

static int do_cmd(struct fake_file *f, unsigned int cmd, void *arg)
{
	struct fake_id *id;
	int err, i;

	switch (cmd) {
	case RCM_CMD_CREATE_ID: {
		struct rcm_create_id *c = arg;

		fake_last_create = *c;
		if (c->size != sizeof(*c) || c->flags || c->reserved)
			return EINVAL;
		for (i = 0; i < f->max_ids && f->ids[i].live; i++)
			;
		if (i == f->max_ids)
			return EMFILE;
		memset(&f->ids[i], 0, sizeof(f->ids[i]));
		f->ids[i].live = true;
		f->ids[i].context = c->context;
		/* As the module: TCP ids are RC, UDP ones UD, IB ones choose. */
		f->ids[i].qp_type = c->port_space == RCM_PS_TCP ? RCM_QPT_RC :
				    c->port_space == RCM_PS_IB ? c->qp_type :
				    RCM_QPT_UD;
		c->out_id = i + 1;
		fake_last_create = *c;
		return 0;
	}
	case RCM_CMD_DESTROY_ID: {
		struct rcm_destroy_id *c = arg;
		int to = 0;

		fake_last_destroy = *c;
		if (c->size != sizeof(*c) || c->flags)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		for (i = 0; i < f->nevents; i++)
			if (f->events[i].id != c->id)
				f->events[to++] = f->events[i];
		f->nevents = to;
		for (i = 0; i < FAKE_MAX_GROUPS; i++)
			if (f->groups[i].handle == c->id)
				f->groups[i].live = false;
		c->out_events_reported = id->reported;
		fake_last_destroy = *c;
		id->live = false;
		return 0;
	}
	case RCM_CMD_BIND_ADDR: {
		struct rcm_bind_addr *c = arg;
		struct sockaddr_in *sin;

		fake_last_bind = *c;
		if (c->size != sizeof(*c) || c->flags || c->reserved)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		err = check_addr(&c->addr);
		if (err)
			return err;
		if (id->bound)
			return EINVAL;
		memcpy(&id->src, &c->addr, sizeof(id->src));
		sin = (struct sockaddr_in *)&id->src;
		if (!sin->sin_port)
			set_port(&id->src, fake_ephemeral);
		/* A specific IPv4 address attaches the id. */
		id->attached = sin->sin_family == AF_INET &&
			       sin->sin_addr.s_addr != htonl(INADDR_ANY);
		id->bound = true;
		if (fake_send_info)
			fill_info(id, &c->out_info);
		return 0;
	}
	case RCM_CMD_RESOLVE_ADDR: {
		struct rcm_resolve_addr *c = arg;

		fake_last_resolve = *c;
		if (c->size != sizeof(*c) || c->flags)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		err = check_addr(&c->dst);
		if (!err && c->src.ss_family)
			err = check_addr(&c->src);
		if (err)
			return err;
		if (id->resolving || c->timeout_ms > RCM_MAX_TIMEOUT_MS)
			return EINVAL;
		id->resolving = true;
		if (!id->bound) {
			if (c->src.ss_family)
				memcpy(&id->src, &c->src, sizeof(id->src));
			else
				id->src = fake_resolve_src;
			set_port(&id->src, fake_ephemeral);
			id->bound = true;
		}
		memcpy(&id->dst, &c->dst, sizeof(id->dst));
		if (fake_resolve_mode == FAKE_RESOLVE_OK) {
			id->attached = true;
			id->addr_resolved = true;
			push_info_locked(f, id, c->id,
					 RCM_EVENT_ADDR_RESOLVED);
		} else if (fake_resolve_mode == FAKE_RESOLVE_ERROR) {
			id->resolving = false;
			push_locked(f, c->id, RCM_EVENT_ADDR_ERROR,
				    fake_resolve_status, NULL, 0);
		}
		return 0;
	}
	case RCM_CMD_QUERY_ID: {
		struct rcm_query_id *c = arg;

		fake_last_query_id = *c;
		if (c->size != sizeof(*c) || c->flags)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		memset(&c->out_port_num, 0,
		       sizeof(*c) - offsetof(struct rcm_query_id, out_port_num));
		memcpy(&c->out_src, &id->src, sizeof(c->out_src));
		memcpy(&c->out_dst, &id->dst, sizeof(c->out_dst));
		if (id->attached) {
			c->out_port_num = fake_attach_port;
			c->out_node_guid = fake_attach_guid;
			memcpy(c->out_sgid, fake_attach_sgid,
			       sizeof(c->out_sgid));
			if (fake_attach_index >= 0) {
				c->out_flags = RCM_ID_INFO_IBDEV_INDEX;
				c->out_ibdev_index = fake_attach_index;
			}
		}
		if (id->routed && fake_route_num_paths) {
			c->out_num_paths = fake_route_num_paths;
			c->out_path = fake_route_path;
		}
		return 0;
	}
	case RCM_CMD_RESOLVE_ROUTE: {
		struct rcm_resolve_route *c = arg;

		fake_last_resolve_route = *c;
		if (c->size != sizeof(*c) || c->flags)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		if (!id->addr_resolved || id->routed ||
		    c->timeout_ms > RCM_MAX_TIMEOUT_MS)
			return EINVAL;
		if (fake_route_mode == FAKE_ROUTE_ERROR) {
			push_locked(f, c->id, RCM_EVENT_ROUTE_ERROR,
				    fake_route_status, NULL, 0);
			return 0;
		}
		id->routed = true;
		if (fake_route_mode == FAKE_ROUTE_OK)
			push_info_locked(f, id, c->id,
					 RCM_EVENT_ROUTE_RESOLVED);
		return 0;
	}
	case RCM_CMD_SET_OPTION: {
		struct rcm_set_option *c = arg;

		fake_last_set_option = *c;
		if (c->size != sizeof(*c) || c->flags || c->reserved)
			return EINVAL;
		if (c->level != RCM_OPTION_ID)
			return ENOPROTOOPT;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		switch (c->optname) {
		case RCM_OPTION_ID_TOS:
			return c->value > 255 ? EINVAL : 0;
		case RCM_OPTION_ID_REUSEADDR:
		case RCM_OPTION_ID_AFONLY:
			return c->value > 1 ? EINVAL : 0;
		case RCM_OPTION_ID_ACK_TIMEOUT:
			return c->value > 31 || (id->qp_type != RCM_QPT_RC &&
						 id->qp_type != RCM_QPT_XRC_SEND) ?
			       EINVAL : 0;
		case RCM_OPTION_ID_RESOLVE_TIMEOUT:
		case RCM_OPTION_ID_CONNECT_TIMEOUT:
			if (!fake_timeout_options)
				return ENOPROTOOPT;
			if (c->value > RCM_MAX_TIMEOUT_MS)
				return EINVAL;
			if (c->optname == RCM_OPTION_ID_RESOLVE_TIMEOUT)
				id->resolve_timeout = c->value;
			else
				id->connect_timeout = c->value;
			return 0;
		default:
			return ENOPROTOOPT;
		}
	}
	case RCM_CMD_LISTEN: {
		struct rcm_listen *c = arg;
		struct sockaddr_in *sin;

		fake_last_listen = *c;
		if (c->size != sizeof(*c) || c->flags)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		if (id->listening || id->request || id->resolving)
			return EINVAL;
		if (!id->bound) {
			memset(&id->src, 0, sizeof(id->src));
			sin = (struct sockaddr_in *)&id->src;
			sin->sin_family = AF_INET;
			sin->sin_port = htons(fake_ephemeral);
			id->bound = true;
		}
		id->listening = true;
		return 0;
	}
	case RCM_CMD_REJECT: {
		struct rcm_reject *c = arg;

		fake_last_reject = *c;
		id = id_of(f, c->id);
		if (c->size != sizeof(*c) || c->flags || c->reserved ||
		    c->private_data_len > (id && id->qp_type == RCM_QPT_UD ?
					   RCM_UD_ACCEPT_PRIVATE_DATA_MAX :
					   RCM_REJECT_PRIVATE_DATA_MAX) ||
		    (c->reason && c->reason != RCM_REJ_CONSUMER_DEFINED &&
		     c->reason != RCM_REJ_VENDOR_OPTION_NOT_SUPPORTED))
			return EINVAL;
		memset(fake_reject_data, 0, sizeof(fake_reject_data));
		if (c->private_data_len)
			memcpy(fake_reject_data,
			       (const void *)(uintptr_t)c->private_data,
			       c->private_data_len);
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		if (id->responded && !id->established && !id->rejected) {
			id->rejected = true;
			return 0;
		}
		if (!id->request || id->answered)
			return EINVAL;
		id->answered = true;
		id->rejected = true;
		return 0;
	}
	case RCM_CMD_CONNECT:
		return do_connect(f, arg);
	case RCM_CMD_ESTABLISH: {
		struct rcm_establish *c = arg;

		fake_last_establish = *c;
		if (c->size != sizeof(*c) || c->flags || c->reserved)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		if (!id->responded || id->established || id->rejected)
			return EINVAL;
		id->established = true;
		return 0;
	}
	case RCM_CMD_INIT_QP_ATTR:
		return do_init_qp_attr(f, arg);
	case RCM_CMD_ACCEPT:
		return do_accept(f, arg);
	case RCM_CMD_NOTIFY: {
		struct rcm_notify *c = arg;

		fake_last_notify = *c;
		if (c->size != sizeof(*c) || c->flags)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		if (c->event != RCM_NOTIFY_COMM_EST || !id->accepted ||
		    id->established)
			return EINVAL;
		id->established = true;
		push_locked(f, c->id, RCM_EVENT_ESTABLISHED, 0, NULL, 0);
		return 0;
	}
	case RCM_CMD_MIGRATE_ID:
		return do_migrate(f, arg);
	case RCM_CMD_JOIN_MCAST:
		return do_join(f, arg);
	case RCM_CMD_LEAVE_MCAST:
		return do_leave(f, arg);
	case RCM_CMD_DISCONNECT: {
		struct rcm_disconnect *c = arg;

		fake_last_disconnect = *c;
		if (c->size != sizeof(*c) || c->flags || c->reserved)
			return EINVAL;
		id = id_of(f, c->id);
		if (!id)
			return ENOENT;
		/*
		 * As the module: a request id or an id that connected; only
		 * an accepted request or a responded connect, not rejected,
		 * has something to end, once.
		 */
		if (!id->request && !id->connecting)
			return EINVAL;
		if ((!id->accepted && !id->responded) || id->rejected ||
		    id->disconnected)
			return 0;
		id->disconnected = true;
		if (fake_disconnect_event)
			push_locked(f, c->id, RCM_EVENT_DISCONNECTED, 0,
				    NULL, 0);
		return 0;
	}
	default:
		return ENOTTY;
	}
}

/* A group's event read(): it counts for the group too. */
static void count_group_locked(struct fake_file *f, const struct rcm_event *ev)
{
	int i;

	for (i = 0; i < FAKE_MAX_GROUPS; i++)
		if (f->groups[i].live && f->groups[i].handle == ev->id &&
		    f->groups[i].context == ev->context)
			f->groups[i].reported++;
}

int ioctl(int fd, unsigned long request, ...)
{
	struct fake_file *f;
	unsigned int cmd;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (_IOC_TYPE(request) != RCM_IOCTL_MAGIC)
		return syscall(SYS_ioctl, fd, request, arg);
	cmd = _IOC_NR(request);

	pthread_mutex_lock(&lock);
	if (request == RCM_IOCTL_QUERY) {
		struct rcm_query *q = arg;

		/* A new open file: forget what an earlier one left. */
		f = file_of(fd, true);
		if (f && !file_reset(f, fd))
			f = NULL;
		q->out_abi_version = RCM_ABI_VERSION;
		q->out_num_devices = 1;
		/* The library's record is the fake's: read() returns it. */
		if (q->size >= sizeof(*q) &&
		    q->event_size != sizeof(struct rcm_event)) {
			err = EINVAL;
			goto out;
		}
		q->out_event_size = sizeof(struct rcm_event);
		err = f ? 0 : ENFILE;
		goto out;
	}
	f = file_of(fd, false);
	if (!f || cmd < RCM_CMD_BASE || cmd >= RCM_CMD_BASE + FAKE_NR_CMDS) {
		err = ENOTTY;
		goto out;
	}
	fake_calls[cmd - RCM_CMD_BASE]++;
	fake_cmd_seq[cmd - RCM_CMD_BASE] = ++fake_seq;
	err = fail_next[cmd - RCM_CMD_BASE];
	if (err) {
		fail_next[cmd - RCM_CMD_BASE] = 0;
		goto out;
	}
	err = do_cmd(f, cmd, arg);
out:
	pthread_mutex_unlock(&lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* The current time plus ms milliseconds, for a timed wait. */
static struct timespec deadline(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

void fake_rcm_hold_next_read(void)
{
	pthread_mutex_lock(&hold_lock);
	hold_state = 1;
	pthread_mutex_unlock(&hold_lock);
}

bool fake_rcm_wait_held(int ms)
{
	struct timespec ts = deadline(ms);
	bool held;

	pthread_mutex_lock(&hold_lock);
	while (hold_state == 1)
		if (pthread_cond_timedwait(&hold_cond, &hold_lock, &ts))
			break;
	held = hold_state == 2;
	pthread_mutex_unlock(&hold_lock);
	return held;
}

void fake_rcm_release_read(void)
{
	pthread_mutex_lock(&hold_lock);
	hold_state = hold_state == 2 ? 3 : 0;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
}

/* A read() that returned records: held if fake_rcm_hold_next_read(). */
static void hold_read(void)
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

ssize_t read(int fd, void *buf, size_t len)
{
	struct fake_file *f;
	struct rcm_event *out = buf;
	size_t n, i;
	ssize_t ret;

	pthread_mutex_lock(&lock);
	f = file_of(fd, false);
	if (!f) {
		pthread_mutex_unlock(&lock);
		return syscall(SYS_read, fd, buf, len);
	}
	fake_read_calls++;
	fake_read_len = len;
	if (len < sizeof(*out)) {
		ret = -1;
		errno = EINVAL;
		goto out;
	}
	while (!f->nevents) {
		if (fcntl(fd, F_GETFL) & O_NONBLOCK) {
			ret = -1;
			errno = EAGAIN;
			goto out;
		}
		fake_read_blocked++;
		pthread_cond_wait(&queued, &lock);
		fake_read_blocked--;
	}
	n = len / sizeof(*out);
	if (n > (size_t)f->nevents)
		n = f->nevents;
	for (i = 0; i < n; i++) {
		out[i] = f->events[i];
		f->ids[out[i].id - 1].reported++;
		if (mcast_event(out[i].event))
			count_group_locked(f, &out[i]);
	}
	memmove(f->events, f->events + n,
		(f->nevents - n) * sizeof(f->events[0]));
	f->nevents -= n;
	ret = n * sizeof(*out);
out:
	pthread_mutex_unlock(&lock);
	if (ret > 0)
		hold_read();
	return ret;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct timespec ts = deadline(timeout > 0 ? timeout : 0);
	struct fake_file *f;
	nfds_t i, nfake = 0;
	int ready;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nfds; i++)
		nfake += file_of(fds[i].fd, false) != NULL;
	if (!nfake) {
		pthread_mutex_unlock(&lock);
		return syscall(SYS_poll, fds, nfds, timeout);
	}
	if (nfake != nfds) {
		pthread_mutex_unlock(&lock);
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		ready = 0;
		for (i = 0; i < nfds; i++) {
			f = file_of(fds[i].fd, false);
			fds[i].revents = f->nevents ?
				fds[i].events & (POLLIN | POLLRDNORM) : 0;
			ready += fds[i].revents != 0;
		}
		if (ready || !timeout)
			break;
		if (timeout < 0)
			pthread_cond_wait(&queued, &lock);
		else if (pthread_cond_timedwait(&queued, &lock, &ts))
			timeout = 0;	/* one last look */
	}
	pthread_mutex_unlock(&lock);
	return ready;
}

void fake_rcm_one_device(struct sockaddr_storage *peer)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)peer;

	memset(peer, 0, sizeof(*peer));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(41000);
	inet_pton(AF_INET, "192.0.2.30", &sin->sin_addr);
	fake_num_devices = 1;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
}
