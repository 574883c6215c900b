// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm_ibfab: a test-only InfiniBand fabric inside one kernel. Never part
 * of the product, never installed: guest tests load it from their
 * initramfs, drive it and unload it.
 *
 * It registers ndevs (default 2) ib_devices ibfab0, ibfab1, ... with one
 * port each, link layer InfiniBand, port ACTIVE and LinkUp, LID index + 1,
 * P_Key table {0xffff, 0x8001}, GID table {fe80::/64 + the device's GUID}
 * and the SM LID IBFAB_SM_LID, which no device has: what is sent there
 * reaches the fabric's own small subnet administrator. Memory is virtual (no
 * DMA device): an SGE's address is a kernel virtual address.
 *
 * The verbs are those ib_mad, ib_sa and ib_cm use: PDs, CQs, QPs of type
 * SMI (QP0), GSI (QP1) and UD, address handles, sends and receives. A
 * send is copied at post time into a packet; an ordered workqueue takes
 * the packets in order and delivers each to the QP of its destination
 * LID and QPN as a receive completion (the first 40 bytes of the receive
 * buffer hold the GRH, filled when the sender's AH has one), then
 * completes the send. A receive that finds no posted buffer, a wrong
 * Q_Key or an unknown LID or QP is dropped, as on a wire. Completions
 * are never made in the poster's context; a CQ's handler runs with bottom
 * halves off, as from an interrupt, so that NAPI users (ib_ipoib) poll.
 *
 * UD QPs attach to multicast groups (attach_mcast): a send to a multicast
 * LID (0xc000 up, QPN 0xffffff) reaches every QP attached to that LID but
 * the sender's. That and UD data sends of up to 4096 bytes are what
 * ib_ipoib needs to run its netdevs ib0, ib1, ... on the fabric: its
 * broadcast group join (MGID ff12:401b:ffff::ffff:ffff) is an SA join
 * like any other, its neighbours' paths SA PathRecords.
 *
 * The SA answers SubnAdm Get/GetTable PathRecord (one record, from the two
 * ports' GIDs and LIDs: SL 0, MTU 4096, 100 Gb/s, packet lifetime 14, the
 * query's P_Key of the two or 0xffff, reversible), Set/Delete/Get
 * MCMemberRecord (groups with an MGID given or allocated, an MLID from
 * 0xc000 up, the Q_Key of the creating join or 0x80010000, its P_Key or
 * 0xffff), and Get
 * ClassPortInfo. Other queries are answered "method/attribute not
 * supported".
 *
 * Control is a debugfs file, <debugfs>/rcm_ibfab/ctl. Each write is one
 * command; it returns once the command is done, or fails with its errno:
 *
 *   sa delay MS           answer every SA query MS milliseconds late
 *   sa drop N             drop the next N SA queries
 *   sa status CODE [N]    answer the next N (1) queries with MAD status CODE
 *   sa path KEY N...      PathRecords from now on with sl, mtu (enum
 *                         ib_mtu), rate (enum ib_rate) or life (packet
 *                         lifetime) N instead of 0, 5, 16, 14
 *   sa reset              undo the above and zero the counters
 *   pathq SRC DST [MS]    ib_sa_path_rec_get() on ibfabSRC for ibfabDST's
 *                         GID, MS (default 2000) ms timeout; fails with
 *                         the query's status
 *   cmtest SRC DST        an ib_cm REQ/REP/RTU then DREQ/DREP from
 *                         ibfabSRC to a listen on ibfabDST on the path
 *                         pathq finds (the CM messages name QP numbers,
 *                         no QP stands behind them)
 *   cmreq SRC DST SID HEX an ib_cm REQ from ibfabSRC to service ID SID
 *                         (hex) on ibfabDST, private data HEX ("-":
 *                         none) as given: "rej REASON" or "rep"
 *   mcjoin DEV...         ib_sa_join_multicast() of each DEV to one
 *                         group whose MGID the SA assigns, then the leaves
 *   ipres SRC DST         rdma_resolve_ip() from IPv4 SRC to DST (over
 *                         IPoIB netdevs): device type, GIDs and P_Key
 *
 * A read gives "name value" lines: the fabric's and the SA's counters
 * since the last reset, the SA's settings and its multicast group count,
 * then "last: " and the last command's result line (which the kernel log
 * also gets).
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
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>

#include "rcm_testctl.h"

#define IBFAB_MAX_DEVS		16
#define IBFAB_SM_LID		0x00fe
#define IBFAB_SUBNET_PREFIX	0xfe80000000000000ULL
/* Locally administered GUIDs: 02:00:fa:b0:00:00:00:<index + 1>. */
#define IBFAB_GUID_BASE		0x0200fab000000000ULL
#define IBFAB_PKEY		0xffff
/* A second partition, so that a P_Key's index can be other than 0. */
#define IBFAB_PKEY2		0x8001
#define IBFAB_NUM_PKEYS		2
#define IBFAB_GRH_BYTES		40
#define IBFAB_MAX_SGE		4
#define IBFAB_MAX_WR		4096
#define IBFAB_MAX_CQE		65536
#define IBFAB_MAX_MSG		4096
#define IBFAB_MAX_UD_QPN	0xffffff
#define IBFAB_MC_GROUPS		64
#define IBFAB_MC_MEMBERS	IBFAB_MAX_DEVS
#define IBFAB_MLID_BASE		0xc000
#define IBFAB_DEFAULT_QKEY	0x80010000
/* The SA's answers: 2^14 * 4.096 us = 67 ms packet lifetime. */
#define IBFAB_PACKET_LIFE	14
#define IBFAB_SA_RESP_TIME	18
/* SA MAD status, class-specific bits (IBA 15.2.1.1). */
#define IB_SA_STATUS_NO_RESOURCES	0x0100
#define IB_SA_STATUS_REQ_INVALID	0x0200
#define IB_SA_STATUS_NO_RECORDS		0x0300
#define IBFAB_CMD_MAX		128
#define IBFAB_LAST_MAX		256
#define IBFAB_CM_SERVICE_ID	0x0000000001fab000ULL
/* Bounds only a hang reaches. */
#define IBFAB_CM_WAIT_MS	60000
#define IBFAB_SA_SLACK_MS	60000

/*
 * Kernel differences, found in the headers by Kbuild (6.1 has neither,
 * 6.12 both): create_cq given a uverbs_attr_bundle instead of udata, and
 * the path record callback's count unsigned.
 */
#ifdef IBFAB_CQ_ATTRS
#define IBFAB_CQ_UARG struct uverbs_attr_bundle *attrs
#define IBFAB_CQ_USER (!!attrs)
#else
#define IBFAB_CQ_UARG struct ib_udata *udata
#define IBFAB_CQ_USER (!!udata)
#endif
#ifdef IBFAB_NUM_PRS_UNSIGNED
#define IBFAB_NPRS unsigned int
#else
#define IBFAB_NPRS int
#endif

static unsigned int ndevs = 2;
module_param(ndevs, uint, 0444);
MODULE_PARM_DESC(ndevs, "number of ib_devices ibfab0.. (1 to 16, default 2)");

struct ibfab_dev {
	struct ib_device ibdev;
	unsigned int index;
	u16 lid;
	bool live;			/* reachable by LID; fab.lock */
	spinlock_t port_lock;		/* port_cap_flags */
	u32 port_cap_flags;
	struct xarray qps;		/* qpn -> ibfab_qp; fab.lock */
	u32 next_qpn;
};

struct ibfab_pd {
	struct ib_pd ibpd;
};

struct ibfab_mr {
	struct ib_mr ibmr;
};

struct ibfab_ah {
	struct ib_ah ibah;
	u16 dlid;
	u8 sl;
	bool grh;
	union ib_gid dgid;
	u32 flow_label;
	u8 hop_limit;
	u8 tclass;
};

struct ibfab_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* everything below */
	struct ib_wc *ring;
	unsigned int size;
	unsigned int head;
	unsigned int count;
	bool armed;
};

struct ibfab_rwqe {
	u64 wr_id;
	unsigned int num_sge;
	struct ib_sge sge[IBFAB_MAX_SGE];
};

struct ibfab_qp {
	struct ib_qp ibqp;
	u64 serial;
	bool sig_all;
	spinlock_t lock;		/* everything below */
	enum ib_qp_state state;
	u32 qkey;
	u16 pkey_index;
	u32 sq_psn;
	struct ibfab_rwqe *rq;
	unsigned int rq_size;
	unsigned int rq_head;
	unsigned int rq_count;
};

enum ibfab_pkt_kind {
	IBFAB_PKT_SEND,		/* deliver, then complete the send */
	IBFAB_PKT_SEND_FLUSH,	/* complete the send with a flush error */
	IBFAB_PKT_RQ_FLUSH,	/* flush the QP's posted receives */
	IBFAB_PKT_SA,		/* an SA answer: deliver only */
};

struct ibfab_pkt {
	struct list_head list;
	enum ibfab_pkt_kind kind;
	unsigned long due;		/* SA answers: jiffies */
	/* source QP, for its send completion */
	struct ibfab_dev *src;
	u32 src_qpn;
	u64 src_serial;
	u64 wr_id;
	bool signaled;
	enum ib_wc_opcode opcode;
	/* what the wire carries */
	u16 slid;
	u16 dlid;
	u8 sl;
	u32 sqpn;
	u32 dqpn;
	u32 qkey;
	bool has_grh;
	bool has_imm;
	__be32 imm;
	struct ib_grh grh;
	u32 len;
	u8 data[];
};

struct ibfab_mc_group {
	bool used;
	union ib_gid mgid;
	u16 mlid;
	u32 qkey;
	u16 pkey;
	u8 sl;
	u8 tclass;
	u32 flow_label;
	u8 scope;
	union ib_gid member[IBFAB_MC_MEMBERS];
	u8 member_state[IBFAB_MC_MEMBERS];
};

struct ibfab_counters {
	u64 sent;
	u64 delivered;
	u64 drop_no_lid;
	u64 drop_no_qp;
	u64 drop_qkey;
	u64 drop_no_recv;
	u64 drop_smp;
	u64 cq_overflow;
	u64 sa_queries;
	u64 sa_answered;
	u64 sa_dropped;
	u64 sa_status;
	u64 sa_unsupported;
};

