#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# guest-churn-attrib.sh ROUNDS SECONDS SHAPES [VARIANT]: where the time
# of the concurrency bench goes (make bench's churnattr part, issue 30),
# in runs of its own: bench_churn VARIANT (default clean) at each shape
# of SHAPES ("4x3,8x4") for SECONDS, once per stack and round, ROUNDS
# rounds alternating which stack goes first, under
#   perf record -a -g -e lock:contention_begin -e lock:contention_end
#                     -e sched:sched_switch -e sched:sched_wakeup
# with RCM_CHURN_MARK=1, so that every bench thread's name says its role
# and the call it is in ("c:resolve_addr", "s:accept": bench_churn.c).
# The lock tracepoints fire on every contended acquisition of a
# spinlock, rwlock, mutex, rwsem, semaphore or percpu rwsem (their slow
# paths) without lockdep; lock_stat (CONFIG_LOCK_STAT) is in neither
# Debian's kernel nor the test kernel. From perf script:
#
# - Contended locks: each task's contention_begin paired with its next
#   contention_end (a mutex's optimistic spin and its sleep are one
#   wait), summed by the waiter's role, the lock's type, its caller (the
#   first frame of the call chain out of the lock's own functions, with
#   the innermost frame of an RDMA module further out when the caller
#   is not in one) and the lock's name when it is a static one
#   (/proc/kallsyms), else "-":
#     bench-cattr-lock STACK VARIANT SHAPE ROUND ROLE TYPE CALLER LOCK
#       COUNT WAIT_US MAX_US
# - Off-CPU time of the bench's threads: each switch-out (sched_switch,
#   the chain is the task's) paired with the task's next switch-in,
#   split at its wake-up (sched_wakeup) into the sleep and the wait for
#   a CPU after it (RUNQ); a task switched out runnable (preempted) only
#   waits for a CPU. Put by where it blocked: REASON, the wait primitive
#   of the chain (mutex, rwsem, completion, flush_work, rcu, futex (a
#   user-space lock or condition variable of the library), poll, sleep,
#   wait (a wait queue in SITE itself), preempt), SITE the first frame
#   out of it (a "user:" leaf for futex, poll and sleep: the libc
#   function; the user frames beyond it are not reliable, the libraries
#   have no frame pointers), SYSCALL the system call it was in ("-":
#   none):
#     bench-cattr-off STACK VARIANT SHAPE ROUND ROLE CALL STATE REASON
#       SITE SYSCALL COUNT OFF_US SLEEP_US RUNQ_US MAX_US FIRST_US
#   (FIRST_US: the part in a client thread's first life, which sets up
#   the process's device state on either library)
#     bench-cattr-on STACK VARIANT SHAPE ROUND ROLE CALL ON_US SWITCHES
#   and what woke them: the waker's class (a bench thread's name, the
#   kernel thread's name without its number, or softirq/irq when the
#   wake-up ran there) with the outermost and innermost RDMA modules of
#   its chain ("kworker:ib_cm>rdma_ucm"):
#     bench-cattr-wake STACK VARIANT SHAPE ROUND ROLE CALL REASON WAKER
#       COUNT SLEEP_US
# - The run itself, and the bench's own figures under tracing:
#     bench-cattr-run STACK VARIANT SHAPE ROUND CALLS_PER_S CONNS_PER_S
#       SAMPLES LOST_CHUNKS
#     bench-cattr-call STACK VARIANT SHAPE ROUND NAME COUNT P50 P99 MAX
# ROLE is client or server (the bench's threads, by their names), or
# for the locks the class of any other task (kworker, ksoftirqd, perf,
# main: bench_churn's supervising process, ...).
ip=$RCM_ADDR_RXE
silent=${RCM_ADDR_SILENT:-198.18.0.254}
rounds=${1:-2}
secs=${2:-12}
shapes=$(echo "${3:-4x3}" | tr , ' ')
variant=${4:-clean}

echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
# Deep enough for a wake-up in a softirq under rxe under an interrupt.
echo 48 >/proc/sys/kernel/perf_event_max_stack
# shellcheck source=order.sh
. "$(dirname "$0")/order.sh"

# Module symbols with their modules; static objects of the kernel and
# the modules (a lock's name, when its address is one).
grep '\[' /proc/kallsyms >/tmp/modsyms
awk '$2 ~ /^[bBdD]$/ { print $1, $3 }' /proc/kallsyms >/tmp/datasyms

