// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm_ibref: the in-tree rdma_cm on the test fabric, as a kernel ULP uses
 * it; the reference the fabric's tests hold rcm against. Test-only, never
 * installed: guest tests load it from their initramfs after rdma_cm, and
 * it depends on nothing of rcm_ibfab (or of rcm): the fabric's devices
 * come and go under it as under any rdma_cm user.
 *
 * Its ids live in IBREF_SLOTS (256) numbered slots. The test creates
 * ids in slots below IBREF_FIRST_NEW (128); an id a CONNECT_REQUEST
 * creates takes the lowest free slot from IBREF_FIRST_NEW up. No QP
 * stands behind an id: rdma_connect() and rdma_accept() name the QP
 * number in conn_param, as a ULP that moves its own QP does (the fabric
 * carries MADs only).
 *
 * Control is a debugfs file, <debugfs>/rcm_ibref/ctl. Each write is one
 * command; it returns once the command is done, or fails with its errno.
 * GIDs are written as IPv6 addresses, service IDs and masks in hex,
 * private data as hex bytes ("-" for none):
 *
 *   create S PS QPT         rdma_create_id() in slot S; PS tcp, udp or
 *                           ib, QPT rc or ud
 *   bind S GID SID MASK     rdma_bind_addr() to an AF_IB address, P_Key
 *                           0xffff
 *   resolve S SRC DST SID MS
 *                           rdma_resolve_addr() from GID SRC ("-": none)
 *                           to GID DST, service ID SID, MS ms
 *   route S MS              rdma_resolve_route()
 *   listen S                rdma_listen(), backlog 8
 *   connect S QPN DATA      rdma_connect() with qp_num QPN
 *   accept S QPN DATA       rdma_accept() of a request
 *   establish S             rdma_accept(NULL) after CONNECT_RESPONSE: the
 *                           RTU (librdmacm's rdma_establish())
 *   reject S DATA           rdma_reject(), IB_CM_REJ_CONSUMER_DEFINED
 *   disconnect S            rdma_disconnect()
 *   destroy S               rdma_destroy_id()
 *   query S                 the id's addresses into the result line
 *   join S MGID [sendonly]  rdma_join_multicast() of the AF_IB address
 *                           MGID ("-": zero, the SA assigns one), a full
 *                           member or a send-only one
 *   leave S MGID            rdma_leave_multicast() of that address
 *   path S SLID DLID SL MTU RATE LIFE
 *                           rdma_set_ib_path() of the id's resolved GIDs
 *                           and P_Key with these values (flow label 0,
 *                           hop limit 0); the result line is the route's
 *                           path, as ROUTE_RESOLVED's
 *   wait S MS               the slot's next event, waited for up to MS
 *                           ms (-ETIMEDOUT), into the result line
 *   reset                   destroy every id, forget every event
 *
 * A read gives the last command's result line, "last: ...". An event's is
 * "key value" pairs: "slot S event N name NAME status N", then what the
 * event carries: "new S" (the request's id), "qpn N", "plen N pdata HEX"
 * (trailing zero bytes left out), and on ROUTE_RESOLVED and
 * CONNECT_REQUEST the id's primary path "slid N dlid N sl N mtu N rate N
 * life N pkey 0xN", on MULTICAST_JOIN the group "qpn N qkey 0xN mlid N
 * mgid GID" (the AH's DLID). N is enum rdma_cm_event_type, which rcm's events
 * share. A query's line: "src GID sid 0xN dst GID sid 0xN".
 *
 * DEVICE_REMOVAL is reported like any event; the id is then destroyed by
 * a work item (as ucma lets its file do), so that the device's removal,
 * which waits for every id on it, never waits for the test.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "rcm_testctl.h"

#define IBREF_SLOTS		256
#define IBREF_FIRST_NEW		128
#define IBREF_CMD_MAX		512
#define IBREF_LAST_MAX		1024
#define IBREF_PDATA_MAX		256
#define IBREF_PKEY		0xffff

struct ibref_slot {
	unsigned int index;
	struct rdma_cm_id *id;		/* ibref.lock to change; cmd_lock */
	bool taken;			/* ibref.lock: id or being created */
};

struct ibref_event {
	struct list_head list;
	unsigned int slot;
	char line[IBREF_LAST_MAX];
};

static struct ibref {
	struct ibref_slot slots[IBREF_SLOTS];
	spinlock_t lock;		/* slots' taken and id, events */
	struct list_head events;
	wait_queue_head_t wq;		/* an event queued */
	struct work_struct removal;	/* destroys ids whose device goes */
	unsigned long removed[BITS_TO_LONGS(IBREF_SLOTS)];	/* lock */
	struct mutex cmd_lock;		/* one command at a time; last */
	char last[IBREF_LAST_MAX];
	struct dentry *dir;
} ibref;

static const char *const ibref_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

/* " plen N pdata HEX", the trailing zero bytes left out. */
static int ibref_put_pdata(char *buf, size_t size, const void *data, u8 len)
{
	const u8 *p = data;
	int n, end = p ? len : 0;

	while (end > 0 && !p[end - 1])
		end--;
	n = scnprintf(buf, size, " plen %u pdata ", len);
	if (!end)
		return n + scnprintf(buf + n, size - n, "-");
	if (n + 2 * end >= size)
		return n;
	bin2hex(buf + n, p, end);
	buf[n + 2 * end] = '\0';
	return n + 2 * end;
}

/* The id's primary path, as its route holds it. */
static int ibref_put_path(char *buf, size_t size, struct rdma_cm_id *id)
{
	struct sa_path_rec *p;

	if (!id->route.path_rec)
		return scnprintf(buf, size, " path -");
	p = &id->route.path_rec[0];
	return scnprintf(buf, size,
			 " slid %u dlid %u sl %u mtu %u rate %u life %u pkey 0x%x",
			 be32_to_cpu(sa_path_get_slid(p)),
			 be32_to_cpu(sa_path_get_dlid(p)), p->sl, p->mtu,
			 p->rate, p->packet_life_time, be16_to_cpu(p->pkey));
}

/* A group joined: the remote QP number, Q_Key, MLID and MGID. */
static int ibref_put_group(char *buf, size_t size,
			   const struct rdma_ud_param *ud)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(&ud->ah_attr);

	return scnprintf(buf, size, " qpn %u qkey 0x%x mlid %u mgid %pI6",
			 ud->qp_num, ud->qkey, rdma_ah_get_dlid(&ud->ah_attr),
			 grh->dgid.raw);
}

/* The lowest free slot for a request's id, taken; or -1. */
static int ibref_take_new_slot(void)
{
	unsigned int i;

	spin_lock(&ibref.lock);
	for (i = IBREF_FIRST_NEW; i < IBREF_SLOTS; i++) {
		if (!ibref.slots[i].taken) {
			ibref.slots[i].taken = true;
			break;
		}
	}
	spin_unlock(&ibref.lock);
	return i < IBREF_SLOTS ? i : -1;
}

static void ibref_queue(struct ibref_event *e)
{
	spin_lock(&ibref.lock);
	list_add_tail(&e->list, &ibref.events);
	spin_unlock(&ibref.lock);
	wake_up(&ibref.wq);
}

static int ibref_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ibref_slot *slot = id->context;
	const size_t size = IBREF_LAST_MAX;
	struct ibref_event *e;
	const char *name = "?";
	int n, new = -1;

	if (ev->event < ARRAY_SIZE(ibref_event_names) &&
	    ibref_event_names[ev->event])
		name = ibref_event_names[ev->event];
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* The request's id: a slot of its own, or refused. */
		new = e ? ibref_take_new_slot() : -1;
		if (new < 0) {
			kfree(e);
			pr_warn("request refused: no slot\n");
			return -ENOMEM;
		}
		spin_lock(&ibref.lock);
		ibref.slots[new].id = id;
		spin_unlock(&ibref.lock);
		id->context = &ibref.slots[new];
	}
	if (!e)
		return 0;
	e->slot = slot->index;
	n = scnprintf(e->line, size, "slot %u event %d name %s status %d",
		      slot->index, ev->event, name, ev->status);
	if (new >= 0)
		n += scnprintf(e->line + n, size - n, " new %d", new);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
	case RDMA_CM_EVENT_ESTABLISHED:
		if (id->qp_type == IB_QPT_UD)
			break;
		n += scnprintf(e->line + n, size - n, " qpn %u",
			       ev->param.conn.qp_num);
		fallthrough;
	case RDMA_CM_EVENT_REJECTED:
		n += ibref_put_pdata(e->line + n, size - n,
				     ev->param.conn.private_data,
				     ev->param.conn.private_data_len);
		break;
	default:
		break;
	}
	if (ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED ||
	    ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ibref_put_path(e->line + n, size - n, id);
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN)
		ibref_put_group(e->line + n, size - n, &ev->param.ud);
	pr_info("%s\n", e->line);
	ibref_queue(e);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		spin_lock(&ibref.lock);
		set_bit(slot->index, ibref.removed);
		spin_unlock(&ibref.lock);
		schedule_work(&ibref.removal);
	}
	return 0;
}

