#!/bin/sh
# bench/dormant.sh - what APIPROF_MODE=off at start costs a fleet (issue
# 37): a shell loop of 1000 /bin/true, bare, under a pass-through preload,
# dormant (libapiprof.so and the zlib shim preloaded, APIPROF_MODE=off),
# and started at start (the same with APIPROF_MODE=full: /bin/true makes
# no zlib call, so this is what off cost before it was dormant: clock,
# /proc, segment, flusher thread, and their teardown).
#
#   bench/dormant.sh [-r ROUNDS] [BUILD_DIR]   (BUILD_DIR: build, built)
#
# Each round runs every variant once, in turn (wall clock of the whole
# loop); a figure is the median over rounds of the variant's time over
# bare's in the same round, so that the machine's load drifts out.
# Prints Markdown.  Nothing here passes or fails.
set -eu

ROUNDS=11
while getopts r: opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	*)
		echo "usage: bench/dormant.sh [-r ROUNDS] [BUILD_DIR]" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
BUILD=$(cd "${1:-build}" && pwd)
RT=$BUILD/preload/libapiprof.so.0
SHIM=$BUILD/specs/libapiprof-zlib.so
PASS=$BUILD/bench/libbench_ref_passthrough.so
TMP=$(mktemp -d "${TMPDIR:-/tmp}/apiprof-dormant.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
unset APIPROF_OUTPUT APIPROF_SUMMARY APIPROF_SHM APIPROF_INTERVAL_MS LD_PRELOAD 2>/dev/null || :
LOOP='i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done'

# The loop's wall time in microseconds under variant $1.
run() {
	t0=$(date +%s%N)
	case $1 in
	bare) sh -c "$LOOP" ;;
	pass) LD_PRELOAD=$PASS sh -c "$LOOP" ;;
	dormant) LD_PRELOAD=$RT:$SHIM APIPROF_MODE=off sh -c "$LOOP" ;;
	started) LD_PRELOAD=$RT:$SHIM APIPROF_MODE=full APIPROF_QUIET=1 sh -c "$LOOP" 2>/dev/null ;;
	esac
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

r=0
while [ $r -lt "$ROUNDS" ]; do
	for v in bare pass dormant started; do
		echo "$r $v $(run $v)" >>"$TMP/times"
	done
	r=$((r + 1))
done

echo "## Dormant off: 1000 /bin/true under sh: $(date -u '+%Y-%m-%d %H:%M') UTC"
echo
echo "\`bench/dormant.sh -r $ROUNDS\`, $ROUNDS interleaved rounds; the loop:"
echo "\`$LOOP\`; the preload: \`libapiprof.so.0:libapiprof-zlib.so\`."
echo
awk '
	{ t[$1, $2] = $3; rounds[$1] = 1 }
	function median(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		print "| variant | median ms | median ratio to bare |"
		print "|---|---:|---:|"
		split("bare pass dormant started", vs, " ")
		label["bare"] = "bare"; label["pass"] = "pass-through preload"
		label["dormant"] = "APIPROF_MODE=off (dormant)"
		label["started"] = "started at start (APIPROF_MODE=full; off before dormancy)"
		for (k = 1; k <= 4; k++) {
			v = vs[k]; n = 0
			for (r in rounds) { n++; ms[n] = t[r, v] / 1000; ra[n] = t[r, v] / t[r, "bare"] }
			m = median(ms, n); q = median(ra, n)
			printf "| %s | %.0f | %.3f |\n", label[v], m, q
		}
	}' "$TMP/times"
