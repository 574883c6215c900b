#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of a guest that runs on the host's own root file system: a real
# Debian root with dpkg, DKMS, the compiler and the kernel headers, which
# the busybox initramfs of guest-init.sh does not have.
#
# QEMU exports the host's / read-only over 9p (run-guest.py --root-9p,
# mount tag "rcmroot"); this /init mounts it under an overlay whose upper
# layer is a tmpfs, so the guest may install packages, build and load
# modules while every file of the host stays as it is, and nothing the
# guest writes outlives it, but for the writable directories of
# run-guest.py --share TAG=DIR, mounted at /run/rcm/share/TAG. The
# initramfs's /tests (mkinitramfs.sh --tests) is copied to
# /run/rcm/tests of that root. Then that root
# becomes the guest's, runs one program and the guest stops. Parameters,
# from the kernel command line:
#   rcm_root_cmd=PATH   the program to run, a path in that root (e.g.
#                       /run/rcm/tests/NAME); its environment is this
#                       one (every rcm_* parameter)
# The program prints the "rcm-result:" lines (see guest-init.sh); this
# /init prints "rcm-boot:", "rcm-fatal:" on a setup failure,
# "rcm-loading" as it starts the program, and "rcm-done" when the
# program has returned.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin

/bin/busybox mkdir -p /proc /sys /dev /lower /upper /newroot
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "rcm-boot: $(cut -d' ' -f1 /proc/uptime)"

die() {
	echo "rcm-fatal: $*"
	echo "rcm-done"
	reboot -f
}

for m in virtio_pci 9pnet_virtio 9p overlay; do
	modprobe "$m" || die "modprobe $m failed"
done
# cache=loose: the export is read-only and nobody changes it under the
# guest's feet that the guest would need to see; a compiler reading the
# same kernel headers again and again then costs one 9p walk per file.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro \
	rcmroot /lower || die "cannot mount the host's root (9p tag rcmroot)"
mount -t tmpfs -o mode=0755 tmpfs /upper || die "no tmpfs for the overlay"
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work \
	overlay /newroot || die "cannot mount the overlay on the host's root"
# The guest's own kernel file systems, over the host's (which 9p would
# show as plain directories).
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
# What udev or systemd would add to a devtmpfs (bash's <(...) needs
# /dev/fd, which DKMS uses).
ln -s /proc/self/fd /newroot/dev/fd
ln -s /proc/self/fd/0 /newroot/dev/stdin
ln -s /proc/self/fd/1 /newroot/dev/stdout
ln -s /proc/self/fd/2 /newroot/dev/stderr
for d in run tmp dev/shm; do
	mount -t tmpfs -o mode=1777 tmpfs "/newroot/$d"
done
chmod 0755 /newroot/run
# Every other 9p export is a --share: writable, and uncached, for what
# the host and later guests read of it.
for f in /sys/bus/virtio/drivers/9pnet_virtio/virtio*/mount_tag; do
	[ -e "$f" ] || continue
	tag=$(tr -d '\000' <"$f")
	[ "$tag" = rcmroot ] && continue
	mkdir -p "/newroot/run/rcm/share/$tag"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 \
		"$tag" "/newroot/run/rcm/share/$tag" || die "cannot mount 9p tag $tag"
done
if [ -d /tests ]; then
	mkdir -p /newroot/run/rcm
	cp -a /tests /newroot/run/rcm/ || die "cannot copy /tests to the root"
fi

[ -n "$rcm_root_cmd" ] || die "no rcm_root_cmd on the kernel command line"
[ -x "/newroot$rcm_root_cmd" ] || die "no executable $rcm_root_cmd in the root"
# The root becomes the guest's own (switch_root, not chroot: udevadm
# and systemctl refuse to act in a chroot), with a shell as PID 1 that
# runs the program, then resets the machine (QEMU runs with -no-reboot,
# so it exits). The reset does not wait for the serial port to send
# what it holds: the last line gets a second.
echo "rcm-loading"
exec switch_root /newroot /bin/sh -c \
	'"$rcm_root_cmd"; echo rcm-done; sleep 1; echo b >/proc/sysrq-trigger'
