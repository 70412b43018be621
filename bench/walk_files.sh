#!/bin/sh
# walk_files.sh BUILD [PATH] - the product files whose code runs on a
# path (docs/benchmarks.md "Files to follow a path"): callgrind with
# --collect-atstart=no --toggle-collect=FN counts the cost of FN and its
# callees only; the files with cost are listed, one a line, product
# files only (the generated shim as build/specs/shim_*.c; libc, libz and
# the loader are not ours).  An inline function's cost counts in the
# file that defines it, a header too.  BUILD is a build directory set up
# inside its source tree (build/ of a checkout).
# PATH: first (default), the process's first call: a program whose first
# call is crc32, under BUILD/specs/libapiprof-zlib.so, FN crc32.
# WALK_KEEP=1 keeps the scratch directory (callgrind's cg.out).
set -eu
# the runtime makes its segment in /dev/shm: a private one, as the tests
if [ -z "${WALK_FILES_NS:-}" ]; then
	WALK_FILES_NS=1 exec unshare -m --propagation private sh -c \
		'mount -t tmpfs tmpfs /dev/shm && exec "$0" "$@"' "$0" "$@"
fi
BUILD=$(cd "${1:?usage: walk_files.sh BUILD [first]}" && pwd)
WALK=${2:-first}
SRC=$(cd "$BUILD/.." && pwd) # the tree BUILD was set up from
T=$(mktemp -d)
trap '[ -n "${WALK_KEEP:-}" ] || rm -rf "$T"' EXIT
case $WALK in
first)
	cat >"$T/first.c" <<'C'
#include <stdio.h>
#include <zlib.h>
int main(void)
{
	uLong c = crc32(0L, (const Bytef *)"apiprof", 7);
	printf("%lx\n", c);
	return 0;
}
C
	cc -O1 -o "$T/first" "$T/first.c" -lz
	FN=crc32
	PRELOAD=$BUILD/specs/libapiprof-zlib.so
	;;
*)
	echo "walk_files.sh: unknown path '$WALK' (known: first)" >&2
	exit 2
	;;
esac
cd "$T"
LD_PRELOAD=$PRELOAD valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$FN" \
	--callgrind-out-file="$T/cg.out" "$T/$WALK" >/dev/null 2>"$T/vg.err" ||
	{ cat "$T/vg.err" >&2; exit 1; }
# ob= names the object and fl=/fi=/fe= the file of the cost lines that
# follow (each name given once as "(id) name", later as "(id)"); a file
# is ours when its object is one of BUILD's (a relative name is one of
# BUILD's generated files: the shim).
awk -v src="$SRC/" -v build="$BUILD/" '
function name(kind, s,   id, rest) {
	if (!match(s, /^\([0-9]+\)/))
		return s
	id = kind substr(s, 2, RLENGTH - 2)
	rest = substr(s, RLENGTH + 1)
	sub(/^ /, "", rest)
	if (rest != "")
		nm[id] = rest
	return nm[id]
}
/^ob=/ { ob = name("o", substr($0, 4)); next }
/^cob=/ { name("o", substr($0, 5)); next }
/^fl=/ { fl = cur = name("f", substr($0, 4)); next }
/^(fi|fe)=/ { cur = name("f", substr($0, 4)); next }
/^(cfl|cfi)=/ { name("f", substr($0, 5)); next }
/^fn=/ { cur = fl; next }
/^calls=/ { skip = 1; next }
/^[0-9+*-]/ {
	if (skip) { skip = 0; next }
	if (index(ob, build) == 1) cost[cur] = 1
	next
}
END {
	for (f in cost) {
		if (f !~ /^\//)
			f = build f
		while (sub(/\/\.\//, "/", f) || sub(/\/[^\/.][^\/]*\/\.\.\//, "/", f))
			;
		if (index(f, src) == 1)
			print substr(f, length(src) + 1)
	}
}' "$T/cg.out" | sort -u
