#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian 12 packages that building and testing rcm need, and
# say which. Does nothing when they are all present.
set -euo pipefail

pkgs=(
	# build: module, userlib, selftests
	build-essential linux-headers-amd64 libibverbs-dev sparse pkg-config
	# test kernel: Debian's own source, built with its toolchain needs
	linux-source-6.1 bc flex bison libelf-dev libssl-dev dwarves python3
	# guests: QEMU under TCG, a static busybox, module and RDMA tools
	qemu-system-x86 busybox-static kmod cpio iproute2 xz-utils
	# the distro kernels booted for DKMS, interop and benchmarks: Debian
	# 12's 6.1 series and its 6.12 series (the one Debian 13 runs)
	linux-image-amd64 linux-image-6.12-amd64 linux-headers-6.12-amd64
	# userspace RDMA: providers (rxe, siw), librdmacm programs, reference
	# headers for the ABI layout test
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils librdmacm-dev
	# application stacks the distro guest runs on rcm (selftests' apps.sh)
	perftest libfabric-bin ucx-utils python3-pyverbs
	# packaging: DKMS; make deb (dh_dkms is in dh-dkms on Debian 12, not
	# in dkms) and its check, whose guest runs this machine's udevd
	dkms dpkg-dev debhelper dh-dkms lintian udev
	# ... and the Build-Depends of the packages' host tests (debian/control:
	# a missing one fails dpkg-buildpackage)
	groff-base man-db valgrind
	# ... and the clean chroot make check builds them in (deb-chroot.sh)
	mmdebstrap
	# ... and the compiler cache of that guest's DKMS build
	ccache
	# make bench: system calls per connection
	strace
	# make htmldocs: Sphinx (the kernel's kernel-doc extension comes
	# from linux-source-6.1)
	python3-sphinx
)

missing=()
for p in "${pkgs[@]}"; do
	case "$p" in \#*) continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	     grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "rcm: all build and test packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "rcm: missing packages (run as root to install): ${missing[*]}" >&2
	exit 1
fi
echo "rcm: installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
