// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_intree_compare: what an application sees of address and route
 * resolution, recorded on the in-tree stack and compared on rcm, in one
 * guest boot (Soft-RoCE).
 *
 *   ./cm_intree_compare save FILE     on the distribution's librdmacm and
 *                                     rdma_ucm: write what is seen
 *   LD_LIBRARY_PATH=/usr/lib/rcm ./cm_intree_compare check FILE
 *                                     on rcm: the same, compared with
 *                                     FILE (kselftest TAP)
 *
 * In-tree compare: yes (make check runs the two in one test).
 *
 *   RCM_ADDR_RXE      IPv4 address of the Soft-RoCE device
 *   RCM_ADDR_SILENT   a neighbour on its subnet that never answers
 *   RCM_ADDR_NORDMA   an address of a netdev without an RDMA device
 *
 * 1. addr_error_silent: rdma_resolve_addr() to the silent neighbour:
 *    return value, errno, then the event and its status.
 * 2. addr_error_no_route: the same to 198.19.200.1, which no route
 *    reaches.
 * 3. addr_no_rdma_device: the same to the address of the netdev without
 *    an RDMA device.
 * 4. route_path_record: ADDR_RESOLVED, then ROUTE_RESOLVED from
 *    RCM_ADDR_RXE to itself: route.addr.addr.ibaddr after each,
 *    num_paths, and every member of route.path_rec[0].
 * 5. request_path_record: a connection request from RCM_ADDR_RXE to a
 *    listener on it: the request id's route.addr.addr.ibaddr, num_paths
 *    and route.path_rec[0] (in-tree: the REQ's path).
 *
 * The path's flow label is made from the ports: the in-tree run (save)
 * takes four free ports (binds to port 0) and writes them first in
 * FILE, and rcm's (check) uses the same.
 *
 * Exit: 0 all passed, 1 a case differs (each difference is printed),
 * 4 nothing to run (RCM_ADDR_RXE not set).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "common/guest.h"
#include "kselftest.h"

#define MAX_LINES	128
#define NO_ROUTE	"198.19.200.1"

/* The cases' ports: route source and destination, request's the same. */
enum { SRC_PORT, DST_PORT, REQ_PORT, REQ_SRC_PORT, NPORTS };
static unsigned short port[NPORTS];

static const char *const cases[] = {
	"addr_error_silent", "addr_error_no_route", "addr_no_rdma_device",
	"route_path_record", "request_path_record",
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* What was seen: "case.key value" lines. */
static char seen[MAX_LINES][128];
static int nseen;

static void record(const char *c, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (nseen == MAX_LINES)
		return;
	n = snprintf(seen[nseen], sizeof(seen[0]), "%s.%s ", c, key);
	va_start(ap, fmt);
	vsnprintf(seen[nseen] + n, sizeof(seen[0]) - n, fmt, ap);
	va_end(ap);
	nseen++;
}

static const char *event_name(int ev)
{
	return rdma_event_str((enum rdma_cm_event_type)ev);
}

/* The next event within 15 s, or NULL. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, 15000) != 1 || rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* Resolve @dst (port 0) from no source: what the call and event say. */
static void resolve_case(const char *c, const char *dst)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct sockaddr_in sin;
	int ret;

	if (!ch || !dst || !guest_parse_ipv4(dst, 0, &sin) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		record(c, "setup", "failed");
		if (ch)
			rdma_destroy_event_channel(ch);
		return;
	}
	errno = 0;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 1000);
	record(c, "ret", "%d", ret);
	record(c, "errno", "%d", ret ? errno : 0);
	if (!ret) {
		ev = next_event(ch);
		record(c, "event", "%s", ev ? event_name(ev->event) : "none");
		record(c, "status", "%d", ev ? ev->status : 0);
		if (ev)
			rdma_ack_cm_event(ev);
	}
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

static void hex(char *to, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(to + 2 * i, "%02x", p[i]);
}

/* Every member of @r (a route's path_rec[0]), if there is one. */
static void record_path(const char *c, const struct ibv_sa_path_rec *r)
{
	char g[33];

	if (!r)
		return;
	hex(g, r->dgid.raw, 16);
	record(c, "dgid", "%s", g);
	hex(g, r->sgid.raw, 16);
	record(c, "sgid", "%s", g);
	record(c, "dlid", "%#x", ntohs(r->dlid));
	record(c, "slid", "%#x", ntohs(r->slid));
	record(c, "raw_traffic", "%d", r->raw_traffic);
	record(c, "flow_label", "%#x", ntohl(r->flow_label));
	record(c, "hop_limit", "%u", r->hop_limit);
	record(c, "traffic_class", "%u", r->traffic_class);
	record(c, "reversible", "%d", r->reversible);
	record(c, "numb_path", "%u", r->numb_path);
	record(c, "pkey", "%#x", ntohs(r->pkey));
	record(c, "sl", "%u", r->sl);
	record(c, "mtu_selector", "%u", r->mtu_selector);
	record(c, "mtu", "%u", r->mtu);
	record(c, "rate_selector", "%u", r->rate_selector);
	record(c, "rate", "%u", r->rate);
	record(c, "packet_life_time_selector", "%u",
	       r->packet_life_time_selector);
	record(c, "packet_life_time", "%u", r->packet_life_time);
	record(c, "preference", "%u", r->preference);
}

static void route_case(const char *c, const char *ip)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in src, dst;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	char g[33];

	if (!ch || !guest_parse_ipv4(ip, port[SRC_PORT], &src) ||
	    !guest_parse_ipv4(ip, port[DST_PORT], &dst) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		record(c, "setup", "failed");
		if (ch)
			rdma_destroy_event_channel(ch);
		return;
	}
	if (rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, 2000) ||
	    !(ev = next_event(ch))) {
		record(c, "setup", "no address");
		goto out;
	}
	record(c, "addr.event", "%s", event_name(ev->event));
	rdma_ack_cm_event(ev);
	hex(g, id->route.addr.addr.ibaddr.sgid.raw, 16);
	record(c, "addr.ibaddr.sgid", "%s", g);
	hex(g, id->route.addr.addr.ibaddr.dgid.raw, 16);
	record(c, "addr.ibaddr.dgid", "%s", g);
	record(c, "addr.ibaddr.pkey", "%#x",
	       ntohs(id->route.addr.addr.ibaddr.pkey));
	record(c, "addr.num_paths", "%d", id->route.num_paths);
	if (rdma_resolve_route(id, 2000) || !(ev = next_event(ch))) {
		record(c, "setup", "no route");
		goto out;
	}
	record(c, "event", "%s", event_name(ev->event));
	rdma_ack_cm_event(ev);
	record(c, "num_paths", "%d", id->route.num_paths);
	hex(g, id->route.addr.addr.ibaddr.sgid.raw, 16);
	record(c, "ibaddr.sgid", "%s", g);
	hex(g, id->route.addr.addr.ibaddr.dgid.raw, 16);
	record(c, "ibaddr.dgid", "%s", g);
	record(c, "ibaddr.pkey", "%#x", ntohs(id->route.addr.addr.ibaddr.pkey));
	record_path(c, id->route.path_rec);
