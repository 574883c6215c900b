#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-bench.sh ROUNDS COUNTS [SCALE_COUNTS [SCALE_ROUNDS [CMTIME_RUNS]]]:
# the benchmark's guest side (make bench).
# In one boot, with rcm.ko and the in-tree rdma_cm + rdma_ucm loaded,
# runs Debian's cmtime alternately on the in-tree stack (rdma-core's
# librdmacm) and on rcm (rcm's librdmacm.so.1 through LD_LIBRARY_PATH),
# ROUNDS rounds for each connection count in COUNTS (comma separated).
# Then one listener accepting 1000 connections from 8 client processes
# at once (bench_accept), RCM_BENCH_ACCEPT_ROUNDS (default ROUNDS)
# rounds alternating the stacks; system
# calls per connection with strace; and kernel slab memory per idle id
# with bench_ids. Then the scale runs: bench_scale at each count of
# SCALE_COUNTS (default 100,1000,10000; "none": none), SCALE_ROUNDS
# rounds (default 2) alternating the stacks, each run connecting its
# count with at most RCM_BENCH_WINDOW (32) in set-up at once, repeated
# until it has made 1000 connections. Last, CMTIME_RUNS (default 0)
# cmtime runs at the largest scale count, alternating the stacks from
# the in-tree one (3: in-tree, rcm, in-tree); cmtime puts every
# connection in flight at once and its server dies on an error event
# (see below), so they are off by default. Prints machine-readable
# lines:
#   bench-step STACK COUNT ROUND STEP US_PER_CONN
#   bench-accept STACK COUNT CLIENTS ROUND US_PER_CONN SLAB_BYTES_PER_CONN
#   bench-scale STACK COUNT WINDOW ROUND CONNECT_US CONNECT_CPU_US TEARDOWN_US
#     TEARDOWN_CPU_US SLAB_BYTES_PER_CONN FAILED (bench_scale, per
#     connection)
#   bench-sphase STACK COUNT WINDOW ROUND ADDR_US ROUTE_US CONNECT_US
#     SET_UP_US (bench_scale's set-up phases, client side, medians)
#   bench-syscalls STACK SIDE COUNT CALLS
#   bench-syscall STACK SIDE NAME CALLS
#   bench-cmcalls STACK SIDE COUNT CALLS DEVICE
#   bench-cmcall STACK SIDE NAME CALLS
#   bench-ids STACK COUNT BYTES_PER_ID
#   bench-cpu STACK COUNT ROUND USER_TICKS SYSTEM_TICKS (guest-wide,
#     /proc/stat, both sides, over the client's run)
#   bench-wall STACK COUNT ROUND SERVER_MS CLIENT_MS TEARDOWN_MS (one
#     cmtime run: the wait for the server to listen, the client's whole
#     run, the server's exit after it)
#   bench-failed STACK COUNT ROUND FAILED CLIENT_STATUS SERVER (a cmtime
#     run in which connections failed - cmtime counts a rejected or
#     unreachable connection as connected and times it - or the client
#     did not finish; SERVER "died" when the server was gone before the
#     client ended: cmtime 44's server dereferences NULL on an error
#     event of a request id, and the client then waits for good)
#   bench-phase NAME SECONDS (the wall time of each part of the bench)
ip=$RCM_ADDR_RXE
rounds=${1:-10}
counts=$(echo "${2:-100,1000}" | tr , ' ')
scale_counts=$(echo "${3:-100,1000,10000}" | sed 's/^none$//' | tr , ' ')
scale_rounds=${4:-2}
cmtime_runs=${5:-0}
accept_rounds=${RCM_BENCH_ACCEPT_ROUNDS:-$rounds}
window=${RCM_BENCH_WINDOW:-32}
# Every server binds port 0: bench_accept and bench_scale read their
# port back themselves; cmtime's is read from the CM (server_port).

# serve(), shared with the selftests that run programs on both stacks
# shellcheck source=../selftests/rcm/stacks.sh
. "$(dirname "$0")/stacks.sh"
# shellcheck source=order.sh
. "$(dirname "$0")/order.sh"

# User and system (with irq and softirq) ticks of /proc/stat's cpu line:
# every task in the guest, so both sides and the kernel's work for them.
cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3, $4 + $7 + $8 }' /proc/stat
}

# Busybox's date has no sub-second clock: /proc/uptime's 10 ms will do.
uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

phase_start=$(uptime_ms)
# NAME: the wall time since the last phase ended.
phase() {
	now=$(uptime_ms)
	echo "bench-phase $1 $(((now - phase_start) / 1000)).$(((now - phase_start) % 1000 / 100))"
	progress "$1 done"
	phase_start=$now
}

