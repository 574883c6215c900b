#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel-script-test.sh: the cache scripts beside each other, as two
# checkouts' builds or a parallel make run them.
# - kernel-script.sh taking its files from the kernel's tarball: each
#   of 8 runs at once, on an empty cache, must print a directory that
#   holds every file it names, and leave no temporary directory behind.
#   A small tarball of the same layout stands in for linux-source-6.1's
#   (--tarball).
# - build-kernel.sh started while another build holds the cache: it
#   must wait, and touch nothing meanwhile.
# One result line each.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src/linux-source-6.1/tools/testing/selftests
mkdir -p "$src/kselftest"
for f in kselftest_harness.h kselftest.h lib.mk run_kselftest.sh \
	kselftest/runner.sh kselftest/prefix.pl kselftest/module.sh; do
	# Big enough that extracting takes a while.
	head -c 300000 /dev/urandom | base64 >"$src/$f"
done
XZ_OPT=-0 tar -C "$work/src" -cJf "$work/linux.tar.xz" linux-source-6.1
for round in 1 2 3; do
	rm -rf "$work/cache"
	for i in 1 2 3 4 5 6 7 8; do
		( d=$(RCM_CACHE=$work/cache "$here/kernel-script.sh" \
			--tarball "$work/linux.tar.xz" kselftest) &&
		  for f in kselftest_harness.h lib.mk kselftest/runner.sh \
			kselftest/module.sh; do
			cmp -s "$d/$f" "$src/$f" || exit 1
		  done ) || echo "round $round run $i: incomplete" >>"$work/bad" &
	done
	wait
	ls -d "$work"/cache/*.tmp.* 2>/dev/null >>"$work/bad"
done
status=0
if [ -s "$work/bad" ]; then
	echo "FAIL host.kernel-script-concurrent: $(head -1 "$work/bad")"
	status=1
else
	echo "PASS host.kernel-script-concurrent"
fi

# build-kernel.sh beside a running build (whose lock this shell holds):
# within 10 s it must say it waits, and the cache must hold nothing but
# the lock. A build that did not wait would have begun unpacking the
# kernel source, or removing the other build's tree, by then.
cache=$work/kcache
mkdir -p "$cache"
exec 8>"$cache/build-kernel.lock"
flock 8
RCM_CACHE=$cache setsid "$here/vm/build-kernel.sh" >/dev/null \
	2>"$work/build-kernel.err" 8>&- &
pid=$!
for _ in $(seq 50); do
	grep -q waiting "$work/build-kernel.err" && break
	sleep 0.2
done
left=$(ls "$cache")
kill -- -"$pid" 2>/dev/null
wait "$pid" 2>/dev/null
exec 8>&-
if ! grep -q waiting "$work/build-kernel.err" ||
   [ "$left" != build-kernel.lock ]; then
	echo "FAIL host.build-kernel-waits: the cache held: $(echo "$left" | tr '\n' ' ')"
	exit 1
fi
echo "PASS host.build-kernel-waits"
exit $status
