// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * getaddrinfo: rdma_getaddrinfo() and rdma_freeaddrinfo() without ibacm.
 *
 * - nothing to resolve: -1/EINVAL; no RDMA device: -1/ENODEV;
 * - numeric IPv4 and IPv6, active: one result with the address in
 *   ai_dst_*, QP type and port space from the hints or derived from the
 *   socket type/protocol, no route, no connect data;
 * - passive: RAI_PASSIVE and the wildcard address in ai_src_*;
 * - a source address in the hints is copied into the result;
 * - no node and no service: the hints are the result;
 * - NULL hints: getaddrinfo(3) gets NULL hints too, so that its own
 *   defaults (glibc: AI_V4MAPPED | AI_ADDRCONFIG) apply, as librdmacm's
 *   nohints do; given hints are passed as hints;
 * - RAI_FAMILY + AF_IB + RAI_NUMERICHOST: a GID becomes a sockaddr_ib;
 * - getaddrinfo failures come back as the raw EAI_* code.
 *
 * libibverbs' device list is faked (fake_verbs.c) so that the result does
 * not depend on the host's hardware.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdlib.h>
#include <infiniband/ib.h>

#include <rdma/rdma_cma.h>

#include "fake_verbs.h"
#include "helpers.h"

/* What the library passed to getaddrinfo(3) as hints, last time. */
static int gai_calls;
static bool gai_hints_null;

/*
 * The executable's getaddrinfo() comes first in the lookup order, so the
 * library calls this one; it records the hints and calls libc's.
 */
int getaddrinfo(const char *node, const char *service,
		const struct addrinfo *hints, struct addrinfo **res)
{
	int (*real)(const char *, const char *, const struct addrinfo *,
		    struct addrinfo **);

	gai_calls++;
	gai_hints_null = hints == NULL;
	real = (int (*)(const char *, const char *, const struct addrinfo *,
			struct addrinfo **))dlsym(RTLD_NEXT, "getaddrinfo");
	return real(node, service, hints, res);
}

static void check_no_extras(const struct rdma_addrinfo *res)
{
	T_CHECK(res->ai_next == NULL);
	T_CHECK(res->ai_route == NULL && res->ai_route_len == 0);
	T_CHECK(res->ai_connect == NULL && res->ai_connect_len == 0);
}

static void no_devices(void)
{
	struct rdma_addrinfo *res = (struct rdma_addrinfo *)&res;
	int ret;

	fake_num_devices = 0;
	errno = 0;
	ret = rdma_getaddrinfo("127.0.0.1", "7471", NULL, &res);
	T_CHECK(ret == -1);
	T_CHECK(errno == ENODEV);
	T_CHECK(res == (struct rdma_addrinfo *)&res);	/* untouched */
	T_CHECK(fake_list_calls > 0);	/* the fake was really called */

	/* Argument checks come before the device check. */
	errno = 0;
	T_CHECK(rdma_getaddrinfo(NULL, NULL, NULL, &res) == -1);
	T_CHECK(errno == EINVAL);
}

static void numeric_ipv4(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	struct sockaddr_in *sin;

	hints.ai_flags = RAI_NUMERICHOST;
	hints.ai_port_space = RDMA_PS_TCP;
	T_CHECK(rdma_getaddrinfo("192.0.2.1", "7471", &hints, &res) == 0);
	if (!res)
		return;
	T_CHECK(res->ai_flags == 0);
	T_CHECK(res->ai_family == AF_INET);
	T_CHECK(res->ai_qp_type == IBV_QPT_RC);
	T_CHECK(res->ai_port_space == RDMA_PS_TCP);
	T_CHECK(res->ai_src_addr == NULL && res->ai_src_len == 0);
	T_CHECK(res->ai_dst_len == sizeof(struct sockaddr_in));
	sin = (struct sockaddr_in *)res->ai_dst_addr;
	T_CHECK(sin && sin->sin_family == AF_INET);
	T_CHECK(sin && sin->sin_port == htons(7471));
	T_CHECK(sin && sin->sin_addr.s_addr == inet_addr("192.0.2.1"));
	T_CHECK(res->ai_src_canonname == NULL);
	check_no_extras(res);
	rdma_freeaddrinfo(res);
}

