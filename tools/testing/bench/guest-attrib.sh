#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-attrib.sh ROUNDS COUNTS [SCALE_COUNTS [SCALE_ROUNDS [SCALE_WIRE]]]:
# where one connection's time goes (make bench, issue 16), on each
# stack, in the boot guest-bench.sh runs in. Separate runs from the
# timed ones, so that sampling and tracing cost nothing there:
#
# - CPU by component: one cmtime run (server and client) per stack and
#   round under "perf record -e cpu-clock -a -g" (a software clock: TCG
#   has no PMU). Each sample is put in one class by its call chain (see
#   classify below) and by the task it hit. Prints
#     bench-attr-run STACK COUNT ROUND HZ WALL_US BUSY_TICKS TOTAL_TICKS
#     bench-attr STACK COUNT ROUND SIDE CLASS SAMPLES
#     bench-attr-entry STACK COUNT ROUND ENTRY SAMPLES (the CM module's
#       samples by where they entered it: ENTRY is its outermost function
#       in the chain, ">" the next one in, as rcm_ioctl>rcm_cmd_connect)
# - The same for bench_scale (no QPs, at most RCM_BENCH_WINDOW (32)
#   connections in set-up at once, all kept established, as
#   guest-bench.sh runs it) at each of SCALE_COUNTS (default
#   none), SCALE_ROUNDS rounds (default 2) per stack, as
#     bench-sattr-run ..., bench-sattr ... and bench-sattr-entry ... (the
#     same fields)
#   and, with SCALE_WIRE 1 (default 0: they take about 230 s more at
#   the default counts), one traced bench_scale run per stack and round,
#     bench-swire ... and bench-swire-events ... (the bench-wire fields)
# - The handshake on the wire: one traced run per stack and round
#   (ib_cm's ib_cma tracepoints, which fire for both stacks; rcm's and
#   rdma_cma's own are counted), per connection the time from the
#   client's REQ to the server's REP (the client waits on the peer), from
#   the REP to the client's RTU (the server waits on the peer) and from
#   DREQ to DREP; medians in microseconds:
#     bench-wire STACK COUNT ROUND WHAT MEDIAN_US CONNECTIONS
#     bench-wire-events STACK COUNT ROUND EVENT COUNT
# - What the CM module(s) allocate: one cmtime run per stack of
#   RCM_ATTR_KMEM_COUNT (20) connections with the kmem:kmalloc and
#   kmem:kmem_cache_alloc tracepoints on, each allocation put to its
#   call site when that is in rcm, or in rdma_cm or rdma_ucm (the
#   allocations of ib_core, ib_cm, the MAD layer and rxe are the
#   floor's). The counts do not vary from run to run, nor per
#   connection with the count (but for the listener's and the file's),
#   so one short run per stack will do:
#     bench-kmem STACK COUNT SITE ALLOCATIONS BYTES (over the run)
ip=$RCM_ADDR_RXE
rounds=${1:-4}
scale_counts=$(echo "${3:-none}" | sed 's/^none$//' | tr , ' ')
scale_rounds=${4:-2}
scale_wire=${5:-0}
window=${RCM_BENCH_WINDOW:-32}
counts=$(echo "${2:-100,1000}" | tr , ' ')
hz=1000

# The distro kernel keeps perf to the caller's own tasks and hides
# kernel addresses from it by default; the bench samples all of them.
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict
tr=/sys/kernel/tracing
mount -t tracefs nodev $tr 2>/dev/null
# The server and the client under names of their own: a sample's task
# name says which side it hit (cmtime's threads share it).
ln -sf /usr/bin/cmtime /tmp/srv_cmtime
ln -sf /usr/bin/cmtime /tmp/cli_cmtime
# Module symbols and their modules, for classify (all modules are
# loaded by now).
grep '\[' /proc/kallsyms >/tmp/modsyms

# serve(), shared with the selftests that run programs on both stacks
# shellcheck source=../selftests/rcm/stacks.sh
. "$(dirname "$0")/stacks.sh"
# shellcheck source=order.sh
. "$(dirname "$0")/order.sh"

# Busybox's date has no nanoseconds: /proc/uptime's 10 ms will do for
# runs of seconds.
uptime_us() {
	awk '{ printf "%d\n", $1 * 1000000 }' /proc/uptime
}

# busy and total ticks of /proc/stat's cpu line (user .. steal).
ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9,
		$2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# The class of one sample, from its task and its call chain (leaf
