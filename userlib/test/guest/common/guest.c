// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * guest: the shared part of the userlib's guest test programs (guest.h).
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include "guest.h"

static char guest_bail[64];
static size_t guest_bail_len;

static void guest_on_alarm(int sig)
{
	(void)sig;
	/* Only async-signal-safe calls here. */
	if (write(STDOUT_FILENO, guest_bail, guest_bail_len) < 0)
		_exit(1);
	_exit(1);
}

void guest_deadline(unsigned int seconds)
{
	int len = snprintf(guest_bail, sizeof(guest_bail),
			   "Bail out! timed out after %u s\n", seconds);

	guest_bail_len = len > 0 ? (size_t)len : 0;
	signal(SIGALRM, guest_on_alarm);
	alarm(seconds);
}

bool guest_parse_ipv4(const char *ip, int port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return inet_pton(AF_INET, ip, &sin->sin_addr) == 1;
}

void guest_qp_attr(struct ibv_qp_init_attr *attr, enum ibv_qp_type type,
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

bool guest_create_qp(struct rdma_cm_id *id, enum ibv_qp_type type,
		     unsigned int wr)
{
	struct ibv_qp_init_attr attr;

	guest_qp_attr(&attr, type, wr);
	return CHECK(rdma_create_qp(id, NULL, &attr) == 0);
}

bool guest_on_rcm(void)
{
	Dl_info info;

	if (!dladdr((void *)rdma_create_id, &info) || !info.dli_fname)
		return false;
	return strstr(info.dli_fname, "/rcm/") != NULL;
}
