#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# Run userlib tests: runtests.sh <test>...
#
# A test is a program <name>.t or a script <name>.sh; SCRIPT_ARGS_<name>
# (environment) holds the arguments of a script. Each runs with a timeout
# of $TIMEOUT_<name> seconds if set, else $TIMEOUT (default 30), and
# exits 0 (pass), 77 (skip) or
# anything else (fail; 124 is a timeout). Prints PASS/FAIL/SKIP <name>
# per test and ends with "N passed, N failed, N skipped"; exits 1 if a
# test failed.

TIMEOUT=${TIMEOUT:-30}
passed=0
failed=0
skipped=0

for t in "$@"; do
	name=${t%.t}
	name=${name%.sh}
	log=$name.log
	eval "limit=\${TIMEOUT_$name:-$TIMEOUT}"
	case $t in
	*.sh)
		eval "args=\${SCRIPT_ARGS_$name}"
		# shellcheck disable=SC2086
		timeout "$limit" sh "./$t" $args > "$log" 2>&1
		;;
	*)
		timeout "$limit" "./$t" > "$log" 2>&1
		;;
	esac
	rc=$?
	case $rc in
	0)
		echo "PASS $name"
		passed=$((passed + 1))
		;;
	77)
		echo "SKIP $name: $(tail -n 1 "$log")"
		skipped=$((skipped + 1))
		;;
	*)
		[ $rc = 124 ] && echo "timed out after ${limit}s" >> "$log"
		echo "FAIL $name (exit $rc)"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
		;;
	esac
done

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
