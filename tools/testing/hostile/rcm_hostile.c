// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm_hostile: a test-only RDMA CM peer that sends what a well-behaved
 * CM never does. Never part of the product, never installed: the guest
 * selftest hostile_peer loads it from its initramfs, drives it and
 * unloads it.
 *
 * It talks to the IB CM directly (ib_cm ids, no rdma_cm), on one RoCE
 * device (module parameter ibdev), from and to the RoCE v2 GID of one of
 * the device's IPv4 addresses (parameter addr): the device's own GID, so
 * every message loops back inside the soft RoCE driver to the ib_cm of
 * the same device, where rcm's listens take them. The CMA header of a
 * REQ is whatever the scenario asks for.
 *
 * Control is a debugfs file, <debugfs>/rcm_hostile/ctl. Each write is one
 * command acting on a range of connection slots (FIRST COUNT); the write
 * returns once the command is done, or fails with its errno:
 *
 *   req FIRST COUNT KIND PS:PORT      a REQ per slot, CMA header KIND
 *   sidr FIRST COUNT KIND PS:PORT     a SIDR REQ per slot
 *   abandon FIRST COUNT KIND PS:PORT destroy|rej
 *                                     per slot: a REQ, then at once its
 *                                     destroy (ib_cm sends a REJ) or a
 *                                     REJ (the slot stays until a
 *                                     destroy or reset)
 *   rtu|rej|dreq|drep|destroy FIRST COUNT
 *   wait FIRST COUNT EVENT MS         until every slot saw EVENT, or
 *                                     ETIMEDOUT after MS milliseconds
 *   reset                             destroy every slot, zero the counts
 *
 * KIND is one of hostile_kinds[] below; PS is tcp, udp or ib; EVENT one
 * of hostile_ev_names[]. A read of ctl gives "name count" lines: REQs
 * sent, each event received, REJ reasons and SIDR statuses, since the
 * last reset.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

/*
 * 6.12 moved the unaligned accessors from asm/ to linux/ (the quotes:
 * checkpatch reads <...> in an #if as comparisons).
 */
#if __has_include("linux/unaligned.h")
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#include "rcm_testctl.h"

#define HOSTILE_SLOTS		1024
#define HOSTILE_HDR_SIZE	36
#define HOSTILE_CMD_MAX		128
/* Port spaces of the RDMA IP service IDs (IBTA annex A11). */
#define HOSTILE_PS_TCP		0x0106
#define HOSTILE_PS_UDP		0x0111
#define HOSTILE_PS_IB		0x013f
/* The REQs' packet lifetime: 2^14 * 4.096 us = 67 ms. */
#define HOSTILE_PACKET_LIFETIME	14
#define HOSTILE_WAIT_MAX_MS	120000

static char *ibdev = "rxe0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "the RoCE device to send on (default rxe0)");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "an IPv4 address of ibdev's netdev: its RoCE v2 GID is both ends' GID; the source and destination of valid headers");

static char *other;
module_param(other, charp, 0444);
MODULE_PARM_DESC(other, "an IPv4 address of another netdev, the destination of kind dst_other");

/*
 * A REQ's try lasts 2 * 67 ms (its packet lifetime) + this; a KASAN
 * guest under TCG takes seconds to work through a flood, and a sender
 * that gives up first would see no answer.
 */
static uint cm_timeout = 18;
module_param(cm_timeout, uint, 0644);
MODULE_PARM_DESC(cm_timeout, "CM response timeout of the REQs, 4.096 us * 2^value (default 18: 1.07 s)");

static uint cm_retries = 5;
module_param(cm_retries, uint, 0644);
MODULE_PARM_DESC(cm_retries, "CM retries of the REQs and SIDR REQs (default 5)");

static uint seed = 12;
module_param(seed, uint, 0644);
MODULE_PARM_DESC(seed, "seed of the random headers; slot n uses seed + n");

/* What a slot can hear from ib_cm; hostile_ev_names[] in the same order. */
enum hostile_ev {
	HOSTILE_EV_REP,
	HOSTILE_EV_REJ,
	HOSTILE_EV_MRA,
	HOSTILE_EV_REQ_ERROR,
	HOSTILE_EV_DREQ,
	HOSTILE_EV_DREP,
	HOSTILE_EV_DREQ_ERROR,
	HOSTILE_EV_TIMEWAIT,
	HOSTILE_EV_SIDR_REP,
	HOSTILE_EV_SIDR_ERROR,
	HOSTILE_EV_OTHER,
	HOSTILE_EV_NR,
};

