// SPDX-License-Identifier: GPL-2.0-only
/*
 * ibref: rcm and the in-tree rdma_cm side by side on the InfiniBand test
 * fabric (tools/testing/ibfabric: rcm_ibfab.ko, ibfab0 and ibfab1 with a
 * small SA, and rcm_ibref.ko, the kernel's rdma_cm driven as a kernel ULP
 * drives it). Route resolution through the SA - answered, answered with
 * an error status, never answered, answered after the id is gone - on
 * both stacks, their events and statuses compared; connections over
 * AF_IB service IDs (REQ, REP, RTU, DREQ, DREP, TIMEWAIT; a reject with
 * private data; the CMA version an in-tree client writes into the first
 * byte of its private data; a request whose private data reads as an
 * IP CMA header, which in-tree refuses on InfiniBand) between
 * every pair of the two: rcm to rcm, rcm to in-tree, in-tree to rcm and
 * in-tree to in-tree, the control. No QP stands behind the ids: the
 * fabric carries MADs only. The modules are loaded here when they are
 * not there; without their .ko the program skips.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rcm_user.h>

#include "ibfab_common.h"
#include "rcm_harness.h"

#define IBREF_KO "/lib/rcm/rcm_ibref.ko"
#define IBREF_CTL "/sys/kernel/debug/rcm_ibref/ctl"
/* An event's wait: bounds only a hang reaches. */
#define EV_MS 30000
/* rdma_cm_event_type values, which rcm's events share. */
#define REJ_CONSUMER_DEFINED 28
#define REQ_PDATA 92
#define REP_PDATA 196
#define REJ_PDATA 148

/* An event of either stack, as the tests compare them. */
struct cm_ev {
	int event;
	int status;
	unsigned int id;	/* CONNECT_REQUEST: the new id */
	unsigned int qpn;
	unsigned int plen;
	unsigned char pdata[256];
	bool path;
	unsigned int slid, dlid, sl, mtu, rate, life, pkey;
	/* MULTICAST_JOIN: the group's (qpn the remote QP number) */
	unsigned int qkey, mlid;
	struct in6_addr mgid;
};

/* --- the in-tree stack: rcm_ibref's control file ------------------------ */

static int ref_up(void)
{
	if (access(IBREF_CTL, F_OK) == 0)
		return 0;
	if (access(IBREF_KO, F_OK))
		return 1;
	/* Its one dependency; the guests load it at boot. */
	rcm_sh("modprobe rdma_cm");
	if (rcm_sh("insmod " IBREF_KO))
		return 1;
	return access(IBREF_CTL, F_OK) ? 1 : 0;
}

/* One command: 0, or -1 with errno the command's. */
#define ref(...) rcm_ctl(IBREF_CTL, __VA_ARGS__)

