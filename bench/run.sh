#!/bin/sh
# bench/run.sh - the overhead benchmark of issue 6, in one command.
#
#   bench/run.sh [-m FILE] [-r ROUNDS] [-w ROUNDS] [BUILD_DIR]   (BUILD_DIR: build)
#
# Builds BUILD_DIR if needed (meson setup + compile), then prints one
# Markdown report on stdout (progress goes to stderr); -m FILE writes the
# same report to FILE.  Nothing here is a test: it never fails on a number.
#
# How it measures:
# - bench_driver calls the bench library's int bench_f(int, int) N times in
#   T threads; each thread times its loop with clock_gettime, and takes the
#   median of its repetitions.  ns/call is the thread's CPU time
#   (CLOCK_THREAD_CPUTIME_ID), which leaves out the time the thread was
#   preempted on this shared 2-vCPU VM; for ltrace and uftrace, whose work
#   partly happens in another process while the thread waits, it is the
#   wall-clock time (CLOCK_MONOTONIC).
# - Each round runs every variant once, in turn; ROUNDS rounds (default 7).
#   "added" is the variant minus bare *in the same round*, and the ratio is
#   added / added(ideal) in the same round; the table gives the medians over
#   rounds.  Absolute times drift with the VM's load; the ratios hold.
# - Instructions per call come from valgrind --tool=callgrind: the total of
#   a run of 2N calls minus that of N calls, over N, so start-up and exit
#   cancel out.  They are deterministic and catch hot-path regressions.
# - Data-cache misses per call in the malloc workload come from valgrind
#   --tool=cachegrind --cache-sim=yes, one run per mode: deterministic too.
# - ltrace and uftrace are used where installed; they are never required.
set -eu

usage() {
	echo "usage: bench/run.sh [-m FILE] [-r ROUNDS] [-w ROUNDS] [BUILD_DIR]" >&2
	exit 2
}

CMD="bench/run.sh${*:+ $*}"
MD=
ROUNDS=7
WROUNDS=15
while getopts m:r:w: opt; do
	case $opt in
	m) MD=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	w) WROUNDS=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
case $ROUNDS$WROUNDS in '' | *[!0-9]*) usage ;; esac
[ "$ROUNDS" -ge 1 ] && [ "$WROUNDS" -ge 1 ] || usage

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
T_START=$(date +%s)

say() { printf '%s\n' "$*" >&2; }

# --- build ---------------------------------------------------------------
if [ ! -f "$BUILD/build.ninja" ]; then
	say "== meson setup $BUILD"
	meson setup "$BUILD" "$SRC" >&2
fi
say "== meson compile -C $BUILD"
meson compile -C "$BUILD" >&2
BUILD=$(cd "$BUILD" && pwd)
B=$BUILD/bench
DRIVER=$B/bench_driver
DYN=$BUILD/preload/dyn
TIMECMD=$B/bench_timecmd
PY=/usr/bin/python3

TMP=$(mktemp -d "${TMPDIR:-/tmp}/apiprof-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir "$TMP/r"

# The user's own settings must not leak into the runs.
unset APIPROF_OUTPUT APIPROF_SUMMARY APIPROF_INTERVAL_MS APIPROF_CLOCK APIPROF_RING_RECORDS \
	APIPROF_KEYFRAME APIPROF_MAX_FUNCS APIPROF_KEEP_EXITED APIPROF_SHM APIPROF_KEEP_SHM \
	APIPROF_SAMPLE LD_PRELOAD LD_AUDIT 2>/dev/null || true

if [ -n "$MD" ]; then
	: >"$MD"
fi
out() {
	printf '%s\n' "$*"
	if [ -n "$MD" ]; then printf '%s\n' "$*" >>"$MD"; fi
}

have() { command -v "$1" >/dev/null 2>&1; }

HAVE_LTRACE=0
HAVE_UFTRACE=0
HAVE_VALGRIND=0
have ltrace && HAVE_LTRACE=1
have uftrace && HAVE_UFTRACE=1
have valgrind && HAVE_VALGRIND=1

# --- the header, first: what ran where -------------------------------------
cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
buildtype=$(meson configure "$BUILD" 2>/dev/null | awk '$1 == "buildtype" { print $2; exit }')
sanitize=$(meson configure "$BUILD" 2>/dev/null | awk '$1 == "b_sanitize" { print $2; exit }')
commit=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$SRC" status --porcelain 2>/dev/null | head -n 1)" ]; then
	commit="$commit (with uncommitted changes)"
fi

out "## apiprof overhead benchmark"
out ""
out "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
out "- machine: $cpu_model, nproc $(nproc), Linux $(uname -r), load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
out "- build: buildtype ${buildtype:-?}, b_sanitize ${sanitize:-?}, commit $commit"
out "- command: \`$CMD\` ($ROUNDS rounds)"
if awk -v n="$(nproc)" '{ exit !($1 > n / 2) }' /proc/loadavg; then
	out "- **warning**: the machine was busy when the run started (load average above half its CPUs):"
	out "  other work inflates and scatters every figure; run again when it is idle"
fi
out ""

# --- numbers -------------------------------------------------------------

# med FILE: the median of the numbers in FILE ("NA" lines skipped).
med() {
	grep -v NA "$1" 2>/dev/null | sort -g | awk '{ a[NR] = $1 }
		END { if (NR == 0) print "NA"; else if (NR % 2) print a[(NR + 1) / 2];
		      else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# diffmed A B: the median over rounds of A - B (files of one value a round).
diffmed() {
	if [ ! -f "$1" ] || [ ! -f "$2" ]; then
		echo NA
		return
	fi
	paste "$1" "$2" | awk '$1 != "NA" && $2 != "NA" { print $1 - $2 }' >"$TMP/x"
	med "$TMP/x"
}

# ratiomed V IDEAL BARE: the median over rounds of (V - BARE) / (IDEAL - BARE).
ratiomed() {
	if [ ! -f "$1" ] || [ ! -f "$2" ] || [ ! -f "$3" ]; then
		echo NA
		return
	fi
	paste "$1" "$2" "$3" |
		awk '$1 != "NA" && $2 != "NA" && $3 != "NA" && $2 != $3 { print ($1 - $3) / ($2 - $3) }' \
			>"$TMP/x"
	med "$TMP/x"
}

# growmed V BARE T: the median over rounds of what V adds at T threads over
# what it adds at one, (V.T - BARE.T) / (V.1 - BARE.1), each round's pair
# against itself.
growmed() {
	if [ ! -f "$1.$3" ] || [ ! -f "$2.$3" ] || [ ! -f "$1.1" ] || [ ! -f "$2.1" ]; then
		echo NA
		return
	fi
	paste "$1.$3" "$2.$3" "$1.1" "$2.1" |
		awk '$1 != "NA" && $2 != "NA" && $3 != "NA" && $4 != "NA" && $3 != $4 {
			print ($1 - $2) / ($3 - $4) }' >"$TMP/x"
	med "$TMP/x"
}

# squartiles FILE [FORMAT]: "[q1 to q3]" of a file of one value a round,
# or nothing; each printed with FORMAT (default %+.2f).
squartiles() {
	grep -v NA "$1" 2>/dev/null | sort -g | awk -v f="${2:-%+.2f}" '{ a[NR] = $1 } END { if (NR)
		printf "[" f " to " f "]", a[int((NR - 1) / 4) + 1], a[NR - int((NR - 1) / 4)] }'
}

# quotmed A B: the median over rounds of A / B.
quotmed() {
	if [ ! -f "$1" ] || [ ! -f "$2" ]; then
		echo NA
		return
	fi
	paste "$1" "$2" | awk '$1 != "NA" && $2 != "NA" && $2 != 0 { print $1 / $2 }' >"$TMP/x"
	med "$TMP/x"
}

