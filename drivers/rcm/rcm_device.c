// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: per-RDMA-device state, kept through an ib_client.
 *
 * ib_core calls rcm_add_one() for every registered device (and for each
 * one registered later) and rcm_remove_one() before the device goes away,
 * or when rcm unregisters. Devices without any CM-capable port are
 * declined, so ib_core never calls rcm_remove_one() for them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/overflow.h>

#include "rcm_priv.h"

/* Protects rcm_devices. Never held across a wait on a device's @done. */
static DEFINE_MUTEX(rcm_devices_lock);
static LIST_HEAD(rcm_devices);

/**
 * rcm_port_cm_from_caps() - which CM serves a port with these capabilities
 * @core_cap_flags: the port's RDMA_CORE_CAP_* immutable flags
 *
 * An IB CM port (InfiniBand, RoCE v1/v2) wins over an iWARP one; no
 * device announces both on one port.
 */
enum rcm_port_cm rcm_port_cm_from_caps(u32 core_cap_flags)
{
	if (core_cap_flags & RDMA_CORE_CAP_IB_CM)
		return RCM_PORT_CM_IB;
	if (core_cap_flags & RDMA_CORE_CAP_IW_CM)
		return RCM_PORT_CM_IW;
	return RCM_PORT_CM_NONE;
}

static void rcm_device_release(struct kref *ref)
{
	struct rcm_device *rdev = container_of(ref, struct rcm_device, ref);

	complete(&rdev->done);
}

static void rcm_device_put(struct rcm_device *rdev)
{
	kref_put(&rdev->ref, rcm_device_release);
}

/**
 * rcm_device_count() - number of devices rcm currently manages
 */
u32 rcm_device_count(void)
{
	struct rcm_device *rdev;
	u32 n = 0;

	mutex_lock(&rcm_devices_lock);
	list_for_each_entry(rdev, &rcm_devices, list)
		n++;
	mutex_unlock(&rcm_devices_lock);
	return n;
}

static int rcm_add_one(struct ib_device *ibdev)
{
	u32 num_ports = rdma_end_port(ibdev);
	struct rcm_device *rdev;
	bool any_cm = false;
	u32 port;

	rdev = kzalloc(struct_size(rdev, port_cm, num_ports), GFP_KERNEL);
	if (!rdev)
		return -ENOMEM;

	rdev->ibdev = ibdev;
	rdev->num_ports = num_ports;
	kref_init(&rdev->ref);
	init_completion(&rdev->done);
	rdma_for_each_port(ibdev, port) {
		u32 caps = ibdev->port_data[port].immutable.core_cap_flags;

		rdev->port_cm[port - 1] = rcm_port_cm_from_caps(caps);
		if (rdev->port_cm[port - 1] != RCM_PORT_CM_NONE)
			any_cm = true;
	}
	if (!any_cm) {
		kfree(rdev);
		return -EOPNOTSUPP;
	}

	ib_set_client_data(ibdev, &rcm_ib_client, rdev);
	mutex_lock(&rcm_devices_lock);
	list_add_tail(&rdev->list, &rcm_devices);
	mutex_unlock(&rcm_devices_lock);
	dev_dbg(&ibdev->dev, "rcm: managing %u port(s)\n", num_ports);
	return 0;
}

static void rcm_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct rcm_device *rdev = client_data;

	mutex_lock(&rcm_devices_lock);
	list_del(&rdev->list);
	mutex_unlock(&rcm_devices_lock);

	/* Drop the client's reference and wait out every other holder. */
	rcm_device_put(rdev);
	wait_for_completion(&rdev->done);
	kfree(rdev);
}

struct ib_client rcm_ib_client = {
	.name = "rcm",
	.add = rcm_add_one,
	.remove = rcm_remove_one,
};

int rcm_device_init(void)
{
	return ib_register_client(&rcm_ib_client);
}

void rcm_device_exit(void)
{
	ib_unregister_client(&rcm_ib_client);
}