static struct ibfab {
	struct ibfab_dev *devs[IBFAB_MAX_DEVS];
	unsigned int ndevs;
	struct workqueue_struct *wq;
	struct work_struct work;
	spinlock_t qlock;		/* queue, sa_pending, closing */
	struct list_head queue;
	struct list_head sa_pending;
	bool closing;
	bool sa_armed;			/* sa_work's timer, due at sa_next */
	unsigned long sa_next;
	struct delayed_work sa_work;
	struct mutex lock;		/* delivery, QP tables, SA state */
	struct ibfab_counters cnt;
	unsigned int sa_delay_ms;
	unsigned int sa_drop;
	unsigned int sa_status_n;
	u16 sa_status;
	u8 path_sl;
	u8 path_mtu;
	u8 path_rate;
	u8 path_life;
	struct ibfab_mc_group groups[IBFAB_MC_GROUPS];
	u16 next_mlid;
	u32 next_mgid;
	struct ib_sa_client sa_client;
	struct dentry *dir;
	struct mutex cmd_lock;		/* one command at a time; last */
	char last[IBFAB_LAST_MAX];
} fab;

/* A UD QP's multicast attachment; the table is under fab.lock. */
struct ibfab_mc_attach {
	bool used;
	struct ibfab_dev *dev;
	u32 qpn;
	u64 serial;
	union ib_gid mgid;
	u16 mlid;
};

#define IBFAB_MC_ATTACHES	(IBFAB_MC_GROUPS * IBFAB_MAX_DEVS)
static struct ibfab_mc_attach ibfab_attaches[IBFAB_MC_ATTACHES];

static atomic64_t ibfab_qp_serial = ATOMIC64_INIT(0);
static atomic_t ibfab_mr_key = ATOMIC_INIT(0x100);

static struct ibfab_dev *to_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct ibfab_dev, ibdev);
}

static struct ibfab_qp *to_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct ibfab_qp, ibqp);
}

static struct ibfab_cq *to_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct ibfab_cq, ibcq);
}

static struct ibfab_ah *to_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct ibfab_ah, ibah);
}

static __be64 ibfab_guid(unsigned int index)
{
	return cpu_to_be64(IBFAB_GUID_BASE | (index + 1));
}

static void ibfab_gid(unsigned int index, union ib_gid *gid)
{
	gid->global.subnet_prefix = cpu_to_be64(IBFAB_SUBNET_PREFIX);
	gid->global.interface_id = ibfab_guid(index);
}

/* The device whose GID is gid, or NULL. */
static struct ibfab_dev *ibfab_dev_by_gid(const union ib_gid *gid)
{
	unsigned int i;

	if (gid->global.subnet_prefix != cpu_to_be64(IBFAB_SUBNET_PREFIX))
		return NULL;
	for (i = 0; i < fab.ndevs; i++)
		if (gid->global.interface_id == ibfab_guid(i))
			return fab.devs[i];
	return NULL;
}

/* Under fab.lock: the live device with LID lid, or NULL. */
static struct ibfab_dev *ibfab_dev_by_lid(u16 lid)
{
	struct ibfab_dev *dev;

	if (lid == 0 || lid > fab.ndevs)
		return NULL;
	dev = fab.devs[lid - 1];
	return dev->live ? dev : NULL;
}

/* --- device and port -------------------------------------------------- */

static int ibfab_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 1;
	attr->sys_image_guid = ibfab_guid(to_dev(ibdev)->index);
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = 0xfab;
	attr->max_qp = 1024;
	attr->max_qp_wr = IBFAB_MAX_WR;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	attr->max_send_sge = IBFAB_MAX_SGE;
	attr->max_recv_sge = IBFAB_MAX_SGE;
	attr->max_sge_rd = 1;
	attr->max_cq = 1024;
	attr->max_cqe = IBFAB_MAX_CQE;
	attr->max_mr = 1024;
	attr->max_pd = 1024;
	attr->max_ah = 65536;
	attr->max_pkeys = IBFAB_NUM_PKEYS;
	attr->local_ca_ack_delay = 15;
	return 0;
}

static int ibfab_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct ibfab_dev *dev = to_dev(ibdev);

	/* The core zeroes attr. */
	attr->state = IB_PORT_ACTIVE;
	attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_4096;
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = IBFAB_NUM_PKEYS;
	spin_lock(&dev->port_lock);
	attr->port_cap_flags = dev->port_cap_flags;
	spin_unlock(&dev->port_lock);
	attr->max_msg_sz = IBFAB_MAX_MSG;
	attr->subnet_prefix = IBFAB_SUBNET_PREFIX;
	attr->lid = dev->lid;
	attr->sm_lid = IBFAB_SM_LID;
	attr->lmc = 0;
	attr->sm_sl = 0;
	attr->max_vl_num = 1;
	attr->subnet_timeout = IBFAB_SA_RESP_TIME;
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_EDR;
	return 0;
}

static int ibfab_modify_port(struct ib_device *ibdev, u32 port, int mask,
			     struct ib_port_modify *props)
{
	struct ibfab_dev *dev = to_dev(ibdev);

	if (mask & ~(IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE |
		     IB_PORT_RESET_QKEY_CNTR))
		return -EOPNOTSUPP;
	if (mask & IB_PORT_SHUTDOWN)
		return -EOPNOTSUPP;
	spin_lock(&dev->port_lock);
	dev->port_cap_flags |= props->set_port_cap_mask;
	dev->port_cap_flags &= ~props->clr_port_cap_mask;
	spin_unlock(&dev->port_lock);
	return 0;
}

static int ibfab_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	immutable->pkey_tbl_len = IBFAB_NUM_PKEYS;
	immutable->gid_tbl_len = 1;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int ibfab_query_gid(struct ib_device *ibdev, u32 port, int index,
			   union ib_gid *gid)
{
	if (index != 0)
		return -EINVAL;
	ibfab_gid(to_dev(ibdev)->index, gid);
	return 0;
}

static int ibfab_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index >= IBFAB_NUM_PKEYS)
		return -EINVAL;
	*pkey = index ? IBFAB_PKEY2 : IBFAB_PKEY;
	return 0;
}

/* --- PD, MR, AH ------------------------------------------------------- */

static int ibfab_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return udata ? -EOPNOTSUPP : 0;
}

static int ibfab_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

/* Memory is virtual: one key is as good as another. */
static struct ib_mr *ibfab_get_dma_mr(struct ib_pd *pd, int access)
{
	struct ibfab_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.lkey = atomic_inc_return(&ibfab_mr_key);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return &mr->ibmr;
}

/* No userspace path (yet): the core insists on the operation. */
static struct ib_mr *ibfab_reg_user_mr(struct ib_pd *pd, u64 start,
				       u64 length, u64 virt, int access,
				       struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int ibfab_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	kfree(container_of(ibmr, struct ibfab_mr, ibmr));
	return 0;
}

static int ibfab_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct rdma_ah_attr *attr = init->ah_attr;
	struct ibfab_ah *ah = to_ah(ibah);

	if (udata || attr->type != RDMA_AH_ATTR_TYPE_IB)
		return -EOPNOTSUPP;
	ah->dlid = rdma_ah_get_dlid(attr);
	ah->sl = rdma_ah_get_sl(attr);
	if (rdma_ah_get_ah_flags(attr) & IB_AH_GRH) {
		const struct ib_global_route *grh = rdma_ah_read_grh(attr);

		ah->grh = true;
		ah->dgid = grh->dgid;
		ah->flow_label = grh->flow_label;
		ah->hop_limit = grh->hop_limit;
		ah->tclass = grh->traffic_class;
	}
	return 0;
}

/* ib_sa checks its SM AH's DLID through this. */
static int ibfab_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct ibfab_ah *ah = to_ah(ibah);

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(attr, ah->dlid);
	rdma_ah_set_sl(attr, ah->sl);
	rdma_ah_set_port_num(attr, 1);
	if (ah->grh)
		rdma_ah_set_grh(attr, &ah->dgid, ah->flow_label, 0,
				ah->hop_limit, ah->tclass);
	return 0;
}

static int ibfab_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

/* --- CQ --------------------------------------------------------------- */

static int ibfab_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr, IBFAB_CQ_UARG)
{
	struct ibfab_cq *cq = to_cq(ibcq);

	if (IBFAB_CQ_USER || attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > IBFAB_MAX_CQE)
		return -EINVAL;
	cq->ring = kvcalloc(attr->cqe, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	return 0;
}

static int ibfab_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	kvfree(to_cq(ibcq)->ring);
	return 0;
}

/* From the fabric's worker only, under fab.lock. */
static void ibfab_cq_push(struct ibfab_cq *cq, const struct ib_wc *wc)
{
	unsigned long flags;
	bool fire;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count == cq->size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		fab.cnt.cq_overflow++;
		pr_warn_ratelimited("CQ overflow, completion lost\n");
		return;
	}
	cq->ring[(cq->head + cq->count) % cq->size] = *wc;
	cq->count++;
	fire = cq->armed;
	cq->armed = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire && cq->ibcq.comp_handler) {
		/* As from an interrupt: a NAPI it schedules runs on enable. */
		local_bh_disable();
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
		local_bh_enable();
	}
}

static int ibfab_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct ibfab_cq *cq = to_cq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->count) {
		wc[n++] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int ibfab_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags f)
{
	struct ibfab_cq *cq = to_cq(ibcq);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, flags);
	/* Every completion is solicited enough: both arm for the next. */
	cq->armed = true;
	if ((f & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, flags);
	return ret;
}

/* --- QP --------------------------------------------------------------- */

static int ibfab_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct ibfab_dev *dev = to_dev(ibqp->device);
	struct ibfab_qp *qp = to_qp(ibqp);
	struct ib_qp_cap *cap = &init->cap;
	u32 qpn;
	int ret;

	if (udata || init->srq || init->create_flags)
		return -EOPNOTSUPP;
	if (init->qp_type != IB_QPT_SMI && init->qp_type != IB_QPT_GSI &&
	    init->qp_type != IB_QPT_UD)
		return -EOPNOTSUPP;
	if (cap->max_send_wr > IBFAB_MAX_WR ||
	    cap->max_recv_wr > IBFAB_MAX_WR ||
	    cap->max_send_sge > IBFAB_MAX_SGE ||
	    cap->max_recv_sge > IBFAB_MAX_SGE || cap->max_inline_data)
		return -EINVAL;
	qp->rq_size = max(cap->max_recv_wr, 1U);
	qp->rq = kvcalloc(qp->rq_size, sizeof(*qp->rq), GFP_KERNEL);
	if (!qp->rq)
		return -ENOMEM;
	spin_lock_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->serial = atomic64_inc_return(&ibfab_qp_serial);

	mutex_lock(&fab.lock);
	if (init->qp_type == IB_QPT_SMI || init->qp_type == IB_QPT_GSI) {
		qpn = init->qp_type == IB_QPT_SMI ? 0 : 1;
		ret = xa_insert(&dev->qps, qpn, qp, GFP_KERNEL);
	} else {
		ret = xa_alloc_cyclic(&dev->qps, &qpn, qp,
				      XA_LIMIT(2, IBFAB_MAX_UD_QPN),
				      &dev->next_qpn, GFP_KERNEL);
		if (ret > 0)
			ret = 0;
	}
	mutex_unlock(&fab.lock);
	if (ret) {
		kvfree(qp->rq);
		return ret;
	}
	ibqp->qp_num = qpn;
	return 0;
}

