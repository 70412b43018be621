#!/bin/sh
# openssl.sh SHIM OUTDUMP - the openssl (libssl) spec on Debian's
# unmodified `openssl s_server` and `openssl s_client` over loopback.
#
# s_client sends a file of K blocks of 8 KiB: it reads its stdin 8 KiB
# at a time and passes each block to one SSL_write, so K and 2K blocks
# differ by exactly K SSL_writes.  s_server (one connection, -naccept 1)
# completes one SSL_accept, reads every record with one SSL_read (as many
# as s_client wrote), prints exactly the bytes sent, and shuts the
# connection down once.  Each side makes one SSL object.  The server's
# port is chosen by the kernel (-accept 0) and read from its "ACCEPT" line.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2
need openssl openssl
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj /CN=localhost -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null

rows() {
	"$outdump" "$1" | awk '$2 ~ /^openssl\./ { sub(/^openssl\./, "", $2); n[$2] += $3 }
		END { for (f in n) print f, n[f] }' | sort
}
count() { awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' "$2"; }

# session NAME BLOCKS
session() {
	name=$1 blocks=$2
	head -c $((blocks * 8192)) /dev/zero | tr '\0' '~' >"$tmp/$name.data"
	mkfifo "$tmp/$name.out" "$tmp/$name.in"
	# The server's stdin stays open and empty (at EOF it would hang up).
	exec 4<>"$tmp/$name.in"
	APIPROF_OUTPUT="$tmp/$name.srv.json" LD_PRELOAD="$preload" openssl s_server -accept 0 \
		-naccept 1 -cert "$tmp/cert.pem" -key "$tmp/key.pem" \
		<"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.srv.err" &
	srv=$!
	exec 3<"$tmp/$name.out"
	port=
	while read -r line <&3; do
		case $line in ACCEPT*) port=${line##*:}; break ;; esac
	done
	[ -n "$port" ] || fail "s_server did not start: $(cat "$tmp/$name.srv.err")"
	APIPROF_OUTPUT="$tmp/$name.cli.json" LD_PRELOAD="$preload" openssl s_client \
		-connect "127.0.0.1:$port" <"$tmp/$name.data" >/dev/null 2>"$tmp/$name.cli.err"
	cat <&3 >"$tmp/$name.srv.out"
	wait $srv
	exec 3<&- 4<&-
	# The server prints the session, then what it received, then DONE.
	tr -cd '~' <"$tmp/$name.srv.out" | cmp -s - "$tmp/$name.data" || fail "$name: server got other bytes"
	rows "$tmp/$name.srv.json" >"$tmp/$name.srv.txt"
	rows "$tmp/$name.cli.json" >"$tmp/$name.cli.txt"
	for f in SSL_accept SSL_new SSL_shutdown SSL_free; do
		[ "$(count $f "$tmp/$name.srv.txt")" -eq 1 ] || fail "$name: server $f $(count $f "$tmp/$name.srv.txt"), want 1"
	done
	for f in SSL_new SSL_set_connect_state SSL_free; do
		[ "$(count $f "$tmp/$name.cli.txt")" -eq 1 ] || fail "$name: client $f, want 1"
	done
	w=$(count SSL_write "$tmp/$name.cli.txt")
	r=$(count SSL_read "$tmp/$name.srv.txt")
	[ "$w" -eq "$r" ] || fail "$name: client wrote $w records, server read $r"
	eval "writes_$name=$w"
}

k=12
session a $k
session b $((2 * k))
# shellcheck disable=SC2154
[ $((writes_b - writes_a)) -eq $k ] || fail "SSL_write: $writes_a for $k blocks, $writes_b for $((2 * k))"
echo "ok: s_server/s_client: 1 SSL_accept, SSL_read = SSL_write, one SSL_write per 8 KiB block ($writes_a, $writes_b)"
