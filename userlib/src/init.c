// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: process-wide settings, read once on first use.
 *
 * Like librdmacm the library has no constructor: nothing runs until the
 * application calls into it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcm_lib.h"

static pthread_once_t rcm_settings_once = PTHREAD_ONCE_INIT;
static const char *rcm_dev_path = RCM_DEFAULT_DEVICE;
static unsigned int rcm_resolve_timeout, rcm_connect_timeout;

/*
 * A timeout in milliseconds from the environment: decimal digits only,
 * 1..RCM_MAX_TIMEOUT_MS. Anything else (unset, empty, 0, a sign, other
 * characters, too large) is 0: not set.
 */
static unsigned int rcm_env_timeout(const char *name)
{
	const char *s = secure_getenv(name);
	unsigned long v;
	char *end;
	int saved = errno;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > RCM_MAX_TIMEOUT_MS)
		v = 0;
	errno = saved;
	return v;
}

static void rcm_settings_init(void)
{
	/* Ignored in set-user-ID programs, which must not be redirected. */
	const char *path = secure_getenv(RCM_DEVICE_ENV);

	if (path && *path)
		rcm_dev_path = path;
	rcm_resolve_timeout = rcm_env_timeout(RCM_RESOLVE_TIMEOUT_ENV);
	rcm_connect_timeout = rcm_env_timeout(RCM_CONNECT_TIMEOUT_ENV);
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

/**
 * rcm_resolve_timeout_ms() - $RCM_RESOLVE_TIMEOUT_MS
 *
 * Return: the value at the first call into the library, 0 when unset or
 * not a valid timeout.
 */
unsigned int rcm_resolve_timeout_ms(void)
{
	pthread_once(&rcm_settings_once, rcm_settings_init);
	return rcm_resolve_timeout;
}

/**
 * rcm_connect_timeout_ms() - $RCM_CONNECT_TIMEOUT_MS
 *
 * Return: as rcm_resolve_timeout_ms().
 */
unsigned int rcm_connect_timeout_ms(void)
{
	pthread_once(&rcm_settings_once, rcm_settings_init);
	return rcm_connect_timeout;
}

/**
 * rcm_hint() - say once, on stderr, why rcm cannot serve the process
 * @fmt: the message (printf format), one line, no trailing newline
 *
 * librdmacm's errno stays what it was; the program's own message (for
 * Debian's tools "No RDMA devices were detected") would otherwise be all
 * a user sees when the module is missing. One hint per process, the
 * first; none when $RCM_QUIET is set to anything but "0".
 */
void rcm_hint(const char *fmt, ...)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int said;
	const char *quiet = getenv(RCM_QUIET_ENV);
	int saved = errno;
	va_list ap;

	if (quiet && *quiet && strcmp(quiet, "0"))
		return;
	pthread_mutex_lock(&lock);
	if (!said) {
		said = 1;
		va_start(ap, fmt);
		fputs("rcm: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputs(" (RCM_QUIET=1 silences this)\n", stderr);
		va_end(ap);
	}
	pthread_mutex_unlock(&lock);
	errno = saved;
}
