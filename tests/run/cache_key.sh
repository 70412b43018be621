#!/bin/sh
# cache_key.sh APIPROF_RUN TESTPROG SPEC OUTDUMP INCLUDEDIR
#
# A cached shim is reused only while the headers it was compiled against
# are the same: a new apiprof can change the shim ABI in apiprof_shim.h
# with an apiprof-gen of the same bytes, and the runtime refuses a shim of
# another ABI.  The launcher builds with a copy of INCLUDEDIR's headers
# (APIPROF_INCLUDEDIR), reuses the shim, then builds a new one once the
# copy of apiprof_shim.h has changed; each run gives exact counts.  The
# same for a header the spec includes (testlib.h, a copy found through
# CPATH): the key covers the preprocessed source (issue 34), so a changed
# declaration there builds a new shim too, and an unchanged one does not.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1 prog=$2 spec=$3 outdump=$4 incdir=$5
skip_if_sanitized "$run"
cp "$spec" "$tmp/testlib.json"
mkdir "$tmp/inc" "$tmp/api"
cp "$incdir"/*.h "$tmp/inc/" # every installed header: apiprof_shim.h includes its layers
cp "$(dirname "$spec")/testlib.h" "$tmp/api/"
export CPATH="$tmp/api"
unset XDG_CACHE_HOME
export APIPROF_CACHE="$tmp/cache" APIPROF_INCLUDEDIR="$tmp/inc"

. "$(dirname "$0")/launch.sh"

# one TAG BUILT SHIMS: exact counts; a "building" line when BUILT is 1;
# SHIMS shims in the cache.
one() {
	launch "$1"
	[ "$st" -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.err")"
	"$outdump" "$tmp/$1.json" | grep -qx "worker-1 testlib.tl_add 1000" ||
		fail "$1: no exact counts: $(cat "$tmp/$1.err")"
	built=$(grep -c "^apiprof-run: building a shim for " "$tmp/$1.err")
	[ "$built" -eq "$2" ] || fail "$1: $built shims built, want $2: $(cat "$tmp/$1.err")"
	n=$(ls "$tmp/cache" | grep -c '^libapiprof-.*\.so$')
	[ "$n" -eq "$3" ] || fail "$1: $n shims in the cache, want $3: $(ls "$tmp/cache")"
}

one first 1 1
one again 0 1
echo "/* the next apiprof's header */" >>"$tmp/inc/apiprof_shim.h"
one new_header 1 2
echo "int tl_next_version(int);" >>"$tmp/api/testlib.h"
one new_api_header 1 3
one api_again 0 3
echo "ok: a cached shim is reused while its headers are the same, rebuilt when they change"
