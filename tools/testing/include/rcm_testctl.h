/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The debugfs control file of rcm's test-only modules (hostile/,
 * ibfabric/): build-test-module.sh copies this header beside each
 * module's sources.
 *
 * A write is one command line of fewer than @max bytes, white space
 * around it trimmed, run whole by @run; the write returns its length, or
 * @run's errno (-EINVAL for a longer line). A read formats the module's
 * report afresh, at most @size bytes through @show (which returns the
 * length it wrote), and returns the part from the file's offset on.
 *
 * DEFINE_RCM_TESTCTL(name, max, run, size, show) defines name_ctl_fops,
 * for debugfs_create_file(); @run and @show do their own locking.
 */
#ifndef RCM_TESTCTL_H
#define RCM_TESTCTL_H

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static inline ssize_t rcm_testctl_write(const char __user *ubuf, size_t count,
					size_t max, int (*run)(char *line))
{
	char *buf;
	int ret;

	if (count >= max)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = run(strim(buf));
	kfree(buf);
	return ret ? ret : count;
}

static inline ssize_t rcm_testctl_read(char __user *ubuf, size_t count,
				       loff_t *ppos, size_t size,
				       int (*show)(char *buf, size_t size))
{
	char *buf = kmalloc(size, GFP_KERNEL);
	ssize_t ret;

	if (!buf)
		return -ENOMEM;
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, show(buf, size));
	kfree(buf);
	return ret;
}

#define DEFINE_RCM_TESTCTL(name, max, run, size, show)			\
static ssize_t name##_ctl_write(struct file *file,			\
				const char __user *ubuf, size_t count,	\
				loff_t *ppos)				\
{									\
	return rcm_testctl_write(ubuf, count, max, run);		\
}									\
									\
static ssize_t name##_ctl_read(struct file *file, char __user *ubuf,	\
			       size_t count, loff_t *ppos)		\
{									\
	return rcm_testctl_read(ubuf, count, ppos, size, show);		\
}									\
									\
static const struct file_operations name##_ctl_fops = {		\
	.owner = THIS_MODULE,						\
	.write = name##_ctl_write,					\
	.read = name##_ctl_read,					\
	.llseek = default_llseek,					\
}

#endif /* RCM_TESTCTL_H */
