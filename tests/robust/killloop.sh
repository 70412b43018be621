#!/bin/sh
# killloop.sh SHIM CALLS - a producer SIGKILLed at 200 instants chosen by a
# seeded PRNG (before its runtime starts, while it makes its segment,
# while its flusher writes records every millisecond) never makes
# apiprof-top hang; a segment it left is shown as stale and then removed
# by that viewer (issue 35); the rest (not yet formatted, which no viewer
# takes as apiprof's) go at the next producer's start (no collector
# watches) or by `apiprof-top --clean`: none is left.
#
# Runs in a mount namespace of its own with a fresh tmpfs on /dev/shm when
# it can, so that --clean sees only this test's segments.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
iters=${KILL_ITERS:-200} seed=${KILL_SEED:-5}
if [ "${KILLLOOP_NS:-}" != 1 ] &&
	unshare -m sh -c 'mount -t tmpfs tmpfs /dev/shm' 2>/dev/null; then
	exec unshare -m sh -c 'mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
		KILLLOOP_NS=1 exec "$0" "$@"' "$0" "$@"
fi
[ "${KILLLOOP_NS:-}" = 1 ] || echo "note: no private /dev/shm; --clean also removes other dead processes' segments"
top=$APIPROF_TOP
uid=$(id -u)
pl=$(shim_preload "$shim")
export APIPROF_INTERVAL_MS=1 APIPROF_CLOCK=monotonic

# Kill delays, 0 to 20 ms, skewed towards the start: start-up takes about
# 1 ms, so they cover the runtime's start, the segment's creation and the
# flushes.  One in ten is 0: killed at once, without even starting sleep
# (which itself takes about a millisecond).  The sleep only picks the
# instant; nothing waits on it.
awk -v n="$iters" -v seed="$seed" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%.6f\n", rand() < 0.1 ? 0 : int(rand() * rand() * 20000) / 1e6 }' >"$tmp/delays"
stale=0 unready=0 none=0
: >"$tmp/seen"
while read -r delay; do
	LD_PRELOAD=$pl exec "$prog" 1000 loop >/dev/null &
	pid=$!
	[ "$delay" = 0.000000 ] || sleep "$delay"
	kill -KILL $pid
	wait $pid 2>/dev/null
	# The segment this producer made, if any: the pid may be one an
	# earlier producer had (thread churn in parallel tests wraps pids),
	# so a segment already counted is not this one's.
	seg=
	for f in /dev/shm/apiprof-"$uid"-"$pid"-*; do
		[ -e "$f" ] && ! grep -qxF "$f" "$tmp/seen" && seg=$f
	done
	echo "$seg" >>"$tmp/seen"
	magic=
	[ -z "$seg" ] || magic=$(od -An -tx8 -N8 "$seg" | tr -d ' ')
	wd "$top" -b -n 2 -d 0.05 -p $pid >"$tmp/top.out" 2>"$tmp/top.err" ||
		fail "apiprof-top exited $? after a kill $delay s in: $(cat "$tmp/top.err")"
	if [ -z "$seg" ]; then
		none=$((none + 1)) # killed before the runtime made its segment
	elif [ "$magic" != 464f525049504141 ]; then
		unready=$((unready + 1)) # killed before the segment was formatted
	else
		grep -q "^PID $pid .* stale " "$tmp/top.out" ||
			fail "pid $pid (killed $delay s in) not shown as stale: $(cat "$tmp/top.out")"
		# and then taken by the viewer (issue 35): a dead process's segment
		[ ! -e "$seg" ] || fail "pid $pid: the viewer left its dead segment $seg"
		stale=$((stale + 1))
	fi
done <"$tmp/delays"
[ $stale -gt 0 ] || fail "no kill hit a running producer with a segment"
echo "ok: $iters kills: $stale stale segments shown, $unready unformatted, $none without a segment"

wd "$top" --clean >"$tmp/clean.out" 2>&1 || fail "--clean: $(cat "$tmp/clean.out")"
left=$(ls /dev/shm | grep -c "^apiprof-$uid-")
removed=$(grep -c '^removed ' "$tmp/clean.out")
[ "$left" -eq 0 ] || [ "${KILLLOOP_NS:-}" != 1 ] || fail "--clean left $left segments: $(ls /dev/shm)"
echo "ok: apiprof-top --clean removed $removed segments"
