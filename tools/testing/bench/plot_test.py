#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""plot_test.py: the bench's data path on the host (make check's host
step). From a sample of guest-bench.sh's lines, report.py must write
bench.csv with the figures the lines give, and from guest-rsockets.sh's,
rsockets.py rsockets.csv; from those and a sample churn.csv, plot.py
must write each plot as a well-formed SVG with its
title, bars or lines, and the sample's figures as labels. One "PASS
bench.NAME" or "FAIL bench.NAME: why" line per check; exit 1 if any
failed.
"""
import csv
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SVG = '{http://www.w3.org/2000/svg}'

LOG = """rcm-begin: bench
rcm-out: bench: bench-step intree 100 1 connect 500.0
rcm-out: bench: bench-step rcm 100 1 connect 450.0
rcm-out: bench: bench-accept intree 1000 8 1 300.5 2600
rcm-out: bench: bench-accept rcm 1000 8 1 280.5 2100
rcm-out: bench: bench-syscalls intree cli 100 5000
rcm-out: bench: bench-syscalls rcm cli 100 3000
rcm-out: bench: bench-syscalls intree srv 100 4000
rcm-out: bench: bench-syscalls rcm srv 100 2000
rcm-out: bench: bench-cmcalls intree cli 100 1800 /dev/infiniband/rdma_cm
rcm-out: bench: bench-cmcalls rcm cli 100 1100 /dev/infiniband/rcm
rcm-out: bench: bench-ids intree 10000 1274
rcm-out: bench: bench-ids rcm 10000 1058
rcm-out: bench: bench-scale intree 100 32 1 900.0 700.0 300.0 200.0 9000 0
rcm-out: bench: bench-scale rcm 100 32 1 850.0 650.0 280.0 190.0 7600 0
rcm-out: bench: bench-scale intree 10000 32 1 1000.0 760.0 330.0 220.0 9200 0
rcm-out: bench: bench-scale rcm 10000 32 1 900.0 700.0 300.0 200.0 7800 3
rcm-out: bench: bench-scale rcm 10000 32 2 920.0 710.0 305.0 205.0 7750 0
rcm-out: bench: bench-sphase intree 10000 32 1 300.0 200.0 400.0 900.0
rcm-out: bench: bench-sphase rcm 10000 32 1 280.0 190.0 380.0 850.0
rcm-out: bench: bench-phase cmtime-100 30.5
bench-progress scale_run 10000 rcm round 2/2
"""

CHURN = """stack,variant,shape,round,calls_per_s,conns_per_s,errors,kills,stale,crashes
intree,clean,4x3,1,1000.0,70.0,0,0,0,0
intree,clean,4x3,2,1200.0,80.0,0,0,0,0
rcm,clean,4x3,1,1650.0,110.0,0,0,0,0
rcm,clean,4x3,2,1650.0,110.0,0,0,0,0
intree,kill,4x3,1,900.0,60.0,0,1,0,0
rcm,kill,4x3,1,990.0,66.0,0,1,0,0
"""

RSOCKETS = """rcm-begin: rsockets
rcm-out: rsockets: bench-rstream intree bw 65536 400 1 0.10 5000.00 2.10
rcm-out: rsockets: bench-rstream intree bw 65536 400 2 0.12 4200.00 1.80
rcm-out: rsockets: bench-rstream rcm bw 65536 400 1 0.15 3300.00 1.40
rcm-out: rsockets: bench-rstream rcm bw 65536 400 2 0.15 3300.00 1.40
rcm-out: rsockets: bench-rstream intree lat 64 4000 1 0.00 2000.00 16.00
rcm-out: rsockets: bench-rstream rcm lat 64 4000 1 0.00 1000.00 8.00
rcm-out: rsockets: bench-rchurn intree poll 2 64 1 1.0 0 2500000 5000000 80000 110000 15 2400000 8000
rcm-out: rsockets: bench-rchurn rcm poll 2 64 1 20.0 0 90000 200000 60000 130000 300 18000 15000
"""

# Each plot and figures its labels must show: the medians of the
# sample (rcm's failed round at 10 000 left out: 920 + 710 + ... ).
WANT = {
    'cost-per-connection.svg': ['900', '850', '1000', '920'],
    'cpu-per-connection.svg': ['900', '840', '980', '915'],
    'setup-phases.svg': ['300', '280', '900', '850'],
    'syscalls.svg': ['50.0', '30.0', '18.0', '11.0'],
    'memory.svg': ['1274', '1058', '2600', '2100', '9200', '7750'],
    'churn-calls.svg': ['1100', '1650', '900', '990'],
    'churn-ratio.svg': ['1.50', '1.10'],
    # rcm's speed-up: bandwidth from the us per transfer, the median of
    # 5000 and 4200 over 3300 (1.38), latency 2000 / 1000 us,
    # connections per second 20 / 1.
    'rsockets.svg': ['1.38', '2.00', '20.0'],
}

results = []


def check(name, ok, why=''):
    results.append(ok)
    print(f'PASS bench.{name}' if ok else f'FAIL bench.{name}: {why}')


def svg_problem(path, labels):
    """Why @path is not a plot showing @labels, or None."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        return f'not well-formed XML: {e}'
    if root.tag != SVG + 'svg' or not root.get('viewBox'):
        return f'root {root.tag} without viewBox'
    title = root.find(SVG + 'title')
    if title is None or not (title.text or '').strip():
        return 'no title'
    marks = [e for e in root.iter() if e.tag in (SVG + 'polyline',)
             or (e.tag == SVG + 'rect' and e.get('fill') != 'white'
                 and float(e.get('height', 0)) > 0)]
    if not marks:
        return 'no bars and no lines'
    texts = {(e.text or '').strip() for e in root.iter(SVG + 'text')}
    missing = [v for v in labels if v not in texts]
    return f'labels {missing} missing' if missing else None


