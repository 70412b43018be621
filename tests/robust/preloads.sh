#!/bin/sh
# preloads.sh jemalloc|faketime MALLOC_SHIM ALLOCPROG - the malloc shim
# stacked with libjemalloc or with libfaketime, in both orders: the same output and
# exit status as the other preload alone, and calls counted whenever the
# shim can see them.
#
# With jemalloc *ahead* of the shim, the program's malloc binds to
# jemalloc's and never reaches the shim: nothing can be counted then, and
# the test asserts only that everything runs unchanged (and, from the
# output, that jemalloc really served the calls).
#
# libfaketime resolves its real functions lazily with dlsym, from inside
# whatever it wraps: this once made the shim's first free double-free
# glibc's dlerror string (see dlsym_alloc.sh).
#
# libfaketime keeps a segment and a semaphore in /dev/shm, which its
# destructor removes: a run that aborts would leave them there.  So the
# faketime runs get a /dev/shm of their own, in a private mount namespace,
# where one can be had.
set -u
if [ "$1" = faketime ] && [ -z "${PRELOADS_OWN_SHM:-}" ] &&
	unshare -m sh -c 'mount -t tmpfs tmpfs /dev/shm' 2>/dev/null; then
	export PRELOADS_OWN_SHM=1
	exec unshare -m sh -c 'mount -t tmpfs tmpfs /dev/shm && exec sh "$0" "$@"' "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
which=$1 shim=$2 prog=$3
skip_if_sanitized "$shim"
lib=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
jemalloc=$lib/libjemalloc.so.2 faketime=$lib/faketime/libfaketime.so.1
ran=0

# stack NAME OTHER ORDER MIN CMD...: OTHER alone vs OTHER and the shim.
stack() {
	name=$1 other=$2 order=$3 min=$4
	shift 4
	case $order in
	shim-first) pl="$shim:$other" ;;
	*) pl="$other:$shim" ;;
	esac
	rm -f "$tmp/out.json"
	# The "bare" run of compare has the other preload alone.
	bare_preload=$other compare "$name-$order" "$pl" "$@"
	n=$(calls "$tmp/out.json" malloc.malloc)
	[ "$n" -ge "$min" ] || fail "$name $order: $n malloc calls counted, want >= $min"
	echo "ok: $name, $order: '$(cat "$tmp/$name-$order.shim.out")', $n malloc calls counted"
	ran=$((ran + 1))
}
export APIPROF_OUTPUT="$tmp/out.json"

if [ "$which" != jemalloc ]; then
	:
elif [ -f "$jemalloc" ]; then
	for order in shim-first shim-last; do
		min=1
		[ $order = shim-last ] && min=0
		stack jemalloc "$jemalloc" $order $min "$prog"
		grep -q '^usable 8 ' "$tmp/jemalloc-$order.shim.out" || fail "jemalloc did not serve the calls"
		stack "jemalloc ls" "$jemalloc" $order $min ls -la /usr
	done
else
	fail "$jemalloc missing (Debian libjemalloc2, which ./quickstart installs)"
fi

if [ "$which" != faketime ]; then
	:
elif [ -f "$faketime" ]; then
	export FAKETIME="@2001-02-03 04:05:06"
	for order in shim-first shim-last; do
		stack faketime "$faketime" $order 1 "$prog"
		grep -q ' year 2001 ' "$tmp/faketime-$order.shim.out" || fail "faketime not in effect"
		stack "faketime date" "$faketime" $order 1 date -u +%F
	done
	unset FAKETIME
else
	fail "$faketime missing (Debian libfaketime, which ./quickstart installs)"
fi
[ $ran -gt 0 ] || fail "nothing ran for $which"
