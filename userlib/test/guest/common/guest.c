// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * guest: the shared part of the userlib's guest test programs (guest.h).
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

static char guest_bail[64];
static size_t guest_bail_len;

static void guest_on_alarm(int sig)
{
	(void)sig;
	/* Only async-signal-safe calls here. */
	if (write(STDOUT_FILENO, guest_bail, guest_bail_len) < 0)
		_exit(1);
	_exit(1);
}

void guest_deadline(unsigned int seconds)
{
	int len = snprintf(guest_bail, sizeof(guest_bail),
			   "Bail out! timed out after %u s\n", seconds);

	guest_bail_len = len > 0 ? (size_t)len : 0;
	signal(SIGALRM, guest_on_alarm);
	alarm(seconds);
}

bool guest_parse_ipv4(const char *ip, int port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return inet_pton(AF_INET, ip, &sin->sin_addr) == 1;
}

void guest_qp_attr(struct ibv_qp_init_attr *attr, enum ibv_qp_type type,
		   unsigned int wr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_type = type;
	attr->cap.max_send_wr = wr;
	attr->cap.max_recv_wr = wr;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->sq_sig_all = 1;
}

bool guest_create_qp(struct rdma_cm_id *id, enum ibv_qp_type type,
		     unsigned int wr)
{
	struct ibv_qp_init_attr attr;

	guest_qp_attr(&attr, type, wr);
	return CHECK(rdma_create_qp(id, NULL, &attr) == 0);
}

bool guest_on_rcm(void)
{
	Dl_info info;

	if (!dladdr((void *)rdma_create_id, &info) || !info.dli_fname)
		return false;
	return strstr(info.dli_fname, "/rcm/") != NULL;
}

struct rdma_cm_event *guest_next_event(struct rdma_event_channel *ch,
				       enum rdma_cm_event_type type,
				       struct rdma_cm_id *id)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev = NULL;
	int ret;

	/*
	 * A record the library skips (a request it rejects, an event it
	 * drops) leaves a non-blocking @ch with nothing: wait again.
	 */
	do {
		if (poll(&p, 1, 10000) != 1) {
			printf("# no %s within 10 s\n", rdma_event_str(type));
			return NULL;
		}
		ret = rdma_get_cm_event(ch, &ev);
	} while (ret && errno == EAGAIN);
	if (ret) {
		printf("# rdma_get_cm_event: %s\n", strerror(errno));
		return NULL;
	}
	if (ev->event != type || (id && ev->id != id)) {
		printf("# wanted %s, got %s (status %d)%s\n",
		       rdma_event_str(type), rdma_event_str(ev->event),
		       ev->status, id && ev->id != id ? " for another id" : "");
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

bool guest_expect_event(struct rdma_event_channel *ch,
			enum rdma_cm_event_type type, struct rdma_cm_id *id)
{
	struct rdma_cm_event *ev = guest_next_event(ch, type, id);
	bool ok;

	if (!ev)
		return false;
	ok = CHECK(ev->status == 0);
	rdma_ack_cm_event(ev);
	return ok;
}

bool guest_quiet(struct rdma_event_channel *ch)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

struct rdma_event_channel *guest_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int fl;

	if (!CHECK(ch != NULL))
		return NULL;
	fl = fcntl(ch->fd, F_GETFL);
	if (!CHECK(fl != -1 && fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) == 0)) {
		rdma_destroy_event_channel(ch);
		return NULL;
	}
	return ch;
}

unsigned short guest_port(struct rdma_cm_id *id)
{
	return ntohs(rdma_get_src_port(id));
}

struct rdma_cm_id *guest_bound(struct rdma_event_channel *ch, const char *ip,
			       enum rdma_port_space ps, void *ctx)
{
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in sin;

	if (!CHECK(guest_parse_ipv4(ip, 0, &sin)) ||
	    !CHECK(rdma_create_id(ch, &id, ctx, ps) == 0))
		return NULL;
	if (!CHECK(rdma_bind_addr(id, (struct sockaddr *)&sin) == 0) ||
	    !CHECK(guest_port(id) != 0)) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

bool guest_free_ports(const char *ip, enum rdma_port_space ps,
		      unsigned short *ports, unsigned int n)
{
	struct rdma_cm_id *ids[8] = { NULL };
	unsigned int i, held;

	if (!CHECK(n <= 8))
		return false;
	/* All held at once: n different ports. */
	for (held = 0; held < n; held++) {
		ids[held] = guest_bound(NULL, ip, ps, NULL);
		if (!ids[held])
			break;
		ports[held] = guest_port(ids[held]);
	}
	for (i = 0; i < held; i++)
		rdma_destroy_id(ids[i]);
	return held == n;
}

unsigned short guest_free_port(const char *ip, enum rdma_port_space ps)
{
	unsigned short port;

	return guest_free_ports(ip, ps, &port, 1) ? port : 0;
}

bool guest_free_addr(const char *ip, enum rdma_port_space ps,
		     struct sockaddr_in *sin)
{
	unsigned short port = guest_free_port(ip, ps);

	return CHECK(port != 0) && CHECK(guest_parse_ipv4(ip, port, sin));
}

struct rdma_cm_id *guest_listener(struct rdma_event_channel *ch,
				  const char *ip, enum rdma_port_space ps,
				  void *ctx)
{
	struct rdma_cm_id *id = guest_bound(ch, ip, ps, ctx);

	if (id && !CHECK(rdma_listen(id, 4) == 0)) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

struct rdma_cm_id *guest_routed(struct rdma_event_channel *ch,
				const char *ip, int port,
				enum rdma_port_space ps)
{
	struct rdma_cm_id *id = NULL;
	struct sockaddr_in dst;

	if (!CHECK(guest_parse_ipv4(ip, port, &dst)) ||
	    !CHECK(rdma_create_id(ch, &id, NULL, ps) == 0))
		return NULL;
	if (!CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
				     2000) == 0) ||
	    !guest_expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id) ||
	    !CHECK(rdma_resolve_route(id, 2000) == 0) ||
	    !guest_expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id)) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

