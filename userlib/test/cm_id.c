// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_id: rdma_create_id(), rdma_destroy_id(), rdma_bind_addr(),
 * rdma_resolve_addr(), rdma_get_src_port() and rdma_get_dst_port() issue
 * the right rcm ioctls and keep the id's fields as librdmacm does.
 *
 * - create: RCM_IOCTL_CREATE_ID with size, flags 0, the port space, the
 *   QP type librdmacm derives from it (UDP/IPOIB: UD, TCP/IB: RC) and a
 *   non-zero context; the id shows channel, context, ps, qp_type;
 * - create errors: NULL id pointer EINVAL, kernel errno passed through,
 *   nothing leaked;
 * - synchronous mode: a private channel (a new open file) that destroy
 *   closes;
 * - destroy: RCM_IOCTL_DESTROY_ID names the id's handle; a failure is
 *   -1 with the kernel's errno and leaves the id usable;
 * - bind: RCM_IOCTL_BIND_ADDR carries the handle and the address (rest
 *   zero); the id then shows the kernel's port and, for a specific
 *   address, the device, port number, GID and P_Key; unknown family
 *   EINVAL without an ioctl;
 * - resolve: RCM_IOCTL_RESOLVE_ADDR carries handle, timeout, src (family
 *   0 when NULL) and dst; dst is in the id at once; kernel errors come
 *   back as -1/errno.
 * - hotplug: a device added after the library read the device list is
 *   found when the kernel attaches an id to it (the list is re-read, as
 *   librdmacm's sync_devices_list()), and rdma_get_devices() lists it;
 *   a device removed is no longer listed, while the id that holds its
 *   context keeps it.
 * - devices sharing a node GUID are told apart by the device index the
 *   kernel reports with it (bind's view, or a query).
 *
 * The module is faked (fake_rcm.c), and so are libibverbs' devices
 * (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include <rdma/rdma_cma.h>

#include "fake_rcm.h"
#include "fake_verbs.h"
#include "helpers.h"

static struct sockaddr_in sin4(const char *ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	sin.sin_port = htons(port);
	return sin;
}

static bool all_zero(const void *p, size_t from, size_t to)
{
	const uint8_t *b = p;

	for (; from < to; from++)
		if (b[from])
			return false;
	return true;
}

static void create_destroy(void)
{
	static const struct {
		enum rdma_port_space ps;
		enum ibv_qp_type qpt;
	} cases[] = {
		{ RDMA_PS_TCP, IBV_QPT_RC },
		{ RDMA_PS_UDP, IBV_QPT_UD },
		{ RDMA_PS_IPOIB, IBV_QPT_UD },
		{ RDMA_PS_IB, IBV_QPT_RC },
	};
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	unsigned int i;
	int ctx;

	ch = rdma_create_event_channel();
	T_CHECK(ch != NULL);
	if (!ch)
		return;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		id = NULL;
		T_CHECK(rdma_create_id(ch, &id, &ctx, cases[i].ps) == 0);
		if (!id)
			continue;
		T_CHECK(fake_last_create.size == sizeof(struct rcm_create_id));
		T_CHECK(fake_last_create.flags == 0);
		T_CHECK(fake_last_create.reserved == 0);
		T_CHECK(fake_last_create.port_space == cases[i].ps);
		T_CHECK(fake_last_create.qp_type == cases[i].qpt);
		T_CHECK(fake_last_create.context != 0);
		T_CHECK(id->channel == ch);
		T_CHECK(id->context == &ctx);
		T_CHECK(id->ps == cases[i].ps);
		T_CHECK(id->qp_type == cases[i].qpt);
		T_CHECK(id->verbs == NULL && id->event == NULL);
		T_CHECK(fake_rcm_id_live(ch->fd, fake_last_create.out_id));

		T_CHECK(rdma_destroy_id(id) == 0);
		T_CHECK(fake_last_destroy.size ==
			sizeof(struct rcm_destroy_id));
		T_CHECK(fake_last_destroy.flags == 0);
		T_CHECK(fake_last_destroy.id == fake_last_create.out_id);
		T_CHECK(!fake_rcm_id_live(ch->fd, fake_last_create.out_id));
	}
	T_CHECK(FAKE_CALLS(RCM_CMD_CREATE_ID) == 4);
	T_CHECK(FAKE_CALLS(RCM_CMD_DESTROY_ID) == 4);
	rdma_destroy_event_channel(ch);
}

static void create_errors(void)
{
	struct rdma_cm_id *id = (struct rdma_cm_id *)&id;
	struct rdma_event_channel *ch;
	int fd;

	ch = rdma_create_event_channel();
	if (!ch) {
		T_CHECK(ch != NULL);
		return;
	}
	errno = 0;
	T_CHECK(rdma_create_id(ch, NULL, NULL, RDMA_PS_TCP) == -1);
	T_CHECK(errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_CREATE_ID) == 0);

	fake_rcm_fail_next(RCM_CMD_CREATE_ID, EMFILE);
	errno = 0;
	T_CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == -1);
	T_CHECK(errno == EMFILE);
	T_CHECK(id == (struct rdma_cm_id *)&id);	/* untouched */

	/* Synchronous: the private channel is closed again. */
	fd = t_lowest_free_fd();
	fake_rcm_fail_next(RCM_CMD_CREATE_ID, EINVAL);
	errno = 0;
	T_CHECK(rdma_create_id(NULL, &id, NULL, 0x4242) == -1);
	T_CHECK(errno == EINVAL);
	T_CHECK(t_lowest_free_fd() == fd);
	rdma_destroy_event_channel(ch);
}

