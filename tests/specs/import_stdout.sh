#!/bin/sh
# import_stdout.sh APIPROF_GEN LIBTLGOLD
#
# `apiprof-gen import` writing its spec to a standard output it cannot
# write (opened read-only here) fails with status 1 and says why in one
# line, instead of failing silently.
set -eu
gen=$1 lib=$2
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
golden=$(cd "$(dirname "$0")/golden" && pwd)
libdir=$(cd "$(dirname "$lib")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/ro"

rc=0
(cd "$golden" && LD_LIBRARY_PATH=$libdir "$gen" import tl.h --library libtlgold.so --prefix tl_) \
	1<"$tmp/ro" 2>"$tmp/err" || rc=$?
if grep -q "built without libclang" "$tmp/err"; then
	echo "SKIP: apiprof-gen was built without libclang"
	exit 77
fi
[ "$rc" -eq 1 ] || { echo "FAIL: exit status $rc, want 1"; cat "$tmp/err"; exit 1; }
want="apiprof-gen: import: cannot write the spec to standard output: Bad file descriptor"
n=$(grep -c "cannot write" "$tmp/err" || true)
grep -qxF "$want" "$tmp/err" && [ "$n" -eq 1 ] || {
	echo "FAIL: want exactly one line: $want"
	cat "$tmp/err"
	exit 1
}
echo "ok: $want"
