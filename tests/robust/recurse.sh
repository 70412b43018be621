#!/bin/sh
# recurse.sh SHIM RECURSE - a callback that calls the profiled function
# again (issue 34, point 4): tl_apply(cb, DEPTH), whose callback calls
# tl_apply again down to depth DEPTH, on a thread with a 2 MiB stack.  A
# call nested in one of its api is not counted, and the wrapper (in
# dynamic mode the stub's gate) jumps to the real function, so the
# recursion takes exactly bare's stack a level: it completes where bare
# does, at a depth where a frame of the wrapper or the closure a level
# overflowed the stack (SIGSEGV), with bare's results, and each outermost
# call counts once.  In full timing, sampled mode and with the monotonic
# clock.  SHIM "DYN": dynamic mode, through ../dyn/dyn_env.sh.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
depth=20000 kib=2048 outer=3
case $shim in
*:*) pl=$shim ;; # dynamic mode: dyn_env.sh skips a sanitizer build
*)
	if sanitized "$shim"; then
		skip "sanitizer build: built -O0 (no tail calls), with instrumented frames"
	fi
	pl=$(shim_preload "$shim")
	;;
esac

# level FILE: the stack a level of the recursion took, as the program says.
level() {
	sed -n 's/^bytes a level: //p' "$1"
}

env -u LD_PRELOAD -u LD_AUDIT -u APIPROF_SPEC "$prog" $depth $kib $outer \
	>"$tmp/bare.out" 2>"$tmp/bare.err" </dev/null
st=$?
[ $st -eq 0 ] || fail "bare: status $st: $(cat "$tmp/bare.err")"
bare=$(level "$tmp/bare.out")
grep '^result: ' "$tmp/bare.out" >"$tmp/bare.res"
[ "$(grep -c "^result: $((depth + 1))$" "$tmp/bare.res")" -eq $outer ] ||
	fail "bare: results $(tr '\n' ' ' <"$tmp/bare.res")"
echo "bare: depth $depth on a $kib KiB stack, $bare bytes a level"

# run TAG ENV...: the program under the shim with ENV, into $tmp/TAG.*.
run() {
	tag=$1
	shift
	APIPROF_OUTPUT="$tmp/$tag.json" wd env "$@" LD_PRELOAD="$pl" "$prog" $depth $kib $outer \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
	[ $st -eq 0 ] || fail "$tag: status $st (bare: 0): $(cat "$tmp/$tag.out" "$tmp/$tag.err")"
	grep '^result: ' "$tmp/$tag.out" | cmp -s - "$tmp/bare.res" ||
		fail "$tag: results $(grep '^result: ' "$tmp/$tag.out" | tr '\n' ' '), bare's differ"
	got=$(level "$tmp/$tag.out")
	[ "$got" -eq "$bare" ] || fail "$tag: $got bytes of stack a level, $bare bare"
	n=$(calls "$tmp/$tag.json" testlib.tl_apply)
	[ "$n" -eq $outer ] || fail "$tag: $n calls of tl_apply counted, $outer outermost calls made"
	echo "ok: $tag: completes, $got bytes a level as bare, $n calls counted"
}

run full APIPROF_SAMPLE=0
run sampled APIPROF_SAMPLE=64
run monotonic APIPROF_CLOCK=monotonic