static void sync_private_channel(void)
{
	struct rdma_cm_id *id = NULL;
	int fd = t_lowest_free_fd();

	T_CHECK(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP) == 0);
	if (!id)
		return;
	T_CHECK(id->channel != NULL);
	T_CHECK(id->channel && id->channel->fd == fd);	/* a new file */
	T_CHECK(fake_rcm_id_live(fd, fake_last_create.out_id));
	T_CHECK(rdma_destroy_id(id) == 0);
	T_CHECK(t_lowest_free_fd() == fd);		/* and closed */
}

static void destroy_failure(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;

	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	fake_rcm_fail_next(RCM_CMD_DESTROY_ID, EFAULT);
	errno = 0;
	T_CHECK(rdma_destroy_id(id) == -1);
	T_CHECK(errno == EFAULT);
	T_CHECK(rdma_destroy_id(id) == 0);		/* still valid */
	errno = 0;
	T_CHECK(rdma_destroy_id(NULL) == -1 && errno == EINVAL);
	rdma_destroy_event_channel(ch);
}

static void bind_addr(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in any = sin4("0.0.0.0", 0);
	struct sockaddr_in spec = sin4("192.0.2.10", 7471);
	struct sockaddr_un_like {
		sa_family_t family;
		char path[14];
	} unix_addr = { .family = AF_UNIX };
	struct ibv_context **devs;
	struct rdma_cm_id *a = NULL, *b = NULL;
	const struct sockaddr_in *src;
	int n;

	fake_num_devices = 2;
	fake_attach_guid = FAKE_GUID(1);
	fake_attach_port = 1;
	fake_attach_sgid[15] = 0x5a;
	if (!ch || rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &b, NULL, RDMA_PS_UDP)) {
		T_CHECK(!"setup");
		return;
	}

	errno = 0;
	T_CHECK(rdma_bind_addr(a, (struct sockaddr *)&unix_addr) == -1);
	T_CHECK(errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_BIND_ADDR) == 0);
	errno = 0;
	T_CHECK(rdma_bind_addr(a, NULL) == -1 && errno == EINVAL);

	/* Wildcard, port 0: the kernel's port shows, no device. */
	T_CHECK(rdma_get_src_port(a) == 0);
	T_CHECK(rdma_bind_addr(a, (struct sockaddr *)&any) == 0);
	T_CHECK(fake_last_bind.size == sizeof(struct rcm_bind_addr));
	T_CHECK(fake_last_bind.flags == 0 && fake_last_bind.reserved == 0);
	T_CHECK(fake_last_bind.id == fake_last_create.out_id - 1);
	T_CHECK(!memcmp(&fake_last_bind.addr, &any, sizeof(any)));
	T_CHECK(all_zero(&fake_last_bind.addr, sizeof(any),
			 sizeof(fake_last_bind.addr)));
	/* The bind answered with the id's view: no query. */
	T_CHECK(FAKE_CALLS(RCM_CMD_QUERY_ID) == 0);
	T_CHECK(rdma_get_src_port(a) == htons(fake_ephemeral));
	T_CHECK(rdma_get_local_addr(a)->sa_family == AF_INET);
	T_CHECK(a->verbs == NULL && a->port_num == 0);

	/* A specific address attaches the id to the device. */
	T_CHECK(rdma_bind_addr(b, (struct sockaddr *)&spec) == 0);
	T_CHECK(fake_last_bind.id == fake_last_create.out_id);
	src = (const struct sockaddr_in *)rdma_get_local_addr(b);
	T_CHECK(src->sin_addr.s_addr == spec.sin_addr.s_addr);
	T_CHECK(rdma_get_src_port(b) == htons(7471));
	T_CHECK(rdma_get_dst_port(b) == 0);
	devs = rdma_get_devices(&n);
	T_CHECK(devs && n == 2);
	T_CHECK(devs && b->verbs == devs[1]);
	T_CHECK(b->verbs && b->verbs->device == &fake_devices[1]);
	T_CHECK(b->port_num == 1);
	T_CHECK(b->route.addr.addr.ibaddr.sgid.raw[15] == 0x5a);
	T_CHECK(b->route.addr.addr.ibaddr.pkey == 0);	/* as in-tree */
	rdma_free_devices(devs);

	/* Kernel errors pass through. */
	errno = 0;
	T_CHECK(rdma_bind_addr(b, (struct sockaddr *)&spec) == -1);
	T_CHECK(errno == EINVAL);

	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

