#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# rping: unmodified librdmacm programs - Debian's rping and cmtime
# (rdma-core 44, linked against librdmacm.so.1) - run on rcm through
# LD_LIBRARY_PATH=/usr/lib/rcm (rcm's userlib), over Soft-RoCE:
#   rcm <-> rcm with the in-tree rdma_ucm unloaded, so nothing can reach
#   the in-tree CM; then, with rdma_ucm back, an rcm server against an
#   in-tree client and an in-tree server against an rcm client.
# rping moves and verifies 20 messages (-C 20 -v -V); cmtime makes and
# tears down 100 connections (-c 100); rping also runs with a QP it
# moves itself (-q: rdma_init_qp_attr). RCM_RPING_COUNT and
# RCM_CMTIME_CONNS change those (the KASAN test kernel runs a lighter
# round). Last, RCM_RESOLVE_TIMEOUT_MS tunes an unmodified rping: its
# resolution of a silent neighbour ($RCM_ADDR_SILENT) gives up after
# the variable's 300 ms instead of rping's own 2000 ms. TAP output; exit
# 0 when all pass.

ip=${RCM_ADDR_RXE:-}
pings=${RCM_RPING_COUNT:-20}
conns=${RCM_CMTIME_CONNS:-100}
# shellcheck source=stacks.sh
. "$(dirname "$0")/stacks.sh"
begin rping 10
# Each program's bound (pair()), which only a hang reaches; the client
# starts once the server listens.
t=120
# shellcheck disable=SC2016 # await() evals it
ready='listening $spid $port'
ncase=0

# NAME SERVER-LIB CLIENT-LIB [CLIENT FLAGS...]
rping_case() {
	name=$1 slib=$2 clib=$3
	shift 3
	next_port
	server="rping -s -a $ip -p $port -C $pings -v -V"
	client="rping -c -a $ip -p $port -C $pings -v -V $*"
	pair "$slib" "$clib"
	wait $spid
	src=$?
	got=$(grep -c '^ping data: ' "$c")
	sgot=$(grep -c '^server ping data: ' "$s")
	if [ $crc = 0 ] && [ $src = 0 ] && [ "$got" = "$pings" ] &&
	   [ "$sgot" = "$pings" ]; then
		result ok "$name"
	else
		result fail "$name" "server exit $src, $sgot/$pings server and $got/$pings client pings; client exit $crc"
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
	fi
}

tracefs=/sys/kernel/tracing

# rping -c towards the silent neighbour (which answers nothing: any
# port), on rcm, with "$@" as extra environment; prints the milliseconds
# the kernel took from the id's resolve to the ADDR_ERROR it queued, by
# the trace's own clock (999999 without one), and leaves rping's output
# in $tmp/silent. The trace, not the process's run time: a loaded host
# can delay rping's start and exit by seconds, not the kernel's timer.
silent_rping() {
	[ -e "$tracefs/trace" ] || mount -t tracefs tracefs "$tracefs"
	: >"$tracefs/trace"
	echo 1 >"$tracefs/events/rcm/cm_resolve_addr/enable"
	echo 1 >"$tracefs/events/rcm/cm_event_queued/enable"
	env "$@" LD_LIBRARY_PATH=/usr/lib/rcm timeout 30 rping -c -a "$silent" \
		-p "$port" -C 1 >"$tmp/silent" 2>&1
	echo 0 >"$tracefs/events/rcm/cm_resolve_addr/enable"
	echo 0 >"$tracefs/events/rcm/cm_event_queued/enable"
	awk 'match($0, /[0-9]+\.[0-9]+: cm_/) {
		ts = substr($0, RSTART, RLENGTH - 5) + 0
	}
	/ cm_resolve_addr: / && t0 == "" { t0 = ts }
	/ cm_event_queued: .*event=ADDR_ERROR/ && t0 != "" {
		printf "%d\n", (ts - t0) * 1000; done = 1; exit
	}
	END { if (!done) print 999999 }' "$tracefs/trace"
}

# NAME SERVER-LIB CLIENT-LIB
# The client makes and tears down the connections and prints its step
# table; rdma-core 44's cmtime server serves until it is killed, so it
# must still be alive (and quiet about errors) when the client is done.
cmtime_case() {
	name=$1
	next_port
	server="cmtime -b $ip -p $port -c $conns"
	client="cmtime -s $ip -p $port -c $conns"
	t=300
	pair "$2" "$3"
	t=120
	alive=0
	kill -0 $spid 2>/dev/null && alive=1
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	if [ $crc = 0 ] && [ $alive = 1 ] &&
	   grep -q '^connect *:' "$c" &&
	   ! grep -qi 'error\|fail' "$s"; then
		result ok "$name"
		grep '^[a-z ]*:' "$c" | sed 's/^/#   /'
	else
		result fail "$name" "server alive $alive, client exit $crc"
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
	fi
}

if [ -z "$ip" ]; then
	results skip "no Soft-RoCE device" rcm_rcm_without_rdma_ucm \
		rcm_rcm_self_modified_qp rcm_server_intree_client \
		intree_server_rcm_client cmtime_rcm_rcm \
		cmtime_rcm_server_intree_client \
		cmtime_intree_server_rcm_client rdma_ucm_unused \
		rdma_ucm_reloaded rping_resolve_timeout_env
	exit 4
fi

# rcm alone: the in-tree user-space CM is not there to be used.
if ucm_unload; then
	rping_case rcm_rcm_without_rdma_ucm rcm rcm
	rping_case rcm_rcm_self_modified_qp rcm rcm -q
	cmtime_case cmtime_rcm_rcm rcm rcm
	ucm_unused rdma_ucm_unused
else
	results fail "rdma_ucm cannot be unloaded" rcm_rcm_without_rdma_ucm \
		rcm_rcm_self_modified_qp cmtime_rcm_rcm rdma_ucm_unused
fi
ucm_reload rdma_ucm_reloaded

# rcm against the in-tree stack, both ways.
rping_case rcm_server_intree_client rcm intree
rping_case intree_server_rcm_client intree rcm
cmtime_case cmtime_rcm_server_intree_client rcm intree
cmtime_case cmtime_intree_server_rcm_client intree rcm

# An unmodified program tuned by the environment (userlib/README.md).
silent=${RCM_ADDR_SILENT:-}
if [ -z "$silent" ]; then
	result skip rping_resolve_timeout_env "no silent neighbour"
else
	plain=$(silent_rping RCM_UNUSED=1)
	plain_err=$(grep -c ADDR_ERROR "$tmp/silent")
	tuned=$(silent_rping RCM_RESOLVE_TIMEOUT_MS=300)
	tuned_err=$(grep -c ADDR_ERROR "$tmp/silent")
	# rping asks for 2000 ms; the variable's 300 ms must win.
	if [ "$plain_err" -ge 1 ] && [ "$tuned_err" -ge 1 ] &&
	   [ "$plain" -ge 1900 ] && [ "$tuned" -ge 250 ] &&
	   [ "$tuned" -lt 1000 ]; then
		result ok rping_resolve_timeout_env
		echo "#   ADDR_ERROR after ${plain} ms plain, ${tuned} ms with RCM_RESOLVE_TIMEOUT_MS=300 (kernel trace)"
	else
		result fail rping_resolve_timeout_env "plain ${plain} ms (ADDR_ERROR $plain_err), tuned ${tuned} ms (ADDR_ERROR $tuned_err)"
		diag "$tmp/silent"
	fi
fi

finish
