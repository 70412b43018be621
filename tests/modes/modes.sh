#!/bin/sh
# modes.sh CASE LIBAPIPROF SHIM_A SHIM_B PROG - the modes (issue 37) as the
# exit JSON (APIPROF_OUTPUT) counts them, to the call:
#   phases   full N / off M / count K by the program's own apiprof_control_mode:
#            calls N + K, timed N (the times are the first phase's), bytes too;
#            the time an estimate from the N timed calls, and marked so
#   timing   full / sampled:4 / full: calls exact, some timed, and "estimated"
#            (a process that sampled a while says its times are estimates)
#   perapi   modeb off, then count, while modea stays full
#   blocked  a call in progress across a switch to off and back: counted once,
#            timed once, for at least as long as the program saw it blocked
#   flip     64 threads, 10,000 random flips: every call made while its api
#            was counting is counted, no other (a handshake around each flip)
#   own-sampled  the process full, modeb sampled:8 (its own timing): ma_call
#            every call timed, mb_call every call counted and timed as the
#            sampler's rule allows (own_timed)
#   own-full     the process sampled:4, modeb full: mb_call every call timed
#   own-both     the process sampled:4, modeb sampled:64: each by its own N
#   own-flip     the process full with modeb sampled:8, then the process
#            sampled:4 (which clears modeb's own) with modeb full
#   start-perapi APIPROF_MODE=sampled:4,modeb=full: modeb every call timed
#   start-list   APIPROF_MODE=modeb=sampled:8 (the process as APIPROF_SAMPLE
#            says, full here); start-list-bad: one line, full timing
#   start-off, start-count, start-sampled, start-bad, start-both: APIPROF_MODE
#                       (start-off: dormant, no exit JSON at all)
#   run-mode RUN SPEC   apiprof-run --mode count passes it on, and a list
#                       (sampled:4,modea=full); --mode bogus is refused
#   phases-top TOP      phases, as apiprof-top --json sees the live process (in a
#                       private mount namespace with its own /dev/shm): calls N + K,
#                       estimated (K were not timed), the mean that of the N timed calls
set -eu
. "$(dirname "$0")/../lib.sh"
case=$1 lib=$2 shim_a=$3 shim_b=$4 prog=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The shims bring the runtime (LIBAPIPROF) in as their dependency, after
# libc in the search order: preloaded itself, its dlsym would come before
# libc's for TSan's own start-up, which looks its interceptors up with
# dlsym before it can run instrumented code (a crash at start).
run() {
	APIPROF_OUTPUT="$tmp/out.json" APIPROF_SHM=0 \
		LD_PRELOAD="$(shim_preload "$shim_a" "$shim_b")" "$prog" "$@" \
		>"$tmp/stdout" 2>"$tmp/stderr" || {
		echo "FAIL: $prog $* exited $?"
		cat "$tmp/stderr"
		exit 1
	}
}

# check 'NAME.FIELD=VALUE ...': the sums over the exit JSON's threads
check() {
	/usr/bin/python3 - "$tmp/out.json" "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {}
for t in doc["threads"]:
    for f in t["functions"]:
        r = rows.setdefault(f["name"], {})
        for k in ("calls", "timed", "bytes", "total_ns", "max_ns"):
            if isinstance(f.get(k), int):
                r[k] = r.get(k, 0) + f[k]
bad = []
for want in sys.argv[2:]:
    op = ">=" if ">=" in want else "="
    key, v = want.split(op)
    name, field = key.split(".")
    got = rows.get(name, {}).get(field, 0)
    if (op == "=" and got != int(v)) or (op == ">=" and got < int(v)):
        bad.append(f"{name}.{field}: got {got}, want {op}{v}")
for name, r in rows.items():
    if r.get("timed", 0) > r.get("calls", 0):
        bad.append(f"{name}: timed {r['timed']} > calls {r['calls']}")
if bad:
    print("FAIL:\n  " + "\n  ".join(bad))
    sys.exit(1)
PY
}

# own_timed NAME N CALLS [FULL]: the timed calls of NAME, sampled one in N
# by a thread's own countdown: its first call draws (not timed), then each
# timed call comes 1 to 2N-1 calls after the one before (the sampler's
# exact rule), so one thread's CALLS calls have at least (CALLS-1)/(2N-1)
# of them timed, and fewer than CALLS; N on average, so at most 2 x
# CALLS/N bounds it above with room (about 30 standard deviations at
# CALLS/N = 1000).  FULL timed calls of a stretch in full timing besides.
own_timed() {
	/usr/bin/python3 - "$tmp/out.json" "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
name, n, calls = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
full = int(sys.argv[5]) if len(sys.argv) > 5 else 0
rows = [f for t in doc["threads"] for f in t["functions"] if f["name"] == name]
timed = sum(f["timed"] for f in rows) - full
lo, hi = (calls - 1) // (2 * n - 1), min(calls - 1, 2 * calls // n)
if not lo <= timed <= hi or any(f["estimated"] is not True for f in rows):
    sys.exit("FAIL: %s: %d timed of %d sampled:%d (want %d to %d), estimated %r" %
             (name, timed, calls, n, lo, hi, [f["estimated"] for f in rows]))
PY
}

