#!/bin/sh
# alias_builds.sh SHIM OUTDUMP PLAIN FORTIFY LFS [FORTIFY_LFS] - one program
# built several ways must get identical per-row counts under the posix_io
# shim, although each build calls different entry points (checked first,
# so the test cannot pass by all builds calling the same ones).  50 rounds
# of 2 opens, plus the directory: open counts 101 in every build.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
preload=$(shim_preload "$shim")

uses() { nm -D --undefined-only "$1" | awk '{ print $2 }' | sed 's/@.*//' | grep -qx "$2"; }
uses "$2" __read_chk && uses "$2" __open_2 || { echo "FAIL: $2 is not fortified"; exit 1; }
uses "$3" open64 && uses "$3" pread64 && uses "$3" lseek64 ||
	{ echo "FAIL: $3 does not use the 64-bit entry points"; exit 1; }

first=
for prog in "$@"; do
	APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$preload" "$prog" "$tmp" 50
	"$outdump" "$tmp/out.json" | awk '$2 ~ /^posix_io\./ { print $2, $3 }' | sort >"$tmp/got"
	if [ -z "$first" ]; then
		first=$prog
		cp "$tmp/got" "$tmp/want"
		grep -qx 'posix_io.open 101' "$tmp/want" || { echo "FAIL: $prog"; cat "$tmp/want"; exit 1; }
	else
		diff -u "$tmp/want" "$tmp/got" || { echo "FAIL: $prog counts differ from $first"; exit 1; }
	fi
done
echo "ok: $# builds count the same rows:"
cat "$tmp/want"
