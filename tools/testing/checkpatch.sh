#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# checkpatch.sh ARGS...: the kernel's checkpatch.pl from Debian's
# linux-source-6.1 (see kernel-script.sh). CHECKPATCH=path overrides.
[ -n "${CHECKPATCH:-}" ] && exec "$CHECKPATCH" "$@"
exec "$(dirname "$0")/kernel-script.sh" checkpatch.pl "$@"
