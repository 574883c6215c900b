#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: build everything and run every test, on a fresh Debian 12
# machine, as root. Prints one "PASS|FAIL|SKIP name" line per test and
# ends with "N passed, N failed, N skipped"; exits 1 on any failure.
#
# Steps: packages -> selftests -> test kernel (cached), its rcm.ko and
# initramfs -> in the background, as early as they can start (they are
# the long poles): the test-kernel guests (KUnit + selftests over rxe
# and siw) and the Debian packages (deb-check.sh, niced); meanwhile, for
# each distro kernel (Debian 12's 6.1 and 6.12): rcm.ko by DKMS, then
# its guest (selftests over rxe) in the background too, then the iWARP
# pair, while style/sparse and the userlib host tests run. Guests wait
# for one of $(nproc) slots (RCM_GUEST_SLOTS). Then the RoCE pair
# (a 6.1 guest and a 6.12 guest), the harness self-test and the refusal
# of kernels outside 6.1-6.12. Each step
# prints "== [k/K +Ns] what"; each guest a "# label [k/K +Ns] test: ..."
# line on stderr as each test ends.
#
# Env (Documentation/testing.rst, "Running one test"; nothing else):
# RCM_ONLY=test|distro|host to run a subset, RCM_TESTS=a,b to choose
# guest tests (pair_* names: the pairs'), RCM_CASE=name one case of each,
# RCM_GUEST_SLOTS=N:DIR, RCM_CACHE (default /var/cache/rcm).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/testing/vm
buildtm=$top/tools/testing/build-test-module.sh
out=$top/build
results=$out/results.txt
only=${RCM_ONLY:-}
start=$(date +%s)
mkdir -p "$out"
# One make check at a time in a tree: a second would empty the first's
# results and rebuild the files its guests read.
exec 8>"$out/.check.lock"
if ! flock -n 8; then
	echo "rcm: another make check is running in $top; wait for it" >&2
	exit 2
fi
: >"$results"
# Guests take turns, as many at once as the host has cores (run-guest.py
# says why); each waits for a slot in the order it asked.
rm -rf "$out/guest-slots"
export RCM_GUEST_SLOTS=${RCM_GUEST_SLOTS:-$(nproc):$out/guest-slots}

# "== [k/K +Ns] what": the step's number, of how many, and the time since
# the start.
step_no=0
case "$only" in
host) steps=6 ;;
distro) steps=12 ;;
test) steps=5 ;;
*) steps=17 ;;
esac
say_at() {	# K WHAT
	local k=$1
	shift
	echo "== [$k/$steps +$(( $(date +%s) - start ))s] $*"
}
say() {
	step_no=$((step_no + 1))
	say_at $step_no "$@"
}
test_pid=
test_results=
test_ready=
# The compiler cache of the module builds on this machine (ccache.sh).
export RCM_CCACHE_DIR=${RCM_CACHE:-/var/cache/rcm}/ccache-host
mkdir -p "$RCM_CCACHE_DIR"
CCACHE_DIR=$RCM_CCACHE_DIR ccache --max-size 500M >/dev/null 2>&1
report() {	# STATUS NAME [WHY]
	local line="$1 $2${3:+: $3}"
	echo "$line" | tee -a "$results"
}
# Run a command; one result named $1 from its exit status.
step() {
	local name=$1 log=$out/$1.log
	shift
	if "$@" >"$log" 2>&1; then
		report PASS "$name"
	else
		report FAIL "$name" "see $log"
		tail -15 "$log" | sed 's/^/    /'
		return 1
	fi
}
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

say "packages"
"$top/tools/testing/install-deps.sh" || exit 1

# The distro kernels: Debian 12's 6.1 series (its default) and 6.12 (the
# series Debian 13 runs); Documentation/testing.rst says what runs where.
read -r distro_rel distro_vmlinux < <("$vm/distro-kernel.sh" 6.1)
distro_kdir=/lib/modules/$distro_rel/build
read -r d612_rel d612_vmlinux < <("$vm/distro-kernel.sh" 6.12)
d612_kdir=/lib/modules/$d612_rel/build

say "selftests"
jobs=-j$(nproc)
# kselftest's installed tree, as the guests run it: run_kselftest.sh,
# kselftest-list.txt (what kselftest's runner runs), rcm/ with the
# programs, their settings and "list" (what it does not run: name:
# command).
rm -rf "$out/selftests"
step build.selftests make $jobs -C "$top/tools/testing/selftests" TARGETS=rcm \
	O="$out" KSFT_INSTALL_PATH="$out/selftests" install
