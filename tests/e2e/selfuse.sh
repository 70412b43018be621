#!/bin/sh
# selfuse.sh RUNTIME SHIM PROG - a shim of the runtime's own functions: no
# hang, no recursion, and exactly the program's calls counted.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 shim=$2 prog=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip_if_sanitized "$shim" "ASan intercepts these very functions ahead of the shim"
n=2000
for pre in "$(shim_preload "$shim")" "$(shim_preload "$runtime" "$shim")"; do
	timeout 60 env APIPROF_INTERVAL_MS=1 APIPROF_OUTPUT="$tmp/o.json" LD_PRELOAD="$pre" \
		"$prog" $n >"$tmp/out"
	grep -qx "selfuse: $((4 * n)) bytes written" "$tmp/out"
	"$OUTDUMP" -t "$tmp/o.json" | awk '$1 != "dropped" { print $3, $4 }' | sort | uniq -c |
		awk '{ print $1, $2, $3 }' | sort >"$tmp/got"
	{
		for f in clock_gettime mmap munmap pthread_mutex_lock pthread_mutex_unlock write; do
			echo "4 selfuse.$f $n"
		done
		echo "1 selfuse.pthread_key_create 3"
		echo "1 selfuse.shm_open 1"
	} | sort >"$tmp/want"
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "FAIL: counts (threads function calls), want vs got:"
		diff "$tmp/want" "$tmp/got" || true
		exit 1
	fi
done
echo "ok: the runtime's own calls pass through uncounted, the program's are exact"
