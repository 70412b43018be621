#!/bin/sh
# shm.sh SHIM CALLS SHMPRE - a hostile /dev/shm: the segment's name taken
# by someone else's file or by a symlink, /dev/shm full, /dev/shm
# read-only, /dev/shm with room for all but the ring.  Each time the
# program runs unchanged, exactly one warning says the live view is off
# (none where the ring is never needed), nothing is written through a
# foreign name, and APIPROF_OUTPUT is exact.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2 shmpre=$3
n=100000
pl=$(shim_preload "$shim")
export APIPROF_OUTPUT="$tmp/out.json"

"$prog" $n >"$tmp/bare.out" 2>"$tmp/bare.err" || fail "bare run failed"

# check TAG: $tmp/TAG.{out,err,st} against the bare run.
check() {
	[ "$(cat "$tmp/$1.st")" -eq 0 ] || fail "$1: status $(cat "$tmp/$1.st"): $(cat "$tmp/$1.err")"
	cmp -s "$tmp/bare.out" "$tmp/$1.out" || fail "$1: output differs: $(cat "$tmp/$1.out")"
	[ "$(wc -l <"$tmp/$1.err")" -eq 1 ] && grep -q '^apiprof: .*live view off' "$tmp/$1.err" ||
		fail "$1: want exactly one 'live view off' warning, got: $(cat "$tmp/$1.err")"
	got=$(calls "$tmp/out.json" testlib.tl_add)
	[ "$got" -eq $n ] || fail "$1: $got calls counted, $n made"
	rm -f "$tmp/out.json"
	echo "ok: $1: unchanged, $(cat "$tmp/$1.err")"
}

# The name taken, as far as anyone can guess it: the name holds a random
# nonce (apiprof_segname.h), so what shmpre plants under the pid and start
# time is not the runtime's name, stays untouched (shmpre checks), and the
# live view stays on without a word.  Without root the file cannot belong
# to someone else.
for mode in foreign symlink; do
	if [ $mode = foreign ] && [ "$(id -u)" -ne 0 ]; then
		echo "skip: foreign file: needs root to give a file to nobody"
		continue
	fi
	wd "$shmpre" $mode "$tmp/target" "$pl" "$prog" $n >"$tmp/$mode.out" 2>"$tmp/$mode.err"
	st=$?
	[ $st -eq 0 ] || fail "$mode: status $st: $(cat "$tmp/$mode.err")"
	cmp -s "$tmp/bare.out" "$tmp/$mode.out" || fail "$mode: output differs"
	[ ! -s "$tmp/$mode.err" ] || fail "$mode: want no warning, got: $(cat "$tmp/$mode.err")"
	got=$(calls "$tmp/out.json" testlib.tl_add)
	[ "$got" -eq $n ] || fail "$mode: $got calls counted, $n made"
	rm -f "$tmp/out.json"
	echo "ok: $mode: the guessable name planted, untouched; unchanged, no warning"
done

# /dev/shm full (64 kB, the segment needs megabytes) and read-only, in a
# mount namespace of our own.
for opts in size=64k ro; do
	if ! unshare -m sh -c "mount -t tmpfs -o $opts tmpfs /dev/shm" 2>/dev/null; then
		skip "cannot mount a tmpfs on /dev/shm in a private mount namespace (unshare -m)"
	fi
	wd unshare -m sh -c 'mount -t tmpfs -o "$1" tmpfs /dev/shm && shift && exec env LD_PRELOAD="$@"' \
		sh "$opts" "$pl" "$prog" $n >"$tmp/$opts.out" 2>"$tmp/$opts.err"
	echo $? >"$tmp/$opts.st"
	check "$opts"
done

# Room for the header and the function table (about 220 kB) but not for
# the ring (megabytes).  The ring's pages are taken only when a reader
# first watches, or at exit with APIPROF_KEEP_SHM=1, so a program nobody
# watches runs without a word; one that must keep its segment says once
# that the live view is off.
mnt='mount -t tmpfs -o size=1m tmpfs /dev/shm && exec env LD_PRELOAD="$@"'
wd unshare -m sh -c "$mnt" sh "$pl" "$prog" $n >"$tmp/lazy.out" 2>"$tmp/lazy.err"
st=$?
[ $st -eq 0 ] || fail "1m, nobody watching: status $st: $(cat "$tmp/lazy.err")"
cmp -s "$tmp/bare.out" "$tmp/lazy.out" || fail "1m, nobody watching: output differs"
[ ! -s "$tmp/lazy.err" ] || fail "1m, nobody watching: want no warning, got: $(cat "$tmp/lazy.err")"
got=$(calls "$tmp/out.json" testlib.tl_add)
[ "$got" -eq $n ] || fail "1m, nobody watching: $got calls counted, $n made"
rm -f "$tmp/out.json"
echo "ok: 1m, nobody watching: unchanged, no warning"

APIPROF_KEEP_SHM=1 wd unshare -m sh -c "$mnt" sh "$pl" "$prog" $n \
	>"$tmp/keep1m.out" 2>"$tmp/keep1m.err"
echo $? >"$tmp/keep1m.st"
check keep1m
grep -q 'cannot reserve the ring of /dev/shm/apiprof-' "$tmp/keep1m.err" ||
	fail "keep1m: the warning does not name the ring: $(cat "$tmp/keep1m.err")"
