#!/bin/sh
# sigstorm.sh SHIM SIGSTORM - a SIGUSR1 storm whose handler calls the api
# the main thread is calling: no deadlock, exact counts.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
n=1000000
sanitized "$shim" && n=100000

export APIPROF_OUTPUT="$tmp/out.json" APIPROF_INTERVAL_MS=1
compare storm "$(shim_preload "$shim")" "$prog" $n
read -r _ out _ in _ edge <"$tmp/storm.shim.err" || fail "no handler counts: $(cat "$tmp/storm.shim.err")"
add=$(calls "$tmp/out.json" testlib.tl_add)
apply=$(calls "$tmp/out.json" testlib.tl_apply)
keep=$(calls "$tmp/out.json" testlib.tl_keep_errno)
applies=$(((n + 63) / 64))
[ "$add" -eq $((n + out)) ] || fail "tl_add: $add counted, want $n + $out from the handler"
[ "$apply" -eq $applies ] || fail "tl_apply: $apply counted, want $applies"
[ "$in" -ge $applies ] || fail "the handler ran only $in times inside tl_apply"
[ "$keep" -le "$edge" ] || fail "tl_keep_errno: $keep counted, only $edge made"
echo "ok: $n calls + $out from the handler counted exactly; $in nested handler calls not counted; $keep of $edge edge calls counted"
