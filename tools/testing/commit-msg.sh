#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The project's commit messages, in the kernel's form: a subject of at
# most 72 characters, "area: summary" (area as the kernel spells its
# subsystems: letters, digits and _ . / - , +), no final full stop; if
# there is a body, a blank line before it. The why, the figures and the
# findings belong in the body.
#
#   commit-msg.sh FILE        check one message: git's commit-msg hook
#                             (ln -s ../../tools/testing/commit-msg.sh
#                             .git/hooks/commit-msg)
#   commit-msg.sh --since REV check every commit after REV on HEAD (make
#                             style: REV is where the rule began)
#
# One line per bad message on stderr; exits 1 if there was any.
set -uo pipefail

bad=0
# MESSAGE-FILE NAME: check one message; NAME says which in a complaint.
check() {
	local subject second why=
	# git's hook gets the comments of the editor's template too.
	subject=$(grep -v '^#' "$1" | sed -n 1p)
	second=$(grep -v '^#' "$1" | sed -n 2p)
	if [ ${#subject} -gt 72 ]; then
		why="subject of ${#subject} characters (at most 72)"
	elif ! [[ $subject =~ ^[A-Za-z0-9_./,+-]+:\ [^\ ] ]]; then
		why="subject not in the form \"area: summary\""
	elif [[ $subject == *. ]]; then
		why="subject ends with a full stop"
	elif [ -n "$second" ]; then
		why="no blank line between the subject and the body"
	fi
	if [ -n "$why" ]; then
		echo "$2: $why: $subject" >&2
		bad=1
	fi
}

case ${1:-} in
--since)
	[ $# = 2 ] || { echo "usage: $0 --since REV" >&2; exit 2; }
	if ! git rev-parse -q --verify "$2^{commit}" >/dev/null; then
		echo "commit-msg.sh: no commit $2 here (a shallow clone?): nothing checked" >&2
		exit 0
	fi
	msg=$(mktemp)
	trap 'rm -f "$msg"' EXIT
	for c in $(git rev-list --no-merges "$2..HEAD"); do
		git log -1 --format=%B "$c" >"$msg"
		check "$msg" "commit $(git rev-parse --short "$c")"
	done
	;;
''|-*)
	echo "usage: $0 FILE | --since REV" >&2
	exit 2
	;;
*)
	check "$1" "commit message"
	;;
esac
exit $bad
