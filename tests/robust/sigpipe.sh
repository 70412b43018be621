#!/bin/sh
# sigpipe.sh RUNTIME SHIM SMALLSTACK CALLS LAUNCH - the runtime's own writes
# never raise SIGPIPE in the program (issue 20, point 10).  With stderr a
# pipe whose reader is gone (or a socket whose peer is), APIPROF_SUMMARY=1
# and a warning at a failed exec: the program exits with its own status
# and output; a SIGPIPE it blocked and made pending itself is still pending
# after the runtime wrote, and one the runtime raised is not.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
runtime=$1 shim=$2 small=$3 prog=$4 launch=$5
pl=$(shim_preload "$runtime" "$shim")
export APIPROF_SUMMARY=1

# same TAG HOW ARGS...: the program, through `launch HOW`, bare and under
# the runtime: the same status and the same stdout.
same() {
	tag=$1 fd2=$2
	shift 2
	env -u APIPROF_SUMMARY "$launch" "$fd2" "" "$@" >"$tmp/$tag.bare.out" 2>/dev/null </dev/null
	bare=$?
	wd "$launch" "$fd2" "$pl" "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
	[ $st -eq $bare ] || fail "$tag: status $st, bare $bare: $(cat "$tmp/$tag.err")"
	cmp -s "$tmp/$tag.bare.out" "$tmp/$tag.out" ||
		fail "$tag: output '$(cat "$tmp/$tag.out")', bare '$(cat "$tmp/$tag.bare.out")'"
}

same pipe brokenpipe "$prog" 1000
[ "$bare" -eq 0 ] || fail "pipe: the bare run exited $bare"
echo "ok: the summary into a pipe with no reader: status 0, output unchanged"
same sock brokensock "$prog" 1000
echo "ok: the summary into a socket with no peer: status 0, output unchanged"

# A failed exec writes APIPROF_OUTPUT (into a missing directory: a warning)
# and the program goes on; then it looks at its pending signals.
export APIPROF_OUTPUT="$tmp/nodir/out.json"
for how in open blocked own; do
	same "check-$how" brokenpipe "$small" pipecheck 100 $how
	[ "$bare" -eq 7 ] || fail "check-$how: the bare run exited $bare"
	echo "ok: SIGPIPE $how: $(tail -n 1 "$tmp/check-$how.out"), status 7 as bare"
done
