#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# symbols: the built library exports exactly the implemented API, each
# function in librdmacm's version node, under soname librdmacm.so.1.
#
# Usage: symbols.sh <path to librdmacm.so.1.3.x> [distribution's
#        librdmacm.so.1, found in /usr/lib by default]
# Exit: 0 pass, 1 fail, 77 skip (no readelf).

lib=${1:-../src/librdmacm.so.1}
command -v readelf >/dev/null 2>&1 || { echo "no readelf"; exit 77; }
[ -f "$lib" ] || { echo "no library at $lib"; exit 1; }

fail=0
err() { echo "$*" >&2; fail=1; }

# The specification: symbol@@node for every function implemented so far.
# Nodes are rdma-core 44's (librdmacm.map), RCM_1.0 is rcm's own.
expected='
rdma_accept@@RDMACM_1.0
rdma_ack_cm_event@@RDMACM_1.0
rdma_bind_addr@@RDMACM_1.0
rdma_connect@@RDMACM_1.0
rdma_create_ep@@RDMACM_1.0
rdma_create_event_channel@@RDMACM_1.0
rdma_create_id@@RDMACM_1.0
rdma_create_qp@@RDMACM_1.0
rdma_create_qp_ex@@RDMACM_1.0
rdma_create_srq@@RDMACM_1.0
rdma_create_srq_ex@@RDMACM_1.0
rdma_destroy_ep@@RDMACM_1.0
rdma_destroy_event_channel@@RDMACM_1.0
rdma_destroy_id@@RDMACM_1.0
rdma_destroy_qp@@RDMACM_1.0
rdma_destroy_srq@@RDMACM_1.0
rdma_disconnect@@RDMACM_1.0
rdma_event_str@@RDMACM_1.0
rdma_free_devices@@RDMACM_1.0
rdma_freeaddrinfo@@RDMACM_1.0
rdma_get_cm_event@@RDMACM_1.0
rdma_get_devices@@RDMACM_1.0
rdma_get_dst_port@@RDMACM_1.0
rdma_get_request@@RDMACM_1.0
rdma_get_src_port@@RDMACM_1.0
rdma_getaddrinfo@@RDMACM_1.0
rdma_join_multicast@@RDMACM_1.0
rdma_leave_multicast@@RDMACM_1.0
rdma_listen@@RDMACM_1.0
rdma_migrate_id@@RDMACM_1.0
rdma_notify@@RDMACM_1.0
rdma_reject@@RDMACM_1.0
rdma_resolve_addr@@RDMACM_1.0
rdma_resolve_route@@RDMACM_1.0
rdma_set_option@@RDMACM_1.0
raccept@@RDMACM_1.0
rbind@@RDMACM_1.0
rclose@@RDMACM_1.0
rconnect@@RDMACM_1.0
rfcntl@@RDMACM_1.0
rgetpeername@@RDMACM_1.0
rgetsockname@@RDMACM_1.0
rgetsockopt@@RDMACM_1.0
riomap@@RDMACM_1.0
riounmap@@RDMACM_1.0
riowrite@@RDMACM_1.0
rlisten@@RDMACM_1.0
rpoll@@RDMACM_1.0
rread@@RDMACM_1.0
rreadv@@RDMACM_1.0
rrecv@@RDMACM_1.0
rrecvfrom@@RDMACM_1.0
rrecvmsg@@RDMACM_1.0
rselect@@RDMACM_1.0
rsend@@RDMACM_1.0
rsendmsg@@RDMACM_1.0
rsendto@@RDMACM_1.0
rsetsockopt@@RDMACM_1.0
rshutdown@@RDMACM_1.0
rsocket@@RDMACM_1.0
rwrite@@RDMACM_1.0
rwritev@@RDMACM_1.0
rdma_join_multicast_ex@@RDMACM_1.1
rdma_establish@@RDMACM_1.2
rdma_init_qp_attr@@RDMACM_1.2
rdma_get_remote_ece@@RDMACM_1.3
rdma_reject_ece@@RDMACM_1.3
rdma_set_local_ece@@RDMACM_1.3
rdma_reject_msg@@RCM_1.0
'
nodes='RCM_1.0 RDMACM_1.0 RDMACM_1.1 RDMACM_1.2 RDMACM_1.3'

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

