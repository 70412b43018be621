#!/bin/sh
# fsize.sh SHIM CALLS - a file size limit (RLIMIT_FSIZE, `ulimit -f`) below
# the segment's size.  Growing the segment past it would raise SIGXFSZ and
# kill the program before main; instead the program runs unchanged (status,
# stdout), one line says the live view is off, and APIPROF_OUTPUT (a small
# file, well under the limits) is exact.  Above the segment's size, not a
# word.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
n=100000
pl=$(shim_preload "$shim")
export APIPROF_OUTPUT="$tmp/out.json"
command -v prlimit >/dev/null 2>&1 || skip "no prlimit (util-linux)"

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
