#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel-script-test.sh: kernel-script.sh taking its files from the
# kernel's tarball while other runs do the same, as two checkouts'
# builds or a parallel make do: each of 8 runs at once, on an empty
# cache, must print a directory that holds every file it names, and
# leave no temporary directory behind. A small tarball of the same
# layout stands in for linux-source-6.1's (RCM_KERNEL_TARBALL). One
# result line.
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
bad=0
for round in 1 2 3; do
	rm -rf "$work/cache"
	for i in 1 2 3 4 5 6 7 8; do
		( d=$(RCM_CACHE=$work/cache RCM_KERNEL_TARBALL=$work/linux.tar.xz \
			"$here/kernel-script.sh" kselftest) &&
		  for f in kselftest_harness.h lib.mk kselftest/runner.sh \
			kselftest/module.sh; do
			cmp -s "$d/$f" "$src/$f" || exit 1
		  done ) || echo "round $round run $i: incomplete" >>"$work/bad" &
	done
	wait
	ls -d "$work"/cache/*.tmp.* 2>/dev/null >>"$work/bad"
done
if [ -s "$work/bad" ]; then
	echo "FAIL host.kernel-script-concurrent: $(head -1 "$work/bad")"
	exit 1
fi
echo "PASS host.kernel-script-concurrent"
