// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: endpoints, rdma_create_ep() and rdma_destroy_ep(): a
 * synchronous id set up from an rdma_getaddrinfo() result, in one call.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h>

#include "rcm_lib.h"

/* librdmacm's timeout of an endpoint's address and route resolution. */
#define RCM_EP_TIMEOUT_MS	2000

/* A passive endpoint: bind, and keep what rdma_get_request() needs. */
static int rcm_ep_passive(struct rdma_cm_id *id, struct rdma_addrinfo *res,
			  struct ibv_pd *pd,
			  struct ibv_qp_init_attr *qp_init_attr)
{
	struct rcm_id_private *rid = rcm_id(id);

	if (rdma_bind_addr(id, res->ai_src_addr))
		return -1;
	if (pd)
		id->pd = pd;
	if (qp_init_attr) {
		rid->qp_init_attr = malloc(sizeof(*qp_init_attr));
		if (!rid->qp_init_attr)
			return rcm_err(ENOMEM);
		*rid->qp_init_attr = *qp_init_attr;
		rid->qp_init_attr->qp_type = id->qp_type;
	}
	return 0;
}

/* An active endpoint: address, route, QP, and the connect header. */
static int rcm_ep_active(struct rdma_cm_id *id, struct rdma_addrinfo *res,
			 struct ibv_pd *pd,
			 struct ibv_qp_init_attr *qp_init_attr)
{
	struct rcm_id_private *rid = rcm_id(id);

	if (rdma_resolve_addr(id, res->ai_src_addr, res->ai_dst_addr,
			      RCM_EP_TIMEOUT_MS))
		return -1;
	if (res->ai_route_len) {
		/* An ibacm route: the kernel takes it, ROUTE_RESOLVED. */
		if (rdma_set_option(id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH,
				    res->ai_route, res->ai_route_len) ||
		    rcm_sync_complete(rid))
			return -1;
	} else if (rdma_resolve_route(id, RCM_EP_TIMEOUT_MS)) {
		return -1;
	}
	if (qp_init_attr) {
		qp_init_attr->qp_type = id->qp_type;
		if (rdma_create_qp(id, pd, qp_init_attr))
			return -1;
	}
	if (res->ai_connect_len) {
		if (!res->ai_connect ||
		    res->ai_connect_len > RCM_CONNECT_PRIVATE_DATA_MAX)
			return rcm_err(EINVAL);
		rid->connect_hdr = malloc(res->ai_connect_len);
		if (!rid->connect_hdr)
			return rcm_err(ENOMEM);
		memcpy(rid->connect_hdr, res->ai_connect, res->ai_connect_len);
		rid->connect_hdr_len = res->ai_connect_len;
	}
	return 0;
}

/**
 * rdma_create_ep() - a synchronous id for an rdma_getaddrinfo() result
 * @id: where to store the id
 * @res: the address; ai_port_space and ai_qp_type give the id's port
 *       space and QP type (0: derived from the port space, as
 *       rdma_create_id() does)
 * @pd: PD for the QPs, or NULL for the device's default PD
 * @qp_init_attr: attributes of a QP to create, or NULL for none; its
 *                qp_type is set to the id's
 *
 * With RAI_PASSIVE in ai_flags the id is bound to ai_src_addr; @pd goes
 * into id->pd and a copy of @qp_init_attr stays with the id, so that
 * rdma_get_request() gives each request a QP on that PD. The caller then
 * calls rdma_listen().
 *
 * Otherwise the address (ai_src_addr to ai_dst_addr) and the route are
 * resolved, waiting up to 2000 ms each, a QP is created when
 * @qp_init_attr is given, and ai_connect, if any, is kept to go in front
 * of the private data of the id's first rdma_connect(). An ai_route
 * (from ibacm) is passed to rdma_set_option(), which rcm refuses.
 *
 * On failure everything made so far is destroyed.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument, an ai_connect
 * longer than a connect's private data), ENOMEM, and the errors of
 * rdma_create_id(), rdma_bind_addr(), rdma_resolve_addr(),
 * rdma_resolve_route(), rdma_set_option() and rdma_create_qp().
 */
RCM_EXPORT int rdma_create_ep(struct rdma_cm_id **id,
			      struct rdma_addrinfo *res, struct ibv_pd *pd,
			      struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm_id;
	enum rdma_port_space ps;
	enum ibv_qp_type qp_type;
	int ret, err;

	if (!id || !res)
		return rcm_err(EINVAL);
	ps = res->ai_port_space;
	qp_type = res->ai_qp_type;
	if (!qp_type)
		qp_type = (ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB) ?
			  IBV_QPT_UD : IBV_QPT_RC;
	if (rcm_create_id(NULL, &cm_id, NULL, ps, qp_type))
		return -1;

	if (res->ai_flags & RAI_PASSIVE)
		ret = rcm_ep_passive(cm_id, res, pd, qp_init_attr);
	else
		ret = rcm_ep_active(cm_id, res, pd, qp_init_attr);
	if (ret) {
		err = errno;
		rdma_destroy_ep(cm_id);
		return rcm_err(err);
	}
	*id = cm_id;
	return 0;
}

/**
 * rdma_destroy_ep() - destroy an id with its QP and SRQ
 * @id: the id, from rdma_create_ep() or not; NULL is ignored
 *
 * Destroys the id's QP (with the CQs in the id, see rdma_destroy_qp()),
 * its SRQ, and the id, with what rdma_create_ep() kept in it.
 */
RCM_EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}
