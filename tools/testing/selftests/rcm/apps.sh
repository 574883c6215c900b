#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# apps: real application stacks, as Debian 12 ships them and unmodified,
# on rcm through LD_LIBRARY_PATH=/usr/lib/rcm (rcm's userlib), over
# Soft-RoCE:
#   perftest 4.5 with -R (rdma_cm connections): ib_send_bw, ib_read_lat
#     and ib_write_bw over RC, ib_send_bw over UD (-c UD);
#   libfabric 1.17's fi_pingpong on the verbs provider's MSG endpoints
#     (fi_connect and fi_accept are rdma_connect and rdma_accept, with
#     libfabric's retry_count of 15); its server listens on "localhost",
#     which /etc/hosts names as the rxe address for these cases and as
#     127.0.0.1 (the guest's own /etc/hosts) for the loopback cases: the
#     in-tree CM takes a loopback address as the wildcard, and resolves
#     one to the first active port;
#   UCX 1.13's io_demo: a client-server connection over UCX's sockaddr
#     path with no connection manager but rdmacm
#     (UCX_SOCKADDR_TLS_PRIORITY=rdmacm), moving and checking data (-q)
#     over rc_verbs; the server must hold the stack's CM device open;
#   cm_poll_loop (userlib/test/guest): the event loop of the big servers
#     on each side - epoll on the channel fd, one rdma_get_cm_event per
#     wake-up - RCM_APPS_LOOP_CONNS connections (64) made and torn down
#     at once, RCM_APPS_LOOP_ROUNDS times (3), no event ever stranded;
#   rdma-core 44's own rdmacm tests (tests/test_rdmacm.py, which Debian's
#     python3-pyverbs ships in /usr/share/doc/rdma-core/tests), run by
#     pyverbs_rdmacm.py.
# Each stack runs in-tree <-> in-tree first: the control. When it fails,
# the environment cannot run that stack, and its rcm cases SKIP with the
# reason; the control itself fails, unless the stack aborted itself
# (SIGABRT) on the in-tree stack alone, twice: then it SKIPs too (Debian
# 12's UCX 1.13 on 6.12's rxe). Then rcm <-> rcm with the in-tree rdma_ucm unloaded, and, with
# rdma_ucm back, an rcm server against an in-tree client and the
# reverse. The pyverbs tests fork both sides from one Python process
# after it loaded one librdmacm: they have no cross-stack cases.
# Every program runs under timeout (RCM_APPS_TIMEOUT, 60 s; a pyverbs
# run, which is a suite of 20 tests, RCM_APPS_PYVERBS_TIMEOUT, 120 s),
# cut to what is left of the script's budget (RCM_APPS_BUDGET, 360 s;
# the harness allows 420 s), so a hang fails its case and never the
# whole run.
# TAP output; exit 0 when all pass.

ip=${RCM_ADDR_RXE:-}
dev=rxe0
app_limit=${RCM_APPS_TIMEOUT:-60}
py_limit=${RCM_APPS_PYVERBS_TIMEOUT:-120}
budget=${RCM_APPS_BUDGET:-360}
loop_conns=${RCM_APPS_LOOP_CONNS:-64}
loop_rounds=${RCM_APPS_LOOP_ROUNDS:-3}
iters=100
start=$(date +%s)
ncase=0
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=stacks.sh
. "$here/stacks.sh"

# The stacks with four cases each (RCM_APPS_STACKS chooses some), and
# the pyverbs tests with two (RCM_APPS_PYVERBS=0 leaves them out).
paired=${RCM_APPS_STACKS:-ib_send_bw_rc ib_send_bw_ud ib_read_lat_rc
	ib_write_bw_rc fi_pingpong_msg fi_pingpong_loopback ucx_io_demo
	cm_poll_loop}
py=${RCM_APPS_PYVERBS:-1}
begin apps $(( $(echo "$paired" | wc -w) * 4 + py * 2 + 2 ))

# ---- the stacks: each runs one case, SERVER-LIB CLIENT-LIB, and leaves
# ---- $why empty when it passed

