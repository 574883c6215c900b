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
# dkms-check.sh RELEASE OUTDIR
#
# Leaves the module in OUTDIR/rcm.ko and DKMS's output in OUTDIR/dkms.log
# (and OUTDIR/make.log), and prints one line, "PASS dkms.build" or
# "FAIL dkms.build: why"; exits 0 or 1.
set -uo pipefail

[ $# = 2 ] || { echo "usage: $0 RELEASE OUTDIR" >&2; exit 2; }
rel=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
mod=rcm
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
fail() {
	echo "FAIL dkms.build: $*"
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
[ -e "/lib/modules/$rel/build/Makefile" ] ||
	fail "no kernel headers at /lib/modules/$rel/build"

priv=$(mktemp -d "${TMPDIR:-/tmp}/rcm-dkms.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$priv"' EXIT
mkdir -p "$priv/src" "$priv/dkms" "$priv/modules" "$priv/tmp"
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
case $ko in
*/$mod.ko) cp "$ko" "$out/$mod.ko" || fail "cannot copy $ko" ;;
"") fail "dkms status is built but there is no $mod.ko" ;;
*) fail "dkms left a compressed module, $(basename "$ko")" ;;
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
echo "PASS dkms.build"
