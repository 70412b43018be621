#!/bin/sh
# dl_absent.sh RUNTIME SHIM PROG - under the zlib shim, a program without
# libz that probes dlsym(RTLD_DEFAULT, "zlibVersion") finds nothing, as
# bare: same output ("absent"), same exit status, glibc's "undefined symbol"
# error.  After it dlopen()s libz the probe finds it and the calls are
# counted.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 shim=$2 prog=$3
skip_if_sanitized "$shim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
pl=$(shim_preload "$runtime" "$shim")

# run TAG ARGS...: bare, then under the shim; same output and status, and
# $want_err on stderr under the shim
run() {
	tag=$1
	shift
	st=0
	"$prog" "$@" >"$tmp/$tag.bare" 2>&1 || st=$?
	echo $st >"$tmp/$tag.bare.st"
	st=0
	timeout -k 5 60 env APIPROF_OUTPUT="$tmp/$tag.json" LD_PRELOAD="$pl" "$prog" "$@" \
		>"$tmp/$tag.shim" 2>"$tmp/$tag.err" || st=$?
	echo $st >"$tmp/$tag.shim.st"
	cmp -s "$tmp/$tag.bare" "$tmp/$tag.shim" ||
		fail "$tag: output differs; bare: $(cat "$tmp/$tag.bare"); shim: $(cat "$tmp/$tag.shim")"
	cmp -s "$tmp/$tag.bare.st" "$tmp/$tag.shim.st" ||
		fail "$tag: exit status $(cat "$tmp/$tag.shim.st"), bare $(cat "$tmp/$tag.bare.st")"
	[ "$(cat "$tmp/$tag.err")" = "$want_err" ] || fail "$tag: unexpected stderr: $(cat "$tmp/$tag.err")"
}
# A run that never loads libz says so at exit, in this one line.
never='apiprof: zlib: libz.so.1 was never loaded; is the program static, or the library named differently?'
count() { "$OUTDUMP" "$1" | awk '$2 == "zlib.zlibVersion" { n += $3 } END { print n + 0 }'; }

want_err=$never
run probe 100
want_err=
grep -qx "absent, undefined symbol" "$tmp/probe.shim" || fail "probe: $(cat "$tmp/probe.shim")"
[ "$(cat "$tmp/probe.shim.st")" -eq 3 ] || fail "probe: exit status $(cat "$tmp/probe.shim.st")"
[ "$(count "$tmp/probe.json")" -eq 0 ] || fail "probe: $(count "$tmp/probe.json") calls counted"

run load 100 load
sed -n 2p "$tmp/load.shim" | grep -q '^present: ' || fail "load: $(cat "$tmp/load.shim")"
[ "$(count "$tmp/load.json")" -eq 100 ] || fail "load: $(count "$tmp/load.json") of 100 calls counted"
echo "ok: an absent library's wrapper is not found through RTLD_DEFAULT; once loaded, it is, and counted"
