#!/bin/sh
# direct.sh APIPROF_RUN TESTPROG SPEC OUTDUMP
#
# Direct mode (issue 35's launch cost, without weakening issue 34 point
# 3): a launch whose manifest holds runs neither the preprocessor nor the
# compiler.  $CC is a wrapper that logs each run of the compiler, one line
# each, "cpp" for -E, else "cc".
#  - cold: one preprocessor run and one compile.
#  - warm: the third launch runs no compiler at all (the second may still
#    preprocess, when the headers copied here were new as the first began).
#  - touched: a header the spec includes, touched (a new ctime, the same
#    bytes), is preprocessed again; the same source reuses the shim.
#  - swapped: a cached shim that may not be loaded is said once (not
#    once by the manifest's check and again by the full path), and built
#    again.
#  - shadowed: a header added to a CPATH directory searched before the
#    one the header was found in is preprocessed and built in.
#  - garbage: a manifest that is not one is said in one line, and the
#    launch takes the full path with exact counts.
#  - opened: a directory above a header made writable by the group, the
#    header unchanged, is refused (status 125) as without a manifest: the
#    trust rule is checked at each launch, not only at the build.
# Each run gives exact counts.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1 prog=$2 spec=$3 outdump=$4
skip_if_sanitized "$run"
cp "$spec" "$tmp/testlib.json"
mkdir "$tmp/first" "$tmp/api"
cp "$(dirname "$spec")/testlib.h" "$tmp/api/"
cat >"$tmp/cc" <<W
#!/bin/sh
case " \$* " in *" -E "*) echo cpp ;; *) echo cc ;; esac >>"$tmp/cc.log"
exec cc "\$@"
W
chmod 755 "$tmp/cc"
unset XDG_CACHE_HOME
export CPATH="$tmp/first:$tmp/api" APIPROF_CACHE="$tmp/cache" CC="$tmp/cc"

. "$(dirname "$0")/launch.sh"

# one TAG: exact counts; the compiler's runs in $cpp and $cc.
one() {
	: >"$tmp/cc.log"
	launch "$1"
	[ "$st" -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.err")"
	"$outdump" "$tmp/$1.json" | grep -qx "worker-1 testlib.tl_add 1000" ||
		fail "$1: no exact counts: $(cat "$tmp/$1.err")"
	cpp=$(grep -cx cpp "$tmp/cc.log") cc=$(grep -cx cc "$tmp/cc.log")
}

one cold
[ "$cpp" -eq 1 ] && [ "$cc" -eq 1 ] || fail "cold: $cpp preprocessor and $cc compiler runs, want 1 and 1"
one second
[ "$cc" -eq 0 ] || fail "second: $cc compiler runs, want 0"
one warm
[ "$cpp" -eq 0 ] && [ "$cc" -eq 0 ] ||
	fail "warm: $cpp preprocessor and $cc compiler runs, want none"
[ ! -s "$tmp/warm.err" ] || fail "warm: said something: $(cat "$tmp/warm.err")"
touch "$tmp/api/testlib.h"
one touched
[ "$cpp" -eq 1 ] && [ "$cc" -eq 0 ] ||
	fail "touched: $cpp preprocessor and $cc compiler runs, want 1 and 0"
# swapped: the cached shim replaced by a symbolic link to a copy: said
# once, and built again.
shim=$(ls "$tmp/cache" | grep '^libapiprof-.*\.so$')
[ "$(echo "$shim" | wc -l)" -eq 1 ] || fail "swapped: not one shim in the cache: $shim"
mv "$tmp/cache/$shim" "$tmp/copy.so" && ln -s "$tmp/copy.so" "$tmp/cache/$shim"
one swapped
[ "$cc" -eq 1 ] || fail "swapped: $cc compiler runs, want 1 (built again)"
[ "$(grep -c "not trusted" "$tmp/swapped.err")" -eq 1 ] ||
	fail "swapped: want one 'not trusted' line: $(cat "$tmp/swapped.err")"
[ -f "$tmp/cache/$shim" ] && [ ! -L "$tmp/cache/$shim" ] || fail "swapped: the link is still there"
{ cat "$tmp/api/testlib.h"; echo "int tl_shadowed(void);"; } >"$tmp/first/testlib.h"
one shadowed
[ "$cpp" -eq 1 ] && [ "$cc" -eq 1 ] ||
	fail "shadowed: $cpp preprocessor and $cc compiler runs, want 1 and 1"
for m in "$tmp"/cache/manifest-*.json; do echo '{"manifest": 1, "files": [' >"$m"; done
one garbage
[ "$cpp" -eq 1 ] && [ "$cc" -eq 0 ] ||
	fail "garbage: $cpp preprocessor and $cc compiler runs, want 1 and 0"
grep -q "^apiprof-run: cache manifest $tmp/cache/manifest-[0-9a-f]*\.json ignored: " "$tmp/garbage.err" ||
	fail "garbage: not said: $(cat "$tmp/garbage.err")"
[ "$(wc -l <"$tmp/garbage.err")" -eq 1 ] || fail "garbage: more than one line: $(cat "$tmp/garbage.err")"
# opened: the header's directory made writable by the group (the header
# keeps its identity) is refused as a cold launch refuses it.
chmod 775 "$tmp/first"
: >"$tmp/cc.log"
launch opened
[ "$st" -eq 125 ] && [ ! -e "$tmp/opened.json" ] ||
	fail "opened: status $st, want 125 and no run: $(cat "$tmp/opened.err")"
grep -qF "not trusted: $tmp/first is writable by group or others" "$tmp/opened.err" ||
	fail "opened: not refused: $(cat "$tmp/opened.err")"
echo "ok: a warm launch runs no compiler; a touched header is preprocessed again; a bad manifest is said and passed over; what is no longer trusted is refused"
