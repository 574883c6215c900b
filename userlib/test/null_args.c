// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * null_args: the calls that take an id (or an event, a channel) refuse a
 * NULL one with -1 and EINVAL before anything reaches the kernel, where
 * librdmacm would dereference it. No module is needed, none is faked:
 * no call here gets as far as the device.
 *
 * What these calls do with a real id is tested against rcm.ko in a
 * guest (userlib/test/guest/, Documentation/userlib-host-tests.rst).
 */
#include <errno.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "helpers.h"

#define T_EINVAL(call)							\
	do {								\
		int r_;							\
		errno = 0;						\
		r_ = (call);						\
		if (r_ != -1 || errno != EINVAL) {			\
			fprintf(stderr, "%s:%d: %s: %d errno %d, want -1 EINVAL\n", \
				__FILE__, __LINE__, #call, r_, errno);	\
			t_failures++;					\
		}							\
	} while (0)

int main(int argc, char *argv[])
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr *sa = (struct sockaddr *)&sin;
	struct rdma_conn_param param = { 0 };
	struct rdma_addrinfo ai = { .ai_port_space = RDMA_PS_TCP };
	struct ibv_qp_init_attr qp_attr = { 0 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct ibv_qp_attr attr;
	int one = 1, mask;

	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_create_id);

	T_EINVAL(rdma_create_id(NULL, NULL, NULL, RDMA_PS_TCP));
	T_EINVAL(rdma_destroy_id(NULL));
	T_EINVAL(rdma_bind_addr(NULL, sa));
	T_EINVAL(rdma_resolve_addr(NULL, NULL, sa, 1000));
	T_EINVAL(rdma_resolve_route(NULL, 1000));
	T_EINVAL(rdma_set_option(NULL, RDMA_OPTION_ID,
				 RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)));
	T_EINVAL(rdma_listen(NULL, 1));
	T_EINVAL(rdma_get_request(NULL, &id));
	T_EINVAL(rdma_connect(NULL, &param));
	T_EINVAL(rdma_accept(NULL, &param));
	T_EINVAL(rdma_reject(NULL, NULL, 0));
	T_EINVAL(rdma_notify(NULL, IBV_EVENT_COMM_EST));
	T_EINVAL(rdma_disconnect(NULL));
	T_EINVAL(rdma_establish(NULL));
	T_EINVAL(rdma_migrate_id(NULL, NULL));
	T_EINVAL(rdma_join_multicast(NULL, sa, NULL));
	T_EINVAL(rdma_leave_multicast(NULL, sa));
	T_EINVAL(rdma_init_qp_attr(NULL, &attr, &mask));
	T_EINVAL(rdma_create_qp(NULL, NULL, &qp_attr));
	T_EINVAL(rdma_get_cm_event(NULL, &ev));
	T_EINVAL(rdma_ack_cm_event(NULL));
	T_EINVAL(rdma_create_ep(NULL, &ai, NULL, NULL));
	T_EINVAL(rdma_create_ep(&id, NULL, NULL, NULL));
	return t_exit();
}
