#!/bin/sh
# bootstrap.sh RUNTIME MALLOC_SHIM POSIX_IO_SHIM BOOTLIB BOOTPROG - start-up
# under the malloc and posix_io shims: a first call of calloc(1, 1), a
# library constructor that allocates and opens before the runtime's
# constructor ran.  (dlsym's own allocations: dlsym_alloc.sh.)
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
runtime=$1 malloc=$2 posix=$3 bootlib=$4 prog=$5
skip_if_sanitized "$malloc"
export APIPROF_OUTPUT="$tmp/out.json"

compare calloc "$(shim_preload "$malloc")" "$prog" calloc
n=$(calls "$tmp/out.json" malloc.calloc)
[ "$n" -ge 1 ] || fail "calloc first: $n calloc calls counted"
echo "ok: calloc(1, 1) first: runs unchanged, $n calloc calls counted"

# bootlib linked (its constructor runs after the runtime's), then
# preloaded last behind the runtime, which makes the loader run its
# constructor before the runtime's and the shims' (checked below, so
# that the test cannot pass vacuously): the runtime must start on first
# use.  main makes 1 calloc and 1 open, the constructor 1 calloc, 1 malloc
# and 1 open.
for how in linked first; do
	case $how in
	linked) pl=$(shim_preload "$malloc" "$posix") ;;
	first) pl=$(shim_preload "$runtime" "$malloc" "$posix" "$bootlib") ;;
	esac
	compare "ctor-$how" "$pl" "$prog" ctor
	if [ $how = first ]; then
		LD_DEBUG=files LD_PRELOAD="$pl" "$prog" ctor 2>&1 >/dev/null |
			sed -n 's/.*calling init: //p' | grep -E 'libbootlib|libapiprof\.so' >"$tmp/order"
		head -n 1 "$tmp/order" | grep -q libbootlib ||
			fail "bootlib's constructor did not run before the runtime's: $(cat "$tmp/order")"
	fi
	opens=$(calls "$tmp/out.json" posix_io.open)
	mallocs=$(calls "$tmp/out.json" malloc.malloc)
	callocs=$(calls "$tmp/out.json" malloc.calloc)
	# Counted, or at least safe: main's own calls must be there, the
	# constructor's may be.
	[ "$opens" -eq 2 ] || [ "$opens" -eq 1 ] || fail "ctor $how: $opens opens counted, want 1 or 2"
	[ "$callocs" -ge 1 ] || fail "ctor $how: $callocs callocs counted"
	note=counted
	[ "$opens" -eq 2 ] || note="NOT counted"
	echo "ok: constructor(101) $how: runs unchanged; its open $note ($opens opens, $mallocs mallocs, $callocs callocs)"
done

