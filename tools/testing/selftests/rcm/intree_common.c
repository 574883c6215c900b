// SPDX-License-Identifier: GPL-2.0-only
/*
 * intree_common: the shared part of intree_client and intree_server.
 */
#include <arpa/inet.h>
#include <stdlib.h>

#include "intree_common.h"

struct rdma_cm_event *intree_next_event(struct rdma_event_channel *ch,
					const char *who, FILE *log)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		exit(2);
	}
	fprintf(log, "%s: %s status %d\n", who, rdma_event_str(ev->event),
		ev->status);
	return ev;
}

int intree_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
		  const char *who, FILE *log)
{
	struct rdma_cm_event *ev = intree_next_event(ch, who, log);

	if (ev->event != type)
		return -1;
	rdma_ack_cm_event(ev);
	return 0;
}

int intree_done(struct rdma_event_channel *ch, struct rdma_cm_id *id,
		struct rdma_cm_id *lid, int qp, struct rdma_addrinfo *res)
{
	if (qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
	if (lid)
		rdma_destroy_id(lid);
	rdma_destroy_event_channel(ch);
	rdma_freeaddrinfo(res);
	return 0;
}

int intree_listen(struct rdma_event_channel *ch, const char *addr,
		  const char *port, enum rdma_port_space ps,
		  struct rdma_cm_id **lid, struct rdma_addrinfo **res)
{
	struct rdma_addrinfo hints = {
		.ai_flags = RAI_PASSIVE, .ai_port_space = ps,
	};

	if (rdma_getaddrinfo(addr, port, &hints, res))
		return -1;
	if (rdma_create_id(ch, lid, NULL, ps) ||
	    rdma_bind_addr(*lid, (*res)->ai_src_addr) || rdma_listen(*lid, 4))
		return -1;
	printf("listening %u\n", ntohs(rdma_get_src_port(*lid)));
	fflush(stdout);
	return 0;
}

int intree_create_qp(struct rdma_cm_id *id, const char *who)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
	struct ibv_cq *cq = pd ? ibv_create_cq(id->verbs, 4, NULL, NULL, 0) :
				 NULL;

	if (!cq) {
		fprintf(stderr, "%s: PD/CQ: %m\n", who);
		return -1;
	}
	attr.send_cq = cq;
	attr.recv_cq = cq;
	if (rdma_create_qp(id, pd, &attr)) {
		fprintf(stderr, "%s: rdma_create_qp: %m\n", who);
		return -1;
	}
	return 0;
}