st=$out/selftests/rcm
# Guest programs of the userlib run on the library built here, which the
# initramfs carries in /usr/lib/rcm. Those whose source says "In-tree
# control: yes" also run as NAME_intree on the distribution's librdmacm
# and rdma_ucm, first: the same checks on the stack rcm imitates. Those
# that say "In-tree compare: yes" record what they see on the in-tree
# stack ("save FILE") and compare rcm with it ("check FILE"), in one test.
if step build.userlib-guest-tests make $jobs -C "$top/userlib" guest-tests; then
	for t in "$top"/userlib/test/guest/out/*; do
		n=$(basename "$t")
		src=$top/userlib/test/guest/$n.c
		cp "$t" "$st/"
		grep -q '^ \* In-tree control: yes' "$src" &&
			echo "${n}_intree: ./$n" >>"$st/list"
		if grep -q '^ \* In-tree compare: yes' "$src"; then
			echo "$n: ./$n save /tmp/$n.intree && LD_LIBRARY_PATH=/usr/lib/rcm ./$n check /tmp/$n.intree" \
				>>"$st/list"
		else
			echo "$n: LD_LIBRARY_PATH=/usr/lib/rcm ./$n" >>"$st/list"
		fi
	done
fi
# The InfiniBand test fabric's check (the test kernel only, below).
cp "$top/tools/testing/ibfabric/ibfabric.sh" "$st/"
echo "ibfabric: ./ibfabric.sh" >>"$st/list"
# Debian's librdmacm programs that the rping, udaddy and rsocket tests
# run on rcm and in-tree.
librdmacm_programs="--bin /usr/bin/rping --bin /usr/bin/cmtime --bin /usr/bin/udaddy
	--bin /usr/bin/mckey --bin /usr/bin/rstream --bin /usr/bin/riostream
	--bin /usr/bin/rcopy --bin /usr/bin/udpong
	--bin /usr/lib/x86_64-linux-gnu/rsocket/librspreload.so"
# The application stacks that apps.sh runs on rcm and in-tree (the distro
# guest only): perftest, libfabric, UCX with its modules, and Python with
# pyverbs and rdma-core's tests.
python_lib=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
app_programs="--bin /usr/bin/ib_send_bw --bin /usr/bin/ib_read_lat
	--bin /usr/bin/ib_write_bw --bin /usr/bin/fi_pingpong --bin /usr/bin/io_demo
	--tree /usr/lib/x86_64-linux-gnu/ucx --bin /usr/bin/python3
	--tree $python_lib --omit $python_lib/config-${python_lib##*python}-x86_64-linux-gnu
	--omit $python_lib/test --tree /usr/lib/python3/dist-packages/pyverbs"
# An image that leaves out /usr/share/doc fails only the pyverbs cases.
if [ -d /usr/share/doc/rdma-core/tests ]; then
	app_programs="$app_programs --tree /usr/share/doc/rdma-core/tests"
fi
# Every guest test: kselftest's (rcm:NAME or rcm:NAME.sh), then the list's.
all_tests=$({ sed -n 's/^rcm:\(.*\)/\1/p' "$out/selftests/kselftest-list.txt" |
	sed 's/\.sh$//'; sed 's/:.*//' "$st/list"; } | grep -v '^pair_')
