#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-churn.sh ROUNDS SECONDS SHAPES VARIANTS: the concurrency part of
# make bench, in the same boot as the rest. bench_churn (PROCS x THREADS
# client processes and threads living whole connection lives against a
# server process, see bench_churn.c) for SECONDS, for each shape of
# SHAPES ("4x3,8x4") and each variant of VARIANTS
# ("clean,faults,kill,remove"),
# ROUNDS rounds alternating the stacks (order.sh), so that the in-tree
# rounds against each other give the A/A. Prints:
#   bench-churn STACK VARIANT PROCS THREADS ROUND CALLS_PER_S CONNS_PER_S
#     ERRORS KILLS STALE CRASHES
#   bench-churn-call STACK VARIANT PROCS THREADS ROUND NAME COUNT P50_US
#     P99_US MAX_US
#   bench-churn-failed STACK VARIANT PROCS THREADS ROUND NAME COUNT (the
#     step at which lives that should have connected failed)
#   bench-churn-removal STACK VARIANT PROCS THREADS ROUND I DELETE_MS
#     RECOVER_MS LOST (remove: each device removal)
#   bench-churn-rate STACK VARIANT PROCS THREADS ROUND BEFORE AFTER
#     (remove: connections per second before and after the removals)
ip=$RCM_ADDR_RXE
silent=${RCM_ADDR_SILENT:-198.18.0.254}
rounds=${1:-2}
secs=${2:-20}
shapes=$(echo "${3:-4x3,8x4}" | tr , ' ')
variants=$(echo "${4:-clean,faults,kill,remove}" | tr , ' ')

# shellcheck source=../selftests/rcm/stacks.sh
. "$(dirname "$0")/stacks.sh"
# shellcheck source=order.sh
. "$(dirname "$0")/order.sh"

# bench_churn's server binds port 0 and tells its clients the port.
churn_run() {	# STACK VARIANT PROCS THREADS ROUND
	out=$( (serve "$1" timeout $((secs + 120)) ./bench_churn "$2" "$3" \
		"$4" "$secs" "$ip" 0 "$silent") 2>&1)
	bench_line churn "churn $1 $2 $3x$4 $5" || return
	echo "$line" | awk -v s="$1" -v r="$5" \
		'{ print "bench-churn", s, $2, $3, $4, r, $9, $13, $21, $23, $25, $27 }'
	echo "$out" | awk -v s="$1" -v v="$2" -v p="$3" -v t="$4" -v r="$5" '
		$1 == "churn-call" { print "bench-churn-call", s, v, p, t, r, $2, $3, $4, $5, $6 }
		$1 == "churn-failed" { print "bench-churn-failed", s, v, p, t, r, $2, $3 }
		$1 == "churn-removal" { print "bench-churn-removal", s, v, p, t, r, $2, $3, $4, $5 }
		$1 == "churn-lost" { print "# lost:", s, v, p "x" t, r, $2, "x" $3 }
		/^# remover/ { print }
		$1 == "churn-died" { print "# died:", s, v, p "x" t, r, $2, $3, $4 }
		$1 == "churn-rate" { print "bench-churn-rate", s, v, p, t, r, $2, $3 }
		/^# server:/ { print }
		$1 == "churn-detail" { print "# detail:", s, v, p "x" t, r, $2, $3, $4, "x" $5 }
		$1 == "churn-connect-failed" { print "# connect failed:", s, v, p "x" t, r, $2, "status", $3, "x" $4 }'
}

for shape in $shapes; do
	procs=${shape%x*} threads=${shape#*x}
	for variant in $variants; do
		r=1
		while [ $r -le "$rounds" ]; do
			for stack in $(order $r); do
				progress "churn_run $variant $shape $stack" \
					"round $r/$rounds"
				churn_run "$stack" "$variant" "$procs" "$threads" $r
			done
			r=$((r + 1))
		done
	done
done
