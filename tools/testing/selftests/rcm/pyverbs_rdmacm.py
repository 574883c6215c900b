#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run rdma-core's own rdmacm tests (tests/test_rdmacm.py, as Debian's
python3-pyverbs ships them in /usr/share/doc/rdma-core/tests) on
whichever librdmacm.so.1 the dynamic linker gives pyverbs.

    pyverbs_rdmacm.py DIR

DIR holds the unpacked "tests" package. The tests find the IP address
of the RDMA device through /sys/class/infiniband/DEV/device/net, which a
Soft-RoCE device lacks (it has no parent bus device): they would skip
every case. For such a device alone, the address comes from the netdev
that its "parent" attribute names; nothing else in the tests changes.

Exit 0 when every test ran and passed, 1 otherwise (a skipped test
counts as a failure: what ran must be what the control run ran).
"""
import os
import sys
import types
import unittest


def netdev_of(dev):
    """The netdev of an RDMA device without a parent bus device."""
    with open('/sys/class/infiniband/%s/parent' % dev) as f:
        return f.read().strip()


def main():
    if len(sys.argv) != 2:
        print('usage: pyverbs_rdmacm.py DIR', file=sys.stderr)
        return 2
    top = os.path.abspath(sys.argv[1])
    sys.path[:0] = [top, os.path.join(top, 'tests')]
    sys.argv[1:] = []

    import args_parser
    args_parser.parser.parse_args()
    # The package without its __init__, which imports every test module
    # (compiling them all costs TCG 20 s): only what test_rdmacm needs.
    package = types.ModuleType('tests')
    package.__path__ = [os.path.join(top, 'tests')]
    sys.modules['tests'] = package
    import tests.base
    import tests.test_rdmacm

    case = tests.base.RDMATestCase
    upstream = case._get_ip_mac

    def get_ip_mac(self, dev, port, idx):
        if os.path.exists('/sys/class/infiniband/%s/device/net/' % dev):
            return upstream(self, dev, port, idx)
        ip, mac = self.get_ip_mac_address(netdev_of(dev))
        self.args.append([dev, port, idx, ip, mac])
        return None

    case._get_ip_mac = get_ip_mac
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests.test_rdmacm)
    res = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    print('# ran %d, failures %d, errors %d, skipped %d' %
          (res.testsRun, len(res.failures), len(res.errors),
           len(res.skipped)))
    ok = res.wasSuccessful() and not res.skipped and res.testsRun > 0
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
