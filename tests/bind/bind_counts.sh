#!/bin/sh
# bind_counts.sh RUNTIME DYNLIB AUDIT OUTDUMP SPEC SHIM FUNC WANT PROG [ARGS...]
#
# Runs PROG ARGS bare, under the generated shim SHIM, and in dynamic mode
# with SPEC (as apiprof-run --dynamic sets it up): the output must not
# change, and FUNC (api.function) must be counted exactly WANT times in
# both modes.  The programs call through GOT entries (-fno-plt), read-only
# ones (-z now -z relro), a table of function pointers and a plugin
# dlopen()ed late: slots that only the binding engine rewrites.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 dynlib=$2 audit=$3 outdump=$4 spec=$5 shim=$6 func=$7 want=$8
shift 8
skip_if_sanitized "$dynlib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$1")

count() {
	"$outdump" "$1" | awk -v f="$func" '$2 == f { n += $3 } END { print n + 0 }'
}

"$@" >"$tmp/bare.txt"
APIPROF_OUTPUT="$tmp/gen.json" LD_PRELOAD="$(shim_preload "$shim")" "$@" >"$tmp/gen.txt"
LD_AUDIT="$audit" APIPROF_SPEC="$spec" LD_PRELOAD="$runtime:$dynlib" \
	APIPROF_OUTPUT="$tmp/dyn.json" "$@" >"$tmp/dyn.txt"
cmp "$tmp/bare.txt" "$tmp/gen.txt"
cmp "$tmp/bare.txt" "$tmp/dyn.txt"
gen=$(count "$tmp/gen.json") dyn=$(count "$tmp/dyn.json")
if [ "$gen" -ne "$want" ] || [ "$dyn" -ne "$want" ]; then
	echo "FAIL: $name: $func counted $gen times by the generated shim, $dyn in dynamic mode; want $want in both"
	exit 1
fi
echo "ok: $name: $func counted $want times, generated and dynamic"
