#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# churn: the concurrency bench (bench_churn, make bench) as a functional
# test, issue 30's regression guard: 2 client processes of 2 threads
# each live whole connection lives (channel, id, address and route, QP,
# connect, disconnect, destroy) against a server process for
# RCM_CHURN_SECONDS (8), in bench_churn's "cm" variant: without the
# message over the QP, which Soft-RoCE under TCG loses about once in a
# thousand lives on either stack, so only the CM is judged. First on the
# in-tree stack (which proves the environment, where rdma_ucm is there)
# and then on rcm. A case passes when lives were lived, none failed and
# no process crashed;
# a call whose event or completion took longer than 30 s counts as a
# failure (bench_churn's bound, which only a hang reaches). Nothing is
# timed against a target: the rates are printed for the record only.
# TAP output; exit 0 when all pass.

ip=${RCM_ADDR_RXE:-}
silent=${RCM_ADDR_SILENT:-198.18.0.254}
secs=${RCM_CHURN_SECONDS:-8}

# shellcheck source=stacks.sh
. "$(dirname "$0")/stacks.sh"
begin churn 2

# NAME LIB
churn_case() {
	next_port
	if ! on "$2" timeout $((secs + 120)) ./bench_churn cm 2 2 "$secs" \
		"$ip" $port "$silent" >"$tmp/$1" 2>&1; then
		result fail "$1" "bench_churn failed"
		diag "$tmp/$1"
		return
	fi
	line=$(grep '^churn ' "$tmp/$1")
	echo "# $1: $line"
	# churn cm P T S calls N calls_per_s X conns N ... errors N kills N
	# stale N crashes N
	# shellcheck disable=SC2086 # split into the line's fields
	set -- "$1" $line
	if [ "${12}" -gt 0 ] && [ "${22}" = 0 ] && [ "${28}" = 0 ]; then
		result ok "$1"
	else
		result fail "$1" "${12} connections, ${22} failed lives, ${28} crashes"
		grep '^churn-failed\|^churn-detail\|^churn-died\|^# server' "$tmp/$1" |
			sed 's/^/#   /'
	fi
}

if [ -z "$ip" ]; then
	results skip "no RCM_ADDR_RXE" intree rcm
elif [ ! -e /dev/infiniband/rdma_cm ]; then
	result skip intree "no in-tree rdma_ucm"
	churn_case rcm rcm
else
	churn_case intree intree
	churn_case rcm rcm
fi
finish
