#!/bin/sh
# fsize.sh SHIM CALLS - a file size limit (RLIMIT_FSIZE, `ulimit -f`) below
# the segment's size.  Growing the segment past it would raise SIGXFSZ and
# kill the program before main; instead the program runs unchanged (status,
# stdout), one line says the live view is off, and APIPROF_OUTPUT (a small
# file, well under the limits) is exact.  Above the segment's size, not a
# word.  The runtime's own writes past the limit (issue 34, point 5) never
# raise SIGXFSZ either: APIPROF_OUTPUT bigger than the limit fails with one
# line (EFBIG), the previous file stays and no temporary is left; a
# warning for a log on stderr already past the limit is not written, and
# the log stays as it was.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
n=100000
pl=$(shim_preload "$shim")
export APIPROF_OUTPUT="$tmp/out.json"
need prlimit util-linux

"$prog" $n >"$tmp/bare.out" 2>"$tmp/bare.err" || fail "bare run failed"

# run TAG BYTES: the program under the shim with RLIMIT_FSIZE at BYTES.
run() {
	wd prlimit --fsize="$2" -- env LD_PRELOAD="$pl" "$prog" $n >"$tmp/$1.out" 2>"$tmp/$1.err"
	st=$?
	[ $st -eq 0 ] || fail "$1: status $st (SIGXFSZ is $((128 + 25))): $(cat "$tmp/$1.err")"
	cmp -s "$tmp/bare.out" "$tmp/$1.out" || fail "$1: output differs: $(cat "$tmp/$1.out")"
	got=$(calls "$tmp/out.json" testlib.tl_add)
	[ "$got" -eq $n ] || fail "$1: $got calls counted, $n made"
	rm -f "$tmp/out.json"
}

# 512 KiB and 2 MiB: below the segment (about 2.6 MiB with the defaults).
for lim in 524288 2097152; do
	run "fsize$lim" $lim
	[ "$(wc -l <"$tmp/fsize$lim.err")" -eq 1 ] &&
		grep -q '^apiprof: .*file size limit (ulimit -f).*live view off$' "$tmp/fsize$lim.err" ||
		fail "fsize $lim: want one 'file size limit ... live view off' line, got: $(cat "$tmp/fsize$lim.err")"
	echo "ok: RLIMIT_FSIZE $lim: unchanged, exact, $(cat "$tmp/fsize$lim.err")"
done

# 64 MiB: the segment fits, nothing to say.
run fsize64m 67108864
[ ! -s "$tmp/fsize64m.err" ] || fail "fsize 64m: want no warning, got: $(cat "$tmp/fsize64m.err")"
echo "ok: RLIMIT_FSIZE 64 MiB: unchanged, exact, no warning"

# The JSON (about 760 bytes) is bigger than the limit, the program's
# output and the live view's line smaller.
echo previous >"$tmp/out.json"
wd prlimit --fsize=512 -- env LD_PRELOAD="$pl" "$prog" $n >"$tmp/big.out" 2>"$tmp/big.err"
st=$?
[ $st -eq 0 ] || fail "big: status $st (SIGXFSZ is $((128 + 25))): $(cat "$tmp/big.err")"
cmp -s "$tmp/bare.out" "$tmp/big.out" || fail "big: output differs: '$(cat "$tmp/big.out")'"
[ "$(cat "$tmp/out.json")" = previous ] || fail "big: out.json was changed: $(head -c 80 "$tmp/out.json")"
[ -z "$(ls -A "$tmp" | grep '\.tmp$')" ] || fail "big: temporary left: $(ls -A "$tmp")"
[ "$(wc -l <"$tmp/big.err")" -eq 2 ] &&
	sed -n 2p "$tmp/big.err" | grep -q "^apiprof: cannot write $tmp/out.json: File too large; the file there is left as it was\$" ||
	fail "big: want the live view line and one 'cannot write ...: File too large' line, got: $(cat "$tmp/big.err")"
echo "ok: APIPROF_OUTPUT past RLIMIT_FSIZE: status 0, output unchanged, $(sed -n 2p "$tmp/big.err")"

# A log on stderr (appended to) already past the limit, or so near it that
# no line fits, and two warnings (the live view off, a bad setting):
# neither is written, not even in part.
for size in 1024 500; do
	head -c $size /dev/zero | tr '\0' x >"$tmp/log"
	cp "$tmp/log" "$tmp/log.before"
	APIPROF_INTERVAL_MS=soon wd prlimit --fsize=512 -- env -u APIPROF_OUTPUT LD_PRELOAD="$pl" "$prog" $n \
		>"$tmp/log.out" 2>>"$tmp/log"
	st=$?
	[ $st -eq 0 ] || fail "log $size: status $st (SIGXFSZ is $((128 + 25)))"
	cmp -s "$tmp/bare.out" "$tmp/log.out" || fail "log $size: output differs: '$(cat "$tmp/log.out")'"
	cmp -s "$tmp/log.before" "$tmp/log" || fail "log $size: the log was changed: '$(tail -c +$((size + 1)) "$tmp/log")'"
	echo "ok: warnings for a log of $size bytes, RLIMIT_FSIZE 512: status 0, output unchanged, the log as it was"
done
