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
tmp=${TMPDIR:-/tmp}/rcm-rping-iw.$$
mkdir -p "$tmp"
n=0
failed=0
skipped=0

echo "TAP version 13"
echo "1..5"

result() {	# VERDICT NAME [WHY]
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n $2" ;;
	skip) echo "ok $n $2 # SKIP $3"; skipped=$((skipped + 1)) ;;
	*) echo "not ok $n $2"; failed=$((failed + 1))
	   [ -n "${3:-}" ] && echo "# $3" ;;
	esac
}

# LIB PROGRAM ARGS...: run PROGRAM on rcm's userlib or on the in-tree one.
on() {
	lib=$1
	shift
	if [ "$lib" = rcm ]; then
		LD_LIBRARY_PATH=/usr/lib/rcm "$@"
	else
		"$@"
	fi
}

# For a background job "( serve ... ) &": the job becomes PROGRAM.
serve() {
	lib=$1
	shift
	if [ "$lib" = rcm ]; then
		LD_LIBRARY_PATH=/usr/lib/rcm exec "$@"
	fi
	exec "$@"
}

diag() {
	tail -n 8 "$1" 2>/dev/null | sed 's/^/#   /'
}

# NAME SERVER-LIB CLIENT-LIB PORT
rping_case() {
	name=$1 slib=$2 clib=$3 port=$4
	(serve "$slib" timeout 120 rping -s -a "$ip" -p "$port" -C "$pings" -v -V \
		>"$tmp/s$port" 2>&1) &
	spid=$!
	# A client that comes before the server listens is refused: again.
	tries=0
	until on "$clib" timeout 60 rping -c -a "$ip" -p "$port" -C "$pings" -v -V \
		>"$tmp/c$port" 2>&1; do
		tries=$((tries + 1))
		if [ $tries -ge 5 ] || ! kill -0 $spid 2>/dev/null; then
			break
		fi
		sleep 1
	done
	wait $spid
	src=$?
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
	for t in iw_rcm_rcm_without_rdma_ucm iw_rdma_ucm_unused \
		 iw_rdma_ucm_reloaded iw_rcm_server_intree_client \
		 iw_intree_server_rcm_client; do
		result skip $t "no soft-iWARP device (siw: test kernel only)"
	done
	exit 4
fi

if rmmod rdma_ucm 2>/dev/null || ! [ -e /dev/infiniband/rdma_cm ]; then
	rping_case iw_rcm_rcm_without_rdma_ucm rcm rcm 20401
	if [ -e /dev/infiniband/rdma_cm ]; then
		result fail iw_rdma_ucm_unused "/dev/infiniband/rdma_cm came back"
	else
		result ok iw_rdma_ucm_unused
	fi
else
	result fail iw_rcm_rcm_without_rdma_ucm "rdma_ucm cannot be unloaded"
	result fail iw_rdma_ucm_unused "rdma_ucm cannot be unloaded"
fi
if modprobe rdma_ucm && [ -e /dev/infiniband/rdma_cm ]; then
	result ok iw_rdma_ucm_reloaded
else
	result fail iw_rdma_ucm_reloaded "modprobe rdma_ucm failed"
fi

rping_case iw_rcm_server_intree_client rcm intree 20402
rping_case iw_intree_server_rcm_client intree rcm 20403

rm -rf "$tmp"
echo "# Totals: pass:$((n - failed - skipped)) fail:$failed skip:$skipped"
[ $failed = 0 ]
