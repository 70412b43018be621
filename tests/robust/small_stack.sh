#!/bin/sh
# small_stack.sh RUNTIME SHIM SMALLSTACK - the ends of an image on small
# stacks (issue 20, point 8), with the runtime preloaded ahead of libc (its
# exit and exec hooks) and APIPROF_OUTPUT and APIPROF_SUMMARY on: exit()
# from a thread with a PTHREAD_STACK_MIN stack; _exit() from a SIGSEGV
# handler on an 8 KiB alternate stack (the classic SIGSTKSZ, a guard page
# below it); execl() from a thread with a 32 KiB stack; execl() with 5000
# arguments.  Each ends as it does bare, with every call in the profile.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
runtime=$1 shim=$2 prog=$3
n=100
pl=$(shim_preload "$runtime" "$shim")
if sanitized "$shim"; then
	skip "sanitizer build: instrumented frames are several times larger"
fi
export APIPROF_SUMMARY=1

# run TAG WANT_STATUS WANT_STDOUT ARGS...: under the runtime, into $tmp/TAG.*.
run() {
	tag=$1 want=$2 out=$3
	shift 3
	APIPROF_OUTPUT="$tmp/$tag.json" wd env LD_PRELOAD="$pl" "$prog" "$@" \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
	[ $st -eq "$want" ] || fail "$tag: status $st, want $want: $(cat "$tmp/$tag.err")"
	[ "$(cat "$tmp/$tag.out")" = "$(printf "$out")" ] ||
		fail "$tag: output '$(cat "$tmp/$tag.out")', want '$(printf "$out")'"
}

# profiled TAG FILE CALLS: FILE holds CALLS calls of tl_add.
profiled() {
	got=$(calls "$2" testlib.tl_add)
	[ "$got" -eq "$3" ] || fail "$1: $got calls in $2, $3 made"
}

# summed TAG: the summary reached stderr, with the tl_add row.
summed() {
	grep -q '^apiprof: pid ' "$tmp/$1.err" && grep -q 'testlib\.tl_add$' "$tmp/$1.err" ||
		fail "$1: no summary on stderr: $(cat "$tmp/$1.err")"
}

run thread-exit 5 "calls: $n" thread-exit $n
profiled thread-exit "$tmp/thread-exit.json" $((n + 1))
summed thread-exit
echo "ok: exit() from a PTHREAD_STACK_MIN thread"

run altstack 6 "calls: $n" altstack $n 8192
profiled altstack "$tmp/altstack.json" $n
summed altstack
echo "ok: _exit() from a SIGSEGV handler on an 8 KiB alternate stack"

run thread-execl 0 "calls: $n\nargc: 3" thread-execl $n
profiled thread-execl "$tmp/thread-execl.json.exec1" $n
echo "ok: execl() from a thread with a 32 KiB stack"

run execl-many 0 "calls: $n\nargc: 5002" execl-many $n
profiled execl-many "$tmp/execl-many.json.exec1" $n
echo "ok: execl() with 5000 arguments"
