#!/bin/sh
# spec_trust.sh APIPROF_RUN APIPROF_GEN TESTPROG SPEC HEADER OUTDUMP
#
# A spec is code (issue 34): what `apiprof-gen build` compiles runs in the
# program, as root when root profiles.
#  - beside: a header planted beside the spec under the name of one the
#    generated code includes (<stdint.h>, #include_next plus a
#    constructor) is never compiled in: the spec's directory is searched
#    only for the headers the spec lists, and HEADER (testlib.h) beside
#    the spec is found there.
#  - foreign_*: a spec, a directory above it, a header it includes or one
#    of its "include_dirs" that another user (uid 12345, a bare uid that
#    only owns files here) could write is refused: one line, exit status
#    125, and the program does not run.
#  - moved: a shim built with a header beside the spec is not reused for a
#    copy of the spec elsewhere once that header is gone: the cache key
#    covers the preprocessed source.
# Runs as root (chown); everything stays in the test's own directory.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1 gen=$2 prog=$3 spec=$4 header=$5 outdump=$6
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
skip_if_sanitized "$run"
[ "$(id -u)" -eq 0 ] || skip "needs root: files of another uid are made with chown"
U=12345
chmod 755 "$tmp"
unset XDG_CACHE_HOME CPATH
export APIPROF_CACHE="$tmp/cache"

# go TAG SPEC_PATH [VAR=VALUE...]: the program under the launcher; status
# in $st, output in $tmp/TAG.{out,err,json}.
go() {
	tag=$1 sp=$2
	shift 2
	timeout -k 5 "$WATCHDOG" env "$@" "$run" -s "$sp" -o "$tmp/$tag.json" \
		-- "$prog" 2 1000 >"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
}

# ran TAG: status 0 and exact counts.
ran() {
	[ "$st" -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.err")"
	"$outdump" "$tmp/$1.json" | grep -qx "worker-1 testlib.tl_add 1000" ||
		fail "$1: no exact counts: $(cat "$tmp/$1.err")"
}

# refused TAG LINE: status 125, the program did not run, and stderr is
# the generator's one line (LINE) and the launcher's.
refused() {
	[ "$st" -eq 125 ] || fail "$1: status $st, want 125: $(cat "$tmp/$1.err")"
	[ ! -e "$tmp/$1.json" ] || fail "$1: the program ran"
	printf '%s\napiprof-run: could not build a shim for %s\n' "$2" "$sp" >"$tmp/$1.want"
	diff -u "$tmp/$1.want" "$tmp/$1.err" || fail "$1: not one line saying why (-want +got)"
}

# A header that prints PLANTED when the program starts; its first line
# makes it pass for <stdint.h>.
planted() {
	cat <<'H'
#include_next <stdint.h>
#ifndef APIPROF_TEST_PLANTED
#define APIPROF_TEST_PLANTED
__attribute__((constructor)) static void apiprof_test_planted(void)
{
	__builtin_puts("PLANTED");
}
#endif
H
}

# beside: the planted <stdint.h> beside the spec is not compiled in; the
# listed testlib.h beside it is.
mkdir "$tmp/a"
cp "$spec" "$tmp/a/testlib.json" && cp "$header" "$tmp/a/testlib.h"
planted >"$tmp/a/stdint.h"
go beside "$tmp/a/testlib.json"
ran beside
if grep -q PLANTED "$tmp/beside.out"; then
	fail "beside: the header planted beside the spec ran in the program"
fi

why="(a spec is code: what it builds from must be writable only by you or root)"

# foreign_spec: the spec is the other user's, in a sticky shared directory.
mkdir -m 1777 "$tmp/shared"
cp "$tmp/a/testlib.json" "$tmp/a/testlib.h" "$tmp/shared/"
chown $U "$tmp/shared/testlib.json"
go foreign_spec "$tmp/shared/testlib.json"
refused foreign_spec "apiprof-gen: $sp: not trusted: $sp is owned by uid $U $why"

# foreign_dir: our spec in a directory the other user owns.
mkdir -m 755 "$tmp/theirs" && cp "$tmp/a/testlib.json" "$tmp/a/testlib.h" "$tmp/theirs/"
chown $U "$tmp/theirs"
go foreign_dir "$tmp/theirs/testlib.json"
refused foreign_dir "apiprof-gen: $sp: not trusted: $tmp/theirs is owned by uid $U $why"

# foreign_header: our spec; the header it lists, beside it, is the other
# user's (in a sticky directory he may add to).
chown 0 "$tmp/shared/testlib.json"
chown $U "$tmp/shared/testlib.h"
go foreign_header "$tmp/shared/testlib.json"
refused foreign_header "apiprof-gen: $sp: not trusted: $tmp/shared/testlib.h is owned by uid $U $why"

# foreign_incdir: the header through "include_dirs", a directory the
# group may write.
mkdir -m 775 "$tmp/inc" && cp "$header" "$tmp/inc/"
mkdir "$tmp/b"
sed "s|\"headers\"|\"include_dirs\": [\"$tmp/inc\"], \"headers\"|" "$spec" >"$tmp/b/testlib.json"
go foreign_incdir "$tmp/b/testlib.json"
refused foreign_incdir "apiprof-gen: $sp: not trusted: $tmp/inc is writable by group or others $why"
chmod 755 "$tmp/inc"
go incdir_ok "$tmp/b/testlib.json"
ran incdir_ok

# moved: a header of ours beside the spec, with a constructor, is built
# in; gone, a copy of the spec elsewhere (testlib.h through CPATH) gets a
# shim built anew, without it (a cache of their own, so that only these
# two runs could share a shim).
mkdir "$tmp/c" "$tmp/d"
cp "$spec" "$tmp/c/testlib.json" && cp "$spec" "$tmp/d/testlib.json"
{ cat "$header"; planted | sed 1d; } >"$tmp/c/testlib.h"
go here "$tmp/c/testlib.json" APIPROF_CACHE="$tmp/cache2"
ran here
grep -qx PLANTED "$tmp/here.out" || fail "here: the header beside the spec was not built in"
rm "$tmp/c/testlib.h"
go moved "$tmp/d/testlib.json" APIPROF_CACHE="$tmp/cache2" CPATH="$(dirname "$header")"
ran moved
if grep -q PLANTED "$tmp/moved.out"; then
	fail "moved: the shim built with a header that is gone was reused"
fi
grep -qx "apiprof-run: building a shim for $tmp/d/testlib.json" "$tmp/moved.err" ||
	fail "moved: no new shim was built: $(cat "$tmp/moved.err")"

# apiprof-gen build itself refuses the same way.
(cd "$tmp" && "$gen" build shared/testlib.json -o lib.so) 2>"$tmp/gen.err"
st=$?
[ $st -eq 1 ] && [ ! -e "$tmp/lib.so" ] || fail "apiprof-gen build: status $st: $(cat "$tmp/gen.err")"
grep -qxF "apiprof-gen: shared/testlib.json: not trusted: $tmp/shared/testlib.h is owned by uid $U $why" \
	"$tmp/gen.err" || fail "apiprof-gen build: not the one line: $(cat "$tmp/gen.err")"
# The preprocessor runs in a directory of its own: a relative CPATH still
# means what it meant where apiprof-gen was started.
mkdir "$tmp/e" && cp "$spec" "$tmp/e/testlib.json"
(cd "$tmp" && CPATH=inc "$gen" build e/testlib.json -o lib.so) 2>"$tmp/relative.err" ||
	fail "relative CPATH: the build failed: $(cat "$tmp/relative.err")"
echo "ok: a spec's own directory gives only its headers; nothing another user could write is built; the key covers the preprocessed source"
