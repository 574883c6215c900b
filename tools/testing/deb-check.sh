#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rcm's Debian packages end to end: build them, lint them, compare their
# files with the distribution's RDMA packages, and meanwhile install them
# in a distro-kernel guest the way a user does (deb-guest.sh: dpkg -i,
# then the package's autopkgtests, debian/tests: DKMS built rcm.ko for
# the guest's kernel and the newest installed one, modprobe rcm, the udev
# rule, rping through rcm-run, apt-get purge).
#
# deb-check.sh [--reuse] [--nocheck] [--here] RELEASE VMLINUX OUTDIR
#
#   --reuse            reuse the packages of OUTDIR/deb, if there
#   --nocheck          build without the library's host tests
#                      (DEB_BUILD_OPTIONS nocheck), for a caller that runs
#                      them itself
#   --here             build on this machine, not in the chroot
#   RELEASE, VMLINUX   the distro kernel (vm/distro-kernel.sh); its
#                      headers must be installed on this machine, which
#                      the guest uses as its root (vm/root-init.sh)
#   OUTDIR             the packages (OUTDIR/deb), logs, the initramfs
#
# One line per result, "PASS|FAIL name[: why]":
#   deb.build      dpkg-buildpackage -us -uc -b (packaging/build-deb.sh) in
#                  a chroot of only the Build-Depends (deb-chroot.sh)
#                  made rcm-dkms and rcm, the library's host tests passed
#   deb.version    both packages, the DKMS tree's directory and dkms.conf,
#                  the library's file name and the maintainer scripts
#                  (postinst: DKMS builds rcm/VERSION; prerm: removes it
#                  from every kernel) carry dkms.conf's PACKAGE_VERSION
#   deb.lintian    lintian --fail-on error,warning, info and pedantic
#                  tags shown; the overrides are listed in the log
#   deb.files      no file of rcm's packages is a file of the
#                  distribution's RDMA packages (dpkg -L; /lib and /usr/lib
#                  taken as one), no shared object of rcm's is in a
#                  directory the dynamic linker searches, no
#                  modules-load.d file
#   deb.*          the guest's results (deb-guest.sh lists them)
# Exits 1 on any failure.
set -uo pipefail

reuse=0 nocheck='' here=0
while [ $# -gt 0 ]; do
	case $1 in
	--reuse) reuse=1 ;;
	--nocheck) nocheck=nocheck ;;
	--here) here=1 ;;
	*) break ;;
	esac
	shift
done
[ $# = 3 ] || {
	echo "usage: $0 [--reuse] [--nocheck] [--here] RELEASE VMLINUX OUTDIR" >&2
	exit 2
}
rel=$1 vmlinux=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/testing/vm
mkdir -p "$3" || exit 2
out=$(cd "$3" && pwd)
debs=$out/deb
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
# The distribution's packages that rcm's must never overlap.
distro_pkgs=(librdmacm1 librdmacm-dev rdma-core ibverbs-providers libibverbs1
	     libibverbs-dev rdmacm-utils ibverbs-utils)
failed=0
t0=$(date +%s)

report() {	# STATUS NAME [WHY]
	echo "$1 $2${3:+: $3}"
	[ "$1" = FAIL ] && failed=1
	return 0
}
elapsed() { echo "$(( $(date +%s) - t0 ))s"; }

# --- build --------------------------------------------------------------
# Built the standard way, with the library's host tests (dh_auto_test,
# under Debian's build flags: hardening=+all), as a distribution's
# build farm builds it: in a chroot with nothing but the essential
# packages, build-essential and the Build-Depends (deb-chroot.sh), so a
# build dependency debian/control forgets fails the build.
# --nocheck skips the tests, --here builds on this machine.
chroot_dir=
if [ $here = 0 ] && [ $reuse = 0 ]; then
	if ! chroot_dir=$("$top/tools/testing/deb-chroot.sh" 2>"$out/deb-chroot.log"); then
		report FAIL deb.build "no build chroot, see $out/deb-chroot.log"
		tail -15 "$out/deb-chroot.log" | sed 's/^/    /'
		exit 1
	fi
fi
if [ $reuse = 1 ] && [ -f "$debs/rcm-dkms_${ver}_all.deb" ]; then
	report PASS deb.build "reused $debs"
