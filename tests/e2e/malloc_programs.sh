#!/bin/sh
# malloc_programs.sh SHIM CXXPROG - the shipped malloc spec on unmodified
# programs: the same output and exit status as without it, and non-zero
# malloc counts.  Programs missing on this machine are skipped one by one.
set -u
. "$(dirname "$0")/../lib.sh"
shim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")
fails=0 ran=0

# check NAME MIN CMD...: at least MIN malloc calls must be counted.
check() {
	name=$1 min=$2
	shift 2
	command -v "$1" >/dev/null 2>&1 || { echo "skip: $1 not installed"; return; }
	"$@" >"$tmp/bare.out" 2>"$tmp/bare.err" </dev/null
	st_bare=$?
	APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$preload" "$@" >"$tmp/shim.out" 2>"$tmp/shim.err" </dev/null
	st_shim=$?
	ran=$((ran + 1))
	if [ $st_bare -ne $st_shim ] || ! cmp -s "$tmp/bare.out" "$tmp/shim.out"; then
		echo "FAIL: $name: status $st_bare vs $st_shim or output differs"
		fails=$((fails + 1))
		return
	fi
	calls=$("$OUTDUMP" "$tmp/out.json" | awk '$2 == "malloc.malloc" { n += $3 } END { print n + 0 }')
	if [ "$calls" -lt "$min" ]; then
		echo "FAIL: $name: $calls malloc calls counted, want >= $min"
		fails=$((fails + 1))
		return
	fi
	echo "ok: $name: $calls malloc calls"
}

# Plain `true` allocates nothing at all: it must just run unchanged.
check true 0 /bin/true
check "true --version" 1 /bin/true --version
check ls 1 ls -la /usr
check python3 1 /usr/bin/python3 -c '
import threading
out = []
def work(n):
    out.append(sum(len(str(i) * n) for i in range(20000)))
ts = [threading.Thread(target=work, args=(n,)) for n in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(sorted(out))'
check sqlite3 1 sqlite3 :memory: "create table t(x); insert into t values (1),(2),(3); select sum(x) from t;"
check git 1 git --version
[ $# -gt 1 ] && check c++ 1 "$2"
[ $fails -eq 0 ] && [ $ran -gt 0 ] && exit 0
exit 1
