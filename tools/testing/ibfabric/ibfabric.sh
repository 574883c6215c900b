#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# ibfabric.sh: the test InfiniBand fabric rcm_ibfab.ko in a guest, as
# ib_core, ib_mad, ib_sa and ib_cm see it. Loads it (RCM_IBFAB_KO, else
# /lib/rcm/rcm_ibfab.ko), checks the two ports' attributes, runs SA path
# queries against the fabric's SA with its faults (status, drops, delays)
# and set answers, an ib_cm connection and disconnection both ways and an
# SA multicast join and leave of both ports, then unloads it. TAP, one
# line per case.

# The path cases pass their checks as text for eval.
# shellcheck disable=SC2016
ko=${RCM_IBFAB_KO:-/lib/rcm/rcm_ibfab.ko}
ctl=/sys/kernel/debug/rcm_ibfab/ctl
ib=/sys/class/infiniband
n=0

echo "TAP version 13"
echo "1..16"

pass() {
	n=$((n + 1))
	echo "ok $n $1"
}

# fail CASE WHY: the WHY line is what the guest runner reports.
fail() {
	n=$((n + 1))
	echo "# $2"
	echo "not ok $n $1"
}

# counter NAME: a counter of the fabric's ctl.
counter() {
	sed -n "s/^$1 //p" "$ctl"
}

last() {
	sed -n 's/^last: //p' "$ctl"
}

# cmd LINE: one ctl command; its exit status is the write's.
cmd() {
	echo "$1" >"$ctl"
}

# expect CASE PATTERN: pass when the last result line has PATTERN.
expect() {
	echo "# last: $(last)"
	if last | grep -q -- "$2"; then
		pass "$1"
	else
		fail "$1" "last: $(last); wanted: $2"
	fi
}

[ -e "$ko" ] || { echo "1..0 # SKIP no $ko"; exit 4; }
if ! insmod "$ko"; then
	fail load "insmod $ko failed"
	exit 1
fi
pass load

# 2: both devices, InfiniBand, ACTIVE, in rdma link.
links=$(rdma link show 2>&1)
echo "$links" | sed 's/^/# /'
if [ -d $ib/ibfab0 ] && [ -d $ib/ibfab1 ] &&
	echo "$links" | grep -q 'ibfab0/1 .*lid 1 sm_lid 254 .*state ACTIVE physical_state LINK_UP' &&
	echo "$links" | grep -q 'ibfab1/1 .*lid 2 sm_lid 254 .*state ACTIVE physical_state LINK_UP'; then
	pass devices
else
	fail devices "ibfab0/ibfab1 missing or not ACTIVE in rdma link"
fi