static void ibfab_queue(struct ibfab_pkt *pkt)
{
	unsigned long flags;

	spin_lock_irqsave(&fab.qlock, flags);
	list_add_tail(&pkt->list, &fab.queue);
	spin_unlock_irqrestore(&fab.qlock, flags);
	queue_work(fab.wq, &fab.work);
}

/* A request to the worker to flush qp's posted receives (ERR state). */
static struct ibfab_pkt *ibfab_rq_flush_pkt(struct ibfab_qp *qp, gfp_t gfp)
{
	struct ibfab_pkt *pkt = kzalloc(sizeof(*pkt), gfp);

	if (!pkt)
		return NULL;
	pkt->kind = IBFAB_PKT_RQ_FLUSH;
	pkt->src = to_dev(qp->ibqp.device);
	pkt->src_qpn = qp->ibqp.qp_num;
	pkt->src_serial = qp->serial;
	return pkt;
}

static int ibfab_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct ibfab_qp *qp = to_qp(ibqp);
	struct ibfab_pkt *flush = NULL;
	enum ib_qp_state cur, next;
	bool to_err;

	if (udata)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= IBFAB_NUM_PKEYS)
		return -EINVAL;
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_ERR) {
		flush = ibfab_rq_flush_pkt(qp, GFP_KERNEL);
		if (!flush)
			return -ENOMEM;
	}
	spin_lock_irq(&qp->lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		spin_unlock_irq(&qp->lock);
		kfree(flush);
		return -EINVAL;
	}
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn;
	to_err = next == IB_QPS_ERR && qp->state != IB_QPS_ERR;
	qp->state = next;
	if (next == IB_QPS_RESET) {
		qp->rq_head = 0;
		qp->rq_count = 0;
	}
	spin_unlock_irq(&qp->lock);
	if (to_err)
		ibfab_queue(flush);
	else
		kfree(flush);
	return 0;
}

static int ibfab_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct ibfab_qp *qp = to_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irq(&qp->lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qkey = qp->qkey;
	attr->pkey_index = qp->pkey_index;
	attr->sq_psn = qp->sq_psn;
	spin_unlock_irq(&qp->lock);
	attr->port_num = 1;
	attr->path_mtu = IB_MTU_4096;
	attr->cap.max_recv_wr = qp->rq_size;
	attr->cap.max_send_wr = IBFAB_MAX_WR;
	attr->cap.max_send_sge = IBFAB_MAX_SGE;
	attr->cap.max_recv_sge = IBFAB_MAX_SGE;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->port_num = 1;
	return 0;
}

static int ibfab_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct ibfab_dev *dev = to_dev(ibqp->device);
	struct ibfab_qp *qp = to_qp(ibqp);

	/* After this the worker no longer finds qp, nor touches its CQs. */
	mutex_lock(&fab.lock);
	xa_erase(&dev->qps, ibqp->qp_num);
	mutex_unlock(&fab.lock);
	kvfree(qp->rq);
	return 0;
}

/* A UD QP joins a multicast LID's deliveries; once per (QP, MGID). */
static int ibfab_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct ibfab_dev *dev = to_dev(ibqp->device);
	struct ibfab_mc_attach *a, *free = NULL;
	unsigned int i;
	int ret = 0;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (lid < IBFAB_MLID_BASE || lid == be16_to_cpu(IB_LID_PERMISSIVE))
		return -EINVAL;
	mutex_lock(&fab.lock);
	for (i = 0; i < IBFAB_MC_ATTACHES; i++) {
		a = &ibfab_attaches[i];
		if (!a->used) {
			free = free ?: a;
			continue;
		}
		if (a->dev == dev && a->qpn == ibqp->qp_num &&
		    !memcmp(&a->mgid, gid, sizeof(*gid))) {
			ret = -EEXIST;
			goto out;
		}
	}
	if (!free) {
		ret = -ENOMEM;
		goto out;
	}
	free->used = true;
	free->dev = dev;
	free->qpn = ibqp->qp_num;
	free->serial = to_qp(ibqp)->serial;
	free->mgid = *gid;
	free->mlid = lid;
out:
	mutex_unlock(&fab.lock);
	return ret;
}

static int ibfab_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct ibfab_dev *dev = to_dev(ibqp->device);
	struct ibfab_mc_attach *a;
	unsigned int i;
	int ret = -EINVAL;

	mutex_lock(&fab.lock);
	for (i = 0; i < IBFAB_MC_ATTACHES; i++) {
		a = &ibfab_attaches[i];
		if (a->used && a->dev == dev && a->qpn == ibqp->qp_num &&
		    a->mlid == lid && !memcmp(&a->mgid, gid, sizeof(*gid))) {
			a->used = false;
			ret = 0;
			break;
		}
	}
	mutex_unlock(&fab.lock);
	return ret;
}

static int ibfab_post_send_one(struct ibfab_qp *qp,
			       const struct ib_send_wr *wr)
{
	struct ibfab_dev *dev = to_dev(qp->ibqp.device);
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct ibfab_pkt *pkt;
	struct ibfab_ah *ah;
	enum ib_qp_state state;
	u32 len = 0, off = 0;
	unsigned long flags;
	int i;

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (wr->num_sge > IBFAB_MAX_SGE)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > IBFAB_MAX_MSG)
		return -EINVAL;
	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (state != IB_QPS_RTS && state != IB_QPS_ERR &&
	    state != IB_QPS_SQD)
		return -EINVAL;

	pkt = kzalloc(struct_size(pkt, data, len), GFP_ATOMIC);
	if (!pkt)
		return -ENOMEM;
	pkt->src = dev;
	pkt->src_qpn = qp->ibqp.qp_num;
	pkt->src_serial = qp->serial;
	pkt->wr_id = wr->wr_id;
	pkt->signaled = qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED);
	pkt->opcode = IB_WC_SEND;
	if (state == IB_QPS_ERR) {
		pkt->kind = IBFAB_PKT_SEND_FLUSH;
		ibfab_queue(pkt);
		return 0;
	}
	pkt->kind = IBFAB_PKT_SEND;
	/* Virtual DMA: the SGE's address is the kernel's. */
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(pkt->data + off,
		       (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		off += wr->sg_list[i].length;
	}
	pkt->len = len;
	ah = to_ah(ud->ah);
	pkt->slid = dev->lid;
	pkt->dlid = ah->dlid;
	pkt->sl = ah->sl;
	pkt->sqpn = qp->ibqp.qp_num;
	pkt->dqpn = ud->remote_qpn;
	/* A Q_Key with its high bit set means the QP's own. */
	pkt->qkey = (ud->remote_qkey & 0x80000000) ? qp->qkey :
		    ud->remote_qkey;
	if (wr->opcode == IB_WR_SEND_WITH_IMM) {
		pkt->has_imm = true;
		pkt->imm = wr->ex.imm_data;
	}
	if (ah->grh) {
		pkt->has_grh = true;
		pkt->grh.version_tclass_flow =
			cpu_to_be32(6 << 28 | (u32)ah->tclass << 20 |
				    (ah->flow_label & 0xfffff));
		pkt->grh.paylen = cpu_to_be16(len);
		pkt->grh.next_hdr = 0x1b;
		pkt->grh.hop_limit = ah->hop_limit;
		ibfab_gid(dev->index, &pkt->grh.sgid);
		pkt->grh.dgid = ah->dgid;
	}
	ibfab_queue(pkt);
	return 0;
}

static int ibfab_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad)
{
	int ret;

	for (; wr; wr = wr->next) {
		ret = ibfab_post_send_one(to_qp(ibqp), wr);
		if (ret) {
			*bad = wr;
			return ret;
		}
	}
	return 0;
}

static int ibfab_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad)
{
	struct ibfab_qp *qp = to_qp(ibqp);
	struct ibfab_pkt *flush = NULL;
	struct ibfab_rwqe *wqe;
	unsigned long flags;
	int ret = 0;

	/* In ERR, what is posted is flushed at once (by the worker). */
	if (READ_ONCE(qp->state) == IB_QPS_ERR) {
		flush = ibfab_rq_flush_pkt(qp, GFP_ATOMIC);
		if (!flush) {
			*bad = wr;
			return -ENOMEM;
		}
	}
	spin_lock_irqsave(&qp->lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_RESET) {
			ret = -EINVAL;
			break;
		}
		if (wr->num_sge > IBFAB_MAX_SGE ||
		    qp->rq_count == qp->rq_size) {
			ret = wr->num_sge > IBFAB_MAX_SGE ? -EINVAL : -ENOMEM;
			break;
		}
		wqe = &qp->rq[(qp->rq_head + qp->rq_count) % qp->rq_size];
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		memcpy(wqe->sge, wr->sg_list, wr->num_sge * sizeof(*wqe->sge));
		qp->rq_count++;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (ret)
		*bad = wr;
	if (flush)
		ibfab_queue(flush);
	return ret;
}

/* --- the wire (the worker, under fab.lock) ---------------------------- */

static struct ibfab_qp *ibfab_find_qp(struct ibfab_dev *dev, u32 qpn,
				      u64 serial)
{
	struct ibfab_qp *qp = xa_load(&dev->qps, qpn);

	return qp && (!serial || qp->serial == serial) ? qp : NULL;
}

static bool ibfab_rq_pop(struct ibfab_qp *qp, struct ibfab_rwqe *out)
{
	unsigned long flags;
	bool ok = false;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->rq_count) {
		*out = qp->rq[qp->rq_head];
		qp->rq_head = (qp->rq_head + 1) % qp->rq_size;
		qp->rq_count--;
		ok = true;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	return ok;
}

/* Scatter src[0, len) to wqe's SGEs from byte off; false if it overflows. */
static bool ibfab_scatter(const struct ibfab_rwqe *wqe, u32 off,
			  const void *src, u32 len)
{
	unsigned int i;

	for (i = 0; i < wqe->num_sge && len; i++) {
		u32 n;

		if (off >= wqe->sge[i].length) {
			off -= wqe->sge[i].length;
			continue;
		}
		n = min(len, wqe->sge[i].length - off);
		memcpy((void *)(uintptr_t)(wqe->sge[i].addr + off), src, n);
		src += n;
		len -= n;
		off = 0;
	}
	return len == 0;
}

