#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""rsockets.py GUEST-LOG [CSV]: the rsockets part's table (guest-rsockets.sh).

Stream rsockets on rcm's userlib against rdma-core's librdmacm on the
in-tree CM: per rstream run (bandwidth or latency at a size) the median
over the rounds of each stack's Gb/s and microseconds per transfer,
rcm / in-tree, and the A/A beside it (in-tree's odd rounds over its even
rounds: the same bench against itself); then bench_rchurn's short
connections per second and the p50 and p99 of a connection's life and
of its rconnect(). CSV, if given, gets one row per stack, run and round
(the data; the table is made from it).
"""
import sys
from collections import defaultdict

from rounds import aa, med, ratio

# (stack, kind, size, count) -> [(round, gbps, usec_per_xfer, seconds)]
streams = defaultdict(list)
# (stack, accept, procs, bytes) -> [(round, conns_per_s, errors, life_p50, life_p99,
#                            connect_p50, connect_p99, conns, echo_p50,
#                            close_p50)]
churns = defaultdict(list)
# (stack, class) -> (calls per connection, us per connection)
rsys = {}
errors = []

for line in open(sys.argv[1], errors='replace'):
    if 'bench-' not in line:
        continue
    f = line[line.index('bench-'):].split()
    if f[0] == 'bench-rstream' and len(f) == 9 and float(f[7]) > 0:
        # rstream prints Gb/s to two places (0.08): from its us per
        # transfer (also two places, of hundreds) instead.
        streams[(f[1], f[2], int(f[3]), int(f[4]))].append(
            (int(f[5]), int(f[3]) * 8 / float(f[7]) / 1000, float(f[7]),
             float(f[8])))
    elif f[0] == 'bench-rchurn' and len(f) == 15:
        churns[(f[1], f[2], int(f[3]), int(f[4]))].append(
            (int(f[5]), float(f[6]), int(f[7]), int(f[8]), int(f[9]),
             int(f[10]), int(f[11]), int(f[12]), int(f[13]), int(f[14])))
    elif f[0] == 'bench-rsys' and len(f) == 5:
        rsys[(f[1], f[2])] = (float(f[3]), float(f[4]))
    elif f[0] == 'bench-error' and len(f) > 1 and f[1] == 'rsockets':
        errors.append(' '.join(f[2:]))



if len(sys.argv) > 2:
    with open(sys.argv[2], 'w') as out:
        out.write('stack,run,size,count,round,gbps,usec_per_xfer,seconds,'
                  'conns_per_s,errors,life_p50_us,life_p99_us,'
                  'connect_p50_us,connect_p99_us,conns,echo_p50_us,close_p50_us\n')
        for (stack, kind, size, count), rows in sorted(streams.items()):
            for r in sorted(rows):
                out.write(f'{stack},{kind},{size},{count},{r[0]},{r[1]},{r[2]},{r[3]},,,,,,,,,\n')
        for (stack, accept, procs, size), rows in sorted(churns.items()):
            for r in sorted(rows):
                out.write(f'{stack},churn-{accept},{size},{procs},{r[0]},,,,'
                          f'{r[1]},{r[2]},{r[3]},{r[4]},{r[5]},{r[6]},{r[7]},{r[8]},{r[9]}\n')

if not streams and not churns:
    print('rsockets: no runs')
    for e in errors:
        print(f'rsockets run failed: {e}')
    sys.exit(1)

print('\nrsockets (stream, rxe): rcm\'s userlib against librdmacm 44 on the in-tree CM;'
      ' medians over the rounds; A/A = in-tree odd rounds / even rounds')
print(f'{"rstream run":18} {"in-tree Mb/s":>12} {"rcm Mb/s":>9} {"rcm/in-tree":>11} {"A/A":>5}'
      f' {"in-tree us/xfer":>15} {"rcm us/xfer":>11} {"rcm/in-tree":>11} {"A/A":>5} {"rounds":>6}')
for kind, size, count in sorted({k[1:] for k in streams}):
    it = streams.get(('intree', kind, size, count), [])
    rc = streams.get(('rcm', kind, size, count), [])
    name = f'{kind} {size}x{count}'
    print(f'{name:18} {1000 * med(it, 1):12.1f} {1000 * med(rc, 1):9.1f} {ratio(med(rc, 1), med(it, 1)):>11} {aa(it, 1):>5}'
          f' {med(it, 2):15.2f} {med(rc, 2):11.2f} {ratio(med(rc, 2), med(it, 2)):>11} {aa(it, 2):>5}'
          f' {len(it):>3}/{len(rc)}')
for accept, procs, size in sorted({k[1:] for k in churns}):
    it = churns.get(('intree', accept, procs, size), [])
    rc = churns.get(('rcm', accept, procs, size), [])
    how = ('a thread blocked in raccept()' if accept == 'block' else
           'rpoll() on the listener, then raccept()')
    print(f'\nShort rsocket connections (bench_rchurn, {procs} client processes, {size} bytes'
          f' each way, accepted by {how}): connections per second, rcm / in-tree,'
          f' A/A; a life\'s and its'
          f' rsocket() + rconnect()\'s p50 / p99, and the p50 of its message exchange'
          f' and of its rclose(), in us (medians over the rounds); failed lives')
    print(f'  conns/s in-tree {med(it, 1):.1f} rcm {med(rc, 1):.1f}'
          f' rcm/in-tree {ratio(med(rc, 1), med(it, 1))} A/A {aa(it, 1)}')
    for stack, rows in (('in-tree', it), ('rcm', rc)):
        print(f'  {stack:7} life {med(rows, 3):8.0f} / {med(rows, 4):8.0f}'
              f'  rconnect {med(rows, 5):8.0f} / {med(rows, 6):8.0f}'
              f'  echo {med(rows, 8):8.0f}  rclose {med(rows, 9):8.0f}'
              f'  failed {sum(r[2] for r in rows)} of {sum(r[7] + r[2] for r in rows)}')
if rsys:
    print('\nA connection\'s system calls (bench_rchurn, one client process,'
          ' raccept(), under strace -f -T: times inflated by strace; other'
          ' files\' include the waits for events), per connection, both sides:'
          ' calls / us')
    for c in ('verbs', 'cm', 'other'):
        cells = '  '.join(f'{st:7} {rsys[(st, c)][0]:7.1f} / '
                          + (f'{rsys[(st, c)][1]:8.0f}' if c != 'other' else f'{"-":>8}')
                          if (st, c) in rsys else f'{st:7} {"-":>18}'
                          for st in ('intree', 'rcm'))
        print(f'  {c:6} {cells}')
for e in errors:
    print(f'rsockets run failed: {e}')
sys.exit(1 if errors else 0)
