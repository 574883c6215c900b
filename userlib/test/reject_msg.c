// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * reject_msg: rdma_reject_msg() describes REJECTED statuses: IB CM REJ
 * reasons (positive) with the kernel's wording, iWARP -ECONNREFUSED,
 * -ECONNRESET and -ETIMEDOUT, and "unrecognized reason" for the rest. The
 * transport comes from the id's device when there is one, else from the
 * sign of the status.
 */
#include <errno.h>
#include <limits.h>

#include <rdma/rcm.h>

#include "helpers.h"

#define UNRECOGNIZED "unrecognized reason"

static struct rdma_cm_id *make_id(struct rdma_cm_id *id,
				  struct ibv_context *ctx,
				  struct ibv_device *dev,
				  enum ibv_transport_type transport)
{
	memset(id, 0, sizeof(*id));
	memset(ctx, 0, sizeof(*ctx));
	memset(dev, 0, sizeof(*dev));
	dev->transport_type = transport;
	ctx->device = dev;
	id->verbs = ctx;
	return id;
}

int main(int argc, char *argv[])
{
	static const int ib_undefined[] = { 0, 34, 36, 255, INT_MAX };
	static const int iw_undefined[] = { -EINVAL, -1, 0, INT_MIN };
	struct rdma_cm_id id, unbound = { 0 };
	struct ibv_context ctx;
	struct ibv_device dev;
	const char *msgs[36];
	unsigned int i, j;

	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_reject_msg);

	/* No id: the sign decides. */
	T_CHECK_STR(rdma_reject_msg(NULL, 28), "consumer defined");
	T_CHECK_STR(rdma_reject_msg(NULL, 1), "no QP");
	T_CHECK_STR(rdma_reject_msg(NULL, 8), "invalid service ID");
	T_CHECK_STR(rdma_reject_msg(NULL, 10), "stale conn");
	T_CHECK_STR(rdma_reject_msg(NULL, 33), "invalid alt flow label");
	T_CHECK_STR(rdma_reject_msg(NULL, 35),
		    "vendor option is not supported");
	T_CHECK_STR(rdma_reject_msg(NULL, -ECONNREFUSED),
		    "refused by remote application");
	T_CHECK_STR(rdma_reject_msg(NULL, -ECONNRESET),
		    "reset by remote host");
	T_CHECK_STR(rdma_reject_msg(NULL, -ETIMEDOUT), "setup timeout");
	for (i = 0; i < ARRAY_SIZE(ib_undefined); i++)
		T_CHECK_STR(rdma_reject_msg(NULL, ib_undefined[i]),
			    UNRECOGNIZED);
	for (i = 0; i < ARRAY_SIZE(iw_undefined); i++)
		T_CHECK_STR(rdma_reject_msg(NULL, iw_undefined[i]),
			    UNRECOGNIZED);

	/* Every IB reason but the unassigned 34 has its own message. */
	for (i = 1; i <= 35; i++) {
		msgs[i] = rdma_reject_msg(NULL, i);
		T_CHECK(msgs[i] != NULL);
		if (i == 34 || !msgs[i])
			continue;
		T_CHECK(strcmp(msgs[i], UNRECOGNIZED));
		for (j = 1; j < i; j++)
			if (j != 34)
				T_CHECK(strcmp(msgs[i], msgs[j]));
	}

	/* An unbound id is like no id. */
	T_CHECK_STR(rdma_reject_msg(&unbound, 28), "consumer defined");
	T_CHECK_STR(rdma_reject_msg(&unbound, -ECONNRESET),
		    "reset by remote host");

	/* The device's transport wins over the sign. */
	make_id(&id, &ctx, &dev, IBV_TRANSPORT_IWARP);
	T_CHECK_STR(rdma_reject_msg(&id, -ECONNREFUSED),
		    "refused by remote application");
	T_CHECK_STR(rdma_reject_msg(&id, 28), UNRECOGNIZED);
	make_id(&id, &ctx, &dev, IBV_TRANSPORT_IB);
	T_CHECK_STR(rdma_reject_msg(&id, 28), "consumer defined");
	T_CHECK_STR(rdma_reject_msg(&id, -ECONNREFUSED), UNRECOGNIZED);
	make_id(&id, &ctx, &dev, IBV_TRANSPORT_UNKNOWN);
	T_CHECK_STR(rdma_reject_msg(&id, 28), "consumer defined");
	T_CHECK_STR(rdma_reject_msg(&id, -ECONNRESET), "reset by remote host");

	return t_exit();
}
