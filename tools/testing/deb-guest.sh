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
# them); when install or dkms fails, the later ones fail unrun:
#   install   dpkg -i of both packages (dpkg refuses a file that another
#             installed package owns: rdma-core, librdmacm1, ... are)
#   dkms      DKMS built and installed rcm.ko for the running kernel, at
#             the packages' version
#   modprobe  modprobe rcm loads it; /dev/infiniband/rcm appears, 0666
#   udev      with udevd running, adding a Soft-RoCE device loads rcm
#             (hotplug), and so does replaying the device's add event
#             (coldplug, as at boot)
#   rcm-run   rping still resolves the distribution's librdmacm, under
#             rcm-run rcm's; rping through rcm-run, both ends, with the
#             in-tree rdma_ucm unloaded
#   dkms.newest  the same for the newest kernel with headers (6.12 next
#             to 6.1), which DKMS builds for too
#   purge     apt-get purge of both: no module, DKMS tree, source or
#             package file left
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

debdir=${rcm_debdir:-}
rel=$(uname -r)
addr=198.18.1.1
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
# Without the packages or the module, no later test can run.
blocked() {	# NAME
	case $failed in
	*install*|*dkms*)
		result FAIL "$1" "not run: failed before it:$failed"
		return 0
		;;
	esac
	return 1
}
loaded() { [ -d /sys/module/rcm ]; }
# Wait up to $1 tenths of a second for "$2 ..." to succeed. Each bound
# is one only a hang reaches: make check runs this guest beside
# guests that may take the host's every core for a while.
wait_for() {	# TENTHS COMMAND...
	n=$1
	shift
	i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -le "$n" ] || return 1
		sleep 0.1
	done
}

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

# --- dkms -------------------------------------------------------------------
begin dkms
if ! blocked dkms; then
	st=$(dkms status -m rcm -v "$ver" -k "$rel" 2>&1)
	echo "rcm-out: dkms: $st"
	echo "$st" | grep -q "^rcm/$ver, $rel, [^:]*: installed" ||
		check_fail dkms "dkms status: $st"
	path=$(modinfo -n rcm 2>&1)
	[ "$path" = "/lib/modules/$rel/updates/dkms/rcm.ko" ] ||
		check_fail dkms "modinfo -n rcm: $path"
	mv=$(modinfo -F version rcm 2>&1)
	[ "$mv" = "$ver" ] || check_fail dkms "module version '$mv', packages $ver"
	vm=$(modinfo -F vermagic rcm 2>&1)
	case $vm in
	"$rel "*) ;;
	*) check_fail dkms "vermagic '$vm', kernel $rel" ;;
	esac
	case $failed in *dkms*) ;; *) result PASS dkms ;; esac
	# DKMS builds for the running kernel and for the newest one with
	# headers: on a Debian 12 root with 6.1 and 6.12, both.
	newest=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -1)
	newest=${newest#/lib/modules/}
	newest=${newest%/build}
	if [ -n "$newest" ] && [ "$newest" != "$rel" ]; then
		st=$(dkms status -m rcm -v "$ver" -k "$newest" 2>&1)
		echo "rcm-out: dkms: $st"
		echo "$st" | grep -q "^rcm/$ver, $newest, [^:]*: installed" ||
			check_fail dkms.newest "dkms status: $st"
		vm=$(modinfo -k "$newest" -F vermagic rcm 2>&1)
		case $vm in
		"$newest "*) ;;
		*) check_fail dkms.newest "vermagic '$vm', kernel $newest" ;;
		esac
		case $failed in *dkms.newest*) ;; *) result PASS dkms.newest ;; esac
	fi
fi
end dkms

# --- modprobe ---------------------------------------------------------------
begin modprobe
if ! blocked modprobe; then
	if modprobe rcm 2>"$log/modprobe"; then
		[ "$(cat /sys/module/rcm/version 2>&1)" = "$ver" ] ||
			check_fail modprobe "/sys/module/rcm/version is not $ver"
		wait_for 600 test -c /dev/infiniband/rcm ||
			check_fail modprobe "no /dev/infiniband/rcm"
		mode=$(stat -c %a /dev/infiniband/rcm 2>&1)
		[ "$mode" = 666 ] || check_fail modprobe "/dev/infiniband/rcm mode $mode"
		modprobe -r rcm 2>>"$log/modprobe" ||
			check_fail modprobe "modprobe -r rcm failed"
	else
		check_fail modprobe "modprobe rcm failed"
		show modprobe "$log/modprobe"
	fi
	case $failed in *modprobe*) ;; *) result PASS modprobe ;; esac
fi
end modprobe

