#!/bin/sh
# output_full.sh SHIM CALLS - APIPROF_OUTPUT on a full file system (issue
# 20, point 18): a 16 kB tmpfs mounted inside the scratch dir, in a mount
# namespace of our own (root), holding a previous profile and filled up.
# The program runs unchanged, the previous file stays as it was, no
# temporary is left, and exactly one line says why.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2
n=1000
pl=$(shim_preload "$shim")

"$prog" $n >"$tmp/bare.out" 2>&1 || fail "bare run failed"
mkdir "$tmp/full"
if ! unshare -m sh -c "mount -t tmpfs -o size=16k tmpfs '$tmp/full'" 2>/dev/null; then
	skip "cannot mount a tmpfs in a private mount namespace (unshare -m, root)"
fi

# In the namespace: mount, keep a previous profile, fill the rest, run, and
# copy what is left out of the mount before it goes away with the namespace.
inner='
d=$1 pl=$2 prog=$3 n=$4
mount -t tmpfs -o size=16k tmpfs "$d/full" || exit 92
echo "{\"previous\": true}" >"$d/full/out.json" || exit 92
yes | head -c 100000 >"$d/full/fill" 2>/dev/null
APIPROF_OUTPUT="$d/full/out.json" env LD_PRELOAD="$pl" "$prog" $n >"$d/run.out" 2>"$d/run.err"
echo $? >"$d/run.st"
cp "$d/full/out.json" "$d/after.json"
ls -A "$d/full" >"$d/left"
'
wd unshare -m sh -c "$inner" sh "$tmp" "$pl" "$prog" $n || fail "set-up in the namespace failed"
st=$(cat "$tmp/run.st")
[ "$st" -eq 0 ] || fail "status $st: $(cat "$tmp/run.err")"
cmp -s "$tmp/bare.out" "$tmp/run.out" || fail "output differs: $(cat "$tmp/run.out")"
[ "$(cat "$tmp/after.json")" = '{"previous": true}' ] ||
	fail "the previous file was replaced by: '$(head -c 200 "$tmp/after.json")'"
[ "$(cat "$tmp/left" | tr '\n' ' ')" = "fill out.json " ] ||
	fail "left on the file system: $(cat "$tmp/left" | tr '\n' ' ')"
[ "$(wc -l <"$tmp/run.err")" -eq 1 ] &&
	grep -q "^apiprof: cannot write $tmp/full/out.json: No space left on device; the file there is left as it was\$" "$tmp/run.err" ||
	fail "want one 'No space left' line, got: $(cat "$tmp/run.err")"
echo "ok: full disk: $(cat "$tmp/run.err")"
