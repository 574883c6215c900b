#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# manpages: every function the version script exports has a section-3
# page in man/, titled after the file, with "librcm" as its source, a NAME
# line for the function, and no groff warnings.
#
# Usage: manpages.sh <man dir> <version script>
# Exit: 0 pass, 1 fail, 77 skip (no groff).

mandir=${1:-../man}
map=${2:-../src/librdmacm.map}
command -v groff >/dev/null 2>&1 || { echo "no groff"; exit 77; }

fail=0
n=0
funcs=$(sed -n 's/^[[:space:]]*\(rdma_[a-z_]*\);.*/\1/p' "$map")
[ -n "$funcs" ] || { echo "no functions in $map" >&2; exit 1; }

for f in $funcs; do
	page=$mandir/$f.3
	n=$((n + 1))
	if [ ! -f "$page" ]; then
		echo "$f: no $page" >&2
		fail=1
		continue
	fi
	title=$(echo "$f" | tr '[:lower:]' '[:upper:]')
	grep -q "^\.TH $title 3 \"[0-9-]*\" \"librcm\" " "$page" ||
		{ echo "$page: bad .TH line" >&2; fail=1; }
	sed -n '/^\.SH NAME/{n;p;}' "$page" | grep -q "^$f \\\\-" ||
		{ echo "$page: NAME does not start with $f" >&2; fail=1; }
	warn=$(groff -man -ww -z "$page" 2>&1)
	[ -z "$warn" ] || { echo "$page: $warn" >&2; fail=1; }
done
[ $fail = 0 ] && echo "$n pages checked"
exit $fail
