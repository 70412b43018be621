#!/bin/sh
# spec_files.sh RUNTIME DYNLIB AUDIT OUTDUMP TESTPROG SPEC
#
# What APIPROF_SPEC names is read before main, by the audit module and by
# the profiler.  A FIFO there must not stop the program: it runs
# unprofiled, with one line, and its exit status and output unchanged.
# More specs than the runtime has api ids (100 copies of one spec): the
# first ones are profiled with exact counts, and one line says how many
# were left out.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
runtime=$1 dynlib=$2 audit=$3 outdump=$4 prog=$5 spec=$6
skip_if_sanitized "$dynlib"
OUTDUMP=$outdump

# dyn TAG SPECS CMD...: CMD in dynamic mode with APIPROF_SPEC=SPECS, its
# stdout and stderr into $tmp/TAG.out and .err, its exit status into $st.
dyn() {
	tag=$1 specs=$2
	shift 2
	timeout -k 5 "$WATCHDOG" env LD_AUDIT="$audit" APIPROF_SPEC="$specs" \
		LD_PRELOAD="$runtime:$dynlib" APIPROF_OUTPUT="$tmp/out.json" "$@" \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
	if [ $st -eq 124 ] || [ $st -eq 137 ]; then
		fail "$tag: hang (watchdog ${WATCHDOG}s) before the program's end"
	fi
}

# one_line FILE TEXT: FILE is exactly one line, and it contains TEXT.
one_line() {
	n=$(wc -l <"$1")
	[ "$n" -eq 1 ] && grep -qF "$2" "$1" || {
		cat "$1"
		fail "want exactly one line with: $2"
	}
}

# A FIFO nobody writes: the program runs, unprofiled, status unchanged.
mkfifo "$tmp/fifo.json"
dyn fifo "$tmp/fifo.json" sh -c 'echo ran; exit 7'
[ $st -eq 7 ] || fail "FIFO spec: exit status $st, want 7"
[ "$(cat "$tmp/fifo.out")" = ran ] || fail "FIFO spec: the program's output changed"
one_line "$tmp/fifo.err" "apiprof: $tmp/fifo.json: not a regular file; not profiled"

# A FIFO next to a real spec: the real one is still counted exactly.
cp "$spec" "$tmp/s1.json"
"$prog" 2 1000 >"$tmp/bare.out"
dyn mix "$tmp/fifo.json:$tmp/s1.json" "$prog" 2 1000
[ $st -eq 0 ] || fail "FIFO and a spec: status $st"
cmp -s "$tmp/bare.out" "$tmp/mix.out" || fail "FIFO and a spec: output differs"
one_line "$tmp/mix.err" "apiprof: $tmp/fifo.json: not a regular file; not profiled"
[ "$(calls "$tmp/out.json" testlib.tl_add)" -eq 2007 ] ||
	fail "FIFO and a spec: tl_add counted $(calls "$tmp/out.json" testlib.tl_add), want 2007"

# 100 copies of one spec: 61 api ids; the first 61 are read, the rest not.
list=$tmp/s1.json
for i in $(seq 2 100); do
	cp "$spec" "$tmp/s$i.json"
	list=$list:$tmp/s$i.json
done
dyn many "$list" "$prog" 2 1000
[ $st -eq 0 ] || fail "100 specs: status $st"
cmp -s "$tmp/bare.out" "$tmp/many.out" || fail "100 specs: output differs"
one_line "$tmp/many.err" "apiprof: APIPROF_SPEC names 100 specs and at most 61 apis can be profiled: the first 61 are, the last 39 are not"
"$outdump" "$tmp/out.json" | grep -E 'tl_(add|div) ' | sort >"$tmp/got.txt"
{
	for w in 0 1; do
		echo "worker-$w testlib.tl_add 1000"
		echo "worker-$w testlib.tl_div 10"
	done
	echo "testprog testlib.tl_add 7"
} | sort >"$tmp/want.txt"
diff -u "$tmp/want.txt" "$tmp/got.txt" || fail "100 specs: counts (-want +got)"
echo "ok: a FIFO spec runs the program unprofiled in one line; 100 specs: 61 counted exactly, 39 left out in one line"
