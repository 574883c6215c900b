#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# checkpatch.sh ARGS...: the kernel's checkpatch.pl from Debian's
# linux-source-6.1 (see kernel-script.sh).
exec "$(dirname "$0")/kernel-script.sh" checkpatch.pl "$@"