out:
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
}

/*
 * A connection request to a listener of this process: what the request
 * id's route says (in-tree, the REQ's path as ib_cm gives it).
 */
static void request_case(const char *c, const char *ip)
{
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .qp_num = 0x1234,
	};
	struct rdma_cm_id *l = NULL, *id = NULL, *req = NULL;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in src, dst;
	struct rdma_cm_event *ev;
	char g[33];

	/* A fixed source port: the REQ's flow label is made from the ports. */
	if (!ch || !guest_parse_ipv4(ip, port[REQ_PORT], &dst) ||
	    !guest_parse_ipv4(ip, port[REQ_SRC_PORT], &src) ||
	    rdma_create_id(ch, &l, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l, (struct sockaddr *)&dst) || rdma_listen(l, 1) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, 2000) ||
	    !(ev = next_event(ch))) {
		record(c, "setup", "failed");
		goto out;
	}
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 2000) || !(ev = next_event(ch))) {
		record(c, "setup", "no route");
		goto out;
	}
	rdma_ack_cm_event(ev);
	if (rdma_connect(id, &p) || !(ev = next_event(ch))) {
		record(c, "setup", "no request");
		goto out;
	}
	record(c, "event", "%s", event_name(ev->event));
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		req = ev->id;
	rdma_ack_cm_event(ev);
	if (!req)
		goto out;
	record(c, "num_paths", "%d", req->route.num_paths);
	hex(g, req->route.addr.addr.ibaddr.sgid.raw, 16);
	record(c, "ibaddr.sgid", "%s", g);
	hex(g, req->route.addr.addr.ibaddr.dgid.raw, 16);
	record(c, "ibaddr.dgid", "%s", g);
	record(c, "ibaddr.pkey", "%#x",
	       ntohs(req->route.addr.addr.ibaddr.pkey));
	record_path(c, req->route.path_rec);
	rdma_reject(req, NULL, 0);
	rdma_destroy_id(req);