static const char *const hostile_ev_names[HOSTILE_EV_NR] = {
	"rep", "rej", "mra", "req_error", "dreq", "drep", "dreq_error",
	"timewait", "sidr_rep", "sidr_error", "other",
};

/* Headers (and REQs) a slot can send. */
enum hostile_kind {
	HOSTILE_VALID,		/* addr to addr, as rdma_cm sends */
	HOSTILE_VERSION,	/* cma_version 1..255 */
	HOSTILE_IPVER,		/* IP version nibble neither 4 nor 6 */
	HOSTILE_SHORT,		/* 0..34 bytes of a valid header */
	HOSTILE_RANDOM,		/* 92 random bytes */
	HOSTILE_RANDOM_HDR,	/* version 0, IPv4 or IPv6, random rest */
	HOSTILE_SRC_LOOPBACK,	/* 127.0.0.1 */
	HOSTILE_SRC_ZERO,	/* 0.0.0.0 */
	HOSTILE_SRC_MCAST,	/* 224.0.0.1 */
	HOSTILE_SRC_BCAST,	/* 255.255.255.255 */
	HOSTILE_SRC_OFFNET,	/* 203.0.113.9: no route back out */
	HOSTILE_SRC_OTHERNET,	/* other + 1: another netdev's subnet */
	HOSTILE_DST_LOOPBACK,	/* dials 127.0.0.1 */
	HOSTILE_DST_BCAST,	/* dials 255.255.255.255 */
	HOSTILE_DST_OTHER,	/* dials another netdev's address */
	HOSTILE_SRC6_LOOPBACK,	/* ::1 */
	HOSTILE_SRC6_MCAST,	/* ff02::1 */
	HOSTILE_DST6_ZERO,	/* dials :: */
	HOSTILE_UC,		/* a valid header on a UC REQ */
	HOSTILE_NKINDS,
};

static const char *const hostile_kinds[HOSTILE_NKINDS] = {
	"valid", "version", "ipver", "short", "random", "random_hdr",
	"src_loopback", "src_zero", "src_mcast", "src_bcast",
	"src_offnet", "src_othernet",
	"dst_loopback", "dst_bcast", "dst_other",
	"src6_loopback", "src6_mcast", "dst6_zero", "uc",
};

/**
 * struct hostile_conn - one slot: an ib_cm id and what it heard
 * @cm_id: the ib_cm id, destroyed only under hostile_lock
 * @events: bits of enum hostile_ev, set by the handler
 */
struct hostile_conn {
	struct ib_cm_id *cm_id;
	unsigned long events;
};

/*
 * hostile_lock serialises commands and the device's arrival and
 * departure; it guards the slots, the device and its GID entry. The
 * ib_cm handler never takes it, so ib_destroy_cm_id() (which waits for
 * the handler) may run under it.
 */
static DEFINE_MUTEX(hostile_lock);
static struct hostile_conn *hostile_slots[HOSTILE_SLOTS];
static struct ib_device *hostile_dev;
static const struct ib_gid_attr *hostile_sgid;
static struct sa_path_rec hostile_path;
static __be32 hostile_addr, hostile_other;
static u32 hostile_qpn;
static DECLARE_WAIT_QUEUE_HEAD(hostile_wq);
static struct dentry *hostile_dir;

/* Counts since the last reset, read through ctl. */
static atomic_t hostile_sent;
static atomic_t hostile_send_errors;
static atomic_t hostile_ev_count[HOSTILE_EV_NR];
/* REJ reasons (ib_cm's enum ib_cm_rej_reason stays below 64). */
#define HOSTILE_REJ_REASONS	64
static atomic_t hostile_rej_reason[HOSTILE_REJ_REASONS];
/* SIDR REP statuses (enum ib_cm_sidr_status, 0..5). */
#define HOSTILE_SIDR_STATUSES	8
static atomic_t hostile_sidr_status[HOSTILE_SIDR_STATUSES];

