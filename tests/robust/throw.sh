#!/bin/sh
# throw.sh LIBAPIPROF SHIM THROWPROG THROWHOST THROWPLUG - C++ exceptions
# thrown by a callback through a profiled call (tl_apply) and caught above
# it: every call is counted, the abandoned ones with no time, as after a
# longjmp, and none after them is taken as nested in them; exceptions that
# abandon no call change nothing; one that nothing catches terminates the
# program as bare.  With libapiprof.so preloaded ahead of libstdc++, as
# apiprof-run does: its hooks see the exception.  The same code as a
# plugin that a C program dlopen()s with RTLD_LOCAL (libstdc++ in the
# plugin's own scope) counts the same.  THROW_DYNAMIC=1: SHIM is dynamic
# mode's, which does not know an abandoned call's row: it is not counted.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
rt=$1 shim=$2 prog=$3 host=$4 plug=$5
n=1000
dyn=${THROW_DYNAMIC:-0}
pl=$(shim_preload "$rt" "$shim")

# timed OUT.json FUNC: the timed calls of one function of testlib
timed() {
	jq '[.threads[].functions[] | select(.name == "'"$2"'") | .timed] | add // 0' "$1"
}

# expect TAG FUNC WANT WHY: the exact count of calls of testlib.FUNC
expect() {
	got=$(calls "$tmp/$1.json" "testlib.$2")
	[ "$got" -eq "$3" ] || fail "$1: $2: $got counted, want $3 ($4)"
}

# expect_timed TAG FUNC WANT: the same for the timed calls (full timing)
expect_timed() {
	got=$(timed "$tmp/$1.json" "$2")
	[ "$got" -eq "$3" ] || fail "$1: $2: $got timed, want $3 (the abandoned calls have no time)"
}

# run TAG MODE CMD...: one run compared with bare, its exact counts
run() {
	tag=$1 mode=$2
	shift 2
	export APIPROF_OUTPUT="$tmp/$tag.json"
	compare "$tag" "$pl" "$@"
	unset APIPROF_OUTPUT
	case $tag in
	*calls*) apply=$((2 * n + 1)) abandoned=$n add=$((2 * n + 1)) ;;
	*threads*) apply=$((4 * (2 * n + 1))) abandoned=$((4 * n)) add=$((4 * (2 * n + 1))) ;;
	*) apply=5 abandoned=2 add=4 ;;
	esac
	timed=$((apply - abandoned))
	[ "$dyn" = 1 ] && apply=$timed
	expect "$tag" tl_add $add "every call from a deeper frame after a catch counts"
	expect "$tag" tl_apply $apply "every call counts, $abandoned of them abandoned by an exception"
	if [ "$mode" = full ]; then
		expect_timed "$tag" tl_apply $timed
		expect_timed "$tag" tl_add $add
	fi
}

for mode in full sampled monotonic; do
	case $mode in
	full) ;;
	sampled) export APIPROF_SAMPLE=3 ;;
	monotonic) export APIPROF_CLOCK=monotonic ;;
	esac
	run $mode.calls $mode "$prog" calls $n
	run $mode.cases $mode "$prog" cases
	run $mode.threads $mode "$prog" threads $n
	run $mode.plugin.calls $mode "$host" "$plug" calls $n
	run $mode.plugin.cases $mode "$host" "$plug" cases
	unset APIPROF_SAMPLE APIPROF_CLOCK
done

# The runtime alone, in a C program: its lookups of the C++ runtime's
# functions, which fail here, leave dlerror() as bare (throwhost prints it).
compare runtime-only "$(shim_preload "$rt")" "$host" "$plug" cases

# Nothing catches it: std::terminate, the same status as bare (SIGABRT).
# No segment: a process that dies of SIGABRT leaves it behind, and the
# machine's /dev/shm is not this test's.
ulimit -c 0
export APIPROF_SHM=0
for how in terminate noexcept; do
	compare "$how" "$pl" "$prog" $how
	[ "$(cat "$tmp/$how.shim.st")" -eq 134 ] || fail "$how: status $(cat "$tmp/$how.shim.st"), want 134"
done
unset APIPROF_SHM
echo "ok: 2 x $((2 * n + 1)) calls counted around $n exceptions thrown through a profiled call, in every mode, from a program and a plugin"
