#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest half of deb-check.sh: a user's path through rcm's Debian
# packages, in a distro-kernel guest that runs on the host's Debian root
# under a tmpfs overlay (vm/root-init.sh), so it has dpkg, DKMS, the
# compiler and the kernel headers, and changes nothing on the host.
#
# Parameter (kernel command line): rcm_debdir=DIR, the directory that
# holds rcm-dkms_VERSION_all.deb and rcm_VERSION_ARCH.deb (deb-check.sh
# passes /run/rcm/tests, the initramfs's /tests that root-init.sh copies).
#
# Tests, in order, as "rcm-result:" lines (vm/guest-init.sh describes
# them). This script plays autopkgtest's runner: it installs the packages
# (install) and runs the package's own autopkgtests, rcm's
# debian/tests/* (which deb-check.sh brings along in DIR/debian/tests),
# in the order debian/tests/control lists them; their "PASS|FAIL|SKIP
# name" lines become results, and a test that exits non-zero without one
# fails under its own name. When install fails, the others fail unrun.
#   install   dpkg -i of both packages (dpkg refuses a file that another
#             installed package owns: rdma-core, librdmacm1, ... are)
#   dkms, dkms.newest  DKMS built and installed rcm.ko for the running
#             kernel and the newest one with headers (6.12 next to 6.1)
#   modprobe  modprobe rcm loads it; /dev/infiniband/rcm appears, 0666
#   udev      with udevd running, adding a Soft-RoCE device loads rcm
#             (hotplug), and so does replaying the device's add event
#             (coldplug, as at boot)
#   rcm-run   rping still resolves the distribution's librdmacm, under
#             rcm-run rcm's; rping through rcm-run, both ends, with the
#             in-tree rdma_ucm unloaded
#   purge     apt-get purge of both: no module, DKMS tree, source or
#             package file left, and no file that was not there before
#             install (the list of debian/tests/purge-files)
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

debdir=${rcm_debdir:-}
rel=$(uname -r)
log=/tmp/deb-guest
mkdir -p "$log"
up() { cut -d' ' -f1 /proc/uptime; }

result() {	# STATUS NAME [WHY]
	echo "rcm-result: $*"
}
# Each line of a command's output with the guest's uptime in front: the
# host's log then shows where the time goes.
stamped() {
	while IFS= read -r line; do
		echo "$(up) $line"
	done
}
# Show a log on the console, for the host's log file.
show() {	# NAME FILE [LINES]
	tail -n "${3:-40}" "$2" 2>/dev/null | sed "s/^/rcm-out: $1: /"
}
failed=
# A test's checks: each failing check prints one FAIL line; the test
# passes when none did.
check_fail() {	# NAME WHY
	result FAIL "$1" "$2"
	failed="$failed $1"
}
t_start=
begin() {
	t_start=$(up)
	echo "rcm-begin: $1"
}
end() {		# NAME
	echo "rcm-time: $1 $t_start $(up)"
}
# Without the packages, no later test can run.
blocked() {	# NAME
	case $failed in
	*install*)
		result FAIL "$1" "not run: failed before it:$failed"
		return 0
		;;
	esac
	return 1
}
loaded() { [ -d /sys/module/rcm ]; }

echo "rcm-out: setup: $(up) deb-guest.sh starts"
[ -n "$debdir" ] || { echo "rcm-fatal: no rcm_debdir"; exit 1; }
dkms_deb='' lib_deb=''
for f in "$debdir"/rcm-dkms_*_all.deb; do [ -f "$f" ] && dkms_deb=$f; done
for f in "$debdir"/rcm_*.deb; do [ -f "$f" ] && lib_deb=$f; done
if [ -z "$dkms_deb" ] || [ -z "$lib_deb" ]; then
	echo "rcm-fatal: no rcm-dkms and rcm packages in $debdir"
	exit 1
fi
ver=$(dpkg-deb -f "$dkms_deb" Version)
ver=${ver%-*}

