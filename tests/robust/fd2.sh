#!/bin/sh
# fd2.sh SHIM SMALLSTACK - the runtime writes to the program's stderr as it
# was at start-up, never to whatever fd 2 is later (issue 20, point 11).  A
# program that closes fd 2 and opens a data file there keeps its data file
# as it was, and the summary reaches the original stderr; `ls`, whose
# gnulib close_stdout closes fd 2 before exit, prints its summary.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
pl=$(shim_preload "$shim")
export APIPROF_SUMMARY=1

printf 'DATA\n' >"$tmp/data"
wd env LD_PRELOAD="$pl" "$prog" closefd2 100 "$tmp/data" >"$tmp/c.out" 2>"$tmp/c.err" </dev/null
st=$?
[ $st -eq 0 ] || fail "closefd2: status $st: $(cat "$tmp/c.err")"
[ "$(cat "$tmp/data")" = DATA ] || fail "closefd2: the data file on fd 2 was written: $(cat "$tmp/data")"
grep -q '^apiprof: pid ' "$tmp/c.err" && grep -q 'testlib\.tl_add$' "$tmp/c.err" ||
	fail "closefd2: no summary on the original stderr: '$(cat "$tmp/c.err")'"
echo "ok: fd 2 reopened on a data file: the data file is untouched, the summary on stderr"

skip_if_sanitized "$shim"
need ls coreutils
ls=$(command -v ls)
mkdir "$tmp/dir" && touch "$tmp/dir/a" "$tmp/dir/b"
"$ls" "$tmp/dir" >"$tmp/ls.bare" 2>&1 || fail "bare ls failed"
wd env LD_PRELOAD="$pl" "$ls" "$tmp/dir" >"$tmp/ls.out" 2>"$tmp/ls.err" </dev/null
st=$?
[ $st -eq 0 ] || fail "ls: status $st: $(cat "$tmp/ls.err")"
cmp -s "$tmp/ls.bare" "$tmp/ls.out" || fail "ls: output differs: $(cat "$tmp/ls.out")"
[ "$(grep -c '^apiprof: pid [0-9]* (ls), clock ' "$tmp/ls.err")" -eq 1 ] ||
	fail "ls: no summary (close_stdout closed fd 2): '$(cat "$tmp/ls.err")'"
echo "ok: ls closes fd 2 before exit: its summary is printed all the same"
