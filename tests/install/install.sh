#!/bin/sh
# install.sh SOURCE_ROOT OUTDUMP SCRIPT DYNAMIC [MESON [NINJA]]
#
# apiprof works from its installed files alone: the source tree is
# configured afresh with --prefix in scratch space, what `meson install`
# copies is built and installed, and that build directory is deleted.
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
threads=3 rounds=200 calls=1000

# The tests' environment points into the build tree: none of it here.
unset APIPROF_GEN APIPROF_SHIMDIR APIPROF_SPECDIR APIPROF_RUNTIME APIPROF_DYN_LIB \
	APIPROF_DYN_AUDIT APIPROF_INCLUDEDIR APIPROF_LIBDIR CPATH LIBRARY_PATH LD_PRELOAD
export APIPROF_CACHE="$tmp/cache" HOME="$tmp/home"
mkdir "$tmp/home"

# Only what is installed is built: `meson install` needs nothing else, and
# the tests and benchmarks would triple the time.
build=$tmp/build prefix=$tmp/prefix
wd "$meson" setup "$build" "$src" --prefix="$prefix" >"$tmp/setup.log" 2>&1 ||
	{ tail -20 "$tmp/setup.log"; fail "meson setup"; }
targets=$("$meson" introspect "$build" --installed | $py -c '
import json, os, sys
b = sys.argv[1]
print(" ".join(os.path.relpath(k, b) for k in json.load(sys.stdin) if k.startswith(b + "/")))' "$build")
[ -n "$targets" ] || fail "nothing to install?"
wd "$ninja" -C "$build" -j2 $targets >"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log"; fail "build"; }
wd "$meson" install -C "$build" --no-rebuild >"$tmp/install.log" 2>&1 ||
	{ tail -20 "$tmp/install.log"; fail "meson install"; }
rm -rf "$build"

for f in bin/apiprof-run bin/apiprof-gen bin/apiprof-top include/apiprof/apiprof_shim.h \
	include/apiprof/apiprof_shim_layout.h include/apiprof/apiprof_shim_x86.h \
	include/apiprof/apiprof_shim_acct.h \
	include/apiprof/apiprof_abi.h include/apiprof/apiprof_abi_rec.h share/apiprof/specs/zlib.json share/man/man1/apiprof-run.1 \
	share/man/man1/apiprof-top.1 share/man/man1/apiprof-gen.1 bin/apiprof-report \
	share/apiprof/report.html share/apiprof/report.css share/apiprof/report.js \
	share/man/man1/apiprof-report.1; do
	[ -f "$prefix/$f" ] || fail "not installed: $f"
done
lib=$(dirname "$(find "$prefix" -name libapiprof.so.0)")
[ -f "$lib/apiprof/libapiprof-zlib.so" ] || fail "the zlib shim is not installed in $lib/apiprof"
# A shipped shim names nothing of the tree it was built in.
grep -l "$tmp/build" "$lib"/apiprof/libapiprof-zlib.so && fail "the zlib shim names $tmp/build"

# zlib_counts TAG JSON: each of the threads made exactly $rounds calls of
# each zlib function the script uses.
zlib_counts() {
	"$outdump" -t "$2" >"$tmp/$1.rows" || fail "$1: unreadable $2"
	tids=$(awk '$3 == "zlib.deflate" { print $1 }' "$tmp/$1.rows" | sort -u)
	[ "$(echo "$tids" | grep -c .)" -eq $threads ] || { cat "$tmp/$1.rows"; fail "$1: not $threads threads"; }
	for f in adler32 crc32 deflate deflateEnd deflateInit2_ inflate inflateEnd inflateInit2_; do
		echo "zlib.$f $rounds"
	done | sort >"$tmp/want"
	for tid in $tids; do
		awk -v t="$tid" '$1 == t { print $3, $4 }' "$tmp/$1.rows" | sort >"$tmp/got"
		cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got"; fail "$1: thread $tid counts"; }
	done
}

# shipped P TAG [--dynamic]: the shipped zlib spec on python3, from prefix P.
shipped() {
	p=$1 tag=$2
	shift 2
	wd "$p/bin/apiprof-run" "$@" -s zlib -o "$tmp/$tag.json" -- $py "$script" $threads $rounds \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err" || { cat "$tmp/$tag.err"; fail "$tag: apiprof-run"; }
	zlib_counts "$tag" "$tmp/$tag.json"
	echo "ok: $tag"
}
shipped "$prefix" shipped
[ "$dynamic" = 1 ] && shipped "$prefix" dynamic --dynamic

