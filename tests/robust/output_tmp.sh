#!/bin/sh
# output_tmp.sh SHIM CALLS LAUNCH - APIPROF_OUTPUT in a directory someone
# else can write (issue 20, point 2).  A symlink planted at the temporary
# name the runtime once used (PATH.<pid>.tmp) to a victim file leaves the
# victim as it was; as root, in a sticky directory, a symlink or a file
# that uid 12345 put at PATH is neither followed nor replaced (one line
# each); a symlink of our own is followed, and stays.  And the temporary's
# own name (issue 34, point 18): fixed by the debug hook
# APIPROF_DEBUG_TMP_NONCE and taken by a symlink to a victim, it is not
# followed (O_EXCL|O_NOFOLLOW): the next name is used instead.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
shim=$1 prog=$2 launch=$3
n=1000
pl=$(shim_preload "$shim")
text="not apiprof's: must stay as it is"

"$prog" $n >"$tmp/bare.out" 2>&1 || fail "bare run failed"

# check TAG STATUS: the run exited 0 with the bare run's output.
check() {
	[ "$2" -eq 0 ] || fail "$1: status $2: $(cat "$tmp/$1.err")"
	cmp -s "$tmp/bare.out" "$tmp/$1.out" || fail "$1: output differs: $(cat "$tmp/$1.out")"
}
one_line() {
	[ "$(wc -l <"$tmp/$1.err")" -eq 1 ] && grep -q "^apiprof: cannot write .*: $2\$" "$tmp/$1.err" ||
		fail "$1: want one line 'apiprof: cannot write ...: $2', got: $(cat "$tmp/$1.err")"
}

# The old temporary name, taken by a symlink before the program starts.
APIPROF_OUTPUT="$tmp/out.json" wd "$launch" tmplink "$tmp/out.json" "$tmp/victim" "$pl" "$prog" $n \
	>"$tmp/tmplink.out" 2>"$tmp/tmplink.err"
st=$?
[ $st -ne 90 ] || fail "tmplink: written through the planted symlink: $(cat "$tmp/tmplink.err")"
check tmplink $st
[ -f "$tmp/out.json" ] && [ ! -L "$tmp/out.json" ] || fail "tmplink: out.json is not a regular file"
[ "$(calls "$tmp/out.json" testlib.tl_add)" -eq $n ] || fail "tmplink: out.json is not the profile"
[ ! -s "$tmp/tmplink.err" ] || fail "tmplink: want no line, got: $(cat "$tmp/tmplink.err")"
[ -z "$(ls -A "$tmp" | grep '\.tmp$')" ] || fail "tmplink: temporary left: $(ls -A "$tmp")"
echo "ok: a symlink at PATH.<pid>.tmp: the victim is untouched"

# The temporary's name itself taken by a symlink: the debug hook makes the
# first name tried PATH.<nonce>.tmp.  strace, where it can trace, shows
# that this name really was tried first and refused (EEXIST), so that the
# check below cannot pass for want of a collision.
nonce=0123456789abcdef
planted="$tmp/planted.json.$nonce.tmp"
printf '%s\n' "$text" >"$tmp/victim2"
ln -s "$tmp/victim2" "$planted"
export APIPROF_DEBUG_TMP_NONCE=$nonce
APIPROF_OUTPUT="$tmp/planted.json" wd env LD_PRELOAD="$pl" "$prog" $n \
	>"$tmp/planted.out" 2>"$tmp/planted.err"
check planted $?
[ "$(cat "$tmp/victim2")" = "$text" ] ||
	fail "planted: the victim was written through the symlink at the temporary's name: $(head -c 80 "$tmp/victim2")"
[ -L "$planted" ] && [ "$(readlink "$planted")" = "$tmp/victim2" ] ||
	fail "planted: the symlink at the temporary's name was changed: $(ls -l "$tmp" | grep planted)"
[ -f "$tmp/planted.json" ] && [ ! -L "$tmp/planted.json" ] ||
	fail "planted: planted.json is not a regular file: $(ls -l "$tmp" | grep planted)"
