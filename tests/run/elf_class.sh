#!/bin/sh
# elf_class.sh APIPROF_RUN M32_SOURCE
#
# A program of another word size or machine cannot take the profiler's
# libraries (ld.so: "wrong ELF class"), nor can a script whose interpreter
# is one.  As for a static binary: one line saying so, the program run
# unprofiled (without LD_PRELOAD, so ld.so has nothing to complain of),
# and --strict refuses it with status 125.  The 32-bit program is
# assembled here; without a 32-bit assembler the test is skipped.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1 src=$2
skip_if_sanitized "$run"
export APIPROF_CACHE="$tmp/cache"
CC=${CC:-cc}
[ "$(uname -m)" = x86_64 ] || skip "the 32-bit test program is i386 code; this is $(uname -m)"
$CC -m32 -nostdlib -pie -Wl,-dynamic-linker,/lib/ld-linux.so.2 -o "$tmp/m32" "$src" \
	>"$tmp/cc.err" 2>&1 || skip "no 32-bit assembler and linker ($CC -m32): $(head -1 "$tmp/cc.err")"
line="apiprof-run: $tmp/m32: a 32-bit i386 program, the profiler is 64-bit x86-64: cannot interpose"

# Bare, the kernel may run it (or lack 32-bit support: Exec format error).
env "$tmp/m32" "$tmp/bare.ran" >/dev/null 2>&1
bare=$?

wd "$run" -s zlib -- "$tmp/m32" "$tmp/plain.ran" >"$tmp/plain.out" 2>"$tmp/plain.err" </dev/null
st=$?
[ "$(head -1 "$tmp/plain.err")" = "$line; running it unprofiled" ] || {
	cat "$tmp/plain.err"
	fail "plain: want this first line on stderr: $line; running it unprofiled"
}
[ "$st" -eq "$bare" ] || fail "plain: status $st, bare $bare: $(cat "$tmp/plain.err")"
if [ "$bare" -eq 0 ]; then
	[ -e "$tmp/plain.ran" ] || fail "plain: the program did not run"
	[ "$(wc -l <"$tmp/plain.err")" -eq 1 ] || fail "plain: more than one line: $(cat "$tmp/plain.err")"
else
	echo "note: this kernel cannot run 32-bit programs (bare status $bare)"
fi

wd "$run" --strict -s zlib -- "$tmp/m32" "$tmp/strict.ran" >"$tmp/strict.out" 2>"$tmp/strict.err" </dev/null
st=$?
[ "$st" -eq 125 ] && [ ! -e "$tmp/strict.ran" ] || fail "strict: status $st: $(cat "$tmp/strict.err")"
[ "$(cat "$tmp/strict.err")" = "$line" ] || fail "strict: want exactly: $line; got: $(cat "$tmp/strict.err")"

# A script run by it: the interpreter is what ld.so would load into.
printf '#!%s\n' "$tmp/m32" >"$tmp/script"
chmod +x "$tmp/script"
wd "$run" --strict -s zlib -- "$tmp/script" >"$tmp/script.out" 2>"$tmp/script.err" </dev/null
st=$?
want="apiprof-run: $tmp/script: its interpreter $tmp/m32 is a 32-bit i386 program, the profiler is 64-bit x86-64: cannot interpose"
[ "$st" -eq 125 ] && [ "$(cat "$tmp/script.err")" = "$want" ] ||
	fail "script: status $st, want 125 and exactly: $want; got: $(cat "$tmp/script.err")"
echo "ok: a 32-bit program is reported in one line and run unprofiled; --strict refuses it"
