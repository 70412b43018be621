#!/bin/sh
# run_cli.sh APIPROF_GEN VALID_SPEC
#
# The command line: exit statuses, usage errors, and that generating over
# an existing file replaces it.
set -u
gen=$1 spec=$2
# meson may pass the generator relative to the build directory.
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

expect() {
	want=$1
	shift
	"$@" >out.txt 2>err.txt
	st=$?
	[ $st -eq "$want" ] || { echo "FAIL: '$*' exited $st, want $want"; cat err.txt; exit 1; }
}

expect 0 "$gen" --version
grep -q '^apiprof-gen ' out.txt || { echo "FAIL: --version output"; exit 1; }
expect 0 "$gen" --help
grep -q 'usage:' out.txt || { echo "FAIL: --help output"; exit 1; }
expect 2 "$gen"
expect 2 "$gen" "$spec"
expect 2 "$gen" "$spec" -o
expect 2 "$gen" --bogus "$spec" -o x.c
expect 2 "$gen" "$spec" "$spec" -o x.c
expect 2 "$gen" --check "$spec" -o x.c
expect 1 "$gen" no-such-spec.json -o x.c
grep -q 'cannot open no-such-spec.json' err.txt || { echo "FAIL: missing-file message"; exit 1; }
[ ! -e x.c ] || { echo "FAIL: output written for a missing spec"; exit 1; }

expect 0 "$gen" --check "$spec"
[ ! -s err.txt ] || { echo "FAIL: --check printed something"; exit 1; }
echo stale >x.c
expect 0 "$gen" "$spec" -ox.c
grep -q 'do not edit' x.c || { echo "FAIL: x.c not replaced"; exit 1; }
[ "$(ls -A | grep -c tmp)" -eq 0 ] || { echo "FAIL: temporary left behind"; exit 1; }
expect 2 "$gen" --version-script "$spec"
expect 0 "$gen" --version-script "$spec" -o x.map
grep -q '^	local:$' x.map || { echo "FAIL: version script has no local:"; cat x.map; exit 1; }
echo "ok"
