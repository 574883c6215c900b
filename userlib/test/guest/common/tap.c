// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * tap: the shared part of the userlib's guest test programs (tap.h).
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
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

const char *tap_rxe_start(int ntests, unsigned int seconds)
{
	const char *rxe = getenv("RCM_ADDR_RXE");

	tap_start();
	if (!rxe || !*rxe) {
		printf("1..0 # SKIP RCM_ADDR_RXE is not set\n");
		return NULL;
	}
	tap_plan(ntests);
	tap_deadline(seconds);
	return rxe;
}

void tap_qp_attr(struct ibv_qp_init_attr *attr, enum ibv_qp_type type,
		 unsigned int wr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_type = type;
	attr->cap.max_send_wr = wr;
	attr->cap.max_recv_wr = wr;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->sq_sig_all = 1;
}

bool tap_create_qp(struct rdma_cm_id *id, enum ibv_qp_type type,
		   unsigned int wr)
{
	struct ibv_qp_init_attr attr;

	tap_qp_attr(&attr, type, wr);
	return CHECK(rdma_create_qp(id, NULL, &attr) == 0);
}