# first). What runs under a verbs call (ib_uverbs in the kernel frames,
# or a leaf in libibverbs or the rxe provider) is verbs, whatever it
# calls: the QP modifies both stacks make the same way. Otherwise the innermost frame in an RDMA module
# names the class, so that ib_cm's, the MAD layer's and rxe's work
# counts as theirs even when the CM called it synchronously, and a lock
# or an allocation inside the CM counts as the CM's; of the CM's, what
# ran in the scheduler's wake-up or blocking paths (waking the task
# that reads an event, a reader sleeping until one comes) is a class of
# its own, "cmwake"; of the rest, a sample whose leaf is in the core
# kernel (an allocation, a lock, a copy, the xarray) is "cmkern": the
# kernel's services the module calls, beside its own code ("cm"). A
# chain in the core
# kernel alone is the system call's own plumbing (entry, fd lookup,
# copies, blocking) when it came from read, write, ioctl or poll - the
# CM's calls (verbs ioctls are verbs) - mappings (mmap and munmap of
# the verbs rings, shared) or the process's start-up, threads and exit;
# cmtime's sched_yield() loop, its way of waiting, is "spin". Kernel
# work outside a system call is shared: the scheduler, interrupts and
# softirqs and timers (under TCG a sample taken with interrupts off
# lands where they go back on, so those leaves stand for the critical
# sections before them), workqueues, the rest (the net stack below rxe
# included), and the idle loop.
# shellcheck disable=SC2016 # an awk program, not shell
classify='
FNR == NR { modof[$3] = $4; next }	# /tmp/modsyms: ADDR TYPE SYM [MODULE]
function flush(   side, cls, i, d, s, sys, verbs, mod, call, sc, wake, ent, inner, lim) {
	if (n == 0)
		return
	verbs = 0; sys = 0; mod = ""; call = ""; sc = ""; wake = 0
	for (i = 1; i <= n; i++) {
		d = dso[i]; s = sym[i]
		# An interrupt entry: what it interrupted is not what the
		# sample was doing.
		if (s ~ /^asm_(sysvec|common_interrupt|exc_)/)
			break
		# A verbs call: ib_uverbs in the kernel frames, or a leaf in
		# libibverbs or the provider. Not a caller frame in user
		# space: perf follows user frames by their frame pointers,
		# which libraries built without them leave stale, and a stale
		# one in libibverbs put the event reads of rcm under verbs.
		if (d == "[ib_uverbs]" ||
		    (i == 1 && d ~ /libibverbs|librxe-rdmav/))
			verbs = 1
		if (s ~ /^entry_SYSCALL|^do_syscall_64/ && !sys)
			sys = 1
		if (s ~ /sched_yield/)
			sys = 2
		# Which system call or verbs method, for the top list.
		if (s ~ /^__x64_sys_|^ib_uverbs_handler_|^ib_uverbs_[a-z_]+$/ ||
		    d ~ /libibverbs|librdmacm|librxe/)
			call = s
		if (s ~ /^__x64_sys_/ && sc == "")
			sc = s
		# Waking a task or blocking, inside the innermost module.
		if (mod == "" && s ~ /^(try_to_wake_up|__wake_up|schedule$|__schedule$|finish_task_switch|prepare_to_wait|finish_wait)/)
			wake = 1
		if (mod == "" && d ~ /^\[(rcm|rdma_cm|rdma_ucm|iw_cm|ib_cm|ib_core|rdma_rxe)\]$/) {
			mod = d
			if (d == "[ib_core]" && s !~ /mad|agent|smi|_sa_|^sa_/)
				mod = "[ib_core_other]"
		}
	}
	lim = i - 1	# the frames before an interrupt entry
	d = dso[1]; s = sym[1]
	if (verbs)
		cls = "verbs"
	else if (sys == 2)
		cls = "spin"
	else if (d ~ /librdmacm/)
		cls = "lib"
	else if (d ~ /libc\.so|ld-linux|\[vdso\]|libpthread/)
		cls = "libc"
	else if (d ~ /cmtime/)
		cls = "prog"
	else if (mod ~ /rcm|rdma_cm|rdma_ucm|iw_cm/)
		cls = wake ? "cmwake" : d == "[kernel.kallsyms]" ? "cmkern" : "cm"
	else if (mod == "[ib_cm]")
		cls = "ibcm"
	else if (mod == "[ib_core]")
		cls = "mad"
	else if (mod == "[ib_core_other]")
		cls = "ibcore"
	else if (mod == "[rdma_rxe]")
		cls = "rxe"
	else if (d == "[unknown]" || d !~ /^\[/)
		cls = "user"
	else if (sys == 1 && sc ~ /_(read|write|ioctl|p?poll|epoll_[a-z]*|p?select[0-9]*)$/)
		cls = "sys"
	else if (sys == 1 && sc ~ /_(mmap|munmap|brk|mprotect|madvise|mremap)$/)
		cls = "mem"
	else if (sys == 1)
		cls = "proc"
	else if (s ~ /idle|safe_halt|mwait|^cpu_startup_entry$|^do_idle$/)
		cls = "idle"
	else if (s ~ /^(finish_task_switch|__?schedule|load_balance|update_|pick_next|try_to_wake_up|ttwu|sched_|smpboot_thread_fn|newidle|__switch_to|enqueue_|dequeue_)/)
		cls = "ksched"
	else if (s ~ /softirq|tasklet|irq|interrupt|hrtimer|timer|rcu|exit_to_user_mode/)
		cls = "kirq"
	else if (s ~ /work/)
		cls = "kwork"
	else if (d == "[kernel.kallsyms]")
		cls = "kernel"
	else
		cls = "kmod"
	# A side is the task the sample hit when it ran for that task: in
	# user space or in a system call. Interrupt and softirq work that
	# merely hit a cmtime task is kernel work, as in kernel threads.
	if (!sys && d ~ /^\[/ && d != "[vdso]" && d != "[unknown]")
		side = "krn"
	else if (comm == "srv_cmtime")
		side = "srv"
	else if (comm == "cli_cmtime" || comm == "bench_scale")
		side = "cli"
	else if (comm == "perf")
		side = "perf"
	else
		side = "other"
	if (cls == "idle")
		side = "idle"
	count[side " " cls]++
	# Where a sample of the CM module entered it: its outermost frame
	# in a CM module, and the next one in (the command an ioctl or
	# write() runs, say): the time of the module by entry point.
	if (cls ~ /^cm(wake|kern)?$/) {
		ent = inner = ""
		for (i = 1; i <= lim; i++)
			if (dso[i] ~ /^\[(rcm|rdma_cm|rdma_ucm|iw_cm)\]$/) {
				inner = ent
				ent = sym[i]
			}
		if (ent != "")
			entry[ent (inner != "" ? ">" inner : "")]++
	}
	if (top)
		leaf[cls " " s (call != "" && call != s ? "<" call : "")]++
	n = 0
}
/^[^ \t]/ { flush(); comm = $1; next }
/^[ \t]*$/ { flush(); next }
{
	n++
	# "ADDR SYMBOL (DSO)": the DSO is the last field. perf finds no
	# module files in the guest and gives module symbols the kernel as
	# their DSO: /proc/kallsyms names their modules.
	dso[n] = $NF; gsub(/[()]/, "", dso[n])
	sub(/.*\//, "", dso[n])
	sym[n] = $2
	if (dso[n] == "[kernel.kallsyms]" && (sym[n] in modof))
		dso[n] = modof[sym[n]]
}
END {
	flush()
	for (k in count)
		print k, count[k]
	# The leaf symbols that weigh most, once per count: what a class
	# is made of.
	for (k in leaf)
		if (leaf[k] >= 5)
			print "top", k, leaf[k]
	for (k in entry)
		print "entry", k, entry[k]
}'

# TAG STACK COUNT ROUND COMMAND: COMMAND (a shell command line) under
# perf record on STACK; prints the bench-TAG-run and bench-TAG lines.
perf_sample() {
	tag=$1 stack=$2 count=$3 round=$4
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- "$5" $(ticks)
	b0=$2 t0=$3
	s0=$(uptime_us)
	if ! perf record -q -e cpu-clock -F $hz -a -g -o /tmp/perf.data -- \
		sh -c "$(if [ "$stack" = rcm ]; then echo LD_LIBRARY_PATH=/usr/lib/rcm; fi) $1" \
		>/tmp/acli.log 2>&1; then
		echo "bench-error $tag $stack $count $round"
		tail -5 /tmp/acli.log
		return 1
	fi
	s1=$(uptime_us)
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(ticks)
	echo "bench-$tag-run $stack $count $round $hz $((s1 - s0)) $(($1 - b0)) $(($2 - t0))"
	top=0
	[ "$round" -le 2 ] && top=1
	perf script -i /tmp/perf.data -F comm,ip,sym,dso 2>/dev/null |
		awk -v top=$top "$classify" /tmp/modsyms - | sort |
		while read -r side cls n; do
		if [ "$side" = top ]; then
			echo "# top $tag $stack $count $round $cls $n"
		elif [ "$side" = entry ]; then
			echo "bench-$tag-entry $stack $count $round $cls $n"
		else
			echo "bench-$tag $stack $count $round $side $cls $n"
		fi
	done
	rm -f /tmp/perf.data
}

# STACK COUNT: cmtime's server of COUNT connections in the background,
# on port 0, once it listens, its port in $port (the CM's, server_port);
# server_stop ends it (cmtime's server does not exit by itself).
server_start() {
	(serve "$1" /tmp/srv_cmtime -b "$ip" -p 0 -c "$2" \
		>/tmp/asrv.log 2>&1) &
	spid=$!
	server_port $spid
}

server_stop() {
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
}

# STACK COUNT ROUND: one cmtime run under perf record.
perf_run() {
	server_start "$1" "$2"
	perf_sample attr "$1" "$2" "$3" \
		"timeout 600 /tmp/cli_cmtime -s $ip -p $port -c $2" ||
		tail -5 /tmp/asrv.log
	server_stop
}

# COUNT: bench_scale's command line for COUNT connections, repeated up
# to 1000, on port 0 (it reads back the port it drew), as guest-bench.sh
# runs it.
scale_cmd() {
	echo "timeout 900 $PWD/bench_scale $1 $window $(((1000 + $1 - 1) / $1)) $ip 0"
}

# STACK COUNT ROUND: one bench_scale run under perf record.
scale_perf_run() {
	perf_sample sattr "$1" "$2" "$3" "$(scale_cmd "$2")"
}

# STACK COUNT ROUND [scale]: one traced cmtime run, or bench_scale run
# with "scale"; prints the bench-wire (bench-swire) lines.
wire_run() {
	stack=$1 count=$2 round=$3 tag=wire
	[ "${4:-}" = scale ] && tag=swire
	[ $tag = swire ] && cmd=$(scale_cmd "$count")
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	# Per vCPU: ib_cm's five MADs and rdma_cm's events of a connection,
	# some 150 bytes of trace each (the in-tree stack's lost some at
	# 10 000 connections with half of this).
	echo $((4096 + count)) >$tr/buffer_size_kb
	for e in ib_cma/icm_send_req ib_cma/icm_send_rep ib_cma/icm_send_rtu \
		ib_cma/icm_send_dreq ib_cma/icm_send_drep \
		ib_cma/icm_send_dup_req ib_cma/icm_send_dup_rep \
		ib_cma/icm_send_mra ib_cma/icm_send_rej \
		rcm/cm_send_req rcm/cm_send_rep rcm/cm_event_queued \
		rcm/cm_event_read rdma_cma/cm_send_req rdma_cma/cm_send_rep \
		rdma_cma/cm_event_handler rdma_cma/cm_event_done; do
		[ -e $tr/events/$e/enable ] && echo 1 >$tr/events/$e/enable
	done
	echo 1 >$tr/tracing_on
	if [ $tag = swire ]; then
		# shellcheck disable=SC2086 # a command line, split on purpose
		(serve "$stack" $cmd >/tmp/acli.log 2>&1) ||
			echo "bench-error $tag $stack $count $round"
	else
		server_start "$stack" "$count"
		(serve "$stack" timeout 600 /tmp/cli_cmtime -s "$ip" -p "$port" \
			-c "$count" >/tmp/acli.log 2>&1) ||
			echo "bench-error $tag $stack $count $round"
		server_stop
	fi
	echo 0 >$tr/tracing_on
	echo 0 >$tr/events/enable
	# "TASK-PID [CPU] FLAGS TIME: EVENT: local_id=L remote_id=R ...":
	# REQ carries the client's id as local_id, REP the server's as
	# local_id and the client's as remote_id, RTU the client's again.
	grep -v '^#' $tr/trace | awk '
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; ev = $(i + 1); break }
		sub(/:$/, "", t); sub(/:$/, "", ev)
		events[ev]++
		l = r = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^local_id=/) { l = $i; sub(/.*=/, "", l) }
			if ($i ~ /^remote_id=/) { r = $i; sub(/.*=/, "", r) }
		}
		t *= 1000000
		if (ev == "icm_send_req" && !(l in req)) req[l] = t
		if (ev == "icm_send_rep" && !(r in rep)) rep[r] = t
		if (ev == "icm_send_rtu" && !(l in rtu)) rtu[l] = t
		if (ev == "icm_send_dreq" && !(l in dreq)) { dreq[l] = t; dpeer[r] = l }
		if (ev == "icm_send_drep" && !(r in drep)) drep[r] = t
	}
	END {
		for (c in events)
			print "events", c, events[c]
		for (c in req) {
			if ((c in rep) && (c in rtu)) {
				print "req_rep", rep[c] - req[c]
				print "rep_rtu", rtu[c] - rep[c]
			}
		}
		for (c in dreq)
			if (c in drep)
				print "dreq_drep", drep[c] - dreq[c]
	}' >/tmp/wire
	awk '$1 == "events" { print "bench-'$tag'-events '"$stack $count $round"'", $2, $3 }' /tmp/wire
	for what in req_rep rep_rtu dreq_drep; do
		awk -v w=$what '$1 == w { print $2 }' /tmp/wire | sort -n >/tmp/wire.$what
		n=$(wc -l </tmp/wire.$what)
		[ "$n" -gt 0 ] || continue
		med=$(sed -n "$(((n + 1) / 2))p" /tmp/wire.$what)
		echo "bench-$tag $stack $count $round $what $med $n"
	done
}

