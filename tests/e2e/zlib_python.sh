#!/bin/sh
# zlib_python.sh SHIM SCRIPT OUTDUMP
#
# The shipped zlib spec on an unmodified /usr/bin/python3: each worker
# thread must show exactly one call per round of each zlib function the
# script uses, and python3 must print the same as without the shim.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 script=$2 outdump=$3
py=/usr/bin/python3
threads=3 rounds=500
[ -x $py ] || need $py python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$py "$script" $threads $rounds >"$tmp/bare.txt"
APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$(shim_preload "$shim")" $py "$script" $threads $rounds >"$tmp/shim.txt"
cmp "$tmp/bare.txt" "$tmp/shim.txt"

# Worker threads are the ones with zlib calls; python3's main thread may
# make none.  Keep rows of threads that called deflate.
"$outdump" -t "$tmp/out.json" >"$tmp/rows.txt"
tids=$(awk '$3 == "zlib.deflate" { print $1 }' "$tmp/rows.txt" | sort -u)
n=$(echo "$tids" | grep -c . || true)
[ "$n" -eq $threads ] || { echo "FAIL: $n threads called deflate, want $threads"; cat "$tmp/rows.txt"; exit 1; }
for tid in $tids; do
	awk -v t="$tid" '$1 == t { print $3, $4 }' "$tmp/rows.txt" | sort >"$tmp/got.txt"
	for f in adler32 crc32 deflate deflateEnd deflateInit2_ inflate inflateEnd inflateInit2_; do
		echo "zlib.$f $rounds"
	done | sort >"$tmp/want.txt"
	if ! cmp -s "$tmp/want.txt" "$tmp/got.txt"; then
		echo "FAIL: thread $tid counts (want vs got):"
		diff "$tmp/want.txt" "$tmp/got.txt" || true
		exit 1
	fi
done
echo "ok: $threads python3 threads x $rounds rounds, every zlib call counted exactly"