/* Under cmd_lock: empty slot S of its id, which is returned to destroy. */
static struct rdma_cm_id *ibref_clear(unsigned int s)
{
	struct rdma_cm_id *id;

	spin_lock(&ibref.lock);
	id = ibref.slots[s].id;
	ibref.slots[s].id = NULL;
	ibref.slots[s].taken = false;
	clear_bit(s, ibref.removed);
	spin_unlock(&ibref.lock);
	return id;
}

/* The ids whose device is going away: destroyed, so that it can go. */
static void ibref_removal_work(struct work_struct *work)
{
	struct rdma_cm_id *id;
	unsigned int s;

	mutex_lock(&ibref.cmd_lock);
	for (s = 0; s < IBREF_SLOTS; s++) {
		if (!test_bit(s, ibref.removed))
			continue;
		id = ibref_clear(s);
		if (id)
			rdma_destroy_id(id);
	}
	mutex_unlock(&ibref.cmd_lock);
}

/* Under cmd_lock: destroy every id and forget every event. */
static void ibref_reset(void)
{
	struct ibref_event *e, *tmp;
	struct rdma_cm_id *id;
	unsigned int s;
	LIST_HEAD(old);

	for (s = 0; s < IBREF_SLOTS; s++) {
		id = ibref_clear(s);
		if (id)
			rdma_destroy_id(id);
	}
	spin_lock(&ibref.lock);
	list_splice_init(&ibref.events, &old);
	spin_unlock(&ibref.lock);
	list_for_each_entry_safe(e, tmp, &old, list)
		kfree(e);
}