# quartiles A B: "[q1–q3]" of the per-round A / B, or nothing.
quartiles() {
	if [ ! -f "$1" ] || [ ! -f "$2" ]; then return 0; fi
	paste "$1" "$2" | awk '$1 != "NA" && $2 != "NA" && $2 != 0 { print $1 / $2 }' |
		sort -g | awk '{ a[NR] = $1 } END { if (NR) printf "[%.3f–%.3f]",
			a[int((NR - 1) / 4) + 1], a[NR - int((NR - 1) / 4)] }'
}

# predict CALLS ADDED_NS BARE_S: 1 + the calls' added time / the bare time.
predict() {
	awk -v c="$1" -v a="$2" -v b="$3" 'BEGIN {
		print (c == "NA" || a == "NA" || b == "NA" || b == 0) ? "NA" : 1 + c * a / 1e9 / b }'
}

# fmt PRINTF-FORMAT VALUE: formats a number, passes "NA" through.
fmt() {
	case $2 in NA | '') printf 'n/a' ;; *) awk -v v="$2" -v f="$1" 'BEGIN { printf f, v }' ;; esac
}

# verdict VALUE OP LIMIT: "holds" or "MISSED" (or "n/a").
verdict() {
	case $1 in NA | '') printf 'n/a' ;; *)
		awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
			ok = (op == "<=") ? (v <= l) : (v >= l); printf ok ? "holds" : "**MISSED**" }' ;;
	esac
}

# --- the driver under each variant -----------------------------------------

# drv VARIANT THREADS CALLS REPS TARGET: runs the driver once, prints the
# ns/call this variant is judged by (see the top), or NA if the run failed.
drv() {
	v=$1 t=$2 n=$3 reps=$4 tgt=$5 col=4
	case $v in
	bare) set -- ;;
	passthrough | count | ideal | clock | atomic) set -- env LD_PRELOAD="$B/libbench_ref_$v.so" ;;
	apiprof) set -- env LD_PRELOAD="$B/libapiprof-bench.so" ;;
	sampled) set -- env APIPROF_SAMPLE=64 LD_PRELOAD="$B/libapiprof-bench.so" ;;
	acct) set -- env LD_PRELOAD="$B/libapiprof-bench-acct.so" ;;
	mode-off | mode-count) set -- env APIPROF_MODE="${v#mode-}" LD_PRELOAD="$B/libapiprof-bench.so" ;;
	twin | twin-swap)
		# diff_ns: bench_g's ns a call minus bench_f's (driver -t fg).
		set -- env LD_PRELOAD="$B/libapiprof-bench-$v.so"
		col=10
		;;
	one-full | one-sampled)
		# ratio: (g - h) / (f - h) of driver -t fgh, with the ideal
		# shim on bench_f, apiprof on bench_g and nothing on bench_h.
		s=0
		[ "$v" = one-sampled ] && s=64
		set -- env APIPROF_SAMPLE=$s LD_PRELOAD="$B/libbench_ref_ideal.so $B/libapiprof-bench-g.so"
		col=14
		;;
	dynamic)
		# What apiprof-run --dynamic sets up: no compiled shim at all.
		set -- env LD_PRELOAD="$BUILD/preload/libapiprof.so.0:$DYN/libapiprof-dyn.so" \
			LD_AUDIT="$DYN/libapiprof-dyn-audit.so" APIPROF_SPEC="$SRC/bench/benchlib.json"
		;;
	audit) set -- env LD_AUDIT="$B/libbench_audit.so" ;;
	uftrace)
		rm -rf "$TMP/uftrace.data"
		set -- timeout -k 5 120 uftrace record --force -d "$TMP/uftrace.data"
		col=2
		;;
	ltrace)
		# ltrace is known to lose threads now and then: never wait forever.
		set -- timeout -k 5 120 ltrace -f -c -o "$TMP/ltrace.out"
		col=2
		;;
	m1-bare | m1000-bare | m100-bare) set -- ;;
	m1-apiprof) set -- env LD_PRELOAD="$B/libapiprof-bm1.so" ;;
	m1000-apiprof | m100-apiprof) set -- env LD_PRELOAD="$B/libapiprof-bm1000.so" ;;
	m100-flush1) set -- env APIPROF_INTERVAL_MS=1 LD_PRELOAD="$B/libapiprof-bm1000.so" ;;
	m100-flush1000) set -- env APIPROF_INTERVAL_MS=1000 LD_PRELOAD="$B/libapiprof-bm1000.so" ;;
	esac
	"$@" "$DRIVER" -t "$tgt" -T "$t" -n "$n" -r "$reps" 2>>"$TMP/stderr" </dev/null |
		awk -v c="$col" '$1 == "wall_ns" { v = $c } END { print v == "" ? "NA" : v }' ||
		echo NA
	rm -rf "$TMP/uftrace.data"
}

# How many calls each variant makes per thread and run: enough for a stable
# median, few enough that the slow tracers finish in seconds.
calls_for() {
	case $1 in
	ltrace) echo 1000 ;;
	uftrace) echo 300000 ;;
	clock | audit) echo 1000000 ;;
	*) echo 2000000 ;;
	esac
}
reps_for() {
	case $1 in ltrace | uftrace) echo 3 ;; *) echo 5 ;; esac
}

VARIANTS="bare passthrough count ideal clock atomic apiprof sampled acct mode-off mode-count"
[ -f "$DYN/libapiprof-dyn.so" ] && VARIANTS="$VARIANTS dynamic"
VARIANTS="$VARIANTS audit"
[ $HAVE_UFTRACE = 1 ] && VARIANTS="$VARIANTS uftrace"
[ $HAVE_LTRACE = 1 ] && VARIANTS="$VARIANTS ltrace"

rec() { echo "$3" >>"$TMP/r/$1.$2"; }

# py EXPR FILE: evaluates EXPR over the APIPROF_OUTPUT document d.
py() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[2]))
fs = [f for t in d["threads"] for f in t["functions"]]
print(eval(sys.argv[1]))' "$1" "$2" 2>>"$TMP/stderr" || echo NA
}

# acc MODE: one run of the ~100 ns bench_work under full timing or sampled
# mode; appends its calls, timed calls, total ns and "estimated" flags to
# $TMP/r/acc.MODE.*.  Both modes run in every round, next to each other:
# the host's clock speed moves bench_work's duration from run to run by
# more than the 5% being checked, so only a pair in the same round compares.
acc() {
	s=0
	[ "$1" = sampled ] && s=64
	rm -f "$TMP/acc.json"
	env APIPROF_SAMPLE=$s APIPROF_OUTPUT="$TMP/acc.json" LD_PRELOAD="$B/libapiprof-bench.so" \
		"$DRIVER" -t work -T 1 -n 2000000 -r 1 >"$TMP/acc.drv" 2>>"$TMP/stderr" </dev/null || true
	sel='[f for f in fs if f["name"] == "bench_work"]'
	for k in calls timed total_ns; do
		py "sum(f[\"$k\"] for f in $sel)" "$TMP/acc.json" >>"$TMP/r/acc.$1.$k"
	done
	py "str(all(f.get(\"estimated\") for f in $sel)).lower()" "$TMP/acc.json" >>"$TMP/r/acc.$1.est"
	awk '{ print $6 }' "$TMP/acc.drv" >>"$TMP/r/acc.$1.expect"
}


r=1
while [ "$r" -le "$ROUNDS" ]; do
	say "== round $r/$ROUNDS"
	# Each variant at T=1 and then at T=2, back to back: the two runs
	# "added vs T=1" compares are then seconds apart, not a round apart,
	# and the host's clock speed has less time to change between them.
	for v in $VARIANTS; do
		for t in 1 2; do
			rec "$v" "$t" "$(drv "$v" "$t" "$(calls_for "$v")" "$(reps_for "$v")" f)"
		done
	done
	# 16 threads on 2 cores: the threads take turns, so per-thread CPU
	# time is the only fair per-call figure.
	for v in bare ideal apiprof; do
		rec "$v" 16 "$(drv "$v" 16 250000 3 f)"
	done
	# A spec of 1 and of 1000 functions (calling the last, index 999).
	for v in m1-bare m1-apiprof m1000-bare m1000-apiprof; do
		rec "$v" 1 "$(drv "$v" 1 2000000 5 "${v%%-*}")"
	done
	# A thread keeping 100 functions busy, flushed every 1 ms or 1 s.
	for v in m100-flush1 m100-flush1000; do
		rec "$v" 1 "$(drv "$v" 1 2000000 5 m100)"
	done
	if [ -x "$PY" ]; then
		acc full
		acc sampled
	fi
	r=$((r + 1))
