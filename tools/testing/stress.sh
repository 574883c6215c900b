#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make stress: the churn of selftests/rcm/stress.c and the librdmacm
# chaos run of selftests/rcm/chaos.c at length, in the test kernel
# (KASAN, lockdep, kmemleak): RCM_STRESS_CYCLES connect/disconnect
# cycles (default 10000) and RCM_STRESS_KILLS rounds of kill -9 at random
# points of connect and accept (default 500; RCM_STRESS_SEED replays a
# run), then RCM_CHAOS_SECONDS of chaos (default 1200; 0: none) with
# RCM_CHAOS_REMOVALS rxe0 deletions (default 10) and RCM_CHAOS_SEED
# (default random). Prints the cycles, the seeds, the chaos figures
# (calls, events checked, kills, removals, violations), the kernel-log
# verdict (splats, kmemleak) and whether rcm's slab objects came back to
# their baseline. Not part of make check, which runs bounded slices of
# the same programs.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/testing/vm
out=$top/build/stress
cycles=${RCM_STRESS_CYCLES:-10000}
kills=${RCM_STRESS_KILLS:-500}
seed=${RCM_STRESS_SEED:-$(date +%s)}
chaos_s=${RCM_CHAOS_SECONDS:-1200}
chaos_removals=${RCM_CHAOS_REMOVALS:-10}
chaos_seed=${RCM_CHAOS_SEED:-$(printf '%#x' "$(od -An -N6 -tu8 /dev/urandom)")}

"$top/tools/testing/install-deps.sh"
mkdir -p "$out"
kernel=$("$vm/build-kernel.sh")
rel=$(cat "$kernel/release")
"$vm/build-module.sh" "$kernel/build" "$out/mod" >"$out/build.log" 2>&1
make -s -C "$top/tools/testing/selftests/rcm" OUTPUT="$out/st" >>"$out/build.log"
echo "stress_long: RCM_TEST_TIMEOUT=36000 RCM_STRESS_CYCLES=$cycles RCM_STRESS_KILLS=$kills RCM_STRESS_SEED=$seed ./stress" \
	>>"$out/st/list"
tests=stress_long
if [ "$chaos_s" != 0 ]; then
	echo "chaos_long: RCM_TEST_TIMEOUT=36000 RCM_CHAOS_SECONDS=$chaos_s RCM_CHAOS_REMOVALS=$chaos_removals RCM_CHAOS_SEED=$chaos_seed LD_LIBRARY_PATH=/usr/lib/rcm ./chaos" \
		>>"$out/st/list"
	tests=$tests,chaos_long
fi
"$vm/mkinitramfs.sh" --out "$out/stress.cpio" --release "$rel" \
	--modroot "$kernel/mods" --rcm-ko "$out/mod/drivers/rcm/rcm.ko" \
	--tests "$out/st" --lib-dir "$top/userlib/src" >>"$out/build.log" 2>&1
echo "rcm: stress: $cycles cycles, $kills kills, seed $seed; chaos: ${chaos_s}s, $chaos_removals removals, seed $chaos_seed (test kernel $rel)"
rc=0
"$vm/run-guest.py" --label stress --kernel "$kernel/bzImage" \
	--initrd "$out/stress.cpio" --rdma rxe --memory 1G \
	--test-timeout 36000 --guest-timeout 39600 --tests "$tests" \
	--log "$out/guest.log" || rc=$?
grep -E '^rcm-out: (stress|chaos)_long: #' "$out/guest.log" |
	sed -E 's/^rcm-out: ((stress|chaos)_long): /  \1: /'
grep '^rcm-time: ' "$out/guest.log" |
	awk '{ printf "  %s: %.0f s\n", $2, $4 - $3 }'
exit $rc