static void resolve(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst = sin4("192.0.2.20", 7471);
	struct sockaddr_in src = sin4("192.0.2.10", 0);
	struct sockaddr_in6 dst6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons(4791) };
	struct rdma_cm_id *a = NULL, *b = NULL;

	fake_resolve_mode = FAKE_RESOLVE_SILENT;
	if (!ch || rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &b, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	errno = 0;
	T_CHECK(rdma_resolve_addr(a, NULL, NULL, 1000) == -1);
	T_CHECK(errno == EINVAL);
	T_CHECK(FAKE_CALLS(RCM_CMD_RESOLVE_ADDR) == 0);

	T_CHECK(rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst, 2000) == 0);
	T_CHECK(fake_last_resolve.size == sizeof(struct rcm_resolve_addr));
	T_CHECK(fake_last_resolve.flags == 0);
	T_CHECK(fake_last_resolve.id == fake_last_create.out_id - 1);
	T_CHECK(fake_last_resolve.timeout_ms == 2000);
	T_CHECK(all_zero(&fake_last_resolve.src, 0,
			 sizeof(fake_last_resolve.src)));
	T_CHECK(!memcmp(&fake_last_resolve.dst, &dst, sizeof(dst)));
	T_CHECK(all_zero(&fake_last_resolve.dst, sizeof(dst),
			 sizeof(fake_last_resolve.dst)));
	/* The destination is in the id before any event. */
	T_CHECK(!memcmp(rdma_get_peer_addr(a), &dst, sizeof(dst)));
	T_CHECK(rdma_get_dst_port(a) == htons(7471));
	T_CHECK(a->event == NULL);

	T_CHECK(rdma_resolve_addr(b, (struct sockaddr *)&src,
				  (struct sockaddr *)&dst, 0) == 0);
	T_CHECK(fake_last_resolve.timeout_ms == 0);
	T_CHECK(!memcmp(&fake_last_resolve.src, &src, sizeof(src)));

	/* Resolving twice, a negative timeout: the kernel's EINVAL. */
	errno = 0;
	T_CHECK(rdma_resolve_addr(b, NULL, (struct sockaddr *)&dst, 0) == -1);
	T_CHECK(errno == EINVAL);
	fake_rcm_fail_next(RCM_CMD_RESOLVE_ADDR, ENETUNREACH);
	errno = 0;
	T_CHECK(rdma_resolve_addr(b, NULL, (struct sockaddr *)&dst6, 10) == -1);
	T_CHECK(errno == ENETUNREACH);
	T_CHECK(rdma_get_dst_port(b) == htons(4791));	/* copied first */

	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

