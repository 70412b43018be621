#!/bin/sh
# posix_io.sh SHIM - the shipped posix_io spec on unmodified Debian programs:
# dd's reads and writes are counted exactly, and errno comes through.
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
echo "ok: dd counted exactly, EBADF and ENOENT pass through"
