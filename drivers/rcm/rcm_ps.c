// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: port spaces - which id owns which port of RDMA_PS_TCP, _UDP, _IB
 * and _IPOIB.
 *
 * rcm's port spaces are its own: they are separate from the TCP/UDP
 * socket ports and from the in-tree rdma_cm's, exactly as the in-tree
 * rdma_cm's are separate from the sockets'. Each network namespace has
 * its own table and lock (as in-tree cma's are per namespace), so ids of
 * different namespaces never conflict, and the binds and listener
 * lookups of one namespace never wait for another's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include <kunit/visibility.h>

#include "rcm_priv.h"

/**
 * struct rcm_ps_port - one port of one port space and its owners
 * @owners: ids bound to the port (struct rcm_id.port_node)
 */
struct rcm_ps_port {
	struct hlist_head owners;
};

/**
 * struct rcm_ps_net - the port spaces of one network namespace
 * @table: struct rcm_ps_port by port space index << 16 | port
 * @lock: protects @table, its ports' owners and the port bindings of
 *        the namespace's ids (struct rcm_id: @bind, @dst_addr, @port)
 * @last: the ephemeral port handed out last, not reused straight away
 *
 * Made with the namespace (or at module load for those that exist) and
 * freed with it: every id holds a reference to its namespace, so the
 * table is empty by then.
 */
struct rcm_ps_net {
	struct xarray table;
	struct mutex lock;	/* @table, ports, ids' bindings */
	u16 last;
};

static unsigned int rcm_ps_net_id __read_mostly;

static struct rcm_ps_net *rcm_ps_net(struct net *net)
{
	return net_generic(net, rcm_ps_net_id);
}

static int __net_init rcm_ps_net_init(struct net *net)
{
	struct rcm_ps_net *psn = rcm_ps_net(net);

	xa_init(&psn->table);
	mutex_init(&psn->lock);
	return 0;
}

static void __net_exit rcm_ps_net_exit(struct net *net)
{
	struct rcm_ps_net *psn = rcm_ps_net(net);

	WARN_ON(!xa_empty(&psn->table));
	xa_destroy(&psn->table);
	mutex_destroy(&psn->lock);
}

static struct pernet_operations rcm_ps_net_ops = {
	.init = rcm_ps_net_init,
	.exit = rcm_ps_net_exit,
	.id = &rcm_ps_net_id,
	.size = sizeof(struct rcm_ps_net),
};

/**
 * rcm_ps_init() - give every network namespace its port spaces
 *
 * Return: 0 or -ENOMEM.
 */
int rcm_ps_init(void)
{
	return register_pernet_subsys(&rcm_ps_net_ops);
}

/**
 * rcm_ps_exit() - free them, once no id is left
 */
void rcm_ps_exit(void)
{
	unregister_pernet_subsys(&rcm_ps_net_ops);
}

static unsigned long rcm_ps_key(u16 ps, u16 port)
{
	unsigned long idx;

	switch (ps) {
	case RCM_PS_TCP:
		idx = 0;
		break;
	case RCM_PS_UDP:
		idx = 1;
		break;
	case RCM_PS_IB:
		idx = 2;
		break;
	default:		/* RCM_PS_IPOIB; ids are validated at create */
		idx = 3;
		break;
	}
	return idx << 16 | port;
}

/* The GID of an AF_IB address. */
static const struct in6_addr *rcm_addr_ib_gid(const struct sockaddr *sa)
{
	return (const struct in6_addr *)
	       &((const struct sockaddr_ib *)sa)->sib_addr;
}

/**
 * rcm_addr_is_any() - does this address stand for every address?
 * @sa: an AF_INET, AF_INET6 or AF_IB address
 *
 * The wildcard of its family, or - as in the in-tree CM's
 * cma_any_addr() - a loopback address: no RDMA device has one, so an id
 * bound to 127.0.0.1 or ::1 is bound to no device and listens on all,
 * which is what libfabric's verbs provider relies on when it listens on
 * "localhost". An AF_IB address is any when its GID is zero or ::1.
 */
bool rcm_addr_is_any(const struct sockaddr *sa)
{
	const struct in6_addr *a6;

	if (sa->sa_family == AF_INET) {
		__be32 a = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;

		return a == htonl(INADDR_ANY) || ipv4_is_loopback(a);
	}
	if (sa->sa_family == AF_IB)
		a6 = rcm_addr_ib_gid(sa);
	else
		a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	return ipv6_addr_any(a6) || ipv6_addr_loopback(a6);
}

/**
 * rcm_addr_port() - the port of an address
 * @sa: an AF_INET or AF_INET6 address, or an AF_IB one: the low 16 bits
 *      of its service ID, as cma.c:cma_port() takes it
 */
u16 rcm_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_IB)
		return (u16)be64_to_cpu(((const struct sockaddr_ib *)sa)->sib_sid);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