/* --- commands (under cmd_lock) ---------------------------------------- */

static int ibref_slot_arg(const char *tok, unsigned int *s)
{
	return !tok || kstrtouint(tok, 0, s) || *s >= IBREF_SLOTS ? -EINVAL : 0;
}

/* Slot S's id, or NULL. */
static struct rdma_cm_id *ibref_id(unsigned int s)
{
	struct rdma_cm_id *id;

	spin_lock(&ibref.lock);
	id = ibref.slots[s].id;
	spin_unlock(&ibref.lock);
	return id;
}

/* An AF_IB address: GID ("-": zero), service ID and mask. */
static int ibref_sib(struct sockaddr_ib *sib, const char *gid,
		     const char *sid, const char *mask)
{
	u64 v;

	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_pkey = cpu_to_be16(IBREF_PKEY);
	if (!gid)
		return -EINVAL;
	if (strcmp(gid, "-") &&
	    !in6_pton(gid, -1, (u8 *)&sib->sib_addr, -1, NULL))
		return -EINVAL;
	if (sid) {
		if (kstrtou64(sid, 16, &v))
			return -EINVAL;
		sib->sib_sid = cpu_to_be64(v);
	}
	if (mask) {
		if (kstrtou64(mask, 16, &v))
			return -EINVAL;
		sib->sib_sid_mask = cpu_to_be64(v);
	}
	return 0;
}