/* The ib_cm event of each enum hostile_ev but HOSTILE_EV_OTHER. */
static const enum ib_cm_event_type hostile_ev_types[HOSTILE_EV_OTHER] = {
	[HOSTILE_EV_REP] = IB_CM_REP_RECEIVED,
	[HOSTILE_EV_REJ] = IB_CM_REJ_RECEIVED,
	[HOSTILE_EV_MRA] = IB_CM_MRA_RECEIVED,
	[HOSTILE_EV_REQ_ERROR] = IB_CM_REQ_ERROR,
	[HOSTILE_EV_DREQ] = IB_CM_DREQ_RECEIVED,
	[HOSTILE_EV_DREP] = IB_CM_DREP_RECEIVED,
	[HOSTILE_EV_DREQ_ERROR] = IB_CM_DREQ_ERROR,
	[HOSTILE_EV_TIMEWAIT] = IB_CM_TIMEWAIT_EXIT,
	[HOSTILE_EV_SIDR_REP] = IB_CM_SIDR_REP_RECEIVED,
	[HOSTILE_EV_SIDR_ERROR] = IB_CM_SIDR_REQ_ERROR,
};

static enum hostile_ev hostile_ev_of(enum ib_cm_event_type type)
{
	enum hostile_ev ev;

	for (ev = 0; ev < HOSTILE_EV_OTHER; ev++)
		if (hostile_ev_types[ev] == type)
			return ev;
	return HOSTILE_EV_OTHER;
}

static int hostile_cm_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	struct hostile_conn *c = cm_id->context;
	enum hostile_ev ev = hostile_ev_of(event->event);
	u32 v;

	if (ev == HOSTILE_EV_REJ) {
		v = event->param.rej_rcvd.reason;
		atomic_inc(&hostile_rej_reason[min_t(u32, v,
						     HOSTILE_REJ_REASONS - 1)]);
	} else if (ev == HOSTILE_EV_SIDR_REP) {
		v = event->param.sidr_rep_rcvd.status;
		atomic_inc(&hostile_sidr_status[min_t(u32, v,
						      HOSTILE_SIDR_STATUSES - 1)]);
	}
	atomic_inc(&hostile_ev_count[ev]);
	set_bit(ev, &c->events);
	wake_up_all(&hostile_wq);
	/* 0: the id stays ours, destroyed by a command or the reset. */
	return 0;
}

