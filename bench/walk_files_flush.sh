#!/bin/sh
# SPDX-License-Identifier: MIT
# walk_files_flush.sh BUILD PATH... - the product source files whose code runs on
# a path (docs/benchmarks.md "Files to follow a path"): callgrind with
# --collect-atstart=no --toggle-collect=FN counts the cost of FN and its
# callees; the files of that cost, product files only (the source tree and
# the generated shims), one per line, then their number.
#
# Paths: flush (the runtime's flush_all while apiprof-top -b -n 3 -d 1
# watches a program looping on crc32 under the zlib shim, in a private
# mount namespace with its own /dev/shm).  Needs root (unshare -m), cc,
# zlib's headers, valgrind.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BUILD PATH..." >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

# The files with cost in callgrind output $1, relative to the source tree
# (a generated file keeps its build-tree name).
files_of() {
	callgrind_annotate --inclusive=no --threshold=100 "$1" 2>/dev/null |
		python3 -c '
import os, re, sys
src, build = sys.argv[1:3]
seen = set()
for line in sys.stdin:
    m = re.match(r"\s*[\d,]+ \(\s*[\d.]+%\)\s+(\S+):", line)
    if not m:
        continue
    f = m.group(1)
    if "/../" in f:
        f = f.split("/../")[-1]
    while f.startswith("../"):
        f = f[3:]
    for root, name in ((src, ""), (build, "build/")):
        if f.startswith(root + "/"):
            f = name + f[len(root) + 1:]
    if f.startswith("/"):
        continue
    if os.path.isfile(os.path.join(src, f)) or (
            f.startswith("build/") and os.path.isfile(os.path.join(build, f[6:]))):
        seen.add(f)
print("\n".join(sorted(seen)))' "$SRC" "$BUILD"
}

# A program that loops on crc32 until SIGTERM, then returns from main.
crc_loop() {
	cat >"$T/crc_loop.c" <<'EOF'
#include <signal.h>
#include <zlib.h>
static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }
int main(void)
{
	static const unsigned char b[64];
	unsigned long c = 0;
	signal(SIGTERM, on_term);
	while (!stop)
		c = crc32(c, b, sizeof(b));
	return c == 1;
}
EOF
	cc -O1 -o "$T/crc_loop" "$T/crc_loop.c" -lz
}

# One flush: the runtime's flush_all while a viewer watches three refreshes.
walk_flush() {
	crc_loop
	unshare -m --propagation private sh ${WALK_X:-} -c '
		mount -t tmpfs tmpfs /dev/shm
		valgrind --tool=callgrind --trace-children=yes \
			--collect-atstart=no --toggle-collect=flush_all \
			--callgrind-out-file="$2/flush.out" \
			env LD_PRELOAD="$1/specs/libapiprof-zlib.so" "$2/crc_loop" 2>"$2/vg.err" &
		vg=$!
		n=0
		until "$1/top/apiprof-top" -b -n 1 2>/dev/null | grep -q "crc_loop.*running"; do
			n=$((n + 1)); [ $n -lt 1200 ] || break
			sleep 0.1 # waits for valgrind to start the program, not a test
		done
		"$1/top/apiprof-top" -b -n 3 -d 1 >"$2/top.out" 2>&1 || true
		kill -TERM $vg; wait $vg || true' sh "$BUILD" "$T"
	files_of "$T/flush.out"
}

for p in "$@"; do
	echo "== $p"
	walk_"$p" >"$T/files"
	cat "$T/files"
	echo "$(wc -l <"$T/files") files"
done