case $case in
own-sampled)
	run own full sampled:8 16000
	check ma_call.calls=16000 ma_call.timed=16000 mb_call.calls=16000
	own_timed mb_call 8 16000
	;;
own-full)
	run own sampled:4 full 16000
	check ma_call.calls=16000 mb_call.calls=16000 mb_call.timed=16000
	own_timed ma_call 4 16000
	;;
own-both)
	run own sampled:4 sampled:64 64000
	check ma_call.calls=64000 mb_call.calls=64000
	own_timed ma_call 4 64000
	own_timed mb_call 64 64000
	;;
own-flip)
	run own2 full sampled:8 16000 sampled:4 full 8000
	check ma_call.calls=24000 mb_call.calls=24000
	# ma_call: 16000 in full, then its own countdown with N 4 over 8000;
	# mb_call: sampled:8 over 16000, then 8000 in full
	own_timed ma_call 4 8000 16000
	own_timed mb_call 8 16000 8000
	;;
start-perapi)
	APIPROF_MODE=sampled:4,modeb=full run startab 16000
	check ma_call.calls=16000 mb_call.calls=16000 mb_call.timed=16000
	own_timed ma_call 4 16000
	;;
start-list)
	APIPROF_MODE=modeb=sampled:8 run startab 16000
	check ma_call.calls=16000 ma_call.timed=16000 mb_call.calls=16000
	own_timed mb_call 8 16000
	;;
start-list-bad)
	APIPROF_MODE=full,modeb=sampled:8,=off run startab 1000
	check ma_call.calls=1000 ma_call.timed=1000 mb_call.calls=1000 mb_call.timed=1000
	[ "$(grep -c 'APIPROF_MODE' "$tmp/stderr")" = 1 ] &&
		grep -q 'APIPROF_MODE=full,modeb=sampled:8,=off: API=MODE needs an api name of 1 to 31 bytes; full timing' "$tmp/stderr" ||
		{ echo "FAIL: want one line on APIPROF_MODE"; cat "$tmp/stderr"; exit 1; }
	;;
phases)
	run phases 1000 700 300
	check ma_call.calls=1300 ma_call.timed=1000 ma_put.calls=1300 ma_put.timed=1000 \
		ma_put.bytes=130000
	# 300 calls counted and not timed: the time is an estimate, and says so
	/usr/bin/python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
fs = [f for t in doc["threads"] for f in t["functions"] if f["name"] in ("ma_call", "ma_put")]
tot = [x for x in doc["totals"] if x["function"] in ("ma_call", "ma_put")]
bad = [f["name"] for f in fs if f["estimated"] is not True]
bad += [x["function"] + " totals" for x in tot if x["since_start"]["exact"] is not False]
sys.exit("FAIL: not marked estimated after count mode: %s" % bad if bad or len(tot) != 2 else 0)' "$tmp/out.json"
	;;
timing)
	run timing 1000 4000 300
	check ma_call.calls=5300 ma_put.calls=5300 ma_put.bytes=530000
	/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for th in d["threads"] for f in th["functions"] if f["name"] == "ma_call"][0]
ok = 1300 < f["timed"] < 5300 and f["estimated"] is True
sys.exit(0 if ok else "FAIL: timed %d estimated %r, want 1300 < timed < 5300, true" % (f["timed"], f["estimated"]))' "$tmp/out.json"
	;;
perapi)
	run perapi 1000 700 300
	check ma_call.calls=2000 ma_call.timed=2000 mb_call.calls=1300 mb_call.timed=1000
	;;
blocked)
	run blocked
	lower=$(awk '$1 == "lower_ns" { print $2 }' "$tmp/stdout")
	check ma_wait.calls=1 ma_wait.timed=1 "ma_wait.max_ns>=$lower" ma_call.calls=3 ma_call.timed=3
	;;
flip)
	run flip 64 10000
	set -- $(cat "$tmp/stdout")
	[ "$1" = counted ] || { echo "FAIL: $(cat "$tmp/stdout")"; exit 1; }
	check "ma_call.calls=$3" "mb_call.calls=$5"
	;;
start-off | start-count | start-sampled | start-bad | start-both)
	sample= mode=
	case $case in
	start-off) mode=off ;;
	start-count) mode=count ;;
	start-sampled) mode=sampled:4 ;;
	start-bad) mode=sampled:1x ;;
	start-both) mode=count sample=64 ;;
	esac
	APIPROF_MODE=$mode APIPROF_SAMPLE=$sample run start 1000
	case $case in
	start-off) # dormant (issue 37): nothing recorded, no output written
		[ ! -e "$tmp/out.json" ] ||
			{ echo "FAIL: a dormant process wrote its APIPROF_OUTPUT"; exit 1; } ;;
	start-count) check ma_call.calls=1000 ma_call.timed=0 ;;
	start-sampled)
		check ma_call.calls=1000
		/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = sum(f["timed"] for th in d["threads"] for f in th["functions"] if f["name"] == "ma_call")
