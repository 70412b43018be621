#!/bin/sh
# output.sh APIPROF_RUN DROPPROG SPEC - where apiprof-run's output goes
# (issue 35, point 7).
#  - A relative -o (or an inherited relative APIPROF_OUTPUT) is the file
#    where the user launched from, although the program changes to another
#    directory before it exits (postgres goes to its data directory).
#  - Run as root, a program that may become another user (it calls set*id
#    or initgroups) is told at start, in one line, when the output's
#    directory is one such a user cannot write; not for a directory anyone
#    may write, a device, with -q, or a program that cannot change its uid.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$(realpath "$1") prog=$(realpath "$2") spec=$3
skip_if_sanitized "$run"
tmp=$(realpath "$tmp")
export APIPROF_CACHE="$tmp/cache" APIPROF_SHM=0
unset APIPROF_OUTPUT APIPROF_SUMMARY
cp "$spec" "$tmp/testlib.json"
mkdir -p "$tmp/launch/rel" "$tmp/elsewhere/rel"

# go TAG ARGS...: apiprof-run ARGS, from $tmp/launch; status in $st.
go() {
	tag=$1
	shift
	(cd "$tmp/launch" && timeout -k 5 "$WATCHDOG" "$run" "$@") \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
}

go rel -s "$tmp/testlib.json" -o rel/out.json -- "$prog" chdir ../elsewhere 100 3
[ $st -eq 3 ] || fail "rel: status $st, 3 bare: $(cat "$tmp/rel.err")"
[ -z "$(ls -A "$tmp/elsewhere/rel")" ] ||
	fail "rel: written where the program went: $(ls "$tmp/elsewhere/rel")"
[ -s "$tmp/launch/rel/out.json" ] || fail "rel: no rel/out.json where it was launched"
got=$(calls "$tmp/launch/rel/out.json" testlib.tl_add)
[ "$got" = 200 ] || fail "rel: rel/out.json has $got calls of tl_add, 200 made"

APIPROF_OUTPUT=rel/env.%p.json go env -q -s "$tmp/testlib.json" -- "$prog" chdir ../elsewhere 100 0
[ $st -eq 0 ] || fail "env: status $st: $(cat "$tmp/env.err")"
[ -z "$(ls -A "$tmp/elsewhere/rel")" ] ||
	fail "env: written where the program went: $(ls "$tmp/elsewhere/rel")"
ls "$tmp/launch/rel" | grep -qx 'env\.[0-9]*\.json' ||
	fail "env: no rel/env.PID.json where it was launched: $(ls "$tmp/launch/rel")"
echo "ok: a relative -o and APIPROF_OUTPUT are written where apiprof-run was started, not where the program went"

[ "$(id -u)" -eq 0 ] || skip "needs root: the start-up line is for programs run as root"
# The first directory on the way to $1 that others cannot pass through.
first_closed() {
	d=
	for c in $(echo "$1" | tr / ' '); do
		d=$d/$c
		[ "$(($(stat -c 0%a "$d") & 1))" -eq 1 ] || { echo "$d"; return; }
	done
}
# alone TAG WANT: status 0, and stderr is exactly WANT ("" for nothing).
alone() {
	[ $st -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.err")"
	[ -z "$2" ] && : >"$tmp/$1.want" || printf '%s\n' "$2" >"$tmp/$1.want"
	diff -u "$tmp/$1.want" "$tmp/$1.err" || fail "$1: stderr is not what is wanted (-want +got)"
}
chmod 711 "$tmp"
mkdir -m 755 "$tmp/rootonly"
mkdir -m 1777 "$tmp/open"
mkdir -m 775 "$tmp/group" && chgrp 12345 "$tmp/group"
mkdir -m 700 "$tmp/closed" && mkdir -m 777 "$tmp/closed/sub"
tail=": processes that drop privileges cannot write their output there"
other=$(first_closed "$tmp")
if [ -n "$other" ]; then
	# $tmp itself is where others cannot pass (a TMPDIR under /root).
	want_root="apiprof-run: $tmp/rootonly is not writable by users other than root ($other is closed to them)$tail"
	want_group="apiprof-run: $tmp/launch/../group is not writable by users other than root ($other is closed to them)$tail"
	want_closed="apiprof-run: $tmp/closed/sub is not writable by users other than root ($other is closed to them)$tail"
	want_open="apiprof-run: $tmp/open is not writable by users other than root ($other is closed to them)$tail"
else
	want_root="apiprof-run: $tmp/rootonly is not writable by users other than root$tail"
	want_group="apiprof-run: $tmp/launch/../group is writable only by root and group 12345: processes that drop privileges to another user cannot write their output there"
	want_closed="apiprof-run: $tmp/closed/sub is not writable by users other than root ($tmp/closed is closed to them)$tail"
	want_open=
fi
go rootonly -s "$tmp/testlib.json" -o "$tmp/rootonly/out.json" -- "$prog" chdir / 1 0
alone rootonly "$want_root"
go group -s "$tmp/testlib.json" -o ../group/out.json -- "$prog" chdir / 1 0
alone group "$want_group"
go closed -s "$tmp/testlib.json" -o "$tmp/closed/sub/out.%p.json" -- "$prog" chdir / 1 0
alone closed "$want_closed"
go open -s "$tmp/testlib.json" -o "$tmp/open/out.json" -- "$prog" chdir / 1 0
alone open "$want_open"
go quiet -q -s "$tmp/testlib.json" -o "$tmp/rootonly/q.json" -- "$prog" chdir / 1 0
alone quiet ""
go devnull -s "$tmp/testlib.json" -o /dev/null -- "$prog" chdir / 1 0
alone devnull ""
# cat calls no set*id function: it stays root, and can write there.
go cat -s "$tmp/testlib.json" -o "$tmp/rootonly/cat.json" -- cat /dev/null
grep -v "was never loaded" "$tmp/cat.err" >"$tmp/cat.err2"
mv "$tmp/cat.err2" "$tmp/cat.err"
alone cat ""
echo "ok: run as root, one line at start for a directory that a user the program may become cannot write; none otherwise"
