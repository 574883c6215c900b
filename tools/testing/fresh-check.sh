#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-fresh: run CI's own entry point, .ci/run, the way a fresh
# machine runs it: from a clean clone of HEAD (nothing uncommitted, no
# build products) and with an empty cache, so the test kernel, the
# unpacked distro kernel and checkpatch all come from scratch. Only the
# Debian packages already installed are kept (install-deps.sh is what
# installs them on a new machine; it runs here too and finds them).
#
# Run it whenever the build, install or harness scripts change. It takes
# as long as a cold CI run (the test-kernel build alone is 5-15 min).
#
# Env: RCM_FRESH_DIR  where the clone and the cache go (default: a new
#                     directory under /var/tmp, removed on success)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${RCM_FRESH_DIR:-$(mktemp -d /var/tmp/rcm-fresh.XXXXXX)}
mkdir -p "$dir"
rm -rf "$dir/clone" "$dir/cache"
git clone -q "$top" "$dir/clone"
echo "rcm: fresh check of $(git -C "$dir/clone" rev-parse --short HEAD)" \
	"in $dir/clone, cache $dir/cache (empty)"
start=$(date +%s)
rc=0
(cd "$dir/clone" && RCM_CACHE=$dir/cache CI=true bash .ci/run </dev/null) || rc=$?
echo "rcm: fresh check took $(( $(date +%s) - start ))s, exit $rc"
if [ "$rc" = 0 ] && [ -z "${RCM_FRESH_DIR:-}" ]; then
	rm -rf "$dir"
fi
exit "$rc"
