#!/bin/sh
# run_invalid.sh APIPROF_GEN CASE_DIR
#
# CASE_DIR holds spec.json and error, the exact line apiprof-gen must print
# on stderr.  The spec is run from a scratch directory, as "spec.json", in
# both generate and --check mode; each must exit 1, print exactly that
# line, and leave no file behind (no output, no temporary).
set -u
gen=$1 case=$2
# meson may pass the generator relative to the build directory.
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$case/spec.json" "$tmp/spec.json"
cd "$tmp" || exit 1

fail() {
	echo "FAIL ($mode): $*"
	exit 1
}

for mode in generate check; do
	if [ $mode = generate ]; then
		"$gen" spec.json -o out.c 2>stderr.txt
	else
		"$gen" --check spec.json 2>stderr.txt
	fi
	st=$?
	[ $st -eq 1 ] || fail "exit status $st, want 1"
	if ! cmp -s stderr.txt "$case/error"; then
		echo "--- want"; cat "$case/error"; echo "--- got"; cat stderr.txt
		fail "wrong message"
	fi
	left=$(ls -A | grep -v -e '^spec.json$' -e '^stderr.txt$')
	[ -z "$left" ] || fail "files left behind: $left"
done
echo "ok: $(cat "$case/error")"