/*
 * The port into an address; for AF_IB into the service ID, whose bits
 * its mask selects, and the whole service ID is the id's from then on
 * (mask all ones), as cma.c:cma_bind_port() does.
 */
static void rcm_addr_set_port(struct sockaddr *sa, u16 port)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)sa;
	u64 sid, mask;

	switch (sa->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)sa)->sin_port = htons(port);
		break;
	case AF_IB:
		sid = be64_to_cpu(sib->sib_sid);
		mask = be64_to_cpu(sib->sib_sid_mask);
		sib->sib_sid = cpu_to_be64((sid & mask) | port);
		sib->sib_sid_mask = cpu_to_be64(~0ULL);
		break;
	default:
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
		break;
	}
}

/**
 * rcm_addr_equal() - same family and address (ports not compared)
 * @a: an AF_INET, AF_INET6 or AF_IB address
 * @b: another
 */
static bool rcm_addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_IB)
		return ipv6_addr_equal(rcm_addr_ib_gid(a), rcm_addr_ib_gid(b));
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/**
 * rcm_ps_ib_select() - the port space of an AF_IB binding
 * @ps: the id's port space
 * @sib: the address to bind; its service ID and mask are rewritten
 *
 * As cma.c:cma_select_ib_ps(): the service ID, under its mask, must be
 * in the IP CM range of a port space the id's allows (an RCM_PS_IB id
 * takes the IB, TCP and UDP ranges, a TCP or UDP id its own; a zero
 * mask takes the id's own). The service ID becomes that range's prefix
 * with the port (its low 16 bits), and the mask covers the prefix.
 *
 * Return: 0, or -EPROTONOSUPPORT for a service ID outside those ranges.
 */
int rcm_ps_ib_select(u16 ps, struct sockaddr_ib *sib)
{
	static const u16 spaces[] = { RCM_PS_IB, RCM_PS_TCP, RCM_PS_UDP };
	u64 mask = be64_to_cpu(sib->sib_sid_mask) & RCM_IB_IP_PS_MASK;
	u64 sid = be64_to_cpu(sib->sib_sid) & mask;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		u64 prefix = (u64)spaces[i] << 16;

		if ((ps == RCM_PS_IB || ps == spaces[i]) &&
		    sid == (prefix & mask)) {
			sib->sib_sid = cpu_to_be64(prefix | rcm_addr_port((struct sockaddr *)sib));
			sib->sib_sid_mask = cpu_to_be64(RCM_IB_IP_PS_MASK |
							be64_to_cpu(sib->sib_sid_mask));
			return 0;
		}
	}
	return -EPROTONOSUPPORT;
}

/*
 * The port space an id's port is taken in: its own, or for an AF_IB
 * binding the one its service ID names (rcm_ps_ib_select() put it there).
 */
static u16 rcm_ps_space(const struct rcm_id *id)
{
	const struct sockaddr_ib *sib = &id->bind.addr.ib;

	if (sib->sib_family == AF_IB)
		return (u16)(be64_to_cpu(sib->sib_sid) >> 16);
	return id->ps;
}

/**
 * rcm_ps_conflict() - may a new binding share a port with an owner?
 * @new: the binding asked for
 * @cur: a binding that holds the port (same port space, same netns)
 *
 * The in-tree rdma_cm's rules: two REUSEADDR bindings share; two AFONLY
 * bindings of different families share; otherwise a wildcard on either
 * side is -EADDRNOTAVAIL and the same address is -EADDRINUSE.
 *
 * Return: 0 when they may share, else the errno.
 */