static void numeric_ipv6_ud(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	struct sockaddr_in6 *sin6;
	struct in6_addr want;

	hints.ai_flags = RAI_NUMERICHOST;
	hints.ai_family = AF_INET6;
	hints.ai_qp_type = IBV_QPT_UD;
	T_CHECK(rdma_getaddrinfo("2001:db8::1", "18515", &hints, &res) == 0);
	if (!res)
		return;
	T_CHECK(res->ai_family == AF_INET6);
	T_CHECK(res->ai_qp_type == IBV_QPT_UD);
	/* UD -> SOCK_DGRAM -> UDP -> RDMA_PS_UDP */
	T_CHECK(res->ai_port_space == RDMA_PS_UDP);
	T_CHECK(res->ai_dst_len == sizeof(struct sockaddr_in6));
	sin6 = (struct sockaddr_in6 *)res->ai_dst_addr;
	inet_pton(AF_INET6, "2001:db8::1", &want);
	T_CHECK(sin6 && sin6->sin6_family == AF_INET6);
	T_CHECK(sin6 && sin6->sin6_port == htons(18515));
	T_CHECK(sin6 && !memcmp(&sin6->sin6_addr, &want, sizeof(want)));
	check_no_extras(res);
	rdma_freeaddrinfo(res);
}

static void no_hints(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	int calls = gai_calls;

	T_CHECK(rdma_getaddrinfo("127.0.0.1", "7471", NULL, &res) == 0);
	/* librdmacm's nohints: getaddrinfo()'s own defaults. */
	T_CHECK(gai_calls == calls + 1 && gai_hints_null);
	if (!res)
		return;
	/* The first socket result is SOCK_STREAM/TCP. */
	T_CHECK(res->ai_qp_type == IBV_QPT_RC);
	T_CHECK(res->ai_port_space == RDMA_PS_TCP);
	T_CHECK(res->ai_dst_addr != NULL);
	rdma_freeaddrinfo(res);

	/* Hints of zeros are hints, not librdmacm's nohints. */
	res = NULL;
	T_CHECK(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res) == 0);
	T_CHECK(gai_calls == calls + 2 && !gai_hints_null);
	rdma_freeaddrinfo(res);
}

static void passive(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	struct sockaddr_in *sin;

	hints.ai_flags = RAI_PASSIVE;
	hints.ai_family = AF_INET;
	hints.ai_port_space = RDMA_PS_UDP;
	T_CHECK(rdma_getaddrinfo(NULL, "7174", &hints, &res) == 0);
	if (!res)
		return;
	T_CHECK(res->ai_flags == RAI_PASSIVE);
	T_CHECK(res->ai_port_space == RDMA_PS_UDP);
	T_CHECK(res->ai_qp_type == IBV_QPT_UD);
	T_CHECK(res->ai_dst_addr == NULL && res->ai_dst_len == 0);
	T_CHECK(res->ai_src_len == sizeof(struct sockaddr_in));
	sin = (struct sockaddr_in *)res->ai_src_addr;
	T_CHECK(sin && sin->sin_addr.s_addr == htonl(INADDR_ANY));
	T_CHECK(sin && sin->sin_port == htons(7174));
	check_no_extras(res);
	rdma_freeaddrinfo(res);
}

static void source_from_hints(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	struct sockaddr_in src = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(0x0a000001),
	};

	hints.ai_flags = RAI_NUMERICHOST;
	hints.ai_src_addr = (struct sockaddr *)&src;
	hints.ai_src_len = sizeof(src);
	T_CHECK(rdma_getaddrinfo("192.0.2.7", "1", &hints, &res) == 0);
	if (!res)
		return;
	T_CHECK(res->ai_src_len == sizeof(src));
	T_CHECK(res->ai_src_addr && res->ai_src_addr != hints.ai_src_addr);
	T_CHECK(res->ai_src_addr &&
		!memcmp(res->ai_src_addr, &src, sizeof(src)));
	T_CHECK(res->ai_dst_addr != NULL);
	rdma_freeaddrinfo(res);
}

