// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * rcm userlib: multicast groups, rdma_join_multicast(),
 * rdma_join_multicast_ex() and rdma_leave_multicast(), and what
 * rdma_get_cm_event() does with a group's events.
 *
 * A join puts a struct rcm_mcast_private on the id's list and gives its address
 * to the kernel as the context of the group's events, which come back
 * as MULTICAST_JOIN (the group's UD parameters) or MULTICAST_ERROR. As
 * in librdmacm, the MULTICAST_JOIN that rdma_get_cm_event() hands out
 * has the id's QP attached to the group already (unless the join was
 * send-only), and both events carry the join's context in
 * param.ud.private_data.
 *
 * Event accounting: a group's events are the id's too (the kernel counts
 * them in both), so their ack completes one event of the group and one
 * of the id. rdma_leave_multicast() waits for the group's,
 * rdma_destroy_id() for the id's.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <infiniband/ib.h>

#include "rcm_lib.h"

/* Whether a kernel event type is a group's. */
bool rcm_mcast_event(uint32_t event)
{
	return event == RCM_EVENT_MULTICAST_JOIN ||
	       event == RCM_EVENT_MULTICAST_ERROR;
}

/**
 * rcm_mcast_find() - the group a record names
 * @chan: the channel that read it
 * @context: the record's context: a group's address, only compared
 * @handle: the record's id
 *
 * Caller holds chan->lock.
 *
 * Return: the group, on the list of the id with @handle, or NULL: the
 * record names no group of the channel and is ignored.
 */
struct rcm_mcast_private *rcm_mcast_find(struct rcm_channel *chan, uint64_t context,
					 uint32_t handle)
{
	struct rcm_mcast_private *mc;
	struct rcm_id_private *id;

	/* Any id, a request id or not: the record names it by handle. */
	id = rcm_channel_find_handle(chan, handle);
	if (!id)
		return NULL;
	for (mc = id->mcasts; mc; mc = mc->next)
		if ((uintptr_t)mc == context)
			return mc;
	return NULL;
}

/**
 * rcm_mcast_joined() - MULTICAST_JOIN before it is handed out
 * @ev: the event, its param.ud filled from the kernel's record
 *
 * Keeps the group's GID and LID (the event's address vector: dgid and
 * dlid) and, as librdmacm's ucma_process_join() does, attaches the id's
 * QP to them, unless the id has no QP, the join was send-only, or the
 * group is being left. If the attach fails the event becomes
 * MULTICAST_ERROR with status -1 and errno that of ibv_attach_mcast(),
 * as librdmacm makes it.
 */
void rcm_mcast_joined(struct rcm_cm_event *ev)
{
	struct rcm_mcast_private *mc = ev->mc;
	const struct ibv_ah_attr *ah = &ev->event.param.ud.ah_attr;
	struct rcm_channel *chan = rcm_id_channel_lock(mc->id);
	struct ibv_qp *qp = mc->id->id.qp;
	int err;

	mc->mgid = ah->grh.dgid;
	mc->mlid = ah->dlid;
	if (qp && !mc->leaving && !mc->attached &&
	    mc->join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER) {
		/* Under the lock: rdma_leave_multicast() sees it done. */
		err = ibv_attach_mcast(qp, &mc->mgid, mc->mlid);
		if (err) {
			ev->event.event = RDMA_CM_EVENT_MULTICAST_ERROR;
			ev->event.status = -1;
			errno = err > 0 ? err : EINVAL;
		} else {
			mc->attached = true;
		}
	}
	pthread_mutex_unlock(&chan->lock);
}

/*
 * Free the groups of an id that rdma_destroy_id() has accounted for:
 * the kernel left them when it destroyed the id, and every event of
 * theirs is completed. The QP is the application's (destroyed by now,
 * most likely): it is not detached, as in librdmacm.
 */
void rcm_mcast_free_all(struct rcm_id_private *id)
{
	struct rcm_mcast_private *mc;

	while ((mc = id->mcasts)) {
		id->mcasts = mc->next;
		free(mc);
	}
}

