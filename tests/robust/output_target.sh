#!/bin/sh
# output_target.sh SHIM CALLS RUNTIME SMALLSTACK - APIPROF_OUTPUT naming what
# is not a regular file (issue 20, point 1).  A character device (a
# /dev/null made here with mknod, as root) and a FIFO with a reader are
# written as they are and stay what they were, and an exec makes no
# NAME.exec1 beside a device; a FIFO without a reader and a directory each
# get exactly one line, and nothing waits.  The program runs unchanged
# every time, and no temporary is left behind.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2 runtime=$3 small=$4
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
