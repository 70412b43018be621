#!/bin/sh
# late_notls.sh SHIM PROG HOG... - a shim dlopen()ed after start-up, once
# TLS-hungry libraries have taken all of glibc's static TLS reserve: the
# shim still loads, its calls pass straight through (same results), there
# is exactly one warning, and no output is written.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 prog=$2
shift 2
skip_if_sanitized "$shim" "the sanitizer runtime cannot be dlopen()ed late"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
GLIBC_TUNABLES=glibc.rtld.optional_static_tls=0 APIPROF_OUTPUT="$tmp/o.json" \
	"$prog" "$(realpath "$shim")" 500 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc: $(cat "$tmp/out" "$tmp/err")"; exit 1; }
grep -qx "late: 125252" "$tmp/out" || { echo "FAIL: $(cat "$tmp/out")"; exit 1; }
grep -qx "via: $(basename "$shim")" "$tmp/out" ||
	{ echo "FAIL: tl_add was not the shim's: $(cat "$tmp/out")"; exit 1; }
n=$(grep -c . "$tmp/err" || true)
[ "$n" -eq 1 ] || { echo "FAIL: $n lines on stderr, want 1:"; cat "$tmp/err"; exit 1; }
grep -q '^apiprof: no static TLS for the runtime (.*); calls pass through unprofiled' "$tmp/err" ||
	{ echo "FAIL: not the warning: $(cat "$tmp/err")"; exit 1; }
[ ! -e "$tmp/o.json" ] || { echo "FAIL: an output was written"; exit 1; }
echo "ok: no static TLS left: the late shim loads, passes calls through, warns once"
