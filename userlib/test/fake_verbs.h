/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * rcm userlib tests: a stand-in for libibverbs' device calls.
 *
 * A test program that links fake_verbs.o defines ibv_get_device_list(),
 * ibv_free_device_list(), ibv_open_device(), ibv_close_device() and
 * ibv_query_device() itself. The executable comes first in the symbol
 * lookup order, so the library under test calls these instead of
 * libibverbs' and the tests run the same on hosts with and without RDMA
 * hardware. The counters prove that the interposition took place.
 */
#ifndef RCM_TEST_FAKE_VERBS_H
#define RCM_TEST_FAKE_VERBS_H

#include <endian.h>
#include <infiniband/verbs.h>

#define FAKE_MAX_DEVICES 4

/* Node GUID of fake_devices[i], network order (ibv_get_device_guid()). */
#define FAKE_GUID(i)	htobe64(0x0002c90300a0b000ULL + (i))

extern int fake_num_devices;		/* what the next listing reports */
extern int fake_open_fail_index;	/* device whose open fails, or -1 */
extern struct ibv_device fake_devices[FAKE_MAX_DEVICES];

extern int fake_list_calls;
extern int fake_open_calls;
extern int fake_close_calls;
extern int fake_query_calls;

#endif /* RCM_TEST_FAKE_VERBS_H */
