#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the initramfs of an rcm test guest.
#
# mkinitramfs.sh --out FILE --release REL --modroot DIR --rcm-ko FILE
#                [--tests DIR] [--bin FILE]... [--lib-dir DIR]...
#                [--extra-ko FILE]... [--tree DIR]... [--omit PATH]...
# mkinitramfs.sh --out FILE --release REL --modroot DIR --init FILE
#                [--module NAME]...
#
#   --modroot DIR   root that holds lib/modules/REL (/ for the distro
#                   kernel, the cached kernel's mods/ for the test kernel)
#   --tests DIR     directory of guest tests, copied to /tests: kselftest's
#                   installed tree (run_kselftest.sh, kselftest/,
#                   kselftest-list.txt, rcm/ with its "list"), or a flat
#                   directory of executables and "list", one "name:
#                   command" line per test
#   --bin FILE      extra host program to copy, with the libraries it needs
#   --lib-dir DIR   directory of shared objects to copy to /usr/lib/rcm
#   --extra-ko FILE a test-only module for the tests to load (into
#                   /lib/rcm/, next to rcm.ko; never loaded by /init)
#   --init FILE     /init instead of guest-init.sh (e.g. root-init.sh);
#                   then --rcm-ko is optional
#   --module NAME   one more module of REL, with its dependencies
#   --tree DIR      a host directory to copy whole, to the same path, with
#                   the libraries its programs and shared objects need
#                   (plug-ins that programs load by path: UCX's modules,
#                   a Python interpreter's standard library)
#   --omit PATH     something under a --tree not to copy (a static
#                   library, a test suite the guest never runs)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out= release= modroot= rcm_ko= tests=
init=$here/guest-init.sh
# timeout: coreutils', whose --foreground kselftest's runner uses.
bins=(/usr/sbin/ip /usr/bin/rdma /usr/bin/timeout)
libdirs=()
extra_kos=()
extra_mods=()
trees=()
omits=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--release) release=$2; shift 2 ;;
	--modroot) modroot=$2; shift 2 ;;
	--rcm-ko) rcm_ko=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--bin) bins+=("$2"); shift 2 ;;
	--lib-dir) libdirs+=("$2"); shift 2 ;;
	--extra-ko) extra_kos+=("$2"); shift 2 ;;
	--init) init=$2; shift 2 ;;
	--module) extra_mods+=("$2"); shift 2 ;;
	--tree) trees+=("$2"); shift 2 ;;
	--omit) omits+=("$2"); shift 2 ;;
	*) echo "mkinitramfs: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] && [ -n "$release" ] && [ -n "$modroot" ] &&
	{ [ -n "$rcm_ko" ] || [ "$init" != "$here/guest-init.sh" ]; } || {
	echo "usage: $0 --out FILE --release REL --modroot DIR --rcm-ko FILE ..." >&2
	exit 2
}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"
mkdir -p "$stage"/{bin,sbin,etc,lib,lib64,usr/bin,usr/sbin,usr/lib/rcm,tests,lib/rcm}

cp /bin/busybox "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
install -m 0755 "$init" "$stage/init"
install -D -m 0644 "$here/splat-patterns" "$stage/etc/rcm-splat-patterns"
if [ -n "$rcm_ko" ]; then cp "$rcm_ko" "$stage/lib/rcm/rcm.ko"; fi
for ko in "${extra_kos[@]}"; do
	cp "$ko" "$stage/lib/rcm/"
done
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' \
	>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$stage/etc/hosts"

# Kernel modules and everything they depend on.
mods=(crc32_generic dummy veth bonding virtio_pci virtio_net ib_core ib_cm iw_cm
      ib_uverbs rdma_cm rdma_ucm rdma_rxe siw "${extra_mods[@]}")
kdir=lib/modules/$release
for m in "${mods[@]}"; do
	{ modprobe -S "$release" -d "$modroot" --show-depends "$m" 2>/dev/null ||
		true; } |
		awk '$1 == "insmod" { print $2 }'
done | sort -u | while read -r path; do
	rel=${path#"$modroot"}
	rel=${rel#/}
	mkdir -p "$stage/$(dirname "$rel")"
	# 6.12's modules are .ko.xz: unpacked here, once, rather than by
	# the guest's kernel at every load under TCG.
	case $rel in
	*.ko.xz) xz -dc "$path" >"$stage/${rel%.xz}" ;;
	*) cp "$path" "$stage/$rel" ;;
	esac
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	if [ -f "$modroot/$kdir/$f" ]; then cp "$modroot/$kdir/$f" "$stage/$kdir/"; fi
done
depmod -b "$stage" "$release"

# Programs with their shared libraries (and what glibc and libibverbs
# load behind ldd's back: libgcc_s for pthread_exit, the providers).
copy_libs_of() {
	local lib
	# Scripts have no libraries: ldd fails on them, which is fine.
	{ ldd "$1" 2>/dev/null || true; } | awk '/=> \//{ print $3 } /^\t\/lib/{ print $1 }' |
	while read -r lib; do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}
copy_with_libs() {
	mkdir -p "$stage/$(dirname "$2")"
	cp -L "$1" "$stage/$2"
	copy_libs_of "$1"
}
for b in "${bins[@]}"; do
	copy_with_libs "$b" "$b"
done
for t in "${trees[@]}"; do
	mkdir -p "$stage$(dirname "$t")"
	cp -a "$t" "$stage$t"
done
for o in "${omits[@]}"; do
	rm -rf "${stage:?}$o"
done
for t in "${trees[@]}"; do
	find "$stage$t" -type f \( -name '*.so*' -o -perm -u+x \) |
	while read -r f; do
		copy_libs_of "${f#"$stage"}"
	done
done
multiarch=/usr/lib/x86_64-linux-gnu
for p in "$multiarch"/libibverbs/librxe-rdmav*.so \
	 "$multiarch"/libibverbs/libsiw-rdmav*.so \
	 "$multiarch"/libgcc_s.so.1 /lib/x86_64-linux-gnu/libgcc_s.so.1; do
	if [ -e "$p" ]; then copy_with_libs "$p" "$p"; fi
done
mkdir -p "$stage/etc/libibverbs.d"
cp /etc/libibverbs.d/rxe.driver /etc/libibverbs.d/siw.driver \
	"$stage/etc/libibverbs.d/"
for d in "${libdirs[@]}"; do
	for so in "$d"/*.so*; do
		[ -e "$so" ] || continue
		cp -a "$so" "$stage/usr/lib/rcm/"
	done
done

if [ -n "$tests" ]; then
	cp -a "$tests"/. "$stage/tests/"
	find "$stage/tests" -type f -perm -u+x | while read -r t; do
		copy_libs_of "$t"
	done
	# kselftest's runner puts each program's output under "# " with
	# kselftest/prefix.pl when there is a perl, else with sed, which
	# holds it back until the program ends: perl, and the modules and
	# shared objects that prefix.pl loads.
	prefix=$stage/tests/kselftest/prefix.pl
	if [ -f "$prefix" ]; then
		copy_with_libs /usr/bin/perl /usr/bin/perl
		perl -e 'do $ARGV[0];
			END { print "$_\n" for values %INC, @DynaLoader::dl_shared_objects }' \
			"$prefix" </dev/null | grep -vxF "$prefix" |
		while read -r f; do
			copy_with_libs "$f" "$f"
		done
	fi
fi

(cd "$stage" && find . | cpio -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