/* Hex bytes ("-": none) into buf: their count, or -EINVAL. */
static int ibref_hex(const char *hex, u8 *buf, size_t size)
{
	size_t len;

	if (!hex || !strcmp(hex, "-"))
		return 0;
	len = strlen(hex);
	if (len % 2 || len / 2 > size || hex2bin(buf, hex, len / 2))
		return -EINVAL;
	return len / 2;
}

static int ibref_cmd_create(unsigned int s, const char *ps, const char *qpt)
{
	enum rdma_ucm_port_space space;
	enum ib_qp_type type;
	struct rdma_cm_id *id;

	if (!ps || !qpt || s >= IBREF_FIRST_NEW)
		return -EINVAL;
	if (!strcmp(ps, "tcp"))
		space = RDMA_PS_TCP;
	else if (!strcmp(ps, "udp"))
		space = RDMA_PS_UDP;
	else if (!strcmp(ps, "ib"))
		space = RDMA_PS_IB;
	else
		return -EINVAL;
	if (!strcmp(qpt, "rc"))
		type = IB_QPT_RC;
	else if (!strcmp(qpt, "ud"))
		type = IB_QPT_UD;
	else
		return -EINVAL;
	spin_lock(&ibref.lock);
	if (ibref.slots[s].taken) {
		spin_unlock(&ibref.lock);
		return -EBUSY;
	}
	ibref.slots[s].taken = true;
	spin_unlock(&ibref.lock);
	id = rdma_create_id(&init_net, ibref_handler, &ibref.slots[s], space,
			    type);
	if (IS_ERR(id)) {
		ibref_clear(s);
		return PTR_ERR(id);
	}
	spin_lock(&ibref.lock);
	ibref.slots[s].id = id;
	spin_unlock(&ibref.lock);
	return 0;
}

static int ibref_cmd_query(unsigned int s, struct rdma_cm_id *id)
{
	struct sockaddr_ib *src = (struct sockaddr_ib *)&id->route.addr.src_addr;
	struct sockaddr_ib *dst = (struct sockaddr_ib *)&id->route.addr.dst_addr;

	if (src->sib_family != AF_IB)
		return -EAFNOSUPPORT;
	snprintf(ibref.last, sizeof(ibref.last),
		 "slot %u src %pI6 sid 0x%llx dst %pI6 sid 0x%llx", s,
		 &src->sib_addr, be64_to_cpu(src->sib_sid), &dst->sib_addr,
		 be64_to_cpu(dst->sib_sid));
	return 0;
}

/* "join S MGID [sendonly]" and "leave S MGID". */
static int ibref_cmd_mcast(struct rdma_cm_id *id, bool join, char **a)
{
	u8 state = BIT(FULLMEMBER_JOIN);
	struct sockaddr_ib mc;
	int ret;

	ret = ibref_sib(&mc, a[0], NULL, NULL);
	if (ret)
		return ret;
	if (!join) {
		if (a[1])
			return -EINVAL;
		rdma_leave_multicast(id, (struct sockaddr *)&mc);
		return 0;
	}
	if (a[1] && strcmp(a[1], "sendonly"))
		return -EINVAL;
	if (a[1])
		state = BIT(SENDONLY_FULLMEMBER_JOIN);
	if (a[2])
		return -EINVAL;
	return rdma_join_multicast(id, (struct sockaddr *)&mc, state, NULL);
}

/*
 * "path S SLID DLID SL MTU RATE LIFE": rdma_set_ib_path() as ucma's
 * RDMA_OPTION_IB_PATH gives it a record, the GIDs and P_Key the id's.
 */
