#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: rcm against the in-tree rdma_cm, side by side, in one boot
# of Debian's kernel under QEMU (TCG) with Soft-RoCE: Debian's cmtime
# alternately on the in-tree stack (rdma-core's librdmacm over rdma_ucm)
# and on rcm (rcm's librdmacm.so.1), RCM_BENCH_ROUNDS rounds (default 10)
# at each of RCM_BENCH_COUNTS connections (default 100,1000); then one
# listener accepting from 8 client processes at once, with the memory per
# established connection (bench_accept, RCM_BENCH_ACCEPT_ROUNDS rounds,
# default 24: a run takes 3 s, and its time varies by half from run to
# run on either stack), system calls per
# connection and kernel memory per idle id; then, in runs of their own
# (guest-attrib.sh, RCM_ATTR_ROUNDS rounds, default 4), where one
# connection's CPU time goes on each stack - its library, its system
# calls, its module(s), against the floor both share (ib_cm, MAD, rxe,
# verbs, the kernel) - from perf samples, and the handshake's gaps from
# ib_cm's tracepoints; and the same split over bench_scale at
# RCM_ATTR_SCALE_COUNTS (the scale counts), RCM_ATTR_SCALE_ROUNDS (2)
# rounds per stack (RCM_ATTR_SCALE_WIRE=1: with traced runs for the
# handshake's gaps); and the slab allocations of the CM module(s) per
# connection, by call site, over a cmtime run of RCM_ATTR_KMEM_COUNT
# (20) connections per stack with the kmem tracepoints on. Prints the
# medians, the rcm/in-tree ratios and
# the A/A spread; the raw lines stay in build/bench/guest.log. Before the
# attribution, the scale runs: bench_scale at RCM_BENCH_SCALE_COUNTS
# (default 100,1000,10000; "none" for none) connections,
# RCM_BENCH_SCALE_ROUNDS rounds (default 2) per stack, at most
# RCM_BENCH_WINDOW (32) connections in set-up at once, for each stack's
# growth in cost per connection from 100; and RCM_BENCH_CMTIME_RUNS
# (default 0) cmtime runs at the largest of those counts.
# Last, the concurrency bench (guest-churn.sh, bench_churn.c):
# RCM_BENCH_CHURN_SHAPES (4x3,8x4: processes x threads) client lives
# against a server process for RCM_BENCH_CHURN_SECONDS (20), in each of
# RCM_BENCH_CHURN_VARIANTS (clean,faults,kill,remove), RCM_BENCH_CHURN_ROUNDS
# (2) rounds alternating the stacks: calls and connections per second
# and each call's p50, p99 and max, rcm over in-tree with the A/A.
# Then, when RCM_BENCH_PARTS names churnattr (not by default), where the
# concurrency bench's time goes (guest-churn-attrib.sh, churn_attrib.py):
# bench_churn RCM_BENCH_CATTR_VARIANT (clean) at RCM_BENCH_CATTR_SHAPES
# (4x3,8x4) for RCM_BENCH_CATTR_SECONDS (12) under perf record of the
# lock contention and scheduler tracepoints, RCM_BENCH_CATTR_ROUNDS (2)
# rounds alternating the stacks: contended kernel locks, the bench
# threads' off-CPU time by where they blocked and per call, and their
# wakers (table in the report, rows in build/bench/churn-attrib.csv).
# Then, when RCM_BENCH_PARTS names rsockets (not by default: make bench
# RCM_BENCH_PARTS=rsockets), stream rsockets on rcm's userlib against
# rdma-core's on the in-tree CM (guest-rsockets.sh, rsockets.py):
# Debian's rstream for each run of RCM_BENCH_RSTREAM_RUNS
# (bw:65536:400,bw:4096:2000,lat:64:2000: bandwidth or latency, size,
# transfers; each with rstream's options RCM_BENCH_RSTREAM_OPTS, -T b:
# blocking calls), and short rsocket connections per second (bench_rchurn,
# RCM_BENCH_RCHURN_PROCS (2) client processes for
# RCM_BENCH_RCHURN_SECONDS (12), against a listener that accepts each
# way of RCM_BENCH_RCHURN_ACCEPTS (block,poll: a thread blocked in
# raccept(), an rpoll() loop)), RCM_BENCH_RSOCKETS_ROUNDS (4) rounds
# alternating the stacks: rcm over in-tree with the A/A (rows in
# rsockets.csv).
# RCM_BENCH_PARTS (bench,attrib,churn) picks the parts to run.
# While it runs, a progress line at least once a minute
# (RCM_BENCH_PROGRESS seconds, 50): the elapsed time, the part and the
# run within it. At the end, the run's data (bench.csv from report.py,
# churn*.csv), its report and SVG plots of the data (plot.py) in
# build/bench/runs/STAMP/; tools/testing/bench/record.sh adds a run to
# the records (Documentation/benchmarks.rst).
# Not a test: it fails only when a run fails. Installs what it needs.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/testing/vm
out=$top/build/bench
rounds=${RCM_BENCH_ROUNDS:-10}
counts=${RCM_BENCH_COUNTS:-100,1000}
accept_rounds=${RCM_BENCH_ACCEPT_ROUNDS:-24}
# The attribution runs (guest-attrib.sh): perf-sampled and traced, so
# fewer rounds than the timed ones; at the timed counts unless
# RCM_ATTR_COUNTS says otherwise (10 000 connections take about ten
# times as long as 1000 there too).
attr_rounds=${RCM_ATTR_ROUNDS:-4}
attr_counts=${RCM_ATTR_COUNTS:-$counts}
scale_counts=${RCM_BENCH_SCALE_COUNTS:-100,1000,10000}
scale_rounds=${RCM_BENCH_SCALE_ROUNDS:-2}
cmtime_runs=${RCM_BENCH_CMTIME_RUNS:-0}
window=${RCM_BENCH_WINDOW:-32}
# The same split over bench_scale, at the scale counts unless
# RCM_ATTR_SCALE_COUNTS says otherwise ("none": no such runs).
attr_scale_counts=${RCM_ATTR_SCALE_COUNTS:-$scale_counts}
attr_scale_rounds=${RCM_ATTR_SCALE_ROUNDS:-2}
# 1: traced bench_scale runs too, for the handshake's gaps at each scale
# count (about 230 s more at the default counts).
attr_scale_wire=${RCM_ATTR_SCALE_WIRE:-0}
attr_kmem_count=${RCM_ATTR_KMEM_COUNT:-20}
churn_rounds=${RCM_BENCH_CHURN_ROUNDS:-2}
churn_seconds=${RCM_BENCH_CHURN_SECONDS:-20}
churn_shapes=${RCM_BENCH_CHURN_SHAPES:-4x3,8x4}
churn_variants=${RCM_BENCH_CHURN_VARIANTS:-clean,faults,kill,remove}
cattr_rounds=${RCM_BENCH_CATTR_ROUNDS:-2}
cattr_seconds=${RCM_BENCH_CATTR_SECONDS:-12}
cattr_shapes=${RCM_BENCH_CATTR_SHAPES:-4x3,8x4}
cattr_variant=${RCM_BENCH_CATTR_VARIANT:-clean}
rs_rounds=${RCM_BENCH_RSOCKETS_ROUNDS:-4}
rs_runs=${RCM_BENCH_RSTREAM_RUNS:-bw:65536:400,bw:4096:2000,lat:64:2000}
rs_churn_secs=${RCM_BENCH_RCHURN_SECONDS:-12}
rs_churn_procs=${RCM_BENCH_RCHURN_PROCS:-2}
rs_churn_accepts=${RCM_BENCH_RCHURN_ACCEPTS:-block,poll}
rs_opts=${RCM_BENCH_RSTREAM_OPTS--T b}
parts=${RCM_BENCH_PARTS:-bench,attrib,churn}
progress_every=${RCM_BENCH_PROGRESS:-50}
mkdir -p "$out"
rm -f "$out/guest.log"
t0=$(date +%s)
echo building >"$out/stage"
# Every progress_every seconds: what runs. In the guest, the part is the
# test the guest began last ("rcm-begin:") and the run within it the
# last "bench-progress" line the guest scripts wrote to the console
# (order.sh's progress()): both reach the log at once.
progress_lines() {
	local what part last
	while sleep "$progress_every"; do
		what=$(cat "$out/stage" 2>/dev/null) || :
		if [ "$what" = guest ] && ! [ -f "$out/guest.log" ]; then
			what="guest: waiting for a slot (RCM_GUEST_SLOTS)"
		elif [ "$what" = guest ]; then
			part=$(sed -n 's/^rcm-begin: //p' "$out/guest.log" |
				tr -d '\r' | tail -n 1) || :
			last=$(sed -n 's/.*bench-progress //p' "$out/guest.log" |
				tr -d '\r' | tail -n 1) || :
			what="guest, part ${part:-(booting)}${last:+: $last}"
		fi
		echo "== bench +$(($(date +%s) - t0))s: $what"
	done
}
progress_lines &
progress_pid=$!
trap 'kill $progress_pid 2>/dev/null' EXIT

