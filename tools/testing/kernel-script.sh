#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel-script.sh NAME ARGS...: run the kernel's scripts/NAME (perl:
# checkpatch.pl, kernel-doc) from Debian's linux-source-6.1 with ARGS.
# kernel-script.sh kselftest: print the directory that holds kselftest's
# files of the same source, laid out as in its tools/testing/selftests/:
# the harness headers (kselftest_harness.h, kselftest.h) for the
# selftests' -I, lib.mk that their Makefile includes, and the runner
# (run_kselftest.sh, kselftest/runner.sh, prefix.pl, module.sh) that
# run_tests and an installed tree use. kernel-script.sh sphinx: print
# the directory of the kernel's Sphinx extensions (kerneldoc.py and
# kernellog.py), for Documentation/conf.py.
# Depends on neither the build machine's running kernel nor on a test
# kernel built earlier: the script, and for checkpatch.pl the data files
# it reads beside itself (spelling.txt, const_structs.checkpatch), are
# taken from the source tarball once, into
# $RCM_CACHE/NAME-<source version>-<hash of the file list>/, which is
# never changed once there: a checkout whose list differs takes its own,
# and builds running at once (two checkouts, make -j) each take the
# files into a directory of their own and rename it into place, the
# first to finish winning, so none sees another's half-written or
# removed files. --tarball FILE, first, names another tarball (for
# kernel-script-test.sh). checkpatch.sh and kernel-doc.sh
# are this with the name filled in.
set -euo pipefail

tarball=/usr/src/linux-source-6.1.tar.xz
if [ "$1" = --tarball ]; then
	tarball=$2
	shift 2
fi
name=$1
shift
cache=${RCM_CACHE:-/var/cache/rcm}
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || {
	echo "rcm: linux-source-6.1 is not installed;" \
		"tools/testing/install-deps.sh installs it" >&2
	exit 2
}
from=scripts
case $name in
checkpatch.pl) files="checkpatch.pl spelling.txt const_structs.checkpatch" ;;
kernel-doc) files="kernel-doc" ;;
kselftest) from=tools/testing/selftests
	files="kselftest_harness.h kselftest.h lib.mk run_kselftest.sh
		kselftest/runner.sh kselftest/prefix.pl kselftest/module.sh" ;;
sphinx) from=Documentation/sphinx
	files="kerneldoc.py kernellog.py" ;;
*) echo "rcm: kernel-script.sh: unknown script $name" >&2; exit 2 ;;
esac
list=$(echo $files)
dir=$cache/${name%.pl}-$srcver-$(echo "$list" | md5sum | cut -c1-8)
if [ ! -d "$dir" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$dir.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT	# a failed tar's
	tar -C "$tmp" --strip-components=$(($(echo "$from" | tr -cd / | wc -c) + 2)) \
		-xf "$tarball" \
		$(for f in $files; do echo "linux-source-6.1/$from/$f"; done)
	echo "$list" >"$tmp/.files"
	# Another run's rename may have come first: then this copy goes.
	mv -T "$tmp" "$dir" 2>/dev/null || [ -d "$dir" ]
	rm -rf "$tmp"
	trap - EXIT
fi
# The selftest headers and the Sphinx extensions are not run: their
# directory is what is asked for.
case $name in kselftest | sphinx) echo "$dir"; exit 0 ;; esac
exec perl "$dir/$name" "$@"
