#!/bin/sh
# run_build_incdir.sh APIPROF_GEN HEADER_DIR
#
# A spec whose header is found only through its "include_dirs" (an
# absolute directory, written into the spec here) and compiles only with
# its "defines": `apiprof-gen build` must build it from a directory where
# the header is not, and must fail the same way without "include_dirs".
set -u
gen=$1 incdir=$2
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
incdir=$(cd "$incdir" && pwd -P)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

spec() {
	cat <<JSON
{
  "apiprof": 1,
  "api": "incdir",
  "library": "libc.so.6",
  "headers": ["incdir/incdir.h"],
  $1
  "defines": ["INCDIR_WANTED", "INCDIR_LEVEL=3"],
  "functions": [{"name": "abs", "returns": "int", "params": [{"type": "int", "name": "x"}]}]
}
JSON
}

spec "\"include_dirs\": [\"/nonexistent\", \"$incdir\"]," >spec.json
"$gen" build spec.json -o libshim.so 2>build.err || { st=$?; cat build.err; echo "FAIL: build exited $st"; exit 1; }
nm -D --defined-only libshim.so | awk '{ print $3 }' | grep -qx abs || { echo "FAIL: abs not exported"; exit 1; }
"$gen" spec.json -o shim.c && grep -qx '#define INCDIR_LEVEL 3' shim.c || { echo "FAIL: no #define in the C"; exit 1; }

spec "" >bare.json
if "$gen" build bare.json -o libbare.so 2>bare.err; then
	echo "FAIL: built without include_dirs"
	exit 1
fi
grep -q "incdir/incdir.h" bare.err || { cat bare.err; echo "FAIL: not the missing header"; exit 1; }
echo ok
