#!/bin/sh
# demo.sh BUILD - what `./quickstart demo` shows: an unmodified program
# (Debian's /usr/bin/python3) compressing with zlib in three threads, run
# under the shipped zlib shim, with its per-thread numbers at exit.
set -eu
build=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${TMPDIR:-/tmp}/apiprof-demo-$$.json

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }

say "\$ apiprof-run -s zlib --summary -o $out -- /usr/bin/python3 zlib_threads.py 3 400 4"
"$build/run/apiprof-run" -s zlib --summary -o "$out" -- \
	/usr/bin/python3 "$here/tests/e2e/zlib_threads.py" 3 400 4

say "Per-thread totals as JSON ($out), one line per function:"
"$build/tests/outdump" -t "$out" | grep -v '^dropped'
say "Thread n compresses (n+1)x more data, so its share of time in zlib grows with n."
say "Live view while a program runs: $build/top/apiprof-top   (batch: apiprof-top -b -n 1)"
rm -f "$out"
