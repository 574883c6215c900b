#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# rsocket: Debian's rsocket programs (rdma-core 44's rstream, riostream
# and rcopy, linked against librdmacm.so.1) over Soft-RoCE, on rcm's
# userlib (LD_LIBRARY_PATH=/usr/lib/rcm) and on the in-tree stack:
#   in-tree <-> in-tree first, the control: what the programs do on the
#   stack rcm imitates;
#   rcm <-> rcm with the in-tree rdma_ucm unloaded, so nothing can reach
#   the in-tree CM: rstream's bandwidth (-S 16384 -C 32) and latency
#   (-S 64 -I 200) runs with blocking, non-blocking and poll-driven
#   calls, data verified (-T v), a keep-alive set (-k), riostream
#   (riomap/riowrite) blocking and non-blocking, and rcopy, whose copy
#   must equal its source; and, for one rstream run, rxe's counters:
#   the data went through the RDMA device, not a TCP fallback;
#   then, with rdma_ucm back, rcm against in-tree both ways, which only
#   works when both speak rsockets' wire protocol alike;
#   in each of those, rstream over plain sockets (-T s) under each
#   stack's preload library (rcm's librspreload.so, Debian's), with
#   rxe's counters showing that RDMA, not a TCP fallback, carried it;
#   and Debian's udpong (datagram rsockets): rcm <-> rcm non-blocking,
#   blocking and poll-driven, rcm against in-tree both ways, each with
#   every datagram counted by the server and by rxe. Debian's librdmacm
#   44 cannot make a datagram rsocket's QP on RoCE (its AH to itself has
#   no GRH, which the kernel refuses): udpong_intree_unaided shows it,
#   and the in-tree side of the other cases runs under intree_roce_ah.so,
#   which adds that GRH and nothing else.
# TAP output; exit 0 when all pass.

