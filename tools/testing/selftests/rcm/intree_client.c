// SPDX-License-Identifier: GPL-2.0-only
/*
 * intree_client: an active side on the in-tree stack (rdma-core's
 * librdmacm over rdma_ucm.ko and rdma_cm.ko), used by the listen test to
 * prove that an in-tree peer reaches an rcm listener.
 *
 * Usage: intree_client ADDRESS PORT PRIVATE-DATA EXPECT [qp]
 *   EXPECT is "reject:REASON:DATA" - the connection must be REJECTED
 *   with that status (-1: any) and private data beginning with DATA (or
 *   "-" for none); or "accept:DATA" - the reply must carry that private
 *   data (CONNECT_RESPONSE: this client has no QP, so it completes the
 *   connection with rdma_establish(), which sends the RTU), after which
 *   it disconnects and must see DISCONNECTED.
 *   "qp" gives the connection a QP (rdma_create_qp()), which iWARP
 *   needs: the reply is then ESTABLISHED, carrying the private data.
 * Prints what happened; exits 0 when it matches EXPECT.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "intree_common.h"

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct rdma_conn_param param = {
		.responder_resources = 2, .initiator_depth = 1,
		.retry_count = 5, .rnr_retry_count = 6, .qp_num = 0x1234,
	};
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int reason = 0, accept = 0, qp = 0;
	char want[200];

	if (argc == 6 && !strcmp(argv[5], "qp")) {
		qp = 1;
		argc--;
	}
	if (argc == 5 && sscanf(argv[4], "accept:%199s", want) == 1)
		accept = 1;
	else if (argc != 5 ||
		 sscanf(argv[4], "reject:%d:%199s", &reason, want) != 2) {
		fprintf(stderr, "usage: %s ADDR PORT DATA EXPECT [qp]\n",
			argv[0]);
		return 2;
	}
	if (rdma_getaddrinfo(argv[1], argv[2], &hints, &res))
		return 2;
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return 2;
	if (rdma_resolve_addr(id, NULL, res->ai_dst_addr, 2000))
		return 2;
	if (intree_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, "intree_client",
			  stdout) || rdma_resolve_route(id, 2000) ||
	    intree_expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, "intree_client",
			  stdout))
		return 2;
	if (qp && intree_create_qp(id, "intree_client"))
		return 2;
	param.private_data = argv[3];
	param.private_data_len = strlen(argv[3]) + 1;
	if (rdma_connect(id, &param)) {
		perror("rdma_connect");
		return 2;
	}
	ev = intree_next_event(ch, "intree_client", stdout);
	if (ev->param.conn.private_data && ev->param.conn.private_data_len)
		printf("intree_client: private data \"%.*s\"\n",
		       (int)strnlen(ev->param.conn.private_data,
				    ev->param.conn.private_data_len),
		       (const char *)ev->param.conn.private_data);
	if (accept) {
		if (ev->event != (qp ? RDMA_CM_EVENT_ESTABLISHED :
				  RDMA_CM_EVENT_CONNECT_RESPONSE) ||
		    !ev->param.conn.private_data ||
		    strncmp(ev->param.conn.private_data, want, strlen(want))) {
			fprintf(stderr, "want %s with '%s'\n",
				qp ? "ESTABLISHED" : "CONNECT_RESPONSE", want);
			return 1;
		}
		rdma_ack_cm_event(ev);
		if (!qp && rdma_establish(id)) {
			perror("rdma_establish");
			return 1;
		}
		printf("intree_client: established\n");
		fflush(stdout);
		if (rdma_disconnect(id)) {
			perror("rdma_disconnect");
			return 1;
		}
		if (intree_expect(ch, RDMA_CM_EVENT_DISCONNECTED,
				  "intree_client", stdout))
			return 1;
		return intree_done(ch, id, NULL, qp, res);
	}
	if (ev->event != RDMA_CM_EVENT_REJECTED ||
	    (reason >= 0 && ev->status != reason)) {
		fprintf(stderr, "want REJECTED status %d\n", reason);
		return 1;
	}
	if (strcmp(want, "-") &&
	    (!ev->param.conn.private_data ||
	     strncmp(ev->param.conn.private_data, want, strlen(want)))) {
		fprintf(stderr, "reject data is not '%s'\n", want);
		return 1;
	}
	rdma_ack_cm_event(ev);
	return intree_done(ch, id, NULL, qp, res);
}
