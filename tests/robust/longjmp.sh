#!/bin/sh
# longjmp.sh LIBAPIPROF SHIM JMPPROG JMPPROG_CHK - a callback that jumps out
# of a profiled call: every call after it is counted (none is taken as
# nested in the abandoned one), and the abandoned call counts as a call
# with no time; a jump that stays inside a call ends nothing.  With libapiprof.so preloaded ahead of libc, as
# apiprof-run does: its longjmp hooks see the jump.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
rt=$1 shim=$2 prog=$3 chk=$4
need jq jq
n=1000

# timed OUT.json FUNC: the timed calls of one function of testlib
timed() {
	jq '[.threads[].functions[] | select(.name == "'"$2"'") | .timed] | add // 0' "$1"
}

# check TAG MODE PROG HOW: one run, its exact counts
check() {
	tag=$1 mode=$2
	shift 2
	compare "$tag" "$(shim_preload "$rt" "$shim")" "$@" $n
	add=$(calls "$tmp/$tag.json" testlib.tl_add)
	apply=$(calls "$tmp/$tag.json" testlib.tl_apply)
	[ "$add" -eq $((2 * n)) ] || fail "$tag: tl_add: $add counted, want $((2 * n))"
	[ "$apply" -eq 2 ] || fail "$tag: tl_apply: $apply counted, want 2 (one of them abandoned)"
	if [ "$mode" = full ]; then
		[ "$(timed "$tmp/$tag.json" tl_apply)" -eq 1 ] ||
			fail "$tag: tl_apply: $(timed "$tmp/$tag.json" tl_apply) timed, want 1 (the abandoned call has no time)"
		[ "$(timed "$tmp/$tag.json" tl_add)" -eq $((2 * n)) ] ||
			fail "$tag: tl_add: $(timed "$tmp/$tag.json" tl_add) timed, want $((2 * n))"
	fi
}

# The fortified build must have turned longjmp into __longjmp_chk.
nm -D "$chk" | grep -q ' U __longjmp_chk' || fail "$chk does not call __longjmp_chk"
for mode in full sampled monotonic; do
	for how in longjmp _longjmp siglongjmp chk; do
		p=$prog tag=$mode.$how
		if [ $how = chk ]; then
			p=$chk how=longjmp
		fi
		case $mode in
		full) set -- ;;
		sampled) set -- APIPROF_SAMPLE=3 ;;
		monotonic) set -- APIPROF_CLOCK=monotonic ;;
		esac
		export APIPROF_OUTPUT="$tmp/$tag.json"
		for a in "$@"; do export "$a"; done
		check "$tag" $mode "$p" $how
		unset APIPROF_SAMPLE APIPROF_CLOCK
	done
done
echo "ok: 2 x $n calls counted after a jump out of a callback, the abandoned call with no time, in every mode and by every jump"
