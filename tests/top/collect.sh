#!/bin/sh
# collect.sh TOP SHIM SHORTPROG - every process counted, however short its
# life (issue 35, point 4), in a /dev/shm of its own (a private mount
# namespace with a tmpfs):
#  1. 1000 fork children of about 1 ms, N calls each, started while the
#     exporter (--textfile) and another collector (-b) run: the exporter's
#     counter is exactly 1000 x N, and once they have taken them no
#     segment is left, and the counter stays;
#  2. 20 short processes that ended while the watching marker promised a
#     look: `apiprof-top -b -n 1 --json` shows all 20, ended, N calls each;
#     and one of another user, under root's marker;
#  3. 200 processes that died of SIGSEGV and SIGABRT leave 200 segments,
#     and none once a viewer has run; a segment named for a dead process
#     that is not apiprof's (another user's garbage) is left alone;
#  4. with no collector, the next start of a profiled process of the same
#     user removes dead processes' segments.
# collect.sh TOP SHIM SHORTPROG stopped - the promise is the collectors'
# lock on the watching marker, not a time (top-collect-stopped):
#  S1. the exporter, stopped (SIGSTOP) while 200 processes end, then let
#     go: its counter is exactly 200 x N, and one-shot viewers that read
#     them meanwhile leave every segment for it;
#  S2. killed (SIGKILL), it promises nothing: ending processes remove
#     their own segments, though the marker file stays;
#  S3. a collector killed while stopped leaves its unread segments to the
#     next viewer, which takes them;
#  S4. another user's lock on root's marker promises nothing: a read lock
#     (anyone may open the marker to ask), nor a write lock on a marker
#     others may write.
set -u
if [ "${COLLECT_INNER:-}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root: a private mount namespace with its own /dev/shm"; exit 77; }
	unshare -m --propagation private true 2>/dev/null ||
		{ echo "SKIP: cannot make a private mount namespace (unshare -m)"; exit 77; }
	exec unshare -m --propagation private env COLLECT_INNER=1 sh -c \
		'mount -t tmpfs -o size=1g tmpfs /dev/shm && exec sh "$0" "$@"' "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1 shim=$2 prog=$3 mode=${4:-}
need jq jq
pl=$(shim_preload "$shim")
n=7 k=1000
segs() { find /dev/shm -maxdepth 1 -name 'apiprof-[0-9]*' | wc -l; }
calls_in() { awk '/^apiprof_calls_total\{.*function="tt_work"/ { s += $NF } END { print s + 0 }' "$1" 2>/dev/null; }
# until SECONDS CMD...: polls CMD until it succeeds, at most SECONDS.
until_ok() {
	end=$(($(date +%s) + $1))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt $end ] || return 1
		sleep 0.1
	done
}

