#!/bin/sh
# net_prog.sh SHIM OUTDUMP PLAIN FORTIFY_LFS - the net spec on our own
# program, which calls every function a known number of times (see the
# header comment of net_prog.c): every row exact, for the plain build and
# for the one built with -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64, which
# calls other entry points (checked first, so the test cannot pass by
# both builds calling the same ones).
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2
shift 2
preload=$(shim_preload "$shim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

uses() { nm -D --undefined-only "$1" | awk '{ print $2 }' | sed 's/@.*//' | grep -qx "$2"; }
for f in recv recvfrom poll ppoll sendfile __connect __send __poll __select; do
	uses "$1" $f || fail "$1 does not call $f"
done
for f in __recv_chk __recvfrom_chk __poll_chk __ppoll_chk sendfile64; do
	uses "$2" $f || fail "$2 does not call $f"
done

n=50
sort >"$tmp/want" <<WANT
accept $n
accept4 $n
connect $((2 * n))
epoll_pwait $n
epoll_pwait2 $n
epoll_wait $n
poll $((2 * n))
ppoll $n
pselect $n
recv $((2 * n))
recvfrom $n
recvmmsg $n
recvmsg $n
select $((2 * n))
send $((2 * n))
sendfile $n
sendmmsg $n
sendmsg $n
sendto $n
shutdown $((2 * n))
socket $((2 * n + 1))
WANT
echo "sendfile's byte" >"$tmp/file"
for prog in "$@"; do
	"$prog" "$tmp/file" $n >"$tmp/bare.out"
	APIPROF_OUTPUT="$tmp/out.json" LD_PRELOAD="$preload" "$prog" "$tmp/file" $n >"$tmp/shim.out"
	cmp "$tmp/bare.out" "$tmp/shim.out" || fail "$prog: output differs under the shim"
	"$outdump" "$tmp/out.json" | awk '$2 ~ /^net\./ { sub(/^net\./, "", $2); n[$2] += $3 }
		END { for (f in n) print f, n[f] }' | sort >"$tmp/got"
	diff -u "$tmp/want" "$tmp/got" || fail "$prog: net rows differ"
done
echo "ok: $# builds of net_prog, every net row exact ($n rounds)"
