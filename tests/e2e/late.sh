#!/bin/sh
# late.sh SHIM PROG - a shim dlopen()ed after start-up, with glibc's
# optional static TLS reserve set to 0: it loads, takes its TLS from the
# reserve (libapiprof-tls.so), and the calls made through it are counted
# exactly.  Preloaded, the same shim takes nothing from the reserve.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 prog=$2
skip_if_sanitized "$shim" "the sanitizer runtime cannot be dlopen()ed late"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GLIBC_TUNABLES=glibc.rtld.optional_static_tls=0 APIPROF_OUTPUT="$tmp/o.json" \
	"$prog" "$(realpath "$shim")" 500 >"$tmp/out"
grep -qx "late: 125252" "$tmp/out" || { echo "FAIL: $(cat "$tmp/out")"; exit 1; }
grep -qx "via: $(basename "$shim")" "$tmp/out" || { echo "FAIL: not the shim: $(cat "$tmp/out")"; exit 1; }
grep -qx "spare: 1" "$tmp/out" || { echo "FAIL: late, but no spare TLS: $(cat "$tmp/out")"; exit 1; }
n=$("$OUTDUMP" "$tmp/o.json" | awk '$2 == "testlib.tl_add" { n += $3 } END { print n + 0 }')
[ "$n" -eq 500 ] || { echo "FAIL: $n calls counted, want 500"; exit 1; }
LD_PRELOAD="$(realpath "$shim")" APIPROF_OUTPUT="$tmp/p.json" \
	"$prog" "$(realpath "$shim")" 500 >"$tmp/out"
grep -qx "spare: 0" "$tmp/out" || { echo "FAIL: preloaded, but took spare TLS: $(cat "$tmp/out")"; exit 1; }
n=$("$OUTDUMP" "$tmp/p.json" | awk '$2 == "testlib.tl_add" { n += $3 } END { print n + 0 }')
[ "$n" -eq 501 ] || { echo "FAIL: preloaded: $n calls counted, want 501"; exit 1; }
echo "ok: a shim dlopen()ed late, with optional_static_tls=0, counts exactly; preloaded, it takes no reserve"
