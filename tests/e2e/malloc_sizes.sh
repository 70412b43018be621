#!/bin/sh
# malloc_sizes.sh SHIM PROG [QEMU LZCNT_CHECK] - the shipped malloc spec's
# bytes (issue 24): allocations of known sizes give the exact byte totals
# and size histograms, per function, and no failures.  With QEMU (qemu's
# x86-64 user-mode emulator), the same under an emulated CPU without
# LZCNT, whose histogram buckets come from the same bytes run as BSR
# (apiprof_hist_bucket_lz); LZCNT_CHECK shows that they are.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 prog=$2 qemu=${3:-} check=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip_if_sanitized "$shim"

if [ -z "$qemu" ]; then
	APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$(shim_preload "$shim")" "$prog"
else
	# A CPU of 2008: no LZCNT.  The emulator itself is not preloaded.
	got=$("$qemu" -cpu Nehalem "$check")
	[ "$got" = bsr ] || { echo "FAIL: LZCNT's bytes under $qemu -cpu Nehalem: $got, want bsr"; exit 1; }
	"$qemu" -cpu Nehalem -E APIPROF_OUTPUT="$tmp/out.json" \
		-E LD_PRELOAD="$(shim_preload "$shim")" "$prog"
fi
/usr/bin/python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {f["name"]: f for t in d["threads"] for f in t["functions"] if f["api"] == "malloc"}
# Size quantiles (common/stat/apiprof_stat.h): malloc's p50 is rank 504 of 1008,
# 499/1000 into [64, 127] (95), p99 992.92/1000 into it (127); calloc's and
# realloc's calls are all of one size in one bucket: that size exactly.
want = {
    "malloc": {"calls": 1008, "bytes": 1000 * 100 + 3 * (1 << 20) + 5 * 16, "failures": 0,
               "bytes_hist": {"16": 5, "64": 1000, str(1 << 20): 3}, "bytes_p50": 95, "bytes_p99": 127},
    "calloc": {"calls": 10, "bytes": 100000, "failures": 0, "bytes_hist": {"8192": 10},
               "bytes_p50": 10000, "bytes_p99": 10000},
    "realloc": {"calls": 5, "bytes": 25000, "failures": 0, "bytes_hist": {"4096": 5},
                "bytes_p50": 5000, "bytes_p99": 5000},
    "free": {"calls": 1018},
}
bad = [f"{n}.{k}: got {rows.get(n, {}).get(k)!r}, want {v!r}"
       for n, w in want.items() for k, v in w.items() if rows.get(n, {}).get(k) != v]
if "bytes" in rows.get("free", {}):
    bad.append("free declares no bytes")
if bad:
    print("FAIL:\n  " + "\n  ".join(bad))
    sys.exit(1)
PY
echo "ok: malloc, calloc and realloc bytes and size histograms exact${qemu:+, on a CPU without LZCNT}"