ip=${RCM_ADDR_RXE:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=stacks.sh
. "$(dirname "$0")/stacks.sh"
begin rsocket 34
t=180
# shellcheck disable=SC2016 # await() evals it
ready='listening $spid $port'
stream_ready=$ready
ncase=0

# NAME SERVER-LIB CLIENT-LIB PROGRAM FLAGS...: a server and a client of
# PROGRAM (rstream or riostream; $sprog and $cprog, when set, for the
# server's and the client's command) with FLAGS on both; both must exit
# 0 and the client print its result row; with $min_pkts, rxe must count
# that many packets each way.
stream_case() {
	name=$1 slib=$2 clib=$3 prog=$4
	shift 4
	next_port
	server="${sprog:-$prog} -b $ip -p $port $*"
	client="${cprog:-$prog} -s $ip -p $port $*"
	sent=$(rxe_counter sent_pkts) rcvd=$(rxe_counter rcvd_pkts)
	pair "$slib" "$clib"
	wait $spid
	src=$?
	sent=$(( $(rxe_counter sent_pkts) - sent ))
	rcvd=$(( $(rxe_counter rcvd_pkts) - rcvd ))
	pkts=ok
	if [ -n "${min_pkts:-}" ] &&
	   { [ "$sent" -lt "$min_pkts" ] || [ "$rcvd" -lt "$min_pkts" ]; }; then
		pkts="rxe counted $sent packets sent and $rcvd received, not $min_pkts: the data bypassed it"
	fi
	if [ $crc = 0 ] && [ $src = 0 ] && [ "$pkts" = ok ] &&
	   grep -q '^custom ' "$c"; then
		result ok "$name"
		tail -n 1 "$c" | sed 's/^/#   /'
		[ -n "${min_pkts:-}" ] && echo "#   rxe: $sent packets sent, $rcvd received"
	else
		[ "$pkts" = ok ] || echo "# $pkts"
		result fail "$name" "server exit $src, client exit $crc"
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
	fi
}

# NAME SERVER-LIB CLIENT-LIB: rcopy a 1 MiB file; the copy must match.
rcopy_case() {
	name=$1
	next_port
	from=$tmp/$name.src to=$tmp/$name.dst
	head -c 1048576 /dev/urandom >"$from"
	server="rcopy -p $port"
	client="rcopy $from $ip:$to -p $port"
	pair "$2" "$3"
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	if [ $crc = 0 ] && cmp -s "$from" "$to"; then
		result ok "$name"
	else
		result fail "$name" "client exit $crc, copy differs or missing"
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
	fi
	rm -f "$from" "$to"
}

# The Soft-RoCE device's counter NAME (packets), or 0.
rxe_counter() {
	for d in /sys/class/infiniband/*/ports/1/hw_counters; do
		[ -r "$d/$1" ] && { cat "$d/$1"; return; }
	done
	echo 0
}

# NAME SERVER-LIB CLIENT-LIB: rstream over plain sockets (-T s), each
# side under the preload library of its stack (rcm's librspreload.so on
# rcm, Debian's on in-tree): the TCP calls become rsockets, and rxe's
# counters must show the data went through the RDMA device, since a
# preload library falls back to the kernel's TCP without a word.
preload_case() {
	sprog="env LD_PRELOAD=$(preload_of "$2") rstream -T s"
	cprog="env LD_PRELOAD=$(preload_of "$3") rstream -T s"
	min_pkts=256
	stream_case "$1" "$2" "$3" rstream $bw -T v
	sprog= cprog= min_pkts=
}

# LIB: the preload library of that stack.
preload_of() {
	if [ "$1" = rcm ]; then
		echo /usr/lib/rcm/librspreload.so
	else
		echo /usr/lib/x86_64-linux-gnu/rsocket/librspreload.so
	fi
}

# A datagram case's count and size: every datagram fits in the server's
# receive queue (384 entries) even unread, so none may be lost; the size
# leaves room for the header in rxe's 1024-byte MTU (a 1500-byte veth).
dcount=300 dsize=1000

# PORT: a UDP socket is bound to PORT (a udpong server's start-up).
udp_bound() {
	awk -v p="$(printf '%04X' "$1")" \
		'FNR > 1 && split($2, a, ":") == 2 && a[2] == p { f = 1 }
		END { exit !f }' /proc/net/udp /proc/net/udp6
}

# LIB: what an in-tree udpong runs under (see intree_roce_ah.c), unless
# $unaided.
dgram_env() {
	if [ "$1" = intree ] && [ -z "${unaided:-}" ]; then
		echo "env LD_PRELOAD=$here/intree_roce_ah.so"
	else
		echo env
	fi
}

# NAME SERVER-LIB CLIENT-LIB FLAGS...: Debian's udpong, a server bound
# to $ip and a client that sends $dcount datagrams of $dsize bytes, FLAGS
# on both. The client must exit 0 and print the server's count of them,
# all of them; rxe must count as many packets sent and received: they
# went over UD, not only over the UDP socket of the address exchange.
# With $unaided (in-tree alone), the client's failure to make its QP
# on RoCE is a skip, with the error that shows it.
dgram_case() {
	name=$1 slib=$2 clib=$3
	shift 3
	next_port
	server="$(dgram_env "$slib") udpong -b $ip -p $port $*"
	client="$(dgram_env "$clib") udpong -s $ip -p $port -C $dcount -S $dsize $*"
	sent=$(rxe_counter sent_pkts) rcvd=$(rxe_counter rcvd_pkts)
	# shellcheck disable=SC2016 # await() evals it
	ready='udp_bound $port'
	pair "$slib" "$clib"
	ready=$stream_ready
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	sent=$(( $(rxe_counter sent_pkts) - sent ))
	rcvd=$(( $(rxe_counter rcvd_pkts) - rcvd ))
	if [ $crc = 0 ] && [ "$sent" -ge $dcount ] && [ "$rcvd" -ge $dcount ] &&
	   awk -v n=$dcount '$1 == "custom" && $3 == n { f = 1 } END { exit !f }' "$c"; then
		result ok "$name"
		tail -n 1 "$c" | sed 's/^/#   /'
		echo "#   rxe: $sent packets sent, $rcvd received"
	elif [ -n "${unaided:-}" ] &&
	     grep -q '^rconnect: No such file or directory' "$c"; then
		result skip "$name" "librdmacm 44 makes no datagram QP on RoCE: its AH to itself lacks a GRH (EINVAL), rconnect then fails with its clean-up's ENOENT"
	else
		result fail "$name" "client exit $crc; rxe: $sent packets sent, $rcvd received; the server must count $dcount"
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
	fi
}

cases_rcm="udpong_nonblock_rcm_rcm udpong_block_rcm_rcm udpong_async_rcm_rcm
	rstream_bw_rcm_rcm rstream_lat_rcm_rcm rstream_nonblock_rcm_rcm
	rstream_async_rcm_rcm rstream_keepalive_rcm_rcm rstream_rdma_counters
	riostream_rcm_rcm riostream_nonblock_rcm_rcm rcopy_rcm_rcm
	preload_rcm_rcm rdma_ucm_unused"
cases_cross="rdma_ucm_reloaded rstream_bw_rcm_server_intree_client
	rstream_bw_intree_server_rcm_client rstream_block_rcm_server_intree_client
	rstream_block_intree_server_rcm_client riostream_rcm_server_intree_client
	riostream_intree_server_rcm_client rcopy_rcm_server_intree_client
	rcopy_intree_server_rcm_client preload_rcm_server_intree_client
	preload_intree_server_rcm_client udpong_rcm_server_intree_client
	udpong_intree_server_rcm_client"
if [ -z "$ip" ]; then
	# shellcheck disable=SC2086 # word lists
	results skip "no Soft-RoCE device" rstream_intree_intree \
		riostream_intree_intree rcopy_intree_intree \
		rstream_lat_intree_intree preload_intree_intree \
		udpong_intree_unaided udpong_intree_intree $cases_rcm \
		$cases_cross
	finish
	exit 4
fi

bw="-S 16384 -C 32 -I 2"
lat="-S 64 -C 1 -I 200"

# The control: Debian's programs on Debian's stack.
stream_case rstream_intree_intree intree intree rstream $bw -T v
stream_case rstream_lat_intree_intree intree intree rstream $lat -T v
stream_case riostream_intree_intree intree intree riostream $bw -T v
rcopy_case rcopy_intree_intree intree intree
preload_case preload_intree_intree intree intree
unaided=1
dgram_case udpong_intree_unaided intree intree
unaided=
dgram_case udpong_intree_intree intree intree

# rcm alone.
if ucm_unload; then
	stream_case rstream_bw_rcm_rcm rcm rcm rstream $bw -T b -T v
	stream_case rstream_lat_rcm_rcm rcm rcm rstream $lat -T b -T v
	stream_case rstream_nonblock_rcm_rcm rcm rcm rstream $bw -T n -T v
	stream_case rstream_async_rcm_rcm rcm rcm rstream $bw -T a -T v
	stream_case rstream_keepalive_rcm_rcm rcm rcm rstream $lat -k 1 -T v
	# 2 x 32 x 16 KiB = 1 MiB each way: at rxe's MTU (4 KiB at most)
	# at least 256 packets sent and as many received, per direction.
	min_pkts=256
	stream_case rstream_rdma_counters rcm rcm rstream $bw -T v
	min_pkts=
	stream_case riostream_rcm_rcm rcm rcm riostream $bw -T b -T v
	stream_case riostream_nonblock_rcm_rcm rcm rcm riostream $bw -T v
	rcopy_case rcopy_rcm_rcm rcm rcm
	preload_case preload_rcm_rcm rcm rcm
	dgram_case udpong_nonblock_rcm_rcm rcm rcm -T n
	dgram_case udpong_block_rcm_rcm rcm rcm -T b
	dgram_case udpong_async_rcm_rcm rcm rcm -T a
	ucm_unused rdma_ucm_unused
else
	# shellcheck disable=SC2086 # a word list
	results fail "rdma_ucm cannot be unloaded" $cases_rcm
fi
ucm_reload rdma_ucm_reloaded

# rcm against the in-tree stack, both ways.
stream_case rstream_bw_rcm_server_intree_client rcm intree rstream $bw -T v
stream_case rstream_bw_intree_server_rcm_client intree rcm rstream $bw -T v
stream_case rstream_block_rcm_server_intree_client rcm intree rstream $bw -T b -T v
stream_case rstream_block_intree_server_rcm_client intree rcm rstream $bw -T b -T v
stream_case riostream_rcm_server_intree_client rcm intree riostream $bw -T v
stream_case riostream_intree_server_rcm_client intree rcm riostream $bw -T v
rcopy_case rcopy_rcm_server_intree_client rcm intree
rcopy_case rcopy_intree_server_rcm_client intree rcm
preload_case preload_rcm_server_intree_client rcm intree
preload_case preload_intree_server_rcm_client intree rcm
dgram_case udpong_rcm_server_intree_client rcm intree
dgram_case udpong_intree_server_rcm_client intree rcm

finish
