#!/bin/sh
# stat.sh SHIM OUTDUMP PLAIN LFS - posix_io's stat family.
#
# 1. stat_prog N, built plain and with -D_FILE_OFFSET_BITS=64 (which
#    calls stat64 & co., checked first): the exact rows of its header
#    comment, in both builds, including the __xstat entry points.
# 2. Debian's unmodified stat(1): coreutils 9 stats each operand with one
#    statx (do_stat in src/stat.c), so 4 operands make exactly 3 more
#    statx calls than 1, and no other stat-family call more.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2 plain=$3 lfs=$4
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

uses() { nm -D --undefined-only "$1" | awk '{ print $2 }' | sed 's/@.*//' | grep -qx "$2"; }
for f in stat fstat lstat fstatat; do
	uses "$plain" $f || fail "$plain does not call $f"
	uses "$lfs" ${f}64 || fail "$lfs does not call ${f}64"
done
for f in __xstat __xstat64 __fxstat __fxstat64 __lxstat __lxstat64 __fxstatat __fxstatat64 statx; do
	uses "$plain" $f && uses "$lfs" $f || fail "stat_prog does not call $f"
done

# rows CMD... - the stat family's rows of CMD run under the shim
rows() {
	APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$preload" "$@" >"$tmp/shim.out"
	"$outdump" "$tmp/out.json" | awk '$2 ~ /^posix_io\.(f|l)?stat(at|x)?$/ {
		sub(/^posix_io\./, "", $2); n[$2] += $3 } END { for (f in n) print f, n[f] }' | sort
}
n=100
sort >"$tmp/want" <<WANT
fstat $((3 * n + 1))
fstatat $((3 * n))
lstat $((3 * n))
stat $((3 * n))
statx $n
WANT
echo data >"$tmp/file"
for prog in "$plain" "$lfs"; do
	"$prog" "$tmp/file" $n >"$tmp/bare.out"
	rows "$prog" "$tmp/file" $n >"$tmp/got"
	cmp "$tmp/bare.out" "$tmp/shim.out" || fail "$prog: output differs under the shim"
	diff -u "$tmp/want" "$tmp/got" || fail "$prog: stat rows differ"
done
echo "ok: stat_prog, plain and LFS builds: every stat-family row exact"

need stat coreutils
f=$tmp/file
stat -c %s "$f" >"$tmp/bare1.out"
rows stat -c %s "$f" >"$tmp/one"
cmp "$tmp/bare1.out" "$tmp/shim.out" || fail "stat(1): output differs under the shim"
rows stat -c %s "$f" "$f" "$f" "$f" >"$tmp/four"
join -a 1 -a 2 -e 0 -o 0,1.2,2.2 "$tmp/one" "$tmp/four" | awk '{ print $1, $3 - $2 }' >"$tmp/delta"
printf 'statx 3\n' >"$tmp/want_delta"
grep -v ' 0$' "$tmp/delta" | diff -u "$tmp/want_delta" - || fail "stat(1): 3 more operands"
echo "ok: stat(1): 3 more operands, exactly 3 more statx calls ($(cat "$tmp/one" | tr '\n' ' '))"
