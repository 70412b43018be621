#!/bin/sh
# acct.sh PRELOAD PROG [SAMPLE [CLOCK]] - bytes and failures declared in a
# spec (acct.json, issue 24), exact in APIPROF_OUTPUT: a file of known
# size read in chunks, 17 ENOENT and 3 EACCES failures, callocs of known
# sizes, status codes judged by {"not": [...]}; errno as the library left
# it (the program checks it, and prints the same bare and under the shim).
# PRELOAD is the LD_PRELOAD value (a shim, or dynamic mode's libraries).
set -eu
. "$(dirname "$0")/../lib.sh"
preload=$1 prog=$2 sample=${3:-0} clock=${4:-auto}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

head -c 100000 /dev/zero >"$tmp/data"
"$prog" "$tmp/data" "$tmp/missing" >"$tmp/bare.txt"
APIPROF_SAMPLE=$sample APIPROF_CLOCK=$clock APIPROF_OUTPUT="$tmp/out.json" \
	LD_PRELOAD="$(shim_preload $(echo "$preload" | tr ':' ' '))" \
	"$prog" "$tmp/data" "$tmp/missing" >"$tmp/shim.txt"
cmp "$tmp/bare.txt" "$tmp/shim.txt" || { echo "FAIL: output differs under the shim"; diff "$tmp/bare.txt" "$tmp/shim.txt"; exit 1; }
grep -qx 'read 100000 plain 10 errors 0' "$tmp/bare.txt" || { echo "FAIL: bare run"; cat "$tmp/bare.txt"; exit 1; }

/usr/bin/python3 - "$tmp/out.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {f["name"]: f for t in doc["threads"] for f in t["functions"] if f["api"] == "acct"}
# Size quantiles as common/stat/apiprof_stat.h has them: acct_read's 0, 1696 and
# 24 x 4096 put p50 at rank 13 of 26, 11/24 into [4096, 8191] (5973), p99
# 23.74/24 into it (8147); acct_alloc's 10 x 32 (or so), 4 x 1000 and 65536
# put p50 3/4 into [32, 63] (55), p99 0.85 into [65536, 69856] (the bytes).
want = {
    "acct_read": {"calls": 27, "bytes": 100000, "bytes_p50": 5973, "bytes_p99": 8147,
                  "bytes_hist": {"0": 1, "1024": 1, "4096": 24},
                  "failures": 1, "errno": {"EBADF": 1}},
    "acct_open": {"calls": 18, "failures": 17, "errno": {"ENOENT": 17}},
    "acct_check": {"calls": 8, "failures": 3, "errno": {"EACCES": 3}},
    "acct_alloc": {"calls": 15, "bytes": 69856, "bytes_p50": 55, "bytes_p99": 69208,
                   "bytes_hist": {"32": 10, "512": 4, "65536": 1}, "failures": 0},
    "acct_status": {"calls": 6, "failures": 2},
    "acct_plain": {"calls": 10},
}
bad = []
for name, w in want.items():
    got = rows.get(name)
    if got is None:
        bad.append(f"{name}: no row")
        continue
    for k, v in w.items():
        if got.get(k) != v:
            bad.append(f"{name}.{k}: got {got.get(k)!r}, want {v!r}")
    extra = {"bytes", "failures", "errno"} - set(w) & set(got)
    if extra:
        bad.append(f"{name}: declares nothing but has {sorted(extra)}")
if bad:
    print("FAIL:\n  " + "\n  ".join(bad))
    sys.exit(1)
PY
echo "ok: bytes, size histograms, failures and errno counts exact (sample=$sample clock=$clock)"
