#!/bin/sh
# sighelper.sh SHIM SIGHELPER - the runtime's flusher thread blocks every
# signal and never takes one of the program's.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2

for ms in 1 200; do
	APIPROF_INTERVAL_MS=$ms compare "sig$ms" "$(shim_preload "$shim")" "$prog" 20000
	cat "$tmp/sig$ms.shim.err"
	# Not vacuous: the flusher was there to be checked.
	grep -qx "helper apiprof-flush blocks all" "$tmp/sig$ms.shim.err" ||
		fail "interval $ms: no flusher thread found"
done
echo "ok: $(cat "$tmp/sig1.shim.out"); the flusher blocks every signal"
