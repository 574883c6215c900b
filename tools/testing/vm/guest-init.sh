#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the rcm test guest (busybox). Parameters arrive as environment
# variables from the kernel command line:
#   rcm_tests=a,b,c     tests to run, in order (see "tests" below)
#   rcm_timeout=SECS    per-test bound (default 120; kselftest's runner
#                       bounds its programs by their "settings", and
#                       this, a minute later, the runner)
#   rcm_case=NAME       run only that case of each C test program
#                       (RCM_TEST_ONLY in the tests, rcm_harness.h)
#   rcm_rdma=rxe|siw|rxe,siw   soft RDMA devices to create (default rxe)
#   rcm_kunit=1         load rcm.ko as the KUnit step (test kernel)
#   rcm_pair=a|b        one of two guests joined by a socket netdev: the
#                       RDMA device (rxe0 or siw0, from rcm_rdma, one
#                       kind) sits on the virtio NIC (eth0) at
#                       198.18.20.1 (a) or .2 (b); rcm_peer_mac is the
#                       other guest's MAC
#
# Every line meant for the host starts with "rcm-": the host harness
# (run-guest.py) reads results only from those lines.
#   rcm-result: PASS|FAIL|SKIP <name> [detail]
#   rcm-ktap: <KTAP line from the kernel log>
#   rcm-splat: <test> <kernel log line>
#   rcm-dmesg: <test> <kernel log line> (the whole log, after a splat)
#   rcm-time: <test> <start> <end> <busy seconds>
#   rcm-case: <test>.<case> <seconds since the previous case ended>
#   rcm-loading (just before rcm.ko is loaded)
#   rcm-done
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu

/bin/busybox mkdir -p /proc /sys /dev /tmp /run /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# What udev would add: kselftest's runner writes to /dev/stdout.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm	# POSIX semaphores
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "rcm-boot: $(cut -d' ' -f1 /proc/uptime)"
IP=/usr/sbin/ip	# iproute2's: busybox's applet knows no "type dummy"

timeout_s=${rcm_timeout:-120}
[ -n "${rcm_case:-}" ] && export RCM_TEST_ONLY=$rcm_case
rdma_kinds=${rcm_rdma:-rxe}
# What fails a run: the one list run-guest.py reads too.
splat_re=$(grep -v -e '^#' -e '^$' /etc/rcm-splat-patterns | tr '\n' '|' | sed 's/|$//')

result() {
	echo "rcm-result: $*"
}

# Read and clear the kernel log; report any splat in it against $1,
# then the whole slice of the log as "rcm-dmesg:" lines for the host's
# log file: the console (loglevel=4) leaves out what the kernel prints
# at the default level, such as KASAN's allocation and free stacks.
scan_log() {
	dmesg -c >/tmp/slice 2>/dev/null
	cat /tmp/slice >>/tmp/kernel.log
	if grep -Eq "$splat_re" /tmp/slice; then
		grep -E "$splat_re" /tmp/slice | head -20 |
			sed "s/^/rcm-splat: $1 /"
		head -1000 /tmp/slice | sed "s/^/rcm-dmesg: $1 /"
		return 1
	fi
	return 0
}

die() {
	echo "rcm-fatal: $*"
	scan_log setup
	echo "rcm-done"
	sync
	reboot -f
}

# --- modules --------------------------------------------------------------
for m in crc32_generic dummy veth virtio_pci virtio_net ib_core ib_cm iw_cm \
	 ib_uverbs rdma_cm rdma_ucm rdma_rxe siw; do
	modprobe -q "$m" 2>/dev/null
done
grep -q '^ib_cm ' /proc/modules || die "ib_cm did not load"