VISIBLE_IF_KUNIT int rcm_ps_conflict(const struct rcm_binding *new,
				     const struct rcm_binding *cur)
{
	const struct sockaddr *a = (const struct sockaddr *)&new->addr;
	const struct sockaddr *b = (const struct sockaddr *)&cur->addr;

	if (new->reuseaddr && cur->reuseaddr)
		return 0;
	if (new->afonly && cur->afonly && a->sa_family != b->sa_family)
		return 0;
	if (rcm_addr_is_any(a) || rcm_addr_is_any(b))
		return -EADDRNOTAVAIL;
	if (rcm_addr_equal(a, b))
		return -EADDRINUSE;
	return 0;
}

/* An unset (family 0) or wildcard address tells two ids apart from nothing. */
static bool rcm_addr_is_set(const struct sockaddr *sa)
{
	return sa->sa_family && !rcm_addr_is_any(sa);
}

/**
 * rcm_ps_unique() - may two ids share an ephemeral port?
 * @a_src: one id's source address
 * @a_dst: its destination (family 0: none yet)
 * @b_src: the other id's source address
 * @b_dst: its destination
 *
 * The in-tree rdma_cm's rule for active ids: they share when something
 * both of them have set tells them apart - the destination port, the
 * source address or the destination address - so every connection keeps
 * a distinct (source, destination) pair. An id without a destination
 * (bound with port 0, or a listener) shares with nobody.
 *
 * Return: true when they may share the port.
 */
VISIBLE_IF_KUNIT bool rcm_ps_unique(const struct sockaddr *a_src,
				    const struct sockaddr *a_dst,
				    const struct sockaddr *b_src,
				    const struct sockaddr *b_dst)
{
	u16 a_port = a_dst->sa_family ? rcm_addr_port(a_dst) : 0;
	u16 b_port = b_dst->sa_family ? rcm_addr_port(b_dst) : 0;

	if (a_port && b_port && a_port != b_port)
		return true;
	if (rcm_addr_is_set(a_src) && rcm_addr_is_set(b_src) &&
	    !rcm_addr_equal(a_src, b_src))
		return true;
	return rcm_addr_is_set(a_dst) && rcm_addr_is_set(b_dst) &&
	       !rcm_addr_equal(a_dst, b_dst);
}

static bool rcm_ps_id_unique(const struct rcm_id *a, const struct rcm_id *b)
{
	return rcm_ps_unique((const struct sockaddr *)&a->bind.addr,
			       (const struct sockaddr *)&a->dst_addr,
			       (const struct sockaddr *)&b->bind.addr,
			       (const struct sockaddr *)&b->dst_addr);
}

static int rcm_ps_check(struct rcm_ps_port *p, struct rcm_id *id)
{
	struct rcm_id *cur;
	int ret;

	hlist_for_each_entry(cur, &p->owners, port_node) {
		if (cur == id)
			continue;
		ret = rcm_ps_conflict(&id->bind, &cur->bind);
		if (ret)
			return ret;
	}
	return 0;
}

/* Bind @id to @port if its rules allow; the namespace's lock held. */
static int rcm_ps_take(struct rcm_ps_net *psn, struct rcm_id *id, u16 port,
		       bool ephemeral)
{
	unsigned long key = rcm_ps_key(rcm_ps_space(id), port);
	struct rcm_ps_port *p;
	int ret;

	lockdep_assert_held(&psn->lock);

	p = xa_load(&psn->table, key);
	if (p) {
		/* An ephemeral port is shared only among distinct pairs. */
		if (ephemeral) {
			struct rcm_id *cur;

			hlist_for_each_entry(cur, &p->owners, port_node)
				if (!rcm_ps_id_unique(id, cur))
					return -EADDRNOTAVAIL;
		} else {
			ret = rcm_ps_check(p, id);
			if (ret)
				return ret;
		}
	} else {
		p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
		if (!p)
			return -ENOMEM;
		INIT_HLIST_HEAD(&p->owners);
		ret = xa_err(xa_store(&psn->table, key, p, GFP_KERNEL_ACCOUNT));
		if (ret) {
			kfree(p);
			return ret;
		}
	}
	hlist_add_head(&id->port_node, &p->owners);
	id->port = port;
	rcm_addr_set_port((struct sockaddr *)&id->bind.addr, port);
	return 0;
}

