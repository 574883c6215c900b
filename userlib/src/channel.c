// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: event channels, i.e. open files of the rcm device.
 *
 * Every channel is its own open file: the module keeps everything an open
 * file creates private to that file, exactly as rdma_ucm does per channel.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/rcm_user.h>

#include "rcm_lib.h"

/*
 * Ask the module which ABI it speaks and how many devices it manages.
 * Returns 0, or an errno value.
 */
static int rcm_check_abi(int fd)
{
	struct rcm_query q = { .size = sizeof(q) };

	if (ioctl(fd, RCM_IOCTL_QUERY, &q)) {
		switch (errno) {
		case ENOTTY:		/* not an rcm file, or no QUERY */
		case EINVAL:		/* our size is below its minimum */
		case E2BIG:
		case EOPNOTSUPP:
			return RCM_EABI;
		default:
			return errno;
		}
	}
	if (q.out_abi_version != RCM_ABI_VERSION)
		return RCM_EABI;
	/* librdmacm fails with ENODEV when there is no RDMA device. */
	if (!q.out_num_devices)
		return ENODEV;
	return 0;
}

/**
 * rdma_create_event_channel() - open a channel that reports CM events
 *
 * Return: the channel, or NULL with errno set: ENODEV when the rcm module
 * is not loaded or manages no device, EPERM when it speaks another ABI (as librdmacm),
 * else the error of open(2) or ENOMEM.
 */
RCM_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rdma_event_channel *channel;
	int fd, err;

	fd = open(rcm_device_path(), O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		/* No node, or a node without its driver: no module. */
		if (err == ENOENT || err == ENXIO || err == ENODEV)
			err = ENODEV;
		goto out;
	}

	err = rcm_check_abi(fd);
	if (err)
		goto out_close;

	channel = malloc(sizeof(*channel));
	if (!channel) {
		err = ENOMEM;
		goto out_close;
	}
	channel->fd = fd;
	return channel;

out_close:
	close(fd);
out:
	errno = err;
	return NULL;
}

/**
 * rdma_destroy_event_channel() - close a channel
 * @channel: from rdma_create_event_channel(), or NULL
 *
 * The caller must have destroyed the channel's ids and acked its events.
 */
RCM_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (!channel)
		return;
	close(channel->fd);
	free(channel);
}
