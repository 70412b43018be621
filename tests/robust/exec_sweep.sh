#!/bin/sh
# exec_sweep.sh SHIM - a process that execs 20 times under a plain
# LD_PRELOAD=shim.so (no libapiprof.so ahead of libc, so no exec hook)
# keeps one segment in /dev/shm while it lives, and none after it exits:
# each new image removes the segments of the process's earlier images
# (issue 20, point 5).  It removes nothing else: decoys that bear the
# process's identity in their name but are a symlink, a directory, a
# FIFO or another user's file, and a segment of the same pid with another
# start time, stay.
#
# Runs in a mount namespace of its own with a fresh tmpfs on /dev/shm
# (root only), so that it sees only this test's segments.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1
chain=$(dirname "$0")/execchain.sh
n=20
if [ "${EXEC_SWEEP_NS:-}" != 1 ]; then
	unshare -m sh -c 'mount -t tmpfs tmpfs /dev/shm' 2>/dev/null ||
		skip "cannot mount a tmpfs on /dev/shm in a private mount namespace (unshare -m, root)"
	exec unshare -m sh -c 'mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
		EXEC_SWEEP_NS=1 exec "$0" "$@"' "$0" "$@"
fi
pl=$(shim_preload "$shim")
export APIPROF_INTERVAL_MS=0
mkfifo "$tmp/ready" "$tmp/go" || fail "mkfifo"
: >"$tmp/victim"

wd env LD_PRELOAD="$pl" sh "$chain" $n "$tmp" >"$tmp/live" 2>"$tmp/err" &
chainpid=$!
pid=$(wd cat "$tmp/ready")
# The image before the last one has its segment; name the decoys after it.
seg=$(cd /dev/shm && ls -d "apiprof-$(id -u)-$pid-"*)
[ "$(printf '%s\n' "$seg" | grep -c .)" -ge 1 ] || fail "no segment of pid $pid in /dev/shm"
mine=$(printf '%s\n' "$seg" | tail -n 1)
prefix=${mine%????????????????}
other=$(printf '%s' "$prefix" | awk -F- '{ $4 = $4 + 1; print }' OFS=-)
ln -s "$tmp/victim" "/dev/shm/${prefix}00000000000000aa"
mkdir "/dev/shm/${prefix}00000000000000bb"
mkfifo "/dev/shm/${prefix}00000000000000cc"
: >"/dev/shm/${prefix}00000000000000dd"
chown 4242 "/dev/shm/${prefix}00000000000000dd"
: >"/dev/shm/${other}00000000000000ee"
decoys="${prefix}00000000000000aa ${prefix}00000000000000bb ${prefix}00000000000000cc ${prefix}00000000000000dd ${other}00000000000000ee"
wd sh -c 'echo go >"$1"' sh "$tmp/go"
wait $chainpid
st=$?
[ $st -eq 0 ] || { cat "$tmp/err"; fail "the exec chain exited with status $st"; }
cat "$tmp/err"

for d in $decoys; do
	[ -e "/dev/shm/$d" ] || [ -L "/dev/shm/$d" ] || fail "decoy $d was removed"
	sed -i "/^$d\$/d" "$tmp/live"
done
[ -f "$tmp/victim" ] || fail "the symlink's target was removed"
[ "$(sed -n 's/^pid //p' "$tmp/live")" = "$pid" ] || fail "the chain's pid changed"
live=$(grep -c '^apiprof-' "$tmp/live")
[ "$live" -eq 1 ] ||
	fail "$live segments of one process after $n execs under a plain shim, 1 expected: $(grep '^apiprof-' "$tmp/live" | tr '\n' ' ')"
grep -q "^apiprof-$(id -u)-$pid-" "$tmp/live" || fail "the live segment is not pid $pid's: $(cat "$tmp/live")"
left=$(cd /dev/shm && ls -A | grep -v -x -F "$(printf '%s\n' $decoys)")
[ -z "$left" ] || fail "left in /dev/shm after exit: $left"
echo "ok: $n execs under a plain shim, 1 segment while alive, 0 after exit, 5 decoys kept"
