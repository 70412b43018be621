#!/bin/sh
# tsd.sh SHIM TSD - a thread's calls from other keys' destructors, made
# after the runtime's destructor ran, are still counted (it re-arms itself
# for glibc's rounds).
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
skip_under_tsan "$shim" "under TSan the runtime retires a thread in the first destructor round (TSan's own destructor ends the thread's TSan state in the last one)"
threads=64 n=1000

export APIPROF_OUTPUT="$tmp/exact.json"
compare exact "$(shim_preload "$shim")" "$prog" $threads $n exact
made=$(awk '{ print $2 }' "$tmp/exact.shim.out")
got=$(calls "$tmp/exact.json" testlib.tl_add)
# 1 in main, and per thread: n, plus 3 rounds of 2 keys.
[ "$made" -eq $((1 + threads * (n + 6))) ] || fail "exact: the program made $made calls"
[ "$got" -eq "$made" ] || fail "exact: $got calls counted, $made made"
echo "ok: destructor calls in rounds 1-3 counted: $got of $made"

# Every round glibc runs: only the last round's calls, made after the
# runtime retired the thread, pass through uncounted; nothing else is lost.
export APIPROF_OUTPUT="$tmp/four.json"
compare four "$(shim_preload "$shim")" "$prog" $threads $n four
made=$(awk '{ print $2 }' "$tmp/four.shim.out")
last=$(awk '{ print $4 }' "$tmp/four.shim.out")
got=$(calls "$tmp/four.json" testlib.tl_add)
[ "$last" -eq $((threads * 2)) ] || fail "four: $last calls in the last round"
[ "$got" -eq $((made - last)) ] || fail "four: $got calls counted, $made made, $last in the last round"
echo "ok: all glibc rounds: $got of $made counted, the $last of the last round not"
