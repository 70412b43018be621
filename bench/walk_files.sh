#!/bin/sh
# SPDX-License-Identifier: MIT
# walk_files.sh BUILD PATH... - the product files to follow a path (issue 36,
# docs/benchmarks.md "Files to follow a path").  For each PATH prints
# "== PATH: N files", then the files, one a line.
#
# PATH (one function each, walk_PATH):
#   first    the process's first call: a program whose first call is crc32,
#            under BUILD/specs/libapiprof-zlib.so; FN crc32
#   flush    one flush, runtime: a program looping on crc32 under that shim,
#            FN flush_all, while apiprof-top -b -n 3 -d 1 watches it
#   refresh  one refresh of the viewer: apiprof-top -b -n 3 -d 1 watching
#            that loop, FN top_watch_refresh (discovery, the reader, the
#            collector's marker, titles, the process tree)
#   reader   the reader to model, the part the review counted: the same
#            run, FN top_seg_read
#
# Method: valgrind --tool=callgrind --collect-atstart=no
# --toggle-collect=FN: the cost of FN and of its callees.
#
# The counting rule (files_of, the one place that counts): a file counts
# when a cost line of the collected range is in it and in one of BUILD's
# objects (the shim library with its runtime, apiprof-top).  fl=, fi= and
# fe= name the file of the cost lines that follow, so a header whose
# inline code runs counts, as the file that defines that code; a call
# line (the line after calls=) is the callee's inclusive cost and does not
# count for the caller's file.  Names are made canonical (a relative name
# in BUILD's objects is a generated file: meson compiles from BUILD), so a
# file counts once however its debug information spells it; the generated
# shim counts once, as build/specs/shim_zlib.c.  Counted: the files of the
# source tree BUILD was set up from and BUILD's generated files, not
# tests/ or bench/; libc, libz, the loader, valgrind's preloads, the
# system's headers, libgcc's helpers linked in without debug information
# (callgrind's "???") and the walk's own program are not ours.
#
# Needs root: it runs in a private mount namespace with its own tmpfs
# /dev/shm (the runtime makes its segment there; /dev/shm is shared).
# Needs cc, zlib's headers, valgrind, python3.  WALK_KEEP=DIR keeps
# callgrind's outputs in DIR.  Nothing here passes or fails.
set -eu

usage() {
	echo "usage: walk_files.sh BUILD PATH... (PATH: first flush refresh reader)" >&2
	exit 2
}
[ $# -ge 2 ] || usage
if [ "${WALK_FILES_NS:-}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || {
		echo "walk_files.sh: needs root (a private /dev/shm)" >&2
		exit 2
	}
	# shellcheck disable=SC2016 # expanded by the inner sh
	exec unshare -m --propagation private env WALK_FILES_NS=1 sh -c \
		'mount -t tmpfs -o size=64m tmpfs /dev/shm && exec sh "$0" "$@"' "$0" "$@"
fi
BUILD=$(cd "$1" && pwd)
shift
for p in "$@"; do
	case $p in
	first | flush | refresh | reader) ;;
	*) echo "walk_files.sh: unknown path '$p'" >&2 && usage ;;
	esac
