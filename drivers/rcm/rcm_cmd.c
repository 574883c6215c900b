// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: handlers of the commands that act on no id.
 */
#include "rcm_priv.h"

/**
 * rcm_cmd_query() - RCM_IOCTL_QUERY: ABI version, device count, and the
 * file's event record size
 * @filp: the rcm file
 * @arg: struct rcm_query, checked by the dispatcher
 *
 * Return: 0, or -EINVAL for an event size the uapi does not allow.
 */
int rcm_cmd_query(struct file *filp, void *arg)
{
	struct rcm_query *q = arg;

	if (q->event_size && (q->event_size < RCM_EVENT_SIZE_MIN ||
			      q->event_size % 8))
		return -EINVAL;
	q->out_abi_version = RCM_ABI_VERSION;
	q->out_num_devices = rcm_device_count();
	q->out_event_size = rcm_read_set_size(filp->private_data,
					      q->event_size);
	return 0;
}
