// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * tap: the shared part of the userlib's guest test programs (tap.h).
 */
#include <arpa/inet.h>
#include <signal.h>
#include <unistd.h>

#include "tap.h"

int tap_failed;

static char tap_bail[64];
static size_t tap_bail_len;

void tap_result(int n, const char *name, bool ok)
{
	printf("%sok %d %s\n", ok ? "" : "not ", n, name);
	if (!ok)
		tap_failed = 1;
}

void tap_start(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
}

void tap_plan(int ntests)
{
	printf("1..%d\n", ntests);
}

static void tap_on_alarm(int sig)
{
	(void)sig;
	/* Only async-signal-safe calls here. */
	if (write(STDOUT_FILENO, tap_bail, tap_bail_len) < 0)
		_exit(KSFT_FAIL);
	_exit(KSFT_FAIL);
}

void tap_deadline(unsigned int seconds)
{
	int len = snprintf(tap_bail, sizeof(tap_bail),
			   "Bail out! timed out after %u s\n", seconds);

	tap_bail_len = len > 0 ? (size_t)len : 0;
	signal(SIGALRM, tap_on_alarm);
	alarm(seconds);
}

int tap_exit_status(void)
{
	return tap_failed ? KSFT_FAIL : KSFT_PASS;
}

bool tap_parse_ipv4(const char *ip, int port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return inet_pton(AF_INET, ip, &sin->sin_addr) == 1;
}