/* The last command's result line, without "last: ". */
static int ref_last(char *buf, size_t size)
{
	FILE *f = fopen(IBREF_CTL, "r");
	char line[1100];
	bool ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) && !strncmp(line, "last: ", 6);
	fclose(f);
	if (!ok)
		return -1;
	line[strcspn(line, "\n")] = 0;
	snprintf(buf, size, "%s", line + 6);
	return 0;
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* An event line's "key value" pairs into @ev: 0 or -1. */
static int ref_parse(char *line, struct cm_ev *ev)
{
	char *save, *k, *v;
	size_t i;

	memset(ev, 0, sizeof(*ev));
	ev->event = -1;
	for (k = strtok_r(line, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		unsigned long x;

		v = strtok_r(NULL, " ", &save);
		if (!v)
			return -1;
		if (!strcmp(k, "name"))
			continue;
		if (!strcmp(k, "pdata")) {
			for (i = 0; v[0] != '-' && v[2 * i] &&
			     i < sizeof(ev->pdata); i++) {
				int hi = hex_nibble(v[2 * i]);
				int lo = hex_nibble(v[2 * i + 1]);

				if (hi < 0 || lo < 0)
					return -1;
				ev->pdata[i] = hi << 4 | lo;
			}
			continue;
		}
		if (!strcmp(k, "mgid")) {
			if (inet_pton(AF_INET6, v, &ev->mgid) != 1)
				return -1;
			continue;
		}
		x = strtoul(v, NULL, 0);
		if (!strcmp(k, "event"))
			ev->event = x;
		else if (!strcmp(k, "status"))
			ev->status = x;
		else if (!strcmp(k, "new"))
			ev->id = x;
		else if (!strcmp(k, "qpn"))
			ev->qpn = x;
		else if (!strcmp(k, "plen"))
			ev->plen = x;
		else if (!strcmp(k, "slid"))
			ev->slid = x, ev->path = true;
		else if (!strcmp(k, "dlid"))
			ev->dlid = x;
		else if (!strcmp(k, "sl"))
			ev->sl = x;
		else if (!strcmp(k, "mtu"))
			ev->mtu = x;
		else if (!strcmp(k, "rate"))
			ev->rate = x;
		else if (!strcmp(k, "life"))
			ev->life = x;
		else if (!strcmp(k, "pkey"))
			ev->pkey = x;
		else if (!strcmp(k, "qkey"))
			ev->qkey = x;
		else if (!strcmp(k, "mlid"))
			ev->mlid = x;
	}
	return ev->event < 0 ? -1 : 0;
}

/* --- both stacks behind one interface ----------------------------------- */

/*
 * One side of a test: rcm (a file of its own) or in-tree (slots of
 * rcm_ibref from @base up). A handle is an rcm id or a slot.
 */
struct side {
	bool rcm;
	int fd;
	unsigned int base, next;
	const char *name;
};

static int side_open(struct side *s, bool rcm, unsigned int base)
{
	memset(s, 0, sizeof(*s));
	s->rcm = rcm;
	s->fd = -1;
	s->base = base;
	s->next = base;
	s->name = rcm ? "rcm" : "in-tree";
	if (rcm)
		s->fd = rcm_open_dev();
	return rcm && s->fd < 0 ? -1 : 0;
}

static void side_close(struct side *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* A GID's text, for the control file. */
static const char *gid_text(const char *dev, char *buf)
{
	struct in6_addr g;

	if (dev_gid(dev, &g) || !inet_ntop(AF_INET6, &g, buf, INET6_ADDRSTRLEN))
		return "?";
	return buf;
}

/* The next event of handle @h within @ms, into @ev: 0, or -1. */
static int side_event(struct side *s, unsigned int h, int ms, struct cm_ev *ev)
{
	struct rcm_event r;
	char line[1100];

	if (!s->rcm) {
		if (ref("wait %u %d", h, ms) || ref_last(line, sizeof(line)))
			return -1;
		return ref_parse(line, ev);
	}
	if (rcm_wait_event(s->fd, ms, &r))
		return -1;
	memset(ev, 0, sizeof(*ev));
	ev->event = r.event;
	ev->status = r.status;
	ev->id = r.id;
	if ((r.event == RCM_EVENT_CONNECT_REQUEST ? r.listen_id : r.id) != h) {
		errno = EPROTO;
		return -1;
	}
	ev->qpn = r.conn.qp_num;
	if (r.event == RCM_EVENT_MULTICAST_JOIN) {
		ev->qpn = r.ud.qp_num;
		ev->qkey = r.ud.qkey;
		ev->mlid = r.ud.ah_attr.dlid;
		memcpy(&ev->mgid, r.ud.ah_attr.dgid, 16);
	}
	ev->plen = r.private_data_len;
	memcpy(ev->pdata, r.private_data, sizeof(ev->pdata));
	if ((r.event == RCM_EVENT_ROUTE_RESOLVED ||
	     r.event == RCM_EVENT_CONNECT_REQUEST) && r.id_info.num_paths) {
		ev->path = true;
		ev->slid = r.id_info.path.slid;
		ev->dlid = r.id_info.path.dlid;
		ev->sl = r.id_info.path.sl;
		ev->mtu = r.id_info.path.mtu;
		ev->rate = r.id_info.path.rate;
		ev->life = r.id_info.path.packet_life_time;
		ev->pkey = r.id_info.path.pkey;
	}
	return 0;
}

/* Whether no event of @h comes within @ms. */
static bool side_quiet(struct side *s, unsigned int h, int ms)
{
	if (s->rcm)
		return !rcm_readable(s->fd, ms);
	return ref("wait %u %d", h, ms) && errno == ETIMEDOUT;
}

/* The next event of @h, which must be @type: 0, or -1 (logged). */
static int side_expect(struct side *s, unsigned int h, int type,
		       struct cm_ev *ev)
{
	if (side_event(s, h, EV_MS, ev)) {
		printf("# %s: no event for %u: %s\n", s->name, h,
		       strerror(errno));
		return -1;
	}
	if (ev->event != type) {
		printf("# %s: event %d status %d for %u, not %d\n", s->name,
		       ev->event, ev->status, h, type);
		return -1;
	}
	return 0;
}

/* An RC id of port space TCP, created: its handle, or 0. */
static unsigned int side_create(struct side *s)
{
	unsigned int h = s->next++;

	if (s->rcm)
		return rcm_create(s->fd, RCM_PS_TCP, RCM_QPT_RC, h);
	return ref("create %u tcp rc", h) ? 0 : h;
}

/* A new id resolved from ibfab0 to ibfab1's GID and @sid, or 0. */
static unsigned int side_resolved(struct side *s, uint64_t sid)
{
	unsigned int h = side_create(s);
	char g0[INET6_ADDRSTRLEN], g1[INET6_ADDRSTRLEN];
	struct cm_ev ev;

	if (!h)
		return 0;
	if (s->rcm) {
		if (ib_resolve(s->fd, h, "ibfab0", "ibfab1", sid))
			return 0;
	} else if (ref("resolve %u %s %s %llx 2000", h, gid_text("ibfab0", g0),
		       gid_text("ibfab1", g1), (unsigned long long)sid)) {
		return 0;
	}
	return side_expect(s, h, RCM_EVENT_ADDR_RESOLVED, &ev) ? 0 : h;
}

static int side_route(struct side *s, unsigned int h, unsigned int ms)
{
	if (s->rcm)
		return rcm_route(s->fd, h, ms);
	return ref("route %u %u", h, ms);
}

/* A new id resolved and routed to @sid on ibfab1, or 0. */
static unsigned int side_routed(struct side *s, uint64_t sid)
{
	unsigned int h = side_resolved(s, sid);
	struct cm_ev ev;

	if (!h || side_route(s, h, 5000) ||
	    side_expect(s, h, RCM_EVENT_ROUTE_RESOLVED, &ev))
		return 0;
	return h;
}

/* A listener on ibfab1's GID, TCP range, a port of the stack's: 0 or h. */
static unsigned int side_listen(struct side *s, uint64_t *sid)
{
	char g1[INET6_ADDRSTRLEN], line[1100];
	unsigned long long v;
	unsigned int h;
	char *p;

	if (s->rcm)
		return ib_listener(s->fd, sid);
	h = side_create(s);
	if (!h || ref("bind %u %s 0 0", h, gid_text("ibfab1", g1)) ||
	    ref("listen %u", h) || ref_last(line, sizeof(line)))
		return 0;
	p = strstr(line, " sid ");
	if (!p || sscanf(p, " sid %llx", &v) != 1)
		return 0;
	*sid = v;
	return h;
}

/* Private data as hex for the control file ("-": none). */
static const char *hex(const void *data, unsigned int len, char *buf)
{
	const unsigned char *p = data;
	unsigned int i;

	if (!len)
		return "-";
	for (i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	return buf;
}

static int side_connect(struct side *s, unsigned int h, unsigned int qpn,
			const void *data, unsigned int len)
{
	char b[600];

	if (s->rcm)
		return rcm_connect_data(s->fd, h, qpn, data, len);
	return ref("connect %u %u %s", h, qpn, hex(data, len, b));
}

static int side_accept(struct side *s, unsigned int h, unsigned int qpn,
		       const void *data, unsigned int len)
{
	char b[600];

	if (s->rcm)
		return rcm_accept_data(s->fd, h, qpn, h, data, len);
	return ref("accept %u %u %s", h, qpn, hex(data, len, b));
}

static int side_reject(struct side *s, unsigned int h, const void *data,
		       unsigned int len)
{
	char b[600];

	if (s->rcm)
		return rcm_reject_data(s->fd, h, data, len);
	return ref("reject %u %s", h, hex(data, len, b));
}

static int side_establish(struct side *s, unsigned int h)
{
	if (s->rcm)
		return rcm_simple(s->fd, RCM_IOCTL_ESTABLISH, h);
	return ref("establish %u", h);
}

static int side_disconnect(struct side *s, unsigned int h)
{
	if (s->rcm)
		return rcm_simple(s->fd, RCM_IOCTL_DISCONNECT, h);
	return ref("disconnect %u", h);
}

static int side_destroy(struct side *s, unsigned int h)
{
	if (s->rcm)
		return rcm_destroy(s->fd, h);
	return ref("destroy %u", h);
}

/* A UD id of port space UDP bound to ibfab0's GID: its handle, or 0. */
static unsigned int side_ud_bound(struct side *s)
{
	unsigned int h = s->next++;
	char g0[INET6_ADDRSTRLEN];

	if (s->rcm)
		return ib_ud_id(s->fd, "ibfab0", h);
	if (ref("create %u udp ud", h) ||
	    ref("bind %u %s 0 0", h, gid_text("ibfab0", g0)))
		return 0;
	return h;
}

/* Join (@join; @sendonly: send-only) or leave the group @mgid (NULL: 0). */
static int side_mcast(struct side *s, unsigned int h,
		      const struct in6_addr *mgid, bool join, bool sendonly)
{
	char g[INET6_ADDRSTRLEN] = "-";

	if (s->rcm)
		return ib_mcast(s->fd, h, mgid, join, sendonly ?
				RCM_MC_JOIN_SENDONLY_FULLMEMBER :
				RCM_MC_JOIN_FULLMEMBER, h);
	if (mgid && !inet_ntop(AF_INET6, mgid, g, sizeof(g)))
		return -1;
	return ref("%s %u %s%s", join ? "join" : "leave", h, g,
		   sendonly ? " sendonly" : "");
}

/*
 * RDMA_OPTION_IB_PATH (rdma_set_ib_path()) on @h, resolved from ibfab0
 * to ibfab1: LIDs 1 and 2, SL 5, MTU 3, rate 6, life 12; the route it
 * gives into @ev (rcm: its ROUTE_RESOLVED; in-tree: the command's).
 */
static int side_set_path(struct side *s, unsigned int h, struct cm_ev *ev)
{
	char line[1100];

	if (s->rcm)
		return ib_set_path(s->fd, h, 1, 2, 5, 3, 6, 12) ?:
		       side_expect(s, h, RCM_EVENT_ROUTE_RESOLVED, ev);
	if (ref("path %u 1 2 5 3 6 12", h) || ref_last(line, sizeof(line)))
		return -1;
	ref_parse(line, ev);
	return 0;
}

/* @ev's private data is @len bytes of @data, then zeros, @plen in all. */
static bool pdata_is(const struct cm_ev *ev, unsigned int plen,
		     const void *data, unsigned int len)
{
	unsigned int i;

	if (ev->plen != plen || memcmp(ev->pdata, data, len))
		return false;
	for (i = len; i < plen && i < sizeof(ev->pdata); i++)
		if (ev->pdata[i])
			return false;
	return true;
}

static int setup_modules(void)
{
	if (fabric_up() || ref_up())
		return 1;
	if (fab("sa reset") || ref("reset"))
		return -1;
	return 0;
}

/* --- connections: every pair of the stacks ------------------------------ */

FIXTURE(conn) {
	struct side c, s;
};

FIXTURE_VARIANT(conn) {
	bool rcm_client;
	bool rcm_server;
};

FIXTURE_VARIANT_ADD(conn, rcm_to_rcm) {
	.rcm_client = true, .rcm_server = true,
};

FIXTURE_VARIANT_ADD(conn, rcm_to_intree) {
	.rcm_client = true, .rcm_server = false,
};

FIXTURE_VARIANT_ADD(conn, intree_to_rcm) {
	.rcm_client = false, .rcm_server = true,
};

/* The control: what the kernel's own CM does on the fabric. */
FIXTURE_VARIANT_ADD(conn, intree_to_intree) {
	.rcm_client = false, .rcm_server = false,
};

FIXTURE_SETUP(conn)
{
	int ret = setup_modules();

	self->c.fd = self->s.fd = -1;
	if (ret > 0)
		SKIP(return, "no test fabric or reference (" IBFAB_KO ", "
		     IBREF_KO ")");
	ASSERT_EQ(0, ret)
		TH_LOG("control files: %s", strerror(errno));
	ASSERT_EQ(0, side_open(&self->c, variant->rcm_client, 1));
	ASSERT_EQ(0, side_open(&self->s, variant->rcm_server, 10));
}

FIXTURE_TEARDOWN(conn)
{
	side_close(&self->c);
	side_close(&self->s);
	ref("reset");
	fab("sa reset");
}

/*
 * The request's private data as an AF_IB client sends it: no CMA header
 * (cma_user_data_offset()), so its first byte must be 0 and its second
 * no IP version for an in-tree listener to take it as AF_IB
 * (cma_save_ip_info(), -EAFNOSUPPORT).
 */
static const unsigned char req_data[] = { 0x00, 0x01, 'h', 'e', 'l', 'l', 'o' };

/*
 * A listener, a client routed to it and its REQ, read as CONNECT_REQUEST
 * on the server: 0 with *@cid, *@rid and the event, or -1.
 */
static int requested(struct side *c, struct side *s, const void *data,
		     unsigned int len, unsigned int *cid, unsigned int *rid,
		     struct cm_ev *ev)
{
	unsigned int lid;
	uint64_t sid = 0;

	lid = side_listen(s, &sid);
	if (!lid) {
		printf("# %s listen: %s\n", s->name, strerror(errno));
		return -1;
	}
	*cid = side_routed(c, sid);
	if (!*cid) {
		printf("# %s route to 0x%llx: %s\n", c->name,
		       (unsigned long long)sid, strerror(errno));
		return -1;
	}
	if (side_connect(c, *cid, 0x1234, data, len)) {
		printf("# %s connect: %s\n", c->name, strerror(errno));
		return -1;
	}
	if (side_expect(s, lid, RCM_EVENT_CONNECT_REQUEST, ev))
		return -1;
	*rid = ev->id;
	return 0;
}

/*
 * REQ, REP, RTU, DREQ, DREP between the stacks: what each side reports
 * is what the in-tree side reports in the control - the QP numbers and
 * private data given, the REQ's path from the passive side, one
 * DISCONNECTED and one TIMEWAIT_EXIT each, nothing more.
 */
TEST_F(conn, connect_accept_disconnect)
{
	static const char welcome[] = "welcome";
	struct side *c = &self->c, *s = &self->s;
	unsigned int cid, rid;
	struct cm_ev ev;

	ASSERT_EQ(0, requested(c, s, req_data, sizeof(req_data), &cid, &rid,
			       &ev));
	EXPECT_EQ(0, ev.status);
	EXPECT_EQ(0x1234, ev.qpn);
	EXPECT_TRUE(pdata_is(&ev, REQ_PDATA, req_data, sizeof(req_data)))
		TH_LOG("plen %u pdata %02x %02x %02x", ev.plen, ev.pdata[0],
		       ev.pdata[1], ev.pdata[2]);
	/* The REQ's path, seen from the passive side. */
	ASSERT_TRUE(ev.path);
	EXPECT_EQ(1, ev.dlid);
	EXPECT_EQ(2, ev.slid);
	EXPECT_EQ(0, ev.sl);
	EXPECT_EQ(5, ev.mtu);
	EXPECT_EQ(16, ev.rate);
	EXPECT_EQ(0xffff, ev.pkey);

	ASSERT_EQ(0, side_accept(s, rid, 0x5678, welcome, sizeof(welcome)))
		TH_LOG("%s accept: %s", s->name, strerror(errno));
	ASSERT_EQ(0, side_expect(c, cid, RCM_EVENT_CONNECT_RESPONSE, &ev));
	EXPECT_EQ(0, ev.status);
	EXPECT_EQ(0x5678, ev.qpn);
	EXPECT_TRUE(pdata_is(&ev, REP_PDATA, welcome, sizeof(welcome)))
		TH_LOG("plen %u", ev.plen);
	ASSERT_EQ(0, side_establish(c, cid))
		TH_LOG("%s establish: %s", c->name, strerror(errno));
	ASSERT_EQ(0, side_expect(s, rid, RCM_EVENT_ESTABLISHED, &ev));
	EXPECT_EQ(0, ev.status);

	ASSERT_EQ(0, side_disconnect(c, cid));
	ASSERT_EQ(0, side_expect(s, rid, RCM_EVENT_DISCONNECTED, &ev));
	ASSERT_EQ(0, side_disconnect(s, rid))
		TH_LOG("%s disconnect (DREP): %s", s->name, strerror(errno));
	ASSERT_EQ(0, side_expect(c, cid, RCM_EVENT_DISCONNECTED, &ev));
	EXPECT_EQ(0, ev.status);
	ASSERT_EQ(0, side_expect(c, cid, RCM_EVENT_TIMEWAIT_EXIT, &ev));
	ASSERT_EQ(0, side_expect(s, rid, RCM_EVENT_TIMEWAIT_EXIT, &ev));
	EXPECT_TRUE(side_quiet(c, cid, 500));
	EXPECT_TRUE(side_quiet(s, rid, 0));
	EXPECT_EQ(0, side_destroy(c, cid));
	EXPECT_EQ(0, side_destroy(s, rid));
}

/*
 * RDMA_OPTION_IB_PATH: a path set on an id resolved from ibfab0 to
 * ibfab1 is its route, with no SA query, and a second one is refused
 * (EINVAL: no longer ADDR_RESOLVED); the REQ goes on it, so the passive
 * side reads its SL, MTU and rate.
 */
TEST_F(conn, ib_path_goes_into_the_req)
{
	struct side *c = &self->c, *s = &self->s;
	unsigned int lid, cid;
	uint64_t sid = 0;
	struct cm_ev ev;
	long queries;

	lid = side_listen(s, &sid);
	ASSERT_TRUE(lid);
	cid = side_resolved(c, sid);
	ASSERT_TRUE(cid);
	queries = fab_counter("sa_queries");
	ASSERT_EQ(0, side_set_path(c, cid, &ev))
		TH_LOG("%s path: %s", c->name, strerror(errno));
	ASSERT_TRUE(ev.path);
	EXPECT_EQ(0, ev.status);
	EXPECT_EQ(1, ev.slid);
	EXPECT_EQ(2, ev.dlid);
	EXPECT_EQ(5, ev.sl);
	EXPECT_EQ(3, ev.mtu);
	EXPECT_EQ(6, ev.rate);
	EXPECT_EQ(12, ev.life);
	EXPECT_EQ(0xffff, ev.pkey);
	EXPECT_EQ(queries, fab_counter("sa_queries"));
	EXPECT_NE(0, side_set_path(c, cid, &ev));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, side_connect(c, cid, 0x1234, req_data, sizeof(req_data)))
		TH_LOG("%s connect: %s", c->name, strerror(errno));
	ASSERT_EQ(0, side_expect(s, lid, RCM_EVENT_CONNECT_REQUEST, &ev));
	ASSERT_TRUE(ev.path);
	EXPECT_EQ(5, ev.sl);
	EXPECT_EQ(3, ev.mtu);
	EXPECT_EQ(6, ev.rate);
	EXPECT_EQ(1, ev.dlid);
	EXPECT_EQ(2, ev.slid);
	ASSERT_EQ(0, side_accept(s, ev.id, 0x5678, NULL, 0));
	ASSERT_EQ(0, side_expect(c, cid, RCM_EVENT_CONNECT_RESPONSE, &ev));
	EXPECT_EQ(0x5678, ev.qpn);
}

/* A reject's reason and private data reach the active side. */
TEST_F(conn, reject_with_private_data)
{
	static const char why[] = "not today";
	struct side *c = &self->c, *s = &self->s;
	unsigned int cid, rid;
	struct cm_ev ev;

	ASSERT_EQ(0, requested(c, s, req_data, sizeof(req_data), &cid, &rid,
			       &ev));
	ASSERT_EQ(0, side_reject(s, rid, why, sizeof(why)))
		TH_LOG("%s reject: %s", s->name, strerror(errno));
	ASSERT_EQ(0, side_expect(c, cid, RCM_EVENT_REJECTED, &ev));
	EXPECT_EQ(REJ_CONSUMER_DEFINED, ev.status);
	EXPECT_TRUE(pdata_is(&ev, REJ_PDATA, why, sizeof(why)))
		TH_LOG("plen %u pdata %.10s", ev.plen, ev.pdata);
	EXPECT_TRUE(side_quiet(c, cid, 500));
	EXPECT_TRUE(side_quiet(s, rid, 0));
	EXPECT_EQ(0, side_destroy(s, rid));
}

/*
 * An AF_IB client's private data reaches the listener with its first
 * byte 0: the in-tree active side writes the CMA version there whatever
 * the user gave (cma_format_hdr() runs for AF_IB too), and the listener
 * takes the request as AF_IB (byte 1 has no IP version).
 */
TEST_F(conn, request_first_byte_is_the_cma_version)
{
	static const unsigned char data[] = { 0x7f, 0x01, 'h', 'i' };
	static const unsigned char seen[] = { 0x00, 0x01, 'h', 'i' };
	struct side *c = &self->c, *s = &self->s;
	unsigned int cid, rid;
	struct cm_ev ev;

	ASSERT_EQ(0, requested(c, s, data, sizeof(data), &cid, &rid, &ev));
	EXPECT_TRUE(pdata_is(&ev, REQ_PDATA, seen, sizeof(seen)))
		TH_LOG("plen %u pdata %02x %02x %02x", ev.plen, ev.pdata[0],
		       ev.pdata[1], ev.pdata[2]);
	ASSERT_EQ(0, side_reject(s, rid, NULL, 0));
	ASSERT_EQ(0, side_expect(c, cid, RCM_EVENT_REJECTED, &ev));
	EXPECT_EQ(0, side_destroy(s, rid));
}

/*
 * An AF_IB request whose private data reads as an IP CMA header: byte 0
 * goes out as 0, byte 1 ('e', 0x65) names IPv6, so a listener takes it
 * for an IPv6 request, which on InfiniBand needs an IPoIB netdev; there
 * is none, no listener takes it and ib_cm rejects it, REJ 28 without
 * data; the listener hears nothing.
 */
TEST_F(conn, request_read_as_ip_header_is_refused)
{
	static const char hello[] = "hello over ib";
	struct side *c = &self->c, *s = &self->s;
	unsigned int lid, cid;
	uint64_t sid = 0;
	struct cm_ev ev;

	lid = side_listen(s, &sid);
	ASSERT_TRUE(lid);
	cid = side_routed(c, sid);
	ASSERT_TRUE(cid);
	ASSERT_EQ(0, side_connect(c, cid, 0x1234, hello, sizeof(hello)));
	ASSERT_EQ(0, side_expect(c, cid, RCM_EVENT_REJECTED, &ev))
		TH_LOG("the %s listener took it", s->name);
	EXPECT_EQ(REJ_CONSUMER_DEFINED, ev.status);
	EXPECT_TRUE(pdata_is(&ev, REJ_PDATA, NULL, 0));
	EXPECT_TRUE(side_quiet(s, lid, 500));
}

/*
 * A REQ from a CM peer that is not rdma_cm (the fabric's cmreq, ib_cm
 * directly), AF_IB private data whose byte 0 is not the CMA version: a
 * listener of either stack reads an unknown CMA header and refuses it
 * (cma_ib_id_from_event(): -EINVAL, REJ 28 - not 8, which is ib_cm's
 * for a service ID no one listens on), and hears nothing.
 */
FIXTURE(raw) {
	struct side s;
};

FIXTURE_VARIANT(raw) {
	bool rcm_server;
	/* An AF_IB id's multicast join fails at once (EADDRNOTAVAIL). */
	bool af_ib_join_refused;
};

FIXTURE_VARIANT_ADD(raw, rcm) {
	.rcm_server = true,
};

FIXTURE_VARIANT_ADD(raw, intree) {
	.rcm_server = false, .af_ib_join_refused = true,
};

FIXTURE_SETUP(raw)
{
	int ret = setup_modules();

	self->s.fd = -1;
	if (ret > 0)
		SKIP(return, "no test fabric or reference (" IBFAB_KO ", "
		     IBREF_KO ")");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, side_open(&self->s, variant->rcm_server, 10));
}

FIXTURE_TEARDOWN(raw)
{
	side_close(&self->s);
	ref("reset");
	fab("sa reset");
}

TEST_F(raw, request_with_another_cma_version_is_refused)
{
	char cmd[128], line[256];
	unsigned int lid;
	uint64_t sid = 0;
	FILE *f;

	lid = side_listen(&self->s, &sid);
	ASSERT_TRUE(lid);
	snprintf(cmd, sizeof(cmd), "cmreq 0 1 %llx 7f01",
		 (unsigned long long)sid);
	ASSERT_EQ(0, fab(cmd))
		TH_LOG("cmreq: %s", strerror(errno));
	f = fopen(IBFAB_CTL, "r");
	ASSERT_NE(NULL, f);
	line[0] = 0;
	while (fgets(line, sizeof(line), f) && strncmp(line, "last: ", 6))
		;
	fclose(f);
	EXPECT_NE(NULL, strstr(line, ": rej 28\n"))
		TH_LOG("%s listener: %s", self->s.name, line);
	EXPECT_TRUE(side_quiet(&self->s, lid, 500));
}

/* --- multicast through the SA, each stack (the raw fixture) ------------ */

#define IBFAB_MLID_BASE 0xc000

/*
 * The in-tree CM's AF_IB join: cma_join_ib_multicast() takes its
 * template from the port's group of the id's broadcast MGID (IPoIB's),
 * which an AF_IB id has zero, so ib_sa knows no such group and the join
 * fails with EADDRNOTAVAIL before any MAD; rcm joins with a zero
 * template instead (userspace-api.rst, "multicast"). 0 when it is so.
 */
static int join_refused(struct side *s, unsigned int h, bool sendonly)
{
	long queries = fab_counter("sa_queries");

	if (!side_mcast(s, h, NULL, true, sendonly) || errno != EADDRNOTAVAIL) {
		printf("# %s join: not EADDRNOTAVAIL: %s\n", s->name,
		       strerror(errno));
		return -1;
	}
	if (queries != fab_counter("sa_queries") ||
	    fab_counter("sa_groups") || !side_quiet(s, h, 500)) {
		printf("# %s join: an SA query, group or event\n", s->name);
		return -1;
	}
	return 0;
}

/*
 * A UD id of port space UDP joins the group whose MGID the SA assigns
 * (ff12:...), as a full member or (@sendonly) a send-only one:
 * MULTICAST_JOIN with the group's MLID (from 0xc000 up); a full member's
 * also with remote QP 0xffffff and the Q_Key of the port space
 * (RDMA_UDP_QKEY, the join's, which the SA takes for the group it
 * creates). The SA holds one group until the leave - of the address the
 * join named - and none after. The in-tree CM refuses the AF_IB join
 * (join_refused()).
 */
static void join_and_leave(struct __test_metadata *_metadata,
			   struct side *s, bool refused, bool sendonly)
{
	unsigned int h = side_ud_bound(s);
	struct cm_ev ev;

	ASSERT_TRUE(h)
		TH_LOG("%s UD id: %s", s->name, strerror(errno));
	ASSERT_TRUE(ibfab_sa_groups_gone());
	if (refused) {
		ASSERT_EQ(0, join_refused(s, h, sendonly));
		return;
	}
	ASSERT_EQ(0, side_mcast(s, h, NULL, true, sendonly))
		TH_LOG("%s join: %s", s->name, strerror(errno));
	ASSERT_EQ(0, side_expect(s, h, RCM_EVENT_MULTICAST_JOIN, &ev));
	EXPECT_EQ(0, ev.status);
	EXPECT_LE(IBFAB_MLID_BASE, ev.mlid);
	if (!sendonly) {
		EXPECT_EQ(RCM_MCAST_QPN, ev.qpn);
		EXPECT_EQ(RCM_UDP_QKEY, ev.qkey);
		EXPECT_EQ(0xff, ev.mgid.s6_addr[0]);
		EXPECT_EQ(0x12, ev.mgid.s6_addr[1]);
	}
	EXPECT_EQ(1, fab_counter("sa_groups"));
	ASSERT_EQ(0, side_mcast(s, h, NULL, false, false));
	ASSERT_TRUE(ibfab_sa_groups_gone());
	EXPECT_TRUE(side_quiet(s, h, 0));
}

TEST_F(raw, mcast_join_from_the_sa)
{
	join_and_leave(_metadata, &self->s, variant->af_ib_join_refused,
		       false);
}

/* A send-only full member is a member of the SA's group too. */
TEST_F(raw, mcast_send_only_join)
{
	join_and_leave(_metadata, &self->s, variant->af_ib_join_refused,
		       true);
}

/* --- route resolution through the SA, both stacks ----------------------- */

FIXTURE(route) {
	struct side st[2];
};

FIXTURE_SETUP(route)
{
	int ret = setup_modules();

	self->st[0].fd = self->st[1].fd = -1;
	if (ret > 0)
		SKIP(return, "no test fabric or reference (" IBFAB_KO ", "
		     IBREF_KO ")");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, side_open(&self->st[0], false, 1));
	ASSERT_EQ(0, side_open(&self->st[1], true, 1));
}

