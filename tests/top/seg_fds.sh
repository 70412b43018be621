#!/bin/sh
# seg_fds.sh TOP SEGTOOL SWAPLIB - the viewer holds no descriptor per segment
# (issue 34, point 12).  200 well-formed segments of this shell's process
# (one nonce each) in a scratch directory given with --shm-dir, and the
# viewer under `ulimit -n 40`: it shows all 200, each with its 42 calls,
# and says nothing on stderr.  Then with every open of a segment failing
# with EMFILE (top_swap, preloaded, with TOP_SWAP_EMFILE): one line per
# refresh, not one per segment, and it exits 0.  Last, the directory
# itself cannot be opened at the second refresh (after its 1 + 200 opens
# of the first: one to list it, one per segment): that proves no process
# gone, so all 200 are still shown running, with one line.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1 segtool=$2 swaplib=$3
WATCHDOG=60
N=200
mkdir "$tmp/shm"
i=1
while [ $i -le $N ]; do
	SEGTOOL_NONCE=$i "$segtool" make "$tmp/shm" $$ "f$i" >/dev/null || fail "segtool"
	i=$((i + 1))
done

(ulimit -n 40 && wd "$top" -b -n 1 --shm-dir "$tmp/shm") >"$tmp/out" 2>"$tmp/err" ||
	fail "status $?: $(head -5 "$tmp/err")"
shown=$(grep -Ec "^PID $$ +f[0-9]+ " "$tmp/out")
[ "$shown" -eq $N ] || fail "ulimit -n 40: $shown of $N segments shown; stderr: $(wc -l <"$tmp/err") lines: $(head -3 "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "ulimit -n 40: stderr: $(head -3 "$tmp/err")"
calls=$(grep -Ec "^ +42 .*testlib\.tl_add" "$tmp/out")
[ "$calls" -eq $N ] || fail "ulimit -n 40: $calls of $N segments with their 42 calls"
echo "ok: ulimit -n 40: all $N segments shown, with their calls, nothing on stderr"

(TOP_SWAP_EMFILE=1 LD_PRELOAD="$(shim_preload "$swaplib")" wd "$top" -b -n 3 -d 0.01 \
	--shm-dir "$tmp/shm") >"$tmp/out" 2>"$tmp/err" || fail "EMFILE: status $?: $(head -5 "$tmp/err")"
lines=$(wc -l <"$tmp/err")
want="apiprof-top: out of file descriptors: $N segments not read this refresh"
[ "$lines" -eq 3 ] && [ "$(grep -c "^$want\$" "$tmp/err")" -eq 3 ] ||
	fail "EMFILE: $lines lines on stderr for 3 refreshes: $(head -3 "$tmp/err")"
echo "ok: EMFILE: one line per refresh: $(head -1 "$tmp/err")"

(TOP_SWAP_EMFILE_DIR="$tmp/shm" TOP_SWAP_EMFILE_AFTER=$((1 + N)) \
	LD_PRELOAD="$(shim_preload "$swaplib")" wd "$top" -b -n 2 -d 0.01 --shm-dir "$tmp/shm") \
	>"$tmp/out" 2>"$tmp/err" || fail "EMFILE on the directory: status $?: $(head -5 "$tmp/err")"
running=$(grep -Ec "^PID $$ +f[0-9]+ .* running " "$tmp/out")
[ "$running" -eq $((2 * N)) ] ||
	fail "EMFILE on the directory: $running of $((2 * N)) shown running in 2 refreshes: $(grep -c ended "$tmp/out") ended"
[ "$(cat "$tmp/err")" = "apiprof-top: out of file descriptors: $tmp/shm not listed this refresh" ] ||
	fail "EMFILE on the directory: stderr: $(head -3 "$tmp/err")"
echo "ok: EMFILE on the directory: all $N still running; $(cat "$tmp/err")"