static void ibfab_deliver_qp(struct ibfab_pkt *pkt, struct ibfab_qp *qp);

/* A send to a multicast LID: a copy to each attached QP but the sender. */
static void ibfab_deliver_mc(struct ibfab_pkt *pkt)
{
	struct ibfab_mc_attach *a;
	struct ibfab_qp *qp;
	bool any = false;
	unsigned int i;

	if (pkt->dqpn != IB_MULTICAST_QPN) {
		fab.cnt.drop_no_qp++;
		return;
	}
	for (i = 0; i < IBFAB_MC_ATTACHES; i++) {
		a = &ibfab_attaches[i];
		if (!a->used || a->mlid != pkt->dlid ||
		    (a->dev == pkt->src && a->qpn == pkt->sqpn))
			continue;
		qp = ibfab_find_qp(a->dev, a->qpn, a->serial);
		if (qp) {
			any = true;
			ibfab_deliver_qp(pkt, qp);
		}
	}
	if (!any)
		fab.cnt.drop_no_qp++;
}

static void ibfab_deliver(struct ibfab_pkt *pkt)
{
	struct ibfab_dev *dst;
	struct ibfab_qp *qp;

	if (pkt->dlid >= IBFAB_MLID_BASE &&
	    pkt->dlid != be16_to_cpu(IB_LID_PERMISSIVE)) {
		ibfab_deliver_mc(pkt);
		return;
	}
	dst = ibfab_dev_by_lid(pkt->dlid);
	if (!dst) {
		fab.cnt.drop_no_lid++;
		return;
	}
	qp = ibfab_find_qp(dst, pkt->dqpn, 0);
	/* QP0 talks to QP0 only. */
	if (!qp || !pkt->dqpn != !pkt->sqpn) {
		fab.cnt.drop_no_qp++;
		return;
	}
	ibfab_deliver_qp(pkt, qp);
}

static void ibfab_deliver_qp(struct ibfab_pkt *pkt, struct ibfab_qp *qp)
{
	struct ibfab_rwqe wqe;
	enum ib_qp_state state;
	struct ib_wc wc = {};
	u32 qkey;

	spin_lock_irq(&qp->lock);
	state = qp->state;
	qkey = qp->qkey;
	spin_unlock_irq(&qp->lock);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD) {
		fab.cnt.drop_no_qp++;
		return;
	}
	if (pkt->dqpn != 0 && pkt->qkey != qkey) {
		fab.cnt.drop_qkey++;
		return;
	}
	if (!ibfab_rq_pop(qp, &wqe)) {
		fab.cnt.drop_no_recv++;
		return;
	}
	wc.wr_id = wqe.wr_id;
	wc.opcode = IB_WC_RECV;
	wc.qp = &qp->ibqp;
	wc.byte_len = IBFAB_GRH_BYTES + pkt->len;
	if ((pkt->has_grh &&
	     !ibfab_scatter(&wqe, 0, &pkt->grh, IBFAB_GRH_BYTES)) ||
	    !ibfab_scatter(&wqe, IBFAB_GRH_BYTES, pkt->data, pkt->len)) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else {
		wc.status = IB_WC_SUCCESS;
		fab.cnt.delivered++;
	}
	wc.src_qp = pkt->sqpn;
	wc.slid = pkt->slid;
	wc.sl = pkt->sl;
	wc.pkey_index = 0;
	wc.port_num = 1;
	if (pkt->has_grh)
		wc.wc_flags |= IB_WC_GRH;
	if (pkt->has_imm) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = pkt->imm;
	}
	ibfab_cq_push(to_cq(qp->ibqp.recv_cq), &wc);
}

static void ibfab_complete_send(struct ibfab_pkt *pkt, enum ib_wc_status st)
{
	struct ibfab_qp *qp = ibfab_find_qp(pkt->src, pkt->src_qpn,
					    pkt->src_serial);
	struct ib_wc wc = {};

	if (!qp || (!pkt->signaled && st == IB_WC_SUCCESS))
		return;
	wc.wr_id = pkt->wr_id;
	wc.status = st;
	wc.opcode = pkt->opcode;
	wc.qp = &qp->ibqp;
	wc.port_num = 1;
	ibfab_cq_push(to_cq(qp->ibqp.send_cq), &wc);
}

static void ibfab_flush_rq(struct ibfab_pkt *pkt)
{
	struct ibfab_qp *qp = ibfab_find_qp(pkt->src, pkt->src_qpn,
					    pkt->src_serial);
	struct ibfab_rwqe wqe;
	struct ib_wc wc = {};

	if (!qp)
		return;
	while (ibfab_rq_pop(qp, &wqe)) {
		wc.wr_id = wqe.wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = IB_WC_RECV;
		wc.qp = &qp->ibqp;
		ibfab_cq_push(to_cq(qp->ibqp.recv_cq), &wc);
	}
}

static void ibfab_sa_recv(struct ibfab_pkt *pkt);

static void ibfab_work(struct work_struct *work)
{
	struct ibfab_pkt *pkt;

	for (;;) {
		spin_lock_irq(&fab.qlock);
		pkt = list_first_entry_or_null(&fab.queue, struct ibfab_pkt,
					       list);
		if (pkt)
			list_del(&pkt->list);
		spin_unlock_irq(&fab.qlock);
		if (!pkt)
			return;
		mutex_lock(&fab.lock);
		switch (pkt->kind) {
		case IBFAB_PKT_SEND:
			fab.cnt.sent++;
			if (pkt->dlid == IBFAB_SM_LID && pkt->dqpn == 1)
				ibfab_sa_recv(pkt);
			else if (pkt->sqpn == 0 &&
				 pkt->dlid == be16_to_cpu(IB_LID_PERMISSIVE))
				fab.cnt.drop_smp++;	/* no SMA on this wire */
			else
				ibfab_deliver(pkt);
			ibfab_complete_send(pkt, IB_WC_SUCCESS);
			break;
		case IBFAB_PKT_SEND_FLUSH:
			ibfab_complete_send(pkt, IB_WC_WR_FLUSH_ERR);
			break;
		case IBFAB_PKT_RQ_FLUSH:
			ibfab_flush_rq(pkt);
			break;
		case IBFAB_PKT_SA:
			ibfab_deliver(pkt);
			break;
		}
		mutex_unlock(&fab.lock);
		kfree(pkt);
		cond_resched();
	}
}

/* --- the SA (under fab.lock) ------------------------------------------ */

/* Under fab.qlock: have sa_work run at due, unless it runs before. */
static void ibfab_sa_arm(unsigned long due)
{
	if (fab.closing || (fab.sa_armed && !time_before(due, fab.sa_next)))
		return;
	fab.sa_armed = true;
	fab.sa_next = due;
	mod_delayed_work(system_wq, &fab.sa_work,
			 time_after(due, jiffies) ? due - jiffies : 0);
}

/* Release the due SA answers to the wire; re-arm for the next. */
static void ibfab_sa_work(struct work_struct *work)
{
	struct ibfab_pkt *pkt, *tmp;
	unsigned long next = 0;
	bool more = false;

	spin_lock_irq(&fab.qlock);
	fab.sa_armed = false;
	list_for_each_entry_safe(pkt, tmp, &fab.sa_pending, list) {
		if (time_after_eq(jiffies, pkt->due)) {
			list_move_tail(&pkt->list, &fab.queue);
		} else if (!more || time_before(pkt->due, next)) {
			next = pkt->due;
			more = true;
		}
	}
	if (more)
		ibfab_sa_arm(next);
	spin_unlock_irq(&fab.qlock);
	queue_work(fab.wq, &fab.work);
}

static struct ibfab_mc_group *ibfab_mc_find(const union ib_gid *mgid)
{
	unsigned int i;

	for (i = 0; i < IBFAB_MC_GROUPS; i++)
		if (fab.groups[i].used &&
		    !memcmp(&fab.groups[i].mgid, mgid, sizeof(*mgid)))
			return &fab.groups[i];
	return NULL;
}

static int ibfab_mc_member(struct ibfab_mc_group *g, const union ib_gid *gid,
			   bool add)
{
	int i, free = -1;

	for (i = 0; i < IBFAB_MC_MEMBERS; i++) {
		if (g->member_state[i] &&
		    !memcmp(&g->member[i], gid, sizeof(*gid)))
			return i;
		if (!g->member_state[i] && free < 0)
			free = i;
	}
	if (!add || free < 0)
		return -1;
	g->member[free] = *gid;
	return free;
}

static void ibfab_mc_put(u8 *d, const struct ibfab_mc_group *g,
			 const union ib_gid *port_gid, u8 join_state)
{
	memcpy(d, &g->mgid, 16);
	memcpy(d + 16, port_gid, 16);
	put_unaligned_be32(g->qkey, d + 32);
	put_unaligned_be16(g->mlid, d + 36);
	d[38] = IB_SA_EQ << 6 | IB_MTU_4096;
	d[39] = g->tclass;
	put_unaligned_be16(g->pkey, d + 40);
	d[42] = IB_SA_EQ << 6 | IB_RATE_100_GBPS;
	d[43] = IB_SA_EQ << 6 | IBFAB_PACKET_LIFE;
	put_unaligned_be32((u32)g->sl << 28 | (g->flow_label & 0xfffff) << 8,
			   d + 44);
	d[48] = g->scope << 4 | (join_state & 0xf);
	d[49] = 0;
}

