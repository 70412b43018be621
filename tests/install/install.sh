#!/bin/sh
# install.sh SOURCE_ROOT OUTDUMP SCRIPT DYNAMIC [MESON [NINJA]]
#
# apiprof works from its installed files alone: the source tree is
# configured in scratch space with one prefix, then installed with
# another by `./quickstart install PREFIX` (which builds only what is
# installed), and that build directory is deleted.
# Then, with only the prefix: the shipped zlib spec on python3 (exact
# counts), dynamic mode (when DYNAMIC is 1), a user's own spec and library
# built by the installed apiprof-gen, and apiprof-top -b -n 1 showing that
# program's counts.  Then the prefix is moved elsewhere, and the shipped
# spec and the user's spec run again from there.
set -u
. "$(dirname "$0")/../lib.sh"
src=$1 outdump=$2 script=$3 dynamic=$4 meson=${5:-meson} ninja=${6:-ninja}
. "$(dirname "$0")/../robust/rlib.sh"
WATCHDOG=600
py=/usr/bin/python3
[ -x $py ] || fail "no $py (Debian package python3, which ./quickstart installs)"
need "$meson" meson
need "$ninja" ninja-build
skip_if_sanitized "$outdump"
. "$(dirname "$0")/installed.sh"

# The tests' environment points into the build tree: none of it here.
unset APIPROF_GEN APIPROF_SHIMDIR APIPROF_SPECDIR APIPROF_RUNTIME APIPROF_DYN_LIB \
	APIPROF_DYN_AUDIT APIPROF_INCLUDEDIR APIPROF_LIBDIR CPATH LIBRARY_PATH LD_PRELOAD
export APIPROF_CACHE="$tmp/cache" HOME="$tmp/home"
mkdir "$tmp/home"

# The way the README installs: ./quickstart install PREFIX, with a build
# directory that exists already, configured with another prefix (as after
# ./quickstart demo; a plain `meson setup` would keep that one silently).
# Only what is installed is built: the tests and benchmarks would triple
# the time.
build=$tmp/build prefix=$tmp/prefix
wd "$meson" setup "$build" "$src" --prefix="$tmp/old" >"$tmp/setup.log" 2>&1 ||
	{ tail -20 "$tmp/setup.log"; fail "meson setup"; }
wd env PATH="$(dirname "$meson"):$(dirname "$ninja"):$PATH" QUICKSTART_DEPS=no BUILD="$build" \
	sh "$src/quickstart" install "$prefix" >"$tmp/install.log" 2>&1 ||
	{ tail -20 "$tmp/install.log"; fail "./quickstart install $prefix"; }
[ -e "$tmp/old" ] && fail "installed under the build directory's old prefix: $(find "$tmp/old" -type f | head -3)"
grep -qx "quickstart: installed into $prefix .*" "$tmp/install.log" ||
	{ cat "$tmp/install.log"; fail "./quickstart install: no 'installed into $prefix' line"; }
rm -rf "$build"

libdir=$(cd "$prefix" && dirname "$(find . -name libapiprof.so.0)")
libdir=$(dirname "${libdir#./}")
installed_files "$prefix" "$libdir"
shipped "$prefix" shipped
report "$prefix" shipped
[ "$dynamic" = 1 ] && shipped "$prefix" dynamic --dynamic
user_setup
user "$prefix" user APIPROF_KEEP_SHM=1
top_batch "$prefix"

# The whole tree, moved: everything is found from where it is now.
mv "$prefix" "$tmp/moved"
shipped "$tmp/moved" moved-shipped
report "$tmp/moved" moved-shipped
user "$tmp/moved" moved-user
echo "ok: installed apiprof works without the build tree, and after a move"
