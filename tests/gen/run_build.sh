#!/bin/sh
# run_build.sh APIPROF_GEN SPEC SYMBOL...
#
# `apiprof-gen build` must turn SPEC into a shared library that exports
# each SYMBOL, and that library must preload into a program harmlessly.
set -u
gen=$1 spec=$2
shift 2
# meson may pass the generator relative to the build directory.
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" build "$spec" -o "$tmp/libshim.so" || { echo "FAIL: build exited $?"; exit 1; }
nm -D --defined-only "$tmp/libshim.so" | awk '{ print $3 }' >"$tmp/syms.txt"
for s in "$@"; do
	grep -qx "$s" "$tmp/syms.txt" || { echo "FAIL: $s not exported"; cat "$tmp/syms.txt"; exit 1; }
done
. "$(dirname "$0")/../lib.sh"
out=$(LD_PRELOAD="$(shim_preload "$tmp/libshim.so")" /bin/echo preloaded) || { echo "FAIL: preloaded run"; exit 1; }
[ "$out" = preloaded ] || { echo "FAIL: preloaded run printed '$out'"; exit 1; }

# The default output name, in the current directory.
cd "$tmp" || exit 1
"$gen" build "$spec" >/dev/null || { echo "FAIL: build with the default name"; exit 1; }
ls libapiprof-*.so >/dev/null || { echo "FAIL: no libapiprof-<api>.so"; exit 1; }
echo "ok"