/* A Set (join), Delete (leave) or Get of an MCMemberRecord: MAD status. */
static u16 ibfab_sa_mcmember(u8 method, ib_sa_comp_mask mask, const u8 *req,
			     u8 *resp)
{
	union ib_gid mgid, port_gid;
	struct ibfab_mc_group *g;
	u8 join = req[48] & 0xf;
	unsigned int i;
	int m;

	memcpy(&mgid, req, 16);
	memcpy(&port_gid, req + 16, 16);
	g = ibfab_mc_find(&mgid);
	if (method == IB_MGMT_METHOD_GET) {
		if (!g)
			return IB_SA_STATUS_NO_RECORDS;
		ibfab_mc_put(resp, g, &port_gid, join);
		return 0;
	}
	if (!(mask & IB_SA_MCMEMBER_REC_PORT_GID) ||
	    !(mask & IB_SA_MCMEMBER_REC_JOIN_STATE) || !join ||
	    !ibfab_dev_by_gid(&port_gid))
		return IB_SA_STATUS_REQ_INVALID;
	if (method == IB_SA_METHOD_DELETE) {
		m = g ? ibfab_mc_member(g, &port_gid, false) : -1;
		if (m < 0)
			return IB_SA_STATUS_REQ_INVALID;
		g->member_state[m] &= ~join;
		ibfab_mc_put(resp, g, &port_gid, join);
		for (i = 0; i < IBFAB_MC_MEMBERS; i++)
			if (g->member_state[i])
				return 0;
		g->used = false;
		return 0;
	}
	/* Set: a join, creating the group if it is new. */
	if (g) {
		if (((mask & IB_SA_MCMEMBER_REC_QKEY) &&
		     get_unaligned_be32(req + 32) != g->qkey) ||
		    ((mask & IB_SA_MCMEMBER_REC_MLID) &&
		     get_unaligned_be16(req + 36) != g->mlid) ||
		    ((mask & IB_SA_MCMEMBER_REC_PKEY) &&
		     get_unaligned_be16(req + 40) != g->pkey))
			return IB_SA_STATUS_REQ_INVALID;
	} else {
		for (i = 0; i < IBFAB_MC_GROUPS && fab.groups[i].used; i++)
			;
		if (i == IBFAB_MC_GROUPS)
			return IB_SA_STATUS_NO_RESOURCES;
		g = &fab.groups[i];
		memset(g, 0, sizeof(*g));
		if (!(mask & IB_SA_MCMEMBER_REC_MGID) ||
		    !memcmp(&mgid, &(union ib_gid){}, sizeof(mgid))) {
			/* ff12:601b:ffff::1:N, link-local scope */
			mgid.global.subnet_prefix =
				cpu_to_be64(0xff12601bffff0000ULL);
			mgid.global.interface_id =
				cpu_to_be64(0x100000000ULL | fab.next_mgid++);
		}
		g->mgid = mgid;
		g->mlid = fab.next_mlid++;
		g->qkey = (mask & IB_SA_MCMEMBER_REC_QKEY) ?
			  get_unaligned_be32(req + 32) : IBFAB_DEFAULT_QKEY;
		/* The partition of the creating join (IPoIB's per P_Key). */
		g->pkey = (mask & IB_SA_MCMEMBER_REC_PKEY) ?
			  get_unaligned_be16(req + 40) : IBFAB_PKEY;
		if (mask & IB_SA_MCMEMBER_REC_SL)
			g->sl = req[44] >> 4;
		if (mask & IB_SA_MCMEMBER_REC_TRAFFIC_CLASS)
			g->tclass = req[39];
		if (mask & IB_SA_MCMEMBER_REC_FLOW_LABEL)
			g->flow_label = get_unaligned_be32(req + 44) >> 8 &
					0xfffff;
		g->scope = mgid.raw[1] & 0xf;
		g->used = true;
	}
	m = ibfab_mc_member(g, &port_gid, true);
	if (m < 0)
		return IB_SA_STATUS_NO_RESOURCES;
	g->member_state[m] |= join;
	ibfab_mc_put(resp, g, &port_gid, g->member_state[m]);
	return 0;
}

/* A PathRecord from the request's SGID/DGID (or SLID/DLID): MAD status. */
static u16 ibfab_sa_path(ib_sa_comp_mask mask, const u8 *req, u8 *resp,
			 struct ibfab_dev *requester)
{
	struct ibfab_dev *s = requester, *d = NULL;
	u16 pkey = IBFAB_PKEY;
	union ib_gid gid;

	if (mask & IB_SA_PATH_REC_DGID) {
		memcpy(&gid, req + 8, 16);
		d = ibfab_dev_by_gid(&gid);
	} else if (mask & IB_SA_PATH_REC_DLID) {
		d = ibfab_dev_by_lid(get_unaligned_be16(req + 40));
	}
	if (mask & IB_SA_PATH_REC_SGID) {
		memcpy(&gid, req + 24, 16);
		s = ibfab_dev_by_gid(&gid);
	} else if (mask & IB_SA_PATH_REC_SLID) {
		s = ibfab_dev_by_lid(get_unaligned_be16(req + 42));
	}
	if (!d || !s)
		return IB_SA_STATUS_NO_RECORDS;
	if (mask & IB_SA_PATH_REC_PKEY) {
		pkey = get_unaligned_be16(req + 50) & 0x7fff;
		if (pkey == (IBFAB_PKEY2 & 0x7fff))
			pkey = IBFAB_PKEY2;
		else if (pkey == (IBFAB_PKEY & 0x7fff))
			pkey = IBFAB_PKEY;
		else
			return IB_SA_STATUS_NO_RECORDS;
	}
	if ((mask & IB_SA_PATH_REC_SL) && (req[53] & 0xf) != fab.path_sl)
		return IB_SA_STATUS_NO_RECORDS;

	memset(resp, 0, 64);
	if (mask & IB_SA_PATH_REC_SERVICE_ID)
		memcpy(resp, req, 8);
	ibfab_gid(d->index, (union ib_gid *)(resp + 8));
	ibfab_gid(s->index, (union ib_gid *)(resp + 24));
	put_unaligned_be16(d->lid, resp + 40);
	put_unaligned_be16(s->lid, resp + 42);
	if (mask & IB_SA_PATH_REC_TRAFFIC_CLASS)
		resp[48] = req[48];
	resp[49] = 0x80 | 1;		/* reversible, one path */
	put_unaligned_be16(pkey, resp + 50);
	resp[53] = fab.path_sl;
	resp[54] = IB_SA_EQ << 6 | fab.path_mtu;
	resp[55] = IB_SA_EQ << 6 | fab.path_rate;
	resp[56] = IB_SA_EQ << 6 | fab.path_life;
	return 0;
}

static void ibfab_sa_recv(struct ibfab_pkt *q)
{
	const struct ib_sa_mad *req = (const struct ib_sa_mad *)q->data;
	struct ibfab_dev *requester = ibfab_dev_by_lid(q->slid);
	struct ib_sa_mad *resp;
	struct ibfab_pkt *pkt;
	ib_sa_comp_mask mask;
	u16 status = 0;
	u8 method;

	if (q->len < sizeof(*req) ||
	    req->mad_hdr.mgmt_class != IB_MGMT_CLASS_SUBN_ADM ||
	    (req->mad_hdr.method & IB_MGMT_METHOD_RESP) || !requester)
		return;
	fab.cnt.sa_queries++;
	if (fab.sa_drop) {
		fab.sa_drop--;
		fab.cnt.sa_dropped++;
		return;
	}
	pkt = kzalloc(struct_size(pkt, data, sizeof(*resp)), GFP_KERNEL);
	if (!pkt) {
		fab.cnt.sa_dropped++;
		return;
	}
	resp = (struct ib_sa_mad *)pkt->data;
	memcpy(resp, req, sizeof(*resp));
	memset(resp->data, 0, sizeof(resp->data));
	resp->mad_hdr.status = 0;
	method = req->mad_hdr.method;
	mask = req->sa_hdr.comp_mask;
	switch (method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
		resp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
		break;
	case IB_SA_METHOD_GET_TABLE:
		resp->mad_hdr.method = IB_SA_METHOD_GET_TABLE_RESP;
		break;
	case IB_SA_METHOD_DELETE:
		resp->mad_hdr.method = IB_SA_METHOD_DELETE_RESP;
		break;
	default:
		resp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
		break;
	}
	if (status) {
		/* answered below */
	} else if (fab.sa_status_n) {
		fab.sa_status_n--;
		status = fab.sa_status;
	} else if (req->mad_hdr.attr_id == cpu_to_be16(IB_SA_ATTR_PATH_REC) &&
		   (method == IB_MGMT_METHOD_GET ||
		    method == IB_SA_METHOD_GET_TABLE)) {
		status = ibfab_sa_path(mask, req->data, resp->data, requester);
	} else if (req->mad_hdr.attr_id ==
		   cpu_to_be16(IB_SA_ATTR_MC_MEMBER_REC) &&
		   method != IB_SA_METHOD_GET_TABLE) {
		status = ibfab_sa_mcmember(method, mask, req->data,
					   resp->data);
	} else if (req->mad_hdr.attr_id ==
		   cpu_to_be16(IB_SA_ATTR_CLASS_PORTINFO) &&
		   method == IB_MGMT_METHOD_GET) {
		resp->data[0] = IB_MGMT_BASE_VERSION;
		resp->data[1] = IB_SA_CLASS_VERSION;
		put_unaligned_be32(IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT
				   << 5 | IBFAB_SA_RESP_TIME, resp->data + 4);
	} else {
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
		fab.cnt.sa_unsupported++;
	}
	if (status) {
		memset(resp->data, 0, sizeof(resp->data));
		fab.cnt.sa_status++;
	}
	resp->mad_hdr.status = cpu_to_be16(status);
	if (method == IB_SA_METHOD_GET_TABLE) {
		/* One segment: the SA header and at most one record. */
		resp->rmpp_hdr.rmpp_version = IB_MGMT_RMPP_VERSION;
		resp->rmpp_hdr.rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
		resp->rmpp_hdr.rmpp_rtime_flags = IB_MGMT_RMPP_FLAG_ACTIVE |
			IB_MGMT_RMPP_FLAG_FIRST | IB_MGMT_RMPP_FLAG_LAST;
		resp->rmpp_hdr.seg_num = cpu_to_be32(1);
		resp->rmpp_hdr.paylen_newwin =
			cpu_to_be32(IB_MGMT_SA_HDR - IB_MGMT_RMPP_HDR +
				    (status ? 0 : 64));
		resp->sa_hdr.attr_offset = cpu_to_be16(64 / 8);
	}
	fab.cnt.sa_answered++;

	pkt->kind = IBFAB_PKT_SA;
	pkt->len = sizeof(*resp);
	pkt->slid = IBFAB_SM_LID;
	pkt->dlid = q->slid;
	pkt->sl = q->sl;
	pkt->sqpn = 1;
	pkt->dqpn = q->sqpn;
	pkt->qkey = IB_QP1_QKEY;
	if (q->has_grh) {
		pkt->has_grh = true;
		pkt->grh = q->grh;
		pkt->grh.sgid = q->grh.dgid;
		pkt->grh.dgid = q->grh.sgid;
	}
	if (!fab.sa_delay_ms) {
		ibfab_deliver(pkt);
		kfree(pkt);
		return;
	}
	pkt->due = jiffies + msecs_to_jiffies(fab.sa_delay_ms);
	spin_lock_irq(&fab.qlock);
	list_add_tail(&pkt->list, &fab.sa_pending);
	ibfab_sa_arm(pkt->due);
	spin_unlock_irq(&fab.qlock);
}

/* --- control: pathq, cmtest, mcjoin ------------------------------------ */

struct ibfab_pathq {
	struct completion done;
	int status;
	bool have;
	struct sa_path_rec rec;
};

