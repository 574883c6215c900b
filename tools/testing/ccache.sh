# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the scripts that build a module against a kernel tree $kdir
# (bash): with RCM_CCACHE_DIR set (make check sets it to a directory of
# its cache) and ccache installed, the compiler runs through ccache, so
# a warm run compiles only what changed. A Debian headers tree takes
# DEBIAN_KERNEL_USE_CCACHE (its .kernelvariables); any other gets CC.
# Leaves the make arguments in the array rcm_ccache.
rcm_ccache=()
if [ -n "${RCM_CCACHE_DIR:-}" ] && command -v ccache >/dev/null; then
	export CCACHE_DIR=$RCM_CCACHE_DIR
	if [ -f "$kdir/.kernelvariables" ]; then
		export DEBIAN_KERNEL_USE_CCACHE=1
	else
		rcm_ccache=(CC="ccache gcc")
	fi
fi
