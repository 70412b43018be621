#!/bin/sh
# sigstart.sh RUNTIME SHIM SIGSTARTLIB CALLS - a signal that arrives while
# the runtime starts up on the program's thread, registers an api, or
# gives the thread its table at its first call: the calls its handler
# makes are counted, as the program's other calls (sigstartlib.c raises
# it from within), and the program runs as bare.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
runtime=$1 shim=$2 lib=$3 prog=$4
n=1000

pl=$(shim_preload "$runtime" "$shim"):$lib
for at in start attach register; do
	SIGSTART_AT=$at APIPROF_OUTPUT="$tmp/$at.json" wd env LD_PRELOAD="$pl" "$prog" $n \
		>"$tmp/$at.out" 2>"$tmp/$at.err"
	st=$?
	[ $st -eq 0 ] || fail "$at: status $st: $(cat "$tmp/$at.out" "$tmp/$at.err")"
	[ "$(cat "$tmp/$at.out")" = "$(printf 'handler 6\nsum %d' $n)" ] ||
		fail "$at: the handler did not run once: $(cat "$tmp/$at.out" "$tmp/$at.err")"
	[ ! -s "$tmp/$at.err" ] || fail "$at: stderr: $(cat "$tmp/$at.err")"
	got=$(calls "$tmp/$at.json" testlib.tl_add)
	[ "$got" = $((n + 6)) ] ||
		fail "$at: $got calls of tl_add counted, $((n + 6)) made ($n by main, 6 by the handler)"
	echo "ok: $at: the 6 calls of a handler that interrupted it are counted, with main's $n"
done