# STACK COUNT: one cmtime run with the slab allocation tracepoints on.
kmem_run() {
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	# Some 80 allocations a connection, guest-wide, 200 bytes of trace
	# each.
	echo $((4096 + 32 * $2)) >$tr/buffer_size_kb
	echo 1 >$tr/events/kmem/kmalloc/enable
	echo 1 >$tr/events/kmem/kmem_cache_alloc/enable
	server_start "$1" "$2"
	echo 1 >$tr/tracing_on
	(serve "$1" timeout 600 /tmp/cli_cmtime -s "$ip" -p "$port" -c "$2" \
		>/tmp/acli.log 2>&1) || echo "bench-error kmem $1 $2"
	server_stop
	echo 0 >$tr/tracing_on
	echo 0 >$tr/events/enable
	grep -q 'overrun: [1-9]' $tr/per_cpu/cpu*/stats &&
		echo "bench-error kmem $1 $2 overrun"
	# "... kmalloc: call_site=rcm_id_alloc+0x2a/0x90 [rcm] ptr=...
	# bytes_req=N bytes_alloc=N ...".
	grep -E 'call_site=[^ ]+ \[(rcm|rdma_cm|rdma_ucm)\]' $tr/trace |
		sed -n 's/.*call_site=\([^+ ]*\)[^ ]* .*bytes_alloc=\([0-9]*\).*/\1 \2/p' |
		awk -v p="bench-kmem $1 $2" '{ n[$1]++; b[$1] += $2 }
			END { for (s in n) print p, s, n[s], b[s] }'
}