/* Write a CMA header of @kind for slot @n into @pd (92 bytes); its length. */
static u8 hostile_fill(u8 *pd, enum hostile_kind kind, u32 n)
{
	__be32 src = hostile_addr, dst = hostile_addr;
	struct rnd_state rnd;
	u8 len = HOSTILE_HDR_SIZE;
	bool v6 = false;

	memset(pd, 0, IB_CM_REQ_PRIVATE_DATA_SIZE);
	prandom_seed_state(&rnd, (u64)seed + n);
	switch (kind) {
	case HOSTILE_RANDOM:
		prandom_bytes_state(&rnd, pd, IB_CM_REQ_PRIVATE_DATA_SIZE);
		return IB_CM_REQ_PRIVATE_DATA_SIZE;
	case HOSTILE_RANDOM_HDR:
		prandom_bytes_state(&rnd, pd, IB_CM_REQ_PRIVATE_DATA_SIZE);
		pd[0] = 0;
		pd[1] = (n & 1 ? 0x60 : 0x40) | (pd[1] & 0x0f);
		return IB_CM_REQ_PRIVATE_DATA_SIZE;
	case HOSTILE_SRC_LOOPBACK:
		src = htonl(INADDR_LOOPBACK);
		break;
	case HOSTILE_SRC_ZERO:
		src = 0;
		break;
	case HOSTILE_SRC_MCAST:
		src = htonl(INADDR_ALLHOSTS_GROUP);
		break;
	case HOSTILE_SRC_BCAST:
		src = htonl(INADDR_BROADCAST);
		break;
	case HOSTILE_SRC_OFFNET:
		src = htonl(0xcb007109);	/* TEST-NET-3 */
		break;
	case HOSTILE_SRC_OTHERNET:
		src = htonl(ntohl(hostile_other) + 1);
		break;
	case HOSTILE_DST_LOOPBACK:
		dst = htonl(INADDR_LOOPBACK);
		break;
	case HOSTILE_DST_BCAST:
		dst = htonl(INADDR_BROADCAST);
		break;
	case HOSTILE_DST_OTHER:
		dst = hostile_other;
		break;
	case HOSTILE_SRC6_LOOPBACK:
	case HOSTILE_SRC6_MCAST:
	case HOSTILE_DST6_ZERO:
		v6 = true;
		break;
	default:
		break;
	}
	pd[0] = kind == HOSTILE_VERSION ? 1 + n % 255 : 0;
	/* 0x00, 0x10, ... 0xf0 but for 0x40 and 0x60, low nibble n. */
	if (kind == HOSTILE_IPVER)
		pd[1] = ((n % 14) + (n % 14 >= 4) + (n % 14 >= 5)) << 4 |
			(n / 14 & 0xf);
	else
		pd[1] = v6 ? 0x60 : 0x40;
	/* The header's port is the peer's source port. */
	put_unaligned_be16(0xc000 + n % 0x4000, &pd[2]);
	if (v6) {
		/* Source at 4, destination at 20: dst is addr, v4-mapped. */
		ipv6_addr_set_v4mapped(hostile_addr, (struct in6_addr *)&pd[20]);
		if (kind == HOSTILE_SRC6_LOOPBACK)
			pd[19] = 1;
		else if (kind == HOSTILE_SRC6_MCAST)
			ipv6_addr_set((struct in6_addr *)&pd[4],
				      htonl(0xff020000), 0, 0, htonl(1));
		else
			ipv6_addr_set_v4mapped(hostile_addr,
					       (struct in6_addr *)&pd[4]);
		if (kind == HOSTILE_DST6_ZERO)
			memset(&pd[20], 0, 16);
	} else {
		/* IPv4 in the last four bytes of each 16-byte field. */
		memcpy(&pd[16], &src, 4);
		memcpy(&pd[32], &dst, 4);
	}
	if (kind == HOSTILE_SHORT)
		/* Up to the first byte of the IPv4 destination. */
		len = n % (HOSTILE_HDR_SIZE - 1);
	/* A little user data after a whole header, as a client sends. */
	if (len == HOSTILE_HDR_SIZE) {
		snprintf(&pd[len], 16, "hostile %u", n);
		len += 16;
	}
	return len;
}

/* Find the RoCE v2 GID of addr on port 1 and build the loopback path. */
static int hostile_find_gid(void)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	union ib_gid gid;

	lockdep_assert_held(&hostile_lock);
	if (!hostile_dev)
		return -ENODEV;
	if (hostile_sgid)
		return 0;
	ipv6_addr_set_v4mapped(hostile_addr, (struct in6_addr *)gid.raw);
	attr = rdma_find_gid_by_port(hostile_dev, &gid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return PTR_ERR(attr);

	memset(&hostile_path, 0, sizeof(hostile_path));
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		rdma_put_gid_attr(attr);
		return PTR_ERR(ndev);
	}
	memcpy(hostile_path.roce.dmac, ndev->dev_addr, ETH_ALEN);
	hostile_path.mtu = iboe_get_mtu(ndev->mtu);
	rcu_read_unlock();

	hostile_path.rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	hostile_path.roce.route_resolved = true;
	hostile_path.sgid = gid;
	hostile_path.dgid = gid;
	hostile_path.hop_limit = 64;
	hostile_path.reversible = 1;
	hostile_path.pkey = cpu_to_be16(0xffff);
	hostile_path.mtu_selector = IB_SA_EQ;
	hostile_path.rate_selector = IB_SA_EQ;
	hostile_path.rate = IB_RATE_PORT_CURRENT;
	hostile_path.packet_life_time_selector = IB_SA_EQ;
	hostile_path.packet_life_time = HOSTILE_PACKET_LIFETIME;
	hostile_sgid = attr;
	return 0;
}

