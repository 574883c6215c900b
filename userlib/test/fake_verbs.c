// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: a stand-in for libibverbs' device calls, see
 * fake_verbs.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_verbs.h"

int fake_num_devices;
int fake_open_fail_index = -1;
struct ibv_device fake_devices[FAKE_MAX_DEVICES];

int fake_list_calls;
int fake_open_calls;
int fake_close_calls;
int fake_query_calls;

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	int i;

	fake_list_calls++;
	list = calloc(fake_num_devices + 1, sizeof(*list));
	if (!list)
		return NULL;
	for (i = 0; i < fake_num_devices; i++) {
		struct ibv_device *dev = &fake_devices[i];

		snprintf(dev->name, sizeof(dev->name), "fake%d", i);
		dev->transport_type = IBV_TRANSPORT_IB;
		list[i] = dev;
	}
	if (num_devices)
		*num_devices = fake_num_devices;
	return list;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	return FAKE_GUID(device - fake_devices);
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct ibv_context *ctx;

	fake_open_calls++;
	if (device - fake_devices == fake_open_fail_index) {
		errno = EACCES;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->device = device;
	return ctx;
}

int ibv_close_device(struct ibv_context *context)
{
	fake_close_calls++;
	free(context);
	return 0;
}

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	fake_query_calls++;
	memset(device_attr, 0, sizeof(*device_attr));
	snprintf(device_attr->fw_ver, sizeof(device_attr->fw_ver), "%s",
		 context->device->name);
	device_attr->phys_port_cnt = 1;
	device_attr->max_qp_wr = 1024;
	device_attr->max_qp_rd_atom = 16;
	device_attr->max_qp_init_rd_atom = 16;
	return 0;
}