# --- module trees of what the guest loads ------------------------------------
# DKMS runs depmod for each kernel at every install and removal, and its
# sanity check searches the kernel's tree: over 9p, under TCG, depmod
# reads and decompresses the 4000 modules of a Debian kernel in 40-80 s,
# four times per run. Each kernel's tree here (a tmpfs over its
# kernel/ directory) keeps only the modules this guest can load - the
# RDMA stack, in-tree rdma_ucm included, veth, and the CRC32 that rxe
# asks the crypto API for (a Soft-RoCE device cannot be added without
# it), with their dependencies - at their usual paths; rcm's own go to
# updates/dkms as always. The packages, DKMS and depmod run as on any
# machine.
keep_mods="rdma_rxe rdma_ucm ib_umad ib_ipoib veth crypto-crc32 crypto-crc32c"
for dir in /lib/modules/*/kernel; do
	k=${dir%/kernel}
	k=${k##*/}
	# shellcheck disable=SC2086
	files=$(modprobe -S "$k" --show-depends -a $keep_mods 2>/dev/null |
		awk '$1 == "insmod" { print $2 }' | sort -u)
	[ -n "$files" ] || continue
	tmp=/tmp/keep-mods/$k
	for f in $files; do
		mkdir -p "$tmp${f%/*}" && cp "$f" "$tmp$f"
	done
	if mount -t tmpfs -o mode=0755 tmpfs "$dir" &&
	   cp -a "$tmp$dir/." "$dir/"; then
		echo "rcm-out: setup: $k: $(echo "$files" | wc -l) modules kept"
	else
		echo "rcm-out: setup: $k: its module tree could not be trimmed"
	fi
	rm -rf "$tmp"
done
echo "rcm-out: setup: $(up) module trees trimmed"

# --- a machine without rcm --------------------------------------------------
# The root is the host's: what the host itself has of rcm (an installed
# package, make dkms-install, make modules_install) is removed here, in
# the overlay, so that the packages are what brings rcm to this guest.
for p in rcm rcm-dkms; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		echo "rcm-out: setup: the host has $p installed; purged in the guest"
		dpkg --purge "$p" >"$log/setup" 2>&1
	fi
done
if [ -e /var/lib/dkms/rcm ] || ls -d /usr/src/rcm-* >/dev/null 2>&1; then
	echo "rcm-out: setup: the host has rcm in DKMS or /usr/src; removed in the guest"
	dkms remove -m rcm --all >>"$log/setup" 2>&1
	rm -rf /var/lib/dkms/rcm /usr/src/rcm-*
fi
# make install's files (PREFIX /usr/local): its rcm-run would come first
# in PATH, its udev rule would load rcm without the package's.
for f in /usr/local/bin/rcm-run /usr/local/lib/rcm /etc/udev/rules.d/90-rcm.rules \
	 /etc/modprobe.d/rcm.conf /etc/ld.so.conf.d/rcm.conf; do
	if [ -e "$f" ]; then
		echo "rcm-out: setup: the host has $f (make install); removed in the guest"
		rm -rf "$f"
		[ "$f" = /etc/ld.so.conf.d/rcm.conf ] && ldconfig
	fi
done
ko=$(modinfo -n rcm 2>/dev/null)
if [ -n "$ko" ]; then
	echo "rcm-out: setup: the host has $ko; removed in the guest"
	rm -f "$ko"
	depmod "$rel"
fi
if modinfo rcm >/dev/null 2>&1 || loaded; then
	echo "rcm-fatal: the guest has an rcm module before the packages are installed"
	exit 1
fi
# man-db's trigger would index every manual page of the host (through
# 9p, under TCG: minutes); the flag file is Debian's switch for it.
rm -f /var/lib/man-db/auto-update

