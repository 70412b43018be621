#!/bin/sh
# stack_usage.sh CC BOUND SANITIZE CFLAGS... -- SOURCES... - the stack each
# function of the runtime takes, as CC -fstack-usage measures it compiling
# SOURCES with the build's CFLAGS (issue 20, point 8).  Every function a
# program's thread may run, at exit, at exec, in a signal handler or in a
# call, must take at most BOUND bytes, with no unbounded dynamic part (a
# VLA or alloca).  Exempt: what only runs on the flusher thread, on its own
# 256 KiB stack in the runtime's .bss.  Prints the largest frames.
set -u
cc=$1 bound=$2 sanitize=$3
shift 3
fail() { echo "FAIL: $*"; exit 1; }
if [ "$sanitize" != none ]; then
	echo "SKIP: -Db_sanitize=$sanitize: sanitizers make every frame larger"
	exit 77
fi
# apiprof_inflight.c copies a thread's TLS block and stack words: flusher passes only
flusher_only='^(flusher_main|flusher_go_on|wait_for_reader|interval_sleep|apiprof_inflight_scan|inflight_inline_row)$'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

flags=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	flags="$flags $1"
	shift
done
shift
for src in "$@"; do
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086 # flags are words
	"$cc" $flags -I"$(dirname "$src")" -fstack-usage -c "$src" -o "$tmp/$name.o" ||
		fail "cannot compile $src"
done

# file:line:col:function <TAB> bytes <TAB> static|dynamic|dynamic,bounded.
# The file is the .su file's (an interposer of a libc function is placed
# at libc's declaration).
rows=$(cd "$tmp" && awk -F '\t' '{
	n = split($1, a, ":"); f = FILENAME; sub(/\.su$/, ".c", f)
	print $2, $3, f ":" a[n] }' ./*.su | sed 's|\./||' | sort -n -r)
[ "$(printf '%s\n' "$rows" | grep -c .)" -ge 100 ] || fail "too few functions measured"
echo "largest frames (bytes, kind, function):"
printf '%s\n' "$rows" | head -n 8 | sed 's/^/  /'
bad=$(printf '%s\n' "$rows" | while read -r bytes kind where; do
	printf '%s\n' "${where##*:}" | grep -Eq "$flusher_only" && continue
	if [ "$bytes" -gt "$bound" ] || [ "$kind" = dynamic ]; then
		echo "$where: $bytes bytes ($kind)"
	fi
done)
[ -z "$bad" ] || fail "over $bound bytes of stack:
$bad"
echo "ok: $(printf '%s\n' "$rows" | grep -c .) functions, none over $bound bytes"
