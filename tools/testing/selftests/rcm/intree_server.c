// SPDX-License-Identifier: GPL-2.0-only
/*
 * intree_server: a passive side on the in-tree stack (rdma-core's
 * librdmacm over rdma_ucm.ko and rdma_cm.ko), used by the connect test
 * to prove that an rcm client reaches an in-tree listener.
 *
 * Usage: intree_server ADDRESS PORT EXPECT-DATA REPLY [qp]
 *   Listens on ADDRESS:PORT (0: a port its bind chooses) and prints
 *   "listening PORT". The one connection
 *   request must carry private data beginning with EXPECT-DATA. REPLY is
 *   "accept:DATA" - accept it (no QP: QP number 0x4321) with that private
 *   data, wait for ESTABLISHED, disconnect and wait for DISCONNECTED - or
 *   "reject:DATA" - reject it with that private data. "qp" accepts with
 *   a QP of the request's id (rdma_create_qp()), which iWARP needs.
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

int main(int argc, char **argv)
{
	struct rdma_addrinfo *res;
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7, .qp_num = 0x4321,
	};
	struct rdma_event_channel *ch;
	struct rdma_cm_id *lid, *id;
	struct rdma_cm_event *ev;
	char data[200];
	int accept, qp = 0;

	if (argc == 6 && !strcmp(argv[5], "qp")) {
		qp = 1;
		argc--;
	}
	if (argc != 5 || sscanf(argv[4], "%*[a-z]:%199s", data) != 1) {
		fprintf(stderr, "usage: %s ADDR PORT EXPECT REPLY [qp]\n",
			argv[0]);
		return 2;
	}
	accept = !strncmp(argv[4], "accept:", 7);
	alarm(60);
	ch = rdma_create_event_channel();
	if (!ch || intree_listen(ch, argv[1], argv[2], RDMA_PS_TCP, &lid, &res))
		return 2;

	ev = intree_next_event(ch, "intree_server", stderr);
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST ||
	    !ev->param.conn.private_data ||
	    strncmp(ev->param.conn.private_data, argv[3], strlen(argv[3]))) {
		fprintf(stderr, "want a request carrying '%s'\n", argv[3]);
		return 1;
	}
	id = ev->id;
	rdma_ack_cm_event(ev);
	param.private_data = data;
	param.private_data_len = strlen(data) + 1;
	if (!accept) {
		if (rdma_reject(id, data, strlen(data) + 1))
			return 1;
		return intree_done(ch, id, lid, 0, res);
	}
	if (qp && intree_create_qp(id, "intree_server"))
		return 2;
	if (rdma_accept(id, &param)) {
		perror("rdma_accept");
		return 1;
	}
	if (intree_expect(ch, RDMA_CM_EVENT_ESTABLISHED, "intree_server",
			  stderr) || rdma_disconnect(id) ||
	    intree_expect(ch, RDMA_CM_EVENT_DISCONNECTED, "intree_server",
			  stderr))
		return 1;
	return intree_done(ch, id, lid, qp, res);
}