def to_csv(script, log, csv_path):
    """Run @script (report.py, rsockets.py) over the guest log @log into
    @csv_path: its completed process and the CSV's rows."""
    r = subprocess.run([sys.executable, os.path.join(HERE, script), log,
                        csv_path], capture_output=True, text=True)
    rows = []
    if os.path.exists(csv_path):
        with open(csv_path) as f:
            rows = list(csv.DictReader(f))
    return r, rows


def main():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'guest.log'), 'w') as f:
            f.write(LOG)
        with open(os.path.join(d, 'churn.csv'), 'w') as f:
            f.write(CHURN)
        with open(os.path.join(d, 'rsockets.log'), 'w') as f:
            f.write(RSOCKETS)
        r, rows = to_csv('rsockets.py', os.path.join(d, 'rsockets.log'),
                         os.path.join(d, 'rsockets.csv'))
        got = {(x['stack'], x['run'], x['round']): x for x in rows}
        check('rsockets-csv', r.returncode == 0 and len(rows) == 8 and
              got.get(('rcm', 'lat', '1'), {}).get('usec_per_xfer') ==
              '1000.0' and
              got.get(('intree', 'churn-poll', '1'), {}).get('echo_p50_us') ==
              '2400000' and 'rcm/in-tree 20.00' in r.stdout,
              f'exit {r.returncode}, {len(rows)} rows: {r.stderr[-300:]}')
        r, rows = to_csv('report.py', os.path.join(d, 'guest.log'),
                         os.path.join(d, 'bench.csv'))
        got = {(x['kind'], x['stack'], x['count'], x['round'], x['metric']):
               x['value'] for x in rows}
        check('report-csv', r.returncode == 0 and
              got.get(('scale', 'rcm', '10000', '2', 'connect_us')) ==
              '920.0' and
              got.get(('syscalls', 'intree', '100', '', 'cli')) == '50.00' and
              got.get(('ids', 'rcm', '10000', '', 'bytes_per_id')) == '1058'
              and not any(x['kind'] == 'progress' for x in rows),
              f'exit {r.returncode}, {len(rows)} rows: {r.stderr[-300:]}')
        r = subprocess.run([sys.executable, os.path.join(HERE, 'plot.py'), d],
                           capture_output=True, text=True)
        check('plot-exit', r.returncode == 0,
              f'exit {r.returncode}: {r.stderr[-300:]}')
        for name, labels in WANT.items():
            why = svg_problem(os.path.join(d, 'plots', name), labels)
            check(f'plot.{name[:-4]}', why is None, why)
        r = subprocess.run([sys.executable, os.path.join(HERE, 'plot.py'),
                            os.path.join(d, 'plots')],
                           capture_output=True, text=True)
        check('plot-no-data', r.returncode == 1,
              f'exit {r.returncode} on a directory without data')
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