# SLIB CLIB: pair(), then wait for a server that ends by itself; $why
# says so when either end failed.
pair_wait() {
	pair "$1" "$2"
	wait $spid 2>/dev/null
	src=$?
	[ "$crc" = 0 ] && [ "$src" = 0 ] ||
		why="server exit $src, client exit $crc"
}

# PID: that process (its main thread) sleeps in a read() (rcm) or write()
# (rdma_cm's GET_EVENT command) on a CM device, as a server that listens
# and waits in rdma_get_cm_event() does.
cm_waiting() {
	{ read -r nr fd _ <"/proc/$1/syscall"; } 2>/dev/null || return 1
	[ "$nr" = 0 ] || [ "$nr" = 1 ] || return 1
	case $(readlink "/proc/$1/fd/$((fd))") in
	/dev/infiniband/rdma_cm | /dev/infiniband/rcm) return 0 ;;
	esac
	return 1
}

# PORT: some socket listens on that TCP port (IPv4 or IPv6).
tcp_listening() {
	grep -qs "^ *[0-9]*: [0-9A-F]*:$(printf %04X "$1") [0-9A-F:]* 0A " \
		/proc/net/tcp /proc/net/tcp6
}

# SLIB CLIB PROGRAM SIZE [ARGS...]: one perftest run of ITERS messages of
# SIZE bytes; both ends exit 0 and the client reports the run.
# perftest 4.5-0.17 connects twice: a control connection, whose client
# retries, then, after a handshake on it, the test's own, whose client
# retries only by calling rdma_resolve_addr() on the ids it has just
# destroyed (rdma_cm_client_connection(): a use after free that crashes
# inside librdmacm, either one). So the client must never come before
# the server listens: it starts once the server waits in
# rdma_get_cm_event(), and both run on one CPU, so that a stall of the
# server's virtual CPU alone (TCG on a busy host) cannot let the client
# win the race to the second listen.
perftest() {
	slib=$1 clib=$2 prog=$3 size=$4
	shift 4
	next_port
	server="taskset 1 $prog -R -F -n $iters -s $size -p $port $*"
	client="$server $ip"
	ready='cm_waiting $spid'
	pair_wait "$slib" "$clib"
	[ -n "$why" ] || grep -Eq "^ *$size +$iters " "$c" ||
		why="the client reports no run of $iters x $size bytes"
}
ib_send_bw_rc() { perftest "$1" "$2" ib_send_bw 1024; }
ib_send_bw_ud() { perftest "$1" "$2" ib_send_bw 512 -c UD; }
ib_read_lat_rc() { perftest "$1" "$2" ib_read_lat 64; }
ib_write_bw_rc() { perftest "$1" "$2" ib_write_bw 1024; }

# ADDR: the address the name "localhost" resolves to, for fi_pingpong's
# server (libfabric's verbs provider listens on "localhost" when given no
# address, as fi_pingpong's server is).
localhost_is() {
	printf '%s localhost\n' "$1" >/etc/hosts
}

# SLIB CLIB: ten 64-byte ping-pongs, checked (-c), both ends exit 0 and
# report them. The verbs provider's warnings name the librdmacm call
# that failed, with its errno: the first becomes part of the verdict.
# fi_pingpong's ends first meet on a TCP socket at PORT (-B, -P): the
# client starts once the server listens there, not before and retried.
fi_pingpong() {
	next_port
	pp="env FI_LOG_LEVEL=warn FI_LOG_PROV=verbs fi_pingpong -p verbs -e msg"
	server="$pp -I 10 -S 64 -c -B $port"
	client="$pp -I 10 -S 64 -c -P $port $ip"
	ready='tcp_listening $port'
	pair_wait "$1" "$2"
	[ -n "$why" ] || { grep -Eq '^64 +10 +=10 ' "$s" &&
			   grep -Eq '^64 +10 +=10 ' "$c"; } ||
		why="no 10 x 64-byte ping-pong reported"
	[ -z "$why" ] || why="$why$(grep -ho 'rdma_[a-z_]*: [^(]*([0-9]*)' \
		"$s" "$c" | head -n 1 | sed 's/^/: /')"
}
fi_pingpong_msg() {
	localhost_is "$ip"
	fi_pingpong "$1" "$2"
	localhost_is 127.0.0.1
}
fi_pingpong_loopback() { fi_pingpong "$1" "$2"; }

