#!/bin/sh
# textfile.sh TOP LAUNCH - apiprof-top --textfile DIR where another user
# could send the file elsewhere or stall the exporter (issue 34, points 1
# and 14).  As root, with uid 12345 as the other user: a symlink of uid
# 12345 (in a sticky directory, as /tmp) to a root-only directory, and a
# directory of uid 12345, are refused at start-up with one line (status 1)
# and nothing is written; in a sticky directory, uid 12345's FIFO named
# apiprof.prom, with a reader, is not written (one line), and our own FIFO
# whose reader never reads gets one line and the exporter goes on: both
# runs end by -n with status 0.  Segments are looked for in an empty
# scratch directory (--shm-dir), never in /dev/shm.  (Root's --textfile
# needs --all-users: issue 34, point 8.)
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
top=$1 launch=$2
[ "$(id -u)" -eq 0 ] || skip "needs root: the test makes files of another user"
need setpriv util-linux
as12345() { setpriv --reuid=12345 --regid=12345 --clear-groups "$@"; }

chmod 711 "$tmp"
mkdir -m 755 "$tmp/shm"
mkdir -m 700 "$tmp/private"
mkdir -m 1777 "$tmp/sticky"
mkdir -m 755 "$tmp/theirs"
chown 12345:12345 "$tmp/theirs"
as12345 ln -s "$tmp/private" "$tmp/sticky/link" || fail "setpriv ln"

# refused TAG DIR WHY: --textfile DIR exits 1 with the one line WHY, and
# writes nothing into the root-only directory.
refused() {
	wd "$top" --textfile "$2" --all-users -n 1 -d 0.01 --shm-dir "$tmp/shm" >"$tmp/$1.out" 2>"$tmp/$1.err"
	st=$?
	[ $st -eq 1 ] || fail "$1: status $st, want 1: $(cat "$tmp/$1.err")"
	[ "$(cat "$tmp/$1.err")" = "apiprof-top: --textfile $2: not trusted: $3" ] ||
		fail "$1: want 'apiprof-top: --textfile $2: not trusted: $3', got: $(cat "$tmp/$1.err")"
	[ -z "$(ls -A "$tmp/private")" ] || fail "$1: written into the root-only directory: $(ls -A "$tmp/private")"
	echo "ok: $(cat "$tmp/$1.err")"
}
refused theirlink "$tmp/sticky/link" "$tmp/sticky/link is a symlink of uid 12345"
refused theirdir "$tmp/theirs" "$tmp/theirs is owned by uid 12345"

# Our own symlink to the root-only directory is followed: the file is there.
ln -s "$tmp/private" "$tmp/ourlink"
wd "$top" --textfile "$tmp/ourlink" --all-users -n 1 -d 0.01 --shm-dir "$tmp/shm" >"$tmp/ours.out" 2>"$tmp/ours.err" ||
	fail "ours: status $?: $(cat "$tmp/ours.err")"
[ -f "$tmp/private/apiprof.prom" ] && [ ! -s "$tmp/ours.err" ] ||
	fail "ours: no textfile, or a line: $(ls -A "$tmp/private") $(cat "$tmp/ours.err")"
echo "ok: our own symlink to a root-only directory: apiprof.prom written there"

# stuck TAG FIFO full|empty WHY: the exporter writes into FIFO, which has a
# reader that never reads (launch), once (-n 1): status 0 and the one line
# WHY; sets $left, the bytes it left in the FIFO.
stuck() {
	# (A subshell, so that the watchdog's verdict is not lost in TAG.all.)
	(wd "$launch" stuckfifo "$2/apiprof.prom" "$3" "" \
		"$top" --textfile "$2" --all-users -n 1 -d 0.01 --shm-dir "$tmp/shm") >"$tmp/$1.all" 2>"$tmp/$1.err"
	st=$?
	[ $st -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.all" "$tmp/$1.err")"
	[ "$(cat "$tmp/$1.err")" = "apiprof-top: $2/apiprof.prom: $4" ] ||
		fail "$1: want 'apiprof-top: $2/apiprof.prom: $4', got: $(cat "$tmp/$1.err")"
	left=$(tail -n 1 "$tmp/$1.all" | sed -n 's/^launch: \([0-9]*\) bytes left in the FIFO$/\1/p')
	[ -n "$left" ] || fail "$1: launch said: $(tail -n 1 "$tmp/$1.all")"
	echo "ok: $(cat "$tmp/$1.err")"
}
as12345 mkfifo "$tmp/sticky/apiprof.prom" || fail "setpriv mkfifo"
stuck theirfifo "$tmp/sticky" empty "a FIFO of another user: not written"
[ "$left" -eq 0 ] || fail "theirfifo: $left bytes written into uid 12345's FIFO"
mkdir -m 755 "$tmp/own"
mkfifo "$tmp/own/apiprof.prom"
stuck ownfifo "$tmp/own" full "its reader does not read: given up"
