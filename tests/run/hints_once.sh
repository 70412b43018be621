#!/bin/sh
# hints_once.sh APIPROF_RUN
#
# What every process of a run would say alike is said once, by the process
# apiprof-run started, and -q silences it (issue 35.6): a shell loop of 50
# `true` under `apiprof-run -s sqlite3` said "libsqlite3.so.0 was never
# loaded" 50 times, and dynamic mode repeated the spec's notes in every
# process.  The program's output and status stay its own.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1
skip_if_sanitized "$run"
loop='i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i + 1)); done; echo done'

# launch TAG ARGS...: apiprof-run ARGS... -- sh -c LOOP, stderr in $tmp/TAG
launch() {
	tag=$1
	shift
	wd "$run" "$@" -- sh -c "$loop" >"$tmp/$tag.out" 2>"$tmp/$tag" </dev/null
	[ "$st" -eq 0 ] || fail "$tag: status $st: $(cat "$tmp/$tag")"
	[ "$(cat "$tmp/$tag.out")" = done ] || fail "$tag: the loop's output changed"
}

launch gen -s sqlite3
n=$(grep -c 'was never loaded' "$tmp/gen")
[ "$n" -eq 1 ] || fail "the hint was said $n times, not once: $(sort "$tmp/gen" | uniq -c)"
[ "$(wc -l <"$tmp/gen")" -eq 1 ] || fail "more than the hint on stderr: $(cat "$tmp/gen")"
grep -q 'libsqlite3.so.0 was never loaded by sh (pid [0-9]*), which started other processes' \
	"$tmp/gen" || fail "the hint does not say that sh started others: $(cat "$tmp/gen")"
launch genq -q -s sqlite3
[ ! -s "$tmp/genq" ] || fail "-q: stderr is not empty: $(sort "$tmp/genq" | uniq -c)"
echo "ok: generated shim: the hint once in a loop of 50, none with -q"

# Dynamic mode: the spec's notes (its variadic functions skipped) too.
launch dyn --dynamic -s sqlite3
notes=$(grep -c ': note: ' "$tmp/dyn")
[ "$notes" -gt 0 ] || fail "dynamic mode said no note: $(cat "$tmp/dyn")"
dups=$(sort "$tmp/dyn" | uniq -d | wc -l)
[ "$dups" -eq 0 ] || fail "dynamic mode repeated lines: $(sort "$tmp/dyn" | uniq -c)"
n=$(grep -c 'was never loaded' "$tmp/dyn")
[ "$n" -eq 1 ] || fail "dynamic mode: the hint was said $n times, not once"
launch dynq -q --dynamic -s sqlite3
[ ! -s "$tmp/dynq" ] || fail "-q --dynamic: stderr is not empty: $(sort "$tmp/dynq" | uniq -c)"
echo "ok: dynamic mode: $notes notes and the hint once each in a loop of 50, none with -q"

# A program that starts nothing says it in the words it always did.
wd "$run" -s sqlite3 -- /bin/true 2>"$tmp/one" </dev/null
[ "$st" -eq 0 ] || fail "true: status $st"
want='apiprof: sqlite3: libsqlite3.so.0 was never loaded; is the program static, or the library named differently?'
[ "$(cat "$tmp/one")" = "$want" ] || fail "true alone: $(cat "$tmp/one")"
echo "ok: a program that starts nothing: the one line as before"
