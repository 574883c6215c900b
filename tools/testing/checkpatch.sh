#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# checkpatch.sh ARGS...: run the kernel's checkpatch.pl from Debian's
# linux-source-6.1 with ARGS. Depends on neither the build machine's
# running kernel nor on a test kernel built earlier: the script and the
# data files it reads beside itself (spelling.txt,
# const_structs.checkpatch) are taken from the source tarball once, into
# $RCM_CACHE/checkpatch-<source version>/. CHECKPATCH=path overrides.
set -euo pipefail

if [ -n "${CHECKPATCH:-}" ]; then
	exec "$CHECKPATCH" "$@"
fi
cache=${RCM_CACHE:-/var/cache/rcm}
tarball=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || {
	echo "rcm: linux-source-6.1 is not installed;" \
		"tools/testing/install-deps.sh installs it" >&2
	exit 2
}
dir=$cache/checkpatch-$srcver
if [ ! -f "$dir/.done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -C "$dir" --strip-components=2 -xf "$tarball" \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	touch "$dir/.done"
fi
exec perl "$dir/checkpatch.pl" "$@"
