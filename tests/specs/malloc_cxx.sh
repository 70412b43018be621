#!/bin/sh
# malloc_cxx.sh SHIM CXX_NEW - the malloc spec's operator new and delete
# rows: cxx_new N calls each delete form N times (see its header
# comment), so every delete row counts exactly N; the plain and aligned
# new forms 2N (each feeds two delete forms), the nothrow ones N.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 prog=$2
skip_if_sanitized "$shim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=1000
"$prog" $n >"$tmp/bare.txt"
APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$(shim_preload "$shim")" "$prog" $n >"$tmp/shim.txt"
cmp "$tmp/bare.txt" "$tmp/shim.txt"
# Display names have spaces: read the JSON itself.
/usr/bin/python3 - "$tmp/out.json" $n <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); n = int(sys.argv[2])
got = {}
for t in doc["threads"]:
    for f in t["functions"]:
        if f["name"].startswith("operator "):
            got[f["name"]] = got.get(f["name"], 0) + f["calls"]
want = {}
for a in ("", "[]"):
    want["operator new%s(size_t)" % a] = 2 * n
    want["operator new%s(size_t, nothrow_t)" % a] = n
    want["operator new%s(size_t, align_val_t)" % a] = 2 * n
    want["operator new%s(size_t, align_val_t, nothrow_t)" % a] = n
    for d in ("void *", "void *, size_t", "void *, nothrow_t", "void *, align_val_t",
              "void *, size_t, align_val_t", "void *, align_val_t, nothrow_t"):
        want["operator delete%s(%s)" % (a, d)] = n
if got != want:
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            print("FAIL: %s: got %s, want %s" % (k, got.get(k), want.get(k)))
    sys.exit(1)
print("ok: all 20 operator new/delete forms counted exactly (%d rows)" % len(want))
PY

# apiprof-top shows the display names, from the segment's function table.
if [ -n "${APIPROF_TOP:-}" ]; then
	APIPROF_KEEP_SHM=1 APIPROF_OUTPUT="$tmp/keep.json" LD_PRELOAD="$(shim_preload "$shim")" \
		"$prog" $n >/dev/null
	pid=$(sed -n 's/^  "pid": \([0-9]*\),$/\1/p' "$tmp/keep.json")
	"$APIPROF_TOP" --json -n 1 -d 0.01 -p "$pid" >"$tmp/top.json"
	rm -f /dev/shm/apiprof-"$(id -u)"-"$pid"-*
	grep -q '"name": *"operator new(size_t)", *"calls": *'$((2 * n))',' "$tmp/top.json" ||
		{ echo "FAIL: apiprof-top does not show 'operator new(size_t)' with $((2 * n)) calls"; exit 1; }
	echo "ok: apiprof-top shows the C++ display names"
fi
