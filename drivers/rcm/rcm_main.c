// SPDX-License-Identifier: GPL-2.0-only
/*
 * rcm: RDMA connection manager - module entry points and the misc device.
 *
 * The device node is /dev/infiniband/rcm, mode 0666 like the in-tree
 * rdma_cm node: any user may open it, and everything a file creates is
 * private to that file. While a file is open the module cannot be
 * unloaded (rcm_fops.owner pins it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/miscdevice.h>
#include <linux/module.h>

#include "rcm_priv.h"

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RCM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *rcm_attrs[] = {
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rcm);

static struct miscdevice rcm_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rcm",
	.nodename = "infiniband/rcm",
	.mode = 0666,
	.fops = &rcm_fops,
	.groups = rcm_groups,
};

static int __init rcm_init(void)
{
	int ret;

	ret = rcm_id_init();
	if (ret)
		goto err_caches;
	/* The KUnit suites may have made this one already. */
	ret = rcm_event_init();
	if (ret)
		goto err_caches;
	ret = rcm_ps_init();
	if (ret)
		goto err_caches;
	ret = rcm_route_init();
	if (ret)
		goto err_ps;
	ret = rcm_device_init();
	if (ret)
		goto err_route;
	ret = rcm_netdev_init();
	if (ret)
		goto err_device;
	ret = misc_register(&rcm_misc);
	if (ret)
		goto err_netdev;
	return 0;

err_netdev:
	rcm_netdev_exit();
err_device:
	rcm_device_exit();
err_route:
	rcm_route_exit();
err_ps:
	rcm_ps_exit();
err_caches:
	rcm_event_exit();
	rcm_id_exit();
	return ret;
}

static void __exit rcm_exit(void)
{
	misc_deregister(&rcm_misc);
	rcm_netdev_exit();
	rcm_device_exit();
	rcm_route_exit();
	rcm_ps_exit();
	rcm_event_exit();
	rcm_id_exit();
}

module_init(rcm_init);
module_exit(rcm_exit);

MODULE_DESCRIPTION("RDMA connection manager over ib_cm and iw_cm");
MODULE_LICENSE("GPL");
MODULE_VERSION(RCM_VERSION);