# PID: the CM device that process has open (rdma_cm or rcm).
cm_device() {
	for f in "/proc/$1/fd"/*; do
		case $(readlink "$f") in
		/dev/infiniband/rdma_cm) echo rdma_cm; return ;;
		/dev/infiniband/rcm) echo rcm; return ;;
		esac
	done
}

# SLIB CLIB: an io_demo client writes and checks ten messages of 64 to
# 1024 bytes; its server never ends by itself, so it must be alive, on
# the expected CM device, when the client is done.
ucx_io_demo() {
	next_port
	ucx="UCX_SOCKADDR_TLS_PRIORITY=rdmacm UCX_TLS=rc_verbs,ud_verbs"
	ucx="$ucx UCX_NET_DEVICES=$dev:1"
	server="env $ucx io_demo -p $port -q"
	client="env $ucx io_demo -p $port -q -i 10 -d 64:1024 $ip"
	# shellcheck disable=SC2016 # await() evals it
	ready='listening $spid $port'
	pair "$1" "$2"
	want=rdma_cm
	[ "$1" = rcm ] && want=rcm
	got=$(cm_device $spid)
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	if [ "$crc" != 0 ]; then
		why="client exit $crc"
	elif ! grep -q "Client exit with status 'OK'" "$c"; then
		why="the client did not end OK"
	elif [ "$got" != "$want" ]; then
		why="the server held ${got:-no CM device} open, not $want"
	fi
}

# SLIB CLIB: cm_poll_loop's server (-s) and clients (-c); the clients
# start once the server listens.
cm_poll_loop() {
	next_port
	loop="./cm_poll_loop -n $loop_conns -r $loop_rounds -p $port -t $t"
	server="$loop -s"
	client="$loop -c"
	ready='grep -qs "^# listening" "$s"'
	pair_wait "$1" "$2"
	[ -z "$why" ] || grep -h '^not ok' "$s" "$c" | sed 's/^/# /'
}

# SLIB (no CLIB: both sides in one process): rdma-core's rdmacm tests.
pyverbs() {
	ncase=$((ncase + 1))
	s=$tmp/s$ncase c=$s
	if ! [ -d "$tmp/py/tests" ]; then
		why="no /usr/share/doc/rdma-core/tests (python3-pyverbs) here"
		return
	fi
	PATH=/usr/sbin:/usr/bin:$PATH on "$1" timeout "$t" \
		python3 "$here/pyverbs_rdmacm.py" "$tmp/py" >"$s" 2>&1
	rc=$?
	grep '^# ran ' "$s" | tail -n 1
	[ $rc = 0 ] || why="exit $rc: $(grep '^# ran ' "$s" | tail -n 1)"
}

# ---- running them

# NAME STACK SERVER-LIB [CLIENT-LIB]
run_case() {
	name=$1 stack=$2
	limit=$app_limit
	[ "$stack" = pyverbs ] && limit=$py_limit
	if ! left; then
		result fail "$name" "out of time (RCM_APPS_BUDGET $budget s)"
		return 1
	fi
	why=
	t0=$(date +%s)
	"$stack" "$3" "${4:-}"
	echo "# $name: $(( $(date +%s) - t0 )) s"
	# A control (in-tree on both ends) proves the environment runs the
	# stack: it gets a second run, so that one failure of the in-tree
	# stack under load (fabtests' fi_pingpong client once exited 1 on
	# loopback after all its ping-pongs) does not pass for a broken
	# environment. rcm's cases get one run.
	if [ -n "$why" ] && [ "$3" = intree ] && [ "${4:-intree}" = intree ] &&
	   left; then
		echo "# $name: $why; the control runs again"
		why=
		"$stack" "$3" "${4:-}"
		echo "# $name, again: $(( $(date +%s) - t0 )) s"
	fi
	if [ -z "$why" ]; then
		result ok "$name"
		return 0
	fi
	# The stack aborted itself (SIGABRT) twice on the in-tree stack
	# alone: this kernel cannot run it at all (UCX 1.13 on 6.12's rxe,
	# whose QPs rxe refuses), which is no finding about a CM.
	case "$3${4:-intree}:$why" in
	intreeintree:*"exit 134"*)
		result skip "$name" "the stack aborts on this kernel's in-tree stack: $why"
		return 1
		;;
	esac
	result fail "$name" "$why (timeout ${t}s)"
	if [ "$s" = "$c" ]; then
		diag "$s"
	else
		echo "# server:"; diag "$s"
		echo "# client:"; diag "$c"
	fi
	return 1
}

# NAME STACK SERVER-LIB [CLIENT-LIB]: a case on rcm, or SKIP when the
# stack's control failed.
rcm_case() {
	case " $nocontrol " in
	*" $2 "*) result skip "$1" "the in-tree control failed" ;;
	*) run_case "$@" ;;
	esac
}

all_names() {
	for st in $paired; do
		echo "${st}_intree_intree ${st}_rcm_rcm_without_rdma_ucm"
		echo "${st}_rcm_server_intree_client ${st}_intree_server_rcm_client"
	done
	[ "$py" = 1 ] &&
		echo "pyverbs_rdmacm_intree pyverbs_rdmacm_rcm_without_rdma_ucm"
	echo "rdma_ucm_unused rdma_ucm_reloaded"
}

if [ -z "$ip" ]; then
	# shellcheck disable=SC2046
	results skip "no Soft-RoCE device" $(all_names)
	exit 4
fi
missing=
for p in ib_send_bw ib_read_lat ib_write_bw fi_pingpong io_demo python3 \
	taskset; do
	command -v $p >/dev/null || missing="$missing $p"
done
[ -x ./cm_poll_loop ] || missing="$missing cm_poll_loop"
if [ -n "$missing" ]; then
	# shellcheck disable=SC2046
	results fail "not in the guest:$missing" $(all_names)
	finish
	exit 1
fi

# The rdmacm tests as a package, unpacked.
mkdir -p "$tmp/py"
if [ -d /usr/share/doc/rdma-core/tests ]; then
	cp -r /usr/share/doc/rdma-core/tests "$tmp/py/"
	gunzip "$tmp"/py/tests/*.gz
fi
hosts=$(cat /etc/hosts 2>/dev/null)
localhost_is 127.0.0.1

# The controls: the in-tree stack alone.
nocontrol=
for st in $paired; do
	run_case "${st}_intree_intree" "$st" intree intree ||
		nocontrol="$nocontrol $st"
done
[ "$py" = 1 ] && { run_case pyverbs_rdmacm_intree pyverbs intree ||
	nocontrol="$nocontrol pyverbs"; }

# rcm alone: the in-tree user-space CM is not there to be used.
if ucm_unload; then
	for st in $paired; do
		rcm_case "${st}_rcm_rcm_without_rdma_ucm" "$st" rcm rcm
	done
	[ "$py" = 1 ] &&
		rcm_case pyverbs_rdmacm_rcm_without_rdma_ucm pyverbs rcm
	ucm_unused rdma_ucm_unused
else
	# shellcheck disable=SC2046
	results fail "rdma_ucm cannot be unloaded" $(all_names |
		grep -o '[^ ]*_rcm_rcm_without_rdma_ucm') rdma_ucm_unused
fi
ucm_reload rdma_ucm_reloaded

# rcm against the in-tree stack, both ways.
for st in $paired; do
	rcm_case "${st}_rcm_server_intree_client" "$st" rcm intree
	rcm_case "${st}_intree_server_rcm_client" "$st" intree rcm
done

printf '%s\n' "$hosts" >/etc/hosts
echo "# $(( $(date +%s) - start )) s"
finish
