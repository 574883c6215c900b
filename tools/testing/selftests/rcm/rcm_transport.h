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
 * through iw_cm, each case with a real RC QP for either end (rcm_verbs.h)
 * on the variant's device: iw_cm hands the connection to the QPs named
 * in connect and accept; ib_cm never looks at them, but a case that
 * sends over the connection readies them. What differs between the two
 * is said here once, as the variant's facts:
 *
 * - A refusal is a REJ on RoCE (its reason in the status, the private
 *   data padded to the REJ's area) and the driver's errno on iWARP
 *   (siw: -ECONNREFUSED for a TCP RST, -ECONNRESET for an MPA reject;
 *   the private data as sent).
 * - @padded: private data arrives padded to the area of its IB CM
 *   message (REQ, REP, REJ); MPA carries the bytes as sent.
 * - @rtu: the IB CM's three-way handshake. The REQ and REP carry the
 *   QP numbers, retry counts and PSNs each side's QP needs for RTR and
 *   RTS (rcm's attribute sets), and the active side answers the
 *   CONNECT_RESPONSE with its RTU (RCM_IOCTL_ESTABLISH). MPA carries
 *   none of them: iw_cm moves the QPs itself, and the active side's
 *   reply is ESTABLISHED.
 * - @dreq: a DISCONNECT is a DREQ, which ends the sender's side only
 *   once the peer answers with its own DISCONNECT (the DREP), and both
 *   sides leave timewait after; on iWARP each side's own close ends it.
 */
FIXTURE(transport) {
	const char *ip;
	struct rcm_end ce;	/* the client's QP */
	struct rcm_end se;	/* the server's QP */
	unsigned int cqpn;	/* the client's QP number */
};

FIXTURE_VARIANT(transport) {
	const char *addr;	/* the guest's variable naming the address */
	const char *addr6;	/* the same, of its IPv6 address */
	bool iwarp;
	enum ibv_transport_type verbs;	/* its devices' in libibverbs */
	/*
	 * With no listener: the REJECTED status (IB CM), or the connect's
	 * own errno (iWARP: siw connects TCP inside the call).
	 */
	int nobody_listens;
	int rejected;		/* REJECTED status of a consumer reject */
	unsigned int reject_max;	/* private data a reject carries */
	unsigned int accept_max;	/* and an accept */
	bool padded;
	bool rtu;
	bool dreq;
	int notify_up;		/* RCM_IOCTL_NOTIFY's errno once it is up */
	int notify_other;	/* ... for another event (LID_CHANGE) */
	unsigned int paths;	/* of a request id */
	/* The in-tree peers need a QP of their own: iw_cm hands it over. */
	bool intree_qp;
};

FIXTURE_VARIANT_ADD(transport, rxe) {
	.addr = "RCM_ADDR_RXE",
	.addr6 = "RCM_ADDR6_RXE",
	.verbs = IBV_TRANSPORT_IB,
	.nobody_listens = REJ_INVALID_SERVICE_ID,
	.rejected = RCM_REJ_CONSUMER_DEFINED,
	.reject_max = RCM_REJECT_PRIVATE_DATA_MAX,
	.accept_max = RCM_ACCEPT_PRIVATE_DATA_MAX,
	.padded = true,
	.rtu = true,
	.dreq = true,
	/* As in-tree (ib_cm): the connection is up already. */
	.notify_up = EISCONN,
	/* ib_cm takes COMM_EST and PATH_MIG only. */
	.notify_other = EINVAL,
	.paths = 1,
};

FIXTURE_VARIANT_ADD(transport, siw) {
	.addr = "RCM_ADDR_SIW",
	.addr6 = "RCM_ADDR6_SIW",
	.iwarp = true,
	.verbs = IBV_TRANSPORT_IWARP,
	.nobody_listens = ECONNREFUSED,
	.rejected = -ECONNRESET,
	.reject_max = RCM_IWARP_PRIVATE_DATA_MAX,
	.accept_max = RCM_IWARP_PRIVATE_DATA_MAX,
	/* As in-tree: iWARP has no RTU for a notify to stand in for. */
	.notify_up = 0,
	/* iw_cm takes every event, and does nothing. */
	.notify_other = 0,
	.paths = 0,
	.intree_qp = true,
};

FIXTURE_SETUP(transport)
{
	self->ip = getenv(variant->addr);
	if (!self->ip)
		SKIP_SETUP("no %s device", variant->iwarp ? "soft-iWARP" :
			   "Soft-RoCE");
	ASSERT_EQ(0, rcm_end_pair_open(&self->ce, &self->se, variant->verbs))
		TH_LOG("verbs: %s", strerror(errno));
	self->cqpn = self->ce.qp->qp_num;
}

FIXTURE_TEARDOWN(transport)
{
	rcm_end_close(&self->ce);
	rcm_end_close(&self->se);
}

/* A client id on @fd routed to @ip and @port, its QP in INIT. */
static inline unsigned int client_id_to(struct __test_metadata *_metadata,
					FIXTURE_DATA(transport) *self, int fd,
					const char *ip, unsigned short port)
{
	unsigned int id = rcm_routed_id(fd, ip, port, 0xc1);

	ASSERT_NE(0, id)
		TH_LOG("route to %s: %s", ip, strerror(errno));
	ASSERT_EQ(0, rcm_end_init(&self->ce, fd, id))
		TH_LOG("QP: %s", strerror(errno));
	return id;
}

/* The same to the case's address. */
static inline unsigned int client_id(struct __test_metadata *_metadata,
				     FIXTURE_DATA(transport) *self, int fd,
				     unsigned short port)
{
	return client_id_to(_metadata, self, fd, self->ip, port);
}

/*
 * A case's two files: *@s listening on the case's address at a port
 * bind chose (left in *@port, if not NULL; its listener's handle in
 * *@lid, if not NULL), *@c with a client id routed there, its QP in
 * INIT; returns the client id.
 */
static inline unsigned int listener_and_client(struct __test_metadata *_metadata,
					       FIXTURE_DATA(transport) *self,
					       unsigned short *port, int *s,
					       int *c, unsigned int *lid)
{
	unsigned short p = 0;
	unsigned int l;

	*s = rcm_open_dev();
	*c = rcm_open_dev();
	l = rcm_listener(*s, self->ip, &p, 0x11, 0);
	ASSERT_NE(0, l)
		TH_LOG("listen: %s", strerror(errno));
	if (lid)
		*lid = l;
	if (port)
		*port = p;
	return client_id(_metadata, self, *c, p);
}

/* How many bytes of private data @len bytes in a message of @area make. */
static inline unsigned int
arrives(const FIXTURE_VARIANT(transport) *variant, unsigned int len,
	unsigned int area)
{
	return variant->padded ? area : len;
}

/*
 * A CONNECT_REQUEST @ev as the peer sent it: @len bytes of @data first
 * (padded to the REQ's area on RoCE, no CMA header), and at least one
 * RDMA read each way.
 */
static inline void request_as_sent(struct __test_metadata *_metadata,
				   const FIXTURE_VARIANT(transport) *variant,
				   const struct rcm_event *ev,
				   const void *data, unsigned int len)
{
	unsigned int want = arrives(variant, len,
				    RCM_CONNECT_PRIVATE_DATA_MAX);

	ASSERT_TRUE(ev->private_data_len == want &&
		    !memcmp(ev->private_data, data, len))
		TH_LOG("request data '%.56s' len %u, want %u", ev->private_data,
		       ev->private_data_len, want);
	ASSERT_TRUE(ev->conn.initiator_depth >= 1 &&
		    ev->conn.responder_resources >= 1)
		TH_LOG("request depths %u/%u", ev->conn.initiator_depth,
		       ev->conn.responder_resources);
}

/* The event that tells the active side its connect was accepted. */
static inline unsigned int
accepted_event(const FIXTURE_VARIANT(transport) *variant)
{
	return variant->rtu ? RCM_EVENT_CONNECT_RESPONSE :
			      RCM_EVENT_ESTABLISHED;
}

/*
 * End a connection from one side, @a's id @aid, whose peer is @b's id
 * @bid: the peer hears DISCONNECTED, and answers with a DISCONNECT of
 * its own (@dreq: the DREP, which ends @a's side, then both sides leave
 * timewait; iWARP: once more, harmless, @a's side being closed by its
 * own). Then neither side hears anything more.
 */
static inline void disconnect_from(struct __test_metadata *_metadata,
				   const FIXTURE_VARIANT(transport) *variant,
				   int a, unsigned int aid, int b,
				   unsigned int bid)
{
	struct rcm_event ev;

	ASSERT_EQ(0, rcm_simple(a, RCM_IOCTL_DISCONNECT, aid))
		TH_LOG("disconnect: %s", strerror(errno));
	ASSERT_EQ(0, rcm_expect_event(b, RCM_EVENT_DISCONNECTED, &ev))
		TH_LOG("the peer: no DISCONNECTED");
	ASSERT_EQ(bid, ev.id)
		TH_LOG("DISCONNECTED on id %u", ev.id);
	if (!variant->dreq) {
		ASSERT_EQ(0, rcm_expect_event(a, RCM_EVENT_DISCONNECTED, &ev))
			TH_LOG("no DISCONNECTED");
	}
	ASSERT_EQ(0, rcm_simple(b, RCM_IOCTL_DISCONNECT, bid))
		TH_LOG("the peer's disconnect: %s", strerror(errno));
	if (variant->dreq) {
		ASSERT_EQ(0, rcm_expect_event(a, RCM_EVENT_DISCONNECTED, &ev))
			TH_LOG("no DISCONNECTED after the DREP");
	}
	ASSERT_TRUE(ev.id == aid && ev.status == 0)
		TH_LOG("DISCONNECTED on id %u status %d", ev.id, ev.status);
	if (variant->dreq) {
		ASSERT_EQ(0, rcm_expect_event(a, RCM_EVENT_TIMEWAIT_EXIT, &ev))
			TH_LOG("no timewait");
		ASSERT_EQ(0, rcm_expect_event(b, RCM_EVENT_TIMEWAIT_EXIT, &ev))
			TH_LOG("the peer: no timewait");
	}
	ASSERT_TRUE(rcm_wait_event(a, 500, &ev) && rcm_wait_event(b, 500, &ev))
		TH_LOG("event %u after the disconnect", ev.event);
}

#endif /* RCM_TRANSPORT_H */