static void ibfab_pathq_done(int status, struct sa_path_rec *resp,
			     IBFAB_NPRS num_prs, void *context)
{
	struct ibfab_pathq *q = context;

	q->status = status;
	if (!status && resp && num_prs) {
		q->rec = *resp;
		q->have = true;
	}
	complete(&q->done);
}

static struct ibfab_dev *ibfab_dev_arg(unsigned int i)
{
	return i < fab.ndevs ? fab.devs[i] : NULL;
}

/* ib_sa_path_rec_get() from src for dst's GID: its status; rec on 0. */
static int ibfab_path_query(struct ibfab_dev *src, struct ibfab_dev *dst,
			    unsigned int timeout_ms, struct sa_path_rec *rec)
{
	struct ibfab_pathq q = {};
	struct sa_path_rec req = {};
	struct ib_sa_query *query;
	int id;

	init_completion(&q.done);
	req.rec_type = SA_PATH_REC_TYPE_IB;
	ibfab_gid(src->index, &req.sgid);
	ibfab_gid(dst->index, &req.dgid);
	req.pkey = cpu_to_be16(IBFAB_PKEY);
	req.numb_path = 1;
	req.reversible = 1;
	req.service_id = cpu_to_be64(IBFAB_CM_SERVICE_ID);
	id = ib_sa_path_rec_get(&fab.sa_client, &src->ibdev, 1, &req,
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
				IB_SA_PATH_REC_REVERSIBLE |
				IB_SA_PATH_REC_SERVICE_ID,
				timeout_ms, GFP_KERNEL, ibfab_pathq_done, &q,
				&query);
	if (id < 0)
		return id;
	/* ib_sa calls back by its timeout; a cancel makes sure. */
	if (!wait_for_completion_timeout(&q.done, msecs_to_jiffies(timeout_ms +
							IBFAB_SA_SLACK_MS))) {
		ib_sa_cancel_query(id, query);
		wait_for_completion(&q.done);
	}
	if (!q.status && !q.have)
		q.status = -ENODATA;
	if (!q.status)
		*rec = q.rec;
	return q.status;
}

static int ibfab_cmd_pathq(unsigned int si, unsigned int di,
			   unsigned int timeout_ms)
{
	struct ibfab_dev *src = ibfab_dev_arg(si), *dst = ibfab_dev_arg(di);
	struct sa_path_rec rec;
	int ret;

	if (!src || !dst || !timeout_ms)
		return -EINVAL;
	ret = ibfab_path_query(src, dst, timeout_ms, &rec);
	if (ret)
		snprintf(fab.last, sizeof(fab.last),
			 "pathq %s->%s: status %d", dev_name(&src->ibdev.dev),
			 dev_name(&dst->ibdev.dev), ret);
	else
		snprintf(fab.last, sizeof(fab.last),
			 "pathq %s->%s: status 0 slid %u dlid %u sl %u mtu %u rate %u packet_life %u pkey 0x%04x reversible %u numb_path %u",
			 dev_name(&src->ibdev.dev), dev_name(&dst->ibdev.dev),
			 be32_to_cpu(sa_path_get_slid(&rec)),
			 be32_to_cpu(sa_path_get_dlid(&rec)), rec.sl, rec.mtu,
			 rec.rate, rec.packet_life_time, be16_to_cpu(rec.pkey),
			 rec.reversible, rec.numb_path);
	pr_info("%s\n", fab.last);
	return ret;
}

enum {
	CT_REQ_RECEIVED,
	CT_REP_RECEIVED,
	CT_RTU_RECEIVED,
	CT_DREQ_RECEIVED,
	CT_DREP_RECEIVED,
	CT_FAILED,
	CT_NR,
};

static const char *const ct_names[CT_NR] = {
	"REQ_RECEIVED", "REP_RECEIVED", "RTU_RECEIVED", "DREQ_RECEIVED",
	"DREP_RECEIVED", "FAILED",
};

struct ibfab_cmtest {
	wait_queue_head_t wq;
	spinlock_t lock;		/* seen, passive, why */
	unsigned long seen;
	struct ib_cm_id *passive;
	int why;
	int rej_reason;
};

static void ct_note(struct ibfab_cmtest *ct, int ev, int why)
{
	unsigned long flags;

	spin_lock_irqsave(&ct->lock, flags);
	set_bit(ev, &ct->seen);
	if (ev == CT_FAILED && !ct->why)
		ct->why = why;
	spin_unlock_irqrestore(&ct->lock, flags);
	pr_info("cmtest: %s\n", ct_names[ev]);
	wake_up(&ct->wq);
}

/* The result @ret of the reply ct_handler() sent: a failure ends the test. */
static void ct_sent(struct ibfab_cmtest *ct, int ret)
{
	if (ret)
		ct_note(ct, CT_FAILED, ret);
}

static int ct_handler(struct ib_cm_id *id, const struct ib_cm_event *ev)
{
	struct ibfab_cmtest *ct = id->context;
	struct ib_cm_rep_param rep = {};
	unsigned long flags;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		spin_lock_irqsave(&ct->lock, flags);
		ct->passive = id;
		spin_unlock_irqrestore(&ct->lock, flags);
		ct_note(ct, CT_REQ_RECEIVED, 0);
		rep.qp_num = 0x5678;
		rep.starting_psn = 0x2000;
		rep.responder_resources = 1;
		rep.initiator_depth = 1;
		rep.rnr_retry_count = 7;
		rep.flow_control = 1;
		ct_sent(ct, ib_send_cm_rep(id, &rep));
		break;
	case IB_CM_REP_RECEIVED:
		ct_note(ct, CT_REP_RECEIVED, 0);
		ct_sent(ct, ib_send_cm_rtu(id, NULL, 0));
		break;
	case IB_CM_DREQ_RECEIVED:
		ct_note(ct, CT_DREQ_RECEIVED, 0);
		ct_sent(ct, ib_send_cm_drep(id, NULL, 0));
		break;
	case IB_CM_RTU_RECEIVED:
		ct_note(ct, CT_RTU_RECEIVED, 0);
		break;
	case IB_CM_DREP_RECEIVED:
		ct_note(ct, CT_DREP_RECEIVED, 0);
		break;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
		ct_note(ct, CT_FAILED, -ETIMEDOUT);
		break;
	case IB_CM_REJ_RECEIVED:
		pr_info("cmtest: REJ reason %d\n", ev->param.rej_rcvd.reason);
		ct->rej_reason = ev->param.rej_rcvd.reason;
		ct_note(ct, CT_FAILED, -ECONNREFUSED);
		break;
	default:
		break;
	}
	return 0;
}

/* An RC REQ on @path to service ID @sid naming QP number @qpn. */
static void ct_req_param(struct ib_cm_req_param *req, struct sa_path_rec *path,
			 u64 sid, u32 qpn)
{
	req->primary_path = path;
	req->service_id = cpu_to_be64(sid);
	req->qp_num = qpn;
	req->qp_type = IB_QPT_RC;
	req->starting_psn = 0x1000;
	req->responder_resources = 1;
	req->initiator_depth = 1;
	req->remote_cm_response_timeout = 20;
	req->local_cm_response_timeout = 20;
	req->flow_control = 1;
	req->retry_count = 7;
	req->rnr_retry_count = 7;
	req->max_cm_retries = 3;
}

/* A CM id on @dev whose events ct_handler() takes, into *@id: 0 or errno. */
static int ct_cm_id(struct ibfab_dev *dev, struct ibfab_cmtest *ct,
		    struct ib_cm_id **id)
{
	struct ib_cm_id *cm_id = ib_create_cm_id(&dev->ibdev, ct_handler, ct);

	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	*id = cm_id;
	return 0;
}

/* Until ev (or a failure) happened: 0, or the failure's errno. */
static int ct_wait(struct ibfab_cmtest *ct, int ev)
{
	if (!wait_event_timeout(ct->wq, test_bit(ev, &ct->seen) ||
				test_bit(CT_FAILED, &ct->seen),
				msecs_to_jiffies(IBFAB_CM_WAIT_MS)))
		return -ETIMEDOUT;
	return test_bit(ev, &ct->seen) ? 0 : ct->why;
}

static int ibfab_cmd_cmtest(unsigned int si, unsigned int di)
{
	struct ibfab_dev *src = ibfab_dev_arg(si), *dst = ibfab_dev_arg(di);
	struct ib_cm_id *listen = NULL, *active = NULL, *passive;
	struct ib_cm_req_param req = {};
	struct ibfab_cmtest ct = {};
	struct sa_path_rec path;
	const char *step;
	int ret;

	if (!src || !dst)
		return -EINVAL;
	init_waitqueue_head(&ct.wq);
	spin_lock_init(&ct.lock);
	step = "path query";
	ret = ibfab_path_query(src, dst, 2000, &path);
	if (ret)
		goto out;
	step = "listen";
	ret = ct_cm_id(dst, &ct, &listen);
	if (ret)
		goto out;
	ret = ib_cm_listen(listen, cpu_to_be64(IBFAB_CM_SERVICE_ID));
	if (ret)
		goto out;
	step = "REQ";
	ret = ct_cm_id(src, &ct, &active);
	if (ret)
		goto out;
	ct_req_param(&req, &path, IBFAB_CM_SERVICE_ID, 0x1234);
	ret = ib_send_cm_req(active, &req);
	if (ret)
		goto out;
	step = "REQ/REP/RTU";
	ret = ct_wait(&ct, CT_RTU_RECEIVED);
	if (ret)
		goto out;
	step = "DREQ";
	ret = ib_send_cm_dreq(active, NULL, 0);
	if (ret)
		goto out;
	step = "DREQ/DREP";
	ret = ct_wait(&ct, CT_DREP_RECEIVED);
out:
	if (active)
		ib_destroy_cm_id(active);
	if (listen)
		ib_destroy_cm_id(listen);
	spin_lock_irq(&ct.lock);
	passive = ct.passive;
	spin_unlock_irq(&ct.lock);
	/* Created by ib_cm for the REQ; its handler has returned. */
	if (passive)
		ib_destroy_cm_id(passive);
	if (ret)
		snprintf(fab.last, sizeof(fab.last),
			 "cmtest %s->%s: %s failed: %d",
			 dev_name(&src->ibdev.dev), dev_name(&dst->ibdev.dev),
			 step, ret);
	else
		snprintf(fab.last, sizeof(fab.last),
			 "cmtest %s->%s: connected and disconnected (slid %u dlid %u)",
			 dev_name(&src->ibdev.dev), dev_name(&dst->ibdev.dev),
			 be32_to_cpu(sa_path_get_slid(&path)),
			 be32_to_cpu(sa_path_get_dlid(&path)));
	pr_info("%s\n", fab.last);
	return ret;
}

