#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# prototypes: rcm's <rdma/rdma_cma.h> and <rdma/rdma_verbs.h> declare the
# same functions, with the same prototypes, and define the same RDMA_* and
# RAI_* macros as the distribution's (rdma-core 44). Uses gcc -aux-info,
# which prints every declaration in a normalised form.
#
# Usage: prototypes.sh <our include dir>
# Exit: 0 pass, 1 fail, 77 skip (no gcc or no system headers).

inc=${1:-../include}
cc=${CC:-gcc}
sys=/usr/include/rdma/rdma_cma.h

command -v "$cc" >/dev/null 2>&1 || { echo "no $cc"; exit 77; }
[ -f "$sys" ] || { echo "no $sys"; exit 77; }
[ -f "$inc/rdma/rdma_cma.h" ] || { echo "no $inc/rdma/rdma_cma.h"; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

printf '#include <rdma/rdma_cma.h>\n#include <rdma/rdma_verbs.h>\n' > "$tmp/t.c"

# $1: name, $2...: extra compiler options
declarations() {
	name=$1
	shift
	"$cc" "$@" -c -o /dev/null -aux-info "$tmp/$name.aux" "$tmp/t.c" ||
		return 1
	# Keep what the rdma headers declare; drop the location comment and
	# the K&R parameter comment of inline definitions.
	grep '/rdma/rdma_\(cma\|verbs\)\.h:' "$tmp/$name.aux" |
		sed -e 's|^/\*[^*]*\*/ *||' -e 's| */\*.*\*/$||' |
		sort > "$tmp/$name.protos"
	"$cc" "$@" -E -dM "$tmp/t.c" |
		grep -E '^#define (RDMA|RAI)_' | grep -v '^#define RDMA_UAPI_PTR' |
		sed 's/[[:space:]]\{1,\}/ /g' | sort > "$tmp/$name.macros"
}

declarations ours -I"$inc" || { echo "our headers do not compile"; exit 1; }
declarations sys || { echo "system headers do not compile"; exit 77; }

n=$(wc -l < "$tmp/sys.protos")
if [ "$n" -lt 50 ]; then
	echo "only $n prototypes found in the system headers" >&2
	fail=1
fi
if ! cmp -s "$tmp/sys.protos" "$tmp/ours.protos"; then
	echo "prototypes differ (- system, + ours):" >&2
	diff -u "$tmp/sys.protos" "$tmp/ours.protos" | grep '^[-+][^-+]' >&2
	fail=1
fi
if ! cmp -s "$tmp/sys.macros" "$tmp/ours.macros"; then
	echo "macros differ (- system, + ours):" >&2
	diff -u "$tmp/sys.macros" "$tmp/ours.macros" | grep '^[-+][^-+]' >&2
	fail=1
fi
[ $fail = 0 ] && echo "$n prototypes, $(wc -l < "$tmp/sys.macros") macros equal"
exit $fail
