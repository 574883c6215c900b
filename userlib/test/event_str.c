// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * event_str: rdma_event_str() names every event as librdmacm does and
 * says "UNKNOWN EVENT" for anything else, including negative values.
 * When the distribution's librdmacm.so.1 is installed it is loaded in a
 * separate link-map namespace and must agree on every value tried.
 */
#include <dlfcn.h>
#include <limits.h>

#include <rdma/rdma_cma.h>

#include "helpers.h"

static const char *const names[] = {
	"RDMA_CM_EVENT_ADDR_RESOLVED",
	"RDMA_CM_EVENT_ADDR_ERROR",
	"RDMA_CM_EVENT_ROUTE_RESOLVED",
	"RDMA_CM_EVENT_ROUTE_ERROR",
	"RDMA_CM_EVENT_CONNECT_REQUEST",
	"RDMA_CM_EVENT_CONNECT_RESPONSE",
	"RDMA_CM_EVENT_CONNECT_ERROR",
	"RDMA_CM_EVENT_UNREACHABLE",
	"RDMA_CM_EVENT_REJECTED",
	"RDMA_CM_EVENT_ESTABLISHED",
	"RDMA_CM_EVENT_DISCONNECTED",
	"RDMA_CM_EVENT_DEVICE_REMOVAL",
	"RDMA_CM_EVENT_MULTICAST_JOIN",
	"RDMA_CM_EVENT_MULTICAST_ERROR",
	"RDMA_CM_EVENT_ADDR_CHANGE",
	"RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

static const int unknown[] = { 16, 17, 18, 19, 100, INT_MAX, -1, INT_MIN };

static void compare_with_system(void)
{
	const char *(*sys_event_str)(enum rdma_cm_event_type);
	void *h;
	int ev;

#ifdef RCM_SYSTEM_LIBRDMACM
	h = dlmopen(LM_ID_NEWLM, RCM_SYSTEM_LIBRDMACM, RTLD_NOW | RTLD_LOCAL);
#else
	h = NULL;
#endif
	if (!h) {
		printf("no system librdmacm to compare with\n");
		return;
	}
	sys_event_str = (const char *(*)(enum rdma_cm_event_type))
		dlvsym(h, "rdma_event_str", "RDMACM_1.0");
	T_CHECK(sys_event_str != NULL);
	if (sys_event_str) {
		int before = t_failures;

		for (ev = -3; ev < 40; ev++)
			T_CHECK_STR(rdma_event_str(ev), sys_event_str(ev));
		if (t_failures == before)
			printf("agrees with %s for -3..39\n",
			       RCM_SYSTEM_LIBRDMACM);
	}
	dlclose(h);
}

int main(int argc, char *argv[])
{
	unsigned int i;

	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_event_str);

	T_CHECK(ARRAY_SIZE(names) ==
		RDMA_CM_EVENT_TIMEWAIT_EXIT + 1);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		T_CHECK_STR(rdma_event_str(i), names[i]);
	for (i = 0; i < ARRAY_SIZE(unknown); i++)
		T_CHECK_STR(rdma_event_str(unknown[i]), "UNKNOWN EVENT");
	/* A static string: the same pointer every time. */
	T_CHECK(rdma_event_str(RDMA_CM_EVENT_REJECTED) ==
		rdma_event_str(RDMA_CM_EVENT_REJECTED));

	compare_with_system();
	return t_exit();
}