static int rcm_ps_take_any(struct rcm_ps_net *psn, struct rcm_id *id)
{
	int low, high, remaining, ret;
	u32 rover;

	inet_get_local_port_range(id->net, &low, &high);
	remaining = high - low + 1;
	rover = low + get_random_u32() % remaining;
	for (; remaining; remaining--) {
		if (rover != psn->last &&
		    !inet_is_local_reserved_port(id->net, rover)) {
			ret = rcm_ps_take(psn, id, rover, true);
			if (!ret) {
				psn->last = rover;
				return 0;
			}
			if (ret != -EADDRNOTAVAIL)
				return ret;
		}
		if (++rover > high)
			rover = low;
	}
	return -EADDRNOTAVAIL;
}

/**
 * rcm_ps_bind() - give an id the port its binding asks for
 * @id: the id; its @bind holds the address (port 0: any free port), the
 *      REUSEADDR and AFONLY choices; its @dst_addr the destination, if
 *      it is binding on its way to one (an ephemeral port may then be
 *      shared, see rcm_ps_unique()). The caller holds the id's lock.
 *
 * Ports below 1024 need CAP_NET_BIND_SERVICE, as in the in-tree CM.
 *
 * Return: 0 with the port written into @id->bind.addr, or -EACCES,
 * -EADDRINUSE, -EADDRNOTAVAIL or -ENOMEM.
 */
int rcm_ps_bind(struct rcm_id *id)
{
	u16 port = rcm_addr_port((struct sockaddr *)&id->bind.addr);
	struct rcm_ps_net *psn = rcm_ps_net(id->net);
	int ret;

	lockdep_assert_held(&id->lock);
	if (port && port < PROT_SOCK && !capable(CAP_NET_BIND_SERVICE))
		return -EACCES;

	mutex_lock(&psn->lock);
	if (port)
		ret = rcm_ps_take(psn, id, port, false);
	else
		ret = rcm_ps_take_any(psn, id);
	mutex_unlock(&psn->lock);
	return ret;
}

/**
 * rcm_ps_listen_exclusive() - make a listener's port its own
 * @id: the id about to listen, holding its port; the caller holds its
 *      lock
 *
 * As the in-tree rdma_listen(): a REUSEADDR binding may share its port
 * with other REUSEADDR bindings, but a listener must be alone on its
 * address, so the port is checked again as if REUSEADDR were off, and
 * the listener keeps it off from then on. Without this two users of a
 * namespace could both listen on one port, and the later one would
 * receive the other's connection requests.
 *
 * Return: 0, -EADDRINUSE (another binding of the address) or
 * -EADDRNOTAVAIL (another binding, and a wildcard on either side).
 */
int rcm_ps_listen_exclusive(struct rcm_id *id)
{
	struct rcm_ps_net *psn = rcm_ps_net(id->net);
	struct rcm_ps_port *p;
	int ret = 0;

	lockdep_assert_held(&id->lock);
	if (!id->bind.reuseaddr)
		return 0;
	mutex_lock(&psn->lock);
	id->bind.reuseaddr = false;
	p = xa_load(&psn->table, rcm_ps_key(rcm_ps_space(id), id->port));
	if (p)
		ret = rcm_ps_check(p, id);
	if (ret)
		id->bind.reuseaddr = true;
	mutex_unlock(&psn->lock);
	return ret;
}

/**
 * rcm_ps_listen_match() - does a listener take requests to an address?
 * @bound: the listener's binding
 * @dialled: the address the peer connected to
 *
 * The same address, or the wildcard of its family; a dual-stack (not
 * AFONLY) IPv6 wildcard also takes IPv4.
 */
VISIBLE_IF_KUNIT bool rcm_ps_listen_match(const struct rcm_binding *bound,
					  const struct sockaddr *dialled)
{
	const struct sockaddr *sa = (const struct sockaddr *)&bound->addr;

	if (sa->sa_family == dialled->sa_family)
		return rcm_addr_is_any(sa) || rcm_addr_equal(sa, dialled);
	return sa->sa_family == AF_INET6 && dialled->sa_family == AF_INET &&
	       rcm_addr_is_any(sa) && !bound->afonly;
}

