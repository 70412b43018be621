#!/bin/sh
# import_zstd.sh APIPROF_GEN APIPROF_RUN OUTDUMP ZSTD_PROG
#
# An import that needs -D: zstd.h declares its experimental API only with
# ZSTD_STATIC_LINKING_ONLY.  The spec records the macro, and apiprof-run
# builds the shim with it and profiles ZSTD_PROG with exact counts and
# unchanged output.
set -eu
. "$(dirname "$0")/../lib.sh"
gen=$1 run=$2 outdump=$3 prog=$4
for v in gen run outdump prog; do
	eval "case \$$v in /*) ;; *) $v=\$PWD/\$$v ;; esac"
done
skip_if_sanitized "$run"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export APIPROF_CACHE="$tmp/cache"

"$gen" import /usr/include/zstd.h -D ZSTD_STATIC_LINKING_ONLY --library libzstd.so.1 \
	--prefix ZSTD_ --api zstd -o zstd.json 2>import.err || { cat import.err; exit 1; }
grep -qx '  "defines": \["ZSTD_STATIC_LINKING_ONLY"\],' zstd.json ||
	{ echo "FAIL: -D not recorded"; head -10 zstd.json; exit 1; }
grep -q '"name": "ZSTD_getCParams"' zstd.json || { echo "FAIL: no experimental API"; exit 1; }
"$prog" >bare.txt
"$run" -q -s ./zstd.json -o out.json -- "$prog" >shim.txt 2>run.err || { cat run.err; exit 1; }
cmp bare.txt shim.txt
"$outdump" out.json | awk '$2 ~ /^zstd\./ { print $2, $3 }' | sort >got.txt
cat >want.txt <<'WANT'
zstd.ZSTD_compress 3
zstd.ZSTD_estimateCCtxSize_usingCParams 1
zstd.ZSTD_getCParams 1
WANT
cmp want.txt got.txt || { diff -u want.txt got.txt; exit 1; }
echo ok
