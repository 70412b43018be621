#!/bin/sh
# dynbind.sh RUNTIME DYNLIB AUDIT SPEC OUTDUMP CALLER_LIB PROG...
#
# Each PROG (dynbind.c built lazy and with -z now) calls tl_add 190 times:
# through its PLT, dlsym(RTLD_DEFAULT), dlsym(handle), and from a library
# dlopen()ed later with RTLD_NOW and RTLD_LAZY.  In dynamic mode every one
# of them must be counted, and the program's output must not change.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 dynlib=$2 audit=$3 spec=$4 outdump=$5 caller=$6
shift 6
skip_if_sanitized "$dynlib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for prog; do
	for mode in now lazy; do
		"$prog" "$caller" $mode >"$tmp/bare.txt"
		LD_AUDIT="$audit" APIPROF_SPEC="$spec" LD_PRELOAD="$runtime:$dynlib" \
			APIPROF_OUTPUT="$tmp/out.json" "$prog" "$caller" $mode >"$tmp/dyn.txt"
		cmp "$tmp/bare.txt" "$tmp/dyn.txt"
		got=$("$outdump" "$tmp/out.json" | awk '$2 == "testlib.tl_add" { n += $3 } END { print n + 0 }')
		[ "$got" -eq 190 ] || {
			echo "FAIL: $(basename "$prog") dlopen $mode: $got tl_add calls counted, want 190"
			"$outdump" "$tmp/out.json"
			exit 1
		}
		echo "ok: $(basename "$prog"), library dlopen()ed $mode: 190 of 190 calls counted"
	done
done
