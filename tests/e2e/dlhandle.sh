#!/bin/sh
# dlhandle.sh RUNTIME SHIM PROG - calls reached through dlopen(RTLD_LOCAL) +
# dlsym(handle) and dlsym(RTLD_DEFAULT) are counted; dlopen still honours
# the caller's RUNPATH; RTLD_DEEPBIND is reported once.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 shim=$2 prog=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip_if_sanitized "$shim" "ASan's dlopen interceptor hides the program's RUNPATH"
fail() { echo "FAIL: $*"; exit 1; }
count() { "$OUTDUMP" "$1" | awk '$2 == "testlib.tl_add" { n += $3 } END { print n + 0 }'; }

"$prog" 1000 >"$tmp/bare"
APIPROF_OUTPUT="$tmp/o.json" LD_PRELOAD="$(shim_preload "$runtime" "$shim")" "$prog" 1000 >"$tmp/shim" 2>"$tmp/err"
cmp "$tmp/bare" "$tmp/shim" || fail "output differs"
[ ! -s "$tmp/err" ] || fail "unexpected stderr: $(cat "$tmp/err")"
[ "$(count "$tmp/o.json")" -eq 2000 ] || fail "counted $(count "$tmp/o.json") of 2000 calls"

APIPROF_OUTPUT="$tmp/d.json" LD_PRELOAD="$(shim_preload "$runtime" "$shim")" "$prog" 10 deepbind >"$tmp/shim" 2>"$tmp/err"
grep -qx "dlhandle: 120" "$tmp/shim" || fail "deepbind run: $(cat "$tmp/shim")"
[ "$(grep -c 'opened with RTLD_DEEPBIND: calls through a DEEPBIND handle are not seen' "$tmp/err")" -eq 1 ] \
	|| fail "no single DEEPBIND warning: $(cat "$tmp/err")"
echo "ok: dlsym(handle) and dlsym(RTLD_DEFAULT) counted, RUNPATH kept, DEEPBIND reported"