# shellcheck disable=SC2016 # an awk program, not shell
aggregate='
BEGIN {
	nlife = split("create_event_ create_id resolve_addr resolve_route create_qp reg_msgs connect message disconnect destroy_qp destroy_id destroy_event", life, " ")
}
FNR == 1 { file++ }
file == 1 { modof[$3] = $4; next }	# ADDR TYPE SYM [MODULE]
file == 2 { lockname[$1] = $2; next }	# ADDR SYM
function role(c) {
	if (c ~ /^c:/) return "client"
	if (c ~ /^s:/) return "server"
	if (c == "bench_churn") return "main"
	sub(/[\/:-].*/, "", c)
	sub(/[0-9]+$/, "", c)
	return c == "swapper" ? "idle" : c
}
function rank(c,   i) {	# of a client call in a life
	for (i = 1; i <= nlife; i++)
		if (substr(c, 3) == life[i])
			return i
	return 0
}
function call(c) {
	return c ~ /^[cs]:/ ? substr(c, 3) : "-"
}
function tag(i) {	# SYM[MODULE] of frame i
	return sym[i] (dso[i] ~ /^\[(rcm|rdma_cm|rdma_ucm|iw_cm|ib_cm|ib_core|ib_uverbs|rdma_rxe)\]$/ ? dso[i] : "")
}
function rdma(i) {
	return dso[i] ~ /^\[(rcm|rdma_cm|rdma_ucm|iw_cm|ib_cm|ib_core|ib_uverbs|rdma_rxe)\]$/
}
function user(i) {
	return dso[i] !~ /^\[/ || dso[i] == "[unknown]" || dso[i] == "[vdso]"
}
function lockfn(s) {
	return s ~ /^(_raw_|__raw_|do_raw_|queued_|native_queued|__pv_queued|pv_queued|__mutex_lock|mutex_lock|__mutex_|ww_mutex|rwsem_down|down_read|down_write|__down|down$|down_interruptible|down_killable|down_timeout|percpu_down|__percpu_down|percpu_rwsem|rt_mutex|rtlock)/
}
function prim(s) {
	if (s ~ /^(__mutex_lock|mutex_lock|__mutex_|ww_mutex)/) return "mutex"
	if (s ~ /^(rwsem_down|down_read|down_write|__down_read|__down_write)/) return "rwsem"
	if (s ~ /^(percpu_down|__percpu_down|percpu_rwsem)/) return "percpu_rwsem"
	if (s ~ /^(__down|down$|down_interruptible|down_killable|down_timeout)/) return "semaphore"
	if (s ~ /wait_for_completion|wait_for_common/) return "completion"
	if (s ~ /^(__flush_work|flush_work|__flush_workqueue|flush_workqueue|drain_workqueue|flush_delayed_work|__cancel_work_timer|cancel_work_sync|cancel_delayed_work_sync)/) return "flush_work"
	if (s ~ /^(synchronize_rcu|synchronize_srcu|__synchronize_srcu|wait_rcu_gp|__wait_rcu_gp|rcu_barrier|synchronize_rcu_expedited)/) return "rcu"
	if (s ~ /^(futex_|do_futex|__x64_sys_futex)/) return "futex"
	if (s ~ /^(poll_schedule_timeout|do_poll|do_sys_poll|__x64_sys_p?poll|do_select|core_sys_select|do_pselect|__x64_sys_p?select|ep_poll|do_epoll_|__x64_sys_epoll_)/) return "poll"
	if (s ~ /^(do_nanosleep|hrtimer_nanosleep|common_nsleep|__x64_sys_nanosleep|__x64_sys_clock_nanosleep|msleep|usleep_range)/) return "sleep"
	if (s ~ /^(do_wait|kernel_wait4|__do_sys_wait4|__x64_sys_wait4|__x64_sys_waitid)/) return "child"
	if (s ~ /^(io_schedule|folio_wait|__folio_lock|wait_on_page)/) return "io"
	if (s ~ /^(do_exit|do_group_exit)/) return "exit"
	return ""
}
function skip(s) {
	return s ~ /^(__schedule|schedule|schedule_timeout|schedule_hrtimeout|schedule_hrtimeout_range|schedule_hrtimeout_range_clock|schedule_preempt_disabled|__cond_resched|preempt_schedule|preempt_schedule_common|do_syscall_64|entry_SYSCALL_64|entry_SYSCALL_64_after_hwframe|prepare_to_wait|prepare_to_wait_event|finish_wait|wait_woken|__wait_event)$/
}
# What blocked the task of this sched_switch: "REASON SITE SYSCALL".
function blocked(preempted,   i, s, p, r, site, sc, leaf, inner) {
	r = ""; site = ""; sc = "-"; leaf = ""; inner = ""
	for (i = 1; i <= n; i++) {
		s = sym[i]
		if (user(i)) {
			if (leaf == "") leaf = s
			break
		}
		if (s ~ /^__x64_sys_/ && sc == "-") sc = substr(s, 11)
		if (rdma(i) && inner == "") inner = tag(i)
		if (site != "" || skip(s))
			continue
		p = prim(s)
		if (p != "") {
			if (r == "") r = p
			continue
		}
		if (!preempted)
			site = tag(i)
	}
	if (preempted)
		return "preempt " (sc != "-" ? "kernel" : "user:" (leaf == "" ? "-" : leaf)) " " sc
	if (r == "") r = "wait"
	if (r ~ /^(futex|poll|sleep)$/ || site == "")
		site = "user:" (leaf == "" ? "-" : leaf)
	else if (site !~ /\]$/ && inner != "")
		site = site "<" inner
	return r " " site " " sc
}
# Who wakes: "CLASS:OUTER>INNER" (RDMA modules of the chain).
function waker(c,   i, cls, outer, inner, m) {
	cls = c ~ /^[cs]:/ ? c : role(c)
	outer = inner = ""
	for (i = 1; i <= n; i++) {
		if (sym[i] ~ /^(__do_softirq|do_softirq|run_ksoftirqd|net_rx_action|tasklet_action|__irq_exit_rcu|irq_exit_rcu)/)
			cls = "softirq"
		else if (sym[i] ~ /^(asm_sysvec|sysvec_|asm_common_interrupt|common_interrupt|__sysvec_|hrtimer_interrupt)/ && cls != "softirq")
			cls = "irq"
		if (rdma(i)) {
			m = dso[i]; gsub(/[\[\]]/, "", m)
			if (inner == "") inner = m
			outer = m
		}
	}
	return cls (outer == "" ? "" : ":" outer (inner != outer ? ">" inner : ""))
}
function locktype(f) {
	if (f ~ /MUTEX/) return "mutex"
	if (f ~ /PERCPU/) return f ~ /WRITE/ ? "percpu_rwsem:w" : "percpu_rwsem:r"
	if (f ~ /RT/) return "rt"
	if (f ~ /SPIN/ && f ~ /READ/) return "rwlock:r"
	if (f ~ /SPIN/ && f ~ /WRITE/) return "rwlock:w"
	if (f ~ /SPIN/) return "spinlock"
	if (f ~ /READ/) return "rwsem:r"
	if (f ~ /WRITE/) return "rwsem:w"
	return "semaphore"
}
function lockcaller(   i, c) {
	for (i = 1; i <= n && !user(i); i++)
		if (!lockfn(sym[i]))
			break
	if (i > n || user(i))
		return "-"
	c = tag(i)
	if (!rdma(i))
		for (i++; i <= n && !user(i); i++)
			if (rdma(i))
				return c "<" tag(i)
	return c
}
function field(name,   i) {	# NAME=VALUE of the tracepoint text
	for (i = 5; i <= hn; i++)
		if (index(h[i], name "=") == 1)
			return substr(h[i], length(name) + 2)
	return ""
}
function flush(   pc, pp, ps, np, d, k, w, sl, a, p, f, i) {
	if (ev == "")
		return
	samples++
	if (ev == "sched:sched_switch") {
		pc = field("prev_comm"); pp = field("prev_pid")
		ps = field("prev_state"); np = field("next_pid")
		if (pc ~ /^[cs]:/) {
			if (pp in inat) {
				k = role(pc) " " call(pc)
				on[k] += t - inat[pp]; sw[k]++
				delete inat[pp]
			}
			# The first life of a client thread has ended when it
			# blocks in a call that comes before the call it last
			# blocked in (it seldom blocks in the destroys).
			if ((pp in last) && rank(pc) < last[pp])
				done1[pp] = 1
			last[pp] = rank(pc)
			outat[pp] = t
			outfirst[pp] = pc ~ /^c:/ && !(pp in done1)
			outkey[pp] = role(pc) " " call(pc) " " substr(ps, 1, 1) " " blocked(ps ~ /^R/)
			delete wk[pp]
		}
		if (np in outat) {
			d = t - outat[np]
			sl = (np in wk) ? wk[np] - outat[np] : (outkey[np] ~ / R preempt / ? 0 : d)
			k = outkey[np]
			off[k] += d; cnt[k]++; slp[k] += sl
			if (outfirst[np]) fst[k] += d
			if (d > mx[k]) mx[k] = d
			if (np in wk) {
				split(k, a, " ")
				w = a[1] " " a[2] " " a[4] " " wker[np]
				wn[w]++; ws[w] += sl
			}
			delete outat[np]; delete wk[np]
		}
		if (field("next_comm") ~ /^[cs]:/)
			inat[np] = t
	} else if (ev == "sched:sched_wakeup") {
		p = field("pid")
		if ((p in outat) && !(p in wk)) {
			wk[p] = t
			wker[p] = waker(comm)
		}
	} else if (ev == "lock:contention_begin") {
		if (!(tid in lbeg)) {
			a = ""; f = ""
			for (i = 5; i <= hn; i++) {
				if (h[i] ~ /^0x[0-9a-f]+$/ && a == "") a = substr(h[i], 3)
				if (h[i] ~ /flags=/) f = h[i]
			}
			while (length(a) < 16) a = "0" a
			lbeg[tid] = t
			lkey[tid] = role(comm) " " locktype(f) " " lockcaller() " " ((a in lockname) ? lockname[a] : "-")
		}
	} else if (ev == "lock:contention_end") {
		if (tid in lbeg) {
			d = t - lbeg[tid]; k = lkey[tid]
			lt[k] += d; ln[k]++
			if (d > lm[k]) lm[k] = d
			delete lbeg[tid]
		}
	}
	ev = ""; n = 0
}
/^[^\t]/ && / (sched|lock):[a-z_]+: / {
	flush()
	hn = NF
	for (i = 1; i <= NF; i++) h[i] = $i
	comm = $1; tid = $2; t = $3; sub(/:$/, "", t); t *= 1000000
	ev = $4; sub(/:$/, "", ev)
	n = 0
	# The call chains that count: a bench thread switching out, the
	# wake-up of one that is off the CPU, a lock contended.
	want = ev ~ /^lock:contention_begin/ ||
	       (ev == "sched:sched_switch" && field("prev_comm") ~ /^[cs]:/) ||
	       (ev == "sched:sched_wakeup" && (field("pid") in outat))
	next
}
/^[ \t]*$/ { flush(); next }
ev != "" && want {
	n++
	# "ADDR SYMBOL (DSO)": perf finds no module files in the guest and
	# gives module symbols the kernel as their DSO: /proc/kallsyms
	# names their modules.
	dso[n] = $NF; gsub(/[()]/, "", dso[n]); sub(/.*\//, "", dso[n])
	sym[n] = $2; sub(/\..*/, "", sym[n])
	if (dso[n] == "[kernel.kallsyms]" && ($2 in modof))
		dso[n] = modof[$2]
}
END {
	flush()
	print "samples", samples
	for (k in on)
		printf "on %s %.0f %d\n", k, on[k], sw[k]
	for (k in off)
		printf "off %s %d %.0f %.0f %.0f %.0f %.0f\n", k, cnt[k], off[k], slp[k], off[k] - slp[k], mx[k], fst[k]
	for (k in wn)
		printf "wake %s %d %.0f\n", k, wn[k], ws[k]
	for (k in lt)
		printf "lock %s %d %.0f %.0f\n", k, ln[k], lt[k], lm[k]
}'

# STACK PROCS THREADS ROUND: one bench_churn run under perf record.
cattr_run() {
	p="$1 $variant $2x$3 $4"
	if ! perf record -m 16M -a -g -o /tmp/cattr.data \
		-e lock:contention_begin -e lock:contention_end \
		-e sched:sched_switch -e sched:sched_wakeup -- \
		sh -c "$(if [ "$1" = rcm ]; then echo LD_LIBRARY_PATH=/usr/lib/rcm; fi) RCM_CHURN_MARK=1 timeout $((secs + 120)) ./bench_churn $variant $2 $3 $secs $ip 0 $silent" \
		>/tmp/cattr.out 2>/tmp/cattr.err; then
		echo "bench-error cattr $p"
		tail -5 /tmp/cattr.out /tmp/cattr.err
		rm -f /tmp/cattr.data
		return
	fi
	grep -h '^# server:' /tmp/cattr.out /tmp/cattr.err
	perf script -i /tmp/cattr.data -F comm,tid,time,event,trace,ip,sym,dso \
		2>/tmp/cattr.script |
		awk "$aggregate" /tmp/modsyms /tmp/datasyms - >/tmp/cattr.agg
	# perf script: "Processed N events and lost M chunks!"
	lost=$(sed -n 's/.*and lost \([0-9]*\) chunks.*/\1/p' /tmp/cattr.script | head -1)
	awk -v p="$p" -v lost="${lost:-0}" '
		$1 == "churn" { cps = $9; conns = $13 }
		$1 == "churn-call" { print "bench-cattr-call", p, $2, $3, $4, $5, $6 }
		END { printf "bench-cattr-run %s %s %s ", p, cps, conns }' /tmp/cattr.out
	awk -v lost="${lost:-0}" '$1 == "samples" { print $2, lost }' /tmp/cattr.agg
	awk -v p="$p" '$1 != "samples" { $1 = "bench-cattr-" $1 " " p; print }' /tmp/cattr.agg
	rm -f /tmp/cattr.data
}

for shape in $shapes; do
	procs=${shape%x*} threads=${shape#*x}
	r=1
	while [ $r -le "$rounds" ]; do
		for stack in $(order $r); do
			progress "cattr_run $shape $stack round $r/$rounds"
			cattr_run "$stack" "$procs" "$threads" $r
		done
		r=$((r + 1))
	done
done