/* Parse "tcp:7471" into a service ID. */
static int hostile_parse_sid(const char *s, __be64 *sid)
{
	u16 ps, port;

	if (!strncmp(s, "tcp:", 4))
		ps = HOSTILE_PS_TCP;
	else if (!strncmp(s, "udp:", 4))
		ps = HOSTILE_PS_UDP;
	else if (!strncmp(s, "ib:", 3))
		ps = HOSTILE_PS_IB;
	else
		return -EINVAL;
	if (kstrtou16(strchr(s, ':') + 1, 0, &port))
		return -EINVAL;
	*sid = cpu_to_be64((u64)ps << 16 | port);
	return 0;
}

static int hostile_parse_kind(const char *s)
{
	int i;

	for (i = 0; i < HOSTILE_NKINDS; i++)
		if (!strcmp(s, hostile_kinds[i]))
			return i;
	return -EINVAL;
}

static void hostile_destroy(u32 slot)
{
	struct hostile_conn *c = hostile_slots[slot];

	lockdep_assert_held(&hostile_lock);
	if (!c)
		return;
	hostile_slots[slot] = NULL;
	ib_destroy_cm_id(c->cm_id);
	kfree(c);
}

static void hostile_destroy_all(void)
{
	u32 i;

	for (i = 0; i < HOSTILE_SLOTS; i++)
		hostile_destroy(i);
}

/* A new ib_cm id in @slot, which must be free. */
static struct hostile_conn *hostile_new(u32 slot)
{
	struct hostile_conn *c;

	lockdep_assert_held(&hostile_lock);
	if (hostile_slots[slot])
		return ERR_PTR(-EBUSY);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->cm_id = ib_create_cm_id(hostile_dev, hostile_cm_handler, c);
	if (IS_ERR(c->cm_id)) {
		int ret = PTR_ERR(c->cm_id);

		kfree(c);
		return ERR_PTR(ret);
	}
	hostile_slots[slot] = c;
	return c;
}

/* A REQ of @c's id for @sid, with @len bytes of private data @pd. */
static int hostile_send_req(struct hostile_conn *c, enum hostile_kind kind,
			    __be64 sid, const u8 *pd, u8 len)
{
	struct ib_cm_req_param req = {};

	/* A distinct QP number each: ib_cm refuses a live duplicate. */
	hostile_qpn = (hostile_qpn + 1) & 0xffffff;
	req.primary_path = &hostile_path;
	req.ppath_sgid_attr = hostile_sgid;
	req.service_id = sid;
	req.qp_num = 0x800000 | hostile_qpn;
	req.qp_type = kind == HOSTILE_UC ? IB_QPT_UC : IB_QPT_RC;
	req.starting_psn = hostile_qpn;
	req.private_data = pd;
	req.private_data_len = len;
	req.responder_resources = 1;
	req.initiator_depth = 1;
	req.remote_cm_response_timeout = min(cm_timeout, 31U);
	req.local_cm_response_timeout = min(cm_timeout, 31U);
	req.retry_count = 7;
	req.rnr_retry_count = 7;
	req.max_cm_retries = min(cm_retries, 15U);
	return ib_send_cm_req(c->cm_id, &req);
}

/* A SIDR REQ of @c's id for @sid, with @len bytes of private data @pd. */
static int hostile_send_sidr(struct hostile_conn *c, __be64 sid,
			     const u8 *pd, u8 len)
{
	struct ib_cm_sidr_req_param req = {
		.path = &hostile_path,
		.sgid_attr = hostile_sgid,
		.service_id = sid,
		/* Each retry after 4.096 us * 2^cm_timeout, at least 1 ms. */
		.timeout_ms = max(1UL, (4096UL << min(cm_timeout, 24U)) /
				       1000000),
		.max_cm_retries = min(cm_retries, 15U),
		.private_data = pd,
		.private_data_len = len,
	};

	return ib_send_cm_sidr_req(c->cm_id, &req);
}

/*
 * A REQ (a SIDR REQ if @sidr) with a header of @kind for @sid, from a
 * new id in @slot; counted as sent, or as a send error that frees @slot.
 */
static int hostile_send(u32 slot, enum hostile_kind kind, __be64 sid,
			bool sidr)
{
	u8 pd[IB_CM_REQ_PRIVATE_DATA_SIZE];
	struct hostile_conn *c;
	u8 len;
	int ret;

	c = hostile_new(slot);
	if (IS_ERR(c))
		return PTR_ERR(c);
	len = hostile_fill(pd, kind, slot);
	if (sidr)
		ret = hostile_send_sidr(c, sid, pd, len);
	else
		ret = hostile_send_req(c, kind, sid, pd, len);
	if (ret) {
		atomic_inc(&hostile_send_errors);
		hostile_destroy(slot);
		return ret;
	}
	atomic_inc(&hostile_sent);
	return 0;
}