[ "$(calls "$tmp/planted.json" testlib.tl_add)" -eq $n ] || fail "planted: planted.json is not the profile"
[ ! -s "$tmp/planted.err" ] || fail "planted: want no line, got: $(cat "$tmp/planted.err")"
[ "$(ls -A "$tmp" | grep -c '\.tmp$')" -eq 1 ] || fail "planted: temporary left: $(ls -A "$tmp")"
echo "ok: a symlink at the temporary's name PATH.$nonce.tmp: not followed, the victim untouched"
if strace -o /dev/null true 2>/dev/null; then
	rm -f "$tmp/planted.json"
	APIPROF_OUTPUT="$tmp/planted.json" wd strace -f -e trace=open,openat -o "$tmp/strace.log" \
		env LD_PRELOAD="$pl" "$prog" $n >"$tmp/strace.out" 2>"$tmp/strace.err"
	check strace $?
	first=$(grep -F 'planted.json.' "$tmp/strace.log" | grep -F '.tmp"' | head -n 1)
	case $first in
	*"$planted"*EEXIST*) echo "ok: strace: the hook's name was tried first and refused: EEXIST" ;;
	*) fail "strace: the first temporary tried is not the hook's, refused: '$first'" ;;
	esac
else
	echo "skip: strace cannot trace here: whether the hook's name was tried is not checked"
fi
unset APIPROF_DEBUG_TMP_NONCE

# A symlink of our own is followed: the file it names is replaced.
echo old >"$tmp/real.json"
ln -s real.json "$tmp/link.json"
APIPROF_OUTPUT="$tmp/link.json" wd env LD_PRELOAD="$pl" "$prog" $n >"$tmp/own.out" 2>"$tmp/own.err"
check own $?
[ -L "$tmp/link.json" ] || fail "own: our symlink was replaced"
[ "$(calls "$tmp/real.json" testlib.tl_add)" -eq $n ] || fail "own: the file it names is not the profile"
[ ! -s "$tmp/own.err" ] || fail "own: want no line, got: $(cat "$tmp/own.err")"
echo "ok: a symlink of our own is followed and stays"

[ "$(id -u)" -eq 0 ] || skip "a sticky directory shared with uid 12345: needs root"
need setpriv util-linux
# uid 12345 plants a symlink and a file in a sticky directory root writes to.
chmod 711 "$tmp"
mkdir -m 1777 "$tmp/sticky"
printf '%s\n' "$text" >"$tmp/victim"
as12345() { setpriv --reuid=12345 --regid=12345 --clear-groups "$@"; }
as12345 ln -s "$tmp/victim" "$tmp/sticky/link.json" || fail "setpriv ln"
as12345 sh -c "printf '%s\n' \"$text\" >'$tmp/sticky/theirs.json'" || fail "setpriv sh"

APIPROF_OUTPUT="$tmp/sticky/link.json" wd env LD_PRELOAD="$pl" "$prog" $n \
	>"$tmp/theirlink.out" 2>"$tmp/theirlink.err"
check theirlink $?
[ -L "$tmp/sticky/link.json" ] && [ "$(stat -c %u "$tmp/sticky/link.json")" -eq 12345 ] ||
	fail "theirlink: uid 12345's symlink was replaced: $(ls -l "$tmp/sticky")"
[ "$(cat "$tmp/victim")" = "$text" ] || fail "theirlink: the victim was written"
one_line theirlink 'a symlink of another user: not followed'
echo "ok: uid 12345's symlink: $(cat "$tmp/theirlink.err")"

APIPROF_OUTPUT="$tmp/sticky/theirs.json" wd env LD_PRELOAD="$pl" "$prog" $n \
	>"$tmp/theirs.out" 2>"$tmp/theirs.err"
check theirs $?
[ "$(stat -c %u "$tmp/sticky/theirs.json")" -eq 12345 ] &&
	[ "$(cat "$tmp/sticky/theirs.json")" = "$text" ] || fail "theirs: uid 12345's file was replaced"
one_line theirs 'a file of another user: not replaced'
[ -z "$(ls -A "$tmp/sticky" | grep '\.tmp$')" ] || fail "theirs: temporary left: $(ls -A "$tmp/sticky")"
echo "ok: uid 12345's file: $(cat "$tmp/theirs.err")"
