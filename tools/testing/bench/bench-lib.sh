# SPDX-License-Identifier: GPL-2.0-only
#
# bench-lib.sh: what the bench's guest scripts (guest-bench.sh,
# guest-attrib.sh) share; sourced from the directory they run in.

# STACK PROGRAM ARGS...: run PROGRAM on STACK's librdmacm (rcm's through
# LD_LIBRARY_PATH, or the distribution's); exec, so $! is the program.
serve() {
	stack=$1
	shift
	if [ "$stack" = rcm ]; then
		LD_LIBRARY_PATH=/usr/lib/rcm exec "$@"
	fi
	exec "$@"
}