done

# --- declaring bytes, fails and errno, in one process ----------------------
# What declaring them adds is about a nanosecond, under the scatter of runs
# taken apart (the host changes speed for seconds at a time).  bench_driver
# -t fg times bench_f and its twin bench_g in turn in one process; shim
# bench-twin declares them on bench_g only, bench-twin-swap on bench_f
# only.  Half the difference of the two shims' (g - f) is the cost, with
# whatever the two wrappers' places in the shims cost cancelled out.
TWINS=${TWINS:-15}
say "== declaring bytes and failures: $TWINS rounds of the twin shims"
p=1
while [ "$p" -le "$TWINS" ]; do
	if [ $((p % 2)) = 1 ]; then
		a=$(drv twin 1 1000000 21 fg) b=$(drv twin-swap 1 1000000 21 fg)
	else
		b=$(drv twin-swap 1 1000000 21 fg) a=$(drv twin 1 1000000 21 fg)
	fi
	rec twin 1 "$a"
	rec twin-swap 1 "$b"
	p=$((p + 1))
done

# --- apiprof against the ideal, in one process -----------------------------
# The same trouble, for the ratios of the table: sampled mode's few
# instructions feel the host's changes of speed far more than the ideal
# shim's two rdtsc do, so rounds taken seconds apart scatter its ratio from
# about 0.13 to 0.29.  bench_driver -t fgh times bench_f (the ideal shim),
# bench_g (apiprof, benchlib_g.json) and bench_h (nothing) in turn, and
# gives the median over its repetitions of (g - h) / (f - h).
say "== apiprof against the ideal in one process: $TWINS rounds"
p=1
while [ "$p" -le "$TWINS" ]; do
	for v in one-full one-sampled; do
		for t in 1 2; do
			rec "$v" "$t" "$(drv "$v" "$t" 1000000 21 fgh)"
		done
	done
	p=$((p + 1))
done

# --- callgrind --------------------------------------------------------------
CG_N=200000
# cg VARIANT CALLS: total instructions of one run.  No flusher thread, so
# that nothing but the calls varies with CALLS; no segment, because the
# preload also reaches valgrind's launcher, which execs the tool under the
# same pid and would leave its segment behind under the guest's name.
cg() {
	v=$1 n=$2
	case $v in
	bare) set -- ;;
	passthrough | count | ideal) set -- env LD_PRELOAD="$B/libbench_ref_$v.so" ;;
	apiprof) set -- env APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 LD_PRELOAD="$B/libapiprof-bench.so" ;;
	sampled) set -- env APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 APIPROF_SAMPLE=64 \
		LD_PRELOAD="$B/libapiprof-bench.so" ;;
	acct) set -- env APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 LD_PRELOAD="$B/libapiprof-bench-acct.so" ;;
	mode-off | mode-count) set -- env APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 APIPROF_MODE="${v#mode-}" \
		LD_PRELOAD="$B/libapiprof-bench.so" ;;
	esac
	"$@" valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
		"$DRIVER" -t f -T 1 -n "$n" -r 1 >/dev/null 2>>"$TMP/stderr" </dev/null || {
		echo NA
		return
	}
	awk '$1 == "summary:" || $1 == "totals:" { v = $2 } END { print v == "" ? "NA" : v }' "$TMP/cg.out"
}
CG_VARIANTS="bare passthrough count ideal apiprof"
CG_VARIANTS="$CG_VARIANTS sampled acct mode-off mode-count"
if [ $HAVE_VALGRIND = 1 ]; then
	for v in $CG_VARIANTS; do
		say "== callgrind $v"
		a=$(cg "$v" "$CG_N")
		b=$(cg "$v" $((2 * CG_N)))
		awk -v a="$a" -v b="$b" -v n="$CG_N" 'BEGIN {
			if (a == "NA" || b == "NA") print "NA"; else print (b - a) / n }' >"$TMP/r/cg.$v"
	done
fi

# --- cachegrind: the malloc workload's data-cache misses -----------------------
# The whole-program ratios below scatter by a few per cent; the cache lines
# a profiled call touches are one cause of what they show, and cachegrind
# counts them exactly (on its simulated caches).  As with callgrind, a run
# of 2N rounds minus one of N, so that loading and starting cancel out; the
# hash seed is fixed so that python does the same work each time.
CC_ROUNDS=20000
# cc MODE ROUNDS: "instructions D1-misses" of one run.
cc() {
	m=$1 n=$2
	case $m in
	bare) set -- ;;
	full) set -- env APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 LD_PRELOAD="$BUILD/specs/libapiprof-malloc.so" ;;
	sampled) set -- env APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 APIPROF_SAMPLE=64 \
		LD_PRELOAD="$BUILD/specs/libapiprof-malloc.so" ;;
	esac
	"$@" env PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=yes \
		--cachegrind-out-file="$TMP/cc.$m.$n.out" "$PY" "$SRC/bench/wl_malloc.py" "$n" \
		>/dev/null 2>"$TMP/cc.$m.$n.err" </dev/null || {
		echo "NA NA"
		return
	}
	# events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
	awk '$1 == "summary:" { print $2, $6 + $9 }' "$TMP/cc.$m.$n.out"
}
# cc_calls ROUNDS: the calls the malloc shim intercepts in a run.
cc_calls() {
	env APIPROF_OUTPUT="$TMP/cc.json" APIPROF_SHM=0 LD_PRELOAD="$BUILD/specs/libapiprof-malloc.so" \
		PYTHONHASHSEED=0 "$PY" "$SRC/bench/wl_malloc.py" "$1" >/dev/null
	py 'sum(f["calls"] for f in fs)' "$TMP/cc.json"
}
CC_MODES=
if [ $HAVE_VALGRIND = 1 ] && [ -x "$PY" ] && [ -f "$BUILD/specs/libapiprof-malloc.so" ]; then
	CC_MODES="bare full sampled"
	for m in $CC_MODES; do
		say "== cachegrind, malloc workload, $m"
		cc "$m" "$CC_ROUNDS" >"$TMP/r/cc.$m.1" &
		cc "$m" $((2 * CC_ROUNDS)) >"$TMP/r/cc.$m.2" &
		wait
	done
	awk -v a="$(cc_calls "$CC_ROUNDS")" -v b="$(cc_calls $((2 * CC_ROUNDS)))" \
		'BEGIN { print (a == "NA" || b == "NA") ? "NA" : b - a }' >"$TMP/r/cc.calls"
fi

# --- flush cost and memory -----------------------------------------------------
say "== flush cost, memory"
"$B/bench_flushcost" 2000 >"$TMP/flush" 2>>"$TMP/stderr" || echo "flush_us NA keyframe_us NA" >"$TMP/flush"
"$B/bench_memsize" >"$TMP/mem" 2>>"$TMP/stderr" || : >"$TMP/mem"
memv() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/mem"; }

