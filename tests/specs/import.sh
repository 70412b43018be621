#!/bin/sh
# import.sh APIPROF_GEN SHIPPED.json VERIFY VERIFY_ARG... -- IMPORT_ARG...
#
# `apiprof-gen import IMPORT_ARG...` on a real system header must give
# exactly the shipped spec (it is how the spec was made: re-importing is
# how it is kept up to date), but for the "bytes", "fails" and "errno"
# that the importer cannot guess and the shipped spec adds by hand;
# `apiprof-gen build` must compile it, and VERIFY SHIM VERIFY_ARG... must
# then pass with the freshly built shim.
set -eu
gen=$1 shipped=$2 verify=$3
shift 3
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
vargs=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	vargs="$vargs $1"
	shift
done
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" import "$@" -o "$tmp/spec.json" 2>"$tmp/import.err" || { cat "$tmp/import.err"; exit 1; }
sed -E -e 's/"bytes": ("[^"]*"|\["[^"]*", "[^"]*"\]), //' -e 's/"fails": ("[^"]*"|\{"not": \[[^]]*\]\}), //' \
	-e 's/"errno": true, //' "$shipped" >"$tmp/shipped.json"
cmp "$tmp/shipped.json" "$tmp/spec.json" || { diff -u "$tmp/shipped.json" "$tmp/spec.json"; exit 1; }
(cd "$tmp" && "$gen" build spec.json -o libapiprof-imported.so) 2>"$tmp/build.err" ||
	{ cat "$tmp/build.err"; exit 1; }
# shellcheck disable=SC2086
sh "$verify" "$tmp/libapiprof-imported.so" $vargs
