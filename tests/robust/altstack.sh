#!/bin/sh
# altstack.sh LIBAPIPROF SHIM ALTPROG - a signal handler on an alternate
# stack, mapped above or below the thread's stack, that calls the api
# while the thread is inside it (nested: not counted) and between calls
# (counted), then siglongjmps out of a call: the same exact counts for
# both placements.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
rt=$1 shim=$2 prog=$3
n=500

for mode in full sampled; do
	for where in above below; do
		tag=$mode.$where
		export APIPROF_OUTPUT="$tmp/$tag.json"
		[ $mode = sampled ] && export APIPROF_SAMPLE=3
		compare "$tag" "$(shim_preload "$rt" "$shim")" "$prog" $where $n
		unset APIPROF_SAMPLE
		grep -q "handled $((2 * n + 1))\$" "$tmp/$tag.shim.out" ||
			fail "$tag: the handler did not run $((2 * n + 1)) times: $(cat "$tmp/$tag.shim.out")"
		add=$(calls "$tmp/$tag.json" testlib.tl_add)
		apply=$(calls "$tmp/$tag.json" testlib.tl_apply)
		[ "$add" -eq $((2 * n + 1)) ] ||
			fail "$tag: tl_add: $add counted, want $((2 * n + 1)) (the handler's $n outside calls, $n + 1 of the thread)"
		[ "$apply" -eq $((n + 1)) ] ||
			fail "$tag: tl_apply: $apply counted, want $((n + 1)) (the last abandoned by the handler's jump)"
	done
done
echo "ok: alternate stack above and below the thread's: $((2 * n + 1)) tl_add and $((n + 1)) tl_apply both times"