/* One of rtu, rej, dreq, drep on an existing slot. */
static int hostile_send_msg(u32 slot, const char *op)
{
	struct hostile_conn *c = hostile_slots[slot];

	if (!c)
		return -ENOENT;
	if (!strcmp(op, "rtu"))
		return ib_send_cm_rtu(c->cm_id, NULL, 0);
	if (!strcmp(op, "rej"))
		return ib_send_cm_rej(c->cm_id, IB_CM_REJ_CONSUMER_DEFINED,
				      NULL, 0, "hostile", 8);
	if (!strcmp(op, "dreq"))
		return ib_send_cm_dreq(c->cm_id, NULL, 0);
	if (!strcmp(op, "drep"))
		return ib_send_cm_drep(c->cm_id, NULL, 0);
	return -EINVAL;
}

static bool hostile_all_saw(u32 first, u32 count, enum hostile_ev ev)
{
	u32 i;

	for (i = first; i < first + count; i++)
		if (!hostile_slots[i] || !test_bit(ev, &hostile_slots[i]->events))
			return false;
	return true;
}

static int hostile_wait(u32 first, u32 count, const char *name, u32 ms)
{
	long left;
	int ev;

	for (ev = 0; ev < HOSTILE_EV_NR; ev++)
		if (!strcmp(name, hostile_ev_names[ev]))
			break;
	if (ev == HOSTILE_EV_NR || ms > HOSTILE_WAIT_MAX_MS)
		return -EINVAL;
	left = wait_event_interruptible_timeout(hostile_wq,
						hostile_all_saw(first, count, ev),
						msecs_to_jiffies(ms));
	if (left < 0)
		return left;
	return left ? 0 : -ETIMEDOUT;
}

static void hostile_reset(void)
{
	int i;

	hostile_destroy_all();
	atomic_set(&hostile_sent, 0);
	atomic_set(&hostile_send_errors, 0);
	for (i = 0; i < HOSTILE_EV_NR; i++)
		atomic_set(&hostile_ev_count[i], 0);
	for (i = 0; i < HOSTILE_REJ_REASONS; i++)
		atomic_set(&hostile_rej_reason[i], 0);
	for (i = 0; i < HOSTILE_SIDR_STATUSES; i++)
		atomic_set(&hostile_sidr_status[i], 0);
}

/* Run one command line; hostile_lock held. */
static int hostile_run(char *line)
{
	char op[16], a[24], b[24], mode[16];
	u32 first, count, i, ms;
	__be64 sid;
	int kind, n, ret = 0;

	n = sscanf(line, "%15s %u %u %23s %23s %15s", op, &first, &count, a,
		   b, mode);
	if (n >= 1 && !strcmp(op, "reset")) {
		hostile_reset();
		return 0;
	}
	if (n < 3 || first >= HOSTILE_SLOTS || count > HOSTILE_SLOTS - first)
		return -EINVAL;
	ret = hostile_find_gid();
	if (ret)
		return ret;

	if (!strcmp(op, "wait")) {
		if (n != 5 || kstrtou32(b, 0, &ms))
			return -EINVAL;
		return hostile_wait(first, count, a, ms);
	}
	if (!strcmp(op, "destroy")) {
		for (i = first; i < first + count; i++)
			hostile_destroy(i);
		return 0;
	}
	if (!strcmp(op, "req") || !strcmp(op, "sidr") ||
	    !strcmp(op, "abandon")) {
		if (n < 5)
			return -EINVAL;
		kind = hostile_parse_kind(a);
		if (kind < 0 || hostile_parse_sid(b, &sid))
			return -EINVAL;
		if (!strcmp(op, "abandon") &&
		    (n != 6 || (strcmp(mode, "destroy") && strcmp(mode, "rej"))))
			return -EINVAL;
		for (i = first; i < first + count && !ret; i++) {
			ret = hostile_send(i, kind, sid, op[0] == 's');
			if (ret || op[0] != 'a')
				continue;
			/*
			 * ib_cm's REJ leaves the REQ's MAD to its retries,
			 * which a destroy would wait for: a rejected slot
			 * stays until the next destroy or reset.
			 */
			if (mode[0] == 'r')
				ret = hostile_send_msg(i, "rej");
			else
				hostile_destroy(i);
		}
		return ret;
	}
	for (i = first; i < first + count && !ret; i++)
		ret = hostile_send_msg(i, op);
	return ret;
}

