#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build.sh KDIR DIR: build the test-only rcm_ibfab.ko against KDIR in a
# copy of its sources under DIR (DIR/rcm_ibfab.ko), so builds for
# different kernels never share objects. Nothing is installed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kdir=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cp "$here/Kbuild" "$here/rcm_ibfab.c" "$dir/"
# shellcheck source=../ccache.sh
. "$here/../ccache.sh"
make -C "$kdir" M="$dir" "${rcm_ccache[@]}" modules