# PID: whether the process runs (a zombie does not; kill -0 says yes).
running() {
	state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

# STACK COUNT: one cmtime client against the server $spid; returns the
# client's status. If the server dies meanwhile, the client (which then
# waits for events that never come) is ended a second later.
cmtime_client() {
	(serve "$1" timeout 600 cmtime -s "$ip" -p "$port" -c "$2" \
		>/tmp/cli.log 2>&1) &
	cpid=$!
	server=alive
	while running $cpid; do
		if ! running $spid; then
			server=died
			sleep 1
			kill $cpid 2>/dev/null
			break
		fi
		sleep 0.5
	done
	wait $cpid
}

# STACK COUNT ROUND [WRAPPER...]: one cmtime run, server and client on
# STACK; prints the client's step table as bench-step lines.
cmtime_run() {
	stack=$1 count=$2 round=$3
	shift 3
	w0=$(uptime_ms)
	(serve "$stack" "$@" cmtime -b "$ip" -p 0 -c "$count" \
		>/tmp/srv.log 2>&1) &
	spid=$!
	server_port $spid
	tries=0
	w1=$(uptime_ms)
	cpu0=$(cpu_ticks)
	# Again only when the client failed within seconds with the server
	# alive (and listening, waited for again): after a longer run, or
	# against a dead server, a second client would time the failures.
	until cmtime_client "$stack" "$count"; do
		st=$?
		tries=$((tries + 1))
		[ $tries -ge 3 ] && break
		[ "$server" = alive ] &&
			[ $(($(uptime_ms) - w1)) -lt $((10000 * tries)) ] || break
		listening $spid "$port"
	done
	st=${st:-0}
	cpu1=$(cpu_ticks)
	w2=$(uptime_ms)
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	w3=$(uptime_ms)
	echo "bench-wall $stack $count $round $((w1 - w0)) $((w2 - w1)) $((w3 - w2))"
	failed=$(grep -c 'RDMA_CM_EVENT_[A-Z_]*\(REJECTED\|UNREACHABLE\|ERROR\)' /tmp/cli.log)
	if [ "$failed" -gt 0 ] || [ "$tries" -gt 0 ] || [ "$server" = died ]; then
		echo "bench-failed $stack $count $round $failed $st $server"
		grep -v 'RDMA_CM_EVENT' /tmp/srv.log | tail -3 | sed 's/^/# server: /'
	fi
	unset st
	if [ $tries -ge 3 ]; then
		echo "bench-error $stack $count $round"
		tail -5 /tmp/cli.log /tmp/srv.log
		return 1
	fi
	echo "bench-cpu $stack $count $round $(echo "$cpu0 $cpu1" |
		awk '{ print $3 - $1, $4 - $2 }')"
	sed -n 's/^\([a-z ]*[a-z]\) *: *[0-9.]* *[0-9.]* *[0-9.]* *\([0-9.]*\)$/\1:\2/p' \
		/tmp/cli.log | while IFS=: read -r step us; do
		echo "bench-step $stack $count $round $(echo "$step" | tr ' ' _) $us"
	done
}

# ROUNDS FUNCTION [ARGS...]: FUNCTION STACK ARGS... ROUND for each round
# 1 to ROUNDS and both stacks, the one going first alternating
# (order.sh), so neither always runs on a warmer (or more fragmented)
# kernel.
each_round() {
	bench_rounds=$1 bench_fn=$2 bench_round=1
	shift 2
	while [ $bench_round -le "$bench_rounds" ]; do
		for bench_stack in $(order $bench_round); do
			progress "$bench_fn${*:+ $*} $bench_stack round" \
				"$bench_round/$bench_rounds"
			"$bench_fn" "$bench_stack" "$@" $bench_round
		done
		bench_round=$((bench_round + 1))
	done
}

for count in $counts; do
	each_round "$rounds" cmtime_run "$count"
	phase "cmtime-$count"
done

# STACK ROUND [COUNT CLIENTS]: one bench_accept run, by default of 1000
# connections from 8 clients.
accept_run() {
	if out=$( (serve "$1" timeout 600 ./bench_accept "${3:-1000}" \
		"${4:-8}" "$ip" 0) 2>&1); then
		echo "$out" | sed -n "s/^accept \([0-9]*\) \([0-9]*\) us_per_conn \([0-9.]*\) slab_bytes_per_conn \(-*[0-9]*\)$/bench-accept $1 \1 \2 $2 \3 \4/p"
	else
		echo "bench-error $1 accept ${3:-1000} $2"
		echo "$out" | tail -5
	fi
}

each_round "$accept_rounds" accept_run
phase accept

