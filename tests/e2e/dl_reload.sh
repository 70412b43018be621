#!/bin/sh
# dl_reload.sh PRELOAD PROG LIB [global] - a plugin spec'd by its SONAME (or,
# LIB an absolute path, one without a SONAME spec'd by its file name) is
# dlopen()ed, called through dlsym(handle), dlclose()d and dlopen()ed again:
# under the shim it is unloaded as bare (its constructor runs again, its
# static state starts over), and calls after the reload reach the live copy,
# also when that copy lands at another address, with exact counts.
# PRELOAD is a colon-separated list (the runtime and the shim); "global"
# opens the plugin RTLD_GLOBAL and skips the move (dynamic mode).
set -eu
. "$(dirname "$0")/../lib.sh"
preload=$1 prog=$2 lib=$3 scope=${4:-local}
skip_if_sanitized "${preload##*:}" "ASan's dlopen interceptor hides the program's RUNPATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
n=1000
count() { "$OUTDUMP" "$1" | awk -v f="$2" '$2 ~ ("\\." f "$") { n += $3 } END { print n + 0 }'; }

# run MODE: bare and under the preload; same output, same status
run() {
	st=0
	"$prog" "$lib" $n "$1" "$scope" >"$tmp/$1.bare" 2>&1 || st=$?
	[ $st -eq 0 ] || fail "$1: bare run failed ($st): $(cat "$tmp/$1.bare")"
	st=0
	timeout -k 5 60 env APIPROF_OUTPUT="$tmp/$1.json" LD_PRELOAD="$preload" \
		"$prog" "$lib" $n "$1" "$scope" >"$tmp/$1.shim" 2>"$tmp/$1.err" || st=$?
	[ $st -eq 0 ] || fail "$1: exit status $st under the shim: $(cat "$tmp/$1.shim" "$tmp/$1.err")"
	cmp -s "$tmp/$1.bare" "$tmp/$1.shim" ||
		fail "$1: output differs; bare: $(cat "$tmp/$1.bare"); shim: $(cat "$tmp/$1.shim")"
	[ ! -s "$tmp/$1.err" ] || fail "$1: unexpected stderr: $(cat "$tmp/$1.err")"
	grep -qx "unloaded: yes" "$tmp/$1.shim" || fail "$1: not unloaded: $(cat "$tmp/$1.shim")"
	grep -qx "load 2: sum $((n * (n - 1) / 2 + 2 * n)) state $n ctor 2" "$tmp/$1.shim" ||
		fail "$1: reload not fresh: $(cat "$tmp/$1.shim")"
	[ "$(count "$tmp/$1.json" dp_add)" -eq $((2 * n)) ] ||
		fail "$1: dp_add counted $(count "$tmp/$1.json" dp_add) of $((2 * n))"
	[ "$(count "$tmp/$1.json" dp_state)" -eq 2 ] ||
		fail "$1: dp_state counted $(count "$tmp/$1.json" dp_state) of 2"
}

run same
if [ "$scope" != global ]; then
	run move
	grep -qx "moved: yes" "$tmp/move.shim" || fail "the reload did not move: $(cat "$tmp/move.shim")"
fi
echo "ok: dlclose unloads as bare ($scope), reloads are fresh and counted exactly"