# A compiler cache that outlives the guest (deb-check.sh shares it as
# /run/rcm/share/ccache): DKMS compiles under TCG, tens of times slower
# than the host, and a warm run hits it. Debian's kernel headers put
# ccache in front of the compiler when DEBIAN_KERNEL_USE_CCACHE is set;
# DKMS, Kbuild, modpost and the link run as for any user, and a changed
# source or header is compiled again.
ccache_dir=/run/rcm/share/ccache
if mountpoint -q "$ccache_dir" && command -v ccache >/dev/null; then
	export CCACHE_DIR=$ccache_dir DEBIAN_KERNEL_USE_CCACHE=1
	# Each header's hash, once per guest rather than once per source
	# file: the inode cache, in the guest's own tmpfs (mapped memory,
	# which the 9p share is not for).
	export CCACHE_INODECACHE=true CCACHE_TEMPDIR=/tmp/ccache
	ccache --zero-stats >/dev/null
else
	ccache_dir=
fi

# What the purge test compares with once the packages are gone.
. "$debdir/debian/tests/purge-files"
purge_files >"$log/purge-before"
echo "rcm-out: setup: $(up) $(wc -l <"$log/purge-before") files before install"

# --- install ----------------------------------------------------------------
begin install
echo "rcm-out: install: dpkg -i $(basename "$dkms_deb") $(basename "$lib_deb")"
if { dpkg -i "$dkms_deb" "$lib_deb" 2>&1; echo "dpkg exit $?"; } | stamped >"$log/install" &&
	grep -q ' dpkg exit 0$' "$log/install"; then
	for p in rcm-dkms rcm; do
		st=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null)
		[ "$st" = "install ok installed $ver" ] ||
			check_fail install "$p: '$st'"
	done
	show install "$log/install" 100
	[ -z "$failed" ] && result PASS install
else
	check_fail install "dpkg -i failed"
	show install "$log/install"
	show install "/var/lib/dkms/rcm/$ver/build/make.log" 60
fi
if [ -n "$ccache_dir" ]; then
	ccache --print-stats | awk -F'\t' '
		$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ {
			printf "%s %s ", $1, $2 }
		END { print "" }' | sed 's/^/rcm-out: install: ccache: /'
fi
end install

# --- the package's autopkgtests --------------------------------------------
# Each test under its name in debian/tests/control, in that file's
# order, run from DIR as autopkgtest runs it from the source tree.
run_test() {	# NAME
	begin "$1"
	if blocked "$1"; then
		end "$1"
		return
	fi
	(cd "$debdir" && RCM_PURGE_BEFORE=$log/purge-before \
		"debian/tests/$1") >"$log/t-$1" 2>&1
	rc=$?
	grep -v -e '^PASS ' -e '^FAIL ' -e '^SKIP ' "$log/t-$1" | tail -n 60 |
		sed "s/^/rcm-out: $1: /"
	sed -n -e 's/^\(PASS\) \([^ :]*\)$/rcm-result: \1 \2/p' \
		-e 's/^\(FAIL\|SKIP\) \([^ :]*\): /rcm-result: \1 \2 /p' "$log/t-$1"
	if grep -q '^FAIL ' "$log/t-$1"; then
		failed="$failed $1"
	elif [ $rc != 0 ]; then
		check_fail "$1" "debian/tests/$1 exited $rc"
	elif ! grep -q -e '^PASS ' -e '^SKIP ' "$log/t-$1"; then
		check_fail "$1" "debian/tests/$1 reported nothing"
	fi
	end "$1"
}
tests=$(sed -n 's/^Tests: *//p' "$debdir/debian/tests/control")
[ -n "$tests" ] || echo "rcm-fatal: no tests in $debdir/debian/tests/control"
for t in $tests; do
	run_test "$t"
done

# The kernel's own reports (WARNING, BUG, ...) that the console's log
# level hid: the host fails the run on them. The one list of them,
# tools/testing/vm/splat-patterns, came with the packages.
splat_re=$(grep -v -e '^#' -e '^$' "$debdir/splat-patterns" | paste -sd '|')
dmesg | grep -E "$splat_re" | head -20 | sed 's/^/rcm-splat: deb /'
