#!/bin/sh
# bench/wl_compare.sh - python3's malloc workload (bench/wl_malloc.py) under
# two builds of the malloc shim and the timing floors, in one run.
#
#   bench/wl_compare.sh [-r ROUNDS] [-o FILE] BASE_BUILD NEW_BUILD
#
# BASE_BUILD is an older commit's build dir (the figure an issue started
# from), NEW_BUILD today's; the floors and the tools come from NEW_BUILD.
# Each round runs every mode once, starting one mode further on each round
# (interleaved), with the program's and the heap's padding drawn per round
# as bench/run.sh does.  Prints, per mode, the median [quartiles] over
# rounds of its CPU time and its wall time over the same round's bare run:
#   base-full    BASE_BUILD's shim, full timing
#   new-full     NEW_BUILD's shim, full timing
#   floor-timed  a shim that reads the TSC twice a call and adds the
#                difference to a counter: what any timing shim pays
#   floor-count  a shim that only counts (no clock)
#   bare2        bare again: the noise
# and what one rdtsc costs here (bench_tsc_cost).  -o FILE keeps the raw
# "round mode wall cpu" lines.  Nothing here is a test.
set -eu

usage() {
	echo "usage: bench/wl_compare.sh [-r ROUNDS] [-o FILE] BASE_BUILD NEW_BUILD" >&2
	exit 2
}

ROUNDS=21
RAW=
while getopts r:o: opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	o) RAW=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
case $ROUNDS in '' | *[!0-9]*) usage ;; esac
BASE=$1 NEW=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
TC=$NEW/bench/bench_timecmd HP=$NEW/bench/libbench_heappad.so
for f in "$TC" "$HP" "$BASE/specs/libapiprof-malloc.so" "$NEW/specs/libapiprof-malloc.so" \
	"$NEW/bench/libbench_ref_malloc_timed.so" "$NEW/bench/libbench_ref_malloc.so"; do
	[ -e "$f" ] || { echo "wl_compare: $f: not built" >&2; exit 2; }
done
unset APIPROF_OUTPUT APIPROF_SAMPLE APIPROF_MODE APIPROF_CLOCK LD_PRELOAD APIPROF_SHM \
	APIPROF_INTERVAL_MS
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=${RAW:-$TMP/raw}
: >"$OUT"

preload_of() {
	case $1 in
	bare | bare2) echo "$HP" ;;
	base-full) echo "$HP $BASE/specs/libapiprof-malloc.so" ;;
	new-full) echo "$HP $NEW/specs/libapiprof-malloc.so" ;;
	floor-timed) echo "$HP $NEW/bench/libbench_ref_malloc_timed.so" ;;
	floor-count) echo "$HP $NEW/bench/libbench_ref_malloc.so" ;;
	esac
}

MODES="bare base-full new-full floor-timed floor-count bare2"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	echo "== round $r/$ROUNDS" >&2
	n=$(awk -v s="$r" 'BEGIN { srand(s * 7919); print int(rand() * 4096) }')
	PAD=$(awk -v n="$n" 'BEGIN { p = sprintf("%*s", n, ""); gsub(/ /, "p", p); print p }')
	HPAD=$(awk -v s="$r" 'BEGIN { srand(s * 104729); print int(rand() * 4096) }')
	set -- $MODES
	k=$(((r - 1) % $#))
	i=0
	while [ $i -lt $k ]; do
		m=$1
		shift
		set -- "$@" "$m"
		i=$((i + 1))
	done
	for m in "$@"; do
		v=$(BENCH_PAD="$PAD" BENCH_HEAP_PAD="$HPAD" LD_PRELOAD="$(preload_of "$m")" \
			PYTHONHASHSEED=0 "$TC" -i /dev/null -- python3 "$SRC/bench/wl_malloc.py" 300000 |
			awk '$1 == "wall_s" { print $2, $4 }')
		echo "$r $m $v" >>"$OUT"
	done
	r=$((r + 1))
done

# summary COL NAME: per mode, the median [quartiles] of COL over bare's.
summary() {
	echo "$2 over the round's bare, median [quartiles], $ROUNDS rounds:"
	for m in base-full new-full floor-timed floor-count bare2; do
		awk -v m="$m" -v c="$1" '
			$2 == "bare" { b[$1] = $(c + 2) }
			$2 == m { v[$1] = $(c + 2) }
			END { for (r in v) if (b[r] > 0) print v[r] / b[r] }' "$OUT" | sort -n |
			awk -v m="$m" '{ a[NR] = $1 }
				END { if (NR) printf "  %-12s %.3fx [%.3f-%.3f]\n", m,
					a[int((NR + 1) / 2)], a[int(NR / 4) + 1], a[int(3 * NR / 4) + 1] }'
	done
}
summary 2 "cpu"
summary 1 "wall"
"$NEW/bench/bench_tsc_cost"
