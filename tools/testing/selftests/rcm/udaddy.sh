#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# udaddy: unmodified librdmacm datagram programs - Debian's udaddy and
# mckey (rdma-core 44, linked against librdmacm.so.1) - run on rcm through
# LD_LIBRARY_PATH=/usr/lib/rcm (rcm's userlib), over Soft-RoCE:
#   udaddy (SIDR: UD ids, service ID resolution, datagrams both ways):
#     rcm <-> rcm with the in-tree rdma_ucm unloaded, then, with rdma_ucm
#     back, an rcm server against an in-tree client and the reverse;
#   mckey (a UD QP in an IPv4 multicast group, RCM_MCKEY_GROUP or
#     239.1.2.3 and up): rcm sender and receiver without rdma_ucm, then
#     an rcm receiver with an in-tree sender and the reverse;
#   one in-tree <-> in-tree case of each program first, which proves the
#   environment (rxe, the programs, multicast over rxe) works, whatever
#   rcm does.
# Every program runs under timeout (RCM_UDADDY_TIMEOUT, 30 s: the KASAN
# test kernel under TCG is slow), cut to what is left of the script's
# budget (RCM_UDADDY_BUDGET, 240 s; the harness allows 300 s), so a
# hang fails its case and never the whole run; a case passes when every
# program exits 0 and prints "data transfers complete".
# TAP output; exit 0 when all pass.

ip=${RCM_ADDR_RXE:-}
netdev=${RCM_NETDEV_RXE:-}
group=${RCM_MCKEY_GROUP:-239.1.2.3}
msgs=${RCM_UDADDY_COUNT:-10}
limit=${RCM_UDADDY_TIMEOUT:-30}
budget=${RCM_UDADDY_BUDGET:-240}
start=$(date +%s)
ncase=0

# shellcheck source=stacks.sh
. "$(dirname "$0")/stacks.sh"
begin udaddy 10

# NAME SERVER-LIB CLIENT-LIB
# udaddy's port is fixed (7174; it takes none, -p is its port space):
# the cases run one after the other, the client once the server listens
# there. The server answers the client's SIDR REQ, receives its
# datagrams and replies to each; the client resolves, sends and
# receives the replies.
udaddy_case() {
	name=$1
	if ! left; then
		result fail "$name" "out of time (RCM_UDADDY_BUDGET $budget s)"
		return
	fi
	server="udaddy -b $ip -C $msgs"
	client="udaddy -s $ip -C $msgs"
	# shellcheck disable=SC2016 # await() evals it
	ready='listening $spid 7174'
	pair "$2" "$3"
	wait $spid
	src=$?
	if [ $crc = 0 ] && [ $src = 0 ] &&
	   grep -q 'data transfers complete' "$s" &&
	   grep -q 'data transfers complete' "$c"; then
		result ok "$name"
	else
		result fail "$name" "server exit $src, client exit $crc, timeout ${t}s"
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
	fi
}

# NAME RECEIVER-LIB SENDER-LIB GROUP
# The receiver joins and waits for $msgs datagrams; datagrams sent before
# it joined are lost, so the sender (each run joins, sends $msgs, leaves)
# runs again every second until the receiver has them all. (mckey's
# output goes to a file, fully buffered: what shows that the receiver
# joined is the group's MAC address on the netdev, $RCM_NETDEV_RXE.)
mckey_case() {
	name=$1 rlib=$2 slib=$3 grp=$4
	ncase=$((ncase + 1))
	r=$tmp/r$ncase s=$tmp/s$ncase
	if ! left; then
		result fail "$name" "out of time (RCM_UDADDY_BUDGET $budget s)"
		return
	fi
	(serve "$rlib" timeout "$t" mckey -m "$grp" -b "$ip" -C "$msgs" \
		>"$r" 2>&1) &
	rpid=$!
	sends=0
	sok=0
	: >"$s"
	# The receiver's QP, attached to the group, puts the group's MAC on
	# the netdev (rxe, under either stack): senders start once it is.
	mac=$(echo "$grp" | { IFS=. read -r _ b c d
		printf '01:00:5e:%02x:%02x:%02x' $((b & 127)) "$c" "$d"; })
	[ -z "$netdev" ] || await $rpid \
		"/usr/sbin/ip maddr show dev $netdev | grep -q 'link  $mac\$'"
	while kill -0 $rpid 2>/dev/null && [ $sends -lt 8 ]; do
		sends=$((sends + 1))
		if on "$slib" timeout "$t" mckey -m "$grp" -b "$ip" -s \
			-C "$msgs" >>"$s" 2>&1; then
			sok=$((sok + 1))
		fi
		# The receiver ends once it has them all; if it has not
		# within a second, the datagrams (UD may lose them) go again.
		await $rpid false 1
	done
	wait $rpid
	rrc=$?
	if [ $rrc = 0 ] && [ $sok -gt 0 ] &&
	   grep -q 'data transfers complete' "$r" &&
	   grep -q 'data transfers complete' "$s"; then
		result ok "$name"
	else
		result fail "$name" "receiver exit $rrc, sender runs $sends ($sok ok), timeout ${t}s"
		echo "# receiver:"; diag "$r"
		echo "# sender:"; diag "$s"
	fi
}

# The group of case N: $group's last byte plus N.
grp() {
	echo "${group%.*}.$(( ${group##*.} + $1 ))"
}

if [ -z "$ip" ]; then
	results skip "no Soft-RoCE device" udaddy_intree_intree \
		mckey_intree_intree udaddy_rcm_rcm_without_rdma_ucm \
		mckey_rcm_rcm_without_rdma_ucm rdma_ucm_unused \
		rdma_ucm_reloaded udaddy_rcm_server_intree_client \
		udaddy_intree_server_rcm_client \
		mckey_rcm_receiver_intree_sender \
		mckey_intree_receiver_rcm_sender
	exit 4
fi

# The environment: the in-tree stack alone.
udaddy_case udaddy_intree_intree intree intree
mckey_case mckey_intree_intree intree intree "$(grp 0)"

# rcm alone: the in-tree user-space CM is not there to be used.
if ucm_unload; then
	udaddy_case udaddy_rcm_rcm_without_rdma_ucm rcm rcm
	mckey_case mckey_rcm_rcm_without_rdma_ucm rcm rcm "$(grp 1)"
	ucm_unused rdma_ucm_unused
else
	results fail "rdma_ucm cannot be unloaded" \
		udaddy_rcm_rcm_without_rdma_ucm \
		mckey_rcm_rcm_without_rdma_ucm rdma_ucm_unused
fi
ucm_reload rdma_ucm_reloaded

# rcm against the in-tree stack, both ways.
udaddy_case udaddy_rcm_server_intree_client rcm intree
udaddy_case udaddy_intree_server_rcm_client intree rcm
mckey_case mckey_rcm_receiver_intree_sender rcm intree "$(grp 2)"
mckey_case mckey_intree_receiver_rcm_sender intree rcm "$(grp 3)"

finish
