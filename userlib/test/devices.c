// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * devices: rdma_get_devices() and rdma_free_devices().
 *
 * - no device: NULL, *num_devices = 0, errno ENODEV; a later call looks
 *   again and finds devices added since;
 * - the list is NULL-terminated, has one opened context per device, and
 *   num_devices may be NULL;
 * - the contexts are shared: a second call returns the same ones without
 *   opening again (it re-reads libibverbs' list, as librdmacm does), and
 *   rdma_free_devices() closes nothing;
 * - a device that cannot be opened is left out; if none can, ENODEV.
 *
 * libibverbs' device calls are faked (fake_verbs.c).
 */
#include <errno.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "fake_verbs.h"
#include "helpers.h"

static void none_then_some(void)
{
	struct ibv_context **list;
	int n = 99;

	fake_num_devices = 0;
	errno = 0;
	list = rdma_get_devices(&n);
	T_CHECK(list == NULL);
	T_CHECK(n == 0);
	T_CHECK(errno == ENODEV);
	T_CHECK(fake_list_calls == 1);

	fake_num_devices = 2;
	list = rdma_get_devices(&n);
	T_CHECK(list != NULL);
	T_CHECK(n == 2);
	T_CHECK(fake_list_calls == 2);
	rdma_free_devices(list);
}

static void shared_contexts(void)
{
	struct ibv_context **a, **b;
	int n = 0, i;

	fake_num_devices = 3;
	a = rdma_get_devices(&n);
	T_CHECK(a != NULL && n == 3);
	if (!a)
		return;
	T_CHECK(a[3] == NULL);
	for (i = 0; i < n; i++) {
		T_CHECK(a[i] != NULL);
		T_CHECK(a[i] && a[i]->device == &fake_devices[i]);
	}
	T_CHECK(fake_open_calls == 3);
	T_CHECK(fake_query_calls == 3);

	b = rdma_get_devices(NULL);
	T_CHECK(b != NULL);
	if (b) {
		for (i = 0; i < n; i++)
			T_CHECK(b[i] == a[i]);
		T_CHECK(b[3] == NULL);
	}
	T_CHECK(fake_open_calls == 3);		/* not opened again */
	T_CHECK(fake_list_calls == 2);		/* re-read, as librdmacm */

	rdma_free_devices(a);
	rdma_free_devices(b);
	rdma_free_devices(NULL);
	T_CHECK(fake_close_calls == 0);		/* devices stay open */

	a = rdma_get_devices(&n);
	T_CHECK(a && n == 3 && a[0]->device == &fake_devices[0]);
	T_CHECK(fake_open_calls == 3);
	rdma_free_devices(a);
}

static void open_failure(void)
{
	struct ibv_context **list;
	int n = 0;

	fake_num_devices = 3;
	fake_open_fail_index = 1;
	list = rdma_get_devices(&n);
	T_CHECK(list != NULL && n == 2);
	if (list) {
		T_CHECK(list[0]->device == &fake_devices[0]);
		T_CHECK(list[1]->device == &fake_devices[2]);
		T_CHECK(list[2] == NULL);
	}
	rdma_free_devices(list);
}

static void all_fail(void)
{
	struct ibv_context **list;
	int n = 99;

	fake_num_devices = 1;
	fake_open_fail_index = 0;
	errno = 0;
	list = rdma_get_devices(&n);
	T_CHECK(list == NULL);
	T_CHECK(n == 0);
	T_CHECK(errno == ENODEV);
	T_CHECK(fake_open_calls == 1);
}

/* The device table is per process: one child per case. */
int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_get_devices);

	t_in_child("no device, then devices", none_then_some);
	t_in_child("shared contexts", shared_contexts);
	t_in_child("a device fails to open", open_failure);
	t_in_child("every device fails to open", all_fail);
	return t_exit();
}