done
T=$(mktemp -d "${TMPDIR:-/tmp}/apiprof-walk.XXXXXX")
LOOP=
cleanup() {
	[ -z "$LOOP" ] || kill "$LOOP" 2>/dev/null || :
	[ -z "${WALK_KEEP:-}" ] || cp "$T"/cg.* "$WALK_KEEP"/ 2>/dev/null || :
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# files_of CG: the product files with cost in callgrind output CG, by the
# rule in this file's head, one a line, sorted.
files_of() {
	python3 - "$BUILD" "$1" <<'EOF'
import json, os, re, sys

build, out = sys.argv[1], sys.argv[2]
with open(os.path.join(build, "meson-info", "meson-info.json")) as f:
    src = json.load(f)["directories"]["source"]
src, build = os.path.realpath(src), os.path.realpath(build)
names, files, cur, ob, call = {}, set(), None, False, False


def name(kind, v):
    """An object's or a file's name, given once as "(id) name", later as "(id)"."""
    m = re.match(r"\((\d+)\)\s*(.*)", v)
    if not m:
        return v
    if m.group(2):
        names[kind, m.group(1)] = m.group(2)
    return names.get((kind, m.group(1)))


def ours(o):
    """Whether object o (a path) is one of BUILD's."""
    return bool(o) and os.path.realpath(o).startswith(build + "/")


def label(f):
    """f's name in the listing, or None when f is not a product file."""
    if not f or f == "???":  # no debug information: libgcc's helpers
        return None
    f = os.path.realpath(os.path.join(build, f))
    for root, prefix in ((build, "build/"), (src, "")):
        if f.startswith(root + "/"):
            rel = f[len(root) + 1:]
            if rel.split("/")[0] in ("tests", "bench"):
                return None
            return prefix + rel
    return None


for line in open(out, errors="replace"):
    key, eq, val = line.rstrip("\n").partition("=")
    if eq and key == "ob":
        ob = ours(name("o", val))
    elif eq and key == "cob":
        name("o", val)
    elif eq and key in ("fl", "fi", "fe"):
        cur = name("f", val)
    elif eq and key in ("cfi", "cfl", "jfi"):
        name("f", val)
    elif line.startswith("calls="):
        call = True
    elif line[:1].isdigit() or line[:1] in "+-*":
        if call:
            call = False
        elif ob and any(x.isdigit() and int(x) for x in line.split()[1:]):
            files.add(cur)
print("\n".join(sorted(filter(None, {label(f) for f in files}))))
EOF
}

# callgrind FN OUT PROGRAM...: execs PROGRAM under callgrind, collecting
# FN (run it in a subshell: its pid is then PROGRAM's).
callgrind() {
	fn=$1 out=$2
	shift 2
	exec valgrind --tool=callgrind --trace-children=yes --collect-atstart=no \
		--toggle-collect="$fn" --callgrind-out-file="$out" "$@" \
		>/dev/null 2>"$out.err"
}

# failed OUT: valgrind's messages for OUT, and a failure.
failed() {
	cat "$1.err" >&2
	return 1
}

# A program: one crc32 call (first), or crc32 in a loop until SIGTERM,
# then a return from main (loop).
programs() {
	cat >"$T/first.c" <<'EOF'
#include <stdio.h>
#include <zlib.h>
int main(void)
{
	printf("%lx\n", crc32(0L, (const Bytef *)"apiprof", 7));
	return 0;
}
EOF
	cat >"$T/loop.c" <<'EOF'
#include <signal.h>
#include <zlib.h>
static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }
int main(void)
{
	static const unsigned char b[256];
	unsigned long c = 0;
	signal(SIGTERM, on_term);
	while (!stop)
		c = crc32(c, b, sizeof(b));
	return c == 1;
}
EOF
	cc -O1 -o "$T/first" "$T/first.c" -lz
	cc -O1 -o "$T/loop" "$T/loop.c" -lz
}

has_segment() {
	for f in /dev/shm/apiprof-[0-9]*-"$1"-*; do
		[ ! -e "$f" ] || return 0
	done
	return 1
}

# Waits until process $1 has its segment (started under valgrind, it
# takes seconds); a bench's wait, not a test's synchronisation.
wait_segment() {
	i=0
	until has_segment "$1"; do
		i=$((i + 1))
		[ $i -lt 1200 ] || {
			echo "walk_files.sh: no segment for process $1" >&2
			return 1
		}
		sleep 0.1
	done
}

# Stops the loop with SIGTERM (it returns from main) and waits for it.
stop_loop() {
	kill -TERM "$LOOP"
	rc=0
	wait "$LOOP" || rc=$?
	LOOP=
	return $rc
}

walk_first() {
	(callgrind crc32 "$T/cg.first" \
		env LD_PRELOAD="$BUILD/specs/libapiprof-zlib.so" "$T/first") ||
		failed "$T/cg.first"
	files_of "$T/cg.first"
}

walk_flush() {
	(callgrind flush_all "$T/cg.flush" \
		env LD_PRELOAD="$BUILD/specs/libapiprof-zlib.so" "$T/loop") &
	LOOP=$!
	wait_segment "$LOOP"
	"$BUILD/top/apiprof-top" -b -n 3 -d 1 >"$T/top.out" 2>&1
	stop_loop || failed "$T/cg.flush"
	files_of "$T/cg.flush"
}

# The viewer's paths: apiprof-top under callgrind (FN $1) watching the loop.
walk_top() {
	LD_PRELOAD="$BUILD/specs/libapiprof-zlib.so" "$T/loop" &
	LOOP=$!
	wait_segment "$LOOP"
	(callgrind "$1" "$T/cg.$1" "$BUILD/top/apiprof-top" -b -n 3 -d 1) ||
		failed "$T/cg.$1"
	stop_loop
	files_of "$T/cg.$1"
}

walk_refresh() { walk_top top_watch_refresh; }

walk_reader() { walk_top top_seg_read; }

programs
for p in "$@"; do
	walk_"$p" >"$T/files"
	echo "== $p: $(grep -c . "$T/files") files"
	cat "$T/files"
done