# report P TAG: P's apiprof-report makes a page of TAG's JSON with P's
# templates (share/apiprof, found from bin/) and Chart.js inlined.
report() {
	wd "$1/bin/apiprof-report" "$tmp/$2.html" "$tmp/$2.json" 2>"$tmp/$2.rerr" ||
		{ cat "$tmp/$2.rerr"; fail "$2: apiprof-report"; }
	grep -q 'id="apiprof-data"' "$tmp/$2.html" && grep -q 'Chart.js v' "$tmp/$2.html" &&
		grep -q 'function strings()' "$tmp/$2.html" || fail "$2: the page lacks its parts"
	echo "ok: $2 report"
}
report "$prefix" shipped

# A user's own library, program and spec; the header next to the spec.
u=$tmp/user
mkdir "$u"
printf 'int ml_add(int a, int b);\n' >"$u/mylib.h"
printf '#include "mylib.h"\nint ml_add(int a, int b) { return a + b; }\n' >"$u/mylib.c"
cat >"$u/prog.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include "mylib.h"
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), s = 0;
	for (int i = 0; i < n; i++)
		s = ml_add(s, 1);
	printf("%d\n", s);
	return 0;
}
PROG
cat >"$u/mylib.json" <<'SPEC'
{"apiprof": 1, "api": "mylib", "library": "libmylib.so.1", "headers": ["mylib.h"],
 "functions": [{"name": "ml_add", "returns": "int",
                "params": [{"type": "int", "name": "a"}, {"type": "int", "name": "b"}]}]}
SPEC
cc=${CC:-cc}
$cc -shared -fPIC -Wl,-soname,libmylib.so.1 -o "$u/libmylib.so.1" "$u/mylib.c" &&
	$cc -o "$u/prog" "$u/prog.c" "$u/libmylib.so.1" -Wl,-rpath,"$u" || fail "cannot build the user's library"

# user P TAG: the user's spec, built by P's apiprof-gen, on the program.
user() {
	p=$1 tag=$2
	shift 2
	wd env "$@" "$p/bin/apiprof-run" -s "$u/mylib.json" -o "$tmp/$tag.json" -- "$u/prog" $calls \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err" || { cat "$tmp/$tag.err"; fail "$tag: apiprof-run"; }
	[ "$(cat "$tmp/$tag.out")" = $calls ] || fail "$tag: the program printed $(cat "$tmp/$tag.out")"
	grep -q "building a shim" "$tmp/$tag.err" || fail "$tag: no shim was built: $(cat "$tmp/$tag.err")"
	"$outdump" "$tmp/$tag.json" | grep -q "^prog mylib.ml_add $calls\$" ||
		{ "$outdump" "$tmp/$tag.json"; fail "$tag: not $calls calls of ml_add"; }
	echo "ok: $tag"
}
user "$prefix" user APIPROF_KEEP_SHM=1

# apiprof-top -b -n 1 on that (ended, kept) process's segment.
pid=$(sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$tmp/user.json")
[ -n "$pid" ] || fail "no pid in user.json"
seg=$(ls /dev/shm/apiprof-"$(id -u)"-"$pid"-* 2>/dev/null)
[ -f "$seg" ] || fail "no segment for pid $pid"
wd "$prefix/bin/apiprof-top" -b -n 1 -p "$pid" --linger 3600 >"$tmp/top.txt" 2>&1
st=$?
rm -f "$seg"
[ $st -eq 0 ] || { cat "$tmp/top.txt"; fail "apiprof-top: status $st"; }
grep -Eq "^PID $pid " "$tmp/top.txt" && grep -Eq "^ +$calls .* mylib\.ml_add\$" "$tmp/top.txt" ||
	{ cat "$tmp/top.txt"; fail "apiprof-top: no row of $calls ml_add calls for pid $pid"; }
echo "ok: apiprof-top"

# The whole tree, moved: everything is found from where it is now.
mv "$prefix" "$tmp/moved"
shipped "$tmp/moved" moved-shipped
report "$tmp/moved" moved-shipped
user "$tmp/moved" moved-user
echo "ok: installed apiprof works without the build tree, and after a move"
