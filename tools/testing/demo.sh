#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: boot Debian's kernel in a QEMU guest with a Soft-RoCE device,
# load rcm.ko, and run tools/demo/rcm-demo on rcm's librdmacm.so.1:
#  1. it resolves an address and a route the way every librdmacm client
#     starts, and prints what rcm found;
#  2. it listens, and an unmodified client on the in-tree stack
#     (rdma-core's librdmacm over rdma_cm.ko) connects to it; rcm prints
#     the request and rejects it with private data the client prints.
# Installs what it needs, like make check.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$top/tools/testing/vm
out=$top/build/demo
mkdir -p "$out"

"$top/tools/testing/install-deps.sh"
read -r rel vmlinux < <("$vm/distro-kernel.sh")
echo "== building rcm.ko ($rel), the userlib and rcm-demo"
"$vm/build-module.sh" "/lib/modules/$rel/build" "$out/module" >"$out/build.log" 2>&1
make -C "$top/userlib" >>"$out/build.log" 2>&1
rm -rf "$out/tests"
make -C "$top/tools/demo" OUTPUT="$out/tests" >>"$out/build.log" 2>&1
make -C "$top/tools/testing/selftests/rcm" OUTPUT="$out/selftests" \
	>>"$out/build.log" 2>&1
cp "$out/selftests/intree_client" "$out/tests/"
cat >"$out/tests/list" <<'LIST'
demo-resolve: LD_LIBRARY_PATH=/usr/lib/rcm ./rcm-demo $RCM_ADDR_RXE
demo-listen: (LD_LIBRARY_PATH=/usr/lib/rcm ./rcm-demo --listen $RCM_ADDR_RXE 7471 & sleep 2; echo "in-tree client (rdma-core librdmacm) connects:"; ./intree_client $RCM_ADDR_RXE 7471 hello-from-in-tree reject:28:rcm; c=$?; wait $!; s=$?; [ $c = 0 ] && [ $s = 0 ])
LIST
"$vm/mkinitramfs.sh" --out "$out/guest.cpio" --release "$rel" --modroot / \
	--rcm-ko "$out/module/drivers/rcm/rcm.ko" --tests "$out/tests" \
	--lib-dir "$top/userlib/src"

echo "== booting $rel under QEMU (TCG), rxe0 on 198.18.1.1, rcm.ko loaded"
status=0
"$vm/run-guest.py" --label demo --kernel "$vmlinux" --initrd "$out/guest.cpio" \
	--tests demo-resolve,demo-listen --log "$out/guest.log" \
	>"$out/results.txt" || status=1
echo "== 1. rcm-demo resolves 198.18.1.1 through rcm:"
sed -n 's/^rcm-out: demo-resolve: /    /p' "$out/guest.log"
echo "== 2. rcm-demo listens; an in-tree librdmacm client knocks:"
sed -n 's/^rcm-out: demo-listen: /    /p' "$out/guest.log"
echo "== guest checks:"
sed 's/^/    /' "$out/results.txt"
exit $status
