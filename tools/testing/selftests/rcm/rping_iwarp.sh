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
# Each program's bound (pair()), which only a hang reaches.
t=120
# shellcheck disable=SC2016 # await() evals it
ready='listening $spid $port'
ncase=0

# SERVER-LIB CLIENT-LIB: one server and its client, which starts once
# the server listens (pair()); sets $src (the server's exit status),
# $crc (the client's), $got and $sgot (pings the client and the server
# printed), and $mpa_timeout when the client's MPA reply timed out (see
# rping_case).
rping_once() {
	next_port
	server="rping -s -a $ip -p $port -C $pings -v -V"
	client="rping -c -a $ip -p $port -C $pings -v -V"
	t0=$(date +%s)
	pair "$1" "$2"
	if [ "$crc" != 0 ]; then
		# Why it failed, and when.
		echo "# $name: client exit $crc after $(( $(date +%s) - t0 )) s"
		diag "$c"
		grep -q "UNREACHABLE, error -110" "$c" && mpa_timeout=1
	fi
	wait $spid 2>/dev/null	# no "Terminated" in the TAP output
	src=$?
	echo "# $name: $(( $(date +%s) - t0 )) s"
	got=$(grep -c '^ping data: ' "$c")
	sgot=$(grep -c '^server ping data: ' "$s")
}

# NAME SERVER-LIB CLIENT-LIB
# siw's client gives up on the MPA reply after 10 s (MPAREQ_TIMEOUT):
# UNREACHABLE, status -ETIMEDOUT, on either stack. On a starved TCG
# guest the server's accept (QP, buffers, memory registration) can take
# that long, and the server, which serves one connection, then spends it
# on the request whose client has gone. Only that case is run again,
# with a new server on the next port.
rping_case() {
	name=$1
	mpa_timeout=
	rping_once "$2" "$3"
	if [ -n "$mpa_timeout" ]; then
		echo "# $name: the client's MPA reply timed out: once more"
		mpa_timeout=
		rping_once "$2" "$3"
	fi
	if [ "$crc" = 0 ] && [ $src = 0 ] && [ "$got" = "$pings" ] &&
	   [ "$sgot" = "$pings" ]; then
		result ok "$name"
	else
		result fail "$name" "server exit $src, $sgot/$pings server and $got/$pings client pings; client exit $crc; client: $(tail -n 1 "$c")"
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
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
	rping_case iw_rcm_rcm_without_rdma_ucm rcm rcm
	ucm_unused iw_rdma_ucm_unused
else
	results fail "rdma_ucm cannot be unloaded" iw_rcm_rcm_without_rdma_ucm \
		iw_rdma_ucm_unused
fi
ucm_reload iw_rdma_ucm_reloaded

rping_case iw_rcm_server_intree_client rcm intree
rping_case iw_intree_server_rcm_client intree rcm

finish
