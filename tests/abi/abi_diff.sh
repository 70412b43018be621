#!/bin/sh
# abi_diff.sh SHIM LIB ABI_DIFF OUTDUMP - the differential test under the
# shim, then the shim's own counts against the calls abi_diff made, and
# the exit-like noreturn function in a process of its own.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 lib=$2 exe=$3 outdump=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
preload=$(shim_preload "$shim")

APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$preload" \
	"$exe" "$lib" "$tmp/expected.txt" "${ABI_CALLS:-2000}" "${ABI_SEED:-1}"
"$outdump" "$tmp/out.json" | awk '$2 ~ /^abilib\./ { print $2, $3 }' | sort >"$tmp/got.txt"
sort "$tmp/expected.txt" >"$tmp/want.txt"
diff -u "$tmp/want.txt" "$tmp/got.txt" || { echo "FAIL: counts differ (-want +got)"; exit 1; }
# Every function of the spec was called, except ab_exit (below); the C++
# one shows under its display name.
rows=$(wc -l <"$tmp/got.txt")
want=${ABI_ROWS:-50} # fewer when ABI_SKIP leaves functions out
[ "$rows" -eq "$want" ] || { echo "FAIL: $rows rows counted, want $want"; exit 1; }
grep -q '^abilib\.cxx_scale ' "$tmp/got.txt" || { echo "FAIL: no cxx_scale row"; exit 1; }

st=0
APIPROF_OUTPUT="$tmp/exit.json" LD_PRELOAD="$preload" "$exe" "$lib" --exit 7 || st=$?
[ "$st" -eq 7 ] || { echo "FAIL: ab_exit(7) exited $st"; exit 1; }
"$outdump" "$tmp/exit.json" | awk '$2 == "abilib.ab_exit" { print $3 }' | grep -qx 1 ||
	{ echo "FAIL: ab_exit not counted once"; "$outdump" "$tmp/exit.json"; exit 1; }
echo "ok: $rows functions agree bit for bit and are counted exactly; ab_exit counted"