# --- whole programs ------------------------------------------------------------
# Each round runs every mode once, back to back, and the figure is the
# median of the per-round ratios, each over the geometric mean of the
# round's two bare runs.  Time is the process's CPU time (all
# threads, the flusher's included).  On this VM the same run of the same
# program varies by 10-30% from run to run (the host's clock speed follows
# its other tenants; there is no PMU, so no cycle or instruction counts),
# which is why the report also gives the quartiles of the ratios and the
# slowdown predicted from the intercepted calls and the measured per-call
# cost.  Runs are short (~0.2-0.5 s) to afford many rounds: -w sets how
# many (15 by default, about 100 s; the median of N rounds scatters about
# as 1/sqrt(N)).
awk 'BEGIN {
	print "PRAGMA synchronous = OFF;"
	print "BEGIN;"
	print "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);"
	for (i = 0; i < 50000; i++)
		printf "INSERT INTO t(name, score) VALUES(\047name-%d\047, %d.5);\n", i, i
	print "COMMIT;"
	print "SELECT count(*), sum(score) FROM t;"
}' >"$TMP/inserts.sql"

WORKLOADS=
[ -x "$PY" ] && [ -f "$BUILD/specs/libapiprof-zlib.so" ] && WORKLOADS="$WORKLOADS zlib zlibkeep"
[ -x "$PY" ] && [ -f "$BUILD/specs/libapiprof-malloc.so" ] && WORKLOADS="$WORKLOADS malloc"
have sqlite3 && [ -f "$B/libapiprof-sqlite3.so" ] && WORKLOADS="$WORKLOADS sqlite3"

# wl WORKLOAD MODE: one run's CPU seconds, or NA.
wl() {
	w=$1 m=$2
	case $w in
	zlib)
		shim=$BUILD/specs/libapiprof-zlib.so in=/dev/null
		set -- "$PY" "$SRC/bench/wl_zlib.py" 1000
		;;
	zlibkeep)
		# The same, with glibc told never to give the heap back: by
		# default it shrinks and regrows it ~8,000 times a run, and half
		# the run is page faults, whose cost on this VM scatters.
		shim=$BUILD/specs/libapiprof-zlib.so in=/dev/null
		set -- env GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824 \
			"$PY" "$SRC/bench/wl_zlib.py" 2000
		;;
	malloc)
		shim=$BUILD/specs/libapiprof-malloc.so in=/dev/null
		set -- "$PY" "$SRC/bench/wl_malloc.py" 300000
		;;
	sqlite3)
		shim=$B/libapiprof-sqlite3.so in=$TMP/inserts.sql
		rm -f "$TMP/bench.db"
		set -- sqlite3 "$TMP/bench.db"
		;;
	esac
	hp=$B/libbench_heappad.so
	case $m in
	bare | bare2) set -- env LD_PRELOAD="$hp" "$@" ;;
	empty) set -- env LD_PRELOAD="$hp $B/libbench_empty.so" "$@" ;;
	floor) set -- env LD_PRELOAD="$hp $B/libbench_ref_malloc.so" "$@" ;;
	full) set -- env LD_PRELOAD="$hp $shim" "$@" ;;
	sampled) set -- env APIPROF_SAMPLE=64 LD_PRELOAD="$hp $shim" "$@" ;;
	count) set -- env APIPROF_OUTPUT="$TMP/wl.json" LD_PRELOAD="$hp $shim" "$@" ;;
	esac
	set -- env BENCH_PAD="$PAD" BENCH_HEAP_PAD="$HPAD" "$@"
	"$TIMECMD" -i "$in" -- "$@" 2>>"$TMP/stderr" | awk '$1 == "wall_s" { v = $4 }
		END { print v == "" ? "NA" : v }' || echo NA
}
# bare2 is bare once more: bare2 / bare is what the same program measures
# against itself, the noise floor of the other ratios.  empty preloads a
# library that does nothing (bench/empty.c): what loading any library costs
# the program before a call is intercepted.  floor, on the malloc workload
# only, preloads a hand-written shim that counts calls and does nothing
# else (bench/ref_malloc.c): what sampled mode is measured against.  Each
# round starts one mode further on, so that no mode always runs right
# after another.
#
# Each round also gives every run the same environment variable BENCH_PAD,
# of a length drawn anew for the round (0-4095 bytes).  The size of the
# environment moves the initial stack and, as the program copies it, where
# its heap blocks fall, and with them which of its hot lines share a cache
# set; a mode whose own variables (LD_PRELOAD=..., APIPROF_SAMPLE=64) fell
# on a bad layout would otherwise carry it in every round, a bias no number
# of rounds removes.  Drawn per round, it averages out like the rest.
# BENCH_HEAP_PAD does the same for the heap: every run, the bare ones
# included, preloads bench/heappad.c, which allocates that many bytes
# (0-4095, drawn per round) before main, and so moves every later heap
# block within its page.  The kernel randomises only the heap's first
# page, and apiprof's runtime itself allocates a few hundred bytes at
# start-up: without this, every apiprof run would have one heap layout
# and every bare run another.
PAD= HPAD=0
# padlen SEED: a length of 0-4095, drawn from the number SEED.
padlen() {
	awk -v s="$1" 'BEGIN { srand(s); print int(rand() * 4096) }'
}
# pad SEED: a string of padlen SEED bytes.
pad() {
	awk -v n="$(padlen "$1")" 'BEGIN { p = sprintf("%*s", n, ""); gsub(/ /, "p", p); print p }'
}
wi=0
for w in $WORKLOADS; do
	say "== workload $w"
	wi=$((wi + 1))
	WMODES="bare empty full sampled bare2"
	[ "$w" = malloc ] && WMODES="bare empty floor full sampled bare2"
	# One extra run, not timed, counts the intercepted calls.
	rm -f "$TMP/wl.json"
	wl "$w" count >/dev/null
	py 'sum(f["calls"] for f in fs)' "$TMP/wl.json" >"$TMP/r/wl.$w.calls"
	r=1
	while [ "$r" -le "$WROUNDS" ]; do
		PAD=$(pad $((r * 8 + wi)))
		HPAD=$(padlen $((r * 8 + wi + 4096)))
		set -- $WMODES
		k=$((r % $#))
		while [ "$k" -gt 0 ]; do
			m=$1
			shift
			set -- "$@" "$m"
			k=$((k - 1))
		done
		for m in "$@"; do
			wl "$w" "$m" >>"$TMP/r/wl.$w.$m"
		done
		r=$((r + 1))
	done
done

# --- why preloading anything can cost the zlib workload ----------------
# One perf record per variant (cpu-clock, 10 kHz, kernel included): the
# share of samples in the kernel's maple-tree "spanning store" path, which
# a brk() takes when the heap's entry sits at the edge of a node of the
# tree of mappings.  Whether it does depends on how many mappings the
# process has, so the variants add mappings and nothing else.  Needs perf
# and kernel samples (root, or perf_event_paranoid <= 1).
# layout VARIANT ENV...: prints "mappings share%" (or nothing).
layout() {
	v=$1
	shift
	n=$(env "$@" "$PY" -c 'print(len(open("/proc/self/maps").readlines()))' 2>/dev/null) || return 0
	env "$@" perf record -q -e cpu-clock -F 10000 -o "$TMP/perf.$v" \
		"$PY" "$SRC/bench/wl_zlib.py" 1000 >/dev/null 2>>"$TMP/perf.err" || return 0
	perf report -i "$TMP/perf.$v" --stdio --sort sym 2>/dev/null | awk -v n="$n" '
		/^#/ { next }
		$1 ~ /%$/ { if ($2 == "[k]") k += $1
			if ($3 ~ /^(mas_spanning|mas_topiary|mab_)/) p += $1 }
		END { if (k > 0) printf "%s %.2f\n", n, p }'
}
LAYOUT=
if have perf && [ -x "$PY" ] && [ -f "$BUILD/specs/libapiprof-zlib.so" ]; then
	say "== zlib: the kernel's spanning-store path (perf)"
	E=$B/libbench_empty.so Z=$BUILD/specs/libapiprof-zlib.so
	for v in bare empty empty+2 empty+4 empty+6 empty+8 empty+10 full nothread; do
		case $v in
		bare) set -- X=1 ;;
		empty) set -- LD_PRELOAD="$E" ;;
		empty+*) set -- LD_PRELOAD="$E" BENCH_EMPTY_MAPS="${v#empty+}" ;;
		full) set -- LD_PRELOAD="$Z" ;;
		nothread) set -- LD_PRELOAD="$Z" APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 ;;
		esac
		r=$(layout "$v" "$@")
		[ -n "$r" ] && LAYOUT="$LAYOUT$v $r
