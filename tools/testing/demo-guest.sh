#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# demo-guest.sh SERVER-LIB CLIENT-LIB COUNT SERVER-TAG CLIENT-TAG: the
# guest half of make demo (demo.sh). Debian's rping server on SERVER-LIB
# (rcm: rcm's librdmacm.so.1; intree: the distribution's) and its client
# on CLIENT-LIB move and verify COUNT messages over rxe0; their output is
# printed with the tags in front. The server's port comes from free_port
# and the client starts once the server listens (stacks.sh's next_port
# shellcheck disable=SC2154 # next_port sets it
# and listening), not after a sleep. Exit 0 when both ends do.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/rcm/stacks.sh
. "$here/stacks.sh"
ip=${RCM_ADDR_RXE:?no rxe address}
tmp=/tmp/demo.$$
mkdir -p "$tmp"

next_port
on "$1" timeout 120 rping -s -a "$ip" -p "$port" -C "$3" -v -V >"$tmp/s" 2>&1 &
spid=$!
listening $spid "$port"
on "$2" timeout 120 rping -c -a "$ip" -p "$port" -C "$3" -v -V \
	>"$tmp/c" 2>&1
c=$?
[ $c = 0 ] || kill $spid 2>/dev/null
wait $spid
s=$?
sed "s/^/$4: /" "$tmp/s"
sed "s/^/$5: /" "$tmp/c"
rm -rf "$tmp"
[ $c = 0 ] && [ $s = 0 ]