static int ibref_cmd_path(struct rdma_cm_id *id, char **a)
{
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;
	struct sa_path_rec rec = {};
	u16 slid, dlid;
	u8 v[4];
	int ret, i;

	if (!a[0] || kstrtou16(a[0], 0, &slid) || !a[1] ||
	    kstrtou16(a[1], 0, &dlid))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (!a[2 + i] || kstrtou8(a[2 + i], 0, &v[i]))
			return -EINVAL;
	rec.rec_type = SA_PATH_REC_TYPE_IB;
	rdma_addr_get_sgid(dev_addr, &rec.sgid);
	rdma_addr_get_dgid(dev_addr, &rec.dgid);
	sa_path_set_slid(&rec, slid);
	sa_path_set_dlid(&rec, dlid);
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec.reversible = 1;
	rec.numb_path = 1;
	rec.sl = v[0];
	rec.mtu_selector = IB_SA_EQ;
	rec.mtu = v[1];
	rec.rate_selector = IB_SA_EQ;
	rec.rate = v[2];
	rec.packet_life_time_selector = IB_SA_EQ;
	rec.packet_life_time = v[3];
	ret = rdma_set_ib_path(id, &rec);
	if (ret)
		return ret;
	ibref_put_path(ibref.last, sizeof(ibref.last), id);
	return 0;
}

/* A connect's or accept's parameters: QP number and private data. */
static int ibref_conn_param(struct rdma_conn_param *p, u8 *pdata,
			    const char *qpn, const char *hex)
{
	int len;

	memset(p, 0, sizeof(*p));
	if (!qpn || kstrtou32(qpn, 0, &p->qp_num))
		return -EINVAL;
	len = ibref_hex(hex, pdata, IBREF_PDATA_MAX);
	if (len < 0)
		return len;
	p->private_data = len ? pdata : NULL;
	p->private_data_len = len;
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->flow_control = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	return 0;
}

/* The first queued event of slot s, taken off the queue; or NULL. */
static struct ibref_event *ibref_next_event(unsigned int s)
{
	struct ibref_event *e, *found = NULL;

	spin_lock(&ibref.lock);
	list_for_each_entry(e, &ibref.events, list) {
		if (e->slot == s) {
			list_del(&e->list);
			found = e;
			break;
		}
	}
	spin_unlock(&ibref.lock);
	return found;
}

/*
 * "wait S MS", outside cmd_lock (the removal work takes it while a test
 * may wait): slot S's next event within MS ms, into last.
 */
static int ibref_wait(char *line)
{
	struct ibref_event *e = NULL;
	char *tok = strsep(&line, " ");
	unsigned int s, ms;
	long left;

	if (ibref_slot_arg(tok, &s) || !line || kstrtouint(line, 0, &ms))
		return -EINVAL;
	left = wait_event_interruptible_timeout(ibref.wq,
						(e = ibref_next_event(s)),
						msecs_to_jiffies(ms));
	if (left < 0)
		return left;
	if (!e)
		return -ETIMEDOUT;
	mutex_lock(&ibref.cmd_lock);
	strscpy(ibref.last, e->line, sizeof(ibref.last));
	mutex_unlock(&ibref.cmd_lock);
	kfree(e);
	return 0;
}

