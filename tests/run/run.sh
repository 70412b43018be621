#!/bin/sh
# run.sh APIPROF_RUN TESTPROG STATICPROG SPEC OUTDUMP
#
# The launcher: exit status, pid and stdio are the program's; LD_PRELOAD is
# kept; a spec file is built once, cached, and rebuilt when it changes; a
# bad spec or a static binary are reported in one clear line.
set -u
. "$(dirname "$0")/../lib.sh"
run=$1 prog=$2 static=$3 spec=$4 outdump=$5
skip_if_sanitized "$run"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export APIPROF_CACHE="$tmp/cache"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Exit status and stdio pass through.
"$run" -q -s zlib -- sh -c 'echo out; echo err >&2; exit 7' >"$tmp/o" 2>"$tmp/e"
[ $? -eq 7 ] || fail "exit status not passed through"
# sh never loads libz, and with -q the runtime does not say so (issue
# 35.6; without -q it does, after sh's own output: hints_once.sh).
[ "$(cat "$tmp/o")" = out ] && [ "$(cat "$tmp/e")" = "err" ] ||
	fail "stdio not passed through: $(cat "$tmp/e")"

# The program keeps the launcher's pid: it is exec'd, not forked.
sh -c "\"$run\" -q -s zlib -- sh -c 'echo \$\$' >\"$tmp/child\" & echo \$! >\"$tmp/launcher\"; wait"
[ "$(cat "$tmp/child")" = "$(cat "$tmp/launcher")" ] || fail "pid changed: $(cat "$tmp/child") vs $(cat "$tmp/launcher")"

# LD_PRELOAD keeps what was there, after the shim.
LD_PRELOAD=/lib/x86_64-linux-gnu/libz.so.1 "$run" -q -s zlib -- sh -c 'echo "$LD_PRELOAD"' >"$tmp/o"
case "$(cat "$tmp/o")" in
*/libapiprof-zlib.so:/lib/x86_64-linux-gnu/libz.so.1) ;;
*) fail "LD_PRELOAD not kept: $(cat "$tmp/o")" ;;
esac

# A spec file: built on first use, then cached, rebuilt after a change.
cp "$spec" "$tmp/testlib.json"
"$run" -s "$tmp/testlib.json" -o "$tmp/out.json" -- "$prog" 2 1000 >/dev/null 2>"$tmp/e1" || fail "run with a spec file failed: $(cat "$tmp/e1")"
grep -q "building a shim" "$tmp/e1" || fail "first run did not build: $(cat "$tmp/e1")"
"$outdump" "$tmp/out.json" | grep -q "^worker-1 testlib.tl_add 1000$" || fail "no exact counts from a spec-file shim"
"$run" -s "$tmp/testlib.json" -- "$prog" 2 10 >/dev/null 2>"$tmp/e2"
grep -q "building" "$tmp/e2" && fail "second run rebuilt an unchanged spec"
sed 's/"tl_div"/"tl_div" /' "$tmp/testlib.json" >"$tmp/t2" && mv "$tmp/t2" "$tmp/testlib.json"
"$run" -s "$tmp/testlib.json" -- "$prog" 2 10 >/dev/null 2>"$tmp/e3"
grep -q "building" "$tmp/e3" || fail "a changed spec was not rebuilt"

# A bad spec: the generator's located error, the launcher's status 125.
printf '{"apiprof": 2}\n' >"$tmp/bad.json"
"$run" -s "$tmp/bad.json" -- true 2>"$tmp/e"
[ $? -eq 125 ] || fail "bad spec: status not 125"
grep -q "bad.json:1:" "$tmp/e" || fail "bad spec: no located error: $(cat "$tmp/e")"
"$run" -s nosuchapi -- true 2>"$tmp/e"
[ $? -eq 125 ] && grep -q "nosuchapi is neither a spec file nor a shipped api" "$tmp/e" || fail "unknown api not reported"

# A static binary runs unprofiled with one clear line; --strict refuses.
"$run" -s zlib -- "$static" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 0 ] && grep -q "static ok" "$tmp/o" || fail "static binary did not run"
grep -q "not dynamically linked: cannot interpose; running it unprofiled" "$tmp/e" || fail "static: no message: $(cat "$tmp/e")"
"$run" --strict -s zlib -- "$static" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 125 ] && [ ! -s "$tmp/o" ] || fail "--strict ran a static binary"

# A setuid program: the loader would ignore LD_PRELOAD; said, and run.
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	cp /bin/true "$tmp/suid-true"
	chown nobody "$tmp/suid-true" && chmod 4755 "$tmp/suid-true"
	"$run" -s zlib -- "$tmp/suid-true" 2>"$tmp/e"
	[ $? -eq 0 ] || fail "setuid program did not run"
	grep -q "setuid/setgid (the loader ignores LD_PRELOAD): cannot interpose; running it unprofiled" "$tmp/e" ||
		fail "setuid: no message: $(cat "$tmp/e")"
fi

[ $fails -eq 0 ] && echo "ok: launcher" && exit 0
exit 1
