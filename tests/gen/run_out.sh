#!/bin/sh
# run_out.sh APIPROF_GEN VALID_SPEC - what `apiprof-gen -o` does to what is
# there (issue 20, points 1 and 18): a character device (made here with
# mknod, as root) and a FIFO with a reader are written as they are and stay
# what they were; a FIFO without a reader and a directory are refused with
# one line; on a full file system (a 16 kB tmpfs inside the scratch dir, in
# a mount namespace of our own) the previous file stays and one line says
# why.  No temporary is ever left.
set -u
gen=$1 spec=$2
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
case $spec in /*) ;; *) spec=$PWD/$spec ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# run TAG WANT TARGET: apiprof-gen -o TARGET exits WANT; no temporary left.
run() {
	timeout 60 "$gen" "$spec" -o "$3" >"$tmp/$1.out" 2>"$tmp/$1.err"
	st=$?
	[ $st -eq "$2" ] || fail "$1: status $st, want $2: $(cat "$tmp/$1.err")"
	[ -z "$(ls -A "$tmp" "$tmp/full" 2>/dev/null | grep '\.tmp')" ] ||
		fail "$1: temporary left: $(ls -A "$tmp")"
}
one_line() {
	[ "$(wc -l <"$tmp/$1.err")" -eq 1 ] &&
		grep -q "^apiprof-gen: cannot write .*: $2\$" "$tmp/$1.err" ||
		fail "$1: want one line 'apiprof-gen: cannot write ...: $2', got: $(cat "$tmp/$1.err")"
}

if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null; then
	run chr 0 "$tmp/null"
	[ -c "$tmp/null" ] || fail "chr: the device node was replaced: $(ls -l "$tmp/null")"
	echo "ok: a character device stays one"
else
	echo "skip: character device: needs root (mknod)"
fi

mkfifo "$tmp/fifo" || fail "mkfifo"
exec 4<>"$tmp/fifo"
timeout 60 cat "$tmp/fifo" >"$tmp/fifo.got" 4>&- &
reader=$!
run fifo 0 "$tmp/fifo"
exec 4>&-
wait $reader
[ -p "$tmp/fifo" ] || fail "fifo: the FIFO was replaced"
grep -q 'do not edit' "$tmp/fifo.got" || fail "fifo: the reader got no C file"
echo "ok: a FIFO with a reader gets the C file and stays a FIFO"

mkfifo "$tmp/lonely" || fail "mkfifo"
run lonely 1 "$tmp/lonely"
[ -p "$tmp/lonely" ] || fail "lonely: the FIFO was replaced"
one_line lonely 'a FIFO with no reader'
echo "ok: $(cat "$tmp/lonely.err")"

mkdir "$tmp/dir"
run dir 1 "$tmp/dir"
one_line dir 'is a directory'
echo "ok: $(cat "$tmp/dir.err")"

mkdir "$tmp/full"
if ! unshare -m sh -c "mount -t tmpfs -o size=16k tmpfs '$tmp/full'" 2>/dev/null; then
	echo "skip: full file system: cannot mount a tmpfs in a private mount namespace"
	exit 0
fi
inner='
d=$1 gen=$2 spec=$3
mount -t tmpfs -o size=16k tmpfs "$d/full" || exit 92
echo previous >"$d/full/x.c" || exit 92
yes | head -c 100000 >"$d/full/fill" 2>/dev/null
timeout 60 "$gen" "$spec" -o "$d/full/x.c" >"$d/full.out" 2>"$d/full.err"
echo $? >"$d/full.st"
cp "$d/full/x.c" "$d/after.c"
ls -A "$d/full" >"$d/left"
'
unshare -m sh -c "$inner" sh "$tmp" "$gen" "$spec" || fail "set-up in the namespace failed"
[ "$(cat "$tmp/full.st")" -eq 1 ] || fail "full: status $(cat "$tmp/full.st")"
[ "$(cat "$tmp/after.c")" = previous ] || fail "full: the previous file was replaced"
[ "$(cat "$tmp/left" | tr '\n' ' ')" = "fill x.c " ] || fail "full: left: $(cat "$tmp/left")"
one_line full 'No space left on device'
echo "ok: full: $(cat "$tmp/full.err")"
