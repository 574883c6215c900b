#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the rcm test kernel: Debian's linux-source-6.1 with the
# patches in kernel-patches/ (fixes of in-tree bugs that rcm's tests
# reach and rcm cannot avoid; each says why) and the fragment in
# kernel.config on top of tinyconfig.  The result is cached outside the
# checkout, keyed by the fragment, the patches, this script and the
# source package version, so a warm run costs nothing.
#
# Usage: build-kernel.sh            build if needed, print the kernel dir;
#                                   a second run waits for a running one
# Env:   RCM_CACHE   cache root (default /var/cache/rcm)
#
# Layout of a cached kernel ($RCM_CACHE/kernel-<key>/):
#   bzImage          the kernel QEMU boots (LZ4: quick to unpack under TCG;
#                    the PVH entry of the bare vmlinux cannot be used, its
#                    early code runs with KASAN instrumentation and faults)
#   build/           the O= object tree; KDIR for out-of-tree modules
#   src/             the patched source: hard links into the shared
#                    unpacked tree, but for the files a patch changed
#   mods/            modules_install root (lib/modules/<release>/...)
#   release          the kernel release string
#   build-seconds    wall time of the cold build
#   source-version   the linux-source-6.1 package version it was built from
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${RCM_CACHE:-/var/cache/rcm}
frag=$here/kernel.config
patches=("$here"/kernel-patches/*.patch)

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
tarball=/usr/src/linux-source-6.1.tar.xz
# Bump when a change to this script changes what it builds.
recipe=3
key=$( (cat "$frag" "${patches[@]}"; echo "recipe $recipe $srcver"
	gcc --version | head -1) | sha256sum | cut -c1-16)
out=$cache/kernel-$key

if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

# One build at a time: two checkouts (or a check beside a bench) starting
# cold would otherwise remove each other's source tree and object tree.
# The second waits, then finds the first's kernel done.
mkdir -p "$cache"
exec 9>"$cache/build-kernel.lock"
if ! flock -n 9; then
	echo "rcm: waiting for another test-kernel build ($cache/build-kernel.lock)" >&2
	flock 9
fi
if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

log=$cache/kernel-$key.log
echo "rcm: building test kernel $key (linux-source-6.1 $srcver); log: $log" >&2
start=$(date +%s)

src=$cache/src-$srcver
if [ ! -f "$src/.done" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" -xf "$tarball"
	touch "$src/.done"
fi

rm -rf "$out"
mkdir -p "$out/build"
# The shared tree stays as Debian ships it (distro-kernel.sh and other
# caches read it): patch(1) writes each file it changes anew, which
# breaks that file's link and leaves the shared one alone.
tree=$out/src
cp -al "$src/linux-source-6.1" "$tree"
for p in "${patches[@]}"; do
	patch -d "$tree" -p1 --no-backup-if-mismatch -s <"$p"
done
{
	make -C "$tree" O="$out/build" tinyconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out/build" \
		"$out/build/.config" "$frag"
	make -C "$tree" O="$out/build" olddefconfig
} >"$log" 2>&1

# Kconfig silently drops options whose dependencies are unmet: refuse that.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		want="# $opt is not set" ;;
	CONFIG_*) want=$line ;;
	*) continue ;;
	esac
	if ! grep -qxF -- "$want" "$out/build/.config"; then
		echo "rcm: kernel config lacks '$want'" >&2
		missing=1
	fi
done <"$frag"
[ "$missing" = 0 ] || exit 1

# The build is silent for many minutes: say where it is once a minute.
(
	while sleep 60; do
		echo "rcm: test kernel build: $(find "$out/build" -name '*.o' |
			wc -l) objects, $(($(date +%s) - start))s" >&2
	done
) &
ticker=$!
# Under set -e a failing command in the EXIT trap would become the
# script's exit status: the ticker may have gone already.
trap 'kill $ticker 2>/dev/null || true' EXIT
make -C "$tree" O="$out/build" -j"$(nproc)" bzImage modules >>"$log" 2>&1 || {
	tail -40 "$log" >&2
	exit 1
}
make -C "$tree" O="$out/build" INSTALL_MOD_PATH="$out/mods" \
	modules_install >>"$log" 2>&1
cp "$out/build/arch/x86/boot/bzImage" "$out/bzImage"
# The build wrote it; asking make for it would also print its "Entering
# directory" lines when a make runs us (make check-fresh: one level more).
cp "$out/build/include/config/kernel.release" "$out/release"
secs=$(($(date +%s) - start))
echo "$secs" >"$out/build-seconds"
echo "$srcver" >"$out/source-version"
touch "$out/.done"
echo "rcm: test kernel built in ${secs}s (cold)" >&2
echo "$out"
