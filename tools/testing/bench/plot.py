#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""plot.py DIR [OUT]: SVG plots of make bench's data files in DIR.

DIR is one run's directory (build/bench/runs/STAMP: bench.csv from
report.py, churn.csv from churn.py, rsockets.csv from rsockets.py) or
tools/testing/bench/records (DATE-bench.csv, DATE-churn.csv,
DATE-rsockets.csv: the newest of each kind is drawn).
The plots go to OUT (default DIR/plots), one SVG per figure, each drawn
only when its data is there:

  cost-per-connection.svg  bench_scale's set-up time per connection
                           against the connection count, rcm beside
                           in-tree
  cpu-per-connection.svg   the same for its CPU time (set-up, teardown)
  setup-phases.svg         bench_scale's set-up phases (client side)
  syscalls.svg             system calls per connection, all and the CM's
  memory.svg               slab bytes per idle id and per connection
  churn-calls.svg          the concurrency bench's calls per second
  churn-ratio.svg          its rcm / in-tree calls per second, with the
                           A/A (in-tree's odd rounds over its even ones)
  rsockets.svg             rsockets: rcm's speed-up over in-tree per
                           rstream run and in short connections per
                           second, with the A/A

Figures are medians over the rounds. The SVG is written directly (no
plotting library): the same data gives the same file.
"""
import csv
import glob
import math
import os
import statistics
import sys
from collections import defaultdict
from xml.sax.saxutils import escape

STACKS = (('intree', 'in-tree', '#4e79a7'), ('rcm', 'rcm', '#f28e2b'))
MORE = ('#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1')
W, H = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 45, 70
NOTE = ''                       # the file a plot is drawn from


def axis(v):
    """The axis' top (at least v) and its step, 1, 2, 2.5 or 5 times a
    power of ten, for four to six gridlines."""
    if v <= 0:
        return 1.0, 0.25
    raw = v / 5
    p = 10 ** math.floor(math.log10(raw))
    step = next(m * p for m in (1, 2, 2.5, 5, 10) if m * p >= raw)
    return math.ceil(v / step - 1e-9) * step, step


def fmt(v):
    """A value as a label: no more digits than it needs."""
    if v == 0 or v >= 100:
        return f'{v:.0f}'
    if v >= 10:
        return f'{v:.1f}'
    return f'{v:.2f}'


class Svg:
    """An SVG drawing of W x H with a plot area inside the margins."""

    def __init__(self, title, ylabel):
        """A drawing titled @title (and the data's file, NOTE) with the
        y axis of @ylabel."""
        self.out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}"'
                    f' height="{H}" viewBox="0 0 {W} {H}"'
                    ' font-family="sans-serif" font-size="11">',
                    f'<title>{escape(title)}</title>',
                    f'<rect width="{W}" height="{H}" fill="white"/>',
                    f'<text x="{W / 2}" y="20" text-anchor="middle"'
                    f' font-size="13">{escape(title)}</text>',
                    f'<text transform="translate(16,{TOP + self.ph / 2})'
                    f' rotate(-90)" text-anchor="middle">'
                    f'{escape(ylabel)}</text>']
        if NOTE:
            self.text(W / 2, 33, NOTE, extra=' font-size="9" fill="#555"')

    pw = W - LEFT - RIGHT
    ph = H - TOP - BOTTOM

    def add(self, s):
        self.out.append(s)

    def text(self, x, y, s, anchor='middle', extra=''):
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"'
                 f'{extra}>{escape(s)}</text>')

    def line(self, x1, y1, x2, y2, colour='#999', extra=''):
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}"'
                 f' y2="{y2:.1f}" stroke="{colour}"{extra}/>')

    def yaxis(self, vmax):
        """Gridlines from 0 to above vmax (axis()); returns value -> y."""
        top, step = axis(vmax)

        def y(v):
            return TOP + self.ph - v / top * self.ph
        for i in range(round(top / step) + 1):
            v = step * i
            self.line(LEFT, y(v), LEFT + self.pw, y(v), '#ddd')
            self.text(LEFT - 6, y(v) + 4,
                      f'{v:.0f}' if step == int(step) else fmt(v), 'end')
        self.line(LEFT, TOP, LEFT, TOP + self.ph, '#333')
        self.line(LEFT, TOP + self.ph, LEFT + self.pw, TOP + self.ph, '#333')
        return y

    def legend(self, items):
        """[(label, colour, dashed)] in a row under the plot area."""
        x = LEFT
        for label, colour, dashed in items:
            if x + 22 + 6 * len(label) > W:
                break
            dash = ' stroke-dasharray="5,3"' if dashed else ''
            self.line(x, H - 14, x + 18, H - 14, colour,
                      f' stroke-width="3"{dash}')
            self.text(x + 22, H - 10, label, 'start')
            x += 30 + 6 * len(label)

    def write(self, path):
        with open(path, 'w') as f:
            f.write('\n'.join(self.out + ['</svg>']) + '\n')


def bars(path, title, ylabel, groups, series, ref=None, marks=None):
    """Grouped bars: groups [label], series [(label, colour, [value or
    None per group])]; ref: a dashed line at that value; marks: {(group,
    series): value} drawn as a tick on the bar's axis (the A/A)."""
    vals = [v for _, _, vs in series for v in vs if v is not None]
    vals += list((marks or {}).values()) + ([ref] if ref else [])
    if not vals:
        return False
    svg = Svg(title, ylabel)
    y = svg.yaxis(max(vals) * 1.08)
    gw = svg.pw / len(groups)
    bw = gw * 0.8 / len(series)
    for g, label in enumerate(groups):
        x0 = LEFT + g * gw + gw * 0.1
        svg.text(LEFT + (g + 0.5) * gw, TOP + svg.ph + 16, label)
        for s, (_, colour, vs) in enumerate(series):
            v = vs[g]
            if v is None:
                continue
            x = x0 + s * bw
            svg.add(f'<rect x="{x:.1f}" y="{y(v):.1f}" width="{bw - 2:.1f}"'
                    f' height="{y(0) - y(v):.1f}" fill="{colour}"/>')
            svg.text(x + bw / 2 - 1, y(v) - 3, fmt(v), extra=' font-size="9"')
            m = (marks or {}).get((g, s))
            if m is not None:
                svg.line(x + 2, y(m), x + bw - 4, y(m), '#000',
                         ' stroke-width="2"')
    if ref is not None:
        svg.line(LEFT, y(ref), LEFT + svg.pw, y(ref), '#000',
                 ' stroke-dasharray="4,3"')
    svg.legend([(label, colour, False) for label, colour, _ in series] +
               ([('A/A', '#000', False)] if marks else []))
    svg.write(path)
    return True


def lines(path, title, ylabel, xs, series):
    """Lines over a log x axis: xs [x], series [(label, colour, dashed,
    {x: value})]; the first series' values labelled above their points,
    the others' below."""
    vals = [v for *_, pts in series for v in pts.values()]
    if len(xs) < 2 or not vals:
        return False
    svg = Svg(title, ylabel)
    y = svg.yaxis(max(vals) * 1.08)
    lo, hi = math.log10(min(xs)), math.log10(max(xs))

    def x(v):
        return LEFT + 20 + (math.log10(v) - lo) / (hi - lo) * (svg.pw - 40)
    for v in xs:
        svg.line(x(v), TOP + svg.ph, x(v), TOP + svg.ph + 4, '#333')
        svg.text(x(v), TOP + svg.ph + 16, f'{v:,}'.replace(',', ' '))
    svg.text(LEFT + svg.pw / 2, TOP + svg.ph + 32,
             'connections (log scale)')
    for i, (_, colour, dashed, pts) in enumerate(series):
        p = sorted(pts.items())
        if not p:
            continue
        dash = ' stroke-dasharray="5,3"' if dashed else ''
        d = ' '.join(f'{x(a):.1f},{y(b):.1f}' for a, b in p)
        svg.add(f'<polyline points="{d}" fill="none" stroke="{colour}"'
                f' stroke-width="2"{dash}/>')
        for a, b in p:
            svg.add(f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3"'
                    f' fill="{colour}"/>')
            svg.text(x(a) + 5, y(b) + (-6 if i == 0 else 13), fmt(b),
                     'start', ' font-size="9"')
    svg.legend([(label, colour, dashed) for label, colour, dashed, _
                in series])
    svg.write(path)
    return True


def med(v):
    return statistics.median(v) if v else None


def newest(d, name):
    """DIR/name, else the newest DIR/*-name (records are named by date)."""
    if os.path.exists(os.path.join(d, name)):
        return os.path.join(d, name)
    found = sorted(glob.glob(os.path.join(d, f'*-{name}')))
    return found[-1] if found else None


def read_bench(path):
    """(kind, stack, count, metric) -> {round: value} of report.py's CSV."""
    data = defaultdict(dict)
    with open(path) as f:
        for r in csv.DictReader(f):
            count = int(r['count']) if r['count'] else 0
            data[(r['kind'], r['stack'], count, r['metric'])][
                r['round']] = float(r['value'])
    return data


def plot_bench(path, out):
    """The plots of report.py's CSV; the names of those drawn."""
    global NOTE
    NOTE = f'from {os.path.basename(path)}'
    data = read_bench(path)
    drawn = []

    def rounds(kind, stack, count, metric):
        return data.get((kind, stack, count, metric), {})

    def good(stack, count):
        """The bench_scale rounds without failed connections."""
        return [r for r, v in rounds('scale', stack, count, 'failed').items()
                if not v]

    counts = sorted({k[2] for k in data if k[0] == 'scale'})
    for name, what, metrics in (
            ('cost-per-connection.svg', 'set-up wall time',
             ('connect_us',)),
            ('cpu-per-connection.svg', 'CPU time in all (set-up and'
             ' teardown)', ('connect_cpu_us', 'teardown_cpu_us'))):
        series = []
        for st, label, colour in STACKS:
            pts = {}
            for c in counts:
                v = [sum(rounds('scale', st, c, m)[r] for m in metrics)
                     for r in good(st, c)
                     if all(r in rounds('scale', st, c, m)
                            for m in metrics)]
                if v:
                    pts[c] = med(v)
            series.append((label, colour, False, pts))
        if lines(os.path.join(out, name),
                 f'bench_scale: {what} per connection by connection count',
                 'us per connection (median)', counts, series):
            drawn.append(name)

    counts = sorted({k[2] for k in data if k[0] == 'sphase'})
    if counts:
        c = counts[-1]
        names = (('addr_us', 'create -> addr'), ('route_us', '-> route'),
                 ('connect_us', '-> response'), ('set_up_us', 'whole'))
        series = [(label, colour,
                   [med(list(rounds('sphase', st, c, m).values()))
                    for m, _ in names]) for st, label, colour in STACKS]
        if bars(os.path.join(out, 'setup-phases.svg'),
                f'bench_scale set-up phases, client side, {c} connections',
                'us per connection (median)', [n for _, n in names],
                series):
            drawn.append('setup-phases.svg')

    def one(kind, stack, metric):
        """The value of a figure with no rounds (any count)."""
        for k, v in data.items():
            if k[0] == kind and k[1] == stack and k[3] == metric and v:
                return med(list(v.values()))
        return None

    groups = (('syscalls', 'cli', 'client, all'),
              ('syscalls', 'srv', 'server, all'),
              ('cmcalls', 'cli', 'client, CM device'),
              ('cmcalls', 'srv', 'server, CM device'))
    series = [(label, colour, [one(k, st, m) for k, m, _ in groups])
              for st, label, colour in STACKS]
    if bars(os.path.join(out, 'syscalls.svg'),
            'system calls per connection (strace, 100 connections)',
            'calls per connection', [g for *_, g in groups], series):
        drawn.append('syscalls.svg')

    acc = sorted({k[2] for k in data if k[0] == 'accept'})
    scl = sorted({k[2] for k in data if k[0] == 'scale'})
    groups = [('idle id', lambda st: one('ids', st, 'bytes_per_id'))]
    if acc:
        groups.append((f'connection, bench_accept {acc[-1]}', lambda st: med(
            list(rounds('accept', st, acc[-1],
                        'slab_bytes_per_conn').values()))))
    if scl:
        groups.append((f'connection, bench_scale {scl[-1]}', lambda st: med(
            [rounds('scale', st, scl[-1], 'slab_bytes_per_conn')[r]
             for r in good(st, scl[-1])])))
    series = [(label, colour, [f(st) for _, f in groups])
              for st, label, colour in STACKS]
    if bars(os.path.join(out, 'memory.svg'),
            'kernel slab memory per idle id and per established connection',
            'bytes', [g for g, _ in groups], series):
        drawn.append('memory.svg')
    return drawn


def plot_churn(path, out):
    """The concurrency bench's plots from churn.py's CSV."""
    global NOTE
    NOTE = f'from {os.path.basename(path)}'
    runs = defaultdict(list)       # (stack, variant, shape) -> [(round, cps)]
    with open(path) as f:
        for r in csv.DictReader(f):
            runs[(r['stack'], r['variant'], r['shape'])].append(
                (int(r['round']), float(r['calls_per_s'])))
    variants = list(dict.fromkeys(k[1] for k in sorted(
        runs, key=lambda k: ('clean faults kill remove'.find(k[1]), k))))
    shapes = sorted({k[2] for k in runs},
                    key=lambda s: [int(n) for n in s.split('x')])
    drawn = []
    keys = [(v, s) for s in shapes for v in variants]
    series = [(label, colour,
               [med([c for _, c in runs.get((st, v, s), [])])
                for v, s in keys]) for st, label, colour in STACKS]
    if bars(os.path.join(out, 'churn-calls.svg'),
            'concurrency (bench_churn): library calls per second',
            'calls per second (median)', [f'{v} {s}' for v, s in keys],
            series):
        drawn.append('churn-calls.svg')

    def ratio(v, s):
        a = med([c for _, c in runs.get(('intree', v, s), [])])
        b = med([c for _, c in runs.get(('rcm', v, s), [])])
        return b / a if a and b is not None else None

    def aa(v, s):
        odd = [c for r, c in runs.get(('intree', v, s), []) if r % 2]
        even = [c for r, c in runs.get(('intree', v, s), []) if not r % 2]
        return med(odd) / med(even) if odd and even and med(even) else None
    series = [(shape, MORE[i % len(MORE)], [ratio(v, shape)
                                            for v in variants])
              for i, shape in enumerate(shapes)]
    marks = {(g, i): aa(v, shape) for g, v in enumerate(variants)
             for i, shape in enumerate(shapes) if aa(v, shape) is not None}
    if bars(os.path.join(out, 'churn-ratio.svg'),
            'concurrency: rcm / in-tree calls per second (1 = parity)',
            'ratio (median)', variants, series, ref=1.0, marks=marks):
        drawn.append('churn-ratio.svg')
    return drawn


def plot_rsockets(path, out):
    """The rsockets part's plot from rsockets.py's CSV: rcm against
    in-tree per run, each as a speed-up (bandwidth and connections per
    second rcm / in-tree, latency in-tree / rcm: above 1, rcm is ahead),
    with the A/A."""
    global NOTE
    NOTE = f'from {os.path.basename(path)}'
    runs = defaultdict(list)        # (stack, group) -> [(round, value)]
    faster = {}                     # group -> whether more is better
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['run'].startswith('churn'):
                g, v, up = f'conns/s {r["run"][6:]}', r['conns_per_s'], True
            elif r['run'] == 'lat':
                g, v, up = f'lat {r["size"]} B', r['usec_per_xfer'], False
            else:
                g, v, up = f'bw {r["size"]} B', r['gbps'], True
            if v:
                runs[(r['stack'], g)].append((int(r['round']), float(v)))
                faster[g] = up
    groups = sorted(faster, key=lambda g: ('bw lat conns'.find(g[:2]), g))

    def speedup(a, b, g):
        if not a or not b:
            return None
        return b / a if faster[g] else a / b

    def ratio(g):
        return speedup(med([v for _, v in runs.get(('intree', g), [])]),
                       med([v for _, v in runs.get(('rcm', g), [])]), g)

    def aa(g):
        rows = runs.get(('intree', g), [])
        return speedup(med([v for r, v in rows if not r % 2]),
                       med([v for r, v in rows if r % 2]), g)
    series = [('rcm / in-tree', STACKS[-1][2], [ratio(g) for g in groups])]
    marks = {(i, 0): aa(g) for i, g in enumerate(groups)
             if aa(g) is not None}
    if bars(os.path.join(out, 'rsockets.svg'),
            'rsockets: rcm against in-tree (above 1: rcm ahead)',
            'speed-up (median)', groups, series, ref=1.0, marks=marks):
        return ['rsockets.svg']
    return []


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.split('\n')[0], file=sys.stderr)
        return 2
    d = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(d, 'plots')
    os.makedirs(out, exist_ok=True)
    drawn = []
    bench = newest(d, 'bench.csv')
    if bench:
        drawn += plot_bench(bench, out)
    churn = newest(d, 'churn.csv')
    if churn:
        drawn += plot_churn(churn, out)
    rsockets = newest(d, 'rsockets.csv')
    if rsockets:
        drawn += plot_rsockets(rsockets, out)
    for name in drawn:
        print(os.path.join(out, name))
    if not drawn:
        print(f'plot.py: no data to draw in {d}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