FIXTURE_TEARDOWN(route)
{
	side_close(&self->st[0]);
	side_close(&self->st[1]);
	ref("reset");
	fab("sa reset");
}

/* A route query of a resolved id of each stack under the SA's @faults. */
static int route_under(struct side *s, const char *faults, unsigned int ms,
		       unsigned int *h, struct cm_ev *ev)
{
	*h = side_resolved(s, SID_PS(RCM_PS_TCP) | 4791);
	if (!*h || fab("sa reset") || (faults && fab(faults)) ||
	    side_route(s, *h, ms))
		return -1;
	return side_event(s, *h, EV_MS, ev);
}

/* The SA's path: the same fields in both stacks' ROUTE_RESOLVED. */
TEST_F(route, resolved_path_matches)
{
	struct cm_ev ev[2];
	unsigned int h, i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, route_under(&self->st[i],
					 "sa path sl 3 mtu 4 rate 7 life 16",
					 5000, &h, &ev[i]))
			TH_LOG("%s: %s", self->st[i].name, strerror(errno));
		ASSERT_EQ(RCM_EVENT_ROUTE_RESOLVED, ev[i].event)
			TH_LOG("%s: event %d status %d", self->st[i].name,
			       ev[i].event, ev[i].status);
		ASSERT_EQ(1, fab_counter("sa_queries"));
		ASSERT_TRUE(ev[i].path);
	}
	EXPECT_EQ(0, ev[1].status);
	EXPECT_EQ(3, ev[0].sl);
	EXPECT_EQ(4, ev[0].mtu);
	EXPECT_EQ(7, ev[0].rate);
	EXPECT_EQ(16, ev[0].life);
	EXPECT_EQ(1, ev[0].slid);
	EXPECT_EQ(2, ev[0].dlid);
	EXPECT_EQ(0xffff, ev[0].pkey);
	EXPECT_TRUE(ev[0].sl == ev[1].sl && ev[0].mtu == ev[1].mtu &&
		    ev[0].rate == ev[1].rate && ev[0].life == ev[1].life &&
		    ev[0].slid == ev[1].slid && ev[0].dlid == ev[1].dlid &&
		    ev[0].pkey == ev[1].pkey)
		TH_LOG("rcm: sl %u mtu %u rate %u life %u slid %u dlid %u pkey 0x%x",
		       ev[1].sl, ev[1].mtu, ev[1].rate, ev[1].life,
		       ev[1].slid, ev[1].dlid, ev[1].pkey);
}