/* Take @mc off its id's list. Caller holds the id's channel lock. */
static void rcm_mcast_unlink(struct rcm_mcast_private *mc)
{
	struct rcm_mcast_private **p;

	for (p = &mc->id->mcasts; *p; p = &(*p)->next) {
		if (*p == mc) {
			*p = mc->next;
			return;
		}
	}
}

static int rcm_join(struct rdma_cm_id *id, const struct sockaddr *addr,
		    uint32_t join_flags, void *context)
{
	struct rcm_join_mcast cmd = { .size = sizeof(cmd) };
	/* AF_IB: an MGID on InfiniBand, as librdmacm's ucma_addrlen(). */
	socklen_t len = addr ? rcm_addr_len(addr) : 0;
	struct rcm_channel *chan;
	struct rcm_mcast_private *mc;
	struct rcm_id_private *rid;
	int err;

	if (!id || !len)
		return rcm_err(EINVAL);
	rid = rcm_id(id);
	mc = calloc(1, sizeof(*mc));
	if (!mc)
		return rcm_err(ENOMEM);
	mc->id = rid;
	mc->context = context;
	mc->join_flags = join_flags;
	memcpy(&mc->addr, addr, len);

	/* On the list before the kernel can report anything for it. */
	chan = rcm_id_channel_lock(rid);
	mc->next = rid->mcasts;
	rid->mcasts = mc;
	pthread_mutex_unlock(&chan->lock);

	cmd.id = rid->handle;
	cmd.join_flags = join_flags;
	cmd.context = (uintptr_t)mc;
	memcpy(&cmd.addr, addr, len);
	if (ioctl(chan->ch.fd, RCM_IOCTL_JOIN_MCAST, &cmd)) {
		err = errno;
		chan = rcm_id_channel_lock(rid);
		rcm_mcast_unlink(mc);
		pthread_mutex_unlock(&chan->lock);
		free(mc);
		return rcm_err(err);
	}
	return rid->sync ? rcm_sync_complete(rid) : 0;
}

/**
 * rdma_join_multicast() - join a multicast group as a full member
 * @id: a UD id (RDMA_PS_UDP, or RDMA_PS_IB with IBV_QPT_UD) bound to a
 *      local address or with its address resolved
 * @addr: the group: an IPv4 or IPv6 multicast address (the port is
 *        ignored)
 * @context: the application's value for the group's events (their
 *           param.ud.private_data)
 *
 * rdma_join_multicast_ex() with RDMA_MC_JOIN_FLAG_FULLMEMBER.
 *
 * Return: as rdma_join_multicast_ex().
 */
RCM_EXPORT int rdma_join_multicast(struct rdma_cm_id *id,
				   struct sockaddr *addr, void *context)
{
	return rcm_join(id, addr, RDMA_MC_JOIN_FLAG_FULLMEMBER, context);
}

/**
 * rdma_join_multicast_ex() - join a multicast group
 * @id: a UD id attached to a device (see rdma_join_multicast())
 * @mc_join_attr: comp_mask RDMA_CM_JOIN_MC_ATTR_ADDRESS |
 *                RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS, the group's address
 *                and RDMA_MC_JOIN_FLAG_FULLMEMBER (send and receive) or
 *                RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER (send only: the
 *                QP is not attached)
 * @context: the application's value for the group's events
 *
 * Asks the kernel to join (RCM_IOCTL_JOIN_MCAST). The answer is
 * MULTICAST_JOIN, with the group's QP number (0xffffff), Q_Key and
 * address vector in param.ud; when rdma_get_cm_event() returns it, the
 * id's QP, if any, is attached to the group (see rcm_mcast_joined());
 * an application that makes its QP later attaches it itself. Or
 * MULTICAST_ERROR with a negative errno. In synchronous mode the call
 * waits for that event and leaves it in id->event.
 *
 * Return: 0, or -1 with errno: ENOTSUP (comp_mask bits beyond those two,
 * as librdmacm), EINVAL (NULL argument, no address or no join flags in
 * comp_mask, unknown join flags, an address other than IPv4 or IPv6,
 * or the kernel's: not a UD id, not attached, not a multicast address),
 * ENOMEM, the kernel's ENOBUFS (the channel's groups at the module's
 * bound), EOPNOTSUPP, ENODEV
 * (the netdev is gone), ENXIO (the device was removed), ENOENT; in synchronous mode those of the event (its status).
 */
