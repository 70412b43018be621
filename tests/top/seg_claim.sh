#!/bin/sh
# seg_claim.sh TOP SEGTOOL - a segment cannot claim another user's process
# (issue 34, point 9).  User 12345 writes two well-formed segments of its
# own in the scratch directory given with --shm-dir: one names its own
# unprofiled sleep ("mine"), the other user 54321's unprofiled sleep with
# the comm "fakenginx".  Root's viewer and root's exporter (--textfile) must
# show "mine" and not "fakenginx", and the viewer says why in one line.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1 segtool=$2
WATCHDOG=30
[ "$(id -u)" -eq 0 ] || skip "needs root: the test runs processes of two other users"
need setpriv util-linux
forger=12345 victim=54321
setpriv --reuid=$forger --regid=$forger --clear-groups sleep 1000 >/dev/null 2>&1 &
mine=$!
setpriv --reuid=$victim --regid=$victim --clear-groups sleep 1000 >/dev/null 2>&1 &
theirs=$!
trap 'kill $mine $theirs 2>/dev/null; rm -rf "$tmp"' EXIT
# Both run as their users once /proc says so (setpriv execs sleep).
for _ in $(seq 200); do
	[ "$(awk '/^Uid:/ { print $3 }' /proc/$mine/status)" = $forger ] &&
		[ "$(awk '/^Uid:/ { print $3 }' /proc/$theirs/status)" = $victim ] && break
	sleep 0.05
done
chmod 755 "$tmp"
mkdir "$tmp/shm" "$tmp/text" && chmod 1777 "$tmp/shm"
for seg in "$mine mine" "$theirs fakenginx"; do
	# shellcheck disable=SC2086
	name=$(SEGTOOL_UID=$forger "$segtool" make "$tmp/shm" $seg) || fail "segtool"
	chown $forger:$forger "$tmp/shm/$name"
	[ "${seg#* }" = fakenginx ] && forged=$name
done

wd "$top" -b -n 1 --shm-dir "$tmp/shm" >"$tmp/out" 2>"$tmp/err" ||
	fail "viewer: status $?: $(cat "$tmp/err")"
grep -q mine "$tmp/out" || fail "the viewer does not show the forger's own process: $(cat "$tmp/out" "$tmp/err")"
! grep -q fakenginx "$tmp/out" || fail "the viewer shows pid $theirs as the forger's fakenginx: $(cat "$tmp/out")"
grep -q "$forged: process $theirs runs as uid $victim, not as the segment's owner (uid $forger): not shown" "$tmp/err" ||
	fail "no line saying why: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one line: $(cat "$tmp/err")"
echo "ok: viewer: $(cat "$tmp/err")"

wd "$top" --textfile "$tmp/text" --all-users -n 1 --shm-dir "$tmp/shm" 2>"$tmp/err" ||
	fail "exporter: status $?: $(cat "$tmp/err")"
grep -q 'comm="mine"' "$tmp/text/apiprof.prom" || fail "the exporter does not show the forger's own process"
! grep -q fakenginx "$tmp/text/apiprof.prom" || fail "the exporter shows pid $theirs as fakenginx: $(grep fakenginx "$tmp/text/apiprof.prom")"
echo "ok: exporter: mine exported, fakenginx not"
