#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Boot an rcm test guest (or a pair) under QEMU (TCG) and report results.

The guest's /init (guest-init.sh) runs the requested tests and prints
"rcm-" lines on the serial console; this program turns them into one
result line per test on stdout:

    PASS <label>.<test>
    FAIL <label>.<test>: <why>
    SKIP <label>.<test>

plus, for every boot, "<label>.guest-finished" (the guest reached the end
within its time bound) and "<label>.kernel-log" (no BUG, WARNING, KASAN,
lockdep, oops or kmemleak report in the guest kernel log). The exit
status is 1 if anything failed. The complete console log is written to
--log.

With --pair, two guests boot at once, joined by a QEMU socket netdev on
127.0.0.1 (their only network); each puts its RDMA devices on its
virtio NIC (198.18.20.1 for "a", 198.18.20.2 for "b") and its results
are labelled <label>.a and <label>.b. --kernel-b and --initrd-b boot
guest b on another kernel than a.

With --root-9p, QEMU also exports the host's / read-only over 9p (mount
tag "rcmroot") for an initramfs whose /init is root-init.sh: the guest
then runs on the host's own Debian root under a tmpfs overlay. Each
--share TAG=DIR exports one more host directory, writable, which
root-init.sh mounts at /run/rcm/share/TAG: what the guest writes there
outlives it (deb-check.sh keeps the guest's compiler cache so).

With RCM_GUEST_SLOTS=N:DIR in the environment, a guest (or a pair, whose
two guests mostly wait for each other) first waits for one of N slots,
lock files in DIR shared by every run-guest.py that names them, and
holds it until it ends; the waiters take free slots in the order they
came. make check sets N to the host's cores: TCG guests that outnumber
the cores run slower in all, not only each (a test-kernel guest list
that takes 290 CPU-seconds alone took 490 beside six others), and their
programs' own timeouts fire.
"""
import argparse
import contextlib
import fcntl
import os
import re
import selectors
import subprocess
import socket
import sys
import threading
import time



def splat_patterns():
    """The one list of kernel-log failures, shared with the guest."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        'splat-patterns')
    with open(path) as f:
        lines = [ln.strip() for ln in f]
    return re.compile('|'.join(ln for ln in lines
                               if ln and not ln.startswith('#')))


# Backstop for what the guest cannot report itself (a panic, a hang).
CONSOLE_SPLAT = splat_patterns()
KTAP_CASE = re.compile(r'^(\s*)(not ok|ok) \d+ (.*?)(\s+#\s*(SKIP.*))?$')
KTAP_SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')


PRINT_LOCK = threading.Lock()


def say(line):
    with PRINT_LOCK:
        print(line, flush=True)


class Results:
    """Results of one boot, printed only once the boot is known to count."""

    def __init__(self, label):
        self.label = label
        self.rows = []
        self.lines = []

    def add(self, status, name, why=''):
        name = f'{self.label}.{name}'
        self.rows.append((status, name, why))
        self.lines.append(f'{status} {name}' + (f': {why}' if why else ''))

    def note(self, line):
        self.lines.append(line)

    def flush(self):
        with PRINT_LOCK:
            for line in self.lines:
                print(line, flush=True)
        self.lines = []

    def failed(self):
        return any(s == 'FAIL' for s, _, _ in self.rows)


def parse_ktap(lines, res):
    """Report each KUnit case of the KTAP that rcm.ko printed at load.

    KTAP nests by indentation, four spaces a level: a suite's cases at
    level 1, a parameterised case's rows at level 2, under its own
    "# Subtest:" line, followed by the case's summary at level 1. Each
    row is a result, kunit.SUITE.CASE.ROW, and the summary is not
    counted again; a case or suite that failed before any row or case
    is a result of its own.
    """
    stack = []          # [level, name, results under it], outermost first
    ncases = 0
    for line in lines:
        m = KTAP_SUBTEST.match(line)
        if m:
            level = len(m.group(1)) // 4
            stack = [e for e in stack if e[0] < level]
            stack.append([level, m.group(2), 0])
            continue
        m = KTAP_CASE.match(line)
        if not m:
            continue
        indent, verdict, name, _, skip = m.groups()
        level = len(indent) // 4
        closed = [e for e in stack if e[0] > level]
        stack = [e for e in stack if e[0] <= level]
        if any(e[1] == name and e[2] for e in closed):
            continue    # a parameterised case's summary: its rows counted
        if level == 0:     # a suite's verdict: one without results
            if verdict == 'not ok':
                res.add('FAIL', f'kunit.{name}',
                        'suite failed before its cases')
            continue
        if not stack:
            continue
        status = 'SKIP' if skip else ('PASS' if verdict == 'ok' else 'FAIL')
        path = '.'.join(e[1] for e in stack)
        res.add(status, f'kunit.{path}.{name}')
        for e in stack:
            e[2] += 1
        ncases += 1
    if ncases == 0:
        res.add('FAIL', 'kunit', 'no KTAP case in the kernel log')


# What the guest prints when the kernel log had a report before rcm.ko
# was even loaded: the boot itself went wrong, not the code under test.
BOOT_SPLAT = 'rcm-fatal: kernel log not clean before rcm loaded'
# What it prints just before it loads rcm.ko (guest-init.sh), or before
# it runs the program that will (root-init.sh). A report on the console
# before that line, as when the kernel oopses while it boots (once, in
# the distro 6.12 guest: "Oops: int3" at 8 s, before /init), is a boot
# that went wrong as well.
RCM_LOADING = 'rcm-loading'
BOOT_ATTEMPTS = 3


def clock_ahead(guest_s, host_s):
    """Why the guest's clock cannot be trusted, or None.

    The guest's uptime at /init (@guest_s) cannot exceed the time since
    QEMU started (@host_s). Under TCG on an overloaded host a guest once
    booted with a clock running four times too fast (1660 s of uptime in
    410 s): every timeout in it then fires early. That boot is retried
    like one with a kernel report.
    """
    if guest_s <= host_s * 1.25 + 5:
        return None
    return (f'guest clock ahead: {guest_s:.0f} s of uptime at /init, '
            f'{host_s:.0f} s after QEMU started')


def run_guest(args, label, log_path, extra_append=(), extra_qemu=()):
    """Boot one guest, report its results; True if nothing failed.

    A kernel report during boot, before rcm.ko is loaded, is not the code
    under test (the one seen: KASAN in rcu_is_watching() from a timer
    interrupt during identify_boot_cpu() under TCG, more often on a busy
    host), or a guest clock that runs ahead of the host's (clock_ahead()):
    the report is printed and the guest boots again, up to BOOT_ATTEMPTS
    boots in all; the last such boot counts as a failure.
    """
    for attempt in range(1, BOOT_ATTEMPTS + 1):
        res, boot_splat = boot_guest(args, label, log_path, extra_append,
                                     extra_qemu)
        if not boot_splat or attempt == BOOT_ATTEMPTS:
            break
        say(f'# {label}: kernel report during boot, before rcm.ko was '
            f'loaded (log kept as {log_path}.boot{attempt}); booting '
            f'again:')
        for s in boot_splat[:20]:
            say(f'    {s}')
        os.replace(log_path, f'{log_path}.boot{attempt}')
    res.flush()
    return not res.failed()


def progress(label, tests, res, timing, start):
    """One line on stderr as each guest test ends: the run can be followed.

    @timing is the guest's "rcm-time:" line: the test, its start and end
    (guest uptime, s) and, from guest-init.sh, the CPU seconds the guest
    was busy meanwhile. The result lines themselves go to stdout only
    once the boot is known to count (see run_guest()).
    """
    test = timing[0]
    took = ''
    if len(timing) >= 4:
        took = (f' ({float(timing[2]) - float(timing[1]):.0f}s,'
                f' busy {timing[3]}s)')
    rows = [r for r in res.rows if r[1].startswith(f'{res.label}.{test}.')
            or r[1] == f'{res.label}.{test}']
    count = {s: sum(1 for r in rows if r[0] == s)
             for s in ('PASS', 'FAIL', 'SKIP')}
    k = tests.index(test) + 1 if test in tests else '?'
    with PRINT_LOCK:
        print(f'# {label} [{k}/{len(tests)} +{time.monotonic() - start:.0f}s]'
              f' {test}: {count["PASS"]} passed, {count["FAIL"]} failed,'
              f' {count["SKIP"]} skipped{took}', file=sys.stderr, flush=True)


def boot_guest(args, label, log_path, extra_append, extra_qemu, abort=None,
               kernel=None, initrd=None):
    """One boot; returns its Results and the pre-rcm splat lines, if any.

    @abort, a threading.Event shared by the two guests of a pair: set when
    this one has a report during boot, and when set (by the other), this
    one is stopped. @kernel and @initrd default to --kernel and --initrd.
    """
    tests = [t for t in args.tests.split(',') if t]
    # no_timer_check: the IO-APIC set-up's test of the timer interrupt
    # (10 to 40 ticks' worth of TSC cycles in which jiffies must move) is
    # not a test of the guest under TCG on a busy host, where the QEMU
    # process may not run for that long: three boots in a row once ended
    # in "IO-APIC + timer doesn't work!". KVM guests skip it the same way.
    append = ['console=ttyS0', 'loglevel=4', 'panic=-1', '8250.nr_uarts=1',
              'rdinit=/init', 'kmemleak=on', 'nokaslr', 'no_timer_check',
              f'rcm_tests={",".join(tests)}', f'rcm_rdma={args.rdma}',
              f'rcm_timeout={args.test_timeout}',
              f'rcm_kunit={1 if args.kunit else 0}',
              *([f'rcm_case={args.case}'] if args.case else []),
              *extra_append]
    qemu = ['qemu-system-x86_64', '-accel', 'tcg', '-cpu', 'max',
            '-smp', str(args.smp),
            '-m', args.memory, '-nodefaults', '-no-user-config',
            '-display', 'none', '-serial', 'stdio', '-no-reboot',
            '-kernel', kernel or args.kernel, '-initrd', initrd or args.initrd,
            '-append', ' '.join(append), *extra_qemu]
    res = Results(label)
    start = time.monotonic()
    seen = set()
    ktap = []
    splats = []
    done = False
    timed_out = False
    boot_s = None
    boot_splat = None
    loading = False
    # Line-buffered: the log can be followed while the guest runs.
    with open(log_path, 'w', errors='replace', buffering=1) as log:
        log.write(' '.join(qemu) + '\n')
        proc = subprocess.Popen(qemu, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buf = b''
        while True:
            left = args.guest_timeout - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                proc.kill()
                break
            if abort is not None and abort.is_set() and not boot_splat:
                proc.kill()
                break
            if not sel.select(timeout=min(left, 5)):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            *lines, buf = buf.split(b'\n')
            for raw in lines:
                line = raw.decode('utf-8', 'replace').rstrip('\r')
                log.write(line + '\n')
                if line.startswith('rcm-result: '):
                    parts = line[len('rcm-result: '):].split(' ', 2)
                    status, name = parts[0], parts[1]
                    why = parts[2] if len(parts) > 2 else ''
                    seen.add(name.split('.')[0])
                    res.add(status, name, why)
                elif line.startswith('rcm-ktap: '):
                    ktap.append(line[len('rcm-ktap: '):])
                elif line.startswith('rcm-splat: '):
                    splats.append(line[len('rcm-splat: '):])
                elif line.startswith('rcm-boot: '):
                    boot_s = line.split()[1]
                    ahead = clock_ahead(float(boot_s),
                                        time.monotonic() - start)
                    if ahead:
                        # Nothing this boot would time can be trusted.
                        splats.append(ahead)
                        boot_splat = list(splats)
                        if abort is not None:
                            abort.set()
                        proc.kill()
                elif line.startswith('rcm-fatal: '):
                    splats.append('guest setup failed: ' + line[11:])
                    if line.startswith(BOOT_SPLAT):
                        boot_splat = list(splats)
                        if abort is not None:
                            abort.set()
                elif line.startswith('rcm-time: '):
                    progress(label, tests, res, line.split()[1:], start)
                elif line.startswith('rcm-done'):
                    done = True
                elif line.startswith(RCM_LOADING):
                    loading = True
                elif CONSOLE_SPLAT.search(line) and not line.startswith('rcm-'):
                    splats.append('console: ' + line.strip())
                    if not loading and not boot_splat:
                        boot_splat = list(splats)
                        if abort is not None:
                            abort.set()
        # Reaped here for its resource usage: the CPU time QEMU took is
        # what a guest costs a machine whose cores it shares.
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        cpu_s = usage.ru_utime + usage.ru_stime

    if args.kunit:
        parse_ktap(ktap, res)
    for t in tests:
        if t not in seen:
            res.add('FAIL', t, 'no result (guest stopped early)')
    elapsed = time.monotonic() - start
    if done:
        res.add('PASS', 'guest-finished')
    else:
        why = (f'killed after {args.guest_timeout}s' if timed_out
               else 'guest stopped before the end')
        res.add('FAIL', 'guest-finished', why)
    if splats:
        res.add('FAIL', 'kernel-log', f'{len(splats)} report line(s), first: '
                + splats[0])
        for s in splats[:40]:
            res.note(f'    {s}')
    else:
        res.add('PASS', 'kernel-log')
    res.note(f'# {label}: boot to /init {boot_s or "?"} s, '
             f'whole guest {elapsed:.0f} s, CPU {cpu_s:.0f} s, '
             f'log {log_path}')
    return res, boot_splat


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def run_pair(args):
    """Boot guests a and b joined by a socket netdev; True if all passed.

    A kernel report during either guest's boot stops both, and the pair
    boots again on a new socket (see run_guest()): a guest that booted
    again alone would find its peer's side of the socket closed, and the
    two would no longer meet at each phase.
    """
    for attempt in range(1, BOOT_ATTEMPTS + 1):
        abort = threading.Event() if attempt < BOOT_ATTEMPTS else None
        got = boot_pair(args, abort)
        splat = [(role, s) for role, (_, s) in got.items() if s]
        if not splat or attempt == BOOT_ATTEMPTS:
            break
        for role, lines in splat:
            say(f'# {args.label}.{role}: kernel report during boot, before '
                f'rcm.ko was loaded; booting the pair again (logs kept as '
                f'{args.log}.a.boot{attempt} and .b.boot{attempt}):')
            for s in lines[:20]:
                say(f'    {s}')
        for role in ('a', 'b'):
            os.replace(f'{args.log}.{role}', f'{args.log}.{role}.boot{attempt}')
    for role in ('a', 'b'):
        got[role][0].flush()
    return all(not got[role][0].failed() for role in ('a', 'b'))


def listening(port, timeout=60):
    """Wait (up to @timeout s) until a socket listens on 127.0.0.1:@port."""
    want = f'0100007F:{port:04X}'
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open('/proc/net/tcp') as f:
            next(f)     # the header
            for line in f:
                fields = line.split()
                if fields[1] == want and fields[3] == '0A':     # TCP_LISTEN
                    return True
        time.sleep(0.05)
    return False


def boot_pair(args, abort):
    """One boot of the pair: {role: (Results, pre-rcm splat lines)}."""
    port = free_port()
    got = {}
    threads = []
    for i, role in enumerate(('a', 'b')):
        mode = 'listen' if role == 'a' else 'connect'
        mac = f'52:54:00:18:20:0{i + 1}'
        peer_mac = f'52:54:00:18:20:0{2 - i}'
        qemu = ['-netdev', f'socket,id=n0,{mode}=127.0.0.1:{port}',
                '-device', f'virtio-net-pci,netdev=n0,mac={mac}']
        # acpi=noirq: the NIC's interrupt routing comes from the BIOS
        # table, not from the _PRT method, which QEMU's ACPI builds in an
        # AML loop that outlasts ACPICA's 30 s loop bound in a KASAN
        # kernel under TCG (AE_AML_LOOP_TIMEOUT and an RCU stall at
        # boot). virtio-net takes MSI-X either way.
        append = [f'rcm_pair={role}', f'rcm_peer_mac={peer_mac}',
                  'acpi=noirq']
        label = f'{args.label}.{role}'
        kernel, initrd = args.kernel, args.initrd
        if role == 'b':
            kernel = args.kernel_b or kernel
            initrd = args.initrd_b or initrd

        def boot(label=label, role=role, append=append, qemu=qemu,
                 kernel=kernel, initrd=initrd):
            got[role] = boot_guest(args, label, f'{args.log}.{role}',
                                   append, qemu, abort, kernel, initrd)
        t = threading.Thread(target=boot)
        t.start()
        threads.append(t)
        if role == 'a':
            listening(port)     # b connects to a's listening socket
    for t in threads:
        t.join()
    return got


def take_slot(label):
    """Wait for a guest slot of $RCM_GUEST_SLOTS: its open, locked file
    (a context manager, as is the null one returned without the variable).

    Each waiter leaves a ticket (DIR/wait.<ns>.<pid>) while it waits and
    takes a slot only when no older ticket of a live process remains: the
    first to ask is the first served.
    """
    spec = os.environ.get('RCM_GUEST_SLOTS', '')
    if not spec:
        return contextlib.nullcontext()
    count, _, slot_dir = spec.partition(':')
    if not count.isdigit() or int(count) < 1 or not slot_dir:
        sys.exit(f'RCM_GUEST_SLOTS={spec}: want N:DIR, N >= 1')
    os.makedirs(slot_dir, exist_ok=True)
    start = time.monotonic()
    ticket = os.path.join(slot_dir,
                          f'wait.{time.monotonic_ns():020d}.{os.getpid()}')
    open(ticket, 'w').close()
    try:
        while True:
            if first_in_line(slot_dir, ticket):
                for i in range(int(count)):
                    f = open(os.path.join(slot_dir, f'slot{i}'), 'a')
                    try:
                        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        f.close()
                        continue
                    waited = time.monotonic() - start
                    if waited >= 1:
                        say(f'# {label}: waited {waited:.0f} s for a guest '
                            f'slot ({count} at once)')
                    return f
            time.sleep(0.5)
    finally:
        os.unlink(ticket)


def first_in_line(slot_dir, ticket):
    """True if no live waiter's ticket in @slot_dir is older than @ticket."""
    for name in sorted(os.listdir(slot_dir)):
        path = os.path.join(slot_dir, name)
        if path == ticket:
            return True
        if not name.startswith('wait.'):
            continue
        try:
            os.kill(int(name.rsplit('.', 1)[1]), 0)
            return False
        except (ProcessLookupError, ValueError):
            try:
                os.unlink(path)     # its waiter died waiting
            except FileNotFoundError:
                pass
        except PermissionError:
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument('--label', required=True, help='prefix of result names')
    ap.add_argument('--kernel', required=True,
                    help='kernel image: a PVH-capable vmlinux or a bzImage')
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--tests', default='', help='comma-separated test names')
    ap.add_argument('--case', default=os.environ.get('RCM_CASE', ''),
                    help='run only this case of each C test program '
                    '(default: $RCM_CASE)')
    ap.add_argument('--kunit', action='store_true',
                    help='collect the KUnit results printed when rcm loads')
    ap.add_argument('--rdma', default='rxe', help='rxe, siw or rxe,siw')
    ap.add_argument('--pair', action='store_true',
                    help='boot two guests joined by a socket netdev')
    ap.add_argument('--kernel-b', help='with --pair: guest b boots this '
                    'kernel (another series than a\'s: the pair then '
                    'crosses kernels)')
    ap.add_argument('--initrd-b', help='with --pair: guest b\'s initramfs')
    ap.add_argument('--test-timeout', type=int, default=120)
    ap.add_argument('--guest-timeout', type=int, default=900,
                    help='bound on the whole boot, in seconds')
    ap.add_argument('--memory', default='2G')
    ap.add_argument('--smp', type=int, default=2,
                    help='virtual CPUs; 1 for each of a pair of KASAN guests, '
                    'whose four TCG vCPUs on two host cores stall RCU at boot')
    ap.add_argument('--root-9p', action='store_true',
                    help="export the host's / read-only over 9p (tag "
                    'rcmroot) for root-init.sh')
    ap.add_argument('--share', action='append', default=[],
                    metavar='TAG=DIR', help='with --root-9p: export DIR '
                    'writable over 9p as TAG (/run/rcm/share/TAG)')
    ap.add_argument('--append', action='append', default=[],
                    metavar='PARAM', help='one more kernel parameter '
                    '(NAME=value reaches /init as a variable)')
    ap.add_argument('--log', required=True)
    args = ap.parse_args()
    with take_slot(args.label):
        return boot(ap, args)


def boot(ap, args):
    """main() once it holds a guest slot: 0 if nothing failed."""
    if args.pair:
        return 0 if run_pair(args) else 1
    qemu = []
    if args.root_9p:
        # multidevs=remap: the host's / spans several file systems,
        # whose inode numbers would collide in one 9p export.
        qemu = ['-virtfs', 'local,path=/,mount_tag=rcmroot,'
                'security_model=none,readonly=on,multidevs=remap']
    for share in args.share:
        tag, sep, path = share.partition('=')
        if not sep or not re.fullmatch(r'[a-z][a-z0-9_]*', tag) or \
                not os.path.isdir(path) or ',' in path or not args.root_9p:
            ap.error('--share takes TAG=DIR, an existing DIR, with --root-9p')
        qemu += ['-virtfs', f'local,path={path},mount_tag={tag},'
                 'security_model=none']
    return 0 if run_guest(args, args.label, args.log, args.append,
                          qemu) else 1


if __name__ == '__main__':
    sys.exit(main())