static void negative_timeout(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst = sin4("192.0.2.20", 7471);
	struct rdma_cm_id *a = NULL;

	if (!ch || rdma_create_id(ch, &a, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	errno = 0;
	T_CHECK(rdma_resolve_addr(a, NULL, (struct sockaddr *)&dst, -1) == -1);
	T_CHECK(errno == EINVAL);
	T_CHECK(fake_last_resolve.timeout_ms == 0xffffffffu);
	T_CHECK(rdma_destroy_id(a) == 0);
	rdma_destroy_event_channel(ch);
}

static void hotplug(void)
{
	struct sockaddr_in spec = sin4("192.0.2.10", 7471);
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ibv_context **devs;
	struct rdma_cm_id *b = NULL;
	int n = 0;

	fake_num_devices = 1;
	devs = rdma_get_devices(&n);
	T_CHECK(devs && n == 1);
	rdma_free_devices(devs);

	/* Added later: the kernel attaches the id to it. */
	fake_num_devices = 2;
	fake_attach_guid = FAKE_GUID(1);
	fake_attach_port = 1;
	if (!ch || rdma_create_id(ch, &b, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	T_CHECK(rdma_bind_addr(b, (struct sockaddr *)&spec) == 0);
	T_CHECK(b->verbs && b->verbs->device == &fake_devices[1]);
	T_CHECK(b->pd != NULL);
	devs = rdma_get_devices(&n);
	T_CHECK(devs && n == 2 && devs[1] == b->verbs);
	rdma_free_devices(devs);

	/* Removed: not listed; the id keeps its context. */
	fake_num_devices = 1;
	devs = rdma_get_devices(&n);
	T_CHECK(devs && n == 1 && devs[0]->device == &fake_devices[0]);
	rdma_free_devices(devs);
	T_CHECK(b->verbs && b->verbs->device == &fake_devices[1]);
	T_CHECK(rdma_destroy_id(b) == 0);
	T_CHECK(fake_live_pds == 0);
	rdma_destroy_event_channel(ch);
}

/*
 * Two devices with one node GUID: the kernel's device index picks the
 * right one, as librdmacm's match(); without an index the GUID alone.
 */
static void same_guid(void)
{
	struct sockaddr_in spec = sin4("192.0.2.10", 7471);
	struct sockaddr_in dst = sin4("192.0.2.20", 7471);
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *a = NULL, *b = NULL;
	struct rdma_cm_event *ev = NULL;

	fake_num_devices = 2;
	fake_same_guid = true;
	fake_attach_guid = FAKE_GUID(0);
	fake_attach_port = 1;
	if (!ch || rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &b, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	fake_attach_index = 1;
	T_CHECK(rdma_bind_addr(a, (struct sockaddr *)&spec) == 0);
	T_CHECK(a->verbs && a->verbs->device == &fake_devices[1]);
	/* Through a query too (an ADDR_RESOLVED without the view). */
	fake_send_info = false;
	fake_attach_index = 0;
	T_CHECK(rdma_resolve_addr(b, NULL, (struct sockaddr *)&dst, 500) == 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(FAKE_CALLS(RCM_CMD_QUERY_ID) == 1);
	T_CHECK(b->verbs && b->verbs->device == &fake_devices[0]);
	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

int main(int argc, char *argv[])
{
	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	t_require_our_lib((const void *)rdma_create_id);
	fake_rcm_init();

	t_in_child("create and destroy per port space", create_destroy);
	t_in_child("create errors", create_errors);
	t_in_child("synchronous mode: private channel", sync_private_channel);
	t_in_child("destroy failure", destroy_failure);
	t_in_child("bind", bind_addr);
	t_in_child("resolve", resolve);
	t_in_child("negative timeout", negative_timeout);
	t_in_child("a device added or removed later", hotplug);
	t_in_child("devices sharing a node GUID: by index", same_guid);
	return t_exit();
}