"
	done
fi

# =====================================================================
# The report
# =====================================================================
V=$TMP/r

name_of() {
	case $1 in
	bare) echo "bare call (no shim)" ;;
	passthrough) echo "passthrough shim (dlsym(RTLD_NEXT), no timing)" ;;
	count) echo "count only (TLS increment)" ;;
	ideal) echo "*ideal*: 2× rdtsc + TLS add (initial-exec)" ;;
	clock) echo "ideal with clock_gettime" ;;
	atomic) echo "shared atomic counter (count only)" ;;
	apiprof) echo "**apiprof** generated shim" ;;
	sampled) echo "**apiprof** sampled, APIPROF_SAMPLE=64" ;;
	acct) echo "**apiprof** declaring bytes, fails and errno (benchlib_acct.json)" ;;
	mode-off) echo "**apiprof** APIPROF_MODE=off (issue 37)" ;;
	mode-count) echo "**apiprof** APIPROF_MODE=count (issue 37)" ;;
	dynamic) echo "**apiprof** dynamic mode (no compiler)" ;;
	audit) echo "LD_AUDIT pltenter/pltexit (latrace's mechanism)" ;;
	uftrace) echo "\`uftrace record --force\` †" ;;
	ltrace) echo "\`ltrace -c\` †" ;;
	esac
}

out "### Cost per call of int bench_f(int, int)"
out ""
out "ns/call = CPU time of the calling thread per call (median of rounds); added = minus bare in the same round;"
out "÷ ideal = added / ideal's added in the same round (median of rounds)."
out ""
out "| method | T=1 ns/call | T=1 added ns | T=1 ÷ ideal | T=2 ns/call | T=2 added ns | T=2 ÷ ideal |"
out "|---|--:|--:|--:|--:|--:|--:|"
for v in bare passthrough count ideal clock atomic apiprof sampled acct mode-off mode-count dynamic audit uftrace ltrace; do
	line="| $(name_of "$v")"
	if [ ! -f "$V/$v.1" ]; then
		case $v in
		sampled | dynamic) why="not built" ;;
		*) why="not installed" ;;
		esac
		out "$line | $why | | | | | |"
		continue
	fi
	for t in 1 2; do
		line="$line | $(fmt %.1f "$(med "$V/$v.$t")")"
		if [ "$v" = bare ]; then
			line="$line | | "
		else
			line="$line | $(fmt %.1f "$(diffmed "$V/$v.$t" "$V/bare.$t")")"
			line="$line | $(fmt %.2f "$(ratiomed "$V/$v.$t" "$V/ideal.$t" "$V/bare.$t")")"
		fi
	done
	out "$line |"
done
out ""
out "† wall-clock time per call (their work is partly done by another process while the thread waits);"
out "ltrace: $(calls_for ltrace) calls × $(reps_for ltrace) per thread, uftrace: $(calls_for uftrace) × $(reps_for uftrace)."
out ""

RATIO1=$(ratiomed "$V/apiprof.1" "$V/ideal.1" "$V/bare.1")
RATIO2=$(ratiomed "$V/apiprof.2" "$V/ideal.2" "$V/bare.2")

out "### How the cost grows"
out ""
out "\"vs T=1\": the median over rounds of the added ns at T threads over that at T=1 in the same round."
out ""
out "| threads (2 cores) | ideal added ns | apiprof added ns | apiprof ÷ ideal | ideal added vs T=1 | apiprof added vs T=1 |"
out "|---|--:|--:|--:|--:|--:|"
for t in 1 2 16; do
	ai=$(diffmed "$V/ideal.$t" "$V/bare.$t")
	aa=$(diffmed "$V/apiprof.$t" "$V/bare.$t")
	vi=$(growmed "$V/ideal" "$V/bare" "$t")
	vs=$(growmed "$V/apiprof" "$V/bare" "$t")
	out "| T=$t | $(fmt %.1f "$ai") | $(fmt %.1f "$aa") | $(fmt %.2f "$(ratiomed "$V/apiprof.$t" "$V/ideal.$t" "$V/bare.$t")") | $(fmt %.2f× "$vi") | $(fmt %.2f× "$vs") |"
done
T2VS1=$(growmed "$V/apiprof" "$V/bare" 2)
out ""
S1=$(diffmed "$V/m1-apiprof.1" "$V/m1-bare.1")
S1000=$(diffmed "$V/m1000-apiprof.1" "$V/m1000-bare.1")
SCALE=$(awk -v a="$S1000" -v b="$S1" 'BEGIN { if (a == "NA" || b == "NA" || b == 0) print "NA"; else print a / b }')
out "| spec size (T=1) | bare ns/call | apiprof ns/call | apiprof added ns |"
out "|---|--:|--:|--:|"
out "| 1 function | $(fmt %.1f "$(med "$V/m1-bare.1")") | $(fmt %.1f "$(med "$V/m1-apiprof.1")") | $(fmt %.1f "$S1") |"
out "| 1000 functions (calling #999) | $(fmt %.1f "$(med "$V/m1000-bare.1")") | $(fmt %.1f "$(med "$V/m1000-apiprof.1")") | $(fmt %.1f "$S1000") |"
out ""
out "1000 ÷ 1 functions: $(fmt %.2f× "$SCALE") added cost."
out ""

out "### Instructions per intercepted call (callgrind)"
out ""
if [ $HAVE_VALGRIND = 1 ]; then
	out "Total instructions of $((2 * CG_N)) calls minus those of $CG_N calls, over $CG_N (the loop, the PLT jump and bench_f included)."
	out ""
	out "| method | instructions/call | added | ÷ ideal |"
	out "|---|--:|--:|--:|"
	cgb=$(cat "$V/cg.bare")
	cgi=$(cat "$V/cg.ideal")
	for v in $CG_VARIANTS; do
		c=$(cat "$V/cg.$v")
		if [ "$v" = bare ]; then
			out "| $(name_of "$v") | $(fmt %.1f "$c") | | |"
		else
			ad=$(awk -v c="$c" -v b="$cgb" 'BEGIN { print (c == "NA" || b == "NA") ? "NA" : c - b }')
			rt=$(awk -v c="$c" -v b="$cgb" -v i="$cgi" 'BEGIN {
				print (c == "NA" || b == "NA" || i == "NA" || i == b) ? "NA" : (c - b) / (i - b) }')
			out "| $(name_of "$v") | $(fmt %.1f "$c") | $(fmt %.1f "$ad") | $(fmt %.2f "$rt") |"
		fi
	done
else
	out "valgrind: not installed"
fi
out ""

