#!/bin/sh
# clean_legacy.sh TOP - `apiprof-top --clean` and the legacy segment names
# apiprof-<uid>-<pid>-<start> of the old runtimes, which say no pid
# namespace (issue 20).  It removes those whose process is provably gone,
# and only those:
#   - a pid that no process has any more: removed;
#   - this shell's pid with another start time (a reused pid): removed;
#   - this shell's pid and start time (alive): kept;
#   - as root, the pid 2 of a live pid namespace with its start time: kept,
#     though pid 2 here (kthreadd) started at another time; with a start
#     time nobody has, removed;
#   - a symbolic link or a FIFO under a gone process's name: kept;
#   - another user's gone segment: kept for a user, removed by its owner.
# Everything happens in a scratch directory given with --shm-dir.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1
WATCHDOG=60
uid=$(id -u)
d=$tmp/shm
mkdir "$d" && chmod 1777 "$d" && chmod 755 "$tmp"

# start_of PID: field 22 of /proc/PID/stat, counted after the last ')'.
start_of() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# plant NAME: an empty segment file of ours, called NAME.
plant() {
	: >"$d/$1" || fail "cannot create $d/$1"
}

# clean [AS]: apiprof-top --clean on the scratch directory, as uid AS.
clean() {
	if [ $# -gt 0 ]; then
		wd setpriv --reuid="$1" --regid="$1" --clear-groups "$top" --clean --shm-dir "$d"
	else
		wd "$top" --clean --shm-dir "$d"
	fi >"$tmp/out" 2>&1 || fail "--clean: status $?: $(cat "$tmp/out")"
	cat "$tmp/out"
}

gone() {
	[ ! -e "$d/$1" ] || fail "$2: $1 kept; --clean said: $(cat "$tmp/out")"
	grep -q "removed $d/$1 " "$tmp/out" || fail "$2: no 'removed' line: $(cat "$tmp/out")"
}

kept() {
	[ -e "$d/$1" ] || [ -L "$d/$1" ] || fail "$2: $1 removed; --clean said: $(cat "$tmp/out")"
}

[ "$(stat -L -c %i /proc/self/ns/pid)" = 4026531836 ] ||
	skip "not in the initial pid namespace: no legacy name can be proven gone here"

# A pid that no process has: a child that has exited and been waited for.
sh -c 'echo $$ >"$1"' sh "$tmp/deadpid" || fail "sh"
dead=$(cat "$tmp/deadpid")
[ ! -e "/proc/$dead" ] || skip "pid $dead was taken again at once"
me=$$
mine=$(start_of $me)
[ -n "$mine" ] || fail "no start time of pid $me"
future=99999999999999 # clock ticks: no process started then

plant "apiprof-$uid-$dead-$mine"
plant "apiprof-$uid-$me-$future"
plant "apiprof-$uid-$me-$mine"
clean
gone "apiprof-$uid-$dead-$mine" "a gone pid"
gone "apiprof-$uid-$me-$future" "a reused pid"
kept "apiprof-$uid-$me-$mine" "a live process"
echo "ok: gone and reused pids removed, the live one kept"

[ "$uid" -eq 0 ] || { echo "the rest needs root"; exit 0; }
need setpriv util-linux

# A symbolic link and a FIFO named as gone segments: never removed.
ln -s "$d/apiprof-$uid-$me-$mine" "$d/apiprof-$uid-$dead-1"
mkfifo "$d/apiprof-$uid-$dead-2"
clean
kept "apiprof-$uid-$dead-1" "a symbolic link"
kept "apiprof-$uid-$dead-2" "a FIFO"
rm -f "$d/apiprof-$uid-$dead-1" "$d/apiprof-$uid-$dead-2"
echo "ok: a symbolic link and a FIFO kept"

# Another user's gone segment: not for uid 12346 to remove; its owner does.
plant "apiprof-12345-$dead-3"
chown 12345:12345 "$d/apiprof-12345-$dead-3"
clean 12346
kept "apiprof-12345-$dead-3" "another user's"
clean 12345
gone "apiprof-12345-$dead-3" "its owner's"
echo "ok: another user's segment kept, removed by its owner"

# pid 2 of a pid namespace of its own (pid 2 here is kthreadd, which started
# at another time), alive until its stdin closes; its "ready" comes through
# a FIFO (end of file: unshare failed).
mkfifo "$tmp/hold" "$tmp/ready"
unshare -p -f --mount-proc sh -c 'sh -c "echo ready; read x"; :' \
	<"$tmp/hold" >"$tmp/ready" 2>"$tmp/ns.err" &
ns=$!
exec 3>"$tmp/hold"
if ! read -r line <"$tmp/ready" || [ "$line" != ready ]; then
	exec 3>&-
	skip "cannot make a pid namespace here: $(cat "$tmp/ns.err")"
fi
# child_of PID: its only child (the file has no newline: read says 1).
child_of() {
	read -r c _ <"/proc/$1/task/$1/children"
	[ -n "$c" ] || fail "$1 has no child"
	echo "$c"
}
two=$(child_of "$(child_of $ns)")
nsstart=$(start_of "$two")
[ "$(sed -n 's/^NSpid:.*[[:space:]]//p' "/proc/$two/status")" = 2 ] || fail "$two is not a pid 2"
[ "$nsstart" != "$(start_of 2)" ] || fail "pid 2 here and there started at one time"
plant "apiprof-0-2-$nsstart"
plant "apiprof-0-2-$future"
clean
kept "apiprof-0-2-$nsstart" "a namespace's live pid 2"
gone "apiprof-0-2-$future" "a pid 2 nobody is"
exec 3>&-
wait $ns
echo "ok: a namespace's live pid 2 kept, a gone one removed"
