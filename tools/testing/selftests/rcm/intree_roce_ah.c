// SPDX-License-Identifier: GPL-2.0-only
/*
 * intree_roce_ah.so: an LD_PRELOAD library for rdma-core 44's librdmacm
 * (Debian's, on the in-tree stack) that lets its datagram rsockets run
 * on RoCE, so that rsocket.sh can run Debian's udpong against rcm's.
 *
 * librdmacm 44 gives each datagram rsocket QP an address handle to
 * itself (ds_add_qp_dest(): the port's LID, no GRH), through which its
 * UDP service thread passes on the data that came over UDP. On RoCE the
 * kernel refuses an AH without a GRH (rdma_check_ah_attr(): EINVAL), so
 * the QP is never made: rconnect() and rsendto() fail, with the ENOENT
 * of the clean-up's epoll_ctl(EPOLL_CTL_DEL) of a channel it never
 * added (rsocket.sh's udpong_intree_unaided measures it).
 *
 * Here ibv_create_ah() adds the GRH such an AH lacks: on a port whose
 * link layer is Ethernet, an AH without one gets the RoCE GID of
 * $RCM_ADDR_RXE (the only RoCE address of the guest) as destination and
 * source, which is the QP's own; every other AH is left as it is.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

typedef struct ibv_ah *(*create_ah_fn)(struct ibv_pd *, struct ibv_ah_attr *);

/* The GID table index of the IPv4-mapped GID of @ip, or -1. */
static int roce_gid_index(struct ibv_context *verbs, uint8_t port,
			  const char *ip, union ibv_gid *gid)
{
	struct ibv_port_attr pa;
	union ibv_gid g;
	struct in_addr a;
	int i;

	if (!ip || inet_pton(AF_INET, ip, &a) != 1 ||
	    ibv_query_port(verbs, port, &pa))
		return -1;
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &a, 4);
	for (i = 0; i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid(verbs, port, i, &g) &&
		    !memcmp(&g, gid, sizeof(g)))
			return i;
	return -1;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	create_ah_fn real = (create_ah_fn)dlsym(RTLD_NEXT, "ibv_create_ah");
	struct ibv_port_attr pa;
	struct ibv_ah_attr a;
	int idx;

	if (!real)
		return NULL;
	if (attr->is_global ||
	    ibv_query_port(pd->context, attr->port_num, &pa) ||
	    pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		return real(pd, attr);
	a = *attr;
	idx = roce_gid_index(pd->context, attr->port_num,
			     getenv("RCM_ADDR_RXE"), &a.grh.dgid);
	if (idx < 0)
		return real(pd, attr);
	a.is_global = 1;
	a.grh.sgid_index = idx;
	a.grh.hop_limit = 64;
	return real(pd, &a);
}
