#!/bin/sh
# posix_io.sh SHIM - the shipped posix_io spec on unmodified Debian programs:
# dd's reads and writes are counted exactly, and errno comes through; the
# bytes that cat and dd read equal the file's size, and cat's opens of
# missing files are failures with ENOENT (issue 24).
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")

APIPROF_OUTPUT="$tmp/dd.json" LD_PRELOAD="$preload" \
	dd if=/dev/zero of=/dev/null bs=1 count=1000 2>/dev/null
"$OUTDUMP" "$tmp/dd.json" >"$tmp/dd.txt"
# dd is built with _FORTIFY_SOURCE: its reads may arrive as read or __read_chk.
reads=$(awk '$2 == "posix_io.read" || $2 == "posix_io.__read_chk" { n += $3 } END { print n + 0 }' "$tmp/dd.txt")
writes=$(awk '$2 == "posix_io.write" { n += $3 } END { print n + 0 }' "$tmp/dd.txt")
[ "$reads" -eq 1000 ] && [ "$writes" -eq 1000 ] || { echo "FAIL: dd counts"; cat "$tmp/dd.txt"; exit 1; }

# errno through the shim, as python3 sees it (it reports the errno names).
LD_PRELOAD="$preload" /usr/bin/python3 -c '
import errno, os
try:
    os.read(-1, 1)
except OSError as e:
    assert e.errno == errno.EBADF, e
try:
    os.open("/nonexistent/apiprof", os.O_RDONLY)
except OSError as e:
    assert e.errno == errno.ENOENT, e
print("errno ok")' >"$tmp/py.txt"
grep -qx "errno ok" "$tmp/py.txt"
# Bytes and failures: a file of known size through cat and dd.
head -c 100000 /dev/zero >"$tmp/data"
APIPROF_OUTPUT="$tmp/cat.json" LD_PRELOAD="$preload" \
	cat "$tmp/data" "$tmp/missing1" "$tmp/missing2" >/dev/null 2>&1 && { echo "FAIL: cat of missing files succeeded"; exit 1; }
APIPROF_OUTPUT="$tmp/dd2.json" LD_PRELOAD="$preload" \
	dd if="$tmp/data" of=/dev/null bs=4096 2>/dev/null
/usr/bin/python3 - "$tmp/cat.json" "$tmp/dd2.json" <<'PY'
import json, sys
def rows(path):
    d = json.load(open(path))
    return {f["name"]: f for t in d["threads"] for f in t["functions"] if f["api"] == "posix_io"}
cat, dd = rows(sys.argv[1]), rows(sys.argv[2])
checks = [
    ("cat read bytes", cat["read"]["bytes"], 100000),
    ("cat open failures", cat["open"]["failures"], 2),
    ("cat open errno", cat["open"]["errno"], {"ENOENT": 2}),
    ("dd read bytes", dd["read"]["bytes"], 100000),
    ("dd read sizes", dd["read"]["bytes_hist"], {"0": 1, "1024": 1, "4096": 24}),
    ("dd write bytes", dd["write"]["bytes"], 100000),
    ("dd read failures", dd["read"]["failures"], 0),
]
bad = [f"{n}: got {g!r}, want {w!r}" for n, g, w in checks if g != w]
if bad:
    print("FAIL:\n  " + "\n  ".join(bad))
    sys.exit(1)
PY
echo "ok: dd counted exactly, EBADF and ENOENT pass through; cat and dd read 100000 bytes, cat's 2 missing files failed with ENOENT"