static int ibref_cmd(char *line)
{
	u8 pdata[IBREF_PDATA_MAX];
	struct rdma_conn_param param;
	char *cmd = strsep(&line, " ");
	char *a[7] = {};
	struct sockaddr_ib src, dst;
	struct rdma_cm_id *id;
	unsigned int s, i, t;
	int ret;

	if (!strcmp(cmd, "reset")) {
		ibref_reset();
		return line ? -EINVAL : 0;
	}
	if (ibref_slot_arg(strsep(&line, " "), &s))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(a); i++)
		a[i] = strsep(&line, " ");
	if (line)
		return -EINVAL;
	if (!strcmp(cmd, "create"))
		return ibref_cmd_create(s, a[0], a[1]);
	id = ibref_id(s);
	if (!id)
		return -ENOENT;
	if (!strcmp(cmd, "bind")) {
		ret = ibref_sib(&src, a[0], a[1], a[2]);
		return ret ?: rdma_bind_addr(id, (struct sockaddr *)&src);
	}
	if (!strcmp(cmd, "resolve")) {
		ret = ibref_sib(&src, a[0], NULL, NULL);
		if (!ret)
			ret = ibref_sib(&dst, a[1], a[2], "ffffffffffffffff");
		if (!ret && (!a[3] || kstrtouint(a[3], 0, &t)))
			ret = -EINVAL;
		if (ret)
			return ret;
		return rdma_resolve_addr(id, strcmp(a[0], "-") ?
					 (struct sockaddr *)&src : NULL,
					 (struct sockaddr *)&dst, t);
	}
	if (!strcmp(cmd, "route")) {
		if (!a[0] || kstrtouint(a[0], 0, &t))
			return -EINVAL;
		return rdma_resolve_route(id, t);
	}
	if (!strcmp(cmd, "listen")) {
		ret = rdma_listen(id, 8);
		return ret ?: ibref_cmd_query(s, id);
	}
	if (!strcmp(cmd, "query"))
		return ibref_cmd_query(s, id);
	if (!strcmp(cmd, "connect")) {
		ret = ibref_conn_param(&param, pdata, a[0], a[1]);
		return ret ?: rdma_connect(id, &param);
	}
	if (!strcmp(cmd, "accept") || !strcmp(cmd, "establish")) {
		if (cmd[0] == 'a') {
			ret = ibref_conn_param(&param, pdata, a[0], a[1]);
			if (ret)
				return ret;
		}
		/* Outside the handler: its lock, as ucma takes it. */
		rdma_lock_handler(id);
		ret = rdma_accept(id, cmd[0] == 'a' ? &param : NULL);
		rdma_unlock_handler(id);
		return ret;
	}
	if (!strcmp(cmd, "reject")) {
		ret = ibref_hex(a[0], pdata, IB_CM_REJ_PRIVATE_DATA_SIZE);
		if (ret < 0)
			return ret;
		return rdma_reject(id, ret ? pdata : NULL, ret,
				   IB_CM_REJ_CONSUMER_DEFINED);
	}
	if (!strcmp(cmd, "join") || !strcmp(cmd, "leave"))
		return ibref_cmd_mcast(id, cmd[0] == 'j', a);
	if (!strcmp(cmd, "path"))
		return ibref_cmd_path(id, a);
	if (!strcmp(cmd, "disconnect"))
		return rdma_disconnect(id);
	if (!strcmp(cmd, "destroy")) {
		id = ibref_clear(s);
		if (id)
			rdma_destroy_id(id);
		return 0;
	}
	return -EINVAL;
}

/* A control file's command line: "wait ..." outside ibref.cmd_lock. */
static int ibref_ctl_run(char *line)
{
	int ret;

	if (!strncmp(line, "wait ", 5))
		return ibref_wait(line + 5);
	mutex_lock(&ibref.cmd_lock);
	ibref.last[0] = '\0';
	ret = ibref_cmd(line);
	mutex_unlock(&ibref.cmd_lock);
	return ret;
}

/* The control file's report: the last command's result. */
static int ibref_ctl_show(char *buf, size_t size)
{
	int len;

	mutex_lock(&ibref.cmd_lock);
	len = scnprintf(buf, size, "last: %s\n", ibref.last);
	mutex_unlock(&ibref.cmd_lock);
	return len;
}

DEFINE_RCM_TESTCTL(ibref, IBREF_CMD_MAX, ibref_ctl_run, IBREF_LAST_MAX + 8,
		   ibref_ctl_show);

static int __init ibref_init(void)
{
	unsigned int i;

	spin_lock_init(&ibref.lock);
	INIT_LIST_HEAD(&ibref.events);
	init_waitqueue_head(&ibref.wq);
	INIT_WORK(&ibref.removal, ibref_removal_work);
	mutex_init(&ibref.cmd_lock);
	for (i = 0; i < IBREF_SLOTS; i++)
		ibref.slots[i].index = i;
	ibref.dir = debugfs_create_dir("rcm_ibref", NULL);
	debugfs_create_file("ctl", 0600, ibref.dir, NULL, &ibref_ctl_fops);
	return 0;
}

static void __exit ibref_exit(void)
{
	debugfs_remove_recursive(ibref.dir);
	mutex_lock(&ibref.cmd_lock);
	ibref_reset();
	mutex_unlock(&ibref.cmd_lock);
	cancel_work_sync(&ibref.removal);
}

module_init(ibref_init);
module_exit(ibref_exit);
MODULE_DESCRIPTION("rcm test-only in-tree rdma_cm reference on the IB test fabric");
MODULE_LICENSE("GPL");