out "### Data-cache misses per intercepted call (cachegrind), malloc workload"
out ""
# ccd MODE FIELD: that field of the 2N run minus the N run.
ccd() {
	awk -v f="$2" 'NR == FNR { a = $f; next } { b = $f }
		END { print (a == "NA" || b == "NA" || a == "" || b == "") ? "NA" : b - a }' \
		"$V/cc.$1.1" "$V/cc.$1.2"
}
if [ -n "$CC_MODES" ]; then
	calls=$(cat "$V/cc.calls")
	out "\`PYTHONHASHSEED=0 python3 bench/wl_malloc.py\` under \`valgrind --tool=cachegrind --cache-sim=yes\`"
	out "(its simulated L1 data cache): a run of $((2 * CC_ROUNDS)) rounds minus one of $CC_ROUNDS, which makes"
	out "$(fmt %.0f "$calls") more calls; added = minus bare's difference, over those calls."
	out "The counts repeat exactly for a given environment, but moving the stack (a longer environment)"
	out "moves the added misses by up to about 0.5 a call: compare modes within one run."
	out ""
	out "| mode | instructions | D1 misses | added instructions/call | added D1 misses/call |"
	out "|---|--:|--:|--:|--:|"
	cib=$(ccd bare 1) cdb=$(ccd bare 2)
	for m in $CC_MODES; do
		ci=$(ccd "$m" 1) cd=$(ccd "$m" 2)
		if [ "$m" = bare ]; then
			out "| bare | $ci | $cd | | |"
			continue
		fi
		ai=$(awk -v a="$ci" -v b="$cib" -v n="$calls" 'BEGIN {
			print (a == "NA" || b == "NA" || n == "NA" || n == 0) ? "NA" : (a - b) / n }')
		ad=$(awk -v a="$cd" -v b="$cdb" -v n="$calls" 'BEGIN {
			print (a == "NA" || b == "NA" || n == "NA" || n == 0) ? "NA" : (a - b) / n }')
		out "| $m | $ci | $cd | $(fmt %.1f "$ai") | $(fmt %.2f "$ad") |"
	done
else
	out "valgrind or the malloc shim: not available"
fi
out ""

out "### Sampled mode (APIPROF_SAMPLE=64) against full timing, on the ~100 ns bench_work"
out ""
ACC=NA
if [ -f "$V/acc.full.total_ns" ]; then
	out "The last round's runs, and the median over the rounds of (sampled total / full total of the same round) − 1."
	out ""
	out "| mode | calls made | calls counted | calls timed | total ms | marked estimated |"
	out "|---|--:|--:|--:|--:|---|"
	for m in full sampled; do
		out "| $m | $(tail -n 1 "$V/acc.$m.expect") | $(tail -n 1 "$V/acc.$m.calls") | $(tail -n 1 "$V/acc.$m.timed") | $(fmt %.2f "$(awk -v n="$(tail -n 1 "$V/acc.$m.total_ns")" 'BEGIN { print n == "NA" ? "NA" : n / 1e6 }')") | $(tail -n 1 "$V/acc.$m.est") |"
	done
	ACC=$(awk -v q="$(quotmed "$V/acc.sampled.total_ns" "$V/acc.full.total_ns")" 'BEGIN {
		print q == "NA" ? "NA" : (q - 1) * 100 }')
	out ""
	out "Sampled estimate against full timing: $(fmt %+.1f%% "$ACC") $(quartiles "$V/acc.sampled.total_ns" "$V/acc.full.total_ns") (median [quartiles] of the rounds' ratios)."
else
	out "sampled mode: the accuracy runs failed (see stderr)"
fi
out ""

out "### Declaring bytes, fails and errno, in one process"
out ""
# Per round: (twin's g - f minus twin-swap's g - f) / 2.
paste "$V/twin.1" "$V/twin-swap.1" 2>/dev/null |
	awk '$1 != "NA" && $2 != "NA" { print ($1 - $2) / 2 }' >"$V/twin-cost.1" || :
ACCTD=$(med "$V/twin-cost.1")
out "$TWINS rounds of two processes at T=1, each timing bench_f and its twin bench_g in turn"
out "(bench_driver -t fg, 21 repetitions of 1,000,000 calls each): one shim declares bytes, fails and"
out "errno on bench_g (benchlib_twin.json), the other on bench_f. Half the difference of their"
out "(g − f): declaring costs $(fmt %+.2f "$ACCTD") ns a call $(squartiles "$V/twin-cost.1")"
out "(median [quartiles] over the rounds); (g − f) of the two shims: $(fmt %+.2f "$(med "$V/twin.1")") and $(fmt %+.2f "$(med "$V/twin-swap.1")") ns."
out ""

out "### apiprof against the ideal, in one process"
out ""
out "$TWINS rounds of one process each, at T=1 and T=2: bench_driver -t fgh times bench_f under the"
out "ideal shim, bench_g under apiprof (benchlib_g.json) and bench_h under nothing, in turn, 21"
out "repetitions of 1,000,000 calls each; a round's figure is the median over its repetitions of"
out "(g − h) / (f − h). Median [quartiles] over the rounds:"
out ""
out "| mode | T=1 ÷ ideal | T=2 ÷ ideal |"
out "|---|--:|--:|"
for v in one-full one-sampled; do
	case $v in one-full) d="**apiprof** generated shim" ;; *) d="**apiprof** sampled, APIPROF_SAMPLE=64" ;; esac
	out "| $d | $(fmt %.3f "$(med "$V/$v.1")") $(squartiles "$V/$v.1" %.3f) | $(fmt %.3f "$(med "$V/$v.2")") $(squartiles "$V/$v.2" %.3f) |"
done
ONEF1=$(med "$V/one-full.1") ONEF2=$(med "$V/one-full.2")
ONES1=$(med "$V/one-sampled.1") ONES2=$(med "$V/one-sampled.2")
out ""

out "### Flushing"
out ""
FL=$(awk '{ print $2 }' "$TMP/flush")
FK=$(awk '{ print $4 }' "$TMP/flush")
# At the default 200 ms, one flush in APIPROF_KEYFRAME=10 is a keyframe.
FMEAN=$(awk -v i="$FL" -v k="$FK" 'BEGIN { print (i == "NA" || k == "NA") ? "NA" : (9 * i + k) / 10 }')
FSHARE=$(awk -v m="$FMEAN" 'BEGIN { print m == "NA" ? "NA" : m / 200000 * 100 }')
BUSY=$(diffmed "$V/m100-flush1.1" "$V/m100-flush1000.1")
BUSYREL=$(awk -v d="$BUSY" -v c="$(med "$V/m100-flush1000.1")" 'BEGIN {
	print (d == "NA" || c == "NA" || c == 0) ? "NA" : d / c * 100 }')
# ~999 more flushes a second at 1 ms than at 1 s; 5 a second at 200 ms.
BUSYFL=$(awk -v p="$BUSYREL" 'BEGIN { print p == "NA" ? "NA" : p / 100 * 1e6 / 999 }')
BUSY200=$(awk -v p="$BUSYREL" 'BEGIN { print p == "NA" ? "NA" : p * 5 / 999 }')
out "- One flush of 100 active functions (one thread): $(fmt %.1f "$FL") µs, $(fmt %.1f "$FK") µs as a keyframe (median of 2000, bench_flushcost calling the runtime's apiprof_flush_all on a real segment)."
out "- At the default 200 ms interval the flusher thread spends $(fmt %.4f%% "$FSHARE") of one core."
out "- The busy thread itself (100 functions, 1 ms vs 1000 ms interval): $(fmt %+.2f "$BUSY") ns/call ($(fmt %+.2f%% "$BUSYREL")), i.e. $(fmt %.2f "$BUSYFL") µs per flush, $(fmt %.4f%% "$BUSY200") of its time at 200 ms."
out ""

out "### Memory"
out ""
if [ -s "$TMP/mem" ]; then
	out "| what | bytes |"
	out "|---|--:|"
	out "| per thread: TLS block | $(memv tls_per_thread) |"
	out "| per thread: registry entry | $(memv entry_per_thread) |"
	out "| per function, per thread calling its api: statistics + call sites + flusher shadow | $(memv stat_per_func_thread) |"
	out "| per function, once per process: folded totals + shared table entry | $(memv per_func_process) |"
	out "| shared segment (ring of $(memv ring_records) × $(memv rec_size) B records, $(memv func_cap) function slots) | $(memv segment_bytes) |"
	out "| once per process: the flusher thread's stack, in the runtime's .bss (only the pages it touches are resident) | $(memv flusher_stack) |"
else
	out "bench_memsize failed"
fi
out ""