# Each guest program's bound, the selftest directory's "settings".
ksft_timeout=$(sed -n 's/^timeout=//p' "$top/tools/testing/selftests/rcm/settings")
# The KASAN test kernel runs rping and cmtime in a lighter round
# (rping_quick), and not the application stacks (apps); the distro kernel
# runs them in full. The in-tree controls (NAME_intree: the userlib guest
# programs on the distribution's librdmacm and rdma_ucm) run on the
# distro kernel only: they prove a program's expectations against the
# stack rcm imitates, and run none of rcm's code for KASAN to watch.
# RCM_TESTS less its pair_* names: the other guests' tests (maybe none).
chosen=$(echo "${RCM_TESTS:-}" | tr , '\n' | grep -v '^pair_' | paste -sd,)
test_tests=${RCM_TESTS:+$chosen}
[ -n "${RCM_TESTS:-}" ] || test_tests=$(echo "$all_tests" | grep -vx 'rping\|apps\|rsocket\|ipoib\|.*_intree' | paste -sd,)
# Two test-kernel guests share that list, each about half of its time
# (the "rcm-time:" lines of their logs): the second runs iWARP, the
# programs that load the module from userspace (Debian's, chaos,
# stress, churn, fuzz, faults), SIDR, multicast, hostile_peer and the
# userlib's programs; the first, after KUnit, the rest. Their tests wait as much as they compute, so
# two guests finish well before one would.
test_b_re='ibfabric\|ib\|ibref\|iwarp\|rping_iwarp\|rping_quick\|udaddy\|chaos\|stress\|churn\|fuzz\|faults\|sidr\|mcast\|mcast_verbs\|hostile_peer\|cm_.*'
test_tests_b=
if [ -z "${RCM_TESTS:-}" ]; then
	# ibfabric first: ib's last case unloads the fabric.
	test_tests_b=$(echo "$test_tests" | tr , '\n' | grep -x "$test_b_re" |
		awk '$0 == "ibfabric" { print; next }
			{ rest = rest $0 "\n" } END { printf "%s", rest }' | paste -sd,)
	test_tests=$(echo "$test_tests" | tr , '\n' | grep -vx "$test_b_re" | paste -sd,)
fi
# The InfiniBand test fabric runs on the test kernel only: it proves
# ib_core's and ib_cm's code paths, which KASAN watches there; so does
# ib, rcm's AF_IB and SA routes on it, and ibref, rcm against the
# in-tree rdma_cm on it (rcm_ibref.ko). ipoib, IP addresses over IPoIB
# netdevs on the fabric, runs on Debian's 6.1 only: the test kernel has
# no IPoIB, and Debian's ib_ipoib.ko runs there as it ships.
# Debian's 6.1 is the test kernel's own source (linux-source-6.1 of the
# same version) without the debug options, so rcm's selftests and the
# rcm half of the userlib's programs, which the test kernel runs under
# KASAN, lockdep and kmemleak, and 6.12 runs too, are not run a third
# time: 6.1 runs what compares rcm with Debian's own stack there, the
# stack most Debian 12 machines run - the application stacks, Debian's
# rping, udaddy and cmtime (churn), rstream, riostream and rcopy
# (rsocket; its in-tree rstream trips a KASAN report in the test
# kernel's rxe, Documentation/testing.rst), and every in-tree control.
guest_tests=${RCM_TESTS:+$chosen}
[ -n "${RCM_TESTS:-}" ] || guest_tests=$(echo "$all_tests" |
	grep -x 'apps\|rping\|rsocket\|udaddy\|churn\|ipoib\|.*_intree\|cm_intree_compare' | paste -sd,)
# The 6.12 guest runs what talks to the kernel - every selftest and
# userlib program, in-tree controls included - but not the application
# stacks, Debian's rping and udaddy, chaos, stress and churn: those
# exercise userspace and load, the same on either kernel (the test
# kernel runs chaos, stress, udaddy and churn, 6.1 the stacks, rping,
# udaddy and churn, the pair rping across 6.1 and 6.12); nor
# intree_rejrace, which looks for a KASAN report only the test kernel
# can give.
d612_tests=${RCM_TESTS:+$chosen}
[ -n "${RCM_TESTS:-}" ] || d612_tests=$(echo "$all_tests" |
	grep -vx 'rping_quick\|ibfabric\|ib\|ibref\|ipoib\|apps\|rping\|rsocket\|udaddy\|chaos\|stress\|churn\|intree_rejrace' | paste -sd,)
pair_tests=$(sed -n 's/^\(pair_[^:]*\):.*/\1/p' "$st/list" | paste -sd,)
# The iWARP pair (test kernel, siw) runs what does not need RoCE.
pair_iw_tests=pair_rping
# RCM_TESTS's pair_* names are the pairs' tests (both pairs'); without
# any, the pairs run theirs.
chosen_pair=$(echo "${RCM_TESTS:-}" | tr , '\n' | grep '^pair_' | paste -sd,)
if [ -n "$chosen_pair" ]; then
	pair_tests=$chosen_pair pair_iw_tests=$chosen_pair
fi

if want test; then
	say "test kernel (linux-source-6.1 + tools/testing/vm/kernel.config)"
	if kernel=$("$vm/build-kernel.sh"); then
		report PASS build.test-kernel "$(cat "$kernel/build-seconds")s cold build"
		# The selftests' "config": every option there is in it.
		missing=$(grep -vxFf "$kernel/build/.config" \
			"$top/tools/testing/selftests/rcm/config" | paste -sd' ')
		if [ -z "$missing" ]; then
			report PASS selftests.config
		else
			report FAIL selftests.config "the test kernel lacks $missing"
		fi
		rel=$(cat "$kernel/release")
		# The test-only peer of hostile_peer and the InfiniBand
		# test fabric of ibfabric; without them those tests skip.
		hostile_ko=()
		if step build.hostile-test-kernel "$buildtm" "$top/tools/testing/hostile" \
			"$kernel/build" "$out/hostile-test"; then
			hostile_ko=(--extra-ko "$out/hostile-test/rcm_hostile.ko")
		fi
		if step build.ibfabric-test-kernel "$buildtm" "$top/tools/testing/ibfabric" \
			"$kernel/build" "$out/ibfab-test"; then
			hostile_ko+=(--extra-ko "$out/ibfab-test/rcm_ibfab.ko"
				--extra-ko "$out/ibfab-test/rcm_ibref.ko")
		fi
		if step build.rcm-test-kernel "$vm/build-module.sh" "$kernel/build" "$out/test" &&
		   step build.initramfs-test-kernel \
			"$vm/mkinitramfs.sh" --out "$out/test.cpio" --release "$rel" \
				--modroot "$kernel/mods" \
				--rcm-ko "$out/test/drivers/rcm/rcm.ko" "${hostile_ko[@]}" \
				--tests "$out/selftests" --lib-dir "$top/userlib/src" \
				$librdmacm_programs; then
			# The KASAN guests are the long pole: they run in the
			# background, beside each other and the distro kernel's
			# steps, and their results join the others at the end.
			rm -f "$out"/results-test-kernel*.txt \
				"$out/results-pair-iwarp.txt"
			say "guests: test kernel $rel (KUnit, selftests; rxe + siw), two, in the background"
			test_guest() {	# SUFFIX TESTS [ARG...]
				local sfx=$1 tests=$2
				shift 2
				"$vm/run-guest.py" --label "test-kernel$sfx" \
					--kernel "$kernel/bzImage" \
					--initrd "$out/test.cpio" --rdma rxe,siw \
					--memory 1G --test-timeout "$ksft_timeout" \
					--append slub_debug=A,TCP,TCPv6 \
					--guest-timeout 1800 --tests "$tests" "$@" \
					--log "$out/guest-test-kernel$sfx.log" \
					>"$out/results-test-kernel$sfx.txt" &
				test_pid="$test_pid $!"
				test_results="$test_results $out/results-test-kernel$sfx.txt"
			}
			test_guest "" "$test_tests" --kunit
			[ -n "$test_tests_b" ] && test_guest -b "$test_tests_b"
			test_ready=1
		fi
	else
		report FAIL build.test-kernel "see ${RCM_CACHE:-/var/cache/rcm}/kernel-*.log"
	fi
fi

# The Debian packages build from a copy of the tree and their guest runs
# on this machine's root: independent of every other step, and mostly
# DKMS compiling rcm.ko under TCG, so they run in the background too.
deb_pid=
if want distro; then
	rm -f "$out/results-deb.txt"
	say "Debian packages: build, lintian, file lists; a distro guest installs them (DKMS, modprobe, udev, rcm-run), in the background"
	# Niced: the test-kernel guests are the long poles and the distro
	# kernel's chain the next; this lane takes the CPU they leave (its
	# guest starts as soon as the packages are built). Not niced, it
	# slowed the distro 6.1 guest past its bound on a loaded machine.
	nice -n 10 "$top/tools/testing/deb-check.sh" "$distro_rel" "$distro_vmlinux" "$out" \
		>"$out/results-deb.txt" &
	deb_pid=$!
fi

# rcm.ko against a distro kernel's headers with -Werror, in DIR:
# build.rcm-distro (6.1, also sparse's) and build.rcm-distro-6.12. The
# guests load DKMS's build; this one only when DKMS failed.
plain_built=
plain_build() {	# SUFFIX KDIR
	case " $plain_built " in *" distro$1 "*) return 0 ;; esac
	plain_built="$plain_built distro$1"
	step "build.rcm-distro$1" "$vm/build-module.sh" "$2" "$out/distro$1"
}
userlib_built=
if want host && step build.userlib make $jobs -C "$top/userlib"; then
	userlib_built=1
