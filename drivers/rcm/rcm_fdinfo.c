// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: what an open rcm file holds, in /proc/PID/fdinfo/FD - the file's
 * queue and one line per id: handle, port space, QP type, state, role,
 * addresses, device and port, unread events. rcm-stat(1) reads it for
 * every process, as `rdma res show cm_id` reads ib_core's resource
 * tracker for the in-tree CM (which an out-of-tree module cannot join).
 *
 * fdinfo rather than debugfs or a command: it needs no new uapi, works
 * where debugfs is not mounted or locked down, and procfs already lets
 * exactly those who may inspect the process (ptrace read access) read
 * it, in their own pid namespace's view. It shows nothing a process
 * could not learn from its own ids.
 *
 * Format, one "key:\tvalue" line for the file and one "rcm-id:" line of
 * space-separated key=value pairs per id, both stable (new keys may be
 * added at the end):
 *
 *   rcm-events-queued:	2
 *   rcm-event-size:	264
 *   rcm-id:	handle=1 ps=tcp qp=rc state=CONNECT role=active
 *		src=198.18.1.1:41000 dst=198.18.1.1:7471 dev=rxe0 port=1
 *		events=1 id=17 qpn=18
 *
 * handle is the id's within its file; id its number in the module (the
 * cm.id of the tracepoints, unique among live ids); qpn the QP number
 * its connect or accept announced, 0 before.
 */
#include <linux/seq_file.h>

#include "rcm_priv.h"

static const char *const rcm_fdinfo_states[] = {
	[RCM_STATE_IDLE] = "IDLE",
	[RCM_STATE_ADDR_BOUND] = "ADDR_BOUND",
	[RCM_STATE_ADDR_QUERY] = "ADDR_QUERY",
	[RCM_STATE_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RCM_STATE_ROUTE_QUERY] = "ROUTE_QUERY",
	[RCM_STATE_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RCM_STATE_LISTEN] = "LISTEN",
	[RCM_STATE_CONNECT] = "CONNECT",
	[RCM_STATE_DISCONNECT] = "DISCONNECT",
	[RCM_STATE_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RCM_STATE_DESTROYING] = "DESTROYING",
};

static const char *rcm_fdinfo_ps(u16 ps)
{
	switch (ps) {
	case RCM_PS_TCP:
		return "tcp";
	case RCM_PS_UDP:
		return "udp";
	case RCM_PS_IB:
		return "ib";
	case RCM_PS_IPOIB:
		return "ipoib";
	default:
		return "?";
	}
}

static const char *rcm_fdinfo_role(const struct rcm_id *id)
{
	if (id->state == RCM_STATE_LISTEN)
		return "listener";
	if (!id->cm_id && !id->iw)
		return "-";
	return id->active ? "active" : "passive";
}

/*
 * The next published id of @file from *@index on, with a reference, or
 * NULL; *@index is then its handle. Reserved handles (a migration in
 * flight) are skipped.
 */
static struct rcm_id *rcm_fdinfo_next(struct rcm_file *file,
				      unsigned long *index)
{
	struct rcm_id *id;

	xa_lock(&file->ids);
	id = xa_find(&file->ids, index, U32_MAX, XA_PRESENT);
	/* The entry holds the base reference: the count cannot be zero. */
	if (id)
		refcount_inc(&id->ref);
	xa_unlock(&file->ids);
	return id;
}

/*
 * " key=address:port", or " key=-" for no address. An AF_IB address,
 * which %pIS does not know, is its GID and service ID the way an IPv6
 * one is its address and port: " key=[fe80::200:fab0:0:1]:0x106ec7".
 */
static void rcm_fdinfo_addr(struct seq_file *m, const char *key,
			    const union rcm_sockaddr *addr)
{
	if (addr->sa.sa_family == AF_IB)
		seq_printf(m, " %s=[%pI6c]:0x%llx", key, &addr->ib.sib_addr,
			   be64_to_cpu(addr->ib.sib_sid));
	else if (addr->sa.sa_family)
		seq_printf(m, " %s=%pISpc", key, &addr->sa);
	else
		seq_printf(m, " %s=-", key);
}

static void rcm_fdinfo_id(struct seq_file *m, struct rcm_id *id)
{
	mutex_lock(&id->lock);
	seq_printf(m, "rcm-id:\thandle=%u ps=%s qp=%s state=%s role=%s",
		   id->handle, rcm_fdinfo_ps(id->ps),
		   rcm_id_is_ud(id) ? "ud" : "rc",
		   id->state < ARRAY_SIZE(rcm_fdinfo_states) ?
		   rcm_fdinfo_states[id->state] : "?", rcm_fdinfo_role(id));
	rcm_fdinfo_addr(m, "src", &id->bind.addr);
	rcm_fdinfo_addr(m, "dst", &id->dst_addr);
	if (id->rdev)
		seq_printf(m, " dev=%s port=%u", dev_name(&id->rdev->ibdev->dev),
			   id->port_num);
	else
		seq_puts(m, " dev=- port=-");
	if (id->state == RCM_STATE_LISTEN)
		seq_printf(m, " backlog=%u", rcm_listen_backlog(id));
	seq_printf(m, " events=%u id=%u qpn=%u\n", rcm_event_pending(id),
		   id->num, id->qp_num);
	mutex_unlock(&id->lock);
}

/**
 * rcm_show_fdinfo() - the file's part of /proc/PID/fdinfo/FD
 * @m: the seq_file procfs prints into
 * @filp: an open rcm file (procfs holds a reference)
 */
void rcm_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct rcm_file *file = filp->private_data;
	unsigned long index = 0;
	struct rcm_id *id;

	seq_printf(m, "rcm-events-queued:\t%u\n", READ_ONCE(file->nr_events));
	seq_printf(m, "rcm-event-size:\t%u\n", READ_ONCE(file->event_size));
	while ((id = rcm_fdinfo_next(file, &index))) {
		rcm_fdinfo_id(m, id);
		rcm_id_put(id);
		index++;
	}
}
