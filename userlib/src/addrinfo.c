// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: rdma_getaddrinfo() and rdma_freeaddrinfo().
 *
 * Name resolution is getaddrinfo(3); this file translates the RDMA hints
 * into socket hints and the first socket result into one rdma_addrinfo.
 * There is no ibacm client, so results never carry ai_route or
 * ai_connect and keep their IP family (RAI_NOROUTE therefore changes
 * nothing).
 */
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/ib.h>

#include "rcm_lib.h"

static int rcm_qp_socktype(int qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return SOCK_STREAM;
	case IBV_QPT_UD:
		return SOCK_DGRAM;
	default:
		return 0;
	}
}

static int rcm_ps_protocol(int port_space, int socktype)
{
	switch (port_space) {
	case RDMA_PS_TCP:
		return IPPROTO_TCP;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		return IPPROTO_UDP;
	case RDMA_PS_IB:
		if (socktype == SOCK_STREAM)
			return IPPROTO_TCP;
		if (socktype == SOCK_DGRAM)
			return IPPROTO_UDP;
		return 0;
	default:
		return 0;
	}
}

static void rcm_hints_to_ai(const struct rdma_addrinfo *hints,
			    struct addrinfo *ai)
{
	memset(ai, 0, sizeof(*ai));
	if (hints->ai_flags & RAI_PASSIVE)
		ai->ai_flags |= AI_PASSIVE;
	if (hints->ai_flags & RAI_NUMERICHOST)
		ai->ai_flags |= AI_NUMERICHOST;
	/* An IB GID is written like an IPv6 address: let getaddrinfo parse. */
	if (hints->ai_family != AF_IB)
		ai->ai_family = hints->ai_family;
	ai->ai_socktype = rcm_qp_socktype(hints->ai_qp_type);
	ai->ai_protocol = rcm_ps_protocol(hints->ai_port_space,
					  ai->ai_socktype);
}

static struct sockaddr *rcm_dup_addr(const struct sockaddr *addr,
				     socklen_t len)
{
	void *copy = malloc(len);

	if (copy)
		memcpy(copy, addr, len);
	return copy;
}

/* Numeric IPv6-form GID -> AF_IB address with the service ID of ps/port. */
static struct sockaddr *rcm_sin6_to_sib(const struct sockaddr_in6 *sin6,
					int port_space)
{
	struct sockaddr_ib *sib = calloc(1, sizeof(*sib));
	uint16_t port = be16toh(sin6->sin6_port);
	uint64_t mask = RDMA_IB_IP_PS_MASK;

	if (!sib)
		return NULL;
	if (port)
		mask |= RDMA_IB_IP_PORT_MASK;

	sib->sib_family = AF_IB;
	sib->sib_pkey = htobe16(0xFFFF);
	sib->sib_flowinfo = sin6->sin6_flowinfo;
	memcpy(&sib->sib_addr, &sin6->sin6_addr, sizeof(sib->sib_addr));
	sib->sib_sid = htobe64(((uint64_t)port_space << 16) + port);
	sib->sib_sid_mask = htobe64(mask);
	sib->sib_scope_id = sin6->sin6_scope_id;
	return (struct sockaddr *)sib;
}

static int rcm_want_ib(const struct rdma_addrinfo *hints)
{
	const int need = RAI_FAMILY | RAI_NUMERICHOST;

	return hints && (hints->ai_flags & need) == need &&
	       hints->ai_family == AF_IB;
}

/* Fill rai from the first getaddrinfo() result. Returns 0 or an errno. */
static int rcm_ai_to_rai(const struct addrinfo *ai,
			 const struct rdma_addrinfo *hints,
			 struct rdma_addrinfo *rai)
{
	struct sockaddr *addr;
	socklen_t len;
	char *canon = NULL;

	rai->ai_family = ai->ai_family;
	if (hints && hints->ai_qp_type)
		rai->ai_qp_type = hints->ai_qp_type;
	else if (ai->ai_socktype == SOCK_STREAM)
		rai->ai_qp_type = IBV_QPT_RC;
	else if (ai->ai_socktype == SOCK_DGRAM)
		rai->ai_qp_type = IBV_QPT_UD;

	if (hints && hints->ai_port_space)
		rai->ai_port_space = hints->ai_port_space;
	else if (ai->ai_protocol == IPPROTO_TCP)
		rai->ai_port_space = RDMA_PS_TCP;
	else if (ai->ai_protocol == IPPROTO_UDP)
		rai->ai_port_space = RDMA_PS_UDP;

