// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: process-wide settings, read once on first use.
 *
 * Like librdmacm the library has no constructor: nothing runs until the
 * application calls into it.
 */
#include <pthread.h>
#include <stdlib.h>

#include "rcm_lib.h"

static pthread_once_t rcm_settings_once = PTHREAD_ONCE_INIT;
static const char *rcm_dev_path = RCM_DEFAULT_DEVICE;

static void rcm_settings_init(void)
{
	/* Ignored in set-user-ID programs, which must not be redirected. */
	const char *path = secure_getenv(RCM_DEVICE_ENV);

	if (path && *path)
		rcm_dev_path = path;
}

/**
 * rcm_device_path() - path of the rcm character device
 *
 * Return: $RCM_DEVICE as it was at the first call, else
 * /dev/infiniband/rcm. The string stays valid for the process lifetime.
 */
const char *rcm_device_path(void)
{
	pthread_once(&rcm_settings_once, rcm_settings_init);
	return rcm_dev_path;
}