/*
 * An error status from the SA: ROUTE_ERROR with the same status on both
 * stacks; the id is back where it was, and the next query resolves.
 */
TEST_F(route, sa_error_status_matches)
{
	struct cm_ev ev[2], again;
	unsigned int h, i;

	for (i = 0; i < 2; i++) {
		struct side *s = &self->st[i];

		ASSERT_EQ(0, route_under(s, "sa status 0x0300", 5000, &h,
					 &ev[i]))
			TH_LOG("%s: %s", s->name, strerror(errno));
		ASSERT_EQ(RCM_EVENT_ROUTE_ERROR, ev[i].event)
			TH_LOG("%s: event %d", s->name, ev[i].event);
		ASSERT_EQ(0, side_route(s, h, 5000))
			TH_LOG("%s: route again: %s", s->name, strerror(errno));
		ASSERT_EQ(0, side_expect(s, h, RCM_EVENT_ROUTE_RESOLVED,
					 &again));
	}
	EXPECT_EQ(-EINVAL, ev[0].status);
	EXPECT_EQ(ev[0].status, ev[1].status);
}

/* An SA that never answers: ROUTE_ERROR, -ETIMEDOUT, on both stacks. */
TEST_F(route, sa_timeout_matches)
{
	struct cm_ev ev[2];
	unsigned int h, i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, route_under(&self->st[i], "sa drop 1000", 1000,
					 &h, &ev[i]))
			TH_LOG("%s: %s", self->st[i].name, strerror(errno));
		ASSERT_EQ(RCM_EVENT_ROUTE_ERROR, ev[i].event);
		ASSERT_LE(2, fab_counter("sa_dropped"));
		ASSERT_EQ(0, fab_counter("sa_answered"));
	}
	EXPECT_EQ(-ETIMEDOUT, ev[0].status);
	EXPECT_EQ(ev[0].status, ev[1].status);
}

