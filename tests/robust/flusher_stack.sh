#!/bin/sh
# flusher_stack.sh SHIM MAPSPROG MAPSPROG_BIGTLS - the flusher thread adds
# no mapping to the process: its stack is the runtime's own .bss.  A
# program whose static TLS does not fit there still gets its flusher, on a
# stack of glibc's, and no warning.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2 big=$3
pl=$(shim_preload "$shim")

# run TAG PROG [ENV...]: PROG under the shim; its line into $tmp/TAG.
run() {
	tag=$1 p=$2
	shift 2
	wd env LD_PRELOAD="$pl" "$@" "$p" >"$tmp/$tag" 2>"$tmp/$tag.err" ||
		fail "$tag: exit status $?: $(cat "$tmp/$tag.err")"
	[ ! -s "$tmp/$tag.err" ] || fail "$tag: stderr: $(cat "$tmp/$tag.err")"
	grep -q ' sum 42$' "$tmp/$tag" || fail "$tag: wrong result: $(cat "$tmp/$tag")"
}
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$tmp/$1"; }

run on "$prog"
run off "$prog" APIPROF_INTERVAL_MS=0
[ "$(field on threads)" -eq 2 ] || fail "no flusher thread: $(cat "$tmp/on")"
[ "$(field off threads)" -eq 1 ] || fail "a thread with APIPROF_INTERVAL_MS=0: $(cat "$tmp/off")"
[ "$(field on maps)" -eq "$(field off maps)" ] ||
	fail "the flusher added mappings: $(field off maps) without it, $(field on maps) with it"
echo "ok: the flusher thread runs and adds no mapping ($(field on maps) mappings either way)"

run big "$big"
[ "$(field big threads)" -eq 2 ] || fail "1 MiB of static TLS: no flusher thread: $(cat "$tmp/big")"
echo "ok: with 1 MiB of static TLS the flusher runs on a stack of glibc's, no warning"
