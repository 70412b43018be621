#!/bin/sh
# fails.sh PRELOAD PROG [SAMPLE] - the failures and errno counts of
# fails.json exact in APIPROF_OUTPUT (issue 34, points 19 and 20).
# failsprog passes each "fails" rule's boundary values to an identity
# function, value i of a function 2^i times, so a row's failures tell which
# values were judged failures; and fails fl_errno with each errno the
# runtime names, slot k's k times, and with two it does not ("other").
# Its output (results, errno as the library left it) must be the same
# bare and under the shim.  PRELOAD: a shim, or dynamic mode's libraries.
set -eu
. "$(dirname "$0")/../lib.sh"
preload=$1 prog=$2 sample=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$prog" >"$tmp/bare.txt"
APIPROF_SAMPLE=$sample APIPROF_SHM=0 APIPROF_OUTPUT="$tmp/out.json" \
	LD_PRELOAD="$(shim_preload $(echo "$preload" | tr ':' ' '))" \
	"$prog" >"$tmp/shim.txt"
cmp "$tmp/bare.txt" "$tmp/shim.txt" || { echo "FAIL: output differs under the shim"; diff "$tmp/bare.txt" "$tmp/shim.txt"; exit 1; }
grep -qx 'wrong 0' "$tmp/bare.txt" || { echo "FAIL: bare run"; cat "$tmp/bare.txt"; exit 1; }

/usr/bin/python3 "$(dirname "$0")/fails_check.py" "$tmp/bare.txt" "$tmp/out.json"
echo "ok: every fails rule at its boundaries, every errno by name (sample=$sample)"
