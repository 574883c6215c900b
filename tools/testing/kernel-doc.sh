#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel-doc.sh ARGS...: the kernel's scripts/kernel-doc from Debian's
# linux-source-6.1 (see kernel-script.sh).
exec "$(dirname "$0")/kernel-script.sh" kernel-doc "$@"
