#!/bin/sh
# bench/startup.sh - what starting a process costs under apiprof (issue
# 35.6): a shim whose library the process never loads, and apiprof-run's
# own work before the exec.
#
#   bench/startup.sh [-r ROUNDS] [BUILD_DIR]   (BUILD_DIR: build, built)
#
# Prints Markdown on stdout; bench/run.sh includes it.  Each round runs
# every variant once, in turn, with bench_timecmd (wall clock, and the CPU
# time of the process and its children); a figure is the median over
# rounds of the variant minus its baseline in the same round, so that the
# machine's load drifts out.  A shim's cost is against `env true` (the
# variant runs `env LD_PRELOAD=... true`); apiprof-run's against the same
# preload without it, so the difference is the launcher's own work: its
# checks, the shim cache's manifest, the probe.  Nothing here passes or
# fails.
set -eu

ROUNDS=21
while getopts r: opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	*)
		echo "usage: bench/startup.sh [-r ROUNDS] [BUILD_DIR]" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-build}" && pwd)
TIMECMD=$BUILD/bench/bench_timecmd
RUN=$BUILD/run/apiprof-run
RT=$BUILD/preload/libapiprof.so
DYN=$BUILD/preload/dyn
T=/bin/true
TMP=$(mktemp -d "${TMPDIR:-/tmp}/apiprof-startup.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
export APIPROF_CACHE="$TMP/cache"
unset APIPROF_OUTPUT APIPROF_SUMMARY LD_PRELOAD LD_AUDIT 2>/dev/null || :

# one NAME CMD...: one run, its "wall_ms cpu_ms" appended to $TMP/NAME
one() {
	n=$1
	shift
	"$TIMECMD" -- "$@" 2>/dev/null |
		awk '$1 == "wall_s" { printf "%.3f %.3f\n", $2 * 1000, $4 * 1000 }' >>"$TMP/$n"
}

# The user spec: the bench library's, built once (cold), then reused.
USPEC=$SRC/bench/benchlib.json
cold=$("$TIMECMD" -- "$RUN" -q -s "$USPEC" -- $T 2>/dev/null |
	awk '$1 == "wall_s" { printf "%.0f ms wall, %.0f ms CPU", $2 * 1000, $4 * 1000 }')
SHIMS="$BUILD/specs/libapiprof-sqlite3.so"
DYNENV="LD_PRELOAD=$RT:$DYN/libapiprof-dyn.so LD_AUDIT=$DYN/libapiprof-dyn-audit.so APIPROF_SPEC=$SRC/specs/sqlite3.json"

i=0
while [ $i -lt "$ROUNDS" ]; do
	i=$((i + 1))
	one bare $T
	one sqlite3 env LD_PRELOAD="$SHIMS" $T
	one bm1 env LD_PRELOAD="$BUILD/bench/libapiprof-bm1.so" $T
	one bm1000 env LD_PRELOAD="$BUILD/bench/libapiprof-bm1000.so" $T
	one env env $T
	one pre env LD_PRELOAD="$RT:$SHIMS" $T
	one run "$RUN" -q -s sqlite3 -- $T
	one upre env LD_PRELOAD="$RT:$(ls "$TMP"/cache/libapiprof-*.so 2>/dev/null | head -n 1)" $T
	one urun "$RUN" -q -s "$USPEC" -- $T
	one dpre env $DYNENV $T
	one drun "$RUN" -q --dynamic -s sqlite3 -- $T
done

# d A B COL: median over rounds of A - B (COL 1: wall, 2: CPU), in ms
d() {
	paste "$TMP/$1" "$TMP/$2" | awk -v c="$3" '{ print $c - $(c + 2) }' | sort -g |
		awk '{ a[NR] = $1 } END { if (NR == 0) print "NA";
			else printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# m A COL: median of A
m() {
	awk -v c="$3" '{ print $c }' "$TMP/$1" | sort -g |
		awk '{ a[NR] = $1 } END { printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); command: \`bench/startup.sh -r $ROUNDS\` ($ROUNDS rounds);"
echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); \`true\` alone: $(m bare x 2) ms CPU, $(m bare x 1) ms wall"
echo ""
echo "| start-up | CPU ms | wall ms |"
echo "|---|--:|--:|"
echo "| start-up, shim with absent library (sqlite3 spec), CPU ms added to \`true\` | $(d sqlite3 env 2) | $(d sqlite3 env 1) |"
echo "| the same, spec of 1 function (bm1) | $(d bm1 env 2) | $(d bm1 env 1) |"
echo "| the same, spec of 1000 functions (bm1000) | $(d bm1000 env 2) | $(d bm1000 env 1) |"
echo "| apiprof-run fixed cost per launch, ms: shipped shim (\`-s sqlite3\`), against its preload | $(d run pre 2) | $(d run pre 1) |"
echo "| apiprof-run fixed cost per launch, ms: user spec, warm (direct mode), against its preload | $(d urun upre 2) | $(d urun upre 1) |"
echo "| apiprof-run fixed cost per launch, ms: \`--dynamic -s sqlite3\`, against its preload | $(d drun dpre 2) | $(d drun dpre 1) |"
echo ""
echo "The user spec's first launch (cold: apiprof-gen and the compiler build its shim): $cold."
