// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * dropin: a program built against the distribution's librdmacm (its
 * headers, linked with its -lrdmacm) runs on rcm's library instead. It
 * binds each call to librdmacm's version node when it loads; with
 * LD_LIBRARY_PATH pointing at rcm's library every one must resolve there,
 * with the same results.
 *
 * Built only when the distribution's librdmacm-dev is installed; compiled
 * without -I../include.
 */
#include <dlfcn.h>
#include <errno.h>
#include <rdma/rdma_cma.h>

#include "helpers.h"

int main(int argc, char *argv[])
{
	struct rdma_addrinfo *res = NULL;
	struct ibv_context **list;
	int n = 5;

	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;

	t_require_our_lib((const void *)rdma_event_str);
	t_require_our_lib((const void *)rdma_getaddrinfo);
	t_require_our_lib((const void *)rdma_get_devices);
	t_require_our_lib((const void *)rdma_create_event_channel);

	T_CHECK_STR(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED),
		    "RDMA_CM_EVENT_ESTABLISHED");
	errno = 0;
	T_CHECK(rdma_getaddrinfo(NULL, NULL, NULL, &res) == -1);
	T_CHECK(errno == EINVAL);
	rdma_freeaddrinfo(NULL);

	/* Whatever the host has, the convention holds. */
	list = rdma_get_devices(&n);
	T_CHECK(list ? n > 0 && !list[n] : n == 0 && errno == ENODEV);
	rdma_free_devices(list);

	return t_exit();
}
