#!/bin/sh
# setxid.sh RUNTIME SHIM SETXIDPROG CALLS - a program that changes its own
# thread's capabilities and then its gid, groups or uid, as
# `setpriv --reuid=U --regid=U --clear-groups` does.  glibc has every
# thread make a set*id call and aborts the process when one fails where
# the caller's succeeded; the runtime's flusher thread, without the
# caller's capabilities, was such a thread (status 134).  Under the
# runtime (preloaded ahead of libc, as apiprof-run does, with the flusher
# running) every such call succeeds as bare, with bare's output and exit
# status, the profiled calls count exactly, and the flusher publishes
# again afterwards, under the new uid.  Then the same with util-linux's
# setpriv(1) itself.
#
# The uid U is a number that names no user or group here (no account is
# needed to change to it).  The test runs itself again in a mount
# namespace of its own, with a tmpfs on /dev/shm.
set -u
. "$(dirname "$0")/../lib.sh"
runtime=$(realpath "$1") shim=$(realpath "$2") prog=$(realpath "$3") calls_prog=$(realpath "$4")

if [ -z "${APIPROF_TEST_SETXID_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root, to change uid and capabilities"; exit 77; }
	unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /dev/shm' 2>/dev/null || {
		echo "SKIP: cannot mount a tmpfs on /dev/shm in a private mount namespace (unshare -m)"
		exit 77
	}
	APIPROF_TEST_SETXID_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || { echo "FAIL: mount a tmpfs on /dev/shm"; exit 1; }
. "$(dirname "$0")/rlib.sh"
need setpriv util-linux
top=$APIPROF_TOP
n=1000

# A uid (and the next, for the uid calls) that no account or group has.
uid=
for u in $(seq 61000 2 64998); do
	if ! getent passwd $u $((u + 1)) >/dev/null && ! getent group $u >/dev/null; then
		uid=$u
		break
	fi
done
[ -n "$uid" ] || skip "no free uid between 61000 and 64999 on this machine"

# The program writes its profile as uid U (or U + 1): into a directory
# anyone may write to, below $tmp, which U may pass through.
chmod 711 "$tmp"
mkdir -m 1777 "$tmp/out"
# U runs copies of the runtime, the shim, the program and the build tree's
# libraries they load: a checkout may lie where U cannot reach (/root).
mkdir -m 755 "$tmp/bin"
for f in $(ldd "$prog" "$shim" "$calls_prog" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
	grep -v -e '^/lib' -e '^/usr/' | sort -u) "$runtime" "$shim" "$prog" "$calls_prog"; do
	cp "$f" "$tmp/bin/" || fail "cannot copy $f"
done
runtime=$tmp/bin/${runtime##*/} shim=$tmp/bin/${shim##*/} prog=$tmp/bin/${prog##*/}
calls_prog=$tmp/bin/${calls_prog##*/}
export LD_LIBRARY_PATH="$tmp/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
pl=$(shim_preload "$runtime" "$shim")
unset APIPROF_INTERVAL_MS APIPROF_SHM APIPROF_KEEP_SHM

# check TAG WANT: the runtime said nothing and counted WANT calls.
check() {
	[ ! -s "$tmp/$1.shim.err" ] || fail "$1: the runtime said: $(cat "$tmp/$1.shim.err")"
	got=$(calls "$tmp/out/$1.json" testlib.tl_add)
	[ "$got" = "$2" ] || fail "$1: APIPROF_OUTPUT has $got calls of tl_add, $2 made"
}

for call in setresgid setregid setgid setegid setgroups initgroups \
	setresuid setreuid setuid seteuid; do
	for how in plain threaded; do
		tag=$call-$how want=$((n * 2)) arg=
		[ $how = plain ] || arg=threaded want=$((n * 3))
		export APIPROF_OUTPUT="$tmp/out/$tag.json"
		compare "$tag" "$pl" "$prog" $call $uid $n $arg
		[ "$(cat "$tmp/$tag.bare.st")" = 0 ] ||
			skip "$tag: refused bare: $(cat "$tmp/$tag.bare.out" "$tmp/$tag.bare.err")"
		check "$tag" $want
	done
done
# Refused: the same steps in a process that is uid U and has no
# capability (setpriv made it so); the call fails with EPERM, as bare.
for call in setgid setgroups setuid; do
	export APIPROF_OUTPUT="$tmp/out/denied-$call.json"
	compare denied-$call "$pl" setpriv --reuid=$uid "$prog" $call $uid $n
	[ "$(cat "$tmp/denied-$call.shim.st")" = 1 ] &&
		[ "$(cat "$tmp/denied-$call.shim.out")" = "$call: Operation not permitted" ] ||
		fail "denied-$call: want '$call: Operation not permitted' and status 1, got status $(cat "$tmp/denied-$call.shim.st"): $(cat "$tmp/denied-$call.shim.out")"
	check denied-$call $n
done
unset APIPROF_OUTPUT
echo "ok: KEEPCAPS, setresuid, capset, then each of the 10 set*id calls: as bare, in a single- and a multithreaded program, every call counted; refused calls fail with EPERM as bare"

# The flusher runs again after the calls, as uid U: U's own apiprof-top
# (the segment is U's) is given every call made.
mkfifo "$tmp/ready" "$tmp/wait" || fail "mkfifo"
exec 3<>"$tmp/wait"
wd env LD_PRELOAD="$pl" APIPROF_OUTPUT="$tmp/out/live.json" \
	"$prog" setresgid $uid $n "$tmp/ready" "$tmp/wait" >"$tmp/live.out" 2>"$tmp/live.shim.err" 3>&- &
job=$!
pid=$(timeout 60 cat "$tmp/ready" | sed -n 's/^ready //p')
[ -n "$pid" ] || { wait $job; fail "the live run: status $?: $(cat "$tmp/live.out" "$tmp/live.shim.err")"; }
wd setpriv --reuid=$uid --regid=$uid --clear-groups "$top" --json -n 1 -p "$pid" \
	>"$tmp/live.top" 2>"$tmp/live.toperr" ||
	fail "apiprof-top as uid $uid: $(cat "$tmp/live.toperr")"
seen=$(grep -o '"name": *"tl_add", *"calls": *[0-9]*' "$tmp/live.top" | sed 's/.*: *//')
printf x >&3
wait $job
st=$?
[ $st -eq 0 ] || fail "the live run: status $st: $(cat "$tmp/live.out" "$tmp/live.shim.err")"
[ "$seen" = $((n * 2)) ] ||
	fail "uid $uid's apiprof-top saw '$seen' calls after the changes, $((n * 2)) made: $(cat "$tmp/live.top" "$tmp/live.toperr")"
check live $((n * 2))
echo "ok: after the changes the flusher published all $((n * 2)) calls to uid $uid's apiprof-top"

# util-linux's setpriv, under the runtime, execs a profiled program.
export APIPROF_OUTPUT="$tmp/out/setpriv.json"
compare setpriv "$pl" setpriv --reuid=$uid --regid=$uid --clear-groups "$calls_prog" $n
[ "$(cat "$tmp/setpriv.bare.st")" = 0 ] ||
	skip "setpriv refused bare: $(cat "$tmp/setpriv.bare.out" "$tmp/setpriv.bare.err")"
check setpriv $n
[ -s "$tmp/out/setpriv.json.exec1" ] || fail "setpriv's own image wrote no profile as it exec'd"
echo "ok: setpriv --reuid=$uid --regid=$uid --clear-groups calls $n: as bare, $n calls counted"