out:
	if (id)
		rdma_destroy_id(id);
	if (l)
		rdma_destroy_id(l);
	if (ch)
		rdma_destroy_event_channel(ch);
}

/* Every line of @c in @want is in seen, and the other way round. */
static bool compare(const char *c, char want[][128], int nwant)
{
	size_t len = strlen(c);
	bool ok = true, found;
	int i, j;

	for (i = 0; i < nwant; i++) {
		if (strncmp(want[i], c, len) || want[i][len] != '.')
			continue;
		for (found = false, j = 0; j < nseen && !found; j++)
			found = !strcmp(want[i], seen[j]);
		if (!found) {
			printf("# in-tree: %s\n", want[i]);
			ok = false;
		}
	}
	for (j = 0; j < nseen; j++) {
		if (strncmp(seen[j], c, len) || seen[j][len] != '.')
			continue;
		for (found = false, i = 0; i < nwant && !found; i++)
			found = !strcmp(want[i], seen[j]);
		if (!found) {
			printf("# rcm:     %s\n", seen[j]);
			ok = false;
		}
	}
	return ok;
}

int main(int argc, char *argv[])
{
	static char want[MAX_LINES][128];
	const char *rxe = getenv("RCM_ADDR_RXE");
	bool save;
	FILE *f;
	int i, nwant = 0;

	if (argc != 3 || (strcmp(argv[1], "save") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: %s save|check FILE\n", argv[0]);
		return KSFT_FAIL;
	}
	save = !strcmp(argv[1], "save");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!save)
		ksft_print_header();
	if (!rxe || !*rxe) {
		if (save)
			return KSFT_SKIP;
		return ksft_exit_skip("RCM_ADDR_RXE is not set\n");
	}
	guest_deadline(90);
	if (save && !guest_free_ports(rxe, RDMA_PS_TCP, port, NPORTS))
		return KSFT_FAIL;
	if (!save) {
		f = fopen(argv[2], "r");
		if (!CHECK(f))
			return KSFT_FAIL;
		while (nwant < MAX_LINES &&
		       fgets(want[nwant], sizeof(want[0]), f)) {
			want[nwant][strcspn(want[nwant], "\n")] = '\0';
			nwant++;
		}
		fclose(f);
		if (!CHECK(nwant && sscanf(want[0], "ports %hu %hu %hu %hu",
					   &port[0], &port[1], &port[2],
					   &port[3]) == NPORTS))
			return KSFT_FAIL;
	}

	resolve_case(cases[0], getenv("RCM_ADDR_SILENT"));
	resolve_case(cases[1], NO_ROUTE);
	resolve_case(cases[2], getenv("RCM_ADDR_NORDMA"));
	route_case(cases[3], rxe);
	request_case(cases[4], rxe);

	if (save) {
		f = fopen(argv[2], "w");
		if (!f)
			return KSFT_FAIL;
		fprintf(f, "ports %hu %hu %hu %hu\n", port[0], port[1],
			port[2], port[3]);
		for (i = 0; i < nseen; i++)
			fprintf(f, "%s\n", seen[i]);
		return fclose(f) ? KSFT_FAIL : KSFT_PASS;
	}
	ksft_set_plan(NCASES);
	for (i = 0; i < (int)NCASES; i++)
		ksft_test_result(compare(cases[i], want, nwant), "%s\n",
				 cases[i]);
	ksft_finished();
}
