#!/bin/sh
# dyn_env.sh RUNTIME DYNLIB AUDIT SPEC SCRIPT ARGS...
#
# Runs a test script of the generated mode in dynamic mode, unchanged: an
# argument "DYN" (where the script takes its shim) becomes the runtime
# plus libapiprof-dyn.so, and LD_AUDIT and APIPROF_SPEC are set, as
# apiprof-run --dynamic sets them.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 dynlib=$2 audit=$3 spec=$4 script=$5
shift 5
skip_if_sanitized "$dynlib"
export LD_AUDIT="$audit" APIPROF_SPEC="$spec"
for a; do
	shift
	[ "$a" = DYN ] && a="$runtime:$dynlib"
	set -- "$@" "$a"
done
exec "$script" "$@"