/**
 * rcm_ps_find_listener() - the listening id a connection request is for
 * @ps: port space, from the request's service ID
 * @port: port, from the service ID
 * @net: network namespace of the netdev the request arrived on
 * @dialled: the address the peer connected to (from the CMA header)
 * @ibdev: the device the request arrived on
 *
 * A listener bound to a specific address listens on that address's
 * device only; a wildcard one on every device.
 *
 * Return: the listener with a reference taken, or NULL.
 */
struct rcm_id *rcm_ps_find_listener(u16 ps, u16 port, struct net *net,
				    const struct sockaddr *dialled,
				      struct ib_device *ibdev)
{
	struct rcm_ps_net *psn = rcm_ps_net(net);
	struct rcm_id *cur, *found = NULL;
	struct rcm_ps_port *p;

	mutex_lock(&psn->lock);
	p = xa_load(&psn->table, rcm_ps_key(ps, port));
	if (p) {
		hlist_for_each_entry(cur, &p->owners, port_node) {
			struct ib_device *bound = READ_ONCE(cur->listen_ibdev);

			/*
			 * @bound is only compared: the device may be going
			 * away under the listener's lock, not ours. The
			 * request's handler checks the state again under it.
			 */
			if (READ_ONCE(cur->state) != RCM_STATE_LISTEN ||
			    !rcm_ps_listen_match(&cur->bind, dialled) ||
			    (bound && bound != ibdev))
				continue;
			/* An owner has not dropped its base reference yet. */
			refcount_inc(&cur->ref);
			found = cur;
			break;
		}
	}
	mutex_unlock(&psn->lock);
	return found;
}

/**
 * rcm_ps_set_sharing() - change an id's REUSEADDR and AFONLY choices
 * @id: the id; the caller holds its lock
 * @reuseaddr: share with other REUSEADDR bindings
 * @afonly: do not share with bindings of the other address family
 *
 * Under the namespace's port table lock, since the conflict checks of other ids read them.
 */
void rcm_ps_set_sharing(struct rcm_id *id, bool reuseaddr, bool afonly)
{
	struct rcm_ps_net *psn = rcm_ps_net(id->net);

	lockdep_assert_held(&id->lock);
	mutex_lock(&psn->lock);
	id->bind.reuseaddr = reuseaddr;
	id->bind.afonly = afonly;
	mutex_unlock(&psn->lock);
}

/**
 * rcm_ps_set_addrs() - change the addresses of an id that holds a port
 * @id: the id; the caller holds its lock
 * @src: its new source address (port included), or NULL to keep it
 * @dst: its new destination, or NULL to keep it
 *
 * Under the namespace's port table lock, since other ids' port checks read them.
 */
void rcm_ps_set_addrs(struct rcm_id *id, const struct sockaddr *src,
		      const struct sockaddr_storage *dst)
{
	struct rcm_ps_net *psn = rcm_ps_net(id->net);

	lockdep_assert_held(&id->lock);
	mutex_lock(&psn->lock);
	if (src)
		rcm_addr_set(&id->bind.addr, src);
	if (dst)
		rcm_addr_set(&id->dst_addr, (const struct sockaddr *)dst);
	mutex_unlock(&psn->lock);
}

/**
 * rcm_ps_release() - give back an id's port, if it holds one
 * @id: the id, being destroyed or unbound
 */
void rcm_ps_release(struct rcm_id *id)
{
	struct rcm_ps_net *psn;
	unsigned long key;
	struct rcm_ps_port *p;

	if (!id->port)
		return;
	psn = rcm_ps_net(id->net);
	key = rcm_ps_key(rcm_ps_space(id), id->port);
	mutex_lock(&psn->lock);
	hlist_del(&id->port_node);
	p = xa_load(&psn->table, key);
	if (p && hlist_empty(&p->owners)) {
		xa_erase(&psn->table, key);
		kfree(p);
	}
	mutex_unlock(&psn->lock);
	id->port = 0;
}
