#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# manpages: the manual is complete and clean.
#  - every function the version script exports has a section-3 page in
#    man/, titled after the file, with "librcm" as its source and a NAME
#    line for the function;
#  - every inline function of the public headers (the rdma_verbs.h
#    helpers, rdma_get_local_addr, ...) has a page of its own name: one
#    whose NAME lists it, or a ".so man3/PAGE.3" link to such a page;
#  - every page (sections 1, 3, 7) is titled after its file and has no
#    groff warnings (-ww), and every ".so" link points to a page of man/;
#  - every cross-reference ".BR name (n)" names a page of man/ or one of
#    the system pages listed below; a reference to an rcm or librdmacm
#    name (rdma_*, rcm*, rsocket) must be a page of man/.
#
# Usage: manpages.sh <man dir> <version script> [<public header dir>]
# Exit: 0 pass, 1 fail, 77 skip (no groff).

mandir=${1:-../man}
map=${2:-../src/librdmacm.map}
incdir=${3:-$(dirname "$map")/../include/rdma}
command -v groff >/dev/null 2>&1 || { echo "no groff"; exit 77; }

# Pages of other packages that rcm's pages may refer to: the Linux
# man-pages, libibverbs-dev, rdmacm-utils, iproute2, kmod, pkg-config.
system_pages="accept(2) fcntl(2) getrlimit(2) open(2) poll(2) select(2)
assert(3) gai_strerror(3) getaddrinfo(3) epoll(7)
ibv_attach_mcast(3) ibv_close_device(3) ibv_create_ah(3)
ibv_create_comp_channel(3) ibv_create_cq(3) ibv_create_qp(3)
ibv_create_qp_ex(3) ibv_create_srq(3) ibv_create_srq_ex(3)
ibv_dereg_mr(3) ibv_detach_mcast(3) ibv_get_async_event(3) ibv_get_cq_event(3)
ibv_get_device_list(3) ibv_modify_qp(3) ibv_poll_cq(3) ibv_post_recv(3)
ibv_post_send(3) ibv_post_srq_recv(3) ibv_query_ece(3) ibv_reg_mr(3)
ibv_req_notify_cq(3) ibv_set_ece(3)
cmtime(1) rping(1) man(1) pkg-config(1)
ld.so(8) ldconfig(8) modprobe(8) rdma(8)"

fail=0
n=0
err() { echo "$*" >&2; fail=1; }

# The names a page's NAME line gives, one per line.
names_of() {
	sed -n '/^\.SH NAME/{n;p;q;}' "$1" | sed 's/ \\-.*//' | tr ',' '\n' |
		sed 's/^ *//; s/ *$//'
}

# The page that documents $1 in section 3: the file itself, or the
# target of its .so link. Empty if neither exists.
page_of() {
	p=$mandir/$1.3
	[ -f "$p" ] || return 0
	so=$(sed -n 's|^\.so man3/\(.*\)$|\1|p' "$p")
	[ -n "$so" ] && p=$mandir/$so
	[ -f "$p" ] && echo "$p"
}

funcs=$(sed -n 's/^[[:space:]]*\(rdma_[a-z_]*\);.*/\1/p' "$map")
[ -n "$funcs" ] || { echo "no functions in $map" >&2; exit 1; }

for f in $funcs; do
	page=$mandir/$f.3
	n=$((n + 1))
	if [ ! -f "$page" ]; then
		err "$f: no $page"
		continue
	fi
	title=$(echo "$f" | tr '[:lower:]' '[:upper:]')
	grep -q "^\.TH $title 3 \"[0-9-]*\" \"librcm\" " "$page" ||
		err "$page: bad .TH line"
	sed -n '/^\.SH NAME/{n;p;}' "$page" | grep -q "^$f \\\\-" ||
		err "$page: NAME does not start with $f"
done

# Inline functions of the public headers; rdma_seterrno is the helpers'
# own errno conversion, which librdmacm does not document either.
inline=$(awk '
	/^static inline/ { want = 2 }
	want > 0 && match($0, /rdma_[a-z_]+\(/) {
		print substr($0, RSTART, RLENGTH - 1); want = 0; next
	}
	want > 0 { want-- }' "$incdir"/*.h | grep -vx rdma_seterrno | sort -u)
[ -n "$inline" ] || err "no inline functions in $incdir"
for f in $inline; do
	n=$((n + 1))
	p=$(page_of "$f")
	if [ -z "$p" ]; then
		err "$f (inline, $incdir): no page $mandir/$f.3"
		continue
	fi
	names_of "$p" | grep -qx "$f" || err "$p: NAME does not list $f"
done

for page in "$mandir"/*.[137]; do
	base=${page##*/}
	sec=${base##*.}
	so=$(sed -n 's|^\.so \(.*\)$|\1|p' "$page")
	if [ -n "$so" ]; then
		# man(1) resolves ".so man3/x.3" from the top of the man tree.
		case $so in
		man$sec/*) [ -f "$mandir/${so#man$sec/}" ] ||
				err "$page: .so to missing $so" ;;
		*) err "$page: .so $so is not man$sec/PAGE" ;;
		esac
		[ "$(grep -cv '^\.\\"' "$page")" = 1 ] ||
			err "$page: a .so page holds the .so line only"
		continue
	fi
	title=$(echo "${base%.*}" | tr '[:lower:]' '[:upper:]')
	grep -q "^\.TH $title $sec " "$page" || err "$page: bad .TH line"
	grep -q "^\.\\\\\" SPDX-License-Identifier: " "$page" ||
		err "$page: no SPDX line"
	warn=$(groff -man -ww -z "$page" 2>&1)
	[ -z "$warn" ] || err "$page: $warn"
	refs=$(sed -n -e 's/^\.[BI]R \([A-Za-z0-9_.:-]*\) (\([1-8]\)).*/\1(\2)/p' \
		-e 's/^\.RB ( \([A-Za-z0-9_.:-]*\) (\([1-8]\)).*/\1(\2)/p' \
		"$page" | sort -u)
	for r in $refs; do
		name=${r%(*}
		s=${r#*(}
		s=${s%)}
		[ -f "$mandir/$name.$s" ] && continue
		case $name in
		rdma_*|rcm*|rsocket)
			err "$page: refers to $r, which rcm does not ship"
			continue ;;
		esac
		echo "$system_pages" | tr ' ' '\n' | grep -qxF "$r" ||
			err "$page: refers to $r, neither an rcm page nor a listed system page"
	done
done
[ $fail = 0 ] && echo "$n functions and $(ls "$mandir" | wc -l) pages checked"
exit $fail
