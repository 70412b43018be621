#!/bin/sh
# sigdeath.sh RUNTIME SHIM SIGPROG - death by SIGTERM, SIGINT, SIGHUP or
# SIGQUIT at the default disposition, the way servers are stopped.  Under
# the runtime (preloaded, as apiprof-run does) the program dies of the
# signal exactly as it does bare (same status), and yet APIPROF_OUTPUT
# has every call and no segment is left in /dev/shm; with the flusher
# thread (which does the writing) and without it (the handler does).  A
# program's own handler is kept, one that asks is shown the default, and
# an inherited SIG_IGN (nohup) stays: the program survives, as bare.
#
# Runs in a mount namespace of its own with a fresh tmpfs on /dev/shm when
# it can (root), so that whatever is left there is this test's.
set -u
if [ "${SIGDEATH_NS:-}" != 1 ] &&
	unshare -m sh -c 'mount -t tmpfs tmpfs /dev/shm' 2>/dev/null; then
	exec unshare -m sh -c 'mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
		SIGDEATH_NS=1 exec "$0" "$@"' "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
runtime=$1 shim=$2 prog=$3
env --default-signal=TERM true 2>/dev/null || skip "env has no --default-signal (coreutils < 8.31)"
[ "${SIGDEATH_NS:-}" = 1 ] || echo "note: no private /dev/shm; segments are looked for by pid"
pl=$(shim_preload "$runtime" "$shim")
n=1234
dfl=--default-signal=HUP,INT,QUIT,TERM
ulimit -c 0 # SIGQUIT dumps core, bare and profiled alike: not here
mkfifo "$tmp/ready" "$tmp/wait" || fail "mkfifo"
# The programs block reading this fifo; the shell holds it open for writing.
exec 3<>"$tmp/wait"

# segs PID: the segments in /dev/shm (all of them when it is private).
segs() {
	if [ "${SIGDEATH_NS:-}" = 1 ]; then
		ls /dev/shm | grep -c '^apiprof-'
	else
		ls /dev/shm | grep -c "^apiprof-.*-$1-"
	fi
}

# start TAG MODE ENV...: starts `sigprog MODE` with `env ENV...` under a
# watchdog and waits until it has made its calls: $pid is the program's,
# $job the watchdog's, which dies as the program does.
start() {
	tag=$1 mode=$2
	shift 2
	timeout -s KILL 60 env "$@" "$prog" "$mode" $n "$tmp/ready" "$tmp/wait" \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err" 3>&- &
	job=$!
	pid=$(timeout 60 cat "$tmp/ready" | sed -n 's/^ready //p')
	[ -n "$pid" ] || fail "$tag: the program never got ready: $(cat "$tmp/$tag.err")"
}

# stop SIG: sends SIG to the program; $st is how it ended.
stop() {
	kill -s "$1" "$pid"
	wait "$job"
	st=$?
	[ $st -ne 137 ] || fail "$tag: hang (killed by the watchdog)"
}

# profiled TAG JSON: the program ran under the runtime: its output has
# exactly n calls and its segment is gone.
profiled() {
	[ -f "$2" ] || fail "$1: no APIPROF_OUTPUT written: $(cat "$tmp/$1.err")"
	got=$(calls "$2" testlib.tl_add)
	[ "$got" = $n ] || fail "$1: APIPROF_OUTPUT has $got calls, $n made"
	[ "$(segs "$pid")" = 0 ] || fail "$1: segment left in /dev/shm: $(ls /dev/shm)"
}

for sig in TERM INT HUP QUIT; do
	start "bare-$sig" block $dfl
	stop $sig
	want=$st
	[ $want -gt 128 ] || fail "bare: $sig did not kill the program (status $want)"
	for ms in 200 0; do
		tag=$sig-$ms
		start "$tag" block $dfl LD_PRELOAD="$pl" APIPROF_OUTPUT="$tmp/$tag.json" \
			APIPROF_INTERVAL_MS=$ms
		[ "$(segs "$pid")" = 1 ] || fail "$tag: no segment while it runs: $(ls /dev/shm)"
		stop $sig
		[ $st -eq $want ] || fail "$tag: status $st under the runtime, $want bare: $(cat "$tmp/$tag.err")"
		profiled "$tag" "$tmp/$tag.json"
	done
	echo "ok: SIG$sig: status $want as bare, $n calls written, no segment left (with and without the flusher)"
done

# A handler of the program's own, set by sigaction() or signal(): it runs
# (prints, exits 7), and the program saw the default before it.
for mode in handler signal; do
	start "bare-$mode" $mode $dfl
	stop TERM
	want=$st
	start "$mode" $mode $dfl LD_PRELOAD="$pl" APIPROF_OUTPUT="$tmp/$mode.json"
	stop TERM
	[ $st -eq $want ] || fail "$mode: status $st under the runtime, $want bare"
	cmp -s "$tmp/bare-$mode.out" "$tmp/$mode.out" ||
		fail "$mode: output '$(cat "$tmp/$mode.out")', bare '$(cat "$tmp/bare-$mode.out")'"
	profiled "$mode" "$tmp/$mode.json"
	echo "ok: $mode: the program's own SIGTERM handler ran (status $st, '$(tr '\n' ' ' <"$tmp/$mode.out")')"
done

# Set to a handler and back to the default: caught again.
start bare-redfl redfl $dfl
stop TERM
want=$st
start redfl redfl $dfl LD_PRELOAD="$pl" APIPROF_OUTPUT="$tmp/redfl.json"
stop TERM
[ $st -eq $want ] || fail "redfl: status $st under the runtime, $want bare"
cmp -s "$tmp/bare-redfl.out" "$tmp/redfl.out" || fail "redfl: output differs: $(cat "$tmp/redfl.out")"
profiled redfl "$tmp/redfl.json"
echo "ok: SIG_DFL set again by the program: status $st as bare, $n calls written"

# What the program is shown: the default, mask and flags as bare.
compare query "$pl" env $dfl "$prog" query
grep -qx 'TERM DFL flags=0 mask=' "$tmp/query.shim.out" ||
	fail "query: SIGTERM not shown as the default: $(cat "$tmp/query.shim.out")"
echo "ok: dispositions shown as bare ($(grep -c DFL "$tmp/query.shim.out") defaults)"

# nohup: SIGHUP inherited as ignored stays ignored; the program goes on.
start bare-nohup block --default-signal=INT,QUIT,TERM --ignore-signal=HUP
stop_hup_then_wake() {
	kill -s HUP "$pid"
	printf x >&3
	wait "$job"
	st=$?
}
stop_hup_then_wake
[ $st -eq 0 ] || fail "bare nohup: status $st"
start nohup block --default-signal=INT,QUIT,TERM --ignore-signal=HUP LD_PRELOAD="$pl" \
	APIPROF_OUTPUT="$tmp/nohup.json"
stop_hup_then_wake
[ $st -eq 0 ] || fail "nohup: SIGHUP (ignored at start) ended the program: status $st"
cmp -s "$tmp/bare-nohup.out" "$tmp/nohup.out" || fail "nohup: output differs: $(cat "$tmp/nohup.out")"
profiled nohup "$tmp/nohup.json"
echo "ok: an inherited SIG_IGN of SIGHUP stays: the program survived it and exited 0"
