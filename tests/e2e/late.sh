#!/bin/sh
# late.sh SHIM PROG - a shim dlopen()ed after start-up, with glibc's
# optional static TLS reserve set to 0: it loads, and the calls made
# through it are counted exactly.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 prog=$2
skip_if_sanitized "$shim" "the sanitizer runtime cannot be dlopen()ed late"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GLIBC_TUNABLES=glibc.rtld.optional_static_tls=0 APIPROF_OUTPUT="$tmp/o.json" \
	"$prog" "$(realpath "$shim")" 500 >"$tmp/out"
grep -qx "late: 125252" "$tmp/out" || { echo "FAIL: $(cat "$tmp/out")"; exit 1; }
n=$("$OUTDUMP" "$tmp/o.json" | awk '$2 == "testlib.tl_add" { n += $3 } END { print n + 0 }')
[ "$n" -eq 500 ] || { echo "FAIL: $n calls counted, want 500"; exit 1; }
echo "ok: a shim dlopen()ed late, with optional_static_tls=0, counts exactly"