RCM_EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *id,
				      struct rdma_cm_join_mc_attr_ex *mc_join_attr,
				      void *context)
{
	if (!mc_join_attr)
		return rcm_err(EINVAL);
	if (mc_join_attr->comp_mask >= RDMA_CM_JOIN_MC_ATTR_RESERVED)
		return rcm_err(ENOTSUP);
	if (!(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    !(mc_join_attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    mc_join_attr->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED)
		return rcm_err(EINVAL);
	return rcm_join(id, mc_join_attr->addr, mc_join_attr->join_flags,
			context);
}

/*
 * Whether two group addresses are the same group: family and address,
 * the port aside (as librdmacm compares them).
 */
static bool rcm_mcast_same(const struct sockaddr_storage *a,
			   const struct sockaddr *b)
{
	if (a->ss_family != b->sa_family)
		return false;
	if (b->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (b->sa_family == AF_IB)
		return !memcmp(&((const struct sockaddr_ib *)a)->sib_addr,
			       &((const struct sockaddr_ib *)b)->sib_addr,
			       sizeof(struct ib_addr));
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

/**
 * rdma_leave_multicast() - leave a multicast group
 * @id: the id that joined
 * @addr: the group's address, as given to the join (the port aside)
 *
 * Detaches the id's QP from the group if the library attached it, asks
 * the kernel to leave (RCM_IOCTL_LEAVE_MCAST, with the join's address),
 * which discards the group's events read() has not returned yet and says
 * how many it did return; the call waits until the application acked
 * those. Then the group is forgotten. Records of the group that another
 * thread read meanwhile are completed at once, never handed out.
 *
 * If the kernel refuses, the group stays joined (its QP detached).
 * A synchronous id's event in id->event that is a group's is acked
 * first.
 *
 * Return: 0, or -1 with errno: EINVAL (NULL argument), EADDRNOTAVAIL
 * (the id has not joined @addr, or is leaving it already), the errors
 * of RCM_IOCTL_LEAVE_MCAST.
 */
RCM_EXPORT int rdma_leave_multicast(struct rdma_cm_id *id,
				    struct sockaddr *addr)
{
	struct rcm_leave_mcast cmd = { .size = sizeof(cmd) };
	struct rcm_channel *chan;
	struct rcm_mcast_private *mc;
	struct rcm_id_private *rid;
	bool attached;
	int err;

	if (!id || !addr)
		return rcm_err(EINVAL);
	rid = rcm_id(id);

	chan = rcm_id_channel_lock(rid);
	for (mc = rid->mcasts; mc; mc = mc->next)
		if (!mc->leaving && rcm_mcast_same(&mc->addr, addr))
			break;
	if (!mc) {
		pthread_mutex_unlock(&chan->lock);
		return rcm_err(EADDRNOTAVAIL);
	}
	/* From now on its records are completed as they come. */
	mc->leaving = true;
	attached = mc->attached;
	mc->attached = false;
	pthread_mutex_unlock(&chan->lock);

	/*
	 * A synchronous join left the group's event in id->event: the wait
	 * below would never end.
	 */
	if (rid->sync && id->event &&
	    container_of(id->event, struct rcm_cm_event, event)->mc == mc) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}

	if (attached && id->qp)
		ibv_detach_mcast(id->qp, &mc->mgid, mc->mlid);

	cmd.id = rid->handle;
	memcpy(&cmd.addr, &mc->addr,
	       rcm_addr_len((const struct sockaddr *)&mc->addr));
	if (ioctl(chan->ch.fd, RCM_IOCTL_LEAVE_MCAST, &cmd)) {
		err = errno;
		chan = rcm_id_channel_lock(rid);
		mc->leaving = false;
		pthread_mutex_unlock(&chan->lock);
		return rcm_err(err);
	}

	chan = rcm_id_channel_lock(rid);
	/* Counters wrap; compare their distance. */
	while ((int32_t)(cmd.out_events_reported - mc->events_completed) > 0)
		pthread_cond_wait(&rid->acked, &chan->lock);
	rcm_mcast_unlink(mc);
	pthread_mutex_unlock(&chan->lock);
	free(mc);
	return 0;
}
