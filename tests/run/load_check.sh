#!/bin/sh
# load_check.sh APIPROF_RUN RUNTIME SPEC
#
# When ld.so does not load what the launcher preloads (a shim whose NEEDED
# library is gone, a damaged runtime, an audit module it refuses), the
# program must not run unprofiled (or die in ld.so) while apiprof-run
# looks as if all were well: the launcher says so in one line
# ("the profiler did not load: <ld.so's reason>"), exits 125, and the
# program does not run.  A broken library of the user's own LD_PRELOAD is
# not the profiler's: the program runs, as it would bare.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1 runtime=$2 spec=$3
skip_if_sanitized "$run"
export APIPROF_CACHE="$tmp/cache"
CC=${CC:-cc}

# go TAG [VAR=VALUE...] -- ARGS...: apiprof-run ARGS touching $tmp/TAG.ran.
go() {
	tag=$1
	shift
	wd env "$@" touch "$tmp/$tag.ran" >"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
}

# refused TAG LINE: status 125, the program not run, exactly LINE.
refused() {
	[ "$st" -eq 125 ] || fail "$1: status $st, want 125: $(cat "$tmp/$1.err")"
	[ ! -e "$tmp/$1.ran" ] || fail "$1: the program ran"
	[ "$(cat "$tmp/$1.err")" = "$2" ] || {
		cat "$tmp/$1.err"
		fail "$1: want exactly this line on stderr: $2"
	}
}

# A shim whose NEEDED library is missing.
mkdir "$tmp/shims" "$tmp/lib"
echo 'int apiprof_h4_nope(void) { return 1; }' >"$tmp/nope.c"
echo 'int apiprof_h4_shim(void) { return 2; }' >"$tmp/shim.c"
$CC -shared -fPIC -o "$tmp/lib/libapiprofnope.so" "$tmp/nope.c" &&
	$CC -shared -fPIC -o "$tmp/shims/libapiprof-zlib.so" "$tmp/shim.c" \
		-L"$tmp/lib" -Wl,--no-as-needed -lapiprofnope ||
	fail "cannot build the test libraries with $CC"
rm "$tmp/lib/libapiprofnope.so"
go needed APIPROF_SHIMDIR="$tmp/shims" "$run" -s zlib --
refused needed "apiprof-run: the profiler did not load: error while loading shared libraries: libapiprofnope.so: cannot open shared object file: No such file or directory"

# A runtime that passes a look at its ELF header but that ld.so cannot map.
mkdir "$tmp/trunc"
head -c 64 "$runtime" >"$tmp/trunc/libapiprof.so.0"
go trunc APIPROF_RUNTIME="$tmp/trunc/libapiprof.so.0" "$run" -s zlib --
refused trunc "apiprof-run: the profiler did not load: ERROR: ld.so: object '$tmp/trunc/libapiprof.so.0' from LD_PRELOAD cannot be preloaded (cannot read file data): ignored."
# Cut inside its segments, ld.so maps it and the first touch faults: every
# program it were preloaded into would die of SIGBUS before main.
mkdir "$tmp/cut"
head -c 1000 "$runtime" >"$tmp/cut/libapiprof.so.0"
go cut APIPROF_RUNTIME="$tmp/cut/libapiprof.so.0" "$run" -s zlib --
refused cut "apiprof-run: the profiler did not load: loading it killed the check with signal 7 (Bus error)"

# Dynamic mode: an audit module ld.so refuses.
cp "$spec" "$tmp/testlib.json"
go audit APIPROF_DYN_AUDIT="$tmp/trunc/libapiprof.so.0" "$run" --dynamic -s "$tmp/testlib.json" --
refused audit "apiprof-run: the profiler did not load: ERROR: ld.so: object '$tmp/trunc/libapiprof.so.0' cannot be loaded as audit interface: cannot read file data; ignored."

# What loads is not refused: the program runs, with nothing said ...
go good "$run" -s zlib --
[ "$st" -eq 0 ] && [ -e "$tmp/good.ran" ] && [ ! -s "$tmp/good.err" ] ||
	fail "good: status $st, ran: $([ -e "$tmp/good.ran" ] && echo yes || echo no): $(cat "$tmp/good.err")"
go gooddyn "$run" --dynamic -s "$tmp/testlib.json" --
[ "$st" -eq 0 ] && [ -e "$tmp/gooddyn.ran" ] || fail "gooddyn: status $st: $(cat "$tmp/gooddyn.err")"
# ... and a broken library of the user's own LD_PRELOAD is ld.so's
# business, as it is bare.
go user LD_PRELOAD="$tmp/trunc/libapiprof.so.0" "$run" -s zlib --
[ "$st" -eq 0 ] && [ -e "$tmp/user.ran" ] || fail "user: status $st: $(cat "$tmp/user.err")"
grep -q "^apiprof-run:" "$tmp/user.err" && fail "user: the launcher spoke: $(cat "$tmp/user.err")"
echo "ok: a profiler ld.so did not load is refused in one line, the program not run"
