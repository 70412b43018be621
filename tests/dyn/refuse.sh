#!/bin/sh
# refuse.sh RUNTIME DYNLIB AUDIT OUTDUMP TESTPROG
#
# A function whose types cannot be mapped (tl_swap: struct tl_pair by value
# without a "types" entry) is refused at load time with one line naming
# the function and the type; it still runs, unprofiled, with the same
# results, and the rest of the spec is counted exactly.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 dynlib=$2 audit=$3 outdump=$4 prog=$5
skip_if_sanitized "$dynlib"
spec=$(cd "$(dirname "$0")" && pwd)/refuse.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$prog" 2 1000 >"$tmp/bare.txt"
LD_AUDIT="$audit" APIPROF_SPEC="$spec" LD_PRELOAD="$runtime:$dynlib" \
	APIPROF_OUTPUT="$tmp/out.json" "$prog" 2 1000 >"$tmp/dyn.txt" 2>"$tmp/err.txt"
cmp "$tmp/bare.txt" "$tmp/dyn.txt"
lines=$(wc -l <"$tmp/err.txt")
[ "$lines" -eq 1 ] || { echo "FAIL: $lines lines on stderr, want 1"; cat "$tmp/err.txt"; exit 1; }
grep -q 'refuse.json:[0-9]*:[0-9]*: tl_swap: struct tl_pair by value has no layout in "types"; not profiled' \
	"$tmp/err.txt" || { echo "FAIL: unexpected message"; cat "$tmp/err.txt"; exit 1; }
"$outdump" "$tmp/out.json" | sort >"$tmp/got.txt"
{
	for w in 0 1; do
		echo "worker-$w refuse.tl_add 1020" # 1000, and tl_outer calls it 20 times
		echo "worker-$w refuse.tl_div 10"
	done
	echo "testprog refuse.tl_add 7"
	echo "dropped 0"
} | sort >"$tmp/want.txt"
diff -u "$tmp/want.txt" "$tmp/got.txt" || { echo "FAIL: counts (-want +got)"; exit 1; }
echo "ok: tl_swap refused in one line and run unprofiled; tl_add and tl_div counted exactly"
