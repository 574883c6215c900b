#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py GUEST-LOG: the benchmark's table from guest-bench.sh's lines.

Per connection count and cmtime step: the median over the rounds of the
client's microseconds per connection on each stack, rcm / in-tree, and
the A/A ratio beside it: the in-tree median of the odd rounds over that
of the even rounds, the same bench against itself, which shows how much
of a ratio is noise. Then the 8-client accept bench (time and slab
memory per established connection), system calls per connection and
kernel slab bytes per idle id.
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
accept = defaultdict(list)     # stack -> [(round, us, slab bytes)]
errors = []

for line in open(sys.argv[1], errors='replace'):
    line = line.strip()
    if 'bench-' not in line:
        continue
    f = line[line.index('bench-'):].split()
    if f[0] == 'bench-step' and len(f) == 6:
        key = (f[1], int(f[2]), f[4])
        steps[key].append(float(f[5]))
        if f[4] not in order:
            order.append(f[4])
    elif f[0] == 'bench-syscalls' and len(f) == 5:
        syscalls[(f[1], f[2])] = (int(f[3]), f[4])
    elif f[0] == 'bench-cmcalls' and len(f) == 6:
        cmcalls[(f[1], f[2])] = (int(f[3]), f[4], f[5])
    elif f[0] == 'bench-cmcall' and len(f) == 5:
        cmcall[(f[1], f[2])].append((f[3], int(f[4])))
    elif f[0] == 'bench-accept' and len(f) == 7:
        accept[f[1]].append((int(f[4]), float(f[5]), int(f[6])))
        accept_shape = (f[2], f[3])
    elif f[0] == 'bench-ids' and len(f) == 4:
        ids[f[1]] = f[3]
    elif f[0] == 'bench-error':
        errors.append(' '.join(f[1:]))


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
        ma, mb = statistics.median(a), statistics.median(b)
        ratio = f'{mb / ma:.2f}' if ma else '-'
        print(f'{step.replace("_", " "):<14}{ma:>12.1f}{mb:>12.1f}{ratio:>13}'
              f'{aa(list(enumerate(a, 1))):>7}')

if accept.get('intree') and accept.get('rcm'):
    n, k = accept_shape
    print(f'\none listener, {n} connections from {k} client processes at once'
          f' (bench_accept, {len(accept["rcm"])} rounds), medians')
    print(f'{"":<22}{"in-tree":>10}{"rcm":>10}{"rcm/in-tree":>13}{"A/A":>7}')
    for i, what in ((1, 'us per connection'), (2, 'slab bytes per conn')):
        a = [(r[0], r[i]) for r in accept['intree']]
        b = [(r[0], r[i]) for r in accept['rcm']]
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
attrib.report(sys.argv[1])
if errors:
    print('\nruns that failed: ' + '; '.join(errors))
    sys.exit(1)
