# SPDX-License-Identifier: GPL-2.0-only
#
# stacks.sh: what the shell tests that run unmodified librdmacm programs
# on rcm and on the in-tree stack share (rping.sh, rping_iwarp.sh,
# udaddy.sh). Sourced, not run; a script then calls begin first.

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
	*) echo "not ok $n $2"; failed=$((failed + 1))
	   [ -n "${3:-}" ] && echo "# $3" ;;
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