/*
 * The SA answers after the id is destroyed: the destroy cancels the
 * query at once, and no event comes of the late answer, on both stacks.
 */
TEST_F(route, answer_after_destroy_is_dropped)
{
	struct timespec t0;
	unsigned int h, i;
	long ms;

	for (i = 0; i < 2; i++) {
		struct side *s = &self->st[i];

		h = side_resolved(s, SID_PS(RCM_PS_TCP) | 4791);
		ASSERT_TRUE(h);
		ASSERT_EQ(0, fab("sa reset"));
		ASSERT_EQ(0, fab("sa delay 3000"));
		ASSERT_EQ(0, side_route(s, h, 30000));
		/* The query is at the SA, its answer on the way. */
		ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") == 1,
					 30000));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ASSERT_EQ(0, side_destroy(s, h));
		ms = rcm_ms_since(&t0);
		EXPECT_GT(2000, ms)
			TH_LOG("%s: destroy took %ld ms", s->name, ms);
		/* Past the answer: nothing for the destroyed id. */
		EXPECT_TRUE(side_quiet(s, h, 4000))
			TH_LOG("%s: an event after the destroy", s->name);
	}
}

/*
 * A storm on each stack: STORM ids query at once, the SA drops
 * STORM_DROPS of the queries; ib_sa retries them. Every id reports
 * exactly one event, ROUTE_RESOLVED, on both.
 */
