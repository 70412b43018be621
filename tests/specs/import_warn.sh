#!/bin/sh
# import_warn.sh APIPROF_GEN - the importer's warnings stay one readable
# line each however long their lists (issue 41): zlib.h imported against
# libc.so.6 (which exports none of its 88 functions and 2000-odd others)
# says the counts, the first 8 names, how many more, and what to do;
# --verbose lists every name.
set -eu
gen=$1
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/err"; exit 1; }

rc=0
"$gen" import /usr/include/zlib.h --library libc.so.6 --prefix '' -o "$tmp/x.json" 2>"$tmp/err" || rc=$?
if grep -q "built without libclang" "$tmp/err"; then
	echo "SKIP: apiprof-gen was built without libclang"
	exit 77
fi
[ "$rc" -eq 1 ] || fail "exit status $rc, want 1 (nothing selected)"
un=$(grep "declared in the header but not exported by" "$tmp/err") || fail "no 'not exported' warning"
case $un in
*" (88): adler32, adler32_combine, adler32_combine64, adler32_z, compress, compress2, compressBound, crc32, and 80 more (--verbose lists them); not profiled; is --library the library that defines them?") ;;
*) fail "the 'not exported' line: $un" ;;
esac
ex=$(grep "but not declared in the header" "$tmp/err") || fail "no 'not declared' warning"
case $ex in *"and "*" more (--verbose lists them); not profiled; if they belong to the API, import the header that declares them, or narrow with --prefix or --functions") ;;
*) fail "the 'not declared' line: $(printf '%.300s' "$ex")" ;;
esac
long=$(awk 'length($0) > 500' "$tmp/err" | wc -l)
[ "$long" -eq 0 ] || fail "$long line(s) over 500 characters"
echo "ok: each warning one line under 500 characters: counts, 8 names, the rest counted, a hint"

"$gen" import /usr/include/zlib.h --library libc.so.6 --prefix '' --verbose -o "$tmp/x.json" 2>"$tmp/err" || :
un=$(grep "declared in the header but not exported by" "$tmp/err") || fail "--verbose: no 'not exported' warning"
n=$(printf '%s\n' "$un" | sed 's/.*(88): //; s/; not profiled.*//' | tr ',' '\n' | wc -l)
[ "$n" -eq 88 ] || fail "--verbose lists $n names of 88"
case $un in *"more (--verbose"*) fail "--verbose still cuts the list" ;; esac
echo "ok: --verbose lists all 88"
