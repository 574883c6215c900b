# SPDX-License-Identifier: GPL-2.0-only
#
# stacks.sh: what the shell tests that run unmodified librdmacm programs
# on rcm and on the in-tree stack share (rping.sh, rping_iwarp.sh,
# udaddy.sh, apps.sh). Sourced, not run; a script then calls begin first.

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

# PID COMMAND: wait until COMMAND (eval'd) succeeds, process PID ends, or
# $t seconds pass; every tenth of a second.
await() {
	w=0
	until eval "$2" || [ $w -ge $((t * 10)) ] ||
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

# SERVER-LIB CLIENT-LIB: one client-server case of the command lines
# $server and $client (each exec'd by sh -c: env sets variables),
# each under timeout $t (see left), the server on SERVER-LIB in the
# background and the client on CLIENT-LIB. If $ready is set, the client
# starts once that command succeeds (it may use $s and $spid), or the
# server ends, or $t passes.
# A client that fails (exits, not killed by a signal: a crash is never
# retried) while the server still runs is tried again, up to 5 times a
# second apart: one that came before the server listened was refused.
# A server whose client never succeeded is stopped. Leaves the
# outputs in $tmp/s$ncase and $tmp/c$ncase (names in $s and $c), the
# server's pid in $spid (gone when $crc is not 0), the client's exit
# status in $crc and the client's retries in $tries.
pair() {
	ncase=$((ncase + 1))
	s=$tmp/s$ncase c=$tmp/c$ncase
	(serve "$1" timeout "$t" sh -c "exec $server" >"$s" 2>&1) &
	spid=$!
	[ -n "${ready:-}" ] && await $spid "$ready"
	tries=0
	while :; do
		on "$2" timeout "$t" sh -c "exec $client" >"$c" 2>&1
		crc=$?
		[ "$crc" = 0 ] && break
		tries=$((tries + 1))
		if [ $tries -ge 5 ] || [ "$crc" -gt 128 ] ||
		   ! kill -0 $spid 2>/dev/null; then
			kill $spid 2>/dev/null
			break
		fi
		sleep 1
	done
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
