#!/bin/sh
# pthread.sh SHIM OUTDUMP PTHREAD_PROG - the pthread spec.
#
# 1. pthread_prog K R (see its header comment): 4 workers, ping-pong of R
#    rounds; every row exact.
# 2. Debian's unmodified sqlite3 CLI, which serializes each connection
#    with a pthread mutex (SQLITE_THREADSAFE=1): every lock is paired
#    with an unlock, and identical statements (`select 1;`, which leave
#    the database as it was) take the same number of locks each, so N, 2N
#    and 3N statements give lock counts in exact arithmetic progression
#    (the CLI's start-up and shutdown are the constant term).
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2 prog=$3
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

rows() {
	APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$preload" "$@" >"$tmp/shim.out"
	"$outdump" "$tmp/out.json" | awk '$2 ~ /^pthread\./ { sub(/^pthread\./, "", $2); n[$2] += $3 }
		END { for (f in n) print f, n[f] }' | sort
}
count() { awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }'; }

k=2000 r=500 t=4
"$prog" $k $r >"$tmp/bare.out"
rows "$prog" $k $r >"$tmp/got.txt"
cmp "$tmp/bare.out" "$tmp/shim.out"
sort >"$tmp/want.txt" <<WANT
cond_signal $((2 * r))
cond_wait $((2 * r - 1))
mutex_lock $((t * k + 2))
mutex_timedlock $t
mutex_trylock $((2 * t * k))
mutex_unlock $((2 * t * k + t + 2))
rwlock_rdlock $((t * k))
rwlock_timedrdlock $t
rwlock_unlock $((2 * t * k + t))
rwlock_wrlock $((t * k))
spin_destroy 1
spin_init 1
spin_lock $((t * k))
spin_unlock $((t * k))
WANT
sed 's/^pthread_//' "$tmp/got.txt" >"$tmp/got2.txt"
cmp "$tmp/want.txt" "$tmp/got2.txt" || { diff -u "$tmp/want.txt" "$tmp/got2.txt"; fail pthread_prog; }
echo "ok: pthread_prog: $t workers x $k, $r ping-pong rounds, every row exact"

need sqlite3 sqlite3
for m in 1 2 3; do
	n=$((m * 300))
	yes "select 1;" | head -n $n >"$tmp/w.sql"
	rows sqlite3 :memory: <"$tmp/w.sql" >"$tmp/sq$m.txt"
	[ "$(grep -c . "$tmp/shim.out")" -eq $n ] || fail "sqlite3 printed $(grep -c . "$tmp/shim.out") rows"
	lock=$(count pthread_mutex_lock <"$tmp/sq$m.txt")
	unlock=$(count pthread_mutex_unlock <"$tmp/sq$m.txt")
	[ "$lock" -gt 0 ] && [ "$lock" -eq "$unlock" ] || fail "sqlite3: $lock locks, $unlock unlocks"
	eval "lock$m=$lock"
done
# shellcheck disable=SC2154
[ $((lock3 - lock2)) -eq $((lock2 - lock1)) ] || fail "sqlite3: locks $lock1, $lock2, $lock3 not linear"
echo "ok: sqlite3 CLI: locks = unlocks, $(((lock2 - lock1) / 300)) per statement exactly ($lock1, $lock2, $lock3)"
