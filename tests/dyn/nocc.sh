#!/bin/sh
# nocc.sh APIPROF_RUN OUTDUMP SCRIPT
#
# The done-when of dynamic mode: on a machine with no compiler and no
# headers, `apiprof-run --dynamic -s zlib` profiles /usr/bin/python3's zlib
# calls from specs/zlib.json, with per-thread counts identical to those of
# the generated shim.  "No compiler" is simulated: PATH holds no cc, gcc or
# clang, CPATH and friends are empty, and the shim cache is a fresh empty
# directory that must still be empty afterwards (nothing was built).
set -eu
. "$(dirname "$0")/../lib.sh"
run=$1 outdump=$2 script=$3
py=/usr/bin/python3
[ -x $py ] || need $py python3
skip_if_sanitized "$run"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/cache"
for cc in cc gcc clang c99; do
	if PATH="$tmp/bin" command -v $cc >/dev/null 2>&1; then
		echo "FAIL: $cc found in the compiler-less PATH"
		exit 1
	fi
done

env -i HOME="$tmp" PATH="$tmp/bin" CPATH= C_INCLUDE_PATH= LIBRARY_PATH= \
	APIPROF_CACHE="$tmp/cache" APIPROF_GEN=/nonexistent/apiprof-gen \
	"$run" --dynamic -s zlib -o "$tmp/dyn.json" -- $py "$script" 3 300 >"$tmp/dyn.txt"
[ -z "$(ls -A "$tmp/cache")" ] || { echo "FAIL: something was built"; ls -la "$tmp/cache"; exit 1; }
"$run" -q -s zlib -o "$tmp/gen.json" -- $py "$script" 3 300 >"$tmp/gen.txt"
cmp "$tmp/dyn.txt" "$tmp/gen.txt"

# Thread ids differ between runs: compare each thread's rows, as a set.
threads() {
	"$outdump" -t "$1" | awk '$1 ~ /^[0-9]+$/ { r[$1] = r[$1] " " $3 "=" $4 }
		END { for (t in r) print r[t] }' | while read -r line; do
		echo "$line" | tr ' ' '\n' | sort | tr '\n' ' '
		echo
	done | sort
}
threads "$tmp/dyn.json" >"$tmp/dyn.rows"
threads "$tmp/gen.json" >"$tmp/gen.rows"
n=$(grep -c 'zlib.deflate=300' "$tmp/dyn.rows" || true)
[ "$n" -eq 3 ] || { echo "FAIL: $n threads with 300 deflate calls, want 3"; cat "$tmp/dyn.rows"; exit 1; }
if ! cmp -s "$tmp/gen.rows" "$tmp/dyn.rows"; then
	echo "FAIL: per-thread counts differ (generated vs dynamic):"
	diff "$tmp/gen.rows" "$tmp/dyn.rows" || true
	exit 1
fi
echo "ok: no compiler, no headers: python3's zlib counts from --dynamic equal the generated shim's"