/*
 * "cmreq SRC DST SID HEX": a REQ from ibfabSRC to service ID SID (hex)
 * on ibfabDST with private data HEX ("-": none), as a CM peer that is
 * not rdma_cm sends it (byte 0 is what HEX says). The result line has
 * "rej REASON" or, when a REP came (the RTU sent), "rep" and the DREQ
 * and DREP after it.
 */
static int ibfab_cmd_cmreq(char *args)
{
	char *tok[4];
	unsigned int si, di, i;
	struct ibfab_dev *src, *dst;
	struct ib_cm_req_param req = {};
	struct ibfab_cmtest ct = {};
	struct ib_cm_id *active;
	struct sa_path_rec path;
	u8 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE] = {};
	size_t len = 0;
	u64 sid;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tok); i++)
		tok[i] = strsep(&args, " ");
	if (args || !tok[3] || kstrtouint(tok[0], 0, &si) ||
	    kstrtouint(tok[1], 0, &di) || kstrtou64(tok[2], 16, &sid))
		return -EINVAL;
	src = ibfab_dev_arg(si);
	dst = ibfab_dev_arg(di);
	if (!src || !dst)
		return -EINVAL;
	if (strcmp(tok[3], "-")) {
		len = strlen(tok[3]);
		if (len % 2 || len / 2 > sizeof(pdata) ||
		    hex2bin(pdata, tok[3], len / 2))
			return -EINVAL;
		len /= 2;
	}
	init_waitqueue_head(&ct.wq);
	spin_lock_init(&ct.lock);
	ret = ibfab_path_query(src, dst, 2000, &path);
	if (ret)
		return ret;
	ret = ct_cm_id(src, &ct, &active);
	if (ret)
		return ret;
	ct_req_param(&req, &path, sid, 0x4321);
	req.private_data = len ? pdata : NULL;
	req.private_data_len = len;
	ret = ib_send_cm_req(active, &req);
	if (!ret)
		ret = ct_wait(&ct, CT_REP_RECEIVED);
	if (ret == -ECONNREFUSED) {
		snprintf(fab.last, sizeof(fab.last), "cmreq sid 0x%llx: rej %d",
			 sid, ct.rej_reason);
		ret = 0;
	} else if (!ret) {
		ret = ib_send_cm_dreq(active, NULL, 0);
		if (!ret)
			ret = ct_wait(&ct, CT_DREP_RECEIVED);
		snprintf(fab.last, sizeof(fab.last),
			 "cmreq sid 0x%llx: rep, disconnect %d", sid, ret);
	}
	ib_destroy_cm_id(active);
	pr_info("%s\n", fab.last);
	return ret;
}

struct ibfab_mcjoin {
	struct completion done;
	int status;
	struct ib_sa_mcmember_rec rec;
};

static int ibfab_mc_done(int status, struct ib_sa_multicast *mc)
{
	struct ibfab_mcjoin *j = mc->context;

	/* Only the first callback counts: later ones are group errors. */
	if (!completion_done(&j->done)) {
		j->status = status;
		if (!status)
			j->rec = mc->rec;
		complete(&j->done);
	}
	return 0;
}

static int ibfab_cmd_mcjoin(const unsigned int *idx, unsigned int n)
{
	struct ib_sa_multicast **mc;
	struct ibfab_mcjoin *j;
	unsigned long slack = msecs_to_jiffies(IBFAB_SA_SLACK_MS);
	union ib_gid mgid = {};
	unsigned int i;
	int len, ret = 0;

	for (i = 0; i < n; i++)
		if (!ibfab_dev_arg(idx[i]))
			return -EINVAL;
	mc = kcalloc(n, sizeof(*mc), GFP_KERNEL);
	j = kcalloc(n, sizeof(*j), GFP_KERNEL);
	if (!mc || !j) {
		kfree(mc);
		kfree(j);
		return -ENOMEM;
	}
	len = snprintf(fab.last, sizeof(fab.last), "mcjoin:");
	for (i = 0; i < n && !ret; i++) {
		struct ibfab_dev *dev = fab.devs[idx[i]];
		struct ib_sa_mcmember_rec rec = {};
		ib_sa_comp_mask mask = IB_SA_MCMEMBER_REC_MGID |
			IB_SA_MCMEMBER_REC_PORT_GID |
			IB_SA_MCMEMBER_REC_PKEY |
			IB_SA_MCMEMBER_REC_JOIN_STATE;

		init_completion(&j[i].done);
		rec.mgid = mgid;
		ibfab_gid(dev->index, &rec.port_gid);
		rec.pkey = cpu_to_be16(IBFAB_PKEY);
		rec.join_state = 1;	/* full member */
		if (i == 0) {
			/* The creating join: the group's Q_Key, SL, class. */
			rec.qkey = cpu_to_be32(0x01234567);
			mask |= IB_SA_MCMEMBER_REC_QKEY |
				IB_SA_MCMEMBER_REC_SL |
				IB_SA_MCMEMBER_REC_FLOW_LABEL |
				IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;
		}
		mc[i] = ib_sa_join_multicast(&fab.sa_client, &dev->ibdev, 1,
					     &rec, mask, GFP_KERNEL,
					     ibfab_mc_done, &j[i]);
		if (IS_ERR(mc[i])) {
			ret = PTR_ERR(mc[i]);
			mc[i] = NULL;
			break;
		}
		/* ib_sa's join has its own timeout and retries. */
		if (!wait_for_completion_timeout(&j[i].done, slack))
			ret = -ETIMEDOUT;
		else
			ret = j[i].status;
		if (ret)
			break;
		mgid = j[i].rec.mgid;
		len += scnprintf(fab.last + len, sizeof(fab.last) - len,
				 " %s mgid %pI6 mlid 0x%04x qkey 0x%08x join_state %u;",
				 dev_name(&dev->ibdev.dev), j[i].rec.mgid.raw,
				 be16_to_cpu(j[i].rec.mlid),
				 be32_to_cpu(j[i].rec.qkey), j[i].rec.join_state);
	}
	/* The leaves: ib_sa sends them; the SA's counters show them. */
	for (i = 0; i < n; i++)
		if (mc[i])
			ib_sa_free_multicast(mc[i]);
	if (ret)
		scnprintf(fab.last + len, sizeof(fab.last) - len,
			  " failed: %d", ret);
	pr_info("%s\n", fab.last);
	kfree(mc);
	kfree(j);
	return ret;
}

/* --- debugfs ---------------------------------------------------------- */

static void ibfab_path_defaults(void)
{
	fab.path_sl = 0;
	fab.path_mtu = IB_MTU_4096;
	fab.path_rate = IB_RATE_100_GBPS;
	fab.path_life = IBFAB_PACKET_LIFE;
}

/* "sl N mtu N rate N life N", any of them: the PathRecords' fields. */
static int ibfab_cmd_sa_path(char *args)
{
	u8 sl = fab.path_sl, mtu = fab.path_mtu, rate = fab.path_rate;
	u8 life = fab.path_life;
	char *key, *val;
	unsigned int v;

	while ((key = strsep(&args, " "))) {
		val = strsep(&args, " ");
		if (!val || kstrtouint(val, 0, &v))
			return -EINVAL;
		if (!strcmp(key, "sl") && v <= 15)
			sl = v;
		else if (!strcmp(key, "mtu") && v >= IB_MTU_256 &&
			 v <= IB_MTU_4096)
			mtu = v;
		else if (!strcmp(key, "rate") && v >= IB_RATE_2_5_GBPS &&
			 v <= IB_RATE_600_GBPS)
			rate = v;
		else if (!strcmp(key, "life") && v <= 63)
			life = v;
		else
			return -EINVAL;
	}
	fab.path_sl = sl;
	fab.path_mtu = mtu;
	fab.path_rate = rate;
	fab.path_life = life;
	return 0;
}

static int ibfab_cmd_sa(char *args)
{
	char *what = strsep(&args, " ");
	unsigned int v, n = 1;

	if (!what)
		return -EINVAL;
	if (!strcmp(what, "reset") && !args) {
		mutex_lock(&fab.lock);
		fab.sa_delay_ms = 0;
		fab.sa_drop = 0;
		fab.sa_status_n = 0;
		ibfab_path_defaults();
		memset(&fab.cnt, 0, sizeof(fab.cnt));
		mutex_unlock(&fab.lock);
		return 0;
	}
	if (!args)
		return -EINVAL;
	if (!strcmp(what, "path")) {
		int ret;

		mutex_lock(&fab.lock);
		ret = ibfab_cmd_sa_path(args);
		mutex_unlock(&fab.lock);
		return ret;
	}
	if (!strcmp(what, "status")) {
		if (sscanf(args, "%i %u", &v, &n) < 1 || v > U16_MAX)
			return -EINVAL;
	} else if (kstrtouint(args, 0, &v)) {
		return -EINVAL;
	}
	mutex_lock(&fab.lock);
	if (!strcmp(what, "delay")) {
		fab.sa_delay_ms = v;
	} else if (!strcmp(what, "drop")) {
		fab.sa_drop = v;
	} else if (!strcmp(what, "status")) {
		fab.sa_status = v;
		fab.sa_status_n = n;
	} else {
		mutex_unlock(&fab.lock);
		return -EINVAL;
	}
	mutex_unlock(&fab.lock);
	return 0;
}

struct ibfab_ipres {
	struct completion done;
	int status;
};

static void ibfab_ipres_done(int status, struct sockaddr *src,
			     struct rdma_dev_addr *addr, void *context)
{
	struct ibfab_ipres *r = context;

	r->status = status;
	complete(&r->done);
}

/*
 * ipres SRC DST: ib_core's rdma_resolve_ip() (what the in-tree CM
 * resolves an address with) from IPv4 SRC to DST in the initial
 * namespace; the result line has what the in-tree CM's route query then
 * asks the SA for: the device type, source and destination GIDs and the
 * P_Key.
 */