fi

# The distro kernels' guests are the next long poles after the test
# kernel's: each starts as soon as its module is there and runs in the
# background while the style checks and the userlib host tests run.
# distro_lane SERIES REL VMLINUX SUFFIX TESTS: rcm.ko through DKMS for REL,
# the initramfs (SUFFIX names its results: "" for 6.1, "-6.12") and, in
# the background, the guest; its pid joins distro_pids.
distro_pids=
distro_lane() {
	local series=$1 rel=$2 vmlinux=$3 sfx=$4 tests=$5 ko hostile_ko=()
	local kdir=/lib/modules/$rel/build label=distro-$series
	[ -z "$sfx" ] && label=distro-kernel
	say "rcm.ko through DKMS for $rel (a private DKMS tree)"
	if "$top/tools/testing/dkms-check.sh" "$rel" "$out/dkms$sfx" \
		"dkms.build$sfx" | tee -a "$results"; then
		ko=$out/dkms$sfx/rcm.ko
	else
		ko=$out/distro$sfx/drivers/rcm/rcm.ko
		echo "== no DKMS module; the distro guest loads $ko"
		plain_build "$sfx" "$kdir"
	fi
	lane_ko=$ko

	# RCM_TESTS may leave this guest nothing to run.
	if [ -z "$tests" ]; then
		echo "SKIP $label: RCM_TESTS names none of its tests" \
			>"$out/results-$label.txt"
		return 0
	fi
	say "guest: distro kernel $rel (selftests; rxe), in the background"
	rm -f "$out/distro$sfx.cpio" "$out/results-$label.txt"
	# The test-only peer of hostile_peer; without it that test skips.
	if step "build.hostile-distro$sfx" "$buildtm" "$top/tools/testing/hostile" \
		"$kdir" "$out/hostile-distro$sfx"; then
		hostile_ko=(--extra-ko "$out/hostile-distro$sfx/rcm_hostile.ko")
	fi
	# 6.1's ipoib: the test fabric and Debian's ib_ipoib (the test
	# loads it); without them it skips.
	if [ -z "$sfx" ] && step build.ibfabric-distro "$buildtm" \
		"$top/tools/testing/ibfabric" "$kdir" "$out/ibfab-distro"; then
		hostile_ko+=(--extra-ko "$out/ibfab-distro/rcm_ibfab.ko"
			--module ib_ipoib)
	fi
	if step "build.initramfs-distro$sfx" \
		"$vm/mkinitramfs.sh" --out "$out/distro$sfx.cpio" --release "$rel" \
		--modroot / --rcm-ko "$ko" "${hostile_ko[@]}" \
		--tests "$out/selftests" --lib-dir "$top/userlib/src" \
		$librdmacm_programs $app_programs; then
		"$vm/run-guest.py" --label "$label" --kernel "$vmlinux" \
			--initrd "$out/distro$sfx.cpio" --rdma rxe --test-timeout "$ksft_timeout" \
			--guest-timeout 1800 --tests "$tests" \
			--log "$out/guest-$label.log" \
			>"$out/results-$label.txt" &
		distro_pids="$distro_pids $!"
	fi
}
if want distro; then
	distro_lane 6.1 "$distro_rel" "$distro_vmlinux" "" "$guest_tests"
	distro_ko=$lane_ko
	distro_lane 6.12 "$d612_rel" "$d612_vmlinux" -6.12 "$d612_tests"