LC_ALL=C readelf --dyn-syms -W "$lib" > "$tmp/dynsym" || { err "readelf failed"; exit 1; }

# Defined symbols: Ndx is not UND. Version-node names are ABS OBJECTs.
awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $8 != "" { print $4, $5, $6, $7, $8 }' \
	"$tmp/dynsym" > "$tmp/defined"
awk '$4 == "ABS" && $1 == "OBJECT" { print $5 }' "$tmp/defined" | sort \
	> "$tmp/got_nodes"
awk '$4 != "ABS" { print $5 }' "$tmp/defined" | sort > "$tmp/got_syms"
echo "$expected" | sed '/^$/d' | sort > "$tmp/want_syms"
echo "$nodes" | tr ' ' '\n' | sort > "$tmp/want_nodes"

if ! cmp -s "$tmp/got_syms" "$tmp/want_syms"; then
	err "exported functions differ (- expected, + exported):"
	diff -u "$tmp/want_syms" "$tmp/got_syms" | sed -n 's/^\([-+][^-+]\)/\1/p' >&2
fi
if ! cmp -s "$tmp/got_nodes" "$tmp/want_nodes"; then
	err "version nodes differ (- expected, + defined):"
	diff -u "$tmp/want_nodes" "$tmp/got_nodes" | sed -n 's/^\([-+][^-+]\)/\1/p' >&2
fi

# Every export is a global, default-visibility function.
awk '$4 != "ABS" && !($1 == "FUNC" && $2 == "GLOBAL" && $3 == "DEFAULT") { print }' \
	"$tmp/defined" > "$tmp/odd"
[ -s "$tmp/odd" ] && { err "exports that are not global functions:"; cat "$tmp/odd" >&2; }

LC_ALL=C readelf -d -W "$lib" > "$tmp/dynamic"
grep -q 'Library soname: \[librdmacm\.so\.1\]' "$tmp/dynamic" ||
	err "soname is not librdmacm.so.1"
grep -q 'Shared library: \[libibverbs\.so\.1\]' "$tmp/dynamic" ||
	err "not linked against libibverbs.so.1"
grep -q TEXTREL "$tmp/dynamic" && err "library has text relocations"

# Each RDMACM_1.x node inherits the previous one, as in librdmacm.map.
LC_ALL=C readelf -V -W "$lib" > "$tmp/versions"
awk '/Name: / { name = $NF } /Parent 1:/ { print name, $NF }' \
	"$tmp/versions" | sort > "$tmp/got_parents"
printf '%s\n' 'RCM_1.0 RDMACM_1.3' 'RDMACM_1.1 RDMACM_1.0' \
	'RDMACM_1.2 RDMACM_1.1' 'RDMACM_1.3 RDMACM_1.2' > "$tmp/want_parents"
if ! cmp -s "$tmp/got_parents" "$tmp/want_parents"; then
	err "version node inheritance differs:"
	diff -u "$tmp/want_parents" "$tmp/got_parents" >&2
fi

# The distribution's librdmacm.so.1, when installed: every function it
# exports, we export in the same node (and nothing else but RCM_1.0's).
syslib=${2:-$(ls /usr/lib/*-linux-gnu/librdmacm.so.1 /usr/lib64/librdmacm.so.1 \
	2>/dev/null | head -n 1)}
if [ -n "$syslib" ] && [ -f "$syslib" ]; then
	versioned() {	# LIB: name@node of each defined function
		LC_ALL=C readelf --dyn-syms -W "$1" |
			awk '$1 ~ /^[0-9]+:$/ && $4 == "FUNC" && $7 != "UND" {
				sub(/@+/, "@", $8); print $8 }' | sort -u
	}
	versioned "$syslib" > "$tmp/sys_versioned"
	versioned "$lib" | grep -v '@RCM_' > "$tmp/our_versioned"
	if ! cmp -s "$tmp/sys_versioned" "$tmp/our_versioned"; then
		err "functions differ from $syslib (- it, + ours):"
		diff -u "$tmp/sys_versioned" "$tmp/our_versioned" |
			sed -n 's/^\([-+][^-+]\)/\1/p' >&2
	fi
else
	echo "no distribution librdmacm.so.1 to compare with"
fi

[ $fail = 0 ] && echo "$(wc -l < "$tmp/got_syms") functions in $(wc -l < "$tmp/got_nodes") nodes"
exit $fail