progress "kmem_run"
kmem_run intree "${RCM_ATTR_KMEM_COUNT:-20}"
# ROUNDS COUNTS FUNCTION: FUNCTION FIRST SECOND COUNT ROUND for each
# count of COUNTS and each round 1 to ROUNDS, the stack that goes first
# alternating (order.sh), as the timed rounds do.
alternate_rounds() {
	for alt_count in $2; do
		alt_round=1
		while [ $alt_round -le "$1" ]; do
			progress "$3 $alt_count round $alt_round/$1"
			# shellcheck disable=SC2046 # two words, split on purpose
			"$3" $(order $alt_round) "$alt_count" $alt_round
			alt_round=$((alt_round + 1))
		done
	done
}

# FIRST SECOND COUNT ROUND: perf's round of both stacks, then the trace's.
perf_round() {
	perf_run "$1" "$3" "$4"
	perf_run "$2" "$3" "$4"
	wire_run "$1" "$3" "$4"
	wire_run "$2" "$3" "$4"
}

# FIRST SECOND COUNT ROUND: bench_scale's round of both stacks, then,
# with SCALE_WIRE 1, the trace's.
scale_round() {
	scale_perf_run "$1" "$3" "$4"
	scale_perf_run "$2" "$3" "$4"
	if [ "$scale_wire" = 1 ]; then
		wire_run "$1" "$3" "$4" scale
		wire_run "$2" "$3" "$4" scale
	fi
}

alternate_rounds "$rounds" "$counts" perf_round
alternate_rounds "$scale_rounds" "$scale_counts" scale_round