# The program that the `timeout` of pid $1 runs (apiprof-top).
# (the file has no newline: read fails at its end, having read it).
inner() {
	c=
	read -r c _ <"/proc/$1/task/$1/children"
	[ -n "$c" ] && echo "$c"
}
# A collector of `-b` (a live view's promise), stopped once it has made
# its first refresh (and so holds its slot): $col its timeout, $col_top it.
# Under umask 077: the marker must still be readable by other users.
stopped_collector() {
	(umask 077 && exec timeout -k 5 300 "$top" -b -d 0.1 --json >"$tmp/s.out" 2>"$tmp/s.err") &
	col=$!
	until_ok 60 test -s "$tmp/s.out" || fail "the collector printed nothing: $(cat "$tmp/s.err")"
	col_top=$(inner $col) || fail "no apiprof-top under timeout"
	kill -STOP "$col_top"
}
# shows_ended N C FILE: FILE (apiprof-top --json) shows N ended processes
# with C calls of tt_work each.
shows_ended() {
	[ "$(jq "[.processes[] | select(.state == \"ended\") | [.threads[].functions[] |
		select(.name == \"tt_work\") | .calls] | add | select(. == $2)] | length" "$3")" -eq "$1" ]
}
marker=/dev/shm/apiprof-watching-0

if [ "$mode" = stopped ]; then
	# S1.  The old promise was the marker's mtime, 5 s ahead: setting it in
	# the past is what the exporter stopped for longer than that did to it.
	mkdir "$tmp/text"
	timeout -k 5 300 "$top" --textfile "$tmp/text" --all-users -d 0.2 2>"$tmp/exp.err" &
	exp=$!
	trap 'kill $exp 2>/dev/null; rm -rf "$tmp"' EXIT
	until_ok 60 test -f "$tmp/text/apiprof.prom" || fail "the exporter wrote no textfile: $(cat "$tmp/exp.err")"
	exp_top=$(inner $exp) || fail "no apiprof-top under timeout"
	kill -STOP "$exp_top"
	touch -d @1 "$marker"
	k=200
	out=$(wd env LD_PRELOAD="$pl" "$prog" $n $k) || fail "shortprog: status $?"
	[ "$out" = "exited $k killed 0" ] || fail "shortprog: $out"
	# and shortprog's own, which made no call
	[ "$(segs)" -eq $((k + 1)) ] ||
		fail "with the exporter stopped, $(segs) of $((k + 1)) ended processes' segments were left for it"
	for i in 1 2; do
		wd "$top" -b -n 1 --json >"$tmp/top.json" 2>"$tmp/top.err" || fail "viewer: status $?: $(cat "$tmp/top.err")"
		shows_ended $k $n "$tmp/top.json" || fail "viewer $i: not all $k processes shown ended with $n calls"
		[ "$(segs)" -eq $((k + 1)) ] ||
			fail "viewer $i took segments the stopped exporter had not read: $(segs) of $((k + 1)) left"
	done
	kill -CONT "$exp_top"
	want=$((k * n))
	got_want() { [ "$(calls_in "$tmp/text/apiprof.prom")" -eq $want ]; }
	until_ok 120 got_want ||
		fail "the exporter, stopped then let go, counts $(calls_in "$tmp/text/apiprof.prom") calls of tt_work, $k processes made $want"
	none_left() { [ "$(segs)" -eq 0 ]; }
	until_ok 60 none_left || fail "$(segs) segments left after the exporter read them"
	echo "ok: the exporter, stopped while $k processes ended, counts $want calls once let go; two viewers meanwhile took none"
	# S2.
	kill -KILL "$exp_top"
	wait $exp
	[ -f "$marker" ] || fail "the marker went with its collector"
	out=$(wd env LD_PRELOAD="$pl" "$prog" 3 20) || fail "shortprog: status $?"
	[ "$out" = "exited 20 killed 0" ] || fail "shortprog: $out"
	[ "$(segs)" -eq 0 ] ||
		fail "with the exporter killed, $(segs) of 21 ended processes left their segments: a dead collector still promised"
	echo "ok: a killed exporter promises nothing: 21 ended processes removed their own segments"
	# S3.
	stopped_collector
	trap 'kill -KILL "$col_top" 2>/dev/null; rm -rf "$tmp"' EXIT
	out=$(wd env LD_PRELOAD="$pl" "$prog" 3 20) || fail "shortprog: status $?"
	[ "$(segs)" -eq 21 ] || fail "with a collector stopped, $(segs) of 21 segments left for it"
	kill -KILL "$col_top"
	wait $col
	wd "$top" -b -n 1 --json >"$tmp/top.json" 2>"$tmp/top.err" || fail "viewer: status $?: $(cat "$tmp/top.err")"
	shows_ended 20 3 "$tmp/top.json" || fail "the viewer after the collector's death: not all 20 shown ended, 3 calls"
	[ "$(segs)" -eq 0 ] || fail "$(segs) of the killed collector's 21 unread segments left after the next viewer"
	echo "ok: a collector killed while stopped: the next viewer shows and takes its 21 unread segments"
	# S4.
	command -v setpriv >/dev/null || fail "no setpriv (util-linux)"
	# Debian's, which any user can run (another in PATH may lie under /root).
	py=/usr/bin/python3
	[ -x $py ] || fail "no $py (python3)"
	for how in read write; do
		[ $how = read ] || chmod 666 "$marker"
		: >"$tmp/lock.out"
		(cd / && exec setpriv --reuid=12346 --regid=12346 --clear-groups $py -c '
import fcntl, os, signal, struct, sys
how = sys.argv[2]
fd = os.open(sys.argv[1], os.O_RDONLY if how == "read" else os.O_RDWR)
kind = fcntl.F_RDLCK if how == "read" else fcntl.F_WRLCK
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", kind, os.SEEK_SET, 0, 0, 0))
try:
    os.open(sys.argv[1], os.O_RDWR)
    print("locked, and could open it to write", flush=True)
except PermissionError:
    print("locked", flush=True)
signal.pause()' "$marker" $how >"$tmp/lock.out" 2>&1) &
		locker=$!
		said() { [ -s "$tmp/lock.out" ]; }
		until_ok 60 said && grep -q '^locked' "$tmp/lock.out" ||
			fail "user 12346 could not lock the marker ($how): $(cat "$tmp/lock.out")"
		out=$(wd env LD_PRELOAD="$pl" "$prog" 3 20) || fail "shortprog: status $?"
		kill $locker
		wait $locker 2>/dev/null
		[ "$(segs)" -eq 0 ] ||
			fail "user 12346's $how lock on root's marker ($(cat "$tmp/lock.out")) kept $(segs) of 21 ended processes' segments"
		echo "ok: user 12346's $how lock on root's marker ($(cat "$tmp/lock.out")) promises nothing"
	done
	exit 0
fi

# 1. The exporter, and 1000 short processes.
mkdir "$tmp/text"
timeout -k 5 300 "$top" --textfile "$tmp/text" --all-users -d 0.2 2>"$tmp/exp.err" &
exp=$!
# A second collector beside it, which takes segments too: never one the
# exporter has not read yet.
timeout -k 5 300 "$top" -b -d 0.1 >/dev/null 2>"$tmp/b.err" &
other=$!
trap 'kill $exp $other 2>/dev/null; rm -rf "$tmp"' EXIT
until_ok 60 test -f /dev/shm/apiprof-watching-0 || fail "the exporter made no watching marker: $(cat "$tmp/exp.err")"
# The marker may be the other collector's: the exporter counts only what
# ended after its first refresh began (a process before it is another
# exporter's), and its first textfile says that one has been.
until_ok 60 test -f "$tmp/text/apiprof.prom" || fail "the exporter wrote no textfile: $(cat "$tmp/exp.err")"
out=$(wd env LD_PRELOAD="$pl" "$prog" $n $k) || fail "shortprog: status $?"
[ "$out" = "exited $k killed 0" ] || fail "shortprog: $out"
want=$((k * n))
got_want() { [ "$(calls_in "$tmp/text/apiprof.prom")" -eq $want ]; }
until_ok 120 got_want ||
	fail "the exporter counts $(calls_in "$tmp/text/apiprof.prom") calls of tt_work, $k processes made $want"
echo "ok: the exporter counts $want calls of tt_work, all $k processes'"
none_left() { [ "$(segs)" -eq 0 ]; }
until_ok 60 none_left || fail "$(segs) segments left after the exporter took them"
# A refresh after the segments went: the textfile is rewritten each one.
seen=$(stat -c %Y.%i "$tmp/text/apiprof.prom")
rewritten() { [ "$(stat -c %Y.%i "$tmp/text/apiprof.prom" 2>/dev/null)" != "$seen" ]; }
until_ok 60 rewritten || fail "the exporter stopped rewriting its textfile"
got=$(calls_in "$tmp/text/apiprof.prom")
[ "$got" -eq $want ] || fail "the counter moved to $got once the segments were gone"
kill $exp $other
wait $exp $other
[ ! -e "$tmp/text/apiprof.prom" ] || fail "the exporter, stopped, left its textfile"
[ ! -s "$tmp/exp.err" ] || fail "the exporter said: $(cat "$tmp/exp.err")"
echo "ok: no segment left, the counter still $got, the exporter said nothing and took its textfile away when stopped"

# 2. 20 short processes while a stopped collector promises a look.  The
# marker made anew by it, under umask 077 (no collector runs now).
rm "$marker"
stopped_collector
trap 'kill -KILL "$col_top" 2>/dev/null; rm -rf "$tmp"' EXIT
: >"$tmp/pids"
for _ in $(seq 20); do
	env LD_PRELOAD="$pl" "$prog" 3 &
	echo $! >>"$tmp/pids"
	wait $! || fail "a short process failed"
done
wd "$top" -b -n 1 --json >"$tmp/top.json" 2>"$tmp/top.err" || fail "viewer: status $?: $(cat "$tmp/top.err")"
for pid in $(cat "$tmp/pids"); do
	c=$(jq "[.processes[] | select(.pid == $pid and .state == \"ended\") | .threads[].functions[] |
		select(.name == \"tt_work\") | .calls] | add // 0" "$tmp/top.json")
	[ "$c" -eq 3 ] || fail "pid $pid: $c calls of tt_work shown, 3 made ($(jq '.processes | length' "$tmp/top.json") processes shown)"
done
echo "ok: apiprof-top -b -n 1 --json shows all 20 ended processes, 3 calls each"
[ "$(segs)" -eq 20 ] || fail "the viewer took segments promised to another collector: $(segs) left"
# A left segment keeps pages for its header, the entries in use and its
# final records only, not the whole function table (220 kB) or ring.
kb=$(du -ck /dev/shm/apiprof-0-* | tail -n 1 | cut -f 1)
[ "$kb" -le $((20 * 64)) ] || fail "20 left segments hold $kb kB of /dev/shm"
echo "ok: the 20 left segments hold $kb kB of /dev/shm"

# 2b. Another user's short process (a postgres backend under root's
# collector): root's marker keeps it too, root's viewer shows it.  The
# programs are copied where that user can run them.
command -v setpriv >/dev/null || fail "no setpriv (util-linux)"
user=12346
mkdir "$tmp/bin"
chmod 755 "$tmp" "$tmp/bin"
for f in "$prog" "$shim" $(ldd "$shim" "$prog" | awk '/lib(apiprof|toplib)/ { print $3 }'); do
	cp "$f" "$tmp/bin/"
done
setpriv --reuid=$user --regid=$user --clear-groups env LD_LIBRARY_PATH="$tmp/bin" \
	LD_PRELOAD="${pl%"$shim"}$tmp/bin/$(basename "$shim")" "$tmp/bin/$(basename "$prog")" 4 &
upid=$!
wait $upid || fail "user $user's short process failed"
wd "$top" -b -n 1 --json >"$tmp/top.json" 2>"$tmp/top.err" || fail "viewer: status $?: $(cat "$tmp/top.err")"
c=$(jq "[.processes[] | select(.pid == $upid and .state == \"ended\") | .threads[].functions[] |
	select(.name == \"tt_work\") | .calls] | add // 0" "$tmp/top.json")
[ "$c" -eq 4 ] || fail "user $user's pid $upid: $c calls of tt_work shown by root's viewer, 4 made"
echo "ok: user $user's short process, ended under root's marker, shown by root's viewer: 4 calls"

# 3. 200 deaths, no collector (the stopped one killed): the viewer takes
# them, and only them.
kill -KILL "$col_top"
wait $col
true &
dead=$!
wait
garbage=apiprof-12345-$dead-1-$(stat -L -c %i /proc/self/ns/pid)-0123456789abcdef
head -c 8192 /dev/urandom >"/dev/shm/$garbage"
chown 12345 "/dev/shm/$garbage"
out=$(wd env LD_PRELOAD="$pl" "$prog" 5 200 both) || fail "shortprog: status $?"
[ "$out" = "exited 0 killed 200" ] || fail "shortprog: $out"
# Root's 20 ended ones went at shortprog's start (no collector watches
# now); user $user's one is not root's to remove there.
[ "$(segs)" -eq 202 ] || fail "want the 200 dead, user $user's ended one and the garbage, got $(segs)"
wd "$top" -b -n 1 >/dev/null 2>"$tmp/top.err" || fail "viewer: status $?: $(cat "$tmp/top.err")"
[ "$(segs)" -eq 1 ] && [ -f "/dev/shm/$garbage" ] ||
	fail "after the viewer: $(ls /dev/shm)"
echo "ok: 200 crashed processes' segments and user $user's ended one taken by root's viewer; another user's garbage left"
rm "/dev/shm/$garbage"

# 4. No collector: the next start of a profiled process takes the dead.
out=$(wd env LD_PRELOAD="$pl" "$prog" 5 50 both) || fail "shortprog: status $?"
[ "$(segs)" -eq 50 ] || fail "want 50 dead segments, got $(segs)"
wd env LD_PRELOAD="$pl" "$prog" 1 || fail "a short process failed"
[ "$(segs)" -eq 0 ] || fail "$(segs) segments left after the next start: $(ls /dev/shm)"
echo "ok: 50 dead segments removed by the next profiled process's start"