static int ibfab_cmd_ipres(char *args)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET };
	char *s = strsep(&args, " "), *d = strsep(&args, " ");
	struct rdma_dev_addr *da;
	struct ibfab_ipres r;
	union ib_gid sgid, dgid;
	int ret;

	if (!s || !d || args ||
	    !in4_pton(s, -1, (u8 *)&src.sin_addr.s_addr, -1, NULL) ||
	    !in4_pton(d, -1, (u8 *)&dst.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	da = kzalloc(sizeof(*da), GFP_KERNEL);
	if (!da)
		return -ENOMEM;
	da->net = &init_net;
	init_completion(&r.done);
	ret = rdma_resolve_ip((struct sockaddr *)&src, (struct sockaddr *)&dst,
			      da, 5000, ibfab_ipres_done, false, &r);
	if (!ret) {
		unsigned long bound = msecs_to_jiffies(IBFAB_CM_WAIT_MS);

		if (!wait_for_completion_timeout(&r.done, bound)) {
			rdma_addr_cancel(da);
			r.status = -ETIMEDOUT;
		}
		ret = r.status;
	}
	if (ret) {
		snprintf(fab.last, sizeof(fab.last), "ipres: error %d", ret);
	} else {
		rdma_addr_get_sgid(da, &sgid);
		rdma_addr_get_dgid(da, &dgid);
		snprintf(fab.last, sizeof(fab.last),
			 "ipres: dev_type %u sgid %pI6c dgid %pI6c pkey 0x%04x",
			 da->dev_type, sgid.raw, dgid.raw, ib_addr_get_pkey(da));
	}
	pr_info("%s\n", fab.last);
	kfree(da);
	return ret;
}

static int ibfab_cmd(char *line)
{
	unsigned int a[IBFAB_MAX_DEVS], n = 0;
	unsigned int timeout = 2000;
	char *cmd = strsep(&line, " ");
	char *tok;

	if (!strcmp(cmd, "sa"))
		return line ? ibfab_cmd_sa(line) : -EINVAL;
	if (!strcmp(cmd, "ipres"))
		return line ? ibfab_cmd_ipres(line) : -EINVAL;
	if (!strcmp(cmd, "cmreq"))
		return line ? ibfab_cmd_cmreq(line) : -EINVAL;
	while ((tok = strsep(&line, " "))) {
		if (n == ARRAY_SIZE(a) || kstrtouint(tok, 0, &a[n]))
			return -EINVAL;
		n++;
	}
	if (!strcmp(cmd, "pathq") && (n == 2 || n == 3))
		return ibfab_cmd_pathq(a[0], a[1], n == 3 ? a[2] : timeout);
	if (!strcmp(cmd, "cmtest") && n == 2)
		return ibfab_cmd_cmtest(a[0], a[1]);
	if (!strcmp(cmd, "mcjoin") && n >= 1)
		return ibfab_cmd_mcjoin(a, n);
	return -EINVAL;
}

/* A control file's command line, under fab.cmd_lock. */
static int ibfab_ctl_run(char *line)
{
	int ret;

	mutex_lock(&fab.cmd_lock);
	ret = ibfab_cmd(line);
	mutex_unlock(&fab.cmd_lock);
	return ret;
}

/* The control file's report: the counters, the SA's state, the last. */
static int ibfab_ctl_show(char *buf, size_t size)
{
	unsigned int delay, drop, stn, groups = 0, i;
	struct ibfab_counters c;
	int len;

	mutex_lock(&fab.lock);
	c = fab.cnt;
	delay = fab.sa_delay_ms;
	drop = fab.sa_drop;
	stn = fab.sa_status_n;
	for (i = 0; i < IBFAB_MC_GROUPS; i++)
		groups += fab.groups[i].used;
	mutex_unlock(&fab.lock);
	len = scnprintf(buf, size,
			"sent %llu\ndelivered %llu\ndrop_no_lid %llu\n"
			"drop_no_qp %llu\ndrop_qkey %llu\ndrop_no_recv %llu\n"
			"drop_smp %llu\ncq_overflow %llu\nsa_queries %llu\n"
			"sa_answered %llu\nsa_dropped %llu\nsa_status %llu\n"
			"sa_unsupported %llu\nsa_delay_ms %u\nsa_drop_left %u\n"
			"sa_status_left %u\nsa_groups %u\n",
			c.sent, c.delivered, c.drop_no_lid, c.drop_no_qp,
			c.drop_qkey, c.drop_no_recv, c.drop_smp,
			c.cq_overflow, c.sa_queries, c.sa_answered,
			c.sa_dropped, c.sa_status, c.sa_unsupported, delay,
			drop, stn, groups);
	mutex_lock(&fab.cmd_lock);
	len += scnprintf(buf + len, size - len, "last: %s\n", fab.last);
	mutex_unlock(&fab.cmd_lock);
	return len;
}

DEFINE_RCM_TESTCTL(ibfab, IBFAB_CMD_MAX, ibfab_ctl_run, PAGE_SIZE,
		   ibfab_ctl_show);

/* --- module ----------------------------------------------------------- */

static const struct ib_device_ops ibfab_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,

	.alloc_pd = ibfab_alloc_pd,
	.attach_mcast = ibfab_attach_mcast,
	.create_ah = ibfab_create_ah,
	.create_cq = ibfab_create_cq,
	.create_qp = ibfab_create_qp,
	.dealloc_pd = ibfab_dealloc_pd,
	.dereg_mr = ibfab_dereg_mr,
	.destroy_ah = ibfab_destroy_ah,
	.destroy_cq = ibfab_destroy_cq,
	.destroy_qp = ibfab_destroy_qp,
	.detach_mcast = ibfab_detach_mcast,
	.get_dma_mr = ibfab_get_dma_mr,
	.get_port_immutable = ibfab_get_port_immutable,
	.modify_port = ibfab_modify_port,
	.modify_qp = ibfab_modify_qp,
	.poll_cq = ibfab_poll_cq,
	.post_recv = ibfab_post_recv,
	.post_send = ibfab_post_send,
	.query_device = ibfab_query_device,
	.query_gid = ibfab_query_gid,
	.query_ah = ibfab_query_ah,
	.query_pkey = ibfab_query_pkey,
	.query_port = ibfab_query_port,
	.query_qp = ibfab_query_qp,
	.reg_user_mr = ibfab_reg_user_mr,
	.req_notify_cq = ibfab_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, ibfab_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, ibfab_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, ibfab_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, ibfab_qp, ibqp),
};

static void ibfab_remove_devs(void)
{
	unsigned int i;

	for (i = fab.ndevs; i-- > 0;) {
		struct ibfab_dev *dev = fab.devs[i];

		mutex_lock(&fab.lock);
		dev->live = false;
		mutex_unlock(&fab.lock);
		ib_unregister_device(&dev->ibdev);
	}
}

static void ibfab_free_devs(void)
{
	unsigned int i;

	for (i = 0; i < fab.ndevs; i++) {
		WARN_ON(!xa_empty(&fab.devs[i]->qps));
		xa_destroy(&fab.devs[i]->qps);
		ib_dealloc_device(&fab.devs[i]->ibdev);
		fab.devs[i] = NULL;
	}
	fab.ndevs = 0;
}

/* After the devices are gone: the SA's pending answers and the wire. */
static void ibfab_drain(void)
{
	struct ibfab_pkt *pkt, *tmp;

	spin_lock_irq(&fab.qlock);
	fab.closing = true;
	spin_unlock_irq(&fab.qlock);
	cancel_delayed_work_sync(&fab.sa_work);
	flush_workqueue(fab.wq);
	list_for_each_entry_safe(pkt, tmp, &fab.sa_pending, list) {
		list_del(&pkt->list);
		kfree(pkt);
	}
	list_for_each_entry_safe(pkt, tmp, &fab.queue, list) {
		list_del(&pkt->list);
		kfree(pkt);
	}
}

static int __init ibfab_init(void)
{
	unsigned int i;
	int ret;

	if (ndevs < 1 || ndevs > IBFAB_MAX_DEVS)
		return -EINVAL;
	spin_lock_init(&fab.qlock);
	INIT_LIST_HEAD(&fab.queue);
	INIT_LIST_HEAD(&fab.sa_pending);
	INIT_WORK(&fab.work, ibfab_work);
	INIT_DELAYED_WORK(&fab.sa_work, ibfab_sa_work);
	mutex_init(&fab.lock);
	mutex_init(&fab.cmd_lock);
	fab.next_mlid = IBFAB_MLID_BASE;
	ibfab_path_defaults();
	fab.next_mgid = 1;
	fab.wq = alloc_ordered_workqueue("rcm_ibfab", 0);
	if (!fab.wq)
		return -ENOMEM;
	ib_sa_register_client(&fab.sa_client);

	for (i = 0; i < ndevs; i++) {
		struct ibfab_dev *dev = ib_alloc_device(ibfab_dev, ibdev);

		if (!dev) {
			ret = -ENOMEM;
			goto err;
		}
		dev->index = i;
		dev->lid = i + 1;
		spin_lock_init(&dev->port_lock);
		xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
		dev->next_qpn = 2;
		dev->ibdev.node_type = RDMA_NODE_IB_CA;
		dev->ibdev.node_guid = ibfab_guid(i);
		dev->ibdev.phys_port_cnt = 1;
		dev->ibdev.num_comp_vectors = 1;
		snprintf(dev->ibdev.node_desc, sizeof(dev->ibdev.node_desc),
			 "rcm_ibfab port %u", i);
		ib_set_device_ops(&dev->ibdev, &ibfab_ops);
		fab.devs[i] = dev;
		fab.ndevs = i + 1;
	}
	for (i = 0; i < ndevs; i++) {
		char name[IB_DEVICE_NAME_MAX];

		mutex_lock(&fab.lock);
		fab.devs[i]->live = true;
		mutex_unlock(&fab.lock);
		snprintf(name, sizeof(name), "ibfab%u", i);
		/* No DMA device: virtual DMA, addresses are the kernel's. */
		ret = ib_register_device(&fab.devs[i]->ibdev, name, NULL);
		if (ret) {
			mutex_lock(&fab.lock);
			fab.devs[i]->live = false;
			mutex_unlock(&fab.lock);
			/* Unregister those before it, free all. */
			while (i-- > 0) {
				mutex_lock(&fab.lock);
				fab.devs[i]->live = false;
				mutex_unlock(&fab.lock);
				ib_unregister_device(&fab.devs[i]->ibdev);
			}
			goto err;
		}
	}
	fab.dir = debugfs_create_dir("rcm_ibfab", NULL);
	debugfs_create_file("ctl", 0600, fab.dir, NULL, &ibfab_ctl_fops);
	pr_info("%u devices, SM LID %u\n", ndevs, IBFAB_SM_LID);
	return 0;

err:
	ibfab_drain();
	ibfab_free_devs();
	ib_sa_unregister_client(&fab.sa_client);
	destroy_workqueue(fab.wq);
	return ret;
}

static void __exit ibfab_exit(void)
{
	debugfs_remove_recursive(fab.dir);
	ibfab_remove_devs();
	ibfab_drain();
	ibfab_free_devs();
	ib_sa_unregister_client(&fab.sa_client);
	destroy_workqueue(fab.wq);
}

module_init(ibfab_init);
module_exit(ibfab_exit);
MODULE_DESCRIPTION("rcm test-only InfiniBand fabric with a small SA");
MODULE_LICENSE("GPL");
