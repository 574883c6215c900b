# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# order.sh: sourced by the bench's guest scripts (guest-bench.sh,
# guest-attrib.sh, guest-churn.sh, guest-churn-attrib.sh,
# guest-rsockets.sh), after stacks.sh (await()).

# WHAT...: a "bench-progress WHAT" line on the console, where the host's
# bench.sh reads it at once (a test's own output reaches the log only
# when the test ends): which run of which part, for its progress lines.
progress() {
	echo "bench-progress $*" >/dev/console 2>/dev/null || :
}

# ROUND: the stacks in the order round ROUND runs them, in-tree first in
# odd rounds and rcm first in even ones, so that each goes first as
# often, and in-tree's odd rounds against its even ones are the A/A.
order() {
	if [ $(($1 % 2)) = 1 ]; then
		echo intree rcm
	else
		echo rcm intree
	fi
}

# PID: the port a CM id of process PID, or of a child of it (a program
# under strace), listens on, the in-tree CM's (the rdma tool's resource
# list) or rcm's (the processes' fdinfo); empty while none does. The
# bench's servers bind port 0, and this is how the scripts learn which
# port they got from programs that print none (cmtime, rstream).
listen_port() {
	pids=" $1 $(awk -v p="$1" '$4 == p { printf "%s ", $1 }' \
		/proc/[0-9]*/stat 2>/dev/null)"
	lp=$(rdma res show cm_id 2>/dev/null | awk -v pids="$pids" '
		/state LISTEN/ {
			pid = ""; addr = ""
			for (i = 1; i < NF; i++) {
				if ($i == "pid") pid = $(i + 1)
				if ($i == "src-addr") addr = $(i + 1)
			}
			if (pid != "" && index(pids, " " pid " ") && addr ~ /:/) {
				sub(/.*:/, "", addr); print addr; exit
			}
		}')
	if [ -z "$lp" ]; then
		for p in $pids; do
			lp=$(sed -n 's/.*state=LISTEN .*src=[^ ]*:\([0-9][0-9]*\) .*/\1/p' \
				"/proc/$p/fdinfo/"* 2>/dev/null | head -n 1)
			[ -n "$lp" ] && break
		done
	fi
	echo "$lp"
}

# PID: wait until process PID (a server started on port 0) listens, or
# ends, or 120 s pass (a bound only a hang reaches); its port in $port.
# False when it never listened.
server_port() {
	await "$1" "[ -n \"\$(listen_port $1)\" ]" 120
	port=$(listen_port "$1")
	[ -n "$port" ]
}

# PREFIX WHAT: the line of $out (a bench program's output) that begins
# with PREFIX, in $line; without one, a "bench-error WHAT" line and the
# end of $out, and false.
bench_line() {
	# shellcheck disable=SC2154 # set by the caller
	line=$(echo "$out" | grep "^$1 ")
	[ -n "$line" ] && return 0
	echo "bench-error $2"
	echo "$out" | tail -5
	return 1
}