#define STORM 100
#define STORM_DROPS 10
TEST_F(route, storm_with_drops_matches)
{
	static unsigned int ids[STORM];
	unsigned int i, k, ok[2] = {};
	struct cm_ev ev;

	for (k = 0; k < 2; k++) {
		struct side *s = &self->st[k];

		for (i = 0; i < STORM; i++) {
			ids[i] = side_resolved(s, SID_PS(RCM_PS_TCP) | 4791);
			ASSERT_TRUE(ids[i])
				TH_LOG("%s id %u: %s", s->name, i,
				       strerror(errno));
		}
		ASSERT_EQ(0, fab("sa reset"));
		ASSERT_EQ(0, fab("sa drop 10"));
		for (i = 0; i < STORM; i++)
			ASSERT_EQ(0, side_route(s, ids[i], 30000))
				TH_LOG("%s route %u: %s", s->name, i,
				       strerror(errno));
		if (s->rcm) {
			/* One file: the events in any order, one per id. */
			static int seen[STORM + 1];

			memset(seen, 0, sizeof(seen));
			for (i = 0; i < STORM; i++) {
				struct rcm_event r;

				ASSERT_EQ(0, rcm_wait_event(s->fd, 120000, &r));
				ASSERT_TRUE(r.context >= 1 && r.context <= STORM)
					TH_LOG("context %llu",
					       (unsigned long long)r.context);
				seen[r.context]++;
				ok[k] += r.event == RCM_EVENT_ROUTE_RESOLVED;
			}
			for (i = 1; i <= STORM; i++)
				ASSERT_EQ(1, seen[i]);
			ASSERT_FALSE(rcm_readable(s->fd, 500));
		} else {
			for (i = 0; i < STORM; i++) {
				ASSERT_EQ(0, side_event(s, ids[i], 120000, &ev))
					TH_LOG("in-tree slot %u: %s", ids[i],
					       strerror(errno));
				ok[k] += ev.event == RCM_EVENT_ROUTE_RESOLVED;
			}
			for (i = 0; i < STORM; i++)
				ASSERT_TRUE(side_quiet(s, ids[i], i ? 0 : 500));
		}
		ASSERT_EQ(STORM_DROPS, fab_counter("sa_dropped"));
	}
	EXPECT_EQ(STORM, ok[0]);
	EXPECT_EQ(ok[0], ok[1]);
}

