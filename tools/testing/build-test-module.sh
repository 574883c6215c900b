#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-test-module.sh SRCDIR KDIR DIR: build a test-only module (its
# Kbuild and .c files in SRCDIR: hostile/, ibfabric/, with the headers
# they share in tools/testing/include/) against KDIR in a copy of its
# sources under DIR, so builds for different kernels never share
# objects. Nothing is installed.
set -euo pipefail

src=$(cd "$1" && pwd) kdir=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir"
cp "$src/Kbuild" "$src"/*.c "$(dirname "$0")"/include/*.h "$dir/"
# shellcheck source=ccache.sh
. "$(dirname "$0")/ccache.sh"
make -C "$kdir" M="$dir" "${rcm_ccache[@]}" modules