fi

# The iWARP pair (two test-kernel guests) after the distro guests: it
# waits for a guest slot behind them, as it delays nothing that follows.
if [ -n "$test_ready" ]; then
	say "guests: two test kernels joined by a socket netdev (siw: iWARP), in the background"
	"$vm/run-guest.py" --pair --label pair-iwarp \
		--kernel "$kernel/bzImage" \
		--initrd "$out/test.cpio" --rdma siw \
		--memory 1G --smp 1 --test-timeout "$ksft_timeout" \
		--guest-timeout 1200 --tests "$pair_iw_tests" \
		--log "$out/guest-pair-iwarp.log" \
		>"$out/results-pair-iwarp.txt" &
	test_pid="$test_pid $!"
	test_results="$test_results $out/results-pair-iwarp.txt"
fi

if want host || want distro; then
	say "rcm.ko against the distro headers with -Werror ($distro_rel, $d612_rel)"
	plain_build "" "$distro_kdir"
	plain_build -6.12 "$d612_kdir"
fi

if want host || want distro; then
	say "style: checkpatch, sparse, docs"
	step style.checkpatch make -C "$top" style
	step style.htmldocs make -C "$top" htmldocs
	step style.sparse make -C "$distro_kdir" M="$out/distro" C=2 \
		CHECK="sparse -Wsparse-error" modules
