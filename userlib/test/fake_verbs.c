// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib tests: a stand-in for libibverbs, see fake_verbs.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_verbs.h"

int fake_num_devices;
int fake_open_fail_index = -1;
bool fake_same_guid;
struct ibv_device fake_devices[FAKE_MAX_DEVICES];

int fake_list_calls;
int fake_open_calls;
int fake_close_calls;
int fake_query_calls;

int fake_seq;
int fake_live_pds;
int fake_live_channels;
int fake_live_cqs;
int fake_live_qps;
int fake_live_srqs;
int fake_create_qp_errno;
static uint32_t next_qp_num = 0x100;

static enum ibv_qp_state fail_modify_state;
static int fail_modify_errno;

static struct ibv_qp *fake_create_qp_ex_op(struct ibv_context *context,
					   struct ibv_qp_init_attr_ex *attr);
static struct ibv_srq *fake_create_srq_ex_op(struct ibv_context *context,
					     struct ibv_srq_init_attr_ex *attr);

/* XRC domains: the device has none (rxe). */
static struct ibv_xrcd *fake_open_xrcd_op(struct ibv_context *context,
					  struct ibv_xrcd_init_attr *attr)
{
	(void)context;
	(void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	int i;

	fake_list_calls++;
	list = calloc(fake_num_devices + 1, sizeof(*list));
	if (!list)
		return NULL;
	for (i = 0; i < fake_num_devices; i++) {
		struct ibv_device *dev = &fake_devices[i];

		snprintf(dev->name, sizeof(dev->name), "fake%d", i);
		dev->transport_type = IBV_TRANSPORT_IB;
		list[i] = dev;
	}
	if (num_devices)
		*num_devices = fake_num_devices;
	return list;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	return FAKE_GUID(fake_same_guid ? 0 : device - fake_devices);
}

/* The kernel's index of a fake device: its place in fake_devices. */
int ibv_get_device_index(struct ibv_device *device)
{
	return (int)(device - fake_devices);
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

/* An extended context: the inline verbs find create_qp_ex and friends. */
struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct verbs_context *vctx;

	fake_open_calls++;
	if (device - fake_devices == fake_open_fail_index) {
		errno = EACCES;
		return NULL;
	}
	vctx = calloc(1, sizeof(*vctx));
	if (!vctx)
		return NULL;
	vctx->sz = sizeof(*vctx);
	vctx->create_qp_ex = fake_create_qp_ex_op;
	vctx->create_srq_ex = fake_create_srq_ex_op;
	vctx->open_xrcd = fake_open_xrcd_op;
	vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->context.device = device;
	return &vctx->context;
}

int ibv_close_device(struct ibv_context *context)
{
	fake_close_calls++;
	free(verbs_get_ctx(context));
	return 0;
}

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	fake_query_calls++;
	memset(device_attr, 0, sizeof(*device_attr));
	snprintf(device_attr->fw_ver, sizeof(device_attr->fw_ver), "%s",
		 context->device->name);
	device_attr->phys_port_cnt = 1;
	device_attr->max_qp_wr = 1024;
	device_attr->max_qp_rd_atom = 16;
	device_attr->max_qp_init_rd_atom = 16;
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	pd->context = context;
	fake_live_pds++;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	fake_live_pds--;
	free(pd);
	return 0;
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->context = context;
	ch->fd = -1;
	fake_live_channels++;
	return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	fake_live_channels--;
	free(channel);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context, struct ibv_comp_channel *channel,
			     int comp_vector)
{
	struct ibv_cq *cq;

	(void)comp_vector;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	fake_live_cqs++;
	return cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	fake_live_cqs--;
	free(cq);
	return 0;
}

static struct ibv_qp *fake_qp_new(struct ibv_context *context,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct fake_qp *f;

	if (fake_create_qp_errno) {
		errno = fake_create_qp_errno;
		fake_create_qp_errno = 0;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	attr->cap.max_inline_data = 64;
	f->init = *attr;
	f->qp.context = context;
	f->qp.qp_context = attr->qp_context;
	f->qp.pd = attr->pd;
	f->qp.send_cq = attr->send_cq;
	f->qp.recv_cq = attr->recv_cq;
	f->qp.srq = attr->srq;
	f->qp.qp_num = next_qp_num++;
	f->qp.state = IBV_QPS_RESET;
	f->qp.qp_type = attr->qp_type;
	fake_live_qps++;
	return &f->qp;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex attr;
	struct ibv_qp *qp;

	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, qp_init_attr, sizeof(*qp_init_attr));
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.pd = pd;
	qp = fake_qp_new(pd->context, &attr);
	qp_init_attr->cap = attr.cap;
	return qp;
}

static struct ibv_qp *fake_create_qp_ex_op(struct ibv_context *context,
					   struct ibv_qp_init_attr_ex *attr)
{
	return fake_qp_new(context, attr);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	fake_live_qps--;
	free(fake_qp(qp));
	return 0;
}

void fake_fail_modify(enum ibv_qp_state state, int err)
{
	fail_modify_state = state;
	fail_modify_errno = err;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct fake_qp *f = fake_qp(qp);
	struct fake_qp_mod *m;

	fake_seq++;
	if (f->nmods < FAKE_MAX_MODS) {
		m = &f->mods[f->nmods++];
		m->attr = *attr;
		m->mask = attr_mask;
		m->seq = fake_seq;
	}
	if (fail_modify_errno && (attr_mask & IBV_QP_STATE) &&
	    attr->qp_state == fail_modify_state) {
		int err = fail_modify_errno;

		fail_modify_errno = 0;
		return err;
	}
	if (attr_mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

static struct ibv_srq *fake_srq_new(struct ibv_context *context,
				    struct ibv_pd *pd, void *srq_context)
{
	struct ibv_srq *srq = calloc(1, sizeof(*srq));

	if (!srq)
		return NULL;
	srq->context = context;
	srq->pd = pd;
	srq->srq_context = srq_context;
	fake_live_srqs++;
	return srq;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *srq_init_attr)
{
	return fake_srq_new(pd->context, pd, srq_init_attr->srq_context);
}

static struct ibv_srq *fake_create_srq_ex_op(struct ibv_context *context,
					     struct ibv_srq_init_attr_ex *attr)
{
	return fake_srq_new(context, attr->pd, attr->srq_context);
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	fake_live_srqs--;
	free(srq);
	return 0;
}

/* ECE: a provider without it (as rxe). */
int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

int fake_attach_errno;

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	struct fake_qp *f = fake_qp(qp);
	int err = fake_attach_errno;

	fake_attach_errno = 0;
	if (err)
		return err;
	if (f->nmcast == FAKE_MAX_MCAST)
		return ENOMEM;
	f->mcast[f->nmcast].gid = *gid;
	f->mcast[f->nmcast].lid = lid;
	f->nmcast++;
	f->attach_calls++;
	return 0;
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	struct fake_qp *f = fake_qp(qp);
	int i;

	f->detach_calls++;
	for (i = 0; i < f->nmcast; i++) {
		if (!memcmp(&f->mcast[i].gid, gid, sizeof(*gid)) &&
		    f->mcast[i].lid == lid) {
			f->mcast[i] = f->mcast[--f->nmcast];
			return 0;
		}
	}
	return EINVAL;
}
