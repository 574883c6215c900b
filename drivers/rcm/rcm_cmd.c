// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: handlers of the commands that act on no id.
 */
#include "rcm_priv.h"

/**
 * rcm_cmd_query() - RCM_IOCTL_QUERY: ABI version and device count
 * @filp: the rcm file
 * @arg: struct rcm_query, checked by the dispatcher
 */
int rcm_cmd_query(struct file *filp, void *arg)
{
	struct rcm_query *q = arg;

	q->out_abi_version = RCM_ABI_VERSION;
	q->out_num_devices = rcm_device_count();
	return 0;
}
