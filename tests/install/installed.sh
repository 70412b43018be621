# installed.sh - the checks of an installed apiprof, sourced by install.sh
# (a `meson install` into a scratch prefix) and tests/deb/deb.sh (the
# Debian package unpacked into a scratch root).  Needs ../lib.sh and
# ../robust/rlib.sh sourced first, and: $tmp, $outdump, $script (zlib_threads.py),
# $py, and the cache and home in the environment.
threads=3 rounds=200 calls=1000

# installed_files PREFIX LIBDIR: what an installation holds, the runtime
# and the shims in apiprof's own folder LIBDIR/apiprof (a private
# library: nothing of apiprof in the linker's search path).
installed_files() {
	for f in bin/apiprof-run bin/apiprof-gen bin/apiprof-top bin/apiprof-ctl \
		include/apiprof/apiprof_shim.h include/apiprof/apiprof_shim_layout.h \
		include/apiprof/apiprof_shim_x86.h include/apiprof/apiprof_shim_acct.h \
		include/apiprof/apiprof_abi.h include/apiprof/apiprof_abi_rec.h \
		share/apiprof/specs/zlib.json "$2/apiprof/libapiprof.so.0" "$2/apiprof/libapiprof.so" \
		"$2/apiprof/libapiprof-tls.so.0" "$2/apiprof/libapiprof-zlib.so" \
		bin/apiprof-report share/apiprof/report.html share/apiprof/report.css \
		share/apiprof/report.js; do
		[ -f "$1/$f" ] || fail "not installed: $f"
	done
	ls "$1/$2" | grep -q '^libapiprof' && fail "a library of apiprof in $2, the linker's search path"
	# A shipped shim names nothing of the tree it was built in.
	grep -l "$tmp/build" "$1/$2/apiprof/libapiprof-zlib.so" && fail "the zlib shim names $tmp/build"
	echo "ok: installed files"
}

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

# user_setup: a user's own library, program and spec; the header next to
# the spec.
user_setup() {
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
}

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

# top_batch P: apiprof-top -b -n 1 on the (ended, kept) process of the
# last user run ($tmp/user.json, run with APIPROF_KEEP_SHM=1).
top_batch() {
	pid=$(sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$tmp/user.json")
	[ -n "$pid" ] || fail "no pid in user.json"
	seg=$(ls /dev/shm/apiprof-"$(id -u)"-"$pid"-* 2>/dev/null)
	[ -f "$seg" ] || fail "no segment for pid $pid"
	wd "$1/bin/apiprof-top" -b -n 1 -p "$pid" --linger 3600 >"$tmp/top.txt" 2>&1
	st=$?
	rm -f "$seg"
	[ $st -eq 0 ] || { cat "$tmp/top.txt"; fail "apiprof-top: status $st"; }
	grep -Eq "^PID $pid " "$tmp/top.txt" && grep -Eq "^ +$calls .* mylib\.ml_add\$" "$tmp/top.txt" ||
		{ cat "$tmp/top.txt"; fail "apiprof-top: no row of $calls ml_add calls for pid $pid"; }
	echo "ok: apiprof-top"
}

# report P TAG: P's apiprof-report makes a page of TAG's JSON with P's
# own templates and Debian's Chart.js.
report() {
	wd "$1/bin/apiprof-report" "$tmp/$2.html" "$tmp/$2.json" 2>"$tmp/$2.rerr" ||
		{ cat "$tmp/$2.rerr"; fail "$2: apiprof-report"; }
	grep -q 'id="apiprof-data"' "$tmp/$2.html" && grep -q 'Chart.js v' "$tmp/$2.html" &&
		grep -q 'function strings()' "$tmp/$2.html" || fail "$2: the page lacks its parts"
	echo "ok: $2 report"
}
