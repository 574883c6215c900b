// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * cm_id: what the library does with ids that the real module cannot be
 * made to show (the rest of cm_id runs against rcm.ko in a guest:
 * userlib/test/guest/cm_id.c).
 *
 * - destroy: a failing RCM_IOCTL_DESTROY_ID is -1 with the kernel's
 *   errno and leaves the id usable;
 * - devices sharing a node GUID are told apart by the device index the
 *   kernel reports with it (bind's view, or a query).
 *
 * The module's replies are scripted over the syscall seam (seam.h), and
 * libibverbs' devices are faked (fake_verbs.c).
 */
#include <arpa/inet.h>
#include <errno.h>

#include <rdma/rdma_cma.h>

#include "cm_helpers.h"

static struct sockaddr_in sin4(const char *ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	sin.sin_port = htons(port);
	return sin;
}

static void destroy_failure(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;

	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	seam_fail_next(RCM_CMD_DESTROY_ID, EFAULT);
	errno = 0;
	T_CHECK(rdma_destroy_id(id) == -1);
	T_CHECK(errno == EFAULT);
	T_CHECK(rdma_destroy_id(id) == 0);		/* still valid */
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
	if (!ch || rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(ch, &b, NULL, RDMA_PS_TCP)) {
		T_CHECK(!"setup");
		return;
	}
	script_info.flags = RCM_ID_INFO_IBDEV_INDEX;
	script_info.ibdev_index = 1;
	T_CHECK(rdma_bind_addr(a, (struct sockaddr *)&spec) == 0);
	T_CHECK(a->verbs && a->verbs->device == &fake_devices[1]);
	/* Through a query too (an ADDR_RESOLVED without the view). */
	script_no_view = true;
	script_info.ibdev_index = 0;
	T_CHECK(rdma_resolve_addr(b, NULL, (struct sockaddr *)&dst, 500) == 0);
	T_CHECK(rdma_get_cm_event(ch, &ev) == 0);
	T_CHECK(ev && ev->event == RDMA_CM_EVENT_ADDR_RESOLVED);
	if (ev)
		rdma_ack_cm_event(ev);
	T_CHECK(SEAM_CALLS(RCM_CMD_QUERY_ID) == 1);
	T_CHECK(b->verbs && b->verbs->device == &fake_devices[0]);
	T_CHECK(rdma_destroy_id(a) == 0);
	T_CHECK(rdma_destroy_id(b) == 0);
	rdma_destroy_event_channel(ch);
}

CM_MAIN(rdma_create_id,
	{ "destroy failure", destroy_failure },
	{ "devices sharing a node GUID: by index", same_guid })
