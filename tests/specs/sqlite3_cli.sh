#!/bin/sh
# sqlite3_cli.sh SHIM OUTDUMP - a sqlite3 spec on Debian's unmodified
# sqlite3 CLI: N inserts in a transaction, then one query.
#
# The CLI prepares, steps and finalizes every statement of its input
# once (sqlite3_prepare_v2, sqlite3_step, sqlite3_finalize), and checks
# each input line with sqlite3_complete.  The script has N + 4 statements
# on N + 4 lines (create, begin, N inserts, commit, select); the select
# returns one row, so it steps twice.  Hence exactly: prepare_v2 and
# finalize N + 4, step N + 5, complete N + 4, open_v2 and close 1.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2
n=1000
need sqlite3 sqlite3
skip_if_sanitized "$shim"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
	echo "create table t(x integer);"
	echo "begin;"
	i=1
	while [ $i -le $n ]; do
		echo "insert into t values($i);"
		i=$((i + 1))
	done
	echo "commit;"
	echo "select count(*), sum(x) from t;"
} >"$tmp/work.sql"

sqlite3 -batch :memory: <"$tmp/work.sql" >"$tmp/bare.txt"
APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$(shim_preload "$shim")" \
	sqlite3 -batch :memory: <"$tmp/work.sql" >"$tmp/shim.txt"
cmp "$tmp/bare.txt" "$tmp/shim.txt"
echo "$n|$((n * (n + 1) / 2))" | cmp - "$tmp/shim.txt"

"$outdump" "$tmp/out.json" >"$tmp/rows.txt"
for f in sqlite3_open_v2 sqlite3_close sqlite3_prepare_v2 sqlite3_step sqlite3_finalize sqlite3_complete; do
	awk -v f="sqlite3.$f" '$2 == f { n += $3 } END { print f, n + 0 }' "$tmp/rows.txt"
done >"$tmp/got.txt"
cat >"$tmp/want.txt" <<WANT
sqlite3.sqlite3_open_v2 1
sqlite3.sqlite3_close 1
sqlite3.sqlite3_prepare_v2 $((n + 4))
sqlite3.sqlite3_step $((n + 5))
sqlite3.sqlite3_finalize $((n + 4))
sqlite3.sqlite3_complete $((n + 4))
WANT
cmp "$tmp/want.txt" "$tmp/got.txt" || { diff -u "$tmp/want.txt" "$tmp/got.txt"; exit 1; }
echo "ok: sqlite3 CLI, $n inserts: every statement prepared, stepped and finalized, counted exactly"
