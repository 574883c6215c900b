#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make stress: the churn of selftests/rcm/stress.c at length, in the test
# kernel (KASAN, lockdep, kmemleak): RCM_STRESS_CYCLES connect/disconnect
# cycles (default 10000) and RCM_STRESS_KILLS rounds of kill -9 at random
# points of connect and accept (default 500; RCM_STRESS_SEED replays a
# run). Prints the cycles, the seed, the kernel-log verdict (splats,
# kmemleak) and whether rcm's slab objects came back to their baseline.
# Not part of make check, which runs a bounded slice of the same program.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/testing/vm
out=$top/build/stress
cycles=${RCM_STRESS_CYCLES:-10000}
kills=${RCM_STRESS_KILLS:-500}
seed=${RCM_STRESS_SEED:-$(date +%s)}

"$top/tools/testing/install-deps.sh"
mkdir -p "$out"
kernel=$("$vm/build-kernel.sh")
rel=$(cat "$kernel/release")
"$vm/build-module.sh" "$kernel/build" "$out/mod" >"$out/build.log" 2>&1
make -s -C "$top/tools/testing/selftests/rcm" OUTPUT="$out/st" >>"$out/build.log"
echo "stress_long: RCM_STRESS_CYCLES=$cycles RCM_STRESS_KILLS=$kills RCM_STRESS_SEED=$seed ./stress" \
	>>"$out/st/list"
"$vm/mkinitramfs.sh" --out "$out/stress.cpio" --release "$rel" \
	--modroot "$kernel/mods" --rcm-ko "$out/mod/drivers/rcm/rcm.ko" \
	--tests "$out/st" --lib-dir "$top/userlib/src" >>"$out/build.log" 2>&1
echo "rcm: stress: $cycles cycles, $kills kills, seed $seed (test kernel $rel)"
rc=0
"$vm/run-guest.py" --label stress --kernel "$kernel/bzImage" \
	--initrd "$out/stress.cpio" --rdma rxe --memory 1G \
	--test-timeout 36000 --guest-timeout 39600 --tests stress_long \
	--log "$out/guest.log" || rc=$?
grep '^rcm-out: stress_long: #' "$out/guest.log" | sed 's/^rcm-out: stress_long: /  /'
exit $rc