	if (rcm_want_ib(hints) && ai->ai_family == AF_INET6) {
		addr = rcm_sin6_to_sib((struct sockaddr_in6 *)ai->ai_addr,
				       rai->ai_port_space);
		len = sizeof(struct sockaddr_ib);
		rai->ai_family = AF_IB;
	} else {
		addr = rcm_dup_addr(ai->ai_addr, ai->ai_addrlen);
		len = ai->ai_addrlen;
	}
	if (!addr)
		return ENOMEM;

	if (ai->ai_canonname) {
		canon = strdup(ai->ai_canonname);
		if (!canon) {
			free(addr);
			return ENOMEM;
		}
	}

	if (hints && (hints->ai_flags & RAI_PASSIVE)) {
		rai->ai_flags = RAI_PASSIVE;
		rai->ai_src_addr = addr;
		rai->ai_src_len = len;
		rai->ai_src_canonname = canon;
	} else {
		rai->ai_flags = 0;
		rai->ai_dst_addr = addr;
		rai->ai_dst_len = len;
		rai->ai_dst_canonname = canon;
	}
	return 0;
}

/* No node and no service: the result is the hints themselves. */
static int rcm_hints_to_rai(const struct rdma_addrinfo *hints,
			    struct rdma_addrinfo *rai)
{
	rai->ai_flags = hints->ai_flags;
	rai->ai_family = hints->ai_family;
	rai->ai_qp_type = hints->ai_qp_type;
	rai->ai_port_space = hints->ai_port_space;
	if (hints->ai_dst_len && hints->ai_dst_addr) {
		rai->ai_dst_addr = rcm_dup_addr(hints->ai_dst_addr,
						hints->ai_dst_len);
		if (!rai->ai_dst_addr)
			return ENOMEM;
		rai->ai_dst_len = hints->ai_dst_len;
	}
	return 0;
}

/**
 * rdma_getaddrinfo() - translate a name and service into RDMA addresses
 * @node: host name or numeric address, or NULL
 * @service: service name or port number, or NULL
 * @hints: RAI_* flags, family, QP type and port space wanted, or NULL:
 *         then getaddrinfo(3) gets no hints either, as in librdmacm
 * @res: where to store the result, for rdma_freeaddrinfo()
 *
 * Return: 0; -1 with errno EINVAL (nothing to resolve), ENODEV (no RDMA
 * device) or ENOMEM; or the non-zero EAI_* code of getaddrinfo(3).
 */
RCM_EXPORT int rdma_getaddrinfo(const char *node, const char *service,
				const struct rdma_addrinfo *hints,
				struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *rai;
	struct addrinfo ai_hints, *ai;
	int ret;

	if ((!node && !service && !hints) || !res)
		return rcm_err(EINVAL);
	if (rcm_devices_init())
		return -1;

	rai = calloc(1, sizeof(*rai));
	if (!rai)
		return rcm_err(ENOMEM);

	if (node || service) {
		/*
		 * No hints are librdmacm's nohints: getaddrinfo(3) gets none
		 * either, and applies its own defaults (glibc:
		 * AI_V4MAPPED | AI_ADDRCONFIG).
		 */
		if (hints)
			rcm_hints_to_ai(hints, &ai_hints);
		ret = getaddrinfo(node, service, hints ? &ai_hints : NULL,
				  &ai);
		if (ret) {
			free(rai);
			return ret;
		}
		ret = rcm_ai_to_rai(ai, hints, rai);
		freeaddrinfo(ai);
	} else {
		ret = rcm_hints_to_rai(hints, rai);
	}
	if (ret)
		goto err;

	/* A source given in the hints is kept when resolution made none. */
	if (!rai->ai_src_addr && hints && hints->ai_src_len &&
	    hints->ai_src_addr) {
		rai->ai_src_addr = rcm_dup_addr(hints->ai_src_addr,
						hints->ai_src_len);
		if (!rai->ai_src_addr) {
			ret = ENOMEM;
			goto err;
		}
		rai->ai_src_len = hints->ai_src_len;
	}

	*res = rai;
	return 0;

err:
	rdma_freeaddrinfo(rai);
	return rcm_err(ret);
}

/**
 * rdma_freeaddrinfo() - free a result of rdma_getaddrinfo()
 * @res: the first element of the list, or NULL
 */
RCM_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *next;

	for (; res; res = next) {
		next = res->ai_next;
		free(res->ai_connect);
		free(res->ai_route);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res);
	}
}
