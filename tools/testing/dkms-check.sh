#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build rcm.ko for kernel RELEASE the way DKMS does on a user's machine:
# the source tree of "make dkms-source", then "dkms add" and "dkms build".
# DKMS runs on private source, DKMS and install trees (and a private
# signing key), so nothing is written to /usr/src, /var/lib/dkms or
# /lib/modules; nothing is installed or loaded. The private trees are
# removed at the end.
#
# dkms-check.sh RELEASE OUTDIR [NAME]
#
# Leaves the module in OUTDIR/rcm.ko and DKMS's output in OUTDIR/dkms.log
# (and OUTDIR/make.log), and prints one line, "PASS NAME" or "FAIL NAME:
# why" (NAME: dkms.build by default); exits 0 or 1.
#
# dkms-check.sh --refuse KDIR OUTDIR
#
# Checks that a kernel outside the supported range (6.1 to 6.12) is
# refused cleanly, with KDIR's headers made to look like 6.13: Kbuild
# stops with one sentence (refuse.kbuild), and DKMS skips the kernel with
# exit 77 (refuse.dkms), which its package hooks take as "skipped", so a
# kernel upgrade never fails its configuration because of rcm.
set -uo pipefail

refuse=
if [ "${1:-}" = --refuse ]; then
	refuse=1
	shift
fi
[ $# = 2 ] || [ $# = 3 ] ||
	{ echo "usage: $0 [--refuse] RELEASE|KDIR OUTDIR [NAME]" >&2; exit 2; }
rel=$1
name=${3:-dkms.build}
top=$(cd "$(dirname "$0")/../.." && pwd)
mod=rcm
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
fail() {
	echo "FAIL $name: $*"
	exit 1
}
mkdir -p "$2" || fail "cannot create $2"
out=$(cd "$2" && pwd)
log=$out/dkms.log
rm -f "$out/$mod.ko" "$out/make.log"
: >"$log"

# Run a command, its output to the log.
run() {
	echo "+ $*" >>"$log"
	"$@" >>"$log" 2>&1
}

command -v dkms >/dev/null || fail "dkms is not installed"
command -v modinfo >/dev/null || fail "modinfo (kmod) is not installed"
[ -n "$ver" ] || fail "no PACKAGE_VERSION in dkms.conf"
[ -n "$refuse" ] || [ -e "/lib/modules/$rel/build/Makefile" ] ||
	fail "no kernel headers at /lib/modules/$rel/build"

# At a fixed place under OUTDIR, so that the compiler cache (ccache.sh)
# sees the same paths from one run to the next.
priv=$out/tree
rm -rf "$priv"
trap 'rm -rf "$priv"' EXIT
mkdir -p "$priv/src" "$priv/dkms" "$priv/modules" "$priv/tmp" ||
	fail "cannot create $priv"
kdir=${refuse:+$rel}
kdir=${kdir:-/lib/modules/$rel/build}
# shellcheck source=ccache.sh
. "$top/tools/testing/ccache.sh"
# DKMS signs what it builds when the kernel has sign-file, with a key it
# creates in /var/lib/dkms unless told of another; keep that one private
# too (a key set in /etc/dkms/framework.conf still wins).
export mok_signing_key=$priv/mok.key mok_certificate=$priv/mok.pub
export TMPDIR=$priv/tmp
dkms=(dkms --sourcetree "$priv/src" --dkmstree "$priv/dkms"
	--installtree "$priv/modules")

run make -C "$top" --no-print-directory dkms-source \
	DKMS_SRC="$priv/src/$mod-$ver" ||
	fail "make dkms-source failed, see $log"
run "${dkms[@]}" add -m "$mod" -v "$ver" ||
	fail "dkms add failed, see $log"
if [ -n "$refuse" ]; then
	# Kbuild, on the DKMS source tree, with the kernel's PATCHLEVEL
	# overridden to 13.
	kdir=$rel
	name=refuse.kbuild
	run make -C "$kdir" M="$priv/src/$mod-$ver" PATCHLEVEL=13 modules &&
		fail "a 6.13 build went ahead"
	grep -q 'rcm supports Linux 6.1 to 6.12; this is 6.13' "$log" ||
		fail "no one-sentence refusal, see $log"
	grep -q 'error:' "$log" && fail "the compiler ran, see $log"
	echo "PASS $name"
	# DKMS: a kernel release of 6.13 with KDIR's headers.
	name=refuse.dkms
	run "${dkms[@]}" build -m "$mod" -v "$ver" -k 6.13.0-1-amd64 \
		--kernelsourcedir "$kdir"
	rc=$?
	[ $rc = 77 ] || fail "dkms build for 6.13 exited $rc, not 77, see $log"
	grep -q BUILD_EXCLUSIVE "$log" || fail "dkms gave no reason, see $log"
	echo "PASS $name"
	exit 0
fi
run "${dkms[@]}" build -m "$mod" -v "$ver" -k "$rel"
rc=$?
cp "$priv/dkms/$mod/$ver/build/make.log" "$out/" 2>/dev/null ||
	cp "$priv/dkms/$mod/$ver/$rel"/*/log/make.log "$out/" 2>/dev/null
# 77: DKMS skipped the kernel (BUILD_EXCLUSIVE_*).
[ $rc = 77 ] && fail "dkms build skipped $rel (BUILD_EXCLUSIVE_*), see $log"
[ $rc = 0 ] || fail "dkms build exited $rc, see $out/make.log"

status=$("${dkms[@]}" status -m "$mod" -v "$ver" -k "$rel" 2>>"$log")
echo "dkms status: $status" >>"$log"
grep -q "^$mod/$ver, $rel, [^:]*: built" <<<"$status" ||
	fail "dkms status is not built: ${status:-empty}"

ko=$(find "$priv/dkms/$mod/$ver/$rel" -path "*/module/$mod.ko*" | head -1)
# DKMS compresses the module as the kernel's own are (xz on 6.12).
case $ko in
*/$mod.ko) cp "$ko" "$out/$mod.ko" || fail "cannot copy $ko" ;;
*/$mod.ko.xz) xz -dc "$ko" >"$out/$mod.ko" || fail "cannot unpack $ko" ;;
"") fail "dkms status is built but there is no $mod.ko" ;;
*) fail "dkms left a module compressed as we cannot read, $(basename "$ko")" ;;
esac

version=$(modinfo -F version "$out/$mod.ko" 2>>"$log")
[ "$version" = "$ver" ] ||
	fail "modinfo says version '$version', dkms.conf '$ver'"
vermagic=$(modinfo -F vermagic "$out/$mod.ko" 2>>"$log")
echo "vermagic: $vermagic" >>"$log"
case $vermagic in
"$rel "*) ;;
*) fail "vermagic '$vermagic' is not for $rel" ;;
esac
echo "PASS $name"