sys.exit(0 if 0 < t < 1000 else "FAIL: sampled:4 timed %d of 1000" % t)' "$tmp/out.json"
		;;
	start-bad)
		check ma_call.calls=1000 ma_call.timed=1000
		[ "$(grep -c 'APIPROF_MODE' "$tmp/stderr")" = 1 ] ||
			{ echo "FAIL: want one line on APIPROF_MODE"; cat "$tmp/stderr"; exit 1; }
		grep -q 'APIPROF_MODE=sampled:1x: .*; full timing' "$tmp/stderr" ||
			{ echo "FAIL: the line"; cat "$tmp/stderr"; exit 1; }
		;;
	start-both)
		check ma_call.calls=1000 ma_call.timed=0
		grep -q 'APIPROF_MODE=count wins over APIPROF_SAMPLE=64' "$tmp/stderr" ||
			{ echo "FAIL: no line on both"; cat "$tmp/stderr"; exit 1; }
		;;
	esac
	;;
run-mode)
	apiprof_run=$6 spec=$7
	# apiprof-run puts its shim first in LD_PRELOAD: in a sanitizer build the
	# sanitizer runtime then is not first, which ASan checks unless told not to
	HOME=$tmp XDG_CACHE_HOME=$tmp/cache \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$apiprof_run" -q --mode count -s "$spec" \
		-o "$tmp/out.json" "$prog" start 1000 >"$tmp/stdout" 2>"$tmp/stderr" ||
		{ echo "FAIL: apiprof-run --mode count"; cat "$tmp/stderr"; exit 1; }
	check ma_call.calls=1000 ma_call.timed=0
	# a list: the process sampled:4, modea full (its own timing)
	HOME=$tmp XDG_CACHE_HOME=$tmp/cache \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$apiprof_run" -q --mode sampled:4,modea=full -s "$spec" \
		-o "$tmp/out.json" "$prog" start 1000 >"$tmp/stdout" 2>"$tmp/stderr" ||
		{ echo "FAIL: apiprof-run --mode sampled:4,modea=full"; cat "$tmp/stderr"; exit 1; }
	check ma_call.calls=1000 ma_call.timed=1000
	if ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$apiprof_run" --mode bogus -s "$spec" "$prog" start 1 2>"$tmp/stderr"; then
		echo "FAIL: --mode bogus accepted"
		exit 1
	fi
	grep -q 'apiprof-run: --mode bogus: ' "$tmp/stderr" || { echo "FAIL: the line"; cat "$tmp/stderr"; exit 1; }
	;;
phases-top)
	unshare -m --propagation private true 2>/dev/null ||
		{ echo "SKIP: no private mount namespace here"; exit 77; }
	unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /dev/shm && exec sh "$@"' \
		sh "$0" phases-top-inner "$lib" "$shim_a" "$shim_b" "$prog" "$6" "$tmp"
	;;
phases-top-inner)
	top=$6 dir=$7
	mkfifo "$dir/in" "$dir/out"
	LD_PRELOAD="$(shim_preload "$shim_a" "$shim_b")" "$prog" phases-hold 1000 700 300 \
		<"$dir/in" >"$dir/out" &
	pid=$!
	exec 3>"$dir/in" 4<"$dir/out"
	read -r line <&4 # the program's "ready", after its three phases
	"$top" --json -n 1 -p "$pid" >"$dir/top.json"
	echo x >&3
	wait "$pid"
	/usr/bin/python3 - "$dir/top.json" <<'PY'
import json, sys
doc = json.loads(open(sys.argv[1]).readline())
fs = {f["name"]: f for p in doc["processes"] for t in p["threads"] for f in t["functions"]}
bad = []
for name in ("ma_call", "ma_put"):
    f = fs.get(name)
    if f is None:
        bad.append(f"{name}: no row")
        continue
    if f["calls"] != 1300 or f["estimated"] is not True:
        bad.append(f"{name}: calls {f['calls']} estimated {f['estimated']}, want 1300 true")
    if abs(f["avg_ns"] - f["total_ns"] / 1300) > 1:
        bad.append(f"{name}: avg_ns {f['avg_ns']} is not the estimated total_ns {f['total_ns']} over the 1300 calls")
if fs.get("ma_put", {}).get("bytes") != 130000:
    bad.append("ma_put: bytes %r, want 130000" % fs.get("ma_put", {}).get("bytes"))
if bad:
    print("FAIL (apiprof-top --json):\n  " + "\n  ".join(bad))
    sys.exit(1)
PY
	;;
*)
	echo "modes.sh: unknown case $case"
	exit 2
	;;
esac
echo "ok: $case"
