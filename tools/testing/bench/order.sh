# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# order.sh: sourced by the bench's guest scripts (guest-bench.sh,
# guest-attrib.sh, guest-churn.sh, guest-churn-attrib.sh).

# WHAT...: a "bench-progress WHAT" line on the console, where the host's
# bench.sh reads it at once (a test's own output reaches the log only
# when the test ends): which run of which part, for its progress lines.
progress() {
	echo "bench-progress $*" >/dev/console 2>/dev/null || :
}

# ROUND: the stacks in the order round ROUND runs them, in-tree first in
# odd rounds and rcm first in even ones, so that each goes first as
# often, and in-tree's odd rounds against its even ones are the A/A.
order() {
	if [ $(($1 % 2)) = 1 ]; then
		echo intree rcm
	else
		echo rcm intree
	fi
}
