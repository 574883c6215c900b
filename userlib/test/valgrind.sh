#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# valgrind: the test programs that drive the library through the syscall
# seam run clean under memcheck: no invalid access, no use of
# uninitialised memory, and nothing definitely lost at exit (in each
# forked test case too; an id destroyed without freeing what it owns,
# such as route.path_rec, is definitely lost). Libraries that keep
# memory to the end (libibverbs, libnl) leave only reachable or
# possibly lost blocks, which are not counted.
#
# Usage: valgrind.sh <test program>...
# Exit: 0 pass, 1 fail, 77 skip (no valgrind).

command -v valgrind >/dev/null 2>&1 || { echo "no valgrind"; exit 77; }
[ $# -gt 0 ] || { echo "no test programs given" >&2; exit 1; }

fail=0
for t in "$@"; do
	[ -x "./$t" ] || { echo "$t: not built" >&2; fail=1; continue; }
	if valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
		--error-exitcode=99 "./$t" > "$t.valgrind" 2>&1; then
		echo "$t: clean"
	else
		echo "$t: failed under valgrind:" >&2
		cat "$t.valgrind" >&2
		fail=1
	fi
	rm -f "$t.valgrind"
done
exit $fail
