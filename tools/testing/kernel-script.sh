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
# $RCM_CACHE/NAME-<source version>/. checkpatch.sh and kernel-doc.sh
# are this with the name filled in (and CHECKPATCH=path or
# KERNEL_DOC=path to use another copy).
set -euo pipefail

name=$1
shift
cache=${RCM_CACHE:-/var/cache/rcm}
tarball=/usr/src/linux-source-6.1.tar.xz
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
dir=$cache/${name%.pl}-$srcver
# .done names the files taken: a list that grew takes them again.
if [ "$(cat "$dir/.done" 2>/dev/null)" != "$(echo $files)" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -C "$dir" --strip-components=$(($(echo "$from" | tr -cd / | wc -c) + 2)) \
		-xf "$tarball" \
		$(for f in $files; do echo "linux-source-6.1/$from/$f"; done)
	echo $files >"$dir/.done"
fi
# The selftest headers and the Sphinx extensions are not run: their
# directory is what is asked for.
case $name in kselftest | sphinx) echo "$dir"; exit 0 ;; esac
exec perl "$dir/$name" "$@"
