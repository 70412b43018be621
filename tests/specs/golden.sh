#!/bin/sh
# golden.sh APIPROF_GEN LIBTLGOLD TL_PROG OUTDUMP
#
# `apiprof-gen import` on tests/specs/golden/tl.h (structs and unions by
# value, callbacks, variadics with and without a v-twin, macros,
# deprecated, noreturn, inline and static functions, types no spec can
# write) must print exactly the committed spec and messages.  The spec
# must then build, and tl_prog must run under it unchanged with exact
# counts.
set -eu
. "$(dirname "$0")/../lib.sh"
gen=$1 lib=$2 prog=$3 outdump=$4
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
golden=$(cd "$(dirname "$0")/golden" && pwd)
libdir=$(cd "$(dirname "$lib")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The header is named as the user would name it: from its directory.
import() {
	(cd "$golden" && LD_LIBRARY_PATH=$libdir "$gen" import tl.h --library libtlgold.so "$@")
}
if ! import --prefix tl_ -o "$tmp/tl.json" 2>"$tmp/import.err"; then
	if grep -q "built without libclang" "$tmp/import.err"; then
		echo "SKIP: apiprof-gen was built without libclang"
		exit 77
	fi
	cat "$tmp/import.err"
	exit 1
fi
# Messages name the library's file: make them independent of the build dir.
sed "s#$libdir/##" "$tmp/import.err" >"$tmp/import.txt"
cmp "$golden/tl.json" "$tmp/tl.json" || { diff -u "$golden/tl.json" "$tmp/tl.json"; exit 1; }
cmp "$golden/import.txt" "$tmp/import.txt" || { diff -u "$golden/import.txt" "$tmp/import.txt"; exit 1; }

# --functions: a macro's name selects the function it stands for.
import --functions tl_open,tl_printf,tl_swap,tl_nothing >"$tmp/fn.json" 2>"$tmp/fn.err"
sed "s#$libdir/##" "$tmp/fn.err" >"$tmp/fn.txt"
cmp "$golden/tl_functions.json" "$tmp/fn.json" || { diff -u "$golden/tl_functions.json" "$tmp/fn.json"; exit 1; }
cmp "$golden/functions.txt" "$tmp/fn.txt" || { diff -u "$golden/functions.txt" "$tmp/fn.txt"; exit 1; }

# Deterministic: a second import gives the same bytes.
import --prefix tl_ 2>/dev/null | cmp - "$tmp/tl.json"

# The golden spec builds (unsupported entries are skipped with a note) and
# profiles tl_prog exactly.
cp "$golden/tl.json" "$tmp/"
(cd "$tmp" && "$gen" build tl.json -I "$golden" -o libapiprof-tl.so) 2>"$tmp/build.err"
grep -c "skipped" "$tmp/build.err" | grep -qx 3 || { cat "$tmp/build.err"; exit 1; }
skip_if_sanitized "$tmp/libapiprof-tl.so"
LD_LIBRARY_PATH=$libdir "$prog" >"$tmp/bare.txt" 2>/dev/null
APIPROF_OUTPUT="$tmp/out.json" LD_LIBRARY_PATH=$libdir LD_PRELOAD="$(shim_preload "$tmp/libapiprof-tl.so")" \
	"$prog" >"$tmp/shim.txt" 2>/dev/null
cmp "$tmp/bare.txt" "$tmp/shim.txt"
"$outdump" "$tmp/out.json" | awk '$2 ~ /^tl\./ { print $2, $3 }' | sort >"$tmp/got.txt"
cat >"$tmp/want.txt" <<'WANT'
tl.tl_each 1
tl.tl_num_add 1
tl.tl_old 1
tl.tl_open_ 2
tl.tl_outer_sum 1
tl.tl_printf 2
tl.tl_swap 3
tl.tl_wide 1
WANT
cmp "$tmp/want.txt" "$tmp/got.txt" || { diff -u "$tmp/want.txt" "$tmp/got.txt"; exit 1; }
echo "ok: import of tl.h matches the golden spec byte for byte; the spec profiles tl_prog exactly"
