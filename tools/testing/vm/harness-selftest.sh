#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prove that the guest harness fails a run when it should: boot a guest
# with a passing test, a failing test, a test that hangs past its bound
# (leaving a process of its own behind), and a module that WARNs, and
# check what run-guest.py makes of them; and ask run-guest.py whether a
# guest clock running ahead of the host's is taken for a bad boot.
# The deliberate failures stay inside this run; what is reported is
# whether each was detected.
#
# harness-selftest.sh RELEASE VMLINUX RCM_KO WORKDIR
set -uo pipefail

vm=$(cd "$(dirname "$0")" && pwd)
release=$1 vmlinux=$2 rcm_ko=$3 work=$4
kdir=/lib/modules/$release/build

rm -rf "$work"
mkdir -p "$work/mod" "$work/tests"
cp "$vm/harness-selftest/rcm_harness_warn.c" "$vm/harness-selftest/Kbuild" \
	"$work/mod/"
if ! make -C "$kdir" M="$work/mod" modules >"$work/build.log" 2>&1; then
	echo "FAIL harness.build-warn-module: see $work/build.log"
	exit 1
fi
cp "$work/mod/rcm_harness_warn.ko" "$work/tests/"
cat >"$work/tests/list" <<'LIST'
pass: true
fail: false
tap: printf 'TAP version 13\n1..2\nok 1 fine\n# tap.c:7: want 1, got 2\nnot ok 2 broken\n'; exit 1
hang: sleep 601 & sleep 600
reaped: ! ps | grep -q '[s]leep 601'
warn: insmod ./rcm_harness_warn.ko
LIST

if ! "$vm/mkinitramfs.sh" --out "$work/guest.cpio" --release "$release" \
	--modroot / --rcm-ko "$rcm_ko" --tests "$work/tests"; then
	echo "FAIL harness.initramfs: mkinitramfs.sh failed"
	exit 1
fi
# A guest whose QEMU process hardly runs while it boots: stopped for
# 200 ms, let run for 10 ms, until its /init starts. The TSC runs on
# while the process is stopped and the timer's ticks do not come, so
# the IO-APIC set-up's timer test fails ("8254 timer not connected to
# IO-APIC", and on a host loaded enough, "IO-APIC + timer doesn't work!",
# a panic) unless run-guest.py's kernel command line skips it. Two such
# boots at once, beside the guest below; they cost little CPU, being
# stopped.
# They take no guest slot: a stopped guest would hold it idle.
starved() {	# N
	RCM_GUEST_SLOTS= "$vm/run-guest.py" --label "hs-starved$1" \
		--kernel "$vmlinux" --initrd "$work/guest.cpio" --tests pass \
		--test-timeout 10 --guest-timeout 300 \
		--log "$work/starved$1.log" >"$work/starved$1.txt" &
	local rg=$! q= i
	until q=$(pgrep -P "$rg" qemu-system); do
		kill -0 "$rg" 2>/dev/null || break
		sleep 0.01
	done
	[ -n "$q" ] && echo "$q" >"$work/starved$1.qemu"
	for i in $(seq 400); do
		[ -n "$q" ] || break
		grep -qs '^rcm-boot: ' "$work/starved$1.log" && break
		kill -STOP "$q" 2>/dev/null || break
		sleep 0.2
		kill -CONT "$q" 2>/dev/null
		sleep 0.01
	done
	[ -n "$q" ] && kill -CONT "$q" 2>/dev/null
	wait "$rg"
}
(starved 1 & starved 2 & wait) &
starved_pid=$!
"$vm/run-guest.py" --label hs --kernel "$vmlinux" --initrd "$work/guest.cpio" \
	--tests pass,fail,tap,hang,reaped,warn --test-timeout 10 --guest-timeout 300 \
	--log "$work/guest.log" >"$work/results.txt"
rc=$?
wait "$starved_pid"

expect() {	# NAME GREP-PATTERN DESCRIPTION
	if grep -Eq "$2" "$work/results.txt"; then
		echo "PASS harness.$1"
	else
		echo "FAIL harness.$1: $3 (see $work/results.txt)"
	fi
}
expect passing-test-passes '^PASS hs\.pass$' "a passing test was not reported PASS"
expect detects-failing-test '^FAIL hs\.fail: exit 1' "a failing test was not reported FAIL"
expect failing-case-says-why '^FAIL hs\.tap\.broken: tap\.c:7: want 1, got 2$' \
	"a failed TAP case did not carry its diagnostic line"
expect detects-hang '^FAIL hs\.hang: timed out' "a hanging test was not bounded"
expect kills-what-a-test-left '^PASS hs\.reaped$' \
	"a timed-out test's background process outlived it"
expect detects-kernel-warning '^FAIL hs\.kernel-log: .*warn .*WARNING' \
	"a kernel WARNING did not fail the run"
if [ -s "$work/starved1.qemu" ] && [ -s "$work/starved2.qemu" ] &&
   ! grep -qs 'timer not connected to IO-APIC\|IO-APIC + timer' \
	"$work"/starved[12].log* &&
   grep -qx 'PASS hs-starved1.pass' "$work/starved1.txt" &&
   grep -qx 'PASS hs-starved2.pass' "$work/starved2.txt"; then
	echo "PASS harness.starved-boot-skips-the-timer-test"
else
	echo "FAIL harness.starved-boot-skips-the-timer-test: a guest starved at boot failed the IO-APIC timer test (see $work/starved[12].log)"
fi
if [ $rc -ne 0 ]; then
	echo "PASS harness.run-exit-status"
else
	echo "FAIL harness.run-exit-status: run-guest.py exited 0 on failures"
fi

# A guest whose clock runs ahead of the host's (seen once under TCG on an
# overloaded host: 1660 s of uptime in 410 s) is a bad boot, retried: its
# timeouts would all fire early. run-guest.py's own judgement of it.
if PYTHONDONTWRITEBYTECODE=1 python3 - "$vm/run-guest.py" <<'PY'
import importlib.util
import sys

spec = importlib.util.spec_from_file_location('run_guest', sys.argv[1])
rg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rg)
ok = (rg.clock_ahead(494.0, 100.0) and rg.clock_ahead(60.0, 10.0) and
      not rg.clock_ahead(61.6, 70.0) and not rg.clock_ahead(40.0, 30.0))
sys.exit(0 if ok else 1)
PY
then
	echo "PASS harness.guest-clock-ahead-is-a-bad-boot"
else
	echo "FAIL harness.guest-clock-ahead-is-a-bad-boot: run-guest.py's clock_ahead() misjudged"
fi
