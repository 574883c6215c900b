// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm-demo: the connection manager's view of a route, through the plain
 * librdmacm API.
 *
 * Resolves the address and the route to a Soft-RoCE address the way any
 * librdmacm client starts a connection, and prints what the connection
 * manager found. The program uses nothing but <rdma/rdma_cma.h>: it runs
 * on rcm's librdmacm.so.1 and on rdma-core's alike.
 *
 * Usage: rcm-demo ADDRESS [PORT]           resolve address and route
 *        rcm-demo --listen ADDRESS PORT    take one connection request,
 *                                          print it and reject it
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

static const char *mtu_str(enum ibv_mtu mtu)
{
	static const char *const names[] = {
		[IBV_MTU_256] = "256", [IBV_MTU_512] = "512",
		[IBV_MTU_1024] = "1024", [IBV_MTU_2048] = "2048",
		[IBV_MTU_4096] = "4096",
	};

	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? names[mtu] : "?";
}

static void print_addr(const char *what, struct sockaddr *sa)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned short port = 0;

	if (sa->sa_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, host,
			  sizeof(host));
		port = ntohs(((struct sockaddr_in *)sa)->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr,
			  host, sizeof(host));
		port = ntohs(((struct sockaddr_in6 *)sa)->sin6_port);
	}
	printf("  %-12s %s port %u\n", what, host, port);
}

static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int status;

	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return -1;
	}
	printf("event: %s (status %d)\n", rdma_event_str(ev->event),
	       ev->status);
	status = ev->event == want ? 0 : -1;
	rdma_ack_cm_event(ev);
	return status;
}

/* Wait for one connection request on ADDRESS:PORT and refuse it. */
static int listen_once(const char *addr, const char *port)
{
	struct rdma_addrinfo hints = {
		.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP,
	}, *res;
	static const char answer[] = "rcm says hello, and no";
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *listener, *req;

	if (rdma_getaddrinfo(addr, port, &hints, &res)) {
		perror("rdma_getaddrinfo");
		return 1;
	}
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, res->ai_src_addr) ||
	    rdma_listen(listener, 4)) {
		perror("rcm-demo: listen");
		return 1;
	}
	printf("listening on %s port %s\n", addr, port);
	fflush(stdout);
	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return 1;
	}
	printf("event: %s\n", rdma_event_str(ev->event));
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 1;
	req = ev->id;
	print_addr("from", rdma_get_peer_addr(req));
	printf("  %-12s \"%.*s\"\n", "private data",
	       (int)strnlen(ev->param.conn.private_data,
			    ev->param.conn.private_data_len),
	       (const char *)ev->param.conn.private_data);
	printf("  %-12s responder resources %u, initiator depth %u\n",
	       "asks for", ev->param.conn.responder_resources,
	       ev->param.conn.initiator_depth);
	printf("rejecting with \"%s\" (rdma_accept is not in rcm's librdmacm yet)\n",
	       answer);
	if (rdma_reject(req, answer, sizeof(answer))) {
		perror("rdma_reject");
		return 1;
	}
	rdma_ack_cm_event(ev);
	rdma_destroy_id(req);
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(ch);
	rdma_freeaddrinfo(res);
	return 0;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	char gid[INET6_ADDRSTRLEN];
	int ret;

	if (argc == 4 && !strcmp(argv[1], "--listen"))
		return listen_once(argv[2], argv[3]);
	if (argc < 2) {
		fprintf(stderr, "usage: %s ADDRESS [PORT] | --listen ADDRESS PORT\n",
			argv[0]);
		return 2;
	}
	ret = rdma_getaddrinfo(argv[1], argc > 2 ? argv[2] : "7471", &hints,
			       &res);
	if (ret) {
		fprintf(stderr, "rdma_getaddrinfo: %s\n",
			ret == -1 ? strerror(errno) : gai_strerror(ret));
		return 1;
	}
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return 1;
	}
	printf("resolving %s ...\n", argv[1]);
	if (rdma_resolve_addr(id, NULL, res->ai_dst_addr, 2000) ||
	    expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED)) {
		perror("rdma_resolve_addr");
		return 1;
	}
	if (rdma_resolve_route(id, 2000) ||
	    expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		perror("rdma_resolve_route");
		return 1;
	}
	printf("connection manager's view:\n");
	print_addr("source", rdma_get_local_addr(id));
	print_addr("destination", rdma_get_peer_addr(id));
	printf("  %-12s %s port %u\n", "device",
	       ibv_get_device_name(id->verbs->device), id->port_num);
	if (id->route.num_paths && id->route.path_rec) {
		inet_ntop(AF_INET6, id->route.path_rec->dgid.raw, gid,
			  sizeof(gid));
		printf("  %-12s dgid %s, MTU %s, P_Key %#x, packet lifetime %u\n",
		       "path", gid, mtu_str(id->route.path_rec->mtu),
		       ntohs(id->route.path_rec->pkey),
		       id->route.path_rec->packet_life_time);
	} else {
		printf("  %-12s none needed (iWARP)\n", "path");
	}
	fflush(stdout);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	rdma_freeaddrinfo(res);
	return 0;
}