elif DEB_BUILD_OPTIONS="$nocheck ${DEB_BUILD_OPTIONS:-}" RCM_DEB_CHROOT=$chroot_dir \
	RCM_DEB_OPTIONS='' "$top/packaging/build-deb.sh" "$debs" >"$out/deb-build.log" 2>&1; then
	report PASS deb.build "$(elapsed)${chroot_dir:+, Build-Depends-only chroot}${nocheck:+, nocheck}$(sed -n \
		's/^\([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/, host tests: \1/p' \
		"$out/deb-build.log" | tail -1)"
else
	report FAIL deb.build "see $out/deb-build.log"
	tail -15 "$out/deb-build.log" | sed 's/^/    /'
	exit 1
fi
dkms_deb=$debs/rcm-dkms_${ver}_all.deb
lib_deb=$(ls "$debs"/rcm_"${ver}"_*.deb 2>/dev/null | head -1)
changes=$(ls "$debs"/rcm_"${ver}"_*.changes 2>/dev/null | head -1)
if [ ! -f "$dkms_deb" ] || [ ! -f "$lib_deb" ] || [ ! -f "$changes" ]; then
	report FAIL deb.build "no rcm-dkms_${ver}_all.deb, rcm_${ver}_*.deb or .changes in $debs"
	exit 1
fi

# --- the guest, in the background ----------------------------------------
# Its root is this machine's (read-only, under a tmpfs overlay); the
# initramfs brings the packages and the guest script along, in /tests.
# It starts as soon as the packages are there; the lint and the file
# lists run meanwhile, and its results come last.
guest_pid=
start_guest() {
	if [ ! -e "/lib/modules/$rel/build/Makefile" ]; then
		report FAIL deb.guest "no headers for $rel on this machine: the guest's DKMS needs them"
		return 1
	fi
	payload=$out/deb-payload
	rm -rf "$payload"
	mkdir -p "$payload"
	cp "$dkms_deb" "$lib_deb" "$top/tools/testing/deb-guest.sh" \
		"$vm/splat-patterns" "$payload/"
	# The package's autopkgtests, which deb-guest.sh runs.
	mkdir -p "$payload/debian" && cp -a "$top/debian/tests" "$payload/debian/"
	if ! "$vm/mkinitramfs.sh" --out "$out/deb-root.cpio" --release "$rel" \
		--modroot / --init "$vm/root-init.sh" --tests "$payload" \
		--module 9pnet_virtio --module 9p --module overlay \
		>"$out/deb-initramfs.log" 2>&1; then
		report FAIL deb.initramfs "see $out/deb-initramfs.log"
		return 1
	fi
	# The guest's compiler cache, kept with the other caches: a warm run's
	# DKMS build hits it (deb-guest.sh), a fresh machine's fills it.
	share=()
	if command -v ccache >/dev/null; then
		ccache_dir=${RCM_CACHE:-/var/cache/rcm}/ccache-deb
		mkdir -p "$ccache_dir" &&
			CCACHE_DIR=$ccache_dir ccache --max-size 200M >/dev/null &&
			share=(--share "ccache=$ccache_dir")
	fi
	# mitigations=off: no retpolines in the guest kernel, whose every
	# indirect call costs more under TCG; the compiler runs faster. The
	# bounds are for a loaded host: beside the test-kernel guests on two
	# cores, "dpkg -i" (DKMS compiling rcm.ko under TCG) took 1100 s.
	"$vm/run-guest.py" --label deb --kernel "$vmlinux" --initrd "$out/deb-root.cpio" \
		--root-9p "${share[@]}" --append rcm_root_cmd=/run/rcm/tests/deb-guest.sh \
		--append rcm_debdir=/run/rcm/tests --append mitigations=off \
		--tests install,dkms,modprobe,udev,rcm-run,man,purge \
		--test-timeout 2400 --guest-timeout 3000 --log "$out/guest-deb.log" \
		>"$out/deb-guest.txt" &
	guest_pid=$!
}
start_guest

# --- one version -----------------------------------------------------------
why=
for d in "$dkms_deb" "$lib_deb"; do
	v=$(dpkg-deb -f "$d" Version)
	[ "${v%-*}" = "$ver" ] || why="$why $(basename "$d") is $v;"
