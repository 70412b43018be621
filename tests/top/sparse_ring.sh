#!/bin/sh
# sparse_ring.sh TOP SEGTOOL - one refresh costs at most what the segment
# really holds (issue 20, point 20).  A segment of the viewer's own user
# claims a full ring of the largest size the runtime makes (1 << 22
# records, 2.5 GiB) that has no pages: a reader that reads it through its
# mapping gives every hole a page.  The viewer must skip it with a line,
# promptly, and its peak memory must stay within that of a viewer with
# nothing to show plus what the segment holds (its header and function
# table) and a fixed margin, far below the ring's size.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1 segtool=$2
WATCHDOG=60
order=22
mkdir "$tmp/shm" "$tmp/empty"
name=$("$segtool" make "$tmp/shm" $$ hugering $order sparse) || fail "segtool"
size=$(stat -c %s "$tmp/shm/$name")
held=$(($(stat -c %b "$tmp/shm/$name") * $(stat -c %B "$tmp/shm/$name")))
echo "segment: $size bytes, $held of them with pages"
[ "$held" -lt $((size / 64)) ] || skip "the scratch file system does not keep files sparse"

wd "$segtool" maxrss "$tmp/rss0" "$top" -b -n 2 -d 0.1 --shm-dir "$tmp/empty" >/dev/null ||
	fail "viewer of an empty directory: status $?"
(wd "$segtool" maxrss "$tmp/rss" "$top" -b -n 2 -d 0.1 --shm-dir "$tmp/shm") >"$tmp/out" 2>"$tmp/err"
st=$?
[ $st -eq 0 ] || fail "status $st: $(cat "$tmp/out" "$tmp/err")"
rss0=$(cat "$tmp/rss0") rss=$(cat "$tmp/rss")
margin=$((32 * 1024))
echo "peak memory: $rss KiB (with nothing to show: $rss0 KiB, margin $margin KiB)"
[ "$rss" -le $((rss0 + held / 1024 + margin)) ] ||
	fail "the viewer faulted in the ring's holes: $rss KiB at its peak"
grep -q "$name: .*sparse.*skipped" "$tmp/err" || fail "no line about the sparse segment: $(cat "$tmp/err")"
! grep -q hugering "$tmp/out" || fail "the sparse segment was shown: $(cat "$tmp/out")"
echo "ok: $(cat "$tmp/err")"