void guest_private_data(struct rdma_conn_param *cp, uint8_t *data,
			uint8_t len, uint8_t fill)
{
	memset(data, fill, len);
	cp->private_data = data;
	cp->private_data_len = len;
}

bool guest_accept_after_refusal(struct rdma_cm_id *id,
				struct rdma_conn_param *cp, uint8_t max,
				struct rdma_event_channel *chc,
				struct rdma_cm_id *client,
				enum rdma_cm_event_type refusal, int status)
{
	struct rdma_cm_event *ev;
	bool ok;

	if (guest_on_rcm()) {
		cp->private_data_len = max;
		return CHECK(rdma_accept(id, cp) == 0) &&
		       guest_expect_event(chc, RDMA_CM_EVENT_ESTABLISHED,
					  client);
	}
	ev = guest_next_event(chc, refusal, client);
	if (!ev)
		return false;
	ok = CHECK(ev->status == status);
	rdma_ack_cm_event(ev);
	return ok;
}

void *guest_destroy_thread(void *id)
{
	return (void *)(intptr_t)rdma_destroy_id(id);
}

void *guest_call_thread(void *call)
{
	struct guest_call *c = call;

	switch (c->op) {
	case GUEST_GET_CM_EVENT:
		c->ret = rdma_get_cm_event(c->ch, &c->ev);
		break;
	case GUEST_GET_REQUEST:
		c->ret = rdma_get_request(c->id, &c->req);
		break;
	case GUEST_MIGRATE_ID:
		c->ret = rdma_migrate_id(c->id, c->ch);
		break;
	case GUEST_LEAVE_MULTICAST:
		c->ret = rdma_leave_multicast(c->id, c->addr);
		break;
	}
	return NULL;
}

bool guest_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void *guest_establish_thread(void *arg)
{
	struct guest_establisher *e = arg;

	e->ok = guest_expect_event(e->ch, RDMA_CM_EVENT_ESTABLISHED, e->id);
	return NULL;
}

bool guest_establish_start(struct guest_establisher *e,
			   struct rdma_event_channel *ch,
			   struct rdma_cm_id *id)
{
	e->ch = ch;
	e->id = id;
	e->ok = false;
	return CHECK(pthread_create(&e->thread, NULL, guest_establish_thread,
				    e) == 0);
}

bool guest_establish_end(struct guest_establisher *e)
{
	return CHECK(guest_join_within(e->thread, 10000, NULL)) &&
	       CHECK(e->ok);
}

bool guest_join_within(pthread_t t, int ms, void **ret)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return pthread_timedjoin_np(t, ret, &ts) == 0;
}

int guest_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

struct rdma_cm_id *guest_connecting(struct rdma_event_channel *ch,
				    const char *ip, int port,
				    enum rdma_port_space ps,
				    struct rdma_conn_param *cp)
{
	enum ibv_qp_type type = ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	struct rdma_cm_id *id = guest_routed(ch, ip, port, ps);

	if (id && guest_create_qp(id, type, 4) &&
	    CHECK(rdma_connect(id, cp) == 0))
		return id;
	guest_destroy_id(id);
	return NULL;
}

bool guest_pair_setup_ps(struct guest_pair *p, const char *ip,
			 enum rdma_port_space ps, unsigned int wr)
{
	enum ibv_qp_type type = ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;

	memset(p, 0, sizeof(*p));
	p->chc = guest_channel();
	p->chs = guest_channel();
	if (!p->chc || !p->chs)
		return false;
	p->listener = guest_listener(p->chs, ip, ps, NULL);
	if (!p->listener)
		return false;
	p->client = guest_routed(p->chc, ip, guest_port(p->listener), ps);
	if (!p->client)
		return false;
	return !wr || guest_create_qp(p->client, type, wr);
}

bool guest_pair_setup(struct guest_pair *p, const char *ip, unsigned int wr)
{
	return guest_pair_setup_ps(p, ip, RDMA_PS_TCP, wr);
}

struct rdma_cm_event *guest_pair_request(struct guest_pair *p,
					 struct rdma_conn_param *cp,
					 unsigned int wr)
{
	struct rdma_cm_event *ev;

	if (!CHECK(rdma_connect(p->client, cp) == 0))
		return NULL;
	ev = guest_next_event(p->chs, RDMA_CM_EVENT_CONNECT_REQUEST, NULL);
	if (!ev)
		return NULL;
	p->server = ev->id;
	if (wr && !guest_create_qp(p->server, IBV_QPT_RC, wr)) {
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

void guest_destroy_id(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	CHECK(rdma_destroy_id(id) == 0);
}

static void guest_id_gone(struct rdma_cm_id **id)
{
	guest_destroy_id(*id);
	*id = NULL;
}

void guest_pair_teardown(struct guest_pair *p)
{
	guest_id_gone(&p->server);
	guest_id_gone(&p->client);
	guest_id_gone(&p->listener);
	if (p->chc)
		rdma_destroy_event_channel(p->chc);
	if (p->chs)
		rdma_destroy_event_channel(p->chs);
	memset(p, 0, sizeof(*p));
}