"$top/tools/testing/install-deps.sh"
read -r rel vmlinux < <("$vm/distro-kernel.sh")
echo "== building rcm.ko ($rel), the userlib and the bench programs"
"$vm/build-module.sh" "/lib/modules/$rel/build" "$out/module" >"$out/build.log" 2>&1
make -C "$top/userlib" >>"$out/build.log" 2>&1
rm -rf "$out/tests"
mkdir -p "$out/tests"
for b in bench_ids bench_accept bench_scale bench_churn bench_rchurn; do
	gcc -O2 -Wall -Wextra -o "$out/tests/$b" \
		"$top/tools/testing/bench/$b.c" -lrdmacm -libverbs -lm -lpthread
done
install -m 755 "$top/tools/testing/bench/guest-bench.sh" "$out/tests/"
install -m 755 "$top/tools/testing/bench/guest-churn.sh" "$out/tests/"
install -m 755 "$top/tools/testing/bench/guest-attrib.sh" "$out/tests/"
install -m 755 "$top/tools/testing/bench/guest-churn-attrib.sh" "$out/tests/"
install -m 755 "$top/tools/testing/bench/guest-rsockets.sh" "$out/tests/"
install -m 644 "$top/tools/testing/selftests/rcm/stacks.sh" "$out/tests/"
install -m 644 "$top/tools/testing/bench/order.sh" "$out/tests/"
{
	echo "bench: RCM_BENCH_WINDOW=$window RCM_BENCH_ACCEPT_ROUNDS=$accept_rounds ./guest-bench.sh $rounds $counts $scale_counts $scale_rounds $cmtime_runs"
	echo "attrib: RCM_BENCH_WINDOW=$window RCM_ATTR_KMEM_COUNT=$attr_kmem_count ./guest-attrib.sh $attr_rounds $attr_counts $attr_scale_counts $attr_scale_rounds $attr_scale_wire"
	echo "churn: ./guest-churn.sh $churn_rounds $churn_seconds $churn_shapes $churn_variants"
	echo "churnattr: ./guest-churn-attrib.sh $cattr_rounds $cattr_seconds $cattr_shapes $cattr_variant"
	echo "rsockets: RCM_BENCH_RSTREAM_OPTS='$rs_opts' ./guest-rsockets.sh $rs_rounds $rs_runs $rs_churn_secs $rs_churn_procs $rs_churn_accepts"
} >"$out/tests/list"
echo initramfs >"$out/stage"
"$vm/mkinitramfs.sh" --out "$out/guest.cpio" --release "$rel" --modroot / \
	--rcm-ko "$out/module/drivers/rcm/rcm.ko" --tests "$out/tests" \
	--lib-dir "$top/userlib/src" \
	--bin /usr/bin/cmtime --bin /usr/bin/strace --bin /usr/bin/perf \
	--bin /usr/bin/rstream --bin /usr/bin/taskset

