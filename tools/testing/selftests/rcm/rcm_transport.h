/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The transport fixture of the selftests whose cases run on both RDMA
 * transports (connect.c, listen.c): included by one program each, after
 * rcm_harness.h. TEST_F(transport, name) runs a case once per variant.
 */
#ifndef RCM_TRANSPORT_H
#define RCM_TRANSPORT_H

#include "rcm_verbs.h"

/* IB CM reject reason: no listener on the service ID. */
#define REJ_INVALID_SERVICE_ID 8

/*
 * The transports a case runs on: Soft-RoCE through ib_cm and soft-iWARP
 * through iw_cm. iw_cm hands the connection to the QP named in connect,
 * so the iWARP client has a real one (rcm_verbs.h); ib_cm never looks at
 * it, so on RoCE a number stands in. A refusal is a REJ on RoCE (its
 * reason in the status, the private data padded to the REJ's area) and
 * the driver's errno on iWARP (siw: -ECONNREFUSED for a TCP RST,
 * -ECONNRESET for an MPA reject; the private data as sent).
 */
FIXTURE(transport) {
	const char *ip;
	struct rcm_end ce;	/* the client's QP: iWARP only */
	unsigned int cqpn;
};

FIXTURE_VARIANT(transport) {
	const char *addr;	/* the guest's variable naming the address */
	bool iwarp;
	int nobody_listens;	/* REJECTED status with no listener */
	int rejected;		/* REJECTED status of a consumer reject */
	unsigned short port;	/* the first of the ports its cases use */
};

FIXTURE_VARIANT_ADD(transport, rxe) {
	.addr = "RCM_ADDR_RXE",
	.nobody_listens = REJ_INVALID_SERVICE_ID,
	.rejected = RCM_REJ_CONSUMER_DEFINED,
	.port = 20190,
};

FIXTURE_VARIANT_ADD(transport, siw) {
	.addr = "RCM_ADDR_SIW",
	.iwarp = true,
	.nobody_listens = -ECONNREFUSED,
	.rejected = -ECONNRESET,
	.port = 20590,
};

FIXTURE_SETUP(transport)
{
	self->ip = getenv(variant->addr);
	if (!self->ip)
		SKIP_SETUP("no %s device", variant->iwarp ? "soft-iWARP" :
			   "Soft-RoCE");
	self->cqpn = 0x33;
	if (!variant->iwarp)
		return;
	ASSERT_EQ(0, rcm_end_open(&self->ce, IBV_TRANSPORT_IWARP, IBV_QPT_RC))
		TH_LOG("verbs: %s", strerror(errno));
	self->cqpn = self->ce.qp->qp_num;
}

FIXTURE_TEARDOWN(transport)
{
	rcm_end_close(&self->ce);
}

/* A client id on @fd routed to the case's address and @port, its QP ready. */
static unsigned int client_id(struct __test_metadata *_metadata,
			      FIXTURE_DATA(transport) *self,
			      const FIXTURE_VARIANT(transport) *variant,
			      int fd, unsigned short port)
{
	unsigned int id = rcm_routed_id(fd, self->ip, port, 0xc1);

	ASSERT_NE(0, id)
		TH_LOG("route: %s", strerror(errno));
	if (variant->iwarp) {
		ASSERT_EQ(0, rcm_end_init(&self->ce, fd, id))
			TH_LOG("QP: %s", strerror(errno));
	}
	return id;
}

#endif /* RCM_TRANSPORT_H */