/* A control file's command line, under hostile_lock. */
static int hostile_ctl_run(char *line)
{
	int ret;

	mutex_lock(&hostile_lock);
	ret = hostile_run(line);
	mutex_unlock(&hostile_lock);
	return ret;
}

/* The control file's report: the counts, and the reasons seen. */
static int hostile_ctl_show(char *buf, size_t size)
{
	size_t n = 0;
	int i, v;

	n += scnprintf(buf + n, size - n, "sent %d\nsend_errors %d\n",
		       atomic_read(&hostile_sent),
		       atomic_read(&hostile_send_errors));
	for (i = 0; i < HOSTILE_EV_NR; i++)
		n += scnprintf(buf + n, size - n, "%s %d\n",
			       hostile_ev_names[i],
			       atomic_read(&hostile_ev_count[i]));
	for (i = 0; i < HOSTILE_REJ_REASONS; i++) {
		v = atomic_read(&hostile_rej_reason[i]);
		if (v)
			n += scnprintf(buf + n, size - n, "rej_reason_%d %d\n",
				       i, v);
	}
	for (i = 0; i < HOSTILE_SIDR_STATUSES; i++) {
		v = atomic_read(&hostile_sidr_status[i]);
		if (v)
			n += scnprintf(buf + n, size - n, "sidr_status_%d %d\n",
				       i, v);
	}
	return n;
}

DEFINE_RCM_TESTCTL(hostile, HOSTILE_CMD_MAX, hostile_ctl_run, 2048,
		   hostile_ctl_show);

/* ib_core: a device arrived; hostile_dev is the one named ibdev. */
static int hostile_add_one(struct ib_device *device)
{
	int ret = -EOPNOTSUPP;

	mutex_lock(&hostile_lock);
	if (!hostile_dev && !strcmp(dev_name(&device->dev), ibdev) &&
	    rdma_protocol_roce(device, 1)) {
		hostile_dev = device;
		ret = 0;
	}
	mutex_unlock(&hostile_lock);
	return ret;
}

/* ib_core: our device leaves; nothing of it may outlive this call. */
static void hostile_remove_one(struct ib_device *device, void *client_data)
{
	mutex_lock(&hostile_lock);
	hostile_destroy_all();
	if (hostile_sgid)
		rdma_put_gid_attr(hostile_sgid);
	hostile_sgid = NULL;
	hostile_dev = NULL;
	mutex_unlock(&hostile_lock);
}

static struct ib_client hostile_client = {
	.name = "rcm_hostile",
	.add = hostile_add_one,
	.remove = hostile_remove_one,
};

static int __init hostile_init(void)
{
	int ret;

	if (!addr || !in4_pton(addr, -1, (u8 *)&hostile_addr, -1, NULL)) {
		pr_err("addr=A.B.C.D is required\n");
		return -EINVAL;
	}
	if (other && !in4_pton(other, -1, (u8 *)&hostile_other, -1, NULL))
		return -EINVAL;
	hostile_dir = debugfs_create_dir("rcm_hostile", NULL);
	debugfs_create_file("ctl", 0600, hostile_dir, NULL, &hostile_ctl_fops);
	ret = ib_register_client(&hostile_client);
	if (ret)
		debugfs_remove_recursive(hostile_dir);
	return ret;
}

static void __exit hostile_exit(void)
{
	/* No command runs once the file is gone; then the device goes. */
	debugfs_remove_recursive(hostile_dir);
	ib_unregister_client(&hostile_client);
}

module_init(hostile_init);
module_exit(hostile_exit);

MODULE_DESCRIPTION("rcm test peer that sends malformed and abusive CM traffic");
MODULE_LICENSE("GPL");
