# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# order.sh: sourced by the bench's guest scripts (guest-attrib.sh,
# guest-churn.sh, guest-churn-attrib.sh).

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
