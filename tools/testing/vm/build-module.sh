#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-module.sh KDIR DIR: build rcm.ko against KDIR in its own copy of
# the module sources under DIR (DIR/drivers/rcm/rcm.ko), so builds for
# different kernels never share objects.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
kdir=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cp -a "$top/Kbuild" "$top/dkms.conf" "$top/drivers" "$top/include" "$dir/"
find "$dir" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
# shellcheck source=../ccache.sh
. "$top/tools/testing/ccache.sh"
make -C "$kdir" M="$dir" "${rcm_ccache[@]}" modules
