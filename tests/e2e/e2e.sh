#!/bin/sh
# e2e.sh SHIM TESTPROG OUTDUMP [CLOCK]
#
# Runs testprog bare and under the generated testlib shim, and asserts:
# identical output (results, out-parameters and errno checks are folded
# into per-thread checksums), and exact per-thread call counts in
# APIPROF_OUTPUT, with nested same-api calls not counted.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 prog=$2 outdump=$3 clock=${4:-auto}
threads=8 iters=100000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$prog" $threads $iters >"$tmp/bare.txt"
APIPROF_CLOCK=$clock APIPROF_OUTPUT="$tmp/out-%p.json" LD_PRELOAD="$(shim_preload "$shim")" \
	"$prog" $threads $iters >"$tmp/shim.txt"
cmp "$tmp/bare.txt" "$tmp/shim.txt" || { echo "FAIL: output differs under the shim"; diff "$tmp/bare.txt" "$tmp/shim.txt"; exit 1; }
if grep -v 'errors 0' "$tmp/bare.txt" | grep -q errors; then
	echo "FAIL: errno checks failed"; cat "$tmp/bare.txt"; exit 1
fi

set -- "$tmp"/out-*.json
[ $# -eq 1 ] && [ -f "$1" ] || { echo "FAIL: expected one APIPROF_OUTPUT file, got: $*"; exit 1; }
"$outdump" "$1" | sort >"$tmp/got.txt"

rare=$((iters / 100))
{
	n=0
	while [ $n -lt $threads ]; do
		for f in tl_apply tl_big_make tl_div tl_fail tl_fill tl_keep_errno tl_ldmul \
			tl_mix tl_name tl_outer tl_scale tl_sum tl_swap; do
			echo "worker-$n testlib.$f $rare"
		done
		echo "worker-$n testlib.tl_add $iters"
		n=$((n + 1))
	done
	echo "testprog testlib.tl_add 7"
	echo "dropped 0"
} | sort >"$tmp/want.txt"
if ! cmp -s "$tmp/want.txt" "$tmp/got.txt"; then
	echo "FAIL: per-thread counts differ (want vs got):"
	diff "$tmp/want.txt" "$tmp/got.txt" || true
	exit 1
fi
echo "ok: $threads threads x $iters calls counted exactly, nested calls not counted"
