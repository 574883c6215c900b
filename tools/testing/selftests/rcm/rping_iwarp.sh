#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# rping_iwarp: Debian's unmodified rping (rdma-core 44) over soft-iWARP
# (siw, on the test kernel only) through rcm's userlib
# (LD_LIBRARY_PATH=/usr/lib/rcm):
#   rcm <-> rcm with the in-tree rdma_ucm unloaded, so nothing can reach
#   the in-tree CM; then, with rdma_ucm back, an rcm server against an
#   in-tree client and an in-tree server against an rcm client.
# Each moves and verifies RCM_RPING_COUNT messages (default 5; -v -V):
# the server RDMA-reads the client's buffer and RDMA-writes it back, so
# the iWARP QPs rcm's userlib readied carry both directions. On a kernel
# without siw ($RCM_ADDR_SIW unset) every case is skipped. TAP output;
# exit 0 when all pass.

ip=${RCM_ADDR_SIW:-}
pings=${RCM_RPING_COUNT:-5}
# shellcheck source=stacks.sh
. "$(dirname "$0")/stacks.sh"
begin rping-iw 5

# NAME SERVER-LIB CLIENT-LIB PORT
rping_case() {
	name=$1 slib=$2 clib=$3 port=$4
	(serve "$slib" timeout 120 rping -s -a "$ip" -p "$port" -C "$pings" -v -V \
		>"$tmp/s$port" 2>&1) &
	spid=$!
	# A client that came before the server listened was refused, and
	# rping then hung until its timeout: it starts once the server
	# listens (or has gone, or 60 s have passed). A refusal is still
	# tried again.
	t=60
	t0=$(date +%s)
	await $spid "cm_listening $port"
	tries=0
	until on "$clib" timeout 60 rping -c -a "$ip" -p "$port" -C "$pings" -v -V \
		>"$tmp/c$port" 2>&1; do
		cst=$?
		tries=$((tries + 1))
		# Why a try failed, and when (a refusal ends at once).
		echo "# $name: client try $tries exit $cst after $(( $(date +%s) - t0 )) s"
		diag "$tmp/c$port"
		if [ $tries -ge 5 ] || ! kill -0 $spid 2>/dev/null; then
			break
		fi
		sleep 1
	done
	wait $spid
	src=$?
	echo "# $name: $(( $(date +%s) - t0 )) s, client tries $tries"
	got=$(grep -c '^ping data: ' "$tmp/c$port")
	sgot=$(grep -c '^server ping data: ' "$tmp/s$port")
	if [ $tries -lt 5 ] && [ $src = 0 ] && [ "$got" = "$pings" ] &&
	   [ "$sgot" = "$pings" ]; then
		result ok "$name"
	else
		result fail "$name" "server exit $src, $sgot/$pings server and $got/$pings client pings; client tries $tries"
		echo "# server:"; diag "$tmp/s$port"
		echo "# client:"; diag "$tmp/c$port"
	fi
}

if [ -z "$ip" ]; then
	results skip "no soft-iWARP device (siw: test kernel only)" \
		iw_rcm_rcm_without_rdma_ucm iw_rdma_ucm_unused \
		iw_rdma_ucm_reloaded iw_rcm_server_intree_client \
		iw_intree_server_rcm_client
	exit 4
fi

if ucm_unload; then
	rping_case iw_rcm_rcm_without_rdma_ucm rcm rcm 20401
	ucm_unused iw_rdma_ucm_unused
else
	results fail "rdma_ucm cannot be unloaded" iw_rcm_rcm_without_rdma_ucm \
		iw_rdma_ucm_unused
fi
ucm_reload iw_rdma_ucm_reloaded

rping_case iw_rcm_server_intree_client rcm intree 20402
rping_case iw_intree_server_rcm_client intree rcm 20403

finish
