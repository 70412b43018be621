#!/bin/sh
# regrace.sh SHIM REGRACE - threads making an api's first call at the same
# time (apiprof_register): in the segment kept at exit every call is
# counted under its function's name, exactly, and in the exit JSON too.
#   forced   one thread held inside the registration until the other has
#            registered the api and called (regrace.c): 5 processes
#   barrier  4 threads released by a barrier into the first call: 30
#            processes
# In a mount namespace of its own with its own /dev/shm.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
calls=1000

if [ -z "${REGRACE_NS:-}" ]; then
	unshare -m --propagation private true 2>/dev/null ||
		skip "cannot make a private mount namespace (unshare -m)"
	# shellcheck disable=SC2016
	exec unshare -m --propagation private sh -c \
		'mount -t tmpfs -o size=64m tmpfs /dev/shm && REGRACE_NS=1 exec sh "$@"' \
		sh "$0" "$@"
fi

export APIPROF_KEEP_SHM=1 APIPROF_OUTPUT="$tmp/out.json"
unset APIPROF_SHM APIPROF_SAMPLE

# run TAG THREADS ARGS...: one process; its kept segment (apiprof-top) and
# its exit JSON have exactly THREADS x $calls calls of tl_add, all named.
run() {
	tag=$1 want=$(($2 * calls))
	shift 2
	wd "$prog" "$shim" "$@" $calls >"$tmp/run.out" 2>"$tmp/run.err" ||
		fail "$tag: status $?: $(cat "$tmp/run.out" "$tmp/run.err")"
	[ ! -s "$tmp/run.err" ] || fail "$tag: stderr: $(cat "$tmp/run.err")"
	pid=$(sed -n 's/^pid //p' "$tmp/run.out")
	wd "$APIPROF_TOP" -b -n 1 --json -p "$pid" >"$tmp/top.json" ||
		fail "$tag: apiprof-top failed"
	got=$(python3 - "$tmp/top.json" "$pid" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
n = {}
for q in o["processes"]:
    if q["pid"] != int(sys.argv[2]):
        continue
    for t in q["threads"]:
        for f in t["functions"]:
            k = "%s.%s" % (f.get("api"), f["name"])
            n[k] = n.get(k, 0) + f["calls"]
print(" ".join("%s=%d" % kv for kv in sorted(n.items())) or "nothing")
EOF
)
	[ "$got" = "testlib.tl_add=$want" ] ||
		fail "$tag: the kept segment has $got, want testlib.tl_add=$want"
	n=$(calls "$APIPROF_OUTPUT" testlib.tl_add)
	[ "$n" -eq "$want" ] || fail "$tag: the exit JSON has $n calls of tl_add, want $want"
	rm -f "$APIPROF_OUTPUT" /dev/shm/apiprof-*
}

for i in 1 2 3 4 5; do
	run "forced $i" 2 forced
	grep -qx 'held: 1' "$tmp/run.out" || fail "forced $i: $(cat "$tmp/run.out")"
done
echo "ok: forced: a thread held inside the registration while another registered; exact and named"
i=0
while [ $i -lt 30 ]; do
	i=$((i + 1))
	run "barrier $i" 4 barrier 4
done
echo "ok: barrier: 4 threads' first calls at once, 30 processes; exact and named"