fi

if want host; then
	say "concurrent runs: kernel-script.sh's cache, a second make check; bench plots"
	"$top/tools/testing/kernel-script-test.sh" | tee -a "$results"
	# make bench's data path: report.py's CSV and plot.py's SVGs.
	"$top/tools/testing/bench/plot_test.py" | tee -a "$results"
	# This run holds the tree's lock: a second one must stop at once,
	# before it touches build/.
	if timeout 60 env RCM_ONLY=host "$0" >"$out/second-check.log" 2>&1; then
		report FAIL host.second-check-refused "a second make check ran"
	elif [ $? = 2 ] && grep -q 'another make check is running' "$out/second-check.log" &&
	     [ -s "$results" ]; then
		report PASS host.second-check-refused
	else
		report FAIL host.second-check-refused "see $out/second-check.log"
	fi
	say "userlib host tests"
	if [ -n "$userlib_built" ]; then
		make -s -C "$top/userlib" check >"$out/userlib-check.log" 2>&1
		rc=$?
		grep -E '^(PASS|FAIL|SKIP) ' "$out/userlib-check.log" |
			sed -E 's/^(PASS|FAIL|SKIP) /\1 userlib./' | tee -a "$results"
		if [ $rc != 0 ] && ! grep -q '^FAIL ' "$out/userlib-check.log"; then
			report FAIL userlib.check "exit $rc, see $out/userlib-check.log"
		fi
	fi
fi

# The background steps' results join the others.
bg_results() {	# WHAT "PID..." FILE...: wait for every PID, then add
	local what=$1 pids=$2 pid f
	shift 2
	for pid in $pids; do
		wait "$pid"
	done
	echo "== $what done (+$(( $(date +%s) - start ))s)"
	for f; do
		if [ -s "$f" ]; then
			tee -a "$results" <"$f"
		else
			report FAIL "$(basename "$f" .txt | sed 's/^results-//')" \
				"no results (see $out/guest-*.log)"
		fi
	done
}

if want distro; then
	bg_results "distro-kernel guests" "$distro_pids" "$out/results-distro-kernel.txt" \
		"$out/results-distro-6.12.txt"

	say "guests: 6.1 (a) and 6.12 (b) distro kernels joined by a socket netdev on 127.0.0.1"
	"$vm/run-guest.py" --pair --label pair --kernel "$distro_vmlinux" \
		--initrd "$out/distro.cpio" \
		--kernel-b "$d612_vmlinux" --initrd-b "$out/distro-6.12.cpio" \
		--test-timeout "$ksft_timeout" --rdma rxe --tests "$pair_tests" \
		--log "$out/guest-pair.log" | tee -a "$results"

	say "harness self-test (a failing test, a hang and a WARNING must fail a run)"
	"$vm/harness-selftest.sh" "$distro_rel" "$distro_vmlinux" \
		"$distro_ko" "$out/harness" | tee -a "$results"

	say "kernels outside 6.1-6.12: Kbuild and DKMS refuse them in one sentence"
	"$top/tools/testing/dkms-check.sh" --refuse "$d612_kdir" "$out/refuse" |
		tee -a "$results"
fi

[ -n "$deb_pid" ] && bg_results "Debian packages" "$deb_pid" "$out/results-deb.txt"
# shellcheck disable=SC2086
[ -n "$test_pid" ] && bg_results "test-kernel guests" "$test_pid" $test_results

pass=$(grep -c '^PASS ' "$results")
fail=$(grep -c '^FAIL ' "$results")
skip=$(grep -c '^SKIP ' "$results")
echo "== make check took $(( $(date +%s) - start ))s; results in $results"
grep '^FAIL ' "$results" | sed 's/^/   /'
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
