#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel-doc.sh ARGS...: run the kernel's scripts/kernel-doc from Debian's
# linux-source-6.1 with ARGS, the way checkpatch.sh runs checkpatch.pl.
# Depends on neither the build machine's running kernel nor on a test
# kernel built earlier: the script is taken from the source tarball once,
# into $RCM_CACHE/kernel-doc-<source version>/. KERNEL_DOC=path
# overrides.
set -euo pipefail

if [ -n "${KERNEL_DOC:-}" ]; then
	exec "$KERNEL_DOC" "$@"
fi
cache=${RCM_CACHE:-/var/cache/rcm}
tarball=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || {
	echo "rcm: linux-source-6.1 is not installed;" \
		"tools/testing/install-deps.sh installs it" >&2
	exit 2
}
dir=$cache/kernel-doc-$srcver
if [ ! -f "$dir/.done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -C "$dir" --strip-components=2 -xf "$tarball" \
		linux-source-6.1/scripts/kernel-doc
	touch "$dir/.done"
fi
exec perl "$dir/kernel-doc" "$@"
