#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-bench.sh ROUNDS COUNTS: the benchmark's guest side (make bench).
# In one boot, with rcm.ko and the in-tree rdma_cm + rdma_ucm loaded,
# runs Debian's cmtime alternately on the in-tree stack (rdma-core's
# librdmacm) and on rcm (rcm's librdmacm.so.1 through LD_LIBRARY_PATH),
# ROUNDS rounds for each connection count in COUNTS (comma separated).
# Then one listener accepting 1000 connections from 8 client processes
# at once (bench_accept), ROUNDS rounds alternating the stacks; system
# calls per connection with strace; and kernel slab memory per idle id
# with bench_ids. Prints machine-readable lines:
#   bench-step STACK COUNT ROUND STEP US_PER_CONN
#   bench-accept STACK COUNT CLIENTS ROUND US_PER_CONN SLAB_BYTES_PER_CONN
#   bench-syscalls STACK SIDE COUNT CALLS
#   bench-syscall STACK SIDE NAME CALLS
#   bench-cmcalls STACK SIDE COUNT CALLS DEVICE
#   bench-cmcall STACK SIDE NAME CALLS
#   bench-ids STACK COUNT BYTES_PER_ID
#   bench-cpu STACK COUNT ROUND USER_TICKS SYSTEM_TICKS (guest-wide,
#     /proc/stat, both sides, over the client's run)
ip=$RCM_ADDR_RXE
rounds=${1:-10}
counts=$(echo "${2:-100,1000}" | tr , ' ')
port=21000

# serve(), shared with the selftests that run programs on both stacks
# shellcheck source=../selftests/rcm/stacks.sh
. "$(dirname "$0")/stacks.sh"

# User and system (with irq and softirq) ticks of /proc/stat's cpu line:
# every task in the guest, so both sides and the kernel's work for them.
cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3, $4 + $7 + $8 }' /proc/stat
}

# STACK COUNT ROUND [WRAPPER...]: one cmtime run, server and client on
# STACK; prints the client's step table as bench-step lines.
cmtime_run() {
	stack=$1 count=$2 round=$3
	shift 3
	port=$((port + 1))
	(serve "$stack" "$@" cmtime -b "$ip" -p $port -c "$count" \
		>/tmp/srv.log 2>&1) &
	spid=$!
	sleep 1
	tries=0
	cpu0=$(cpu_ticks)
	until (serve "$stack" timeout 600 cmtime -s "$ip" -p $port \
		-c "$count" >/tmp/cli.log 2>&1); do
		tries=$((tries + 1))
		[ $tries -ge 3 ] && break
		sleep 1
	done
	cpu1=$(cpu_ticks)
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
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

for count in $counts; do
	r=1
	while [ $r -le "$rounds" ]; do
		# Alternate which stack goes first, so neither always runs on
		# a warmer (or more fragmented) kernel.
		if [ $((r % 2)) = 1 ]; then
			cmtime_run intree "$count" $r
			cmtime_run rcm "$count" $r
		else
			cmtime_run rcm "$count" $r
			cmtime_run intree "$count" $r
		fi
		r=$((r + 1))
	done
done

# STACK ROUND: one bench_accept run of 1000 connections from 8 clients.
accept_run() {
	port=$((port + 1))
	if out=$( (serve "$1" timeout 600 ./bench_accept 1000 8 "$ip" $port) \
		2>&1); then
		echo "$out" | sed -n "s/^accept \([0-9]*\) \([0-9]*\) us_per_conn \([0-9.]*\) slab_bytes_per_conn \(-*[0-9]*\)$/bench-accept $1 \1 \2 $2 \3 \4/p"
	else
		echo "bench-error $1 accept $2"
		echo "$out" | tail -5
	fi
}

r=1
while [ $r -le "$rounds" ]; do
	if [ $((r % 2)) = 1 ]; then
		accept_run intree $r
		accept_run rcm $r
	else
		accept_run rcm $r
		accept_run intree $r
	fi
	r=$((r + 1))
done

# System calls: both programs under strace -f -c, 100 connections.
for stack in intree rcm; do
	port=$((port + 1))
	(serve "$stack" strace -f -c -o /tmp/strace.srv cmtime -b "$ip" \
		-p $port -c 100 >/dev/null 2>&1) &
	spid=$!
	sleep 2
	(serve "$stack" strace -f -c -o /tmp/strace.cli timeout 600 \
		cmtime -s "$ip" -p $port -c 100 >/dev/null 2>&1)
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

# The connection manager's own system calls: those on its character
# device (strace -y names a descriptor's file, in a poll's too), again
# 100 connections. A call strace splits across threads counts once,
# on its first line (the resumed line names no descriptor).
for stack in intree rcm; do
	dev=/dev/infiniband/rcm
	[ "$stack" = intree ] && dev=/dev/infiniband/rdma_cm
	trace="strace -f -y -e trace=read,write,ioctl,poll,ppoll,epoll_wait,epoll_pwait,select,pselect6"
	port=$((port + 1))
	(serve "$stack" $trace -o /tmp/cmdev.srv cmtime -b "$ip" \
		-p $port -c 100 >/dev/null 2>&1) &
	spid=$!
	sleep 2
	(serve "$stack" $trace -o /tmp/cmdev.cli timeout 600 \
		cmtime -s "$ip" -p $port -c 100 >/dev/null 2>&1)
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

# Kernel memory per idle (created and bound) id.
for stack in intree rcm; do
	out=$( (serve "$stack" ./bench_ids 10000 "$ip") 2>&1)
	echo "# $stack: $out"
	echo "bench-ids $stack 10000 $(echo "$out" | sed -n 's/.*bytes_per_id //p')"
done
