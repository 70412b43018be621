#!/bin/sh
# startup_absent.sh SQLITE3_SHIM BM1_SHIM BM1000_SHIM APIPROF_RUN DLADDR_COUNT STARTUP_COUNT
#
# A process that never loads a spec's library pays one question per shim,
# not one per function (issue 35.6).  `true` never loads libsqlite3: under
# the sqlite3 shim it opened the loader cache and libsqlite3.so.0 once per
# function of the spec (176 and 173 times), because the shim's constructor
# looked every function up and, not finding it, looked for the library.
# Now the library is asked about once, at the constructor (the end of the
# image asks nothing more: no object was added since).  And the loader's
# symbol lookups (LD_DEBUG=symbols: the relocations and every dlsym) are
# as many under a shim of 1000 functions as under one of 1, both for a
# library `true` does not load, and so are the runtime's dladdr1 calls:
# two, one for each module of apiprof's own code (the runtime's and the
# shim's, apiprof_wrappers_ours), and none for the wrappers' extents, which
# come from the end of their section (one dladdr1 per wrapper, each a scan
# of the shim's symbols, made 1000 functions cost 4 ms; then one more to
# read the shim's symbol table by hand).  And apiprof-run --dynamic's probe (did
# ld.so load the profiler?) reads no spec: only the program does, once in
# its audit module and once in the profiler.  And nothing else is done per
# function of such a spec (STARTUP_COUNT says what): the shim's constructor
# looks up none of its functions (it looked up all 1000, each a call into
# the runtime, finding nothing), and the runtime makes no table for them
# (the folded totals and the wrappers' extents, 650 kB for 1000 functions,
# come with the api's first call): the anonymous memory resident at exit is
# the same, to the kB, as under a spec of 1 function.  Counts, never times.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
sqlite3_shim=$1 bm1=$2 bm1000=$3 run=$4 counter=$5 startup=$6
skip_if_sanitized "$sqlite3_shim"
need strace strace
t=/bin/true

# opens FILE-PATTERN CMD...: how many files of the pattern CMD opened (a
# search through LD_LIBRARY_PATH tries several names: one open)
opens() {
	pat=$1
	shift
	wd strace -f -qq -e trace=openat -o "$tmp/trace" "$@" 2>"$tmp/err" ||
		fail "$*: status $st: $(cat "$tmp/err")"
	grep "$pat" "$tmp/trace" | grep -c " = [0-9]"
}

cache_bare=$(opens 'ld\.so\.cache' $t)
cache_shim=$(opens 'ld\.so\.cache' env LD_PRELOAD="$sqlite3_shim" $t)
cache_env=$(opens 'ld\.so\.cache' env $t)
lib_shim=$(opens 'libsqlite3\.so' env LD_PRELOAD="$sqlite3_shim" $t)
added=$((cache_shim - cache_env))
echo "ld.so.cache opened: bare $cache_bare, env $cache_env, under the shim $cache_shim; libsqlite3 opened: $lib_shim"
[ "$lib_shim" -eq 1 ] || fail "true under the sqlite3 shim opened libsqlite3 $lib_shim times, not once"
[ "$added" -eq 1 ] || fail "true under the sqlite3 shim opened the loader cache $added more times than bare, not once"

# lookups SHIM: the loader's symbol lookups in `true` under SHIM
lookups() {
	wd env LD_DEBUG=symbols LD_DEBUG_OUTPUT="$tmp/ld" LD_PRELOAD="$1" $t 2>"$tmp/err" ||
		fail "true under $1: status $st: $(cat "$tmp/err")"
	n=$(cat "$tmp"/ld.* | grep -c 'symbol=')
	rm -f "$tmp"/ld.*
	echo "$n"
}
n1=$(lookups "$bm1")
n1000=$(lookups "$bm1000")
echo "symbol lookups in true: spec of 1 function $n1, of 1000 functions $n1000"
[ "$n1" -gt 0 ] || fail "LD_DEBUG=symbols reported no lookup"
[ "$n1000" -eq "$n1" ] || fail "a spec of 1000 functions made $n1000 symbol lookups, one of 1 made $n1"
# dladdrs SHIM: the dladdr1 calls in `true` under SHIM
dladdrs() {
	wd env LD_PRELOAD="$counter:$1" $t 2>"$tmp/err" || fail "true under $1: status $st"
	sed -n 's/^dladdr1 calls: //p' "$tmp/err"
}
d1=$(dladdrs "$bm1")
d1000=$(dladdrs "$bm1000")
echo "dladdr1 calls in true: spec of 1 function $d1, of 1000 functions $d1000"
[ -n "$d1" ] && [ -n "$d1000" ] || fail "the counter said nothing: $(cat "$tmp/err")"
[ "$d1000" -eq "$d1" ] || fail "a spec of 1000 functions made $d1000 dladdr1 calls, one of 1 made $d1"
[ "$d1000" -eq 2 ] || fail "the runtime made $d1000 dladdr1 calls at start, not 2 (its module's and the shim's)"

# work SHIM: "LOOKUPS ANONYMOUS_KB" of `true` under SHIM
work() {
	wd env LD_PRELOAD="$startup:$1" $t 2>"$tmp/err" || fail "true under $1: status $st"
	echo "$(sed -n 's/^lookups //p' "$tmp/err") $(sed -n 's/^anonymous //p' "$tmp/err")"
}
w1=$(work "$bm1")
w1000=$(work "$bm1000")
wsq=$(work "$sqlite3_shim")
echo "lookups, anonymous kB in true: spec of 1 function $w1, of 1000 functions $w1000, sqlite3 $wsq"
set -- $w1 $w1000 $wsq
[ $# -eq 6 ] || fail "the counter said: $(cat "$tmp/err")"
[ "$1" -eq 0 ] && [ "$3" -eq 0 ] && [ "$5" -eq 0 ] ||
	fail "the shims' constructors looked up $1, $3 and $5 functions of a library never loaded, not 0"
[ "$4" -eq "$2" ] || fail "under a spec of 1000 functions $4 kB of anonymous memory, under one of 1 $2 kB"
echo "ok: an absent library costs one question per shim, whatever the spec's size"

reads=$(opens 'sqlite3\.json' "$run" -q --dynamic -s sqlite3 -- $t)
[ "$reads" -eq 2 ] || fail "apiprof-run --dynamic opened the spec $reads times, not 2 (the program's)"
echo "ok: apiprof-run --dynamic's probe reads no spec"
