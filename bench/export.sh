#!/bin/sh
# bench/export.sh - the cost of apiprof-top's Prometheus exporter (issue 25).
#
#   bench/export.sh [BUILD_DIR [PID]]     (BUILD_DIR: build)
#
# The load is the viewer's (bench/run.sh): bench_driver's 200 threads each
# calling 50 functions of bm1000 under its shim, 10,000 live thread x
# function pairs; PID is such a load already running (bench/run.sh passes
# its own), else one is started here.  The exporter watches it (-p PID)
# and is scraped with curl every 15 s; the figure is its CPU time (utime +
# stime from /proc) over the 60 s of four scrapes after a first one (the
# first reads the whole ring, and start-up is in it), as a share of one
# core.  Prints Markdown table rows on stdout.  Never fails on a number.
set -eu

BUILD=$(cd "${1:-build}" && pwd)
LOAD=${2:-}
TMP=$(mktemp -d)
OWN=
cleanup() {
	if [ -n "$OWN" ]; then
		kill "$OWN" 2>/dev/null || :
		wait "$OWN" 2>/dev/null || : # killed: its status is not ours
		# SIGTERM ran no exit path, so its segment is still there.
		"$BUILD/top/apiprof-top" --clean >/dev/null 2>&1 || :
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ -z "$LOAD" ]; then
	APIPROF_RING_RECORDS=16384 LD_PRELOAD="$BUILD/bench/libapiprof-bm1000.so" \
		"$BUILD/bench/bench_driver" -t m50 -T 200 -n 2000000000 -r 1 -P 10000 \
		>/dev/null 2>&1 </dev/null &
	OWN=$!
	LOAD=$OWN
	i=0
	while [ $i -lt 200 ] && ! ls /dev/shm/apiprof-"$(id -u)"-$LOAD-* >/dev/null 2>&1; do
		i=$((i + 1))
		sleep 0.05
	done
	sleep 2 # every thread running and flushed once
fi

HZ=$(getconf CLK_TCK)
cpu_s() { awk -v hz="$HZ" '{ print ($14 + $15) / hz }' "/proc/$1/stat"; }
now_s() { date +%s.%N; }

# cost ARGS...: "share bytes" of one exporter run with ARGS.
cost() {
	"$BUILD/top/apiprof-top" --listen 127.0.0.1:0 --all-users -p "$LOAD" "$@" 2>"$TMP/err" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q serving "$TMP/err"; do
		i=$((i + 1))
		sleep 0.1
	done
	url=$(sed -n 's/.*serving //p' "$TMP/err")
	curl -s "$url" >"$TMP/text"
	c0=$(cpu_s $pid) w0=$(now_s)
	for n in 1 2 3 4; do
		sleep 15
		curl -s "$url" >"$TMP/text"
	done
	c1=$(cpu_s $pid) w1=$(now_s)
	kill $pid
	wait $pid || :
	echo "$c0 $c1 $w0 $w1 $(wc -c <"$TMP/text") $(grep -c '^apiprof_calls_total{' "$TMP/text")" |
		awk '{ printf "%.2f%% %.3f %d %d", 100 * ($2 - $1) / ($4 - $3), $2 - $1, $5, $6 }'
}

echo "| exporter, scraped every 15 s | calls series | text bytes | CPU s over 60 s | share of one core |"
echo "|---|--:|--:|--:|--:|"
for v in d1 d15 thread; do
	case $v in
	d1) set -- "$(cost -d 1)" && d="--listen, -d 1 (default): summed per command" ;;
	d15) set -- "$(cost -d 15)" && d="--listen, -d 15: one read per scrape" ;;
	thread) set -- "$(cost -d 1 --per-thread)" && d="--listen --per-thread, -d 1" ;;
	esac
	set -- $1
	echo "| $d | ${4:-NA} | ${3:-NA} | ${2:-NA} | ${1:-NA} |"
done
