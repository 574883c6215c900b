#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#
# install: "make install" is opt-in. Nothing lands where the dynamic
# linker, the compiler or man look by themselves (so the distribution's
# librdmacm stays every other program's); pkg-config's librcm links with
# a RUNPATH to rcm's private directory; rcm-run puts that directory first
# for one program after checking for the device; "make uninstall" leaves
# nothing behind.
#
# Exit: 0 pass, 1 fail, 77 skip (no pkg-config).

command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config"; exit 77; }
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "$*" >&2; fail=1; }

# A staged install under the default PREFIX.
make -s -C "$top" install DESTDIR="$tmp/stage" >/dev/null || err "make install failed"
s=$tmp/stage/usr/local
[ -e "$s/lib/rcm/librdmacm.so.1" ] || err "no librdmacm.so.1 in lib/rcm"
for f in $(cd "$tmp/stage" && find . ! -type d); do
	case $f in
	./usr/local/lib/rcm/*|./usr/local/include/rcm/*|./usr/local/share/rcm/man/*|\
	./usr/local/lib/pkgconfig/librcm.pc|./usr/local/bin/rcm-run|\
	./usr/local/bin/rcm-stat|./usr/local/share/man/man1/rcm-run.1|\
	./usr/local/share/man/man1/rcm-stat.1|./usr/local/share/man/man7/rcm.7) ;;
	*) err "installed outside rcm's own directories: ${f#.}" ;;
	esac
done
libs=$(PKG_CONFIG_PATH=$s/lib/pkgconfig pkg-config --libs librcm)
case $libs in
*"-rpath,/usr/local/lib/rcm"*) ;;
*) err "pkg-config --libs librcm has no RUNPATH to lib/rcm: $libs" ;;
esac
cflags=$(PKG_CONFIG_PATH=$s/lib/pkgconfig pkg-config --cflags librcm)
[ "${cflags%% *}" = "-I/usr/local/include/rcm" ] || err "pkg-config --cflags: $cflags"
# "man rcm" works: rcm(7) in a directory man searches by itself.
[ -f "$s/share/man/man7/rcm.7" ] || err "no rcm.7 in share/man/man7"
if command -v manpath >/dev/null 2>&1; then
	case :$(manpath -g 2>/dev/null): in
	*:/usr/local/share/man:*) ;;
	*) err "man does not search /usr/local/share/man, where rcm.7 is" ;;
	esac
fi

# A real install under a private PREFIX: rcm-run and uninstall.
p=$tmp/prefix
make -s -C "$top" install PREFIX="$p" >/dev/null || err "make install PREFIX failed"
out=$(RCM_DEVICE=/dev/null "$p/bin/rcm-run" sh -c 'echo "$LD_LIBRARY_PATH"')
[ "${out%%:*}" = "$p/lib/rcm" ] || err "rcm-run: LD_LIBRARY_PATH=$out"
# --rsockets: the preload library in front, as librdmacm's rsocket/.
pre=$p/lib/rcm/rsocket/librspreload.so
[ -e "$pre" ] || err "no $pre"
out=$(RCM_DEVICE=/dev/null "$p/bin/rcm-run" --rsockets sh -c 'echo "$LD_PRELOAD"' 2>&1)
[ "${out%%:*}" = "$pre" ] || err "rcm-run --rsockets: LD_PRELOAD=$out"
msg=$(RCM_DEVICE=$tmp/none "$p/bin/rcm-run" true 2>&1)
rc=$?
[ $rc = 1 ] || err "rcm-run without the device: exit $rc"
case $msg in
*"is missing"*"modprobe rcm"*) ;;
*) err "rcm-run without the device said: $msg" ;;
esac
make -s -C "$top" uninstall PREFIX="$p" >/dev/null || err "make uninstall failed"
left=$(find "$p" ! -type d)
[ -z "$left" ] || err "left after make uninstall: $left"
exit $fail