# System calls: both programs under strace -f -c, 100 connections.
progress syscalls
for stack in intree rcm; do
	(serve "$stack" strace -f -c -o /tmp/strace.srv cmtime -b "$ip" \
		-p 0 -c 100 >/dev/null 2>&1) &
	spid=$!
	server_port $spid
	(serve "$stack" strace -f -c -o /tmp/strace.cli timeout 600 \
		cmtime -s "$ip" -p "$port" -c 100 >/dev/null 2>&1)
	# strace blocks SIGINT and SIGTERM while it runs a program with -o:
	# end the traced server, and strace writes its summary and exits.
	pkill -x cmtime 2>/dev/null || killall cmtime 2>/dev/null
	wait $spid 2>/dev/null
	for side in cli srv; do
		calls=$(awk '$NF == "total" { print $4 }' /tmp/strace.$side)
		echo "bench-syscalls $stack $side 100 ${calls:-?}"
		# Per system call, for the record: NAME CALLS.
		awk '$1 ~ /^[0-9.]+$/ && $NF != "total" { print $NF, $4 }' \
			/tmp/strace.$side | while read -r name calls; do
			echo "bench-syscall $stack $side $name $calls"
		done
	done
done
phase syscalls

# The connection manager's own system calls: those on its character
# device (strace -y names a descriptor's file, in a poll's too), again
# 100 connections. A call strace splits across threads counts once,
# on its first line (the resumed line names no descriptor).
progress cmcalls
for stack in intree rcm; do
	dev=/dev/infiniband/rcm
	[ "$stack" = intree ] && dev=/dev/infiniband/rdma_cm
	trace="strace -f -y -e trace=read,write,ioctl,poll,ppoll,epoll_wait,epoll_pwait,select,pselect6"
	(serve "$stack" $trace -o /tmp/cmdev.srv cmtime -b "$ip" \
		-p 0 -c 100 >/dev/null 2>&1) &
	spid=$!
	server_port $spid
	(serve "$stack" $trace -o /tmp/cmdev.cli timeout 600 \
		cmtime -s "$ip" -p "$port" -c 100 >/dev/null 2>&1)
	pkill -x cmtime 2>/dev/null || killall cmtime 2>/dev/null
	wait $spid 2>/dev/null
	for side in cli srv; do
		grep -F "<$dev>" /tmp/cmdev.$side | grep -v 'resumed>' \
			>/tmp/cmdev.$side.calls
		echo "bench-cmcalls $stack $side 100 $(wc -l </tmp/cmdev.$side.calls) $dev"
		sed -n 's/^[0-9]*  *//; s/^\([a-z_0-9]*\)(.*/\1/p' \
			/tmp/cmdev.$side.calls | sort | uniq -c |
			while read -r calls name; do
			echo "bench-cmcall $stack $side $name $calls"
		done
	done
done
phase cmcalls

# Kernel memory per idle (created and bound) id.
progress ids
for stack in intree rcm; do
	out=$( (serve "$stack" ./bench_ids 10000 "$ip") 2>&1)
	echo "# $stack: $out"
	echo "bench-ids $stack 10000 $(echo "$out" | sed -n 's/.*bytes_per_id //p')"
done
phase ids

# Scale: bench_scale at each count, the stacks alternating which goes
# first, as in the timed rounds.
scale_run() {
	repeat=$(((1000 + $2 - 1) / $2))
	if out=$( (serve "$1" timeout 900 ./bench_scale "$2" "$window" \
		$repeat "$ip" 0) 2>&1); then
		echo "$out" | sed -n "s/^scale \([0-9]*\) [0-9]* [0-9]* connect_us \([0-9.]*\) connect_cpu_us \([0-9.]*\) teardown_us \([0-9.]*\) teardown_cpu_us \([0-9.]*\) slab_bytes_per_conn \(-*[0-9]*\) failed \([0-9]*\)$/bench-scale $1 \1 $window $3 \2 \3 \4 \5 \6 \7/p"
		echo "$out" | sed -n "s/^phases [0-9]* [0-9]* addr_us \([0-9.]*\) route_us \([0-9.]*\) connect_us \([0-9.]*\) set_up_us \([0-9.]*\)$/bench-sphase $1 $2 $window $3 \1 \2 \3 \4/p"
		echo "$out" | grep -v '^scale \|^phases ' | tail -3 | sed 's/^/# /'
	else
		echo "bench-error $1 scale $2 $3"
		echo "$out" | tail -5
	fi
}

for count in $scale_counts; do
	each_round "$scale_rounds" scale_run "$count"
	phase "scale-$count"
done

# cmtime at the largest scale count, in-tree and rcm alternating from
# the in-tree stack; each stack's run k is its round k.
big=$(echo "$scale_counts" | tr ' ' '\n' | sort -n | tail -1)
[ -n "$big" ] && [ "$cmtime_runs" -gt 0 ] 2>/dev/null || exit 0
i=0 ri=0 rr=0
while [ $i -lt "$cmtime_runs" ]; do
	if [ $((i % 2)) = 0 ]; then
		ri=$((ri + 1))
		stack=intree r=$ri
	else
		rr=$((rr + 1))
		stack=rcm r=$rr
	fi
	progress "cmtime_run $big $stack run $((i + 1))/$cmtime_runs"
	cmtime_run "$stack" "$big" $r
	i=$((i + 1))
done
phase "cmtime-$big"
