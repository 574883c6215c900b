#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# pair_rping: Debian's rping between two guests joined by a QEMU socket
# netdev - neighbour resolution on the wire, the peer's GID, a real L2
# path. Both guests run this at once; guest a (198.18.20.1) serves, guest
# b (198.18.20.2) connects, phase by phase:
#   1. rcm server, in-tree client      2. in-tree server, rcm client
#   3. rcm server, rcm client
# and then the other way round (b serves) for 4. rcm server, in-tree
# client. rcm programs run on rcm's librdmacm.so.1 (LD_LIBRARY_PATH).
# Each rping moves and verifies 10 messages (-C 10 -v -V). TAP output.
# The pair's device is rxe (RoCE) or siw (iWARP, test kernel): the same
# phases run on either; on iWARP the client sends first, as rping does.

me=${RCM_ADDR_RXE:-${RCM_ADDR_SIW:-}}
peer=${RCM_PEER_ADDR:-}
n=0
failed=0
tmp=${TMPDIR:-/tmp}/pair-rping.$$
mkdir -p "$tmp"

echo "TAP version 13"
echo "1..4"
if [ -z "$me" ] || [ -z "$peer" ]; then
	for i in 1 2 3 4; do echo "ok $i phase$i # SKIP not one of a pair"; done
	exit 4
fi
echo "# RDMA devices: $(ls /sys/class/infiniband 2>/dev/null | paste -sd' ')"
case $me in
*.1) role=a ;;
*) role=b ;;
esac

on() {	# LIB PROGRAM ARGS...
	lib=$1
	shift
	if [ "$lib" = rcm ]; then
		LD_LIBRARY_PATH=/usr/lib/rcm "$@"
	else
		"$@"
	fi
}

# PHASE NAME SERVING-ROLE SERVER-LIB CLIENT-LIB PORT
phase() {
	n=$((n + 1))
	name=$2 server=$3 slib=$4 clib=$5 port=$6
	if [ "$role" = "$server" ]; then
		on "$slib" timeout 120 rping -s -a "$me" -p "$port" -C 10 -v -V \
			>"$tmp/out" 2>&1
		rc=$?
		got=$(grep -c '^server ping data: ' "$tmp/out")
	else
		# The server comes up at some point; until then, REJECTED.
		tries=0
		until on "$clib" timeout 60 rping -c -a "$peer" -p "$port" \
			-C 10 -v -V >"$tmp/out" 2>&1; do
			tries=$((tries + 1))
			[ $tries -ge 60 ] && break
			sleep 1
		done
		rc=$?
		[ $tries -ge 60 ] && rc=1
		got=$(grep -c '^ping data: ' "$tmp/out")
	fi
	if [ "$rc" = 0 ] && [ "$got" = 10 ]; then
		echo "ok $n $name"
	else
		tail -n 5 "$tmp/out" | sed 's/^/#   /'
		echo "# exit $rc, $got/10 pings"
		echo "not ok $n $name"
		failed=$((failed + 1))
	fi
}

phase 1 rcm_server_intree_client a rcm intree 20601
phase 2 intree_server_rcm_client a intree rcm 20602
phase 3 rcm_server_rcm_client a rcm rcm 20603
phase 4 rcm_server_intree_client_reversed b rcm intree 20604

rm -rf "$tmp"
echo "# Totals: pass:$((n - failed)) fail:$failed skip:0"
[ $failed = 0 ]