# --- soft RDMA devices ----------------------------------------------------
# One netdev per device kind, addresses from 198.18.0.0/15 only.
n=0
if [ -n "$rcm_pair" ]; then
	# The peer guest is the only other host on eth0.
	me=1 peer=2
	[ "$rcm_pair" = b ] && me=2 peer=1
	# One device kind per pair: rxe (RoCE) or siw (iWARP).
	case $rdma_kinds in
	rxe|siw) ;;
	*) die "a pair runs one device kind (rxe or siw), not $rdma_kinds" ;;
	esac
	$IP link set eth0 up || die "no eth0 for the pair link"
	$IP addr add "198.18.20.$me/24" dev eth0
	rdma link add "${rdma_kinds}0" type "$rdma_kinds" netdev eth0 ||
		die "rdma link add ${rdma_kinds}0 failed"
	n=1
	kind_uc=$(echo "$rdma_kinds" | tr a-z A-Z)
	export "RCM_ADDR_$kind_uc=198.18.20.$me" "RCM_NETDEV_$kind_uc=eth0"
	export RCM_PEER_ADDR=198.18.20.$peer RCM_PEER_MAC=$rcm_peer_mac
	# Half of the end-of-run barrier: the peer says here when it is done.
	nc -l -p 7000 >/tmp/peer-done 2>/dev/null &
	rxe_gid_net=20
	rxe_gid_host=$me
else
for kind in $(echo "$rdma_kinds" | tr , ' '); do
	n=$((n + 1))
	dev=${kind}net0
	# A veth whose peer has no address: the device's own address
	# loops back inside the RDMA driver, and 198.18.N.2 is a neighbour
	# that never answers.
	$IP link add "$dev" type veth peer name "${kind}peer0" ||
		die "cannot create $dev"
	$IP link set "${kind}peer0" up
	$IP link set "$dev" mtu 1500 up
	$IP addr add "198.18.$n.1/24" dev "$dev"
	$IP -6 addr add "fd00:198:18:$n::1/64" dev "$dev" nodad
	rdma link add "${kind}0" type "$kind" netdev "$dev" ||
		die "rdma link add ${kind}0 failed"
	kind_uc=$(echo "$kind" | tr a-z A-Z)
	export "RCM_ADDR_$kind_uc=198.18.$n.1" "RCM_ADDR6_$kind_uc=fd00:198:18:$n::1"
	export "RCM_NETDEV_$kind_uc=$dev"
done
rxe_gid_net=1
rxe_gid_host=1
fi
# A netdev with an address but no RDMA device.
$IP link add nordma0 type dummy && $IP link set nordma0 up &&
	$IP addr add 198.18.254.1/24 dev nordma0 || die "cannot create nordma0"
export RCM_ADDR_NORDMA=198.18.254.1
if [ -n "$rcm_pair" ]; then
	export RCM_ADDR_SILENT=198.18.20.99
else
	export RCM_ADDR_SILENT=198.18.1.2
fi
$IP link set lo up
export RCM_EXPECT_DEVICES=$n
# The RoCE GID of the rxe address appears shortly after the link is
# added (ib_core fills the GID table from a workqueue): wait for it.
if echo "$rdma_kinds" | grep -q rxe; then
	gid=$(printf 'ffff:c612:%02x%02x' "$rxe_gid_net" "$rxe_gid_host")
	i=0
	until grep -qs "$gid" /sys/class/infiniband/rxe0/ports/1/gids/[0-9]; do
		i=$((i + 1))
		[ $i -le 100 ] || die "no RoCE GID for the rxe address after 10 s"
		sleep 0.1
	done
fi

# --- rcm.ko (and, on the test kernel, its KUnit suites) -------------------
scan_log setup || die "kernel log not clean before rcm loaded"
# kmemleak: what booting left behind is not ours; report only new objects.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
fi
echo "rcm-loading"
insmod /lib/rcm/rcm.ko || die "insmod rcm.ko failed"
if [ "$rcm_kunit" = 1 ]; then
	dmesg >/tmp/kunit.log
	sed -n 's/^\[[^]]*\] //p' /tmp/kunit.log |
		grep -E '^ *(KTAP|TAP|# |ok |not ok |1\.\.)' | sed 's/^/rcm-ktap: /'
