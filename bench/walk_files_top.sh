#!/bin/sh
# bench/walk_files_top.sh - the files to follow one refresh of apiprof-top
# (issue 36, docs/benchmarks.md "Files to follow a path").
#
#   bench/walk_files_top.sh [BUILD_DIR [FN...]]   (BUILD_DIR: build;
#                          FN: top_watch_refresh top_seg_read)
#
# A program looping on crc32 runs under the zlib shim while
# `apiprof-top -b -n 3 -d 1` watches it under callgrind with
# --collect-atstart=no --toggle-collect=FN: the cost lines of FN and its
# callees (not the call lines of its caller).  For each FN, prints the
# count and the list of distinct product source files (under the source
# tree, not tests/ or bench/; headers count when their inline code has
# cost).  top_watch_refresh is the whole refresh (discovery, the
# collector's marker, titles, the process tree); top_seg_read is one
# segment's reader to the model, the part the review counted.  Runs as
# root in a private mount namespace with its own /dev/shm.  Nothing here
# passes or fails.
set -eu

if [ "${WALK_INNER:-}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || { echo "walk_files_top.sh: needs root (a private /dev/shm)" >&2; exit 2; }
	exec unshare -m --propagation private env WALK_INNER=1 sh -c \
		'mount -t tmpfs -o size=64m tmpfs /dev/shm && exec sh "$0" "$@"' "$0" "$@"
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-build}" && pwd)
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- top_watch_refresh top_seg_read
TMP=$(mktemp -d "${TMPDIR:-/tmp}/apiprof-walk.XXXXXX")
LOOP_PID=
cleanup() {
	[ -z "$LOOP_PID" ] || kill "$LOOP_PID" 2>/dev/null || :
	[ -n "${WALK_KEEP:-}" ] && cp "$TMP"/cg.* "$WALK_KEEP"/ 2>/dev/null; rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

cat >"$TMP/loop.c" <<'EOF'
#include <zlib.h>
int main(void)
{
	static unsigned char buf[256];
	unsigned long c = 0;

	for (;;)
		c = crc32(c, buf, sizeof(buf));
}
EOF
cc -O1 -o "$TMP/loop" "$TMP/loop.c" -lz
LD_PRELOAD=$BUILD/specs/libapiprof-zlib.so "$TMP/loop" &
LOOP_PID=$!
i=0
until ls /dev/shm | grep -q "^apiprof-[0-9]*-$LOOP_PID-"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "walk_files_top.sh: no segment for the loop" >&2; exit 1; }
	sleep 0.1
done

for fn in "$@"; do
	valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$fn" \
		--callgrind-out-file="$TMP/cg.$fn" \
		"$BUILD/top/apiprof-top" -b -n 3 -d 1 >/dev/null 2>"$TMP/vg.$fn" ||
		{ cat "$TMP/vg.$fn" >&2; exit 1; }
	python3 - "$SRC" "$fn" "$TMP/cg.$fn" <<'EOF'
import os, re, sys

src, fn, path = sys.argv[1], sys.argv[2], sys.argv[3]
names, cost, cur, skip = {}, {}, None, False


def name(v):
    m = re.match(r"\((\d+)\)\s*(.*)", v)
    if not m:
        return v
    if m.group(2):
        names[m.group(1)] = m.group(2)
    return names.get(m.group(1), "?")


for line in open(path, errors="replace"):
    line = line.rstrip("\n")
    key, eq, val = line.partition("=")
    if eq and key in ("fl", "fi", "fe"):
        cur = name(val)
    elif eq and key in ("cfi", "cfl"):
        name(val)
    elif line.startswith("calls="):
        skip = True  # the next cost line is the call's inclusive cost
    elif line[:1].isdigit() or line[:1] in "+-*":
        if skip:
            skip = False
            continue
        f = line.split()[1:]
        cost[cur] = cost.get(cur, 0) + sum(int(x) for x in f if x.isdigit())
files = []
for f, c in cost.items():
    r = os.path.realpath(f) if f and os.path.isabs(f) else ""
    if c and r.startswith(src + "/") and not r[len(src) + 1:].startswith(("tests/", "bench/")):
        files.append(r[len(src) + 1:])
print("%s: %d files: %s" % (fn, len(files), " ".join(sorted(files))))
EOF
done