/*
 * The fabric goes away with a query of each stack in flight: each id
 * reports DEVICE_REMOVAL and nothing else (in-tree's is destroyed for
 * the removal to finish: rmmod returning is its proof). The next
 * program or case loads the fabric again.
 */
TEST_F(route, device_removal_during_query_matches)
{
	unsigned int h[2], k;
	struct cm_ev ev;

	for (k = 0; k < 2; k++) {
		h[k] = side_resolved(&self->st[k], SID_PS(RCM_PS_TCP) | 4791);
		ASSERT_TRUE(h[k]);
	}
	ASSERT_EQ(0, fab("sa reset"));
	ASSERT_EQ(0, fab("sa delay 6000"));
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, side_route(&self->st[k], h[k], 30000));
	ASSERT_TRUE(RCM_WAIT_FOR(fab_counter("sa_answered") == 2, 30000));
	ASSERT_EQ(0, rcm_sh("rmmod rcm_ibfab"))
		TH_LOG("rmmod rcm_ibfab failed");
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, side_expect(&self->st[k], h[k],
					 RCM_EVENT_DEVICE_REMOVAL, &ev));
		EXPECT_TRUE(side_quiet(&self->st[k], h[k], 500));
	}
	EXPECT_EQ(0, rcm_destroy(self->st[1].fd, h[1]));
}

TEST_HARNESS_MAIN
