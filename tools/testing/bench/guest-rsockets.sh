#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-rsockets.sh ROUNDS RUNS CHURN_SECONDS CHURN_PROCS CHURN_ACCEPTS:
# the rsockets part of make bench, in the same boot as the rest
# (Debian's 6.1 kernel, rxe). Stream rsockets on rcm's userlib against rdma-core's librdmacm
# on the in-tree CM, both ends of a run on the same stack, ROUNDS rounds
# alternating the stacks (order.sh), so that the in-tree rounds against
# each other give the A/A:
#   Debian's rstream for each run of RUNS ("bw:65536:400,bw:4096:2000,
#   lat:64:2000"): KIND:SIZE:COUNT, bw a bandwidth run of COUNT
#   transfers of SIZE bytes each way (-S SIZE -C COUNT), lat a latency
#   run of COUNT ping-pongs of SIZE bytes (-S SIZE -C 1 -I COUNT), with
#   RCM_BENCH_RSTREAM_OPTS ("-T b": blocking calls; rstream's default,
#   non-blocking calls in a busy loop, makes two spinning processes on
#   two vCPUs whose figures follow the host's scheduling), the server
#   pinned to vCPU 0 and the client to vCPU 1 (under TCG a wake-up
#   across vCPUs costs milliseconds and one on the same vCPU far less,
#   so unpinned runs fall in either mode);
#   then bench_rchurn: CHURN_PROCS client processes living short
#   rsocket connections (connect, 64 bytes each way, close) for
#   CHURN_SECONDS against one listener, once for each way of accepting
#   in CHURN_ACCEPTS ("block,poll": a thread blocked in raccept(), an
#   rpoll() loop); last, one bench_rchurn run per stack (a thread
#   blocked in raccept(), one client process) under strace, for where a
#   connection's system calls go: per device (the verbs device, the
#   CM's, other files) the calls and their time per connection.
# The servers bind port 0; the scripts read the port from the CM
# (order.sh's server_port). Prints:
#   bench-rstream STACK KIND SIZE COUNT ROUND GBPS USEC_PER_XFER SECONDS
#   bench-rchurn STACK ACCEPT PROCS BYTES ROUND CONNS_PER_S ERRORS LIFE_P50_US
#     LIFE_P99_US CONNECT_P50_US CONNECT_P99_US CONNS ECHO_P50_US
#     CLOSE_P50_US
#   bench-rsys STACK CLASS CALLS_PER_CONN US_PER_CONN (the strace run;
#     CLASS verbs, cm, other; strace's own cost inflates the times)
#   bench-error rsockets STACK WHAT ROUND (a run that failed)
ip=$RCM_ADDR_RXE
rounds=${1:-4}
runs=$(echo "${2:-bw:65536:400,bw:4096:2000,lat:64:2000}" | tr , ' ')
churn_secs=${3:-12}
churn_procs=${4:-2}
churn_accepts=$(echo "${5:-block,poll}" | tr , ' ')
rs_opts=${RCM_BENCH_RSTREAM_OPTS--T b}
pin0='' pin1=''
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin0="taskset -c 0" pin1="taskset -c 1"
fi

# shellcheck source=../selftests/rcm/stacks.sh
. "$(dirname "$0")/stacks.sh"
# shellcheck source=order.sh
. "$(dirname "$0")/order.sh"

# STACK KIND:SIZE:COUNT ROUND: one rstream run, server and client on
# STACK.
rstream_run() {
	stack=$1 round=$3
	kind=${2%%:*} rest=${2#*:}
	size=${rest%%:*} count=${rest#*:}
	if [ "$kind" = lat ]; then
		args="-S $size -C 1 -I $count"
	else
		args="-S $size -C $count -I 1"
	fi
	# shellcheck disable=SC2086 # the options
	(serve "$stack" timeout 600 $pin0 rstream -b "$ip" -p 0 $args $rs_opts \
		>/tmp/rs.srv 2>&1) &
	spid=$!
	if ! server_port $spid; then
		echo "bench-error rsockets $stack rstream-$kind-$size $round"
		tail -3 /tmp/rs.srv
		return
	fi
	# shellcheck disable=SC2086
	(serve "$stack" timeout 600 $pin1 rstream -s "$ip" -p "$port" $args $rs_opts \
		>/tmp/rs.cli 2>&1)
	crc=$?
	[ $crc = 0 ] || kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	# name bytes xfers iters total time Gb/sec usec/xfer
	line=$(grep '^custom ' /tmp/rs.cli)
	if [ $crc != 0 ] || [ -z "$line" ]; then
		echo "bench-error rsockets $stack rstream-$kind-$size $round"
		tail -3 /tmp/rs.cli /tmp/rs.srv
		return
	fi
	echo "$line" | awk -v s="$stack" -v k="$kind" -v z="$size" \
		-v c="$count" -v r="$round" \
		'{ sub(/s$/, "", $6); print "bench-rstream", s, k, z, c, r, $7, $8, $6 }'
}

# STACK ACCEPT ROUND: one bench_rchurn run.
rchurn_run() {
	out=$( (serve "$1" timeout $((churn_secs + 120)) ./bench_rchurn \
		"$ip" "$churn_procs" "$churn_secs" 64 "$2") 2>&1)
	bench_line rchurn "rsockets $1 rchurn-$2 $3" || return
	echo "$line" | awk -v s="$1" -v a="$2" -v r="$3" \
		'{ print "bench-rchurn", s, a, $2, $3, r, $8, $10, $12, $14, $16, $18, $6, $20, $22 }'
	echo "$out" | grep -v '^rchurn ' | tail -3 | sed 's/^/# /'
}

r=1
while [ $r -le "$rounds" ]; do
	for stack in $(order $r); do
		for run in $runs; do
			progress "rstream $run $stack round $r/$rounds"
			rstream_run "$stack" "$run" $r
		done
		for accept in $churn_accepts; do
			progress "rchurn $accept $stack round $r/$rounds"
			rchurn_run "$stack" "$accept" $r
		done
	done
	r=$((r + 1))
done

# Where a connection's system calls go, per stack: bench_rchurn under
# strace -f -y -T (each call's descriptor named, its time), summed per
# class of descriptor: the verbs device (uverbs), the CM's (rdma_cm or
# rcm), the rest.
for stack in intree rcm; do
	progress "rchurn strace $stack"
	out=$( (serve "$stack" timeout 300 strace -f -y -T -o /tmp/rsys \
		./bench_rchurn "$ip" 1 6 64 block) 2>&1)
	conns=$(echo "$out" | sed -n 's/^rchurn .* conns \([0-9]*\) .*/\1/p')
	if [ -z "$conns" ] || [ "$conns" = 0 ]; then
		echo "bench-error rsockets $stack rchurn-strace 1"
		echo "$out" | tail -3
		continue
	fi
	awk -v s="$stack" -v n="$conns" '
		/ = .*<[0-9.]+>$/ {
			c = "other"
			if ($0 ~ /<\/dev\/infiniband\/uverbs/) c = "verbs"
			else if ($0 ~ /<\/dev\/infiniband\/(rdma_cm|rcm)>/) c = "cm"
			d = $NF; gsub(/[<>]/, "", d)
			calls[c]++; us[c] += d * 1e6
		}
		END {
			for (c in calls)
				printf "bench-rsys %s %s %.1f %.0f\n", s, c,
					calls[c] / n, us[c] / n
		}' /tmp/rsys
	rm -f /tmp/rsys
done
