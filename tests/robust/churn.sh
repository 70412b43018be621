#!/bin/sh
# churn.sh SHIM CHURN - 200,000 short-lived threads one after another,
# 10,000 threads alive at once, then 20,000 short-lived ones more:
# identical output, exact counts (the folded "(exited)" row included) and
# bounded memory (checked by the program itself).
#
# The short-lived threads come first: after the burst every new thread
# costs the runtime a walk over all 10,000 kept entries (entry_acquire
# looks for the oldest exited one), which would make 200,000 of them take
# most of a minute.  20,000 after the burst still show its slots reused.
#
# Pinned to one CPU: creating and joining threads one after another is
# dominated by cross-CPU wake-ups otherwise (twice as slow in a VM), and
# this test is about counts and memory, not parallelism.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
alive=${ALIVE:-10000} seq=${SEQ:-200000} check=${CHECK:-20000}
# The bound: an exited thread's entry in the runtime holds its statistics
# table (some 7 kB for testlib's 15 functions), so if slots were not reused
# the 180,000 threads between the two checkpoints would add over 1 GB; even
# a 48-byte leak per thread would exceed 8 MiB.  Steady-state noise
# (malloc's arenas, glibc's stack cache, ring pages) is far below that.
bound_kb=8192
if sanitized "$shim"; then
	# TSan caps the threads alive at once (8128) and runs ~20x slower; its
	# own shadow memory grows with the threads that ever lived.
	alive=2000 seq=20000 check=2000 bound_kb=1000000
fi
free=$(($(cat /proc/sys/kernel/pid_max) - $(ls /proc | grep -c '^[0-9]')))
[ $free -gt $((alive + 2000)) ] || skip "pid_max leaves room for only $free threads"

export APIPROF_OUTPUT="$tmp/out.json"
# One CPU for this shell and so for both runs: set here rather than with
# taskset in the command, which would itself run under the shim and exec
# the program, and a plain shim cannot finish an image that execs (its
# segment would stay in /dev/shm, README: "The runtime's hooks").
command -v taskset >/dev/null 2>&1 &&
	taskset -pc "$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')" $$ >/dev/null
compare churn "$(shim_preload "$shim")" "$prog" $alive $seq $check $bound_kb
[ "$(cat "$tmp/churn.bare.st")" -eq 77 ] && skip "$(cat "$tmp/churn.bare.out")"
cat "$tmp/churn.shim.err"
made=$(sed -n 's/^calls \([0-9]*\) .*/\1/p' "$tmp/churn.shim.out")
got=$(calls "$tmp/out.json" testlib.tl_add)
[ "$got" = "$made" ] || fail "tl_add: $got calls counted, $made made"
folded=$("$OUTDUMP" -t "$tmp/out.json" | awk '$1 == 0 && $2 == "(exited)" { n += $4 } END { print n + 0 }')
[ "$folded" -gt 0 ] || fail "no folded (exited) row after $((alive + seq)) threads"
echo "ok: $seq short-lived threads, $alive alive at once, $check more: $got calls counted exactly ($folded folded)"
