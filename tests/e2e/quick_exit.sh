#!/bin/sh
# quick_exit.sh RUNTIME SHIM PROG - quick_exit() skips atexit and the
# destructors, as _exit does, but runs the at_quick_exit handlers: the
# output has every call, the handler's too, and the segment is removed;
# with the runtime preloaded ahead of libc (as apiprof-run does) and as
# the shim's mere dependency.  In a mount namespace of its own with a
# fresh tmpfs on /dev/shm, where whatever is left is this test's.
set -eu
if [ "${QUICK_EXIT_NS:-}" != 1 ]; then
	unshare -m --propagation private true 2>/dev/null ||
		{ echo "SKIP: cannot make a mount namespace (unshare -m)"; exit 77; }
	exec unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
		QUICK_EXIT_NS=1 exec "$0" "$@"' "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
runtime=$1 shim=$2 prog=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { "$OUTDUMP" "$1" | awk '$2 == "testlib.tl_add" { n += $3 } END { print n + 0 }'; }
fail() { echo "FAIL: $*"; exit 1; }

for how in ahead dependency; do
	case $how in
	ahead) preload=$(shim_preload "$runtime" "$shim") ;;
	dependency) preload=$(shim_preload "$shim") ;;
	esac
	set +e
	APIPROF_OUTPUT="$tmp/$how.json" LD_PRELOAD="$preload" "$prog" quick_exit 7 >"$tmp/o" 2>"$tmp/e"
	st=$?
	set -e
	[ $st -eq 4 ] || fail "$how: quick_exit status $st: $(cat "$tmp/e")"
	[ "$(cat "$tmp/o")" = "$(printf 'quick_exit: 7\nquick_exit handler: 2')" ] ||
		fail "$how: output: $(cat "$tmp/o")"
	[ ! -s "$tmp/e" ] || fail "$how: stderr: $(cat "$tmp/e")"
	[ -e "$tmp/$how.json" ] || fail "$how: quick_exit wrote no APIPROF_OUTPUT"
	[ "$(count "$tmp/$how.json")" -eq 9 ] ||
		fail "$how: $(count "$tmp/$how.json") calls written, 9 made (7, then 2 by the handler)"
	left=$(ls -A /dev/shm)
	[ -z "$left" ] || fail "$how: quick_exit left $left in /dev/shm"
	echo "ok: $how: quick_exit wrote all 9 calls (the handler's 2 too) and removed the segment"
done
