#!/bin/sh
# run_compile_fail.sh APIPROF_GEN CASE_DIR WHERE ENTRY
#
# The spec in CASE_DIR is valid JSON but disagrees with the real header;
# `apiprof-gen build` must fail in the compiler, produce no library, and
# the compiler's error must point into the spec at WHERE (e.g.
# "spec.json:8:") thanks to the #line directives of the generated code,
# and the spec line the compiler quotes must name the entry (ENTRY, e.g.
# '"name": "deflate"'), so the message says which function is wrong.
set -u
gen=$1 case=$2 where=$3 entry=$4
# meson may pass the generator relative to the build directory.
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$case/spec.json" "$tmp/spec.json"
cd "$tmp" || exit 1

"$gen" build spec.json -o lib.so >out.txt 2>&1
st=$?
cat out.txt
[ $st -ne 0 ] || { echo "FAIL: the build succeeded"; exit 1; }
[ ! -e lib.so ] || { echo "FAIL: a library was produced"; exit 1; }
grep "^$where.*error" out.txt >/dev/null || { echo "FAIL: no compiler error at $where"; exit 1; }
grep -A1 "^$where.*error" out.txt | grep -F "| " | grep -F "$entry" >/dev/null ||
	{ echo "FAIL: the quoted spec line does not name $entry"; exit 1; }
echo "ok: failed with status $st at $where, on the line of $entry"
