#!/bin/sh
# deb.sh SOURCE_ROOT OUTDUMP SCRIPT [DEB]
#
# The Debian package (debian/): a copy of the source tree is built with
# dpkg-buildpackage (tests not run: DEB_BUILD_OPTIONS=nocheck); the .deb's
# file list is checked with dpkg -c, lintian finds no error or warning,
# and the service unit passes systemd-analyze verify (and a broken copy of
# it does not).  Then the package is unpacked with dpkg -x into a scratch
# root and its tools run from there, as install.sh runs a `meson install`:
# the shipped zlib shim on python3 (exact counts), dynamic mode, a user's
# spec built by the installed apiprof-gen, apiprof-top -b.  One package
# build, about 25 minutes of CPU (see debian/rules: only what is shipped
# is built).  Runs in a private mount namespace with its own /dev/shm.
# With DEB, that package is checked instead of one built here.
set -u
if [ "${DEB_INNER:-}" != 1 ]; then
	command -v dpkg-buildpackage >/dev/null 2>&1 ||
		{ echo "SKIP: no dpkg-buildpackage (Debian package dpkg-dev, which ./quickstart installs)"; exit 77; }
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root: a private mount namespace with its own /dev/shm"; exit 77; }
	unshare -m --propagation private true 2>/dev/null ||
		{ echo "SKIP: cannot make a private mount namespace (unshare -m)"; exit 77; }
	exec unshare -m --propagation private env DEB_INNER=1 sh -c \
		'mount -t tmpfs -o size=1g tmpfs /dev/shm && exec sh "$0" "$@"' "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
src=$1 outdump=$2 script=$3 deb=${4:-}
. "$(dirname "$0")/../robust/rlib.sh"
WATCHDOG=3600
py=/usr/bin/python3
[ -x $py ] || fail "no $py (Debian package python3, which ./quickstart installs)"
need dh debhelper
need lintian lintian
need systemd-analyze systemd
skip_if_sanitized "$outdump"
. "$(dirname "$(realpath "$0")")/../install/installed.sh"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

