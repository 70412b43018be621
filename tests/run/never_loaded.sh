#!/bin/sh
# never_loaded.sh APIPROF_RUN
#
# A spec whose library the program never loads (issue 22).  Debian's
# /usr/bin/zstd is linked against libzstd statically (and against libc
# dynamically), so `apiprof-run --dynamic -s zstd.json zstd` counts
# nothing: the runtime says so in one line at exit, puts "loaded": false
# in APIPROF_OUTPUT, and zstd's output and status are its own.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1
skip_if_sanitized "$run"
need zstd zstd
zstd=$(command -v zstd)
ldd "$zstd" | grep -q 'libzstd' && skip "$zstd is linked against libzstd dynamically"

cat >"$tmp/zstd.json" <<'JSON'
{
  "apiprof": 1,
  "api": "zstd",
  "library": "libzstd.so.1",
  "functions": [
    {"name": "ZSTD_versionNumber", "returns": "unsigned int", "params": []},
    {"name": "ZSTD_compressBound", "returns": "size_t", "params": [{"type": "size_t", "name": "n"}]}
  ]
}
JSON
seq 1 1000 >"$tmp/in"
wd "$run" --dynamic -s "$tmp/zstd.json" -o "$tmp/out.json" -- zstd -q -c "$tmp/in" \
	>"$tmp/in.zst" 2>"$tmp/err" </dev/null
[ "$st" -eq 0 ] || fail "zstd under apiprof-run: status $st: $(cat "$tmp/err")"
zstd -q -d -c "$tmp/in.zst" | cmp -s - "$tmp/in" || fail "zstd's output changed"
want='apiprof: zstd: libzstd.so.1 was never loaded; is the program static, or the library named differently?'
[ "$(cat "$tmp/err")" = "$want" ] || fail "stderr is not the one line: $(cat "$tmp/err")"
python3 -c '
import json, sys
apis = json.load(open(sys.argv[1]))["apis"]
sys.exit(apis != [{"api": "zstd", "library": "libzstd.so.1", "loaded": False}])
' "$tmp/out.json" || fail "APIPROF_OUTPUT: $(cat "$tmp/out.json")"
echo "ok: zstd (static libzstd): one line at exit, \"loaded\": false, output and status its own"