# The host's load: other work on it slows the guest's CPUs, and the
# figures of a run are only comparable among themselves.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== booting $rel under QEMU (TCG), 2 vCPUs, rxe0; parts $parts; bench: $rounds rounds at $counts connections; scale: $scale_rounds rounds at $scale_counts"
status=0
echo guest >"$out/stage"
"$vm/run-guest.py" --label bench --kernel "$vmlinux" --initrd "$out/guest.cpio" \
	--tests "$parts" --test-timeout 5400 --guest-timeout 6000 \
	--log "$out/guest.log" >"$out/results.txt" || status=1
# "PART..." SCRIPT CSV: when the guest ran any of the parts, SCRIPT
# (bench/) reads their lines of its log into the run's CSV and reports;
# its failure is the bench's.
part_report() {
	local part
	for part in $1; do
		case ,$parts, in
		*,"$part",*)
			"$top/tools/testing/bench/$2" "$out/guest.log" \
				"$run/$3" || status=1
			return ;;
		esac
	done
}
echo "report and plots" >"$out/stage"
stamp=$(date -u +%Y-%m-%dT%H%MZ)
run=$out/runs/$stamp
mkdir -p "$run"
{
	echo "rcm bench, $(date -u +%Y-%m-%dT%H:%MZ), guest kernel $rel, rxe, QEMU TCG, host $(nproc) CPUs, load average (1/5/15 min) $load0 at the boot, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	part_report "bench attrib" report.py bench.csv
	part_report churn churn.py churn.csv
	part_report rsockets rsockets.py rsockets.csv
	part_report churnattr churn_attrib.py churn-attrib.csv
} >"$run/report.txt"
# Not through a pipe: a report step that fails must reach $status.
cat "$run/report.txt"
# Not the bench's failure: the figures are in the report either way.
"$top/tools/testing/bench/plot.py" "$run" || echo "== plot.py drew no plots"
# The latest run's files where they always were, too.
cp "$run"/*.csv "$run/report.txt" "$out/" 2>/dev/null || :
echo "== this run's data, report and plots: $run (record.sh $run adds it to the records)"
grep -v '^PASS' "$out/results.txt" || true
exit $status
