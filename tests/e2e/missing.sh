#!/bin/sh
# missing.sh SHIM PROG - a wrapped function with no real definition warns
# once on stderr and fails with ENOSYS; the program goes on.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LD_PRELOAD="$(shim_preload "$shim")" "$prog" >"$tmp/out" 2>"$tmp/err"
grep -qx "missing: 0 bad results" "$tmp/out"
n=$(grep -c '^apiprof: gone: tl_gone not found after this shim (is libtestlib.so loaded?); calls fail with ENOSYS$' "$tmp/err")
m=$(grep -c 'tl_gone_ptr not found' "$tmp/err")
[ "$n" -eq 1 ] && [ "$m" -eq 1 ] || { echo "FAIL: want one warning each, got:"; cat "$tmp/err"; exit 1; }
[ "$(wc -l <"$tmp/err")" -eq 2 ] || { echo "FAIL: extra stderr:"; cat "$tmp/err"; exit 1; }
echo "ok: missing symbols warn once and fail with ENOSYS"
