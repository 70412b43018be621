#!/bin/sh
# build_under.sh APIPROF_RUN SHIM... - make and gcc building a small program
# under the malloc and posix_io shims (through apiprof-run, so every child
# process, make's and gcc's, inherits them): the build succeeds, the result
# runs, and each profiled process writes its own numbers.
set -u
. "$(dirname "$0")/../lib.sh"
run=$1
shift
skip_if_sanitized "$1"
need make make
need cc gcc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$tmp/src"
cat >"$tmp/src/hello.c" <<'C'
#include <stdio.h>
int main(void) { puts("hello from a profiled build"); return 0; }
C
printf 'hello: hello.c\n\tcc -O1 -o hello hello.c\n' >"$tmp/src/Makefile"

"$run" -q -s malloc,posix_io -o "$tmp/out-%p.json" -- make -s -C "$tmp/src" >"$tmp/make.out" 2>&1 ||
	fail "make under the shims: $(cat "$tmp/make.out")"
[ "$("$tmp/src/hello")" = "hello from a profiled build" ] || fail "the built program"
n=0
for f in "$tmp"/out-*.json; do
	c=$("$OUTDUMP" "$f" | awk '$2 ~ /^(malloc|posix_io)[.]/ { n += $3 } END { print n + 0 }')
	[ "$c" -gt 0 ] && n=$((n + 1))
done
# make, the gcc driver, cc1, as, collect2 and ld at least.
[ $n -ge 4 ] || fail "only $n profiled processes with calls"
echo "ok: make + gcc under the shims; $n processes profiled"