fi
scan_log rcm-load || result FAIL kernel-log.rcm-load

# --- tests ----------------------------------------------------------------
# The guest's CPU time so far, all vCPUs, in USER_HZ ticks (user, nice,
# system, irq, softirq): "rcm-time: TEST START END BUSY" then tells a
# test that computes from one that waits.
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}
# /tests is kselftest's installed tree (make -C tools/testing/selftests
# install: run_kselftest.sh, kselftest-list.txt, rcm/): a test in
# kselftest-list.txt, rcm:NAME or rcm:NAME.sh, is run by kselftest's
# runner, run_kselftest.sh -t rcm:NAME, which prints its TAP; what is
# not there, by its "name: command" line in rcm/list, in rcm/. Or /tests
# is a flat directory: NAME by its line in /tests/list, else ./NAME or
# ./NAME.sh, in /tests.
if [ -x /tests/run_kselftest.sh ]; then
	tdir=/tests/rcm
else
	tdir=/tests
fi
for t in $(echo "$rcm_tests" | tr , ' '); do
	cmd=$(sed -n "s/^$t: //p" "$tdir/list" 2>/dev/null)
	runner=
	bound=$timeout_s
	for n in "$t" "$t.sh"; do
		[ -z "$cmd" ] || break
		if [ "$tdir" = /tests/rcm ]; then
			grep -qx "rcm:$n" /tests/kselftest-list.txt || continue
			cmd="../run_kselftest.sh -t rcm:$n"
			runner=1
			bound=$((timeout_s + 60))
		elif [ -x "$tdir/$n" ]; then
			cmd=./$n
		fi
	done
	if [ -z "$cmd" ]; then
		result FAIL "$t" "unknown test"
		continue
	fi
	echo "rcm-begin: $t"
	start=$(cut -d' ' -f1 /proc/uptime)
	busy0=$(busy_ticks)
	# In a session of its own, so that the test's every process goes
	# when it ends or times out (timeout kills only the shell).
	# Its output goes through a FIFO to an awk that keeps it in
	# /tmp/out and notes the uptime at each TAP result of a case (under
	# "# " from the runner), for the "rcm-case:" lines: where a long
	# program spends its time.
	rm -f /tmp/test.pgid /tmp/out.fifo
	mkfifo /tmp/out.fifo
	: >/tmp/out
	: >/tmp/stamps
	awk -v t0="$start" -v runner="$runner" '
		{ print > "/tmp/out" }
		(runner ? /^# (not )?ok [0-9]+ / : /^(not )?ok [0-9]+ /) {
			getline up < "/proc/uptime"
			close("/proc/uptime")
			split(up, u, " ")
			print u[1] - t0 > "/tmp/stamps"
			t0 = u[1]
		}' </tmp/out.fifo &
	stamper=$!
	( cd "$tdir" && timeout -s KILL "$bound" \
		setsid sh -c "echo \$\$ >/tmp/test.pgid; $cmd" ) >/tmp/out.fifo 2>&1
	rc=$?
	[ -s /tmp/test.pgid ] && kill -KILL -- "-$(cat /tmp/test.pgid)" 2>/dev/null
	# The awk ends at the FIFO's end of file, once the test's last
	# process is gone; one that left the session is not waited for.
	i=0
	while kill -0 "$stamper" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "$stamper" 2>/dev/null
	wait "$stamper" 2>/dev/null
	end=$(cut -d' ' -f1 /proc/uptime)
	sed "s/^/rcm-out: $t: /" /tmp/out
	# kselftest TAP: one result per case, then the program's own verdict.
	# A failed case carries the last diagnostic line printed before it
	# (where every TAP emitter here and kselftest_harness.h put why),
	# not the harness's own lines about it. The 6.1 harness names a
	# skipped case only in its "RUN" line, and cases that belong to no
	# fixture "global.NAME": they are NAME here. Under the runner, the
	# program's TAP is the runner's lines that start "# ", and the
	# runner's "ok 1 selftests: rcm: NAME" line (SKIP, TIMEOUT, exit=N)
	# the program's verdict.
	awk -v t="$t" -v runner="$runner" '
		runner && /^(not )?ok [0-9]+ selftests: / {
			v = "0"
			if ($0 ~ /^not ok/) v = "1"
			if ($0 ~ /# SKIP/) v = "4"
			if (match($0, /# exit=[0-9]+/))
				v = substr($0, RSTART + 7, RLENGTH - 7)
			if ($0 ~ /# TIMEOUT/) v = "timeout"
			next
		}
		runner && !sub(/^# /, "") { next }
		/^#  RUN / { run = $3; next }
		/^# +(OK|FAIL|SKIP) / || /: Test failed at step #/ ||
		    /: Test terminated by assertion$/ { next }
		/^# / { why = substr($0, 3) }
		/^(not )?ok [0-9]+ / {
			line = $0; st = "PASS"
			if (line ~ /^not ok/) { st = "FAIL"; nfail++ }
			if (line ~ /# *SKIP/) st = "SKIP"
			sub(/^(not )?ok [0-9]+ (- )?/, "", line)
			sub(/ *#.*$/, "", line)
			if (line == "") line = run
			sub(/^global\./, "", line)
			gsub(/[^A-Za-z0-9_.-]+/, "_", line)
			detail = st == "FAIL" && why != "" ? " " why : ""
			print "rcm-result: " st " " t "." line detail
			if ((getline secs < "/tmp/stamps") > 0)
				printf "rcm-case: %s.%s %.2f\n", t, line, secs
			why = ""
			n++
		}
		END {
			print n + 0, nfail + 0 > "/tmp/ncases"
			if (runner) print v > "/tmp/verdict"
		}' /tmp/out
	read -r ncases nfail </tmp/ncases
	# The runner's verdict stands for the program's exit status (the
	# runner's own is 0); a runner without one did not finish.
	if [ -n "$runner" ] && [ "$rc" != 137 ]; then
		v=$(cat /tmp/verdict)
		case $v in
		"") v="$rc, no verdict from kselftest's runner" ;;
		timeout) v=137
			bound=$(sed -n 's/^timeout=//p' /tests/rcm/settings) ;;
		esac
		rc=$v
	fi
	case $rc in
	0) [ "$ncases" = 0 ] && result PASS "$t" ;;
	4|77) [ "$ncases" = 0 ] && result SKIP "$t" ;;
	137) result FAIL "$t" "timed out after ${bound}s" ;;
	*) [ "$nfail" = 0 ] && result FAIL "$t" "exit $rc" ;;
	esac
	echo "rcm-time: $t $start $end $(( ($(busy_ticks) - busy0) / 100 ))"
	scan_log "$t"
done

# --- pair barrier: neither guest stops while the other may need it --------
if [ -n "$rcm_pair" ]; then
	i=0
	until echo done | nc -w 2 "$RCM_PEER_ADDR" 7000 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 300 ] || { result FAIL pair-barrier "peer never listened"; break; }
		sleep 1
	done
	i=0
	until grep -qs done /tmp/peer-done; do
		i=$((i + 1))
		[ $i -le 300 ] || { result FAIL pair-barrier "peer never finished"; break; }
		sleep 1
	done
fi

# --- unload and leak check ------------------------------------------------
if rmmod rcm; then
	result PASS rcm-unload
else
	result FAIL rcm-unload
fi
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	if [ -s /sys/kernel/debug/kmemleak ]; then
		sed 's/^/rcm-splat: kmemleak /' /sys/kernel/debug/kmemleak | head -60
	fi
fi
scan_log teardown
echo "rcm-done"
sync
reboot -f
