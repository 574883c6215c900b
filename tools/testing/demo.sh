#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: the main job. Boot Debian's kernel in a QEMU guest with a
# Soft-RoCE device, load rcm.ko, and:
#  1. connect a client and a server through rcm's librdmacm.so.1 and move
#     data: Debian's unmodified rping (-C 10 -v -V), both ends on rcm via
#     LD_LIBRARY_PATH, with the in-tree rdma_ucm unloaded;
#  2. the same across stacks: an in-tree rping client against an rcm
#     server, and an rcm client against an in-tree server;
#  3. tools/demo/rcm-demo resolves an address and a route through rcm and
#     prints what rcm found.
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
# The rping halves run in the guest by demo-guest.sh, beside the
# selftests' free_port and stacks.sh that it uses.
cp "$top/tools/testing/demo-guest.sh" "$out/selftests/free_port" \
	"$out/selftests/stacks.sh" "$out/tests/"
cat >"$out/tests/list" <<'LIST'
demo-rping: rmmod rdma_ucm && echo "(in-tree rdma_ucm unloaded)" && ./demo-guest.sh rcm rcm 10 server client
demo-interop: modprobe rdma_ucm && ./demo-guest.sh rcm intree 3 "rcm server" "in-tree client" && ./demo-guest.sh intree rcm 3 "in-tree server" "rcm client"
demo-resolve: LD_LIBRARY_PATH=/usr/lib/rcm ./rcm-demo $RCM_ADDR_RXE
LIST
"$vm/mkinitramfs.sh" --out "$out/guest.cpio" --release "$rel" --modroot / \
	--rcm-ko "$out/module/drivers/rcm/rcm.ko" --tests "$out/tests" \
	--lib-dir "$top/userlib/src" --bin /usr/bin/rping

echo "== booting $rel under QEMU (TCG), rxe0 on 198.18.1.1, rcm.ko loaded"
status=0
"$vm/run-guest.py" --label demo --kernel "$vmlinux" --initrd "$out/guest.cpio" \
	--tests demo-rping,demo-interop,demo-resolve --log "$out/guest.log" \
	>"$out/results.txt" || status=1
echo "== 1. rping client and server, both on rcm (librdmacm.so.1 from userlib/):"
sed -n 's/^rcm-out: demo-rping: /    /p' "$out/guest.log"
echo "== 2. rping across stacks (rdma-core's librdmacm on the in-tree rdma_cm):"
sed -n 's/^rcm-out: demo-interop: /    /p' "$out/guest.log"
echo "== 3. rcm-demo resolves 198.18.1.1 through rcm:"
sed -n 's/^rcm-out: demo-resolve: /    /p' "$out/guest.log"
echo "== guest checks:"
sed 's/^/    /' "$out/results.txt"
exit $status
