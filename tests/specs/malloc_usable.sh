#!/bin/sh
# malloc_usable.sh SHIM OUTDUMP USABLE_PROG - the malloc spec's
# malloc_usable_size row: usable_prog N calls it exactly N times, and its
# results (their sum, printed) are the same as without the shim.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2 prog=$3
skip_if_sanitized "$shim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=5000
"$prog" $n >"$tmp/bare.txt"
APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$(shim_preload "$shim")" "$prog" $n >"$tmp/shim.txt"
cmp "$tmp/bare.txt" "$tmp/shim.txt" || { echo "FAIL: the output differs under the shim"; exit 1; }
got=$("$outdump" "$tmp/out.json" | awk '$2 == "malloc.malloc_usable_size" { n += $3 } END { print n + 0 }')
[ "$got" -eq $n ] || { echo "FAIL: malloc_usable_size counted $got, want $n"; exit 1; }
echo "ok: malloc_usable_size counted exactly $n times, the same sizes: $(cat "$tmp/shim.txt")"