# The source tree as it is (uncommitted changes too), without build output.
build_deb() {
	mkdir "$tmp/src"
	if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
		git -C "$src" ls-files -z --cached --others --exclude-standard |
			tar -C "$src" --null --no-recursion --ignore-failed-read -T - -cf - | tar -xf - -C "$tmp/src" ||
			fail "cannot copy the source tree"
	else
		tar -C "$src" --exclude='./build*' --exclude='./obj-*' -cf - . | tar -xf - -C "$tmp/src" ||
			fail "cannot copy the source tree"
	fi
	(cd "$tmp/src" && wd env DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
		>"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; fail "dpkg-buildpackage"; }
	deb=$(ls "$tmp"/apiprof_*_amd64.deb) || fail "no apiprof_*_amd64.deb: $(ls "$tmp")"
	echo "ok: built $(basename "$deb")"
}
[ -n "$deb" ] || build_deb

# Its files: the tools, the runtime and shims in apiprof's own folder and
# nothing in the linker's path, the specs, the man pages, the unit and its
# default file, the copyright.
dpkg -c "$deb" | awk '{ print $6 }' | sed 's|/$||' | sort >"$tmp/files" || fail "dpkg -c"
pl=usr/lib/$multiarch/apiprof
for f in usr/bin/apiprof-run usr/bin/apiprof-top usr/bin/apiprof-gen usr/bin/apiprof-ctl \
	$pl/libapiprof.so.0 $pl/libapiprof.so $pl/libapiprof-tls.so.0 $pl/libapiprof-dyn.so \
	$pl/libapiprof-dyn-audit.so $pl/libapiprof-zlib.so $pl/libapiprof-malloc.so \
	$pl/libapiprof-sqlite3.so $pl/libapiprof-libcurl.so $pl/libapiprof-openssl.so \
	usr/include/apiprof/apiprof_shim.h usr/include/apiprof/control.h \
	usr/share/apiprof/specs/zlib.json usr/share/apiprof/specs/openssl.json \
	usr/share/man/man1/apiprof-run.1.gz usr/share/man/man1/apiprof-top.1.gz \
	usr/share/man/man1/apiprof-gen.1.gz usr/share/man/man1/apiprof-ctl.1.gz \
	lib/systemd/system/apiprof-exporter.service etc/default/apiprof-exporter \
	usr/share/doc/apiprof/copyright usr/share/doc/apiprof/changelog.Debian.gz; do
	grep -qx "\./$f" "$tmp/files" || { cat "$tmp/files"; fail "not in the package: /$f"; }
done
grep "^\./usr/lib/$multiarch/[^/]*$" "$tmp/files" | grep -vx "\./$pl" && fail "a file in the linker's search path"
echo "ok: dpkg -c"

# lintian: no error, no warning (it exits non-zero on them, and says them
# with E: and W:).
lintian --fail-on error,warning "$deb" >"$tmp/lintian.txt" 2>&1
st=$?
grep -E '^(E|W): ' "$tmp/lintian.txt" && fail "lintian"
[ $st -eq 0 ] || { cat "$tmp/lintian.txt"; fail "lintian: status $st"; }
echo "ok: lintian"

root=$tmp/root
dpkg -x "$deb" "$root" || fail "dpkg -x"

# The unit: systemd-analyze verify says nothing and succeeds; the
# executable is the unpacked one.  A copy with a wrong ExecStart, and one
# with a wrong value (which verify only warns about), are caught.
unit() {
	mkdir -p "$tmp/unit-$1"
	sed "s|/usr/bin/apiprof-top|$root/usr/bin/apiprof-top|; $2" \
		"$root/lib/systemd/system/apiprof-exporter.service" >"$tmp/unit-$1/apiprof-exporter.service"
	systemd-analyze verify --man=no "$tmp/unit-$1/apiprof-exporter.service" >"$tmp/unit-$1.txt" 2>&1 &&
		! grep -q . "$tmp/unit-$1.txt"
}
unit shipped '' || { cat "$tmp/unit-shipped.txt"; fail "systemd-analyze verify: the shipped unit"; }
grep -q "^ExecStart=$root/usr/bin/apiprof-top --listen " "$tmp/unit-shipped/apiprof-exporter.service" ||
	fail "the unit's ExecStart is not apiprof-top --listen"
unit bad-exec 's|^ExecStart=[^ ]*|&.missing|' && fail "verify passed a unit with a missing ExecStart"
unit bad-value 's|^ProtectSystem=.*|ProtectSystem=stric|' && fail "verify passed ProtectSystem=stric"
echo "ok: systemd-analyze verify (and it fails on broken copies: $(head -1 "$tmp/unit-bad-exec.txt"))"

# The tools from the unpacked tree, found relative to themselves.
unset APIPROF_GEN APIPROF_SHIMDIR APIPROF_SPECDIR APIPROF_RUNTIME APIPROF_DYN_LIB \
	APIPROF_DYN_AUDIT APIPROF_INCLUDEDIR APIPROF_LIBDIR CPATH LIBRARY_PATH LD_PRELOAD
export APIPROF_CACHE="$tmp/cache" HOME="$tmp/home"
mkdir "$tmp/home"
installed_files "$root/usr" "lib/$multiarch"
shipped "$root/usr" shipped
shipped "$root/usr" dynamic --dynamic
user_setup
user "$root/usr" user APIPROF_KEEP_SHM=1
top_batch "$root/usr"
"$root/usr/bin/apiprof-ctl" --help >/dev/null 2>&1 || fail "apiprof-ctl --help"
# The man pages render without a warning; FILES names the multiarch paths.
for p in apiprof-run apiprof-top apiprof-gen apiprof-ctl; do
	man --warnings -l -E UTF-8 "$root/usr/share/man/man1/$p.1.gz" >"$tmp/$p.man" 2>"$tmp/$p.warn" ||
		fail "man $p: status $?"
	[ -s "$tmp/$p.warn" ] && { cat "$tmp/$p.warn"; fail "man $p: warnings"; }
done
grep -q "lib/$multiarch/apiprof/libapiprof\.so\.0\$" "$tmp/apiprof-run.man" ||
	{ sed -n '/^FILES/,/^EXAMPLES/p' "$tmp/apiprof-run.man"; fail "apiprof-run(1): FILES without lib/$multiarch/apiprof/"; }
grep -q "lib/$multiarch/apiprof/libapiprof\.so\$" "$tmp/apiprof-gen.man" ||
	{ sed -n '/^FILES/,/^EXAMPLES/p' "$tmp/apiprof-gen.man"; fail "apiprof-gen(1): FILES without lib/$multiarch/apiprof/"; }
echo "ok: the package's tools work from $root"

# The exporter with the unit's capabilities and no other (root, its
# CapabilityBoundingSet applied by setpriv as systemd applies it): a
# running process of another user is exported with its exact count, read
# after a flush asked through its segment.  With none, the segment is
# refused ("Permission denied"): the capability is needed.  (The unit's
# other hardening needs systemd as PID 1, which this test does not ask.)
need setpriv util-linux
need curl curl
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$root/lib/systemd/system/apiprof-exporter.service")
[ -n "$caps" ] || fail "the unit has no CapabilityBoundingSet"
bset=-all
for c in $caps; do
	bset="$bset,+$(echo "${c#CAP_}" | tr 'A-Z' 'a-z')"
done
nobody=$(id -u nobody) || fail "no user nobody"
chmod 755 "$tmp"
mkdir "$tmp/nobody" && chown "$nobody" "$tmp/nobody" || fail "cannot make nobody's home"
mkfifo "$tmp/hold" && chmod 666 "$tmp/hold" || fail "mkfifo"
# On the way out, also on a failure: no exporter, no program left behind.
epid= ppid=
trap 'kill $epid $ppid 2>/dev/null; rm -rf "$tmp"' EXIT
# until SECONDS CMD...: polls CMD until it succeeds, at most SECONDS.
until_ok() {
	n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}
crc32_calls() {
	curl -sf "$url" | awk '/^apiprof_calls_total\{.*function="crc32"/ { s += $NF } END { print s + 0 }'
}
crc32_is() { [ "$(crc32_calls)" = "$1" ]; }
# exporter TAG BSET: root's apiprof-top --listen with that bounding set.
exporter() {
	setpriv --bounding-set "$2" "$root/usr/bin/apiprof-top" --listen 127.0.0.1:0 --all-users -d 0.2 \
		2>"$tmp/$1.err" &
	epid=$!
	until_ok 60 grep -qs serving "$tmp/$1.err" || { cat "$tmp/$1.err"; fail "$1: the exporter did not start"; }
	url=$(sed -n 's|^apiprof-top: serving \(http://[^ ]*\)$|\1|p' "$tmp/$1.err")
}
# nobody's python3 makes 100 crc32 calls, says ready, and waits on the FIFO.
setpriv --reuid "$nobody" --regid "$(id -g nobody)" --clear-groups \
	env HOME="$tmp/nobody" APIPROF_CACHE="$tmp/nobody" "$root/usr/bin/apiprof-run" -s zlib -- $py -c \
	'import sys, zlib; [zlib.crc32(b"x") for _ in range(100)]; print("ready", flush=True); sys.stdin.read()' \
	<"$tmp/hold" >"$tmp/nobody.out" 2>&1 &
ppid=$!
exec 3>"$tmp/hold"
until_ok 60 grep -qs ready "$tmp/nobody.out" || { cat "$tmp/nobody.out"; fail "nobody's program did not start"; }

exporter none -all
until_ok 60 grep -qs "Permission denied, skipped" "$tmp/none.err" ||
	{ cat "$tmp/none.err"; fail "with no capability, the exporter did not refuse nobody's segment"; }
[ "$(crc32_calls)" = 0 ] || fail "with no capability, nobody's calls were exported"
kill $epid && wait $epid
echo "ok: without a capability: $(grep -m1 'Permission denied' "$tmp/none.err")"

exporter unit "$bset"
until_ok 60 crc32_is 100 ||
	{ curl -s "$url"; cat "$tmp/unit.err"; fail "with $caps: not 100 crc32 calls of nobody's process"; }
grep -v "^apiprof-top: serving" "$tmp/unit.err" && fail "with $caps: the exporter complained"
kill $epid && wait $epid
st=$?
[ $st -eq 0 ] || fail "the exporter's exit status on SIGTERM: $st"
exec 3>&-
wait $ppid || fail "nobody's program: status $?"
echo "ok: the exporter with $caps ($bset) exports another user's process exactly"