# --- udev -------------------------------------------------------------------
begin udev
if ! blocked udev; then
	if loaded || ls /sys/class/infiniband/* >/dev/null 2>&1; then
		check_fail udev "rcm or an RDMA device is there before the test"
	elif ! /lib/systemd/systemd-udevd --daemon >"$log/udevd" 2>&1; then
		check_fail udev "systemd-udevd did not start"
		show udev "$log/udevd"
	else
		# A Soft-RoCE device on a veth whose peer has no address.
		ip link add rxenet0 type veth peer name rxepeer0 &&
			ip link set rxepeer0 up && ip link set rxenet0 up &&
			ip addr add "$addr/24" dev rxenet0 &&
			rdma link add rxe0 type rxe netdev rxenet0 ||
			check_fail udev "cannot add the Soft-RoCE device"
		udevadm settle --timeout=60
		if wait_for 300 loaded; then
			result PASS udev.hotplug
		else
			check_fail udev.hotplug "rdma link add did not load rcm"
		fi
		# At boot the device is there before udevd: systemd replays
		# its add event (udevadm trigger).
		modprobe -r rcm
		loaded && check_fail udev.coldplug "modprobe -r rcm left it loaded"
		udevadm trigger --verbose --action=add --subsystem-match=infiniband 2>&1 |
			sed 's/^/rcm-out: udev: trigger: /'
		udevadm settle --timeout=60
		if wait_for 300 loaded; then
			result PASS udev.coldplug
		else
			check_fail udev.coldplug "the replayed add event did not load rcm"
			lsmod | sed 's/^/rcm-out: udev: /'
		fi
	fi
fi
end udev

# --- rcm-run ----------------------------------------------------------------
run_rping() {	# PORT: rcm server and client, 5 verified pings
	rcm-run rping -s -a "$addr" -p "$1" -C 5 -v -V >"$log/rping-s" 2>&1 &
	spid=$!
	# The installed rcm-stat lists the server's listener (rcm-run execs).
	if wait_for 600 sh -c "rcm-stat -q -p $spid | grep -q ' LISTEN '"; then
		result PASS rcm-run.rcm-stat
	else
		check_fail rcm-run.rcm-stat "rcm-stat does not list rping's listener"
		rcm-stat -p $spid | sed 's/^/rcm-out: rcm-stat: /'
	fi
	tries=0
	until rcm-run timeout 60 rping -c -a "$addr" -p "$1" -C 5 -v -V \
		>"$log/rping-c" 2>&1; do
		tries=$((tries + 1))
		[ $tries -lt 5 ] && kill -0 $spid 2>/dev/null || break
		sleep 1
	done
	# The server ends after its 5 pings; a hung one is killed.
	( sleep 60; kill $spid 2>/dev/null ) &
	wpid=$!
	wait $spid
	src=$?
	kill $wpid 2>/dev/null
	[ $src = 0 ] &&
		[ "$(grep -c '^ping data: ' "$log/rping-c")" = 5 ] &&
		[ "$(grep -c '^server ping data: ' "$log/rping-s")" = 5 ]
}

begin rcm-run
if ! blocked rcm-run; then
	modprobe rcm	# rcm-run wants the device
	sys=$(ldd /usr/bin/rping | awk '$1 == "librdmacm.so.1" { print $3 }')
	ours=$(rcm-run ldd /usr/bin/rping 2>&1 |
		awk '$1 == "librdmacm.so.1" { print $3 }')
	echo "rcm-out: rcm-run: rping loads $sys; under rcm-run $ours"
	case $sys in
	*/rcm/*|"") check_fail rcm-run.library "rping resolves '$sys'" ;;
	esac
	case $ours in
	/usr/lib/*/rcm/librdmacm.so.1) ;;
	*) check_fail rcm-run.library "under rcm-run rping resolves '$ours'" ;;
	esac
	case $failed in *rcm-run.library*) ;; *) result PASS rcm-run.library ;; esac

	# Only rcm can serve: the in-tree user-space CM is not there.
	modprobe -r rdma_ucm 2>/dev/null
	if [ -e /dev/infiniband/rdma_cm ] || grep -q '^rdma_ucm ' /proc/modules; then
		check_fail rcm-run.rping "rdma_ucm cannot be unloaded"
	elif ! wait_for 600 grep -qs ffff:c612:0101 \
		/sys/class/infiniband/*/ports/1/gids/[0-9]; then
		check_fail rcm-run.rping "no RoCE GID for $addr"
	elif run_rping 20301; then
		result PASS rcm-run.rping
	else
		check_fail rcm-run.rping "rping on rcm failed"
		echo "rcm-out: rcm-run: server:"
		show rcm-run "$log/rping-s" 15
		echo "rcm-out: rcm-run: client:"
		show rcm-run "$log/rping-c" 15
	fi
fi
end rcm-run

# --- purge ------------------------------------------------------------------
# apt-get purge of both packages, as a user removes rcm: the module gone
# from every kernel DKMS built it for, DKMS's tree and the source gone,
# and no file of either package left behind.
begin purge
if ! blocked purge; then
	modprobe -r rcm 2>/dev/null
	# The packages' files and links, not their directories (nor /lib,
	# a link to a directory on a merged /usr).
	files=$(dpkg -L rcm rcm-dkms 2>/dev/null | while read -r f; do
		[ -d "$f" ] && continue
		if [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi
	done)
	if ! { apt-get purge -y rcm rcm-dkms 2>&1; echo "apt exit $?"; } |
		stamped >"$log/purge" || ! grep -q ' apt exit 0$' "$log/purge"; then
		check_fail purge "apt-get purge failed"
		show purge "$log/purge"
	fi
	for p in rcm rcm-dkms; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' &&
			check_fail purge "$p is still installed"
	done
	left=$(for f in $files; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done)
	[ -z "$left" ] || check_fail purge "files left: $(echo $left)"
	kos=$(find /lib/modules -name 'rcm.ko*' 2>/dev/null)
	[ -z "$kos" ] || check_fail purge "modules left: $(echo $kos)"
	[ ! -e /var/lib/dkms/rcm ] || check_fail purge "/var/lib/dkms/rcm is left"
	ls -d /usr/src/rcm-* >/dev/null 2>&1 && check_fail purge "/usr/src/rcm-* is left"
	modinfo rcm >/dev/null 2>&1 && check_fail purge "modinfo still finds rcm"
	case $failed in *purge*) ;; *) result PASS purge ;; esac
fi
end purge

# The kernel's own reports (WARNING, BUG, ...) that the console's log
# level hid: the host fails the run on them. The one list of them,
# tools/testing/vm/splat-patterns, came with the packages.
splat_re=$(grep -v -e '^#' -e '^$' "$debdir/splat-patterns" | paste -sd '|')
dmesg | grep -E "$splat_re" | head -20 | sed 's/^/rcm-splat: deb /'
