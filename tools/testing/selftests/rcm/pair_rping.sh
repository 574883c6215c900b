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
# shellcheck source=stacks.sh
. "$(dirname "$0")/stacks.sh"
begin pair-rping 4

if [ -z "$me" ] || [ -z "$peer" ]; then
	results skip "not one of a pair" rcm_server_intree_client \
		intree_server_rcm_client rcm_server_rcm_client \
		rcm_server_intree_client_reversed
	exit 4
fi
echo "# RDMA devices: $(ls /sys/class/infiniband 2>/dev/null | paste -sd' ')"
case $me in
*.1) role=a ;;
*) role=b ;;
esac

# NAME SERVING-ROLE SERVER-LIB CLIENT-LIB
phase() {
	name=$1 server=$2 slib=$3 clib=$4
	next_port
	if [ "$role" = "$server" ]; then
		on "$slib" timeout 120 rping -s -a "$me" -p "$port" -C 10 -v -V \
			>"$tmp/out" 2>&1
		rc=$?
		got=$(grep -c '^server ping data: ' "$tmp/out")
	else
		# The server is in the other guest, where this one cannot see
		# it listen: until it does, rping is REJECTED at once, so the
		# client tries again, once a second for up to a minute.
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
		result ok "$name"
	else
		tail -n 5 "$tmp/out" | sed 's/^/#   /'
		result fail "$name" "exit $rc, $got/10 pings"
	fi
}

phase rcm_server_intree_client a rcm intree
phase intree_server_rcm_client a intree rcm
phase rcm_server_rcm_client a rcm rcm
phase rcm_server_intree_client_reversed b rcm intree

finish