out "### Whole programs"
out ""
out "CPU time (user + system, all threads) under the shim over that of the bare runs in the same round (the"
out "geometric mean of the round's two, \"bare\" and \"bare again\"):"
out "median of $WROUNDS rounds of bare / empty preload / full / sampled / bare again, and the floor shim below on"
out "the malloc workload (each round starting one mode further on), [quartiles of the rounds' ratios], and"
out "\"pred.\": 1 + calls × the added ns/call of the"
out "T=1 table / the bare run's CPU time.  \"bare again\" is the program against itself: the noise floor of the"
out "other ratios.  \"empty preload\" is a library that does nothing (bench/empty.c): what preloading any"
out "library costs the program before a single call is intercepted.  Every run of a round has the same"
out "environment variable BENCH_PAD, 0-4095 bytes long, drawn anew for each round: the size of the"
out "environment moves where the program's stack and heap blocks fall in the caches, and each mode"
out "would otherwise keep the one layout its own variables give it.  For the same reason every run,"
out "bare ones included, preloads bench/heappad.c, which allocates BENCH_HEAP_PAD bytes (0-4095, drawn"
out "per round) before main: apiprof's runtime allocates a few hundred bytes at start-up, which would"
out "otherwise give every apiprof run one heap layout and every bare run another."
out ""
out "| workload | calls intercepted | bare CPU s | bare again | empty preload | full timing | full pred. | sampled (N=64) | sampled pred. |"
out "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
ADD_FULL=$(diffmed "$V/apiprof.1" "$V/bare.1")
ADD_SAMPLED=$(diffmed "$V/sampled.1" "$V/bare.1")
for w in zlib zlibkeep malloc sqlite3; do
	case $w in
	zlib) desc="/usr/bin/python3 zlib compress/decompress (bench/wl_zlib.py), zlib spec" ;;
	zlibkeep) desc="the same, 2000 rounds, glibc.malloc.trim_threshold=1 GiB (no page-fault storm)" ;;
	malloc) desc="/usr/bin/python3 malloc-heavy (bench/wl_malloc.py), malloc spec" ;;
	sqlite3) desc="sqlite3 CLI, 50,000 INSERTs in one transaction, bench/sqlite3.json" ;;
	esac
	if [ ! -f "$V/wl.$w.bare" ]; then
		out "| $desc | not available (python3, sqlite3 or the shim missing) | | | | | | | |"
		continue
	fi
	W=$V/wl.$w
	calls=$(cat "$W.calls")
	bare=$(med "$W.bare")
	# The round's bare CPU time: the geometric mean of its two bare runs,
	# whose own scatter then weighs half as much in every ratio.
	paste "$W.bare" "$W.bare2" |
		awk '{ print ($1 == "NA" || $2 == "NA") ? "NA" : sqrt($1 * $2) }' >"$W.barem"
	aa=$(quotmed "$W.bare2" "$W.bare")
	e=$(quotmed "$W.empty" "$W.barem")
	f=$(quotmed "$W.full" "$W.barem")
	fp=$(predict "$calls" "$ADD_FULL" "$bare")
	s=$(quotmed "$W.sampled" "$W.barem")
	sp=$(predict "$calls" "$ADD_SAMPLED" "$bare")
	eval "WL_$w=\$f WLP_$w=\$fp WLS_$w=\$s WLSP_$w=\$sp WLA_$w=\$aa WLE_$w=\$e"
	[ -f "$W.floor" ] && WLF_FLOOR=$(quotmed "$W.floor" "$W.barem") &&
		WLF_QUART=$(quartiles "$W.floor" "$W.barem")
	out "| $desc | $calls | $(fmt %.3f "$bare") | $(fmt %.3f× "$aa") $(quartiles "$W.bare2" "$W.bare") | $(fmt %.3f× "$e") $(quartiles "$W.empty" "$W.barem") | $(fmt %.3f× "$f") $(quartiles "$W.full" "$W.barem") | $(fmt %.3f× "$fp") | $(fmt %.3f× "$s") $(quartiles "$W.sampled" "$W.barem") | $(fmt %.3f× "$sp") |"
done
out ""
if [ -n "${WLF_FLOOR:-}" ]; then
	out "On the malloc workload, a hand-written shim that counts every call of malloc, calloc, realloc and"
	out "free and does nothing else (bench/ref_malloc.c: one TLS increment, then a jump to the real function)"
	out "ran in the same rounds: $(fmt %.3f× "$WLF_FLOOR") $WLF_QUART.  It is the floor under sampled mode's"
	out "figure: what any shim that counts those calls costs this program."
	out ""
fi

out "#### The zlib workload and the kernel's tree of mappings"
out ""
if [ -n "$LAYOUT" ]; then
	out "Share of CPU samples (perf, cpu-clock at 10 kHz, one run each) in the kernel's maple-tree spanning-store"
	out "path (mas_spanning_*, mas_topiary_*, mab_*), and the process's mappings at start (python3 -c)."
	out ""
	out "| preloaded | mappings | spanning-store share |"
	out "|---|--:|--:|"
	printf '%s' "$LAYOUT" | while read -r v n p; do
		case $v in
		bare) d="nothing" ;;
		empty) d="bench/empty.c (a library that does nothing)" ;;
		empty+*) d="bench/empty.c adding ${v#empty+} one-page mappings" ;;
		full) d="the zlib shim" ;;
		nothread) d="the zlib shim, APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 (no flusher thread, no segment)" ;;
		esac
		out "| $d | $n | $p% |"
	done
else
	out "Not measured: needs perf with kernel samples (root, or perf_event_paranoid <= 1)."
fi
out ""

SR1=$(ratiomed "$V/sampled.1" "$V/ideal.1" "$V/bare.1")
# --- apiprof-top's own cost (issue 3) -----------------------------------------
# 200 threads, each calling 50 functions of the bm1000 library and then
# sleeping 10 ms, under its shim: 10,000 live thread x function rows.
# apiprof-top watches it at its default refresh (1 s), in its live view
# (in a detached tmux pane, as a user would run it) and in batch mode,
# which prints all 10,000 rows every refresh.  The figure is apiprof-top's
# CPU time over its wall time, for 12 refreshes and for the 10 after the
# first two (a run of 12 minus a run of 2).  The ring is enlarged so
# that it holds one flush's 10,000 snapshots (the default 4096 records
# suit up to ~4,000 active thread x function pairs).
out "### apiprof-top watching 200 threads x 50 functions"
out ""
APIPROF_RING_RECORDS=16384 LD_PRELOAD="$B/libapiprof-bm1000.so" \
	"$DRIVER" -t m50 -T 200 -n 2000000000 -r 1 -P 10000 >/dev/null 2>>"$TMP/stderr" </dev/null &
TOPLOAD=$!
i=0
while [ $i -lt 200 ] && ! ls /dev/shm/apiprof-"$(id -u)"-$TOPLOAD-* >/dev/null 2>&1; do
	i=$((i + 1))
	sleep 0.05
