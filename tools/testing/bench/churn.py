#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""churn.py GUEST-LOG [CSV]: the concurrency bench's table (guest-churn.sh).

Per variant and shape (processes x threads): the median over the rounds
of calls and connections per second on each stack, rcm / in-tree, and
the A/A beside it (in-tree's odd rounds over its even rounds: the same
bench against itself); the lives that failed where they should not
have (and the step they failed at), the connects ib_cm refused as
stale, the SIGKILLs, and the processes that crashed (started again). Then, per call, each stack's p50 and p99 (the
median over the rounds) and its max (over all rounds), in microseconds,
the wait for the call's event or completion included. CSV, if given,
gets one row per stack, variant, shape and round (the data; the table
is made from it), and CSV's name with -removals the remove variant's
device removals, one row per removal.
"""
import sys
from collections import defaultdict

from rounds import aa, med, ratio

runs = defaultdict(list)        # (stack, variant, shape) -> [(round, cps, conns, errors, kills, stale, crashes)]
calls = defaultdict(list)       # (stack, variant, shape, name) -> [(round, count, p50, p99, max)]
errors = []
failed = defaultdict(list)      # (stack, variant, shape) -> ['step:count']
removals = defaultdict(list)    # (stack, variant, shape) -> [(round, i, delete_ms, recover_ms, lost)]
rates = defaultdict(list)       # (stack, variant, shape) -> [(round, before, after)]

for line in open(sys.argv[1], errors='replace'):
    if 'bench-' not in line:
        continue
    f = line[line.index('bench-'):].split()
    if f[0] == 'bench-churn' and len(f) in (11, 12):
        shape = f'{f[3]}x{f[4]}'
        runs[(f[1], f[2], shape)].append(
            (int(f[5]), float(f[6]), float(f[7]), int(f[8]), int(f[9]),
             int(f[10]), int(f[11]) if len(f) > 11 else 0))
    elif f[0] == 'bench-churn-failed' and len(f) == 8:
        failed[(f[1], f[2], f'{f[3]}x{f[4]}')].append(f'{f[6]}:{f[7]}')
    elif f[0] == 'bench-churn-call' and len(f) == 11:
        shape = f'{f[3]}x{f[4]}'
        calls[(f[1], f[2], shape, f[6])].append(
            (int(f[5]), int(f[7]), float(f[8]), float(f[9]), int(f[10])))
    elif f[0] == 'bench-churn-removal' and len(f) == 10:
        removals[(f[1], f[2], f'{f[3]}x{f[4]}')].append(
            (int(f[5]), int(f[6]), float(f[7]), float(f[8]), int(f[9])))
    elif f[0] == 'bench-churn-rate' and len(f) == 8:
        rates[(f[1], f[2], f'{f[3]}x{f[4]}')].append(
            (int(f[5]), float(f[6]), float(f[7])))
    elif f[0] == 'bench-error' and len(f) > 1 and f[1] == 'churn':
        errors.append(' '.join(f[2:]))



if len(sys.argv) > 2:
    with open(sys.argv[2], 'w') as out:
        out.write('stack,variant,shape,round,calls_per_s,conns_per_s,errors,kills,stale,crashes\n')
        for (stack, variant, shape), rows in sorted(runs.items()):
            for r in sorted(rows):
                out.write(f'{stack},{variant},{shape},{r[0]},{r[1]},{r[2]},{r[3]},{r[4]},{r[5]},{r[6]}\n')

if len(sys.argv) > 2 and removals:
    with open(sys.argv[2].replace('.csv', '') + '-removals.csv', 'w') as out:
        out.write('stack,variant,shape,round,removal,delete_ms,recover_ms,lost,conns_per_s_before,conns_per_s_after\n')
        for (stack, variant, shape), rows in sorted(removals.items()):
            rt = {r[0]: r for r in rates.get((stack, variant, shape), [])}
            for r in sorted(rows):
                b, a = rt[r[0]][1:] if r[0] in rt else ('', '')
                out.write(f'{stack},{variant},{shape},{r[0]},{r[1]},{r[2]},{r[3]},{r[4]},{b},{a}\n')

keys = sorted({(v, s) for (_, v, s) in runs}, key=lambda k: (k[1], k[0]))
if not keys:
    print('churn: no runs')
    sys.exit(1 if errors else 0)
print('\nConcurrency (bench_churn): medians over the rounds; A/A = in-tree odd rounds / even rounds')
print(f'{"variant":8} {"shape":5} {"in-tree calls/s":>15} {"rcm calls/s":>11} {"rcm/in-tree":>11} {"A/A":>5}'
      f' {"in-tree conns/s":>15} {"rcm conns/s":>11} {"rcm/in-tree":>11} {"A/A":>5} {"errors i/r":>10} {"stale i/r":>10} {"kills":>5}'
      f' {"crashes i/r":>11}')
for variant, shape in keys:
    it = runs.get(('intree', variant, shape), [])
    rc = runs.get(('rcm', variant, shape), [])
    print(f'{variant:8} {shape:5} {med(it, 1):15.1f} {med(rc, 1):11.1f} {ratio(med(rc, 1), med(it, 1)):>11} {aa(it, 1):>5}'
          f' {med(it, 2):15.2f} {med(rc, 2):11.2f} {ratio(med(rc, 2), med(it, 2)):>11} {aa(it, 2):>5}'
          f' {sum(r[3] for r in it):>4}/{sum(r[3] for r in rc):<5}'
          f' {sum(r[5] for r in it):>4}/{sum(r[5] for r in rc):<5} {sum(r[4] for r in it + rc):>5}'
          f' {sum(r[6] for r in it):>5}/{sum(r[6] for r in rc):<5}')
for key, steps in sorted(failed.items()):
    print(f'  failed steps, {" ".join(key)} (clients and server, each round;'
          f' the server\'s accept fails for every abandoned connect): {" ".join(steps)}')

rkeys = sorted({(v, s) for (_, v, s) in removals}, key=lambda k: (k[1], k[0]))
if rkeys:
    print('\nDevice removals (remove): per round and removal, how long rdma link delete'
          ' took, from rdma link add to the next connection (-1: none), and the lives'
          ' lost to it; connections per second before the first removal and from a'
          ' second after the last re-add (medians over the rounds)')
for variant, shape in rkeys:
    for stack in ('intree', 'rcm'):
        rows = sorted(removals.get((stack, variant, shape), []))
        cells = ' '.join(f'r{r[0]}.{r[1]}:{r[2]:.0f}/{r[3]:.0f}/{r[4]}' for r in rows)
        rt = rates.get((stack, variant, shape), [])
        before, after = med(rt, 1), med(rt, 2)
        print(f'  {stack:6} {shape:5} delete_ms/recover_ms/lost {cells}; conns/s before'
              f' {before:.1f} after {after:.1f} (after/before {ratio(after, before)})')

for variant, shape in keys:
    names = sorted({k[3] for k in calls if k[1] == variant and k[2] == shape})
    print(f'\nPer call, {variant} {shape}: p50 / p99 / max in us (in-tree | rcm)')
    for name in names:
        it = calls.get(('intree', variant, shape, name), [])
        rc = calls.get(('rcm', variant, shape, name), [])

        def col(rows):
            if not rows:
                return f'{"-":>26}'
            return f'{med(rows, 2):8.0f} {med(rows, 3):8.0f} {max(r[4] for r in rows):8d}'
        print(f'  {name:22} {col(it)} | {col(rc)}')
for e in errors:
    print(f'churn run failed: {e}')
sys.exit(1 if errors else 0)
