#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# distro-kernel.sh [SERIES]: print "RELEASE VMLINUX" for the Debian 12
# kernel of SERIES, installed: 6.1 (linux-image-amd64, the default) or
# 6.12 (linux-image-6.12-amd64, the series Debian 13 runs).
# QEMU boots an uncompressed ELF through the PVH entry several seconds
# faster than the XZ bzImage under TCG, so the image is unpacked once,
# with extract-vmlinux from the kernel source, into the rcm cache.
set -euo pipefail

cache=${RCM_CACHE:-/var/cache/rcm}
case ${1:-6.1} in
6.1) meta=linux-image-amd64 ;;
6.12) meta=linux-image-6.12-amd64 ;;
*) echo "distro-kernel.sh: no Debian 12 kernel series '$1'" >&2; exit 2 ;;
esac
pkg=$(dpkg-query -W -f='${Depends}' $meta |
	grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -1)
release=${pkg#linux-image-}
out=$cache/distro-$release
if [ ! -f "$out/vmlinux" ]; then
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	src=$cache/src-$srcver/linux-source-6.1
	mkdir -p "$out"
	if [ -x "$src/scripts/extract-vmlinux" ]; then
		extract=$src/scripts/extract-vmlinux
	else
		extract=$(mktemp "$out/extract-vmlinux.XXXXXX")
		tar -xOf /usr/src/linux-source-6.1.tar.xz \
			linux-source-6.1/scripts/extract-vmlinux >"$extract"
		chmod +x "$extract"
	fi
	# A private name, renamed into place: runs beside each other
	# never read or write a half-written image.
	tmp=$(mktemp "$out/vmlinux.XXXXXX")
	"$extract" "/boot/vmlinuz-$release" >"$tmp"
	mv "$tmp" "$out/vmlinux"
	[ "$extract" = "$src/scripts/extract-vmlinux" ] || rm -f "$extract"
fi
echo "$release $out/vmlinux"
