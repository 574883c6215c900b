#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py GUEST-LOG [CSV]: the benchmark's table from guest-bench.sh's
lines, and with CSV its data: one row per figure a line gives (columns
kind,stack,count,round,metric,value; per connection where the line
gives a total over COUNT connections), which plot.py draws.

Per connection count and cmtime step: the median over the rounds of the
client's microseconds per connection on each stack, rcm / in-tree, and
the A/A ratio beside it: the in-tree median of the odd rounds over that
of the even rounds, the same bench against itself, which shows how much
of a ratio is noise. Then the 8-client accept bench (time and slab
memory per established connection), system calls per connection,
kernel slab bytes per idle id, and the scale table (bench_scale): each
stack's cost per connection at each larger count over its cost at 100
(the growth), rcm's growth over in-tree's, and the A/A of in-tree's
growth (its odd rounds' growth over its even rounds'), with the slab
memory per established connection at the largest count. Runs in which
connections failed are named: cmtime times a rejected or unreachable
connection as if it had connected.
"""
import statistics
import sys
from collections import defaultdict

import attrib

steps = defaultdict(list)      # (stack, count, step) -> [us]
order = []
syscalls = {}                  # (stack, side) -> (count, calls)
cmcalls = {}                   # (stack, side) -> (count, calls, device)
cmcall = defaultdict(list)     # (stack, side) -> [(name, calls)]
ids = {}                       # stack -> bytes per id
accept = defaultdict(list)     # (stack, count, clients) -> [(round, us, slab)]
scale = defaultdict(list)      # (stack, count) -> [(round, fields...)]
sphase = defaultdict(list)     # (stack, count) -> [(round, 4 phases' us)]
window = '?'                   # bench_scale's connections in set-up at once
cpu = defaultdict(list)        # (stack, count) -> [(round, us per conn)]
failed = []                    # (stack, count, round, failed, status, server)
phases = []                    # (name, seconds)
walls = []                     # (stack, count, round, server, client, teardown)
errors = []
data = []                      # the CSV's rows


def row(kind, stack, count, rnd, metric, value):
    data.append((kind, stack, count, rnd, metric, value))


SCALE_FIELDS = ('connect_us', 'connect_cpu_us', 'teardown_us',
                'teardown_cpu_us', 'slab_bytes_per_conn', 'failed')
SPHASE_FIELDS = ('addr_us', 'route_us', 'connect_us', 'set_up_us')

for line in open(sys.argv[1], errors='replace'):
    line = line.strip()
    if 'bench-' not in line:
        continue
    f = line[line.index('bench-'):].split()
    if f[0] == 'bench-step' and len(f) == 6:
        key = (f[1], int(f[2]), f[4])
        steps[key].append((int(f[3]), float(f[5])))
        row('step', f[1], f[2], f[3], f[4], f[5])
        if f[4] not in order:
            order.append(f[4])
    elif f[0] == 'bench-syscalls' and len(f) == 5:
        syscalls[(f[1], f[2])] = (int(f[3]), f[4])
        if f[4].isdigit() and int(f[3]):
            row('syscalls', f[1], f[3], '', f[2], int(f[4]) / int(f[3]))
    elif f[0] == 'bench-cmcalls' and len(f) == 6:
        cmcalls[(f[1], f[2])] = (int(f[3]), f[4], f[5])
        if f[4].isdigit() and int(f[3]):
            row('cmcalls', f[1], f[3], '', f[2], int(f[4]) / int(f[3]))
    elif f[0] == 'bench-cmcall' and len(f) == 5:
        cmcall[(f[1], f[2])].append((f[3], int(f[4])))
    elif f[0] == 'bench-accept' and len(f) == 7:
        accept[(f[1], int(f[2]), int(f[3]))].append(
            (int(f[4]), float(f[5]), int(f[6])))
        row('accept', f[1], f[2], f[4], 'us_per_conn', f[5])
        row('accept', f[1], f[2], f[4], 'slab_bytes_per_conn', f[6])
    elif f[0] == 'bench-scale' and len(f) == 11:
        window = f[3]
        scale[(f[1], int(f[2]))].append(
            (int(f[4]), *map(float, f[5:9]), int(f[9]), int(f[10])))
        for name, v in zip(SCALE_FIELDS, f[5:11]):
            row('scale', f[1], f[2], f[4], name, v)
    elif f[0] == 'bench-sphase' and len(f) == 9:
        window = f[3]
        sphase[(f[1], int(f[2]))].append((int(f[4]), *map(float, f[5:9])))
        for name, v in zip(SPHASE_FIELDS, f[5:9]):
            row('sphase', f[1], f[2], f[4], name, v)
    elif f[0] == 'bench-cpu' and len(f) == 6:
        cpu[(f[1], int(f[2]))].append(
            (int(f[3]), (int(f[4]) + int(f[5])) * 1e6 / attrib.USER_HZ
             / int(f[2])))
        row('cpu', f[1], f[2], f[3], 'us_per_conn',
            cpu[(f[1], int(f[2]))][-1][1])
    elif f[0] == 'bench-failed' and len(f) == 7:
        failed.append((f[1], int(f[2]), int(f[3]), int(f[4]), f[5], f[6]))
    elif f[0] == 'bench-phase' and len(f) == 3:
        phases.append((f[1], float(f[2])))
        row('phase', '', '', '', f[1], f[2])
    elif f[0] == 'bench-wall' and len(f) == 7:
        walls.append((f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]),
                      int(f[6])))
    elif f[0] == 'bench-ids' and len(f) == 4:
        ids[f[1]] = f[3]
        row('ids', f[1], f[2], '', 'bytes_per_id', f[3])
    elif f[0] == 'bench-error':
        errors.append(' '.join(f[1:]))


if len(sys.argv) > 2:
    with open(sys.argv[2], 'w') as out:
        out.write('kind,stack,count,round,metric,value\n')
        for r in data:
            v = r[5]
            if isinstance(v, float):
                v = f'{v:.2f}'
            out.write(','.join(map(str, r[:5] + (v,))) + '\n')

# The A/A ratio of [(round, value)]: one definition, attrib.py's.
aa = attrib.aa


counts = sorted({k[1] for k in steps})
print('cmtime client, median microseconds per connection over the rounds')
for count in counts:
    rounds = len(steps.get(('rcm', count, 'connect'), []))
    print(f'\n{count} connections ({rounds} rounds each)')
    print(f'{"step":<14}{"in-tree":>12}{"rcm":>12}{"rcm/in-tree":>13}'
          f'{"A/A":>7}')
    for step in order:
        a = steps.get(('intree', count, step))
        b = steps.get(('rcm', count, step))
        if not a or not b:
            continue
        ma = statistics.median(v for _, v in a)
        mb = statistics.median(v for _, v in b)
        ratio = f'{mb / ma:.2f}' if ma else '-'
        print(f'{step.replace("_", " "):<14}{ma:>12.1f}{mb:>12.1f}{ratio:>13}'
              f'{aa(a):>7}')
    for stack, c, r, n, st, server in failed:
        if c == count:
            print(f'  {stack} round {r}: server {server}, client status'
                  f' {st}, {n} failed connections in its output: left out')

if accept.get(('intree', 1000, 8)) and accept.get(('rcm', 1000, 8)):
    n, k = 1000, 8
    print(f'\none listener, {n} connections from {k} client processes at once'
          f' (bench_accept, {len(accept[("rcm", n, k)])} rounds), medians')
    print(f'{"":<22}{"in-tree":>10}{"rcm":>10}{"rcm/in-tree":>13}{"A/A":>7}')
    for i, what in ((1, 'us per connection'), (2, 'slab bytes per conn')):
        a = [(r[0], r[i]) for r in accept[('intree', n, k)]]
        b = [(r[0], r[i]) for r in accept[('rcm', n, k)]]
        ma = statistics.median(v for _, v in a)
        mb = statistics.median(v for _, v in b)
        ratio = f'{mb / ma:.2f}' if ma else '-'
        print(f'{what:<22}{ma:>10.1f}{mb:>10.1f}{ratio:>13}{aa(a):>7}')

print('\nsystem calls per connection (strace -f -c, 100 connections,'
      ' whole program incl. set-up)')
print(f'{"side":<8}{"in-tree":>10}{"rcm":>10}{"rcm/in-tree":>13}')
for side, name in (('cli', 'client'), ('srv', 'server')):
    a, b = syscalls.get(('intree', side)), syscalls.get(('rcm', side))
    if not a or not b or not a[1].isdigit() or not b[1].isdigit():
        print(f'{name:<8}{"?":>10}{"?":>10}')
        continue
    pa, pb = int(a[1]) / a[0], int(b[1]) / b[0]
    print(f'{name:<8}{pa:>10.1f}{pb:>10.1f}{pb / pa:>13.2f}')

print('\nconnection manager system calls per connection (strace -f -y, 100'
      ' connections, calls on the CM device:\n/dev/infiniband/rdma_cm'
      ' in-tree, /dev/infiniband/rcm rcm; set-up included)')
print(f'{"side":<8}{"in-tree":>10}{"rcm":>10}{"rcm/in-tree":>13}')
for side, name in (('cli', 'client'), ('srv', 'server')):
    a, b = cmcalls.get(('intree', side)), cmcalls.get(('rcm', side))
    if not a or not b or not a[1].isdigit() or not b[1].isdigit():
        print(f'{name:<8}{"?":>10}{"?":>10}')
        continue
    pa, pb = int(a[1]) / a[0], int(b[1]) / b[0]
    ratio = f'{pb / pa:.2f}' if pa else '-'
    print(f'{name:<8}{pa:>10.2f}{pb:>10.2f}{ratio:>13}')
for stack in ('intree', 'rcm'):
    for side, name in (('cli', 'client'), ('srv', 'server')):
        n = cmcalls.get((stack, side), (100,))[0]
        if cmcall.get((stack, side)) and n:
            print(f'  {stack} {name}: ' + ', '.join(
                f'{c} {k / n:.2f}' for c, k in cmcall[(stack, side)]))

print('\nkernel slab memory per idle id (created and bound; 10000 ids)')
for stack in ('intree', 'rcm'):
    print(f'{stack:<8}{ids.get(stack, "?"):>10} bytes')


def total_steps(stack, count):
    """[(round, sum of the client's steps in us per connection)]."""
    rounds = defaultdict(float)
    for step in order:
        for r, v in steps.get((stack, count, step), []):
            rounds[r] += v
    return sorted(rounds.items())


def group_rounds(*cols):
    """[(round, [value of each column])] of the rounds all columns have."""
    by = defaultdict(list)
    for col in cols:
        for r, v in col:
            by[r].append(v)
    return sorted((r, v) for r, v in by.items() if len(v) == len(cols))


def growth(small, big):
    """Median of big / median of small, and the A/A of that growth: the
    growth of the odd rounds over that of the even rounds."""
    def med(rounds, odd=None):
        v = [x for r, x in rounds if odd is None or r % 2 == odd]
        return statistics.median(v) if v else None
    if not small or not big or not med(small):
        return None, '-'
    g = med(big) / med(small)
    go = [med(big, 1), med(small, 1)]
    ge = [med(big, 0), med(small, 0)]
    if None in go + ge or not go[1] or not ge[1] or not ge[0]:
        return g, '-'
    return g, f'{(go[0] / go[1]) / (ge[0] / ge[1]):.2f}'


SCALE_ROWS = (('connect, us', 1), ('connect, CPU us', 2),
              ('teardown, us', 3), ('teardown, CPU us', 4))


def cols(small, big):
    """Medians at the two counts and the growth, and its A/A."""
    m = [f'{statistics.median(v for _, v in x):>8.1f}' if x else
         f'{"-":>8}' for x in (small, big)]
    g, aa_g = growth(small, big)
    return ''.join(m) + (f'{g:>6.2f}' if g else f'{"-":>6}'), g, aa_g


def scale_rows(rows, big):
    """Print rows of (label, in-tree at 100, at big, rcm at 100, at big)."""
    print(f'{"":<30}{"in-tree":>22}{"rcm":>22}{"rcm/":>8}')
    print(f'{"":<30}{"100":>8}{big:>8}{"x":>6}{"100":>8}{big:>8}{"x":>6}'
          f'{"in-tree":>8}{"A/A":>6}')
    for label, a0, a1, b0, b1 in rows:
        ta, ga, aa_g = cols(a0, a1)
        tb, gb, _ = cols(b0, b1)
        ratio = f'{gb / ga:.2f}' if ga and gb else '-'
        print(f'{label:<30}{ta}{tb}{ratio:>8}{aa_g:>6}')


def scale_col(stack, count, i):
    """[(round, field i)] of the bench_scale runs without failures."""
    return [(x[0], x[i]) for x in scale.get((stack, count), []) if not x[6]]


for big in sorted({c for (_, c) in scale if c > 100}):
    n = {st: len(scale.get((st, big), [])) for st in ('intree', 'rcm')}
    print(f'\nscale (bench_scale): cost per connection with {big} connections'
          f' established over its cost\nwith 100 (growth; target <= 1.2);'
          f' at most {window} connections in set-up at'
          f' once; medians of\n{n["intree"]} in-tree and {n["rcm"]} rcm'
          ' runs; A/A: in-tree\'s growth, odd rounds over even rounds')
    rows = []
    for label, i in SCALE_ROWS:
        rows.append((label, *(scale_col(st, c, i) for st in ('intree', 'rcm')
                              for c in (100, big))))
    total = [[(r, sum(x))
              for r, x in group_rounds(scale_col(st, c, 2),
                                       scale_col(st, c, 4))]
             for st in ('intree', 'rcm') for c in (100, big)]
    rows.append(('CPU in all, us', *total))
    scale_rows(rows, big)
    for st, c in (('intree', big), ('rcm', big)):
        for x in scale.get((st, c), []):
            if x[6]:
                print(f'  {st} round {x[0]}: {x[6]} connections failed and'
                      ' were replaced: left out')
if scale:
    big = max(c for (_, c) in scale)
    a = scale_col('intree', big, 5)
    b = scale_col('rcm', big, 5)
    print(f'\nslab memory per established connection at {big} (both sides,'
          ' ib_cm included)')
    print(attrib.line('slab bytes per connection', a, b))

# Where a connection's set-up time goes, as the client sees it: with the
# window full, a phase that gets shorter leaves the others more of the
# queue, so a phase is read beside the whole.
for count in sorted({c for (_, c) in sphase}):
    print(f'\nbench_scale\'s set-up phases at {count} connections, client side,'
          f' at most {window} in set-up:\nmedian us per connection over its'
          ' connections, medians over the runs')
    print(f'{"":<44}{"in-tree":>9}{"rcm":>9}{"ratio":>8}{"A/A":>6}')
    for i, label in enumerate(('create -> ADDR_RESOLVED read',
                               '-> ROUTE_RESOLVED read, connect',
                               '-> CONNECT_RESPONSE read',
                               'create -> established (the whole)'), 1):
        a = [(x[0], x[i]) for x in sphase.get(('intree', count), [])]
        b = [(x[0], x[i]) for x in sphase.get(('rcm', count), [])]
        print(attrib.line(label, a, b))

# cmtime at the largest count (RCM_BENCH_CMTIME_RUNS): all connections in
# flight at once. A failed run's CPU covers part of a run: left out, as
# its steps are (a client ended early prints none).
for stack, c, r, *_ in failed:
    cpu[(stack, c)] = [x for x in cpu.get((stack, c), []) if x[0] != r]
    for key in [k for k in steps if k[:2] == (stack, c)]:
        steps[key] = [x for x in steps[key] if x[0] != r]

for big in sorted({c for (_, c, _) in steps if c > 1000}):
    n_a = len(total_steps('intree', big))
    n_b = len(total_steps('rcm', big))
    print(f'\nscale (cmtime, every connection in flight at once): cost per'
          f' connection at {big}\nover its cost at 100; at {big}: {n_a}'
          f' in-tree and {n_b} rcm runs')
    rows = [('cmtime: all steps, us', total_steps('intree', 100),
             total_steps('intree', big), total_steps('rcm', 100),
             total_steps('rcm', big))]
    for step in ('create_qp', 'connect', 'disconnect', 'destroy'):
        rows.append((f'cmtime: {step.replace("_", " ")}, us',
                     *(steps.get((st, c, step)) for st in ('intree', 'rcm')
                       for c in (100, big))))
    rows.append(('CPU guest-wide (cmtime), us',
                 *(cpu.get((st, c)) for st in ('intree', 'rcm')
                   for c in (100, big))))
    scale_rows(rows, big)
    for stack, c, r, n, st, server in failed:
        if c == big:
            print(f'  {stack} round {r}: server {server}, client status {st},'
                  f' {n} failed connections in its output: left out of the'
                  ' cmtime rows')

if walls or phases:
    print('\nwhere the bench\'s time went (wall seconds in the guest)')
    if phases:
        print('  ' + ', '.join(f'{n} {s:.1f}' for n, s in phases))
    for stack, c, r, sv, cl, td in walls:
        if c > 1000:
            print(f'  cmtime {stack} {c} round {r}: server start {sv / 1000:.1f},'
                  f' client {cl / 1000:.1f}, server exit {td / 1000:.1f}')
attrib.report(sys.argv[1])
attrib.report_scale(sys.argv[1])
attrib.report_kmem(sys.argv[1])
if errors:
    print('\nruns that failed: ' + '; '.join(errors))
    sys.exit(1)
