#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make deb: build the Debian packages rcm-dkms and rcm (debian/) with
# dpkg-buildpackage -us -uc -b, into OUTDIR (default build/deb).
#
# dpkg-buildpackage writes its results to the parent of the tree it
# builds, and a clone's parent is not ours: the tree is first copied to
# OUTDIR/rcm-VERSION (the files git knows, modified or not, and the new
# ones it does not ignore; every file without git), so the .deb,
# .changes and .buildinfo files land in OUTDIR and the checkout gets no
# debian/tmp or build products.
#
# build-deb.sh [OUTDIR]     extra dpkg-buildpackage options in
#                           RCM_DEB_OPTIONS; DEB_BUILD_OPTIONS is honoured
#                           (nocheck skips the library's host tests);
#                           RCM_DEB_CHROOT=DIR builds inside that chroot
#                           (tools/testing/deb-chroot.sh makes one with
#                           only the Build-Depends), as a build farm does
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deb}
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ -n "$ver" ] || { echo "build-deb: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
chroot_dir=${RCM_DEB_CHROOT:-}
for tool in dpkg-buildpackage dh dh_dkms; do
	[ -n "$chroot_dir" ] && break
	command -v "$tool" >/dev/null || {
		echo "build-deb: $tool is missing (tools/testing/install-deps.sh installs it)" >&2
		exit 1
	}
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$out/rcm-$ver
rm -rf "$src" "$out"/rcm*_"$ver"*
mkdir -p "$src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Deleted but not yet committed files are listed too: skip them.
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		cpio -0 -pdm --quiet "$src")
else
	tar -C "$top" --exclude=./build -cf - . | tar -C "$src" -xf -
fi

# The packages carry DKMS's source tree, not a built module: no kernel
# headers are needed here, and nothing is built for this machine's kernel.
if [ -n "$chroot_dir" ]; then
	# The chroot gets the tree in /build and a private /proc and /dev
	# (unshare -m: they go with the build); the results come back.
	rm -rf "$chroot_dir/build"
	mkdir -p "$chroot_dir/build"
	mv "$src" "$chroot_dir/build/"
	# shellcheck disable=SC2016,SC2086 # the inner shell expands; options are words
	unshare -m sh -c 'c=$1; shift
		mount -t proc proc "$c/proc" && mount --rbind /dev "$c/dev" &&
		exec chroot "$c" sh -c "cd /build/$(basename "$0") &&
			dpkg-buildpackage -us -uc -b $*"' \
		"$src" "$chroot_dir" ${RCM_DEB_OPTIONS:-}
	find "$chroot_dir/build" -maxdepth 1 -type f -exec mv {} "$out/" \;
	rm -rf "$chroot_dir/build"
else
	cd "$src"
	# shellcheck disable=SC2086 # options are words
	dpkg-buildpackage -us -uc -b ${RCM_DEB_OPTIONS:-}
	rm -rf "$src"
fi
cd "$out"
ls "$out"/*_"$ver"_*.deb