done
conf=$(dpkg-deb --fsys-tarfile "$dkms_deb" |
	tar -xOf - "./usr/src/rcm-$ver/dkms.conf" 2>/dev/null |
	sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p')
[ "$conf" = "$ver" ] ||
	why="$why no /usr/src/rcm-$ver/dkms.conf of version $ver in rcm-dkms;"
# grep -c reads it all: dpkg-deb must not die of a closed pipe.
dpkg-deb -c "$lib_deb" | grep -c "/rcm/librdmacm\.so\.1\.[0-9]*\.$ver\$" >/dev/null ||
	why="$why no librdmacm.so.1.N.$ver in rcm;"
# dh_dkms's scripts: the postinst has DKMS add, build and install this
# version; the prerm removes it (the guest also runs the purge).
scripts=$(dpkg-deb --ctrl-tarfile "$dkms_deb" | tar -xOf - ./postinst ./prerm)
for want in '/usr/lib/dkms/common.postinst' \
	    'dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all'; do
	grep -qF "$want" <<<"$scripts" || why="$why no '$want' in rcm-dkms's scripts;"
done
[ "$(grep -c "^DKMS_NAME=rcm\$" <<<"$scripts")" = 2 ] &&
	[ "$(grep -c "^DKMS_VERSION=$ver\$" <<<"$scripts")" = 2 ] ||
	why="$why rcm-dkms's postinst and prerm are not for rcm $ver;"
if [ -z "$why" ]; then
	report PASS deb.version "$ver"
else
	report FAIL deb.version "dkms.conf says $ver:$why"
fi

# --- lintian -------------------------------------------------------------
# (--show-overrides would make lintian fail on an overridden warning:
# the overrides are listed by a second run, for the log.)
if lintian --allow-root -I -E --pedantic --fail-on error,warning "$changes" \
	>"$out/deb-lintian.log" 2>&1; then
	tags=$(grep -c '^[A-Z]: ' "$out/deb-lintian.log")
	overrides=$(lintian --allow-root --show-overrides "$changes" 2>&1 |
		tee -a "$out/deb-lintian.log" | grep -c '^O: ')
	report PASS deb.lintian "$tags info or pedantic tag(s), $overrides override(s)"
else
	report FAIL deb.lintian "see $out/deb-lintian.log"
	head -20 "$out/deb-lintian.log" | sed 's/^/    /'
fi

# --- files ---------------------------------------------------------------
# /lib, /bin and /sbin are /usr's on a merged-/usr system: one name each.
canon() { sed -E 's,^\./,/,; s,^/(lib|bin|sbin)(/|$),/usr/\1\2,'; }
list=$out/deb-files
mkdir -p "$list"
for d in "$debs"/*_"$ver"_*.deb; do
	dpkg-deb -c "$d" | awk '$1 !~ /^d/ { print $6 }'
done | canon | sort -u >"$list/rcm"
why=
for p in "${distro_pkgs[@]}"; do
	if ! dpkg -L "$p" >"$list/$p.raw" 2>/dev/null; then
		why="$why $p is not installed, nothing to compare with;"
		continue
	fi
	while read -r f; do
		[ -d "$f" ] || echo "$f"
	done <"$list/$p.raw" | canon | sort -u >"$list/$p"
	both=$(comm -12 "$list/rcm" "$list/$p")
	[ -z "$both" ] || why="$why shared with $p: $(echo "$both" | paste -sd' ');"
done
# The directories ld.so searches by itself (ld.so.conf and the trusted
# ones), which a private librdmacm.so.1 must stay out of.
ldconfig -v -N 2>/dev/null | sed -n 's,^\(/[^:]*\):.*,\1,p' | canon |
	sort -u >"$list/ld-dirs"
while read -r f; do
	case $f in
	*.so|*.so.*)
		grep -qxF "$(dirname "$f")" "$list/ld-dirs" &&
			why="$why $f is in the dynamic linker's path;"
		;;
	*/modules-load.d/*) why="$why $f loads the module at every boot;" ;;
	esac
done <"$list/rcm"
grep -qx '/usr/lib/udev/rules.d/90-rcm.rules' "$list/rcm" ||
	why="$why no udev rule in /lib/udev/rules.d;"
if [ -z "$why" ]; then
	report PASS deb.files "$(wc -l <"$list/rcm") files, none of ${distro_pkgs[*]}"
else
	report FAIL deb.files "$why"
fi

if [ -n "$guest_pid" ]; then
	wait "$guest_pid" || failed=1
	cat "$out/deb-guest.txt"
fi
echo "# deb-check took $(elapsed)"
exit $failed