static void hints_only(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6,
				    .sin6_port = htons(99) };

	hints.ai_flags = RAI_NOROUTE;
	hints.ai_family = AF_INET6;
	hints.ai_qp_type = IBV_QPT_UD;
	hints.ai_port_space = RDMA_PS_IPOIB;
	hints.ai_dst_addr = (struct sockaddr *)&dst;
	hints.ai_dst_len = sizeof(dst);
	T_CHECK(rdma_getaddrinfo(NULL, NULL, &hints, &res) == 0);
	if (!res)
		return;
	T_CHECK(res->ai_flags == RAI_NOROUTE);
	T_CHECK(res->ai_family == AF_INET6);
	T_CHECK(res->ai_qp_type == IBV_QPT_UD);
	T_CHECK(res->ai_port_space == RDMA_PS_IPOIB);
	T_CHECK(res->ai_dst_len == sizeof(dst));
	T_CHECK(res->ai_dst_addr && res->ai_dst_addr != hints.ai_dst_addr);
	T_CHECK(res->ai_dst_addr &&
		!memcmp(res->ai_dst_addr, &dst, sizeof(dst)));
	T_CHECK(res->ai_src_addr == NULL);
	check_no_extras(res);
	rdma_freeaddrinfo(res);
}

static void ib_gid(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;
	struct sockaddr_ib *sib;
	struct in6_addr gid;

	hints.ai_flags = RAI_FAMILY | RAI_NUMERICHOST;
	hints.ai_family = AF_IB;
	hints.ai_port_space = RDMA_PS_IB;
	hints.ai_qp_type = IBV_QPT_RC;
	T_CHECK(rdma_getaddrinfo("fe80::2:c903:a:1", "4791", &hints,
				 &res) == 0);
	if (!res)
		return;
	inet_pton(AF_INET6, "fe80::2:c903:a:1", &gid);
	T_CHECK(res->ai_family == AF_IB);
	T_CHECK(res->ai_dst_len == sizeof(struct sockaddr_ib));
	sib = (struct sockaddr_ib *)res->ai_dst_addr;
	if (sib) {
		T_CHECK(sib->sib_family == AF_IB);
		T_CHECK(sib->sib_pkey == htobe16(0xffff));
		T_CHECK(!memcmp(&sib->sib_addr, &gid, sizeof(gid)));
		T_CHECK(sib->sib_sid ==
			htobe64(RDMA_IB_PS_IB + 4791));
		T_CHECK(sib->sib_sid_mask ==
			htobe64(RDMA_IB_IP_PS_MASK | RDMA_IB_IP_PORT_MASK));
	}
	rdma_freeaddrinfo(res);

	/* Without a port only the port-space bits are significant. */
	res = NULL;
	T_CHECK(rdma_getaddrinfo("fe80::1", NULL, &hints, &res) == 0);
	sib = res ? (struct sockaddr_ib *)res->ai_dst_addr : NULL;
	T_CHECK(sib && sib->sib_sid == htobe64(RDMA_IB_PS_IB));
	T_CHECK(sib && sib->sib_sid_mask == htobe64(RDMA_IB_IP_PS_MASK));
	rdma_freeaddrinfo(res);

	/* Without RAI_FAMILY the address stays IPv6. */
	res = NULL;
	hints.ai_flags = RAI_NUMERICHOST;
	T_CHECK(rdma_getaddrinfo("fe80::1", "1", &hints, &res) == 0);
	T_CHECK(res && res->ai_family == AF_INET6);
	rdma_freeaddrinfo(res);
}

static void bad_input(void)
{
	struct rdma_addrinfo hints = { 0 }, *res = NULL;

	errno = 0;
	T_CHECK(rdma_getaddrinfo(NULL, NULL, NULL, &res) == -1);
	T_CHECK(errno == EINVAL);

	hints.ai_flags = RAI_NUMERICHOST;
	T_CHECK(rdma_getaddrinfo("not-a-number", "1", &hints, &res) ==
		EAI_NONAME);
	hints.ai_family = 12345;
	T_CHECK(rdma_getaddrinfo("192.0.2.1", "1", &hints, &res) ==
		EAI_FAMILY);
	T_CHECK(res == NULL);

	rdma_freeaddrinfo(NULL);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_getaddrinfo);

	no_devices();
	fake_num_devices = 1;
	numeric_ipv4();
	numeric_ipv6_ud();
	no_hints();
	passive();
	source_from_hints();
	hints_only();
	ib_gid();
	bad_input();
	return t_exit();
}
