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

# SERVER-LIB CLIENT-LIB PORT: one server and its client; sets $src
# (the server's exit status), $tries (the client's failed tries), $got
# and $sgot (pings the client and the server printed), and $mpa_timeout
# when a try's MPA reply timed out (see rping_case).
rping_once() {
	port=$3
	(serve "$1" timeout 120 rping -s -a "$ip" -p "$3" -C "$pings" -v -V \
		>"$tmp/s$3" 2>&1) &
	spid=$!
	# A client that came before the server listened was refused, and
	# rping then hung until its timeout: it starts once the server
	# listens (or has gone, or 60 s have passed). A refusal is still
	# tried again.
	t=60
	t0=$(date +%s)
	await $spid "cm_listening $3"
	tries=0
	until on "$2" timeout 60 rping -c -a "$ip" -p "$3" -C "$pings" -v -V \
		>"$tmp/c$3" 2>&1; do
		cst=$?
		tries=$((tries + 1))
		# Why a try failed, and when (a refusal ends at once).
		echo "# $name: client try $tries exit $cst after $(( $(date +%s) - t0 )) s"
		diag "$tmp/c$3"
		if grep -q "UNREACHABLE, error -110" "$tmp/c$3"; then
			# This server's one connection went to that request.
			mpa_timeout=1
			kill $spid
			break
		fi
		if [ $tries -ge 5 ] || ! kill -0 $spid 2>/dev/null; then
			break
		fi
		sleep 1
	done
	wait $spid 2>/dev/null	# no "Terminated" in the TAP output
	src=$?
	echo "# $name: $(( $(date +%s) - t0 )) s, client tries $tries"
	got=$(grep -c '^ping data: ' "$tmp/c$3")
	sgot=$(grep -c '^server ping data: ' "$tmp/s$3")
}

# NAME SERVER-LIB CLIENT-LIB PORT
# siw's client gives up on the MPA reply after 10 s (MPAREQ_TIMEOUT):
# UNREACHABLE, status -ETIMEDOUT, on either stack. On a starved TCG
# guest the server's accept (QP, buffers, memory registration) can take
# that long, and the server, which serves one connection, then spends it
# on the request whose client has gone. Only that case is run again,
# with a new server on the next port.
rping_case() {
	name=$1
	mpa_timeout=
	rping_once "$2" "$3" "$4"
	if [ -n "$mpa_timeout" ]; then
		echo "# $name: the client's MPA reply timed out: once more"
		mpa_timeout=
		rping_once "$2" "$3" $(($4 + 100))
	fi
	if [ $tries -lt 5 ] && [ $src = 0 ] && [ "$got" = "$pings" ] &&
	   [ "$sgot" = "$pings" ]; then
		result ok "$name"
	else
		result fail "$name" "server exit $src, $sgot/$pings server and $got/$pings client pings; client tries $tries; client: $(tail -n 1 "$tmp/c$port")"
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
