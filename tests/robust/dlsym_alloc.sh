#!/bin/sh
# dlsym_alloc.sh MALLOC_SHIM BOOTPROG - failed dlsym lookups from 4
# threads under the malloc shim: glibc allocates and frees its error
# strings through the shim's malloc and free, and the shim's own lazy
# resolution of free calls dlsym from inside that.  Must not recurse.
# (This once double-freed glibc's dlerror string: the shim resolved free
# lazily from inside _dlerror_run.  Shims now resolve everything in their
# constructor, and a lookup nested in another is never cached as missing.)
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
malloc=$1 prog=$2
skip_if_sanitized "$malloc"
export APIPROF_OUTPUT="$tmp/out.json"

compare dlsym "$(shim_preload "$malloc")" "$prog" dlsym 20000
[ ! -s "$tmp/dlsym.shim.err" ] || fail "warnings: $(cat "$tmp/dlsym.shim.err")"
n=$(calls "$tmp/out.json" malloc.malloc)
[ "$n" -ge 1 ] || fail "dlsym: $n mallocs counted"
echo "ok: $(cat "$tmp/dlsym.shim.out") under the malloc shim, $n mallocs counted"
