#!/bin/sh
# cache_paths.sh APIPROF_RUN TESTPROG SPEC OUTDUMP RUNTIME
#
# ld.so splits LD_PRELOAD at spaces and colons, with no escape.  A cache
# under HOME="/x/my dir" or HOME="/x/a:b" must still give exact counts (the
# launcher builds into a private directory instead, and says so in one
# line), never a program run unprofiled with an empty JSON.  A library the
# launcher would preload that ld.so could not (a path it would split, a
# file that is no shared library) is refused before the exec: one line,
# status 125, the program not run.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1 prog=$2 spec=$3 outdump=$4 runtime=$5
skip_if_sanitized "$run"
uid=$(id -u)
cp "$spec" "$tmp/testlib.json"
unset APIPROF_CACHE XDG_CACHE_HOME
export TMPDIR="$tmp/tmpdir"
mkdir -m 700 "$TMPDIR"

. "$(dirname "$0")/launch.sh"

# exact TAG DIR: status 0, exact counts, and the one line about DIR.
exact() {
	tag=$1 dir=$2
	[ "$st" -eq 0 ] || fail "$tag: status $st: $(cat "$tmp/$tag.err")"
	"$outdump" "$tmp/$tag.json" | grep -qx "worker-1 testlib.tl_add 1000" || {
		cat "$tmp/$tag.err"
		fail "$tag: the program ran without exact counts"
	}
	line="apiprof-run: shim cache $dir: a space or ':' in $dir, which LD_PRELOAD cannot hold; building in $TMPDIR/apiprof-$uid"
	grep -v "^apiprof-run: building a shim for " "$tmp/$tag.err" >"$tmp/$tag.rest"
	[ "$(cat "$tmp/$tag.rest")" = "$line" ] || {
		cat "$tmp/$tag.err"
		fail "$tag: want exactly this line on stderr: $line"
	}
}

mkdir -p "$tmp/my dir" "$tmp/a:b" "$tmp/x y"
launch space HOME="$tmp/my dir"
exact space "$tmp/my dir/.cache/apiprof"
launch colon HOME="$tmp/a:b"
exact colon "$tmp/a:b/.cache/apiprof"
launch xdg XDG_CACHE_HOME="$tmp/x y"
exact xdg "$tmp/x y/apiprof"

# refused TAG LINE: status 125, the program not run, exactly LINE.
refused() {
	[ "$st" -eq 125 ] || fail "$1: status $st, want 125: $(cat "$tmp/$1.err")"
	[ ! -s "$tmp/$1.out" ] || fail "$1: the program ran"
	[ "$(cat "$tmp/$1.err")" = "$2" ] || {
		cat "$tmp/$1.err"
		fail "$1: want exactly this line on stderr: $2"
	}
}

# The runtime itself under a path with a space, or not a library at all.
mkdir "$tmp/rt dir"
cp "$runtime" "$tmp/rt dir/libapiprof.so.0"
launch runtime_space HOME="$tmp/home" APIPROF_RUNTIME="$tmp/rt dir/libapiprof.so.0"
refused runtime_space "apiprof-run: $tmp/rt dir/libapiprof.so.0 cannot be preloaded: LD_PRELOAD splits paths at spaces and ':'"
launch runtime_text HOME="$tmp/home" APIPROF_RUNTIME="$tmp/testlib.json"
refused runtime_text "apiprof-run: $tmp/testlib.json cannot be preloaded: not a shared library for this machine"

# Dynamic mode checks its libraries the same way.
timeout -k 5 "$WATCHDOG" env HOME="$tmp/home" APIPROF_RUNTIME="$tmp/rt dir/libapiprof.so.0" \
	"$run" --dynamic -s "$tmp/testlib.json" -- "$prog" 2 10 >"$tmp/dyn.out" 2>"$tmp/dyn.err" </dev/null
st=$?
refused dyn "apiprof-run: $tmp/rt dir/libapiprof.so.0 cannot be preloaded: LD_PRELOAD splits paths at spaces and ':'"
echo "ok: cache paths with a space or ':' give exact counts; unloadable preloads are refused in one line"
