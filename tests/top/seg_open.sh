#!/bin/sh
# seg_open.sh TOP SEGTOOL SWAPLIB - the viewer decides on what it opened,
# not on what it listed (issue 20, point 6).  Between the listing of a
# segment and its open, top_swap (preloaded into the viewer) puts in its
# place another user's FIFO, a symbolic link to a good segment, or another
# user's well-formed segment.  The viewer must skip each with a line,
# return promptly with status 0, and show nothing of what it skipped.
# Everything happens in a scratch directory given with --shm-dir.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1 segtool=$2 swaplib=$3
WATCHDOG=30
[ "$(id -u)" -eq 0 ] || skip "needs root: the test makes files of two other users"
need setpriv util-linux
viewer=12345 other=54321
pl=$(shim_preload "$swaplib")
chmod 755 "$tmp"
# The viewer's process that the segments name: a segment shows only a
# process that runs as its owner (issue 34, point 9).
setpriv --reuid=$viewer --regid=$viewer --clear-groups sleep 1000 >/dev/null 2>&1 &
proc=$!
trap 'kill $proc 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 200); do
	[ "$(awk '/^Uid:/ { print $3 }' /proc/$proc/status)" = $viewer ] && break
	sleep 0.05
done

# setup CASE: CASE/shm (sticky and world-writable, as /dev/shm) holds a good
# segment of the viewer's, for its process $proc; CASE/evil the
# replacement.  Sets $d and $name.
setup() {
	d=$tmp/$1
	mkdir -p "$d/shm" "$d/evil" "$d/decoy"
	chmod 755 "$d" && chmod 1777 "$d/shm" && chmod 777 "$d/evil"
	name=$(SEGTOOL_UID=$viewer "$segtool" make "$d/shm" $proc mine) || fail "segtool"
	chown $viewer:$viewer "$d/shm/$name"
}

# view CASE AS: apiprof-top -b -n 1 as uid AS (0: root) with the swap armed.
view() {
	as=$2
	if [ "$as" -eq 0 ]; then
		run=""
	else
		run="setpriv --reuid=$as --regid=$as --clear-groups"
	fi
	# shellcheck disable=SC2086
	# (A subshell, so that the watchdog's verdict is not lost in $d/out.)
	(wd $run env LD_PRELOAD="$pl" TOP_SWAP_FROM="$d/evil/x" \
		"$top" -b -n 1 --shm-dir "$d/shm") >"$d/out" 2>"$d/err"
	st=$?
	[ $st -eq 0 ] || fail "$1: status $st: $(cat "$d/out" "$d/err")"
	[ ! -e "$d/evil/x" ] || fail "$1: the swap did not happen (the viewer never opened $name)"
}

# expect CASE WORD WHY: the viewer skipped the segment saying WHY, and its
# output does not show WORD (the replacement's process name).
expect() {
	grep -q "$name: .*$3.*skipped" "$d/err" || fail "$1: no line saying '$3': $(cat "$d/err")"
	! grep -q "$2" "$d/out" || fail "$1: the viewer showed what it should have skipped: $(cat "$d/out")"
	echo "ok: $1: $(cat "$d/err")"
}

# The control: nothing swapped, the viewer shows the segment.
setup control
view control $viewer
grep -q mine "$d/out" || fail "control: the viewer does not show a good segment: $(cat "$d/out" "$d/err")"

# Another user's FIFO: opened read-only it would block for ever.
for as in $viewer 0; do
	setup fifo$as
	mkfifo "$d/evil/x" && chown $other:$other "$d/evil/x" && chmod 644 "$d/evil/x"
	view fifo$as $as
	expect fifo$as mine "not a regular file"
done

# A symbolic link to a good segment of the viewer's: never followed.
setup symlink
SEGTOOL_UID=$viewer "$segtool" make "$d/decoy" $proc decoy >/dev/null || fail "segtool"
chown -R $viewer:$viewer "$d/decoy"
ln -s "$d/decoy/$name" "$d/evil/x"
view symlink $viewer
expect symlink decoy "symbolic link"

# Another user's regular file, well formed, named as the viewer's segment:
# not parsed, by the viewer's user nor by root.
for as in $viewer 0; do
	setup foreign$as
	SEGTOOL_UID=$viewer "$segtool" make "$d/decoy" $proc intruder >/dev/null || fail "segtool"
	chown $other:$other "$d/decoy/$name" && chmod 644 "$d/decoy/$name"
	mv "$d/decoy/$name" "$d/evil/x"
	view foreign$as $as
	expect foreign$as intruder "owned by uid $other"
done
