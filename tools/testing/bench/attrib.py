#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""attrib.py GUEST-LOG: where one connection's time goes (issue 16).

From guest-attrib.sh's lines (perf-sampled and traced cmtime runs) and
guest-bench.sh's bench-cpu lines (the timed runs): per connection count,
the median over the rounds of each component's CPU microseconds per
connection on each stack, what the stack adds (its library, its system
calls, its kernel module(s)) against the floor both share (ib_cm, the
MAD layer, rxe, the verbs calls, the rest of the kernel), the guest-wide
CPU per connection of the timed runs, and the handshake's gaps on the
wire from ib_cm's tracepoints. Ratios are rcm / in-tree; A/A is the
in-tree median of the odd rounds over that of the even rounds.

report.py calls report(); run alone, it prints the same tables.
"""
import statistics
import sys
from collections import defaultdict

# Rows of the table: (key, label, classes). A sample's class comes from
# guest-attrib.sh's classify; run() below puts the samples of the
# measurement's own tasks (perf, the shell) in 'meas' whatever their
# class.
OWN = (
    ('lib', 'library (librdmacm.so.1)', ('lib',)),
    ('sys', 'its system calls: read/write/ioctl/poll', ('sys',)),
    ('cm', 'CM module(s): rcm / rdma_cm+rdma_ucm', ('cm',)),
    ('cmkern', 'CM module(s): kernel services called', ('cmkern',)),
    ('cmwake', 'CM module(s): waking, blocking the reader', ('cmwake',)),
)
FLOOR = (
    ('ibcm', 'ib_cm', ('ibcm',)),
    ('mad', 'MAD layer (ib_core)', ('mad',)),
    ('rxe', 'rxe (rdma_rxe)', ('rxe',)),
    ('verbs', 'verbs: QP create/modify/destroy', ('verbs',)),
    ('ibcore', 'ib_core, the rest', ('ibcore',)),
    ('mem', 'mmap/munmap (verbs rings)', ('mem',)),
    ('ksched', 'kernel: scheduler', ('ksched',)),
    ('kirq', 'kernel: irq, softirq, timers, rcu', ('kirq',)),
    ('kwork', 'kernel: workqueues', ('kwork',)),
    ('kernel', 'kernel: the rest (net stack...)', ('kernel', 'kmod')),
)
REST = (
    ('prog', 'cmtime and libc', ('prog', 'libc', 'user')),
    ('proc', 'process start-up, threads, exit', ('proc',)),
    ('spin', "cmtime waiting: sched_yield loop", ('spin',)),
    ('meas', 'perf and the shell (measurement)', ()),
)
USER_HZ = 100      # /proc/stat's ticks (USER_HZ is 100 on x86)


def parse(path, tag='attr'):
    """The lines of the cmtime runs (tag 'attr') or of the bench_scale
    runs ('sattr')."""
    wtag = 'wire' if tag == 'attr' else 'swire'
    runs = {}                       # (stack, count, round) -> (hz, wall)
    samples = defaultdict(lambda: defaultdict(int))  # run -> key -> n
    cpu = defaultdict(list)         # (stack, count) -> [(round, us/conn)]
    wire = defaultdict(list)        # (stack, count, what) -> [(round, us)]
    events = defaultdict(lambda: defaultdict(int))  # (stack, count) -> ev -> n
    classes = {c: k for k, _, cs in OWN + FLOOR + REST for c in cs}
    for line in open(path, errors='replace'):
        if 'bench-' not in line:
            continue
        f = line[line.index('bench-'):].split()
        if f[0] == f'bench-{tag}-run' and len(f) == 8:
            runs[(f[1], int(f[2]), int(f[3]))] = (int(f[4]), int(f[5]))
        elif f[0] == f'bench-{tag}' and len(f) == 7:
            run = (f[1], int(f[2]), int(f[3]))
            side, cls, n = f[4], f[5], int(f[6])
            if cls == 'idle':
                key = 'idle'
            elif side in ('perf', 'other') and cls not in classes:
                key = 'meas'
            elif side in ('perf', 'other') and classes[cls] in \
                    ('sys', 'prog', 'spin', 'proc', 'mem'):
                key = 'meas'
            else:
                key = classes.get(cls, 'kernel')
            samples[run][key] += n
        elif f[0] == 'bench-cpu' and len(f) == 6:
            us = (int(f[4]) + int(f[5])) * 1e6 / USER_HZ / int(f[2])
            cpu[(f[1], int(f[2]))].append((int(f[3]), us))
        elif f[0] == f'bench-{wtag}' and len(f) == 7:
            wire[(f[1], int(f[2]), f[4])].append((int(f[3]),
                                                  float(f[5]) / 1000))
        elif f[0] == f'bench-{wtag}-events' and len(f) == 6:
            events[(f[1], int(f[2]))][f[4]] += int(f[5])
    return runs, samples, cpu, wire, events


def entries(path, tag):
    """{(stack, count, round): {entry: samples}}: the CM module's samples
    by where they entered it (guest-attrib.sh's bench-TAG-entry lines)."""
    out = defaultdict(lambda: defaultdict(int))
    for line in open(path, errors='replace'):
        if f'bench-{tag}-entry ' not in line:
            continue
        f = line[line.index('bench-'):].split()
        if len(f) == 6:
            out[(f[1], int(f[2]), int(f[3]))][f[4]] += int(f[5])
    return out


def entry_table(path, tag, count, conns, hz):
    """Each stack's CM module time at count by entry point: where the
    module's time is spent, so that a ratio of the module's row can be
    read against what it is made of."""
    ent = entries(path, tag)
    if not any(c == count for _, c, _ in ent):
        return
    print(f"\nthe CM module's CPU by where it was entered (the outermost"
          f" module function, '>' the next one in),\n{count} connections:"
          ' median microseconds per connection over the rounds; entries'
          ' under 3% of\nthe module left out')
    for stack, name in (('intree', 'in-tree'), ('rcm', 'rcm')):
        rounds = [r for s, c, r in ent if s == stack and c == count]
        keys = {k for r in rounds for k in ent[(stack, count, r)]}
        med = {k: statistics.median(ent[(stack, count, r)].get(k, 0) * 1e6
                                    / hz / conns for r in rounds)
               for k in keys}
        total = sum(med.values())
        print(f'  {name}: the sum of the medians {total:.1f}')
        for k in sorted(keys, key=lambda k: -med[k]):
            if med[k] >= 0.03 * total:
                print(f'    {k:<60}{med[k]:>8.1f}')


def aa(rounds):
    """The A/A ratio of [(round, value)]: odd rounds' median / even's."""
    odd = [v for r, v in rounds if r % 2]
    even = [v for r, v in rounds if not r % 2]
    if not odd or not even or not statistics.median(even):
        return '-'
    return f'{statistics.median(odd) / statistics.median(even):.2f}'


def per_conn(runs, samples, stack, count, keys, conns=None):
    """[(round, CPU us per connection)] of the rows in keys; a run made
    conns connections (count unless said)."""
    out = []
    for (s, c, r), (hz, _) in sorted(runs.items()):
        if s == stack and c == count:
            n = sum(samples[(s, c, r)].get(k, 0) for k in keys)
            out.append((r, n * 1e6 / hz / (conns or count)))
    return out


def scale_conns(count):
    """The connections of a bench_scale run: COUNT, repeated to 1000."""
    return count * ((1000 + count - 1) // count)


def line(label, a, b, target=''):
    """One row: in-tree and rcm medians, the ratio, A/A, a target."""
    if not a or not b:
        return f'{label:<44}{"?":>9}{"?":>9}'
    ma = statistics.median(v for _, v in a)
    mb = statistics.median(v for _, v in b)
    ratio = f'{mb / ma:.2f}' if ma else '-'
    return (f'{label:<44}{ma:>9.1f}{mb:>9.1f}{ratio:>8}{aa(a):>6}'
            f'{target:>8}').rstrip()


def report(path):
    runs, samples, cpu, wire, events = parse(path)
    if not runs:
        return
    counts = sorted({c for _, c, _ in runs})
    hz = next(iter(runs.values()))[0]
    print('\nwhere one connection\'s CPU time goes: perf cpu-clock -a -g at'
          f' {hz} Hz over a cmtime run (both sides and the kernel),'
          '\neach sample classed by its call chain; median CPU'
          ' microseconds per connection over the rounds')
    for count in counts:
        nr = len([1 for s, c, _ in runs if s == 'rcm' and c == count])
        print(f'\n{count} connections ({nr} rounds each)')
        print(f'{"":<44}{"in-tree":>9}{"rcm":>9}{"ratio":>8}{"A/A":>6}'
              f'{"target":>8}')

        def row(label, keys, target=''):
            print(line(label, per_conn(runs, samples, 'intree', count, keys),
                       per_conn(runs, samples, 'rcm', count, keys), target))
        for key, label, _ in OWN:
            row('  ' + label, (key,))
        row("the CM's own (above the floor)", [k for k, _, _ in OWN],
            '<=0.5')
        row("  the CM's own without waking, blocking",
            [k for k, _, _ in OWN if k != 'cmwake'])
        for key, label, _ in FLOOR:
            row('  ' + label, (key,))
        row('the floor (shared)', [k for k, _, _ in FLOOR])
        for key, label, _ in REST:
            row(label, (key,))
        busy = [k for k, _, _ in OWN + FLOOR + REST if k != 'meas']
        row('busy, without the measurement', busy)
        row('idle (either vCPU)', ('idle',))
        a, b = cpu.get(('intree', count)), cpu.get(('rcm', count))
        print(line('CPU guest-wide, timed runs (/proc/stat)', a, b, '<=0.7'))
    wire_table(wire, events, counts,
               'the handshake on the wire (ib_cm\'s tracepoints, a traced run'
               ' per stack and round,\nall connections in flight at once):'
               ' median milliseconds per connection over the rounds')


def wire_table(wire, events, counts, title):
    """The handshake's gaps per count, and the MADs beyond the five."""
    if not counts:
        return
    print('\n' + title)
    print(f'{"":<44}{"in-tree":>9}{"rcm":>9}{"ratio":>8}{"A/A":>6}')
    for count in counts:
        for what, label in (
                ('req_rep', 'REQ -> REP (client waits on the server)'),
                ('rep_rtu', 'REP -> RTU (server waits on the client)'),
                ('dreq_drep', 'DREQ -> DREP')):
            print(line(f'{count:>5} {label}', wire.get(('intree', count, what)),
                       wire.get(('rcm', count, what))))
        # MADs beyond one REQ, REP, RTU, DREQ and DREP per connection:
        # retries, duplicates, MRAs and rejects, which cost a timeout.
        extra = []
        for stack in ('intree', 'rcm'):
            ev = events.get((stack, count), {})
            more = {k[9:]: v for k, v in ev.items()
                    if k.startswith('icm_send_') and k[9:] not in (
                        'req', 'rep', 'rtu', 'dreq', 'drep')}
            extra.append(f'{stack} {ev.get("icm_send_req", 0)} REQs'
                         + ''.join(f', {v} {k}' for k, v in
                                   sorted(more.items())))
        print(f'      (sent over the rounds: ' + '; '.join(extra) + ')')


def report_scale(path):
    """The same split for the bench_scale runs (no QPs, a bounded window),
    at each count, and each stack's growth from the smallest count."""
    runs, samples, _, wire, events = parse(path, 'sattr')
    if not runs:
        return
    counts = sorted({c for _, c, _ in runs})
    hz = next(iter(runs.values()))[0]
    own = [k for k, _, _ in OWN]
    floor = [k for k, _, _ in FLOOR]
    busy = [k for k, _, _ in OWN + FLOOR + REST if k != 'meas']
    rows = [('  ' + label, (key,)) for key, label, _ in OWN] + [
        ("the CM's own (above the floor)", own),
        ("  the CM's own without waking, blocking",
         [k for k in own if k != 'cmwake']),
        ('  ib_cm', ('ibcm',)), ('  MAD layer (ib_core)', ('mad',)),
        ('  rxe (rdma_rxe)', ('rxe',)),
        ('  the kernel and ib_core, the rest',
         ('ibcore', 'ksched', 'kirq', 'kwork', 'kernel')),
        ('the floor (shared)', floor),
        ('bench_scale and libc, start-up, exit', ('prog', 'proc')),
        ('busy, without the measurement', busy)]
    print('\nthe same split over bench_scale (no QPs, at most RCM_BENCH_WINDOW'
          ' connections in set-up\nat once, all kept established; perf at'
          f' {hz} Hz): median CPU microseconds per connection')
    for count in counts:
        n = scale_conns(count)
        nr = len([1 for s, c, _ in runs if s == 'rcm' and c == count])
        print(f'\n{count} connections established ({n} made, {nr} rounds'
              ' each)')
        print(f'{"":<44}{"in-tree":>9}{"rcm":>9}{"ratio":>8}{"A/A":>6}')
        for label, keys in rows:
            print(line(label, per_conn(runs, samples, 'intree', count, keys,
                                       n),
                       per_conn(runs, samples, 'rcm', count, keys, n)))
    entry_table(path, 'sattr', counts[-1], scale_conns(counts[-1]), hz)
    wire_table(wire, events, sorted({c for _, c, _ in wire}),
               'the handshake on the wire over bench_scale (ib_cm\'s'
               ' tracepoints, a traced run per stack\nand round, at most'
               ' RCM_BENCH_WINDOW connections in set-up at once): median'
               ' milliseconds per connection')
    if len(counts) < 2:
        return
    small, big = counts[0], counts[-1]
    print(f'\ngrowth from {small} to {big} connections established (median'
          f' at {big} over median at {small})')
    print(f'{"":<44}{"in-tree":>9}{"rcm":>9}{"ratio":>8}')
    for label, keys in rows:
        g = []
        for stack in ('intree', 'rcm'):
            a = per_conn(runs, samples, stack, small, keys,
                         scale_conns(small))
            b = per_conn(runs, samples, stack, big, keys, scale_conns(big))
            ma = statistics.median(v for _, v in a) if a else 0
            mb = statistics.median(v for _, v in b) if b else 0
            g.append(mb / ma if ma else None)
        cells = ''.join(f'{x:>9.2f}' if x else f'{"-":>9}' for x in g)
        ratio = f'{g[1] / g[0]:>8.2f}' if g[0] and g[1] else f'{"-":>8}'
        print(f'{label:<44}{cells}{ratio}')


def report_kmem(path):
    """What the CM module(s) allocate per connection (guest-attrib.sh's
    bench-kmem lines): slab allocations and their bytes, in all and by
    call site, the largest first."""
    sites = defaultdict(dict)       # (stack, count) -> site -> (n, bytes)
    for text in open(path, errors='replace'):
        if 'bench-kmem ' not in text:
            continue
        f = text[text.index('bench-kmem '):].split()
        if len(f) == 6:
            sites[(f[1], int(f[2]))][f[3]] = (int(f[4]), int(f[5]))
    for count in sorted({c for _, c in sites}):
        print(f'\nslab allocations of the CM module(s) per connection'
              f' (kmem tracepoints, a cmtime run of {count}\nper stack, by'
              ' call site; the floor\'s modules left out)')
        print(f'{"":<44}{"in-tree":>9}{"rcm":>9}{"ratio":>8}')
        tot = []
        for stack in ('intree', 'rcm'):
            v = sites.get((stack, count), {}).values()
            tot.append((sum(n for n, _ in v) / count,
                        sum(b for _, b in v) / count))
        for i, label in ((0, 'allocations'), (1, 'bytes')):
            a, b = tot[0][i], tot[1][i]
            ratio = f'{b / a:>8.2f}' if a else f'{"-":>8}'
            print(f'{label:<44}{a:>9.1f}{b:>9.1f}{ratio}')
        for stack in ('intree', 'rcm'):
            top = sorted(sites.get((stack, count), {}).items(),
                         key=lambda kv: (-kv[1][1], kv[0]))
            print(f'  {stack}: ' + ', '.join(
                f'{s} {n / count:.2f} x {b / n:.0f}' for s, (n, b) in top))


if __name__ == '__main__':
    report(sys.argv[1])
    report_scale(sys.argv[1])
    report_kmem(sys.argv[1])
