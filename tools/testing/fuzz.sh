#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make fuzz: a long run of the uapi fuzzer (tools/testing/selftests/rcm/
# fuzz.c) in one guest, then the fault injection walk (faults.c), on the
# test kernel (KASAN, lockdep, kmemleak, fault injection) by default.
# Prints the operations run, the seeds, the faults injected, the kernel
# reports (splats) and the kmemleak reports, and exits 1 on any failure.
#
# Env:
#   RCM_FUZZ_OPS       operations of the whole run (default 1000000)
#   RCM_FUZZ_SECONDS   wall-clock cap of the fuzzer in the guest
#                      (default 14400; the KASAN guest runs about 50-100
#                      operations a second, the distro guest thousands)
#   RCM_FUZZ_SEED      base seed (default: random, printed)
#   RCM_FUZZ_WORKERS, RCM_FUZZ_THREADS, RCM_FUZZ_FAULT_PCT, RCM_FUZZ_LINK
#                      passed to the fuzzer (see fuzz.c)
#   RCM_FUZZ_KERNEL    test (default) or distro (no KASAN and no fault
#                      injection, but about 30 times faster)
#   RCM_CACHE          as for make check
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/testing/vm
out=$top/build/fuzz
ops=${RCM_FUZZ_OPS:-1000000}
secs=${RCM_FUZZ_SECONDS:-14400}
seed=${RCM_FUZZ_SEED:-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')}
seed=0x${seed#0x}
kind=${RCM_FUZZ_KERNEL:-test}
mkdir -p "$out"

say() { echo "== fuzz: $*"; }

case $kind in
test)
	kernel=$("$vm/build-kernel.sh") || { say "test kernel build failed"; exit 1; }
	rel=$(cat "$kernel/release")
	kdir=$kernel/build
	modroot=$kernel/mods
	image=$kernel/bzImage
	rdma=rxe,siw
	;;
distro)
	read -r rel image < <("$vm/distro-kernel.sh") || exit 1
	kdir=/lib/modules/$rel/build
	modroot=/
	rdma=rxe
	;;
*)
	say "RCM_FUZZ_KERNEL must be test or distro"
	exit 1
	;;
esac

say "building rcm.ko for $rel and the guest programs"
"$vm/build-module.sh" "$kdir" "$out/mod" >"$out/build-module.log" 2>&1 ||
	{ say "module build failed, see $out/build-module.log"; exit 1; }
rm -rf "$out/selftests"
make -C "$top/tools/testing/selftests/rcm" OUTPUT="$out/selftests" \
	>"$out/build-selftests.log" 2>&1 ||
	{ say "selftest build failed, see $out/build-selftests.log"; exit 1; }

env="RCM_FUZZ_SEED=$seed RCM_FUZZ_OPS=$ops RCM_FUZZ_SECONDS=$secs"
for v in RCM_FUZZ_WORKERS RCM_FUZZ_THREADS RCM_FUZZ_FAULT_PCT RCM_FUZZ_LINK; do
	[ -n "${!v:-}" ] && env="$env $v=${!v}"
done
echo "fuzz_long: $env ./fuzz" >>"$out/selftests/list"
"$vm/mkinitramfs.sh" --out "$out/fuzz.cpio" --release "$rel" \
	--modroot "$modroot" --rcm-ko "$out/mod/drivers/rcm/rcm.ko" \
	--tests "$out/selftests" --lib-dir "$top/userlib/src" \
	>"$out/initramfs.log" 2>&1 ||
	{ say "initramfs failed, see $out/initramfs.log"; exit 1; }

say "$kind kernel $rel: $env ./fuzz, then faults"
log=$out/guest.log
start=$(date +%s)
"$vm/run-guest.py" --label fuzz --kernel "$image" --initrd "$out/fuzz.cpio" \
	--rdma "$rdma" --memory 1G --test-timeout $((secs + 600)) \
	--guest-timeout $((secs + 1800)) --tests fuzz_long,faults \
	--log "$log" | tee "$out/results.txt"
rc=${PIPESTATUS[0]}

say "summary ($(( $(date +%s) - start )) s; console log $log)"
grep -E 'rcm-out: fuzz_long: # (seed|replay|worker|[0-9]+ ops|calls|events|VIOLATION)' "$log" |
	sed 's/^.*rcm-out: fuzz_long: # /   /'
grep -E 'rcm-out: faults: # .*fault points' "$log" |
	sed 's/^.*rcm-out: faults: # /   faults: /'
splats=$(grep -c 'rcm-splat: ' "$log")
leaks=$(grep -c 'rcm-splat: kmemleak unreferenced object' "$log")
echo "   kernel reports (splat lines): $splats, of which kmemleak objects: $leaks"
grep 'rcm-splat: ' "$log" | head -20 | sed 's/^/   /'
echo "   results: $(grep -c '^PASS' "$out/results.txt") passed," \
	"$(grep -c '^FAIL' "$out/results.txt") failed," \
	"$(grep -c '^SKIP' "$out/results.txt") skipped"
exit "$rc"
