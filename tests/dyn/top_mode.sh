#!/bin/sh
# top_mode.sh RUNTIME DYNLIB AUDIT SPEC APIPROF_TOP TESTPROG
#
# A process profiled in dynamic mode says so: its segment's mode is 1,
# which apiprof-top shows as "dyn" on the process line (and 1 in --json).
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 dynlib=$2 audit=$3 spec=$4 top=$5 prog=$6
skip_if_sanitized "$dynlib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -z "${seg:-}" ] || rm -f "$seg"' EXIT

APIPROF_KEEP_SHM=1 APIPROF_OUTPUT="$tmp/out.json" LD_AUDIT="$audit" APIPROF_SPEC="$spec" \
	LD_PRELOAD="$runtime:$dynlib" "$prog" 1 10 >/dev/null
pid=$(sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$tmp/out.json")
set -- /dev/shm/apiprof-"$(id -u)"-"$pid"-*
seg=$1
[ -f "$seg" ] || { echo "FAIL: no segment for pid $pid"; exit 1; }
"$top" -b -n 1 -p "$pid" --linger 3600 >"$tmp/top.txt"
grep -q "^PID $pid .* dyn " "$tmp/top.txt" || { echo "FAIL: no dyn mode shown"; cat "$tmp/top.txt"; exit 1; }
"$top" --json -n 1 -p "$pid" --linger 3600 | grep -q '"interposer":"dyn",' ||
	{ echo "FAIL: --json interposer is not dyn"; exit 1; }
echo "ok: apiprof-top shows the process in dyn mode"
