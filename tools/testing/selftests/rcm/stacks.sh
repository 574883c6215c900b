# SPDX-License-Identifier: GPL-2.0-only
#
# stacks.sh: what the shell tests that run unmodified librdmacm programs
# on rcm and on the in-tree stack share (rping.sh, rping_iwarp.sh,
# udaddy.sh, apps.sh, churn.sh, pair_rping.sh; the bench's guest
# scripts too): TAP, the two stacks, servers' ports and the wait for a
# server to listen. Sourced, not run; a script then calls begin first.

# NAME PLAN: print the TAP header for PLAN cases and make $tmp, the
# script's scratch directory (finish removes it).
begin() {
	tmp=${TMPDIR:-/tmp}/rcm-$1.$$
	mkdir -p "$tmp"
	n=0
	failed=0
	skipped=0
	echo "TAP version 13"
	echo "1..$2"
}

result() {	# VERDICT NAME [WHY]
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n $2" ;;
	skip) echo "ok $n $2 # SKIP $3"; skipped=$((skipped + 1)) ;;
	*) [ -n "${3:-}" ] && echo "# $3"
	   echo "not ok $n $2"; failed=$((failed + 1)) ;;
	esac
}

results() {	# VERDICT WHY NAME...: the same verdict for every NAME
	verdict=$1 why=$2
	shift 2
	for name; do
		result "$verdict" "$name" "$why"
	done
}

# LIB PROGRAM ARGS...: run PROGRAM on rcm's userlib or on the in-tree one.
on() {
	lib=$1
	shift
	if [ "$lib" = rcm ]; then
		LD_LIBRARY_PATH=/usr/lib/rcm "$@"
	else
		"$@"
	fi
}

# LIB PROGRAM ARGS...: on() for a background job "( serve ... ) &": the
# job becomes PROGRAM itself, so that $! names it and killing it kills
# the program, not a shell that waits for it.
serve() {
	lib=$1
	shift
	if [ "$lib" = rcm ]; then
		LD_LIBRARY_PATH=/usr/lib/rcm exec "$@"
	fi
	exec "$@"
}

# Show the tail of a log as TAP diagnostics.
diag() {
	tail -n 8 "$1" 2>/dev/null | sed 's/^/#   /'
}

# Set $t to the timeout of the next program: $limit, or what is left of
# the script's $budget seconds since $start (both set by the script).
# Fails when less than 5 s are left.
left() {
	t=$((budget - ($(date +%s) - start)))
	[ $t -gt "$limit" ] && t=$limit
	[ $t -ge 5 ]
}

# PID COMMAND [SECONDS]: wait until COMMAND (eval'd) succeeds, process
# PID ends, or SECONDS (default $t) pass. A shell cannot block on another
# process's state, so this polls, every tenth of a second: the one sleep
# of these waits, and none of them ends by it.
await() {
	w=0
	until eval "$2" || [ $w -ge $((${3:-$t} * 10)) ] ||
	      ! kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		w=$((w + 1))
	done
}

# PORT: a CM id listens on that port, the in-tree CM's (the rdma tool's
# resource list) or rcm's (its files' fdinfo, of any process).
cm_listening() {
	rdma res show cm_id 2>/dev/null |
		grep -q "state LISTEN .*src-addr [^ ]*:$1 " && return 0
	grep -qs "state=LISTEN .*src=[^ ]*:$1 " /proc/[0-9]*/fdinfo/*
}

# PID PORT: wait until a CM id listens on PORT (a server's start-up,
# seen rather than slept through), or process PID (the server) ends, or
# 120 s pass, a bound only a hang reaches; true when it listens.
listening() {
	await "$1" "cm_listening $2" 120
	cm_listening "$2"
}

# Set $port to the next port of a server. rping, cmtime, perftest,
# fi_pingpong and io_demo take the server's port on the command line and
# print none, so a script picks it: free_port, beside the script, prints
# one that bind(0) gave an rcm id and that no TCP socket holds. The two
# guests of a pair (RCM_PEER_ADDR) must agree on it without a channel:
# there, and where free_port is missing, it counts up from 20200, below
# the ephemeral range that bind(0) draws from, where nothing else in the
# guest binds (the guest runs one test program at a time).
next_port() {
	if [ -z "${RCM_PEER_ADDR:-}" ] &&
	   port=$("$(dirname "$0")/free_port") && [ -n "$port" ]; then
		return 0
	fi
	pair_port=$((${pair_port:-20200} + 1))
	port=$pair_port
}

# SERVER-LIB CLIENT-LIB: one client-server case of the command lines
# $server and $client (each exec'd by sh -c: env sets variables),
# each under timeout $t (see left), the server on SERVER-LIB in the
# background and the client on CLIENT-LIB. The client starts once
# $ready succeeds (a command that may use $s and $spid: the server is
# ready for it, e.g. listening $spid $port), or the server ends, or $t
# passes: it never comes before the server listens, so it runs once.
# Leaves the outputs in $tmp/s$ncase and $tmp/c$ncase (names in $s and
# $c), the server's pid in $spid (stopped when the client failed) and
# the client's exit status in $crc.
pair() {
	ncase=$((ncase + 1))
	s=$tmp/s$ncase c=$tmp/c$ncase
	(serve "$1" timeout "$t" sh -c "exec $server" >"$s" 2>&1) &
	spid=$!
	# shellcheck disable=SC2154 # set by the caller
	await $spid "$ready"
	on "$2" timeout "$t" sh -c "exec $client" >"$c" 2>&1
	crc=$?
	[ "$crc" = 0 ] || kill $spid 2>/dev/null
}

# Unload the in-tree user-space CM (or find it absent): true when
# nothing can reach the in-tree CM any more, so rcm runs alone.
ucm_unload() {
	rmmod rdma_ucm 2>/dev/null || ! [ -e /dev/infiniband/rdma_cm ]
}

# NAME: rdma_cm's device node stayed away while rcm ran alone.
ucm_unused() {
	if [ -e /dev/infiniband/rdma_cm ]; then
		result fail "$1" "/dev/infiniband/rdma_cm came back"
	else
		result ok "$1"
	fi
}

# NAME: rdma_ucm loads again, for the cases against the in-tree stack.
ucm_reload() {
	if modprobe rdma_ucm && [ -e /dev/infiniband/rdma_cm ]; then
		result ok "$1"
	else
		result fail "$1" "modprobe rdma_ucm failed"
	fi
}

# The TAP totals; true when nothing failed.
finish() {
	rm -rf "$tmp"
	echo "# Totals: pass:$((n - failed - skipped)) fail:$failed skip:$skipped"
	[ "$failed" = 0 ]
}
