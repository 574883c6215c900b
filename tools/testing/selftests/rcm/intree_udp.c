// SPDX-License-Identifier: GPL-2.0-only
/*
 * intree_udp: a datagram (RDMA_PS_UDP) peer on the in-tree stack
 * (rdma-core's librdmacm over rdma_ucm.ko and rdma_cm.ko), used by the
 * sidr test to prove that rcm's SIDR REQ and REP are what the in-tree
 * rdma_cm sends and expects. No QPs: SIDR never looks at them.
 *
 * Usage:
 *   intree_udp server ADDRESS PORT EXPECT-DATA accept:DATA|reject:DATA
 *     Listens on ADDRESS:PORT (0: a port its bind chooses), prints
 *     "listening PORT"; the one SIDR request
 *     must carry private data beginning with EXPECT-DATA; accepts it
 *     (QP number 0x4321) or rejects it with DATA.
 *   intree_udp client ADDRESS PORT DATA QPN|reject EXPECT-DATA
 *     Resolves ADDRESS:PORT and sends a SIDR REQ with DATA; the answer
 *     must be ESTABLISHED with QP number QPN (hex), Q_Key RDMA_UDP_QKEY
 *     and private data beginning with EXPECT-DATA, or with "reject",
 *     UNREACHABLE with status 2 and that data.
 * Exits 0 when all of it happened, 1 when not, 2 on a set-up error.
 * Gives up after 60 s.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "intree_common.h"

static int server(struct rdma_event_channel *ch, char **argv)
{
	struct rdma_conn_param param = { .qp_num = 0x4321 };
	struct rdma_addrinfo *res;
	const char *data = strchr(argv[4], ':');
	struct rdma_cm_id *lid, *id;
	struct rdma_cm_event *ev;
	const char *pd;

	if (!data)
		return 2;
	data++;
	if (intree_listen(ch, argv[1], argv[2], RDMA_PS_UDP, &lid, &res))
		return 2;
	ev = intree_next_event(ch, "intree_udp", stderr);
	pd = ev->param.ud.private_data;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST || !pd ||
	    ev->param.ud.private_data_len != 180 ||
	    strncmp(pd, argv[3], strlen(argv[3]))) {
		fprintf(stderr, "want a request carrying '%s' (len %u)\n",
			argv[3], ev->param.ud.private_data_len);
		return 1;
	}
	id = ev->id;
	rdma_ack_cm_event(ev);
	param.private_data = data;
	param.private_data_len = strlen(data) + 1;
	if (!strncmp(argv[4], "accept:", 7)) {
		if (rdma_accept(id, &param)) {
			perror("rdma_accept");
			return 1;
		}
	} else if (rdma_reject(id, data, strlen(data) + 1)) {
		perror("rdma_reject");
		return 1;
	}
	rdma_destroy_id(id);
	rdma_destroy_id(lid);
	rdma_freeaddrinfo(res);
	return 0;
}

static int client(struct rdma_event_channel *ch, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_UDP }, *res;
	struct rdma_conn_param param = {
		.private_data = argv[3],
		.private_data_len = strlen(argv[3]) + 1,
	};
	int reject = !strcmp(argv[4], "reject");
	unsigned int qpn = strtoul(argv[4], NULL, 16);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	const char *pd;
	int ok;

	if (rdma_getaddrinfo(argv[1], argv[2], &hints, &res) ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_UDP) ||
	    rdma_resolve_addr(id, NULL, res->ai_dst_addr, 2000))
		return 2;
	ev = intree_next_event(ch, "intree_udp", stderr);
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED)
		return 2;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 2000))
		return 2;
	ev = intree_next_event(ch, "intree_udp", stderr);
	if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return 2;
	rdma_ack_cm_event(ev);
	if (rdma_connect(id, &param)) {
		perror("rdma_connect");
		return 1;
	}
	ev = intree_next_event(ch, "intree_udp", stderr);
	pd = ev->param.ud.private_data;
	if (reject)
		ok = ev->event == RDMA_CM_EVENT_UNREACHABLE &&
		     ev->status == 2;
	else
		ok = ev->event == RDMA_CM_EVENT_ESTABLISHED &&
		     ev->param.ud.qp_num == qpn &&
		     ev->param.ud.qkey == RDMA_UDP_QKEY;
	ok = ok && pd && ev->param.ud.private_data_len == 136 &&
	     !strncmp(pd, argv[5], strlen(argv[5]));
	fprintf(stderr, "intree_udp: qpn %#x qkey %#x data '%.20s' len %u\n",
		ev->param.ud.qp_num, ev->param.ud.qkey, pd ? pd : "",
		ev->param.ud.private_data_len);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
	rdma_freeaddrinfo(res);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;

	alarm(60);
	ch = rdma_create_event_channel();
	if (!ch)
		return 2;
	if (argc == 6 && !strcmp(argv[1], "server"))
		return server(ch, argv + 1);
	if (argc == 7 && !strcmp(argv[1], "client"))
		return client(ch, argv + 1);
	fprintf(stderr, "usage: %s server ADDR PORT EXPECT accept:DATA|reject:DATA\n"
		"       %s client ADDR PORT DATA QPN|reject EXPECT\n",
		argv[0], argv[0]);
	return 2;
}
