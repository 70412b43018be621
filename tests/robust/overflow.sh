#!/bin/sh
# overflow.sh SHIM CALLS RINGREAD - a 4-record ring, a flush every
# millisecond and 10 million calls, with a reader that is stalled,
# SIGKILLed or never started: the program's output and APIPROF_OUTPUT are
# exact, and the stalled reader accounts for every position produced.
# Then, in a ring with room for the whole run (issue 20, point 22): with
# every odd slot held busy by the reader, records received + records
# dropped == records produced and the runtime counts each drop; and each
# histogram the run writes puts its shortest and longest calls in their
# own buckets, down to a run of one call.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2 ringread=$3
n=10000000
sanitized "$shim" && n=1000000
pl=$(shim_preload "$shim")

"$prog" $n >"$tmp/bare.out" || fail "bare run failed"
# The monotonic clock makes the segment readable from its creation (the
# TSC's rate is only known after the first flush).
export APIPROF_RING_RECORDS=4 APIPROF_INTERVAL_MS=1 APIPROF_CLOCK=monotonic
export APIPROF_OUTPUT="$tmp/out.json"
for mode in none kill stall; do
	wd "$ringread" $mode "$pl" "$prog" $n >"$tmp/$mode.out" 2>"$tmp/$mode.err"
	st=$?
	[ $st -eq 0 ] || fail "$mode: status $st: $(cat "$tmp/$mode.err")"
	cmp -s "$tmp/bare.out" "$tmp/$mode.out" || fail "$mode: output differs: $(cat "$tmp/$mode.out")"
	got=$(calls "$tmp/out.json" testlib.tl_add)
	[ "$got" -eq $n ] || fail "$mode: $got calls counted, $n made"
	echo "ok: reader $mode: output unchanged, $got calls counted"
done
cat "$tmp/stall.err"

for run in "drop $n" "hist $n" "hist 1"; do
	set -- $run
	"$prog" $2 >"$tmp/bare.out" || fail "bare run failed"
	APIPROF_RING_RECORDS=65536 wd "$ringread" $1 "$pl" "$prog" $2 >"$tmp/$1.out" 2>"$tmp/$1.err"
	st=$?
	[ $st -eq 0 ] || fail "$run: status $st: $(cat "$tmp/$1.err")"
	cmp -s "$tmp/bare.out" "$tmp/$1.out" || fail "$run: output differs: $(cat "$tmp/$1.out")"
	echo "ok: $run: $(tr '\n' ' ' <"$tmp/$1.err")"
done
