#!/bin/sh
# userns.sh RUNTIME SHIM NSPROG [MALLOC_SHIM] - calls the kernel grants only
# a single-threaded process: unshare(CLONE_NEWUSER) and setns() into a
# mount or user namespace.  The runtime's flusher thread would make them
# fail with EINVAL; under the runtime (preloaded, as apiprof-run does) they
# succeed as bare, and the flusher publishes again after them.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
runtime=$1 shim=$2 prog=$3 malloc=${4:-}
top=$APIPROF_TOP
n=1000 levels=3

unshare -U -r id -u >"$tmp/bare.out" 2>&1 && [ "$(cat "$tmp/bare.out")" = 0 ] ||
	skip "this machine cannot make user namespaces: $(cat "$tmp/bare.out")"

# util-linux's unshare, as in apiprof-run -s malloc -- unshare -U -r id -u.
if [ -n "$malloc" ] && ! sanitized "$malloc"; then
	wd env LD_PRELOAD="$runtime:$malloc" APIPROF_OUTPUT="$tmp/u.json" \
		unshare -U -r id -u >"$tmp/u.out" 2>"$tmp/u.err"
	st=$?
	[ $st -eq 0 ] && [ "$(cat "$tmp/u.out")" = 0 ] && [ ! -s "$tmp/u.err" ] ||
		fail "unshare -U -r id -u under the runtime: status $st: $(cat "$tmp/u.out" "$tmp/u.err")"
	# unshare's image wrote OUT.exec1 before it exec'd id, which wrote OUT.
	for f in u.json.exec1 u.json; do
		[ "$(calls "$tmp/$f" malloc.malloc)" -gt 0 ] || fail "no malloc calls in $f"
	done
	echo "ok: unshare -U -r id -u prints 0 under the runtime; $(calls "$tmp/u.json.exec1" malloc.malloc) + $(calls "$tmp/u.json" malloc.malloc) mallocs written"
fi

mkfifo "$tmp/ready" "$tmp/wait" || fail "mkfifo"
exec 3<>"$tmp/wait"
pl=$(shim_preload "$runtime" "$shim")
for mode in unshare setns; do
	arg=$levels want=$((n * (levels + 1)))
	[ $mode = unshare ] || arg=- want=$((n * 3))
	# Bare first: the kernel may refuse these for reasons of its own.
	timeout -s KILL 60 "$prog" $mode $n $arg "$tmp/ready" "$tmp/wait" >"$tmp/$mode.bare" 2>&1 3>&- &
	job=$!
	timeout 60 cat "$tmp/ready" >/dev/null
	printf x >&3
	wait $job || skip "$mode: refused bare: $(cat "$tmp/$mode.bare")"
	# Under the runtime; a reader looks once the calls are made.
	timeout -s KILL 60 env LD_PRELOAD="$pl" APIPROF_OUTPUT="$tmp/$mode-%p.json" \
		"$prog" $mode $n $arg "$tmp/ready" "$tmp/wait" >"$tmp/$mode.out" 2>"$tmp/$mode.err" 3>&- &
	job=$!
	pid=$(timeout 60 cat "$tmp/ready" | sed -n 's/^ready //p')
	[ -n "$pid" ] || { wait $job; fail "$mode under the runtime: status $?: $(cat "$tmp/$mode.out" "$tmp/$mode.err")"; }
	wd "$top" --json -n 1 -p "$pid" >"$tmp/$mode.top" 2>"$tmp/$mode.toperr" ||
		fail "$mode: apiprof-top: $(cat "$tmp/$mode.toperr")"
	seen=$(grep -o '"name": *"tl_add", *"calls": *[0-9]*' "$tmp/$mode.top" | sed 's/.*: *//')
	printf x >&3
	wait $job
	st=$?
	[ $st -eq 0 ] || fail "$mode under the runtime: status $st: $(cat "$tmp/$mode.out" "$tmp/$mode.err")"
	cmp -s "$tmp/$mode.bare" "$tmp/$mode.out" || fail "$mode: output differs: $(cat "$tmp/$mode.out")"
	[ "$seen" = $want ] || fail "$mode: apiprof-top saw '$seen' calls after the namespace changes, $want made: $(cat "$tmp/$mode.top" "$tmp/$mode.toperr")"
	got=$(calls "$tmp/$mode-$pid.json" testlib.tl_add)
	[ "$got" = $want ] || fail "$mode: APIPROF_OUTPUT has $got calls, $want made"
	echo "ok: $mode: as bare; the flusher published all $want calls to apiprof-top afterwards"
done