done
sleep 2 # every thread running and flushed once
# topcost VIEW N ARGS...: one run of N refreshes; prints "wall_s cpu_s".
topcost() {
	v=$1 n=$2
	shift 2
	rm -f "$TMP/top.$v.$n"
	if [ "$v" = live ]; then
		tmux new-session -d -s "apiprof-bench-$$" -c "$PWD" -x 200 -y 50 \
			"$TIMECMD -o $TMP/top.$v.$n -- $BUILD/top/apiprof-top -d 1 -n $n $*" 2>>"$TMP/stderr"
		i=0
		while [ $i -lt 60 ] && [ ! -s "$TMP/top.$v.$n" ]; do
			i=$((i + 1))
			sleep 1
		done
		tmux kill-session -t "apiprof-bench-$$" 2>/dev/null || :
	else
		"$TIMECMD" -- "$BUILD/top/apiprof-top" -b -d 1 -n "$n" "$@" >"$TMP/top.$v.$n" 2>>"$TMP/stderr"
	fi
	awk '$1 == "wall_s" { print $2, $4 }' "$TMP/top.$v.$n" 2>/dev/null
}
# topshare VIEW ARGS...: runs of 2 and of 12 refreshes; prints the share of
# one core over the 12-refresh run, and that of the 10 refreshes after the
# first two (the first reads the whole ring, and start-up is in it).
topshare() {
	v=$1
	shift
	a=$(topcost "$v" 2 "$@")
	b=$(topcost "$v" 12 "$@")
	echo "$a $b" | awk 'NF == 4 && $3 > $1 {
		printf "%.2f %.2f %.2f %.2f", 100 * $4 / $3, 100 * ($4 - $2) / ($3 - $1), $4, $3 }'
}
TOPLIVE=
command -v tmux >/dev/null 2>&1 && TOPLIVE=$(topshare live -p $TOPLOAD)
TOPBATCH=$(topshare batch -p $TOPLOAD)
TOPAGG=$(topshare agg -a -p $TOPLOAD)
# The Prometheus exporter on the same load, scraped every 15 s (issue 25).
say "== the exporter (4 minutes)"
EXPORT=$(sh "$SRC/bench/export.sh" "$BUILD" $TOPLOAD 2>>"$TMP/stderr" || :)
kill $TOPLOAD 2>/dev/null || :
wait $TOPLOAD 2>/dev/null || : # killed: its status is not ours
# SIGTERM ran no exit path, so its segment is still there.
"$BUILD/top/apiprof-top" --clean >/dev/null 2>>"$TMP/stderr" || :
out "| view | 12 refreshes: wall s | CPU s | share of one core | refreshes 3-12 only |"
out "|---|--:|--:|--:|--:|"
for v in live batch agg; do
	eval "set -- \$TOP$(echo $v | tr a-z A-Z)"
	case $v in
	live) d="live view (ncurses, 200x50 tmux pane), per-thread rows" ;;
	batch) d="batch (-b), all 10,000 rows printed" ;;
	agg) d="batch, aggregated (-b -a), 50 rows" ;;
	esac
	out "| $d | ${4:-NA} | ${3:-NA} | $(fmt %.2f%% "${1:-NA}") | $(fmt %.2f%% "${2:-NA}") |"
done
TOPPCT=$(echo "$TOPLIVE" | awk '{ print $2 == "" ? "NA" : $2 }')
out ""
out "### apiprof-top --listen (the Prometheus exporter) on the same load"
out ""
out "$EXPORT"
out ""

# Start-up (issue 35.6): a shim whose library the process never loads,
# and apiprof-run's own work per launch (bench/startup.sh, runnable alone).
say "== start-up"
out "### Start-up"
out ""
STARTUP=$(sh "$SRC/bench/startup.sh" -r "$WROUNDS" "$BUILD" 2>>"$TMP/stderr" || :)
out "$STARTUP"
out ""

out "### Issue 6 targets"
out ""
out "| target | measured | |"
out "|---|--:|---|"
out "| full timing added ≤ 1.15× ideal, T=1 | $(fmt %.2f× "$RATIO1") | $(verdict "$RATIO1" "<=" 1.15) |"
out "| full timing added ≤ 1.15× ideal, T=2 | $(fmt %.2f× "$RATIO2") | $(verdict "$RATIO2" "<=" 1.15) |"
out "| T=2 added within 10% of T=1 | $(fmt %.2f× "$T2VS1") | $(verdict "$(awk -v x="$T2VS1" 'BEGIN { print x == "NA" ? "NA" : (x < 1 ? 2 - x : x) }')" "<=" 1.10) |"
out "| 1000-function spec costs as 1 (O(1)) | $(fmt %.2f× "$SCALE") | $(verdict "$(awk -v x="$SCALE" 'BEGIN { print x == "NA" ? "NA" : (x < 1 ? 2 - x : x) }')" "<=" 1.10) |"
out "| sampled N=64 added ≤ 0.25× ideal, T=1 | $(fmt %.2f× "$SR1") | $(verdict "$SR1" "<=" 0.25) |"
out "| (issue 23) full timing added ≤ 1.15× ideal in one process, T=1 / T=2 | $(fmt %.3f× "$ONEF1") / $(fmt %.3f× "$ONEF2") | $(verdict "$ONEF1" "<=" 1.15) / $(verdict "$ONEF2" "<=" 1.15) |"
out "| (issue 23) sampled N=64 added ≤ 0.15× ideal in one process, T=1 / T=2 | $(fmt %.3f× "$ONES1") / $(fmt %.3f× "$ONES2") | $(verdict "$ONES1" "<=" 0.15) / $(verdict "$ONES2" "<=" 0.15) |"
out "| (issue 24) declaring bytes, fails and errno ≤ 1 ns more, in one process | $(fmt %+.2f "$ACCTD") ns | $(verdict "$ACCTD" "<=" 1) |"
out "| sampled estimate within 5% of full | $(fmt %+.1f%% "$ACC") | $(verdict "$(awk -v x="$ACC" 'BEGIN { print x == "NA" ? "NA" : (x < 0 ? -x : x) }')" "<=" 5) |"
zl=${WL_zlib:-NA} ml=${WL_malloc:-NA} ms=${WLS_malloc:-NA} zk=${WL_zlibkeep:-NA}
zlp=${WLP_zlib:-NA} mlp=${WLP_malloc:-NA} msp=${WLSP_malloc:-NA} zkp=${WLP_zlibkeep:-NA}
za=${WLA_zlib:-NA} ma=${WLA_malloc:-NA} zka=${WLA_zlibkeep:-NA}
ze=${WLE_zlib:-NA} me=${WLE_malloc:-NA} zke=${WLE_zlibkeep:-NA}
out "| zlib workload slowdown ≤ 3% | $(fmt %.3f× "$zl") (pred. $(fmt %.3f× "$zlp"); bare again $(fmt %.3f× "$za"); empty preload $(fmt %.3f× "$ze")) | $(verdict "$zl" "<=" 1.03) (pred. $(verdict "$zlp" "<=" 1.03)) |"
out "| the same, heap kept (no page-fault storm) | $(fmt %.3f× "$zk") (pred. $(fmt %.3f× "$zkp"); bare again $(fmt %.3f× "$zka"); empty preload $(fmt %.3f× "$zke")) | $(verdict "$zk" "<=" 1.03) (pred. $(verdict "$zkp" "<=" 1.03)) |"
out "| malloc workload slowdown ≤ 10% (full) | $(fmt %.3f× "$ml") (pred. $(fmt %.3f× "$mlp"); bare again $(fmt %.3f× "$ma"); empty preload $(fmt %.3f× "$me")) | $(verdict "$ml" "<=" 1.10) (pred. $(verdict "$mlp" "<=" 1.10)) |"
out "| malloc workload slowdown ≤ 3% (sampled) | $(fmt %.3f× "$ms") (pred. $(fmt %.3f× "$msp"); bare again $(fmt %.3f× "$ma"); empty preload $(fmt %.3f× "$me")) | $(verdict "$ms" "<=" 1.03) (pred. $(verdict "$msp" "<=" 1.03)) |"
out "| (issue 3) apiprof-top live view, 200 threads x 50 functions < 2% of a core (refreshes 3-12) | $(fmt %.2f%% "$TOPPCT") | $(verdict "$TOPPCT" "<=" 2) |"
out "| flushing < 0.5% of a busy thread at 200 ms | $(fmt %.4f%% "$BUSY200") (busy thread), $(fmt %.4f%% "$FSHARE") (flusher) | $(verdict "$(awk -v a="$BUSY200" -v b="$FSHARE" 'BEGIN { print (a == "NA" || b == "NA") ? "NA" : (a > b ? a : b) }')" "<=" 0.5) |"

if [ -s "$TMP/stderr" ]; then
	say "== stderr of the runs (last lines):"
	tail -n 20 "$TMP/stderr" >&2
fi
out ""
out "Run time: $(($(date +%s) - T_START)) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
say "== done in $(($(date +%s) - T_START)) s"
