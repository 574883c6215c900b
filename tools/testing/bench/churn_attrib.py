#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""churn_attrib.py GUEST-LOG [CSV]: where the concurrency bench's time goes.

Reads the bench-cattr lines of guest-churn-attrib.sh (the churnattr part
of make bench) and prints, per shape, each stack's figures as the mean
per run over its rounds: the bench threads' time (on a CPU, waiting for
one, asleep) by role; the top reasons the client and server threads were
off the CPU (the wait primitive and where it was called); per call, the
time per call split so; what woke the threads; and the most contended
kernel locks (total wait, count, longest). CSV, if given, gets every
aggregated line, one row each.
"""
import sys
from collections import defaultdict

STACKS = ('intree', 'rcm')
runs = defaultdict(dict)    # (stack, shape) -> {round: (cps, conns, samples, lost)}
calls = defaultdict(lambda: defaultdict(list))  # (stack, shape) -> name -> [(count, p50, p99, max)]
on = defaultdict(float)     # (stack, shape, role, call) -> us
off = defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0, 0.0])  # (stack, shape, role, call, state, reason, site, sc) -> count, off, sleep, runq, max, first life
wake = defaultdict(lambda: [0, 0.0])  # (stack, shape, role, call, reason, waker) -> count, sleep
locks = defaultdict(lambda: [0, 0.0, 0.0])  # (stack, shape, role, type, caller, lock) -> count, wait, max
rows = []
errors = []
have_first = False      # the off lines carry FIRST_US

for line in open(sys.argv[1], errors='replace'):
    if 'bench-' not in line:
        continue
    f = line[line.index('bench-'):].split()
    if f[0] == 'bench-error' and len(f) > 1 and f[1] == 'cattr':
        errors.append(' '.join(f[2:]))
    if not f[0].startswith('bench-cattr-') or len(f) < 5:
        continue
    kind = f[0][len('bench-cattr-'):]
    stack, variant, shape, rnd = f[1], f[2], f[3], int(f[4])
    k = (stack, shape)
    v = f[5:]
    if kind == 'run' and len(v) == 4:
        runs[k][rnd] = tuple(float(x) if x else 0.0 for x in v)
    elif kind == 'call' and len(v) == 5:
        calls[k][v[0]].append((int(v[1]), float(v[2]), float(v[3]), int(v[4])))
    elif kind == 'on' and len(v) == 4:
        on[k + (v[0], v[1])] += float(v[2])
        rows.append((kind, stack, variant, shape, rnd, v[0], v[1], '', '', '', '', '', '', '', v[3], '', '', '', '', v[2], ''))
    elif kind == 'off' and len(v) in (11, 12):
        a = off[k + tuple(v[:6])]
        n, t, s, q, m = int(v[6]), float(v[7]), float(v[8]), float(v[9]), float(v[10])
        fl = float(v[11]) if len(v) > 11 else 0.0
        have_first |= len(v) > 11
        a[0] += n; a[1] += t; a[2] += s; a[3] += q; a[4] = max(a[4], m); a[5] += fl
        rows.append((kind, stack, variant, shape, rnd) + tuple(v[:6]) + ('', '', '') + tuple(v[6:11]) + ('', fl))
    elif kind == 'wake' and len(v) == 6:
        a = wake[k + tuple(v[:4])]
        a[0] += int(v[4]); a[1] += float(v[5])
        rows.append((kind, stack, variant, shape, rnd, v[0], v[1], '', v[2], '', '', v[3], '', '', v[4], '', v[5], '', '', '', ''))
    elif kind == 'lock' and len(v) == 7:
        a = locks[k + tuple(v[:4])]
        a[0] += int(v[4]); a[1] += float(v[5]); a[2] = max(a[2], float(v[6]))
        rows.append((kind, stack, variant, shape, rnd, v[0], '', '', '', v[2], '', '', v[1], v[3], v[4], v[5], '', '', v[6], '', ''))

if len(sys.argv) > 2:
    with open(sys.argv[2], 'w') as out:
        out.write('kind,stack,variant,shape,round,role,call,state,reason,site,syscall,waker,lock_type,lock,'
                  'count,off_or_wait_us,sleep_us,runq_us,max_us,on_us,first_life_us\n')
        for r in rows:
            out.write(','.join(str(x) for x in r) + '\n')

shapes = sorted({s for (_, s) in runs}, key=lambda s: [int(x) for x in s.split('x')])
if not shapes:
    print('churn attribution: no runs')
    sys.exit(1)


def nruns(stack, shape):
    return max(len(runs.get((stack, shape), {})), 1)


def ms(us, stack, shape):
    """Per run, in ms."""
    return us / nruns(stack, shape) / 1000


print('\nChurn attribution (guest-churn-attrib.sh): bench_churn under perf record of the lock'
      ' and scheduler tracepoints; figures per run (mean over the rounds), ms unless said')
for shape in shapes:
    print(f'\n== {shape}')
    print('Runs (under tracing: slower than the timed runs):')
    for stack in STACKS:
        for rnd, (cps, conns, samples, lost) in sorted(runs.get((stack, shape), {}).items()):
            print(f'  {stack:6} round {rnd}: calls/s {cps:8.1f} conns/s {conns:7.2f}'
                  f' samples {samples:8.0f} lost chunks {lost:.0f}')

    print('\nThread time by role: on a CPU, waiting for one (runq: preempted, or woken and not'
          ' yet run), asleep; ms per run and % of the role\'s thread time')
    for role in ('client', 'server'):
        for stack in STACKS:
            o = sum(v for (s, sh, r, _), v in on.items() if (s, sh, r) == (stack, shape, role))
            q = sum(a[3] for (s, sh, r, *_), a in off.items() if (s, sh, r) == (stack, shape, role))
            sl = sum(a[2] for (s, sh, r, *_), a in off.items() if (s, sh, r) == (stack, shape, role))
            tot = o + q + sl or 1
            print(f'  {role:6} {stack:6} on {ms(o, stack, shape):9.1f} ({100 * o / tot:4.1f}%)'
                  f'  runq {ms(q, stack, shape):9.1f} ({100 * q / tot:4.1f}%)'
                  f'  asleep {ms(sl, stack, shape):9.1f} ({100 * sl / tot:4.1f}%)')

    for role in ('client', 'server'):
        print(f'\nOff-CPU of the {role} threads by reason and site (top 14 by either stack;'
              ' asleep ms, runq ms, count per run, longest ms)')
        agg = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
        for (s, sh, r, _c, _st, reason, site, sc), a in off.items():
            if sh == shape and r == role:
                b = agg[(s, reason, site, sc)]
                b[0] += a[0]; b[1] += a[2]; b[2] += a[3]; b[3] = max(b[3], a[4])
        keys = sorted({k[1:] for k in agg},
                      key=lambda k: -max(agg[(s,) + k][1] + agg[(s,) + k][2] for s in STACKS))[:14]
        print(f'  {"reason":12} {"site":44} {"syscall":8} | {"in-tree asleep runq count max":>31} | {"rcm asleep runq count max":>31}')
        for k in keys:
            cols = []
            for s in STACKS:
                b = agg.get((s,) + k, [0, 0, 0, 0])
                cols.append(f'{ms(b[1], s, shape):8.1f} {ms(b[2], s, shape):7.1f} {b[0] / nruns(s, shape):7.0f} {b[3] / 1000:6.1f}')
            print(f'  {k[0]:12} {k[1][:44]:44} {k[2][:8]:8} | {cols[0]} | {cols[1]}')

    print('\nPer call: us per call (count per run from the bench; the server\'s untimed steps by the'
          ' client\'s count of the call, one per connection) on a CPU, waiting for one, and asleep;'
          + (' the share of the off-CPU time in the first life of a client thread;' if have_first else '')
          + ' the two largest sleep reasons (reason@site us/call)')
    for role in ('client', 'server'):
        names = sorted({c for (s, sh, r, c) in on if sh == shape and r == role and c != '-'})
        for name in names:
            for s in STACKS:
                # A thread's name keeps 13 characters of the call's.
                full = [c for c in calls.get((s, shape), {}) if c.startswith(name)]
                n = sum(x[0] for x in calls[(s, shape)][full[0]]) if len(full) == 1 else 0
                if not n:
                    # The server's untimed steps: its switches count.
                    n = sum(a[0] for (s2, sh, r, c, *_), a in off.items()
                            if (s2, sh, r, c) == (s, shape, role, name)) or 1
                o = on.get((s, shape, role, name), 0)
                q = sum(a[3] for (s2, sh, r, c, *_), a in off.items() if (s2, sh, r, c) == (s, shape, role, name))
                why = defaultdict(float)
                first = 0.0
                for (s2, sh, r, c, _st, reason, site, _sc), a in off.items():
                    if (s2, sh, r, c) == (s, shape, role, name):
                        why[f'{reason}@{site}'] += a[2]
                        first += a[5]
                sl = sum(why.values())
                top = sorted(why.items(), key=lambda x: -x[1])[:2]
                tops = '  '.join(f'{w[:48]} {v / n:.0f}' for w, v in top)
                print(f'  {role[0]}:{name:21} {s:6} n/run {n / nruns(s, shape):7.0f}  on {o / n:7.0f}'
                      f'  runq {q / n:7.0f}  asleep {sl / n:7.0f}'
                      f'{f"  first-life {100 * first / (q + sl):3.0f}%" if have_first and role == "client" and q + sl else ""}  {tops}')

    print('\nWho woke the client and server threads (top 12 by either stack; asleep ms and'
          ' count per run); softirq/irq: in interrupt context, CLASS:OUTER>INNER the RDMA modules'
          ' of the waker\'s chain')
    agg = defaultdict(lambda: [0, 0.0])
    for (s, sh, r, c, reason, w), a in wake.items():
        if sh == shape:
            b = agg[(s, r, c, reason, w)]
            b[0] += a[0]; b[1] += a[1]
    keys = sorted({k[1:] for k in agg}, key=lambda k: -max(agg.get((s,) + k, [0, 0])[1] for s in STACKS))[:12]
    for k in keys:
        cols = [f'{ms(agg.get((s,) + k, [0, 0])[1], s, shape):8.1f} {agg.get((s,) + k, [0, 0])[0] / nruns(s, shape):7.0f}'
                for s in STACKS]
        print(f'  {k[0]:6} {k[1]:21} {k[2]:10} {k[3][:40]:40} | {cols[0]} | {cols[1]}')

    print('\nContended kernel locks (top 15 by either stack; wait ms and count per run,'
          ' longest us); CALLER<the RDMA module frame further out when the caller is not in one')
    agg = defaultdict(lambda: [0, 0.0, 0.0])
    for (s, sh, r, t, caller, lock), a in locks.items():
        if sh == shape:
            b = agg[(s, r, t, caller, lock)]
            b[0] += a[0]; b[1] += a[1]; b[2] = max(b[2], a[2])
    for s in STACKS:
        tot = sum(a[1] for k, a in agg.items() if k[0] == s)
        totb = sum(a[1] for k, a in agg.items() if k[0] == s and k[1] in ('client', 'server'))
        print(f'  {s}: all waits {ms(tot, s, shape):.1f} ms per run, the bench threads\' {ms(totb, s, shape):.1f}')
    keys = sorted({k[1:] for k in agg}, key=lambda k: -max(agg.get((s,) + k, [0, 0, 0])[1] for s in STACKS))[:15]
    print(f'  {"role":9} {"type":10} {"caller":52} {"lock":18} | {"in-tree wait count max":>24} | {"rcm wait count max":>24}')
    for k in keys:
        cols = []
        for s in STACKS:
            b = agg.get((s,) + k, [0, 0, 0])
            cols.append(f'{ms(b[1], s, shape):8.2f} {b[0] / nruns(s, shape):7.0f} {b[2]:7.0f}')
        print(f'  {k[0]:9} {k[1]:10} {k[2][:52]:52} {k[3][:18]:18} | {cols[0]} | {cols[1]}')

for e in errors:
    print(f'churn attribution run failed: {e}')
sys.exit(1 if errors else 0)
