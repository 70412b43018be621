#!/bin/sh
# stdio.sh SHIM OUTDUMP STDIO_PROG STDIO_PROG_FORTIFY - the stdio spec.
#
# 1. Debian's unmodified sed: for every output line it calls fwrite twice
#    (the text, then the newline: ck_fwrite in sed/execute.c, through
#    gnulib's fwrite_unlocked), so `sed s/1/x/` on F files of N lines
#    calls fwrite exactly 2*N*F times; each input file adds one fopen and
#    one fclose; `sed -n '$='` prints the line count with one fprintf.
# 2. stdio_prog, built plain and fortified: the exact rows in its header
#    comment, identical for both builds.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2 prog=$3 progf=$4
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# rows CMD... - runs CMD under the shim, prints "function calls" sorted.
rows() {
	APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$preload" "$@" >"$tmp/shim.out"
	"$outdump" "$tmp/out.json" | awk '$2 ~ /^stdio\./ { sub(/^stdio\./, "", $2); print $2, $3 }' | sort
}
count() { awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }'; }

need sed sed
n=1000
seq 1 $n >"$tmp/in.txt"
sed s/1/x/ "$tmp/in.txt" >"$tmp/bare1.out"
rows sed s/1/x/ "$tmp/in.txt" >"$tmp/one.txt"
cmp "$tmp/bare1.out" "$tmp/shim.out"
rows sed s/1/x/ "$tmp/in.txt" "$tmp/in.txt" "$tmp/in.txt" >"$tmp/three.txt"
[ "$(count fwrite <"$tmp/one.txt")" -eq $((2 * n)) ] || fail "sed, 1 file: fwrite $(count fwrite <"$tmp/one.txt"), want $((2 * n))"
[ "$(count fwrite <"$tmp/three.txt")" -eq $((6 * n)) ] || fail "sed, 3 files: fwrite, want $((6 * n))"
for f in fopen fclose; do
	d=$(($(count $f <"$tmp/three.txt") - $(count $f <"$tmp/one.txt")))
	[ $d -eq 2 ] || fail "sed: two more input files made $d more $f calls, want 2"
done
rows sed -n '$=' "$tmp/in.txt" >"$tmp/count.txt"
[ "$(cat "$tmp/shim.out")" = $n ] || fail "sed -n '\$=' printed $(cat "$tmp/shim.out")"
[ "$(count fprintf <"$tmp/count.txt")" -eq 1 ] || fail "sed -n '\$=': fprintf, want 1"
echo "ok: sed: fwrite 2 per line over 1 and 3 files, one fopen/fclose per file, fprintf 1"

m=200
cat >"$tmp/want.txt" <<WANT
fclose 3
fflush 1
fgets $((m + 2))
fopen 3
fprintf $m
fputs $m
fread 2
printf 1
snprintf $m
sprintf $m
fwrite 1
WANT
sort -o "$tmp/want.txt" "$tmp/want.txt"
for p in "$prog" "$progf"; do
	"$p" "$tmp/bare.txt" $m >"$tmp/bare.out"
	rows "$p" "$tmp/shim.txt" $m >"$tmp/got.txt"
	cmp "$tmp/bare.out" "$tmp/shim.out"
	cmp "$tmp/bare.txt" "$tmp/shim.txt"
	cmp "$tmp/want.txt" "$tmp/got.txt" || { diff -u "$tmp/want.txt" "$tmp/got.txt"; fail "$(basename "$p")"; }
done
echo "ok: stdio_prog plain and fortified: the same exact rows"
