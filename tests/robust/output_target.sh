#!/bin/sh
# output_target.sh SHIM CALLS RUNTIME SMALLSTACK LAUNCH - APIPROF_OUTPUT
# naming what is not a regular file (issue 20, point 1).  A character
# device (a /dev/null made here with mknod, as root) and a FIFO with a
# reader are written as they are and stay what they were, and an exec
# makes no NAME.exec1 beside a device; a FIFO without a reader and a
# directory each get exactly one line, and nothing waits.  A FIFO whose
# reader never reads gets one line, and the program ends (issue 34,
# point 1); as root, in a sticky directory, a FIFO (with a
# reader) or a device of uid 12345 is not written at all: one line each.
# The program runs unchanged every time, and no temporary is left behind.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2 runtime=$3 small=$4 launch=$5
n=1000
pl=$(shim_preload "$shim")

"$prog" $n >"$tmp/bare.out" 2>&1 || fail "bare run failed"

# run TAG TARGET: the program with APIPROF_OUTPUT=TARGET, into $tmp/TAG.*;
# it must exit 0 with the bare run's output.
run() {
	APIPROF_OUTPUT=$2 wd env LD_PRELOAD="$pl" "$prog" $n >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
	st=$?
	[ $st -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.err")"
	cmp -s "$tmp/bare.out" "$tmp/$1.out" || fail "$1: output differs: $(cat "$tmp/$1.out")"
	[ -z "$(ls -A "$tmp" | grep '\.tmp$')" ] || fail "$1: temporary left: $(ls -A "$tmp")"
}

# quiet TAG / one_line TAG TEXT: no line at all / exactly one apiprof line.
quiet() {
	[ ! -s "$tmp/$1.err" ] || fail "$1: want no line, got: $(cat "$tmp/$1.err")"
}
one_line() {
	[ "$(wc -l <"$tmp/$1.err")" -eq 1 ] && grep -q "^apiprof: cannot write .*: $2\$" "$tmp/$1.err" ||
		fail "$1: want one line 'apiprof: cannot write ...: $2', got: $(cat "$tmp/$1.err")"
}

# A character device, as root: /dev/null's numbers, inside the scratch dir.
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null; then
	run chr "$tmp/null"
	[ -c "$tmp/null" ] || fail "chr: the device node was replaced: $(ls -l "$tmp/null")"
	quiet chr
	echo "ok: a character device stays one, written as it is"
	APIPROF_OUTPUT="$tmp/null" wd env LD_PRELOAD="$(shim_preload "$runtime" "$shim")" \
		"$small" execl-many 10 >"$tmp/chrexec.out" 2>"$tmp/chrexec.err" </dev/null ||
		fail "chrexec: status $?: $(cat "$tmp/chrexec.err")"
	[ -c "$tmp/null" ] && [ -z "$(ls -A "$tmp" | grep '^null.')" ] ||
		fail "chrexec: made beside the device: $(ls -A "$tmp" | grep '^null')"
	quiet chrexec
	echo "ok: an exec writes to the device too, and makes nothing beside it"
else
	echo "skip: character device: needs root (mknod)"
fi

# A FIFO with a reader.  The test holds it open read-write (fd 4, which
# cat does not inherit) so that cat's open returns at once; cat sees the
# end once fd 4 and the program's descriptor are closed.
mkfifo "$tmp/fifo" || fail "mkfifo"
exec 4<>"$tmp/fifo"
timeout 60 cat "$tmp/fifo" >"$tmp/fifo.got" 4>&- &
reader=$!
run fifo "$tmp/fifo"
exec 4>&-
wait $reader
[ -p "$tmp/fifo" ] || fail "fifo: the FIFO was replaced: $(ls -l "$tmp/fifo")"
[ "$(calls "$tmp/fifo.got" testlib.tl_add)" -eq $n ] ||
	fail "fifo: the reader did not get the JSON: '$(cat "$tmp/fifo.got")'"
quiet fifo
echo "ok: a FIFO with a reader gets the JSON and stays a FIFO"

# A FIFO nobody reads: one line, and the program does not wait.
mkfifo "$tmp/lonely" || fail "mkfifo"
run lonely "$tmp/lonely"
[ -p "$tmp/lonely" ] || fail "lonely: the FIFO was replaced: $(ls -l "$tmp/lonely")"
one_line lonely 'a FIFO with no reader'
echo "ok: a FIFO with no reader: $(cat "$tmp/lonely.err")"

mkdir "$tmp/dir"
run dir "$tmp/dir"
[ -d "$tmp/dir" ] && [ -z "$(ls -A "$tmp/dir")" ] || fail "dir: the directory changed"
one_line dir 'is a directory'
echo "ok: a directory: $(cat "$tmp/dir.err")"

# A FIFO whose reader never reads (launch holds it open, its one-page
# buffer full): one line, and the program ends as bare.
# stuck TAG FIFO full|empty: that run, into $tmp/TAG.*; sets $left, the
# bytes the program left in the FIFO.
stuck() {
	# (A subshell, so that the watchdog's verdict is not lost in TAG.all.)
	(APIPROF_OUTPUT=$2 wd "$launch" stuckfifo "$2" "$3" "$pl" "$prog" $n) >"$tmp/$1.all" 2>"$tmp/$1.err" </dev/null
	st=$?
	[ $st -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.all" "$tmp/$1.err")"
	sed '$d' "$tmp/$1.all" >"$tmp/$1.out"
	cmp -s "$tmp/bare.out" "$tmp/$1.out" || fail "$1: output differs: $(cat "$tmp/$1.out")"
	left=$(tail -n 1 "$tmp/$1.all" | sed -n 's/^launch: \([0-9]*\) bytes left in the FIFO$/\1/p')
	[ -n "$left" ] || fail "$1: launch said: $(tail -n 1 "$tmp/$1.all")"
}
mkfifo "$tmp/stuck" || fail "mkfifo"
stuck stuck "$tmp/stuck" full
one_line stuck 'its reader does not read: given up'
echo "ok: a FIFO whose reader never reads: $(cat "$tmp/stuck.err")"

[ "$(id -u)" -eq 0 ] || skip "a sticky directory shared with uid 12345: needs root"
need setpriv util-linux
chmod 711 "$tmp"
mkdir -m 1777 "$tmp/sticky"
setpriv --reuid=12345 --regid=12345 --clear-groups mkfifo "$tmp/sticky/out.json" || fail "setpriv mkfifo"
stuck theirfifo "$tmp/sticky/out.json" empty
[ "$left" -eq 0 ] || fail "theirfifo: $left bytes written into uid 12345's FIFO"
[ -p "$tmp/sticky/out.json" ] && [ "$(stat -c %u "$tmp/sticky/out.json")" -eq 12345 ] ||
	fail "theirfifo: uid 12345's FIFO was replaced: $(ls -l "$tmp/sticky")"
one_line theirfifo 'a FIFO of another user: not written'
echo "ok: uid 12345's FIFO, with a reader: $(cat "$tmp/theirfifo.err")"

if mknod "$tmp/sticky/dev.json" c 1 3 2>/dev/null && chown 12345 "$tmp/sticky/dev.json"; then
	run theirdev "$tmp/sticky/dev.json"
	[ -c "$tmp/sticky/dev.json" ] || fail "theirdev: the device node was replaced"
	one_line theirdev 'a device of another user: not written'
	echo "ok: uid 12345's character device: $(cat "$tmp/theirdev.err")"
else
	echo "skip: uid 12345's character device: mknod is not allowed here"
fi
