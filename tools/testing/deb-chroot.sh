#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deb-chroot.sh: a Debian 12 build chroot holding the essential packages,
# build-essential and rcm's Build-Depends and nothing else, as a build
# farm's (sbuild's) is: a package built in it fails when debian/control
# forgets a build dependency, where a build on this machine would find
# it installed. Prints the chroot's directory.
#
# Made once by mmdebstrap (variant buildd) with apt-get build-dep of
# debian/control, and kept in RCM_CACHE (default /var/cache/rcm) under
# the checksum of debian/control's Build-Depends: a change of them
# makes a new one (and removes the old). About 6 minutes
# and 620 MB the first time (the packages come from deb.debian.org),
# nothing after.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RCM_CACHE:-/var/cache/rcm}
suite=bookworm
# The Build-Depends field and its continuation lines.
sum=$(awk '/^Build-Depends/ { on = 1; print; next } on && /^[ \t]/ { print; next }
	{ on = 0 }' "$top/debian/control" | md5sum | cut -c1-12)
dir=$cache/chroot-$suite-$sum

command -v mmdebstrap >/dev/null || {
	echo "deb-chroot: mmdebstrap is missing (tools/testing/install-deps.sh installs it)" >&2
	exit 1
}
mkdir -p "$cache"
exec 9>"$cache/.chroot-$suite.lock"
flock 9
if [ ! -x "$dir/usr/bin/dpkg-buildpackage" ]; then
	tmp=$dir.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# build-dep reads only debian/control of the directory it is given.
	mmdebstrap --quiet --variant=buildd --include=ca-certificates \
		--customize-hook="mkdir -p \"\$1/tmp/rcm/debian\"" \
		--customize-hook="copy-in $top/debian/control /tmp/rcm/debian" \
		--customize-hook="chroot \"\$1\" apt-get -q -y build-dep /tmp/rcm" \
		--customize-hook="chroot \"\$1\" apt-get clean" \
		--customize-hook="rm -rf \"\$1/tmp/rcm\"" \
		"$suite" "$tmp" >&2
	rm -rf "$dir"
	mv "$tmp" "$dir"
	# The chroots of earlier Build-Depends go (450 MB each).
	for old in "$cache"/chroot-"$suite"-*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
fi
echo "$dir"
