#!/bin/sh
# net_curl.sh SHIM OUTDUMP - the net spec on Debian's unmodified curl
# downloading K files from python3's http.server on 127.0.0.1, both
# profiled in the same run, both under strace -f.
#
# The expected counts come from the kernel: in glibc 2.36 on x86-64 each
# of these functions is one system call (send and sendto are sendto(2),
# recv and recvfrom recvfrom(2), select and pselect pselect6(2)), and
# neither process makes such a call from inside libc (the server does no
# name lookups: http_server.py), so every row must equal strace's count of
# its system call in the same run, though how often curl polls and how
# the data is cut into reads vary from run to run.  Then, independently
# of strace: the server (http_server.py DIR K: HTTP/1.0) makes one socket
# and per request one accept4, one epoll_wait, one poll and one shutdown;
# curl opens one connection per URL.
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2
here=$(cd "$(dirname "$0")" && pwd)
need curl curl
need strace strace
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")
tmp=$(mktemp -d)
pid= spid=
# The server and strace both: strace killed leaves its tracee running.
trap 'for p in $spid $pid; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
strace -f -qq -o "$tmp/probe" true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }

k=3
mkdir "$tmp/www"
head -c 300000 /dev/urandom >"$tmp/www/f.bin"
mkfifo "$tmp/port"
strace -f -qq -o "$tmp/server.trace" -E LD_PRELOAD="$preload" \
	-E APIPROF_OUTPUT="$tmp/server.json" \
	/usr/bin/python3 "$here/http_server.py" "$tmp/www" $k >"$tmp/port" &
pid=$!
read -r port spid <"$tmp/port"
url=http://127.0.0.1:$port/f.bin
set --
i=1
while [ $i -le $k ]; do
	set -- "$@" -o "$tmp/got.$i" "$url"
	i=$((i + 1))
done
# -q: no .curlrc; HOME points into the scratch space anyway.
HOME=$tmp strace -f -qq -o "$tmp/curl.trace" -E LD_PRELOAD="$preload" \
	-E APIPROF_OUTPUT="$tmp/curl.json" curl -q -sS "$@"
wait $pid || fail "the server exited with status $?"
pid= spid=
i=1
while [ $i -le $k ]; do
	cmp "$tmp/www/f.bin" "$tmp/got.$i" || fail "download $i differs"
	i=$((i + 1))
done

# rows NAME - "function calls" of NAME.json's net rows
rows() {
	"$outdump" "$tmp/$1.json" | awk '$2 ~ /^net\./ { sub(/^net\./, "", $2); n[$2] += $3 }
		END { for (f in n) print f, n[f] }' | sort
}
# calls NAME F... - the sum of the rows F...
calls() {
	name=$1
	shift
	rows "$name" | awk -v fs=" $* " 'index(fs, " " $1 " ") { n += $2 } END { print n + 0 }'
}
# syscalls NAME S... - how many of the system calls S... NAME.trace shows
syscalls() {
	name=$1
	shift
	awk -v ss=" $* " '{ s = $2; sub(/\(.*/, "", s) } index(ss, " " s " ") { n++ } END { print n + 0 }' \
		"$tmp/$name.trace"
}
# same NAME "F..." "S..." - the rows F... sum to strace's count of S...
same() {
	c=$(calls "$1" $2) s=$(syscalls "$1" $3)
	[ "$c" -eq "$s" ] || fail "$1: $2 counted $c, strace saw $s $3"
	echo "$1: $2 = $c = strace's $3"
}
for side in server curl; do
	same $side "socket" "socket"
	same $side "connect" "connect"
	same $side "accept accept4" "accept accept4"
	same $side "send sendto" "sendto"
	same $side "recv recvfrom" "recvfrom"
	same $side "sendmsg" "sendmsg"
	same $side "recvmsg" "recvmsg"
	same $side "sendfile" "sendfile"
	same $side "shutdown" "shutdown"
	same $side "poll" "poll"
	same $side "ppoll" "ppoll"
	same $side "select pselect" "pselect6"
	same $side "epoll_wait" "epoll_wait"
	same $side "epoll_pwait" "epoll_pwait"
	same $side "epoll_pwait2" "epoll_pwait2"
	same $side "sendmmsg" "sendmmsg"
	same $side "recvmmsg" "recvmmsg"
done
# Independently of strace.
[ "$(calls server socket)" -eq 1 ] || fail "server: socket $(calls server socket), want 1"
for f in accept4 epoll_wait poll shutdown; do
	[ "$(calls server $f)" -eq $k ] || fail "server: $f $(calls server $f), want $k (one per request)"
done
for f in socket connect; do
	[ "$(calls curl $f)" -eq $k ] || fail "curl: $f $(calls curl $f), want $k (one per URL)"
done
[ "$(calls curl send)" -ge $k ] && [ "$(calls curl recv)" -ge $k ] && [ "$(calls curl poll)" -ge $k ] ||
	fail "curl: send, recv or poll not counted"
echo "ok: curl and http.server on 127.0.0.1: every net row equals strace's count; $k requests: $k accept4, epoll_wait, poll and shutdown"