# 3: the ports' attributes; CM_SUP (0x10000) in cap_mask is ib_cm's
# modify_port on each, proof that its add_one ran.
bad=
for i in 0 1; do
	p=$ib/ibfab$i/ports/1
	lid=$((i + 1))
	for kv in "state=4: ACTIVE" "phys_state=5: LinkUp" "lid=0x$lid" \
		"sm_lid=0xfe" "link_layer=InfiniBand" \
		"gids/0=fe80:0000:0000:0000:0200:fab0:0000:000$lid" \
		"pkeys/0=0xffff" "pkeys/1=0x8001"; do
		f=${kv%%=*} want=${kv#*=}
		got=$(cat "$p/$f" 2>&1)
		echo "# ibfab$i $f: $got"
		[ "$got" = "$want" ] || bad="$bad ibfab$i/$f=$got"
	done
	cap=$(cat "$p/cap_mask")
	[ $((cap & 0x10000)) -ne 0 ] || bad="$bad ibfab$i/cap_mask=$cap"
done
if [ -z "$bad" ]; then
	pass port_attrs
else
	fail port_attrs "unexpected:$bad"
fi

# pathq_case CASE "SRC DST [MS]" RESULT CHECK: a path query whose result
# line has RESULT ("status 0 ..." or the write's failure, "status -N")
# and whose SA counters since the last reset pass CHECK, a shell test
# of $q (queries), $d (dropped) and $a (answered).
pathq_case() {
	cmd "pathq $2" 2>/dev/null
	q=$(counter sa_queries) d=$(counter sa_dropped) a=$(counter sa_answered)
	got="last: $(last); queries $q dropped $d answered $a"
	echo "# $got"
	if last | grep -q -- "$3" && eval "$4"; then
		pass "$1"
	else
		fail "$1" "$got; wanted: $3, $4"
	fi
}

# 4, 5: PathRecords both ways, from the fabric's SA through ib_sa.
cmd "sa reset"
pathq_case path_0_1 "0 1" "ibfab0->ibfab1: status 0 slid 1 dlid 2 sl 0 mtu 5 rate 16 packet_life 14 pkey 0xffff reversible 1 numb_path 1$" '[ "$q" = 1 ]'
pathq_case path_1_0 "1 0" "ibfab1->ibfab0: status 0 slid 2 dlid 1 sl 0 mtu 5 rate 16 packet_life 14 pkey 0xffff reversible 1 numb_path 1$" '[ "$q" = 2 ]'

# 6: a MAD status from the SA: ib_sa reports -EINVAL, no retry.
cmd "sa reset"
cmd "sa status 0x0300"
pathq_case sa_status "0 1" "status -22$" '[ "$q" = 1 ]'

# 7: one query dropped: ib_sa's retry (a tenth of the timeout later)
# gets the answer.
cmd "sa reset"
cmd "sa drop 1"
pathq_case sa_drop_retry "0 1 2000" "status 0 " '[ "$q" = 2 ] && [ "$d" = 1 ]'

# 8: every query dropped: the path query times out after its retries.
cmd "sa reset"
cmd "sa drop 1000"
pathq_case sa_timeout "0 1 500" "status -110$" '[ "$q" -ge 2 ] && [ "$a" = 0 ]'

# 9: a late answer within ib_sa's retry interval: one query, answered.
cmd "sa reset"
cmd "sa delay 100"
pathq_case sa_delay "0 1 10000" "status 0 " '[ "$q" = 1 ] && [ "$a" = 1 ]'

# 10: answers later than the whole query: it times out; the answers,
# arriving for a finished query, are ib_mad's to drop.
cmd "sa reset"
cmd "sa delay 1500"
pathq_case sa_late "0 1 1000" "status -110$" '[ "$q" -ge 2 ]'

# 11: PathRecords with the fields the SA is told: SL 3, MTU 2048,
# 40 Gb/s, packet lifetime 16; sa reset restores the defaults.
cmd "sa reset"
cmd "sa path sl 3 mtu 4 rate 7 life 16"
pathq_case sa_path_fields "0 1" "status 0 slid 1 dlid 2 sl 3 mtu 4 rate 7 packet_life 16 " '[ "$q" = 1 ]'
cmd "sa reset"

# 12, 13: ib_cm REQ, REP, RTU, DREQ, DREP between the two ports.
dmesg -c >/dev/null
cmd "cmtest 0 1"
expect cm_0_1 "ibfab0->ibfab1: connected and disconnected (slid 1 dlid 2)"
dmesg | grep 'rcm_ibfab: cmtest' | sed 's/^/# /'
cmd "cmtest 1 0"
expect cm_1_0 "ibfab1->ibfab0: connected and disconnected (slid 2 dlid 1)"

# 14: both ports join one SA-assigned group: its MLID and the creating
# join's Q_Key in both answers.
cmd "mcjoin 0 1"
l=$(last)
m0=$(echo "$l" | sed -n 's/.* ibfab0 mgid \([^ ]*\) .*/\1/p')
m1=$(echo "$l" | sed -n 's/.* ibfab1 mgid \([^ ]*\) .*/\1/p')
if echo "$l" | grep -q 'ibfab0 mgid ff12:601b:ffff:0000:0000:0001:0000:0001 mlid 0xc000 qkey 0x01234567 join_state 1;' &&
	[ "$m0" = "$m1" ] && echo "$l" | grep -q 'ibfab1 .* mlid 0xc000 qkey 0x01234567'; then
	pass mcjoin
else
	fail mcjoin "last: $l"
fi
echo "# last: $l"

# 15: the leaves ib_sa sends once the joins are freed empty the group:
# a wait on the SA's group count, bounded far above the leave's time.
i=0
while [ "$(counter sa_groups)" != 0 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ "$(counter sa_groups)" = 0 ]; then
	pass mcleave
else
	fail mcleave "the SA still has $(counter sa_groups) group(s) after 30 s"
fi
sed 's/^/# ctl: /' "$ctl"

# 16: unload; the devices go with it.
if rmmod rcm_ibfab && [ ! -e $ib/ibfab0 ] && [ ! -e $ib/ibfab1 ]; then
	pass unload
else
	fail unload "rmmod rcm_ibfab failed or devices left"
fi
