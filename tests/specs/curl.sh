#!/bin/sh
# curl.sh SHIM OUTDUMP - the libcurl spec on Debian's unmodified curl CLI
# against a local HTTP server (http_server.py on a port of its choosing).
#
# curl downloads K URLs one after another (src/tool_operate.c, serial
# mode): per URL one easy handle (curl_easy_init, curl_easy_cleanup, plus
# one more handle per run), its options set with the same curl_easy_setopt
# calls, and one curl_easy_perform; curl_global_init and _cleanup once per
# run.  So 1 and 3 URLs give exactly 1 and 3 performs, 2 more
# inits/cleanups, and 3 times the setopts.  With -Z (parallel) the easy
# handles go through one multi handle: curl_multi_init once, one
# curl_multi_add_handle and curl_multi_remove_handle per URL.  (How often
# curl_multi_perform and _poll run depends on timing: not checked.)
set -eu
. "$(dirname "$0")/../lib.sh"
shim=$1 outdump=$2
here=$(cd "$(dirname "$0")" && pwd)
need curl curl
skip_if_sanitized "$shim"
preload=$(shim_preload "$shim")
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$tmp/www"
head -c 300000 /dev/urandom >"$tmp/www/f.bin"
mkfifo "$tmp/port"
/usr/bin/python3 "$here/http_server.py" "$tmp/www" >"$tmp/port" &
pid=$!
read -r port _ <"$tmp/port"
url=http://127.0.0.1:$port/f.bin

# fetch NAME K [CURL_OPTION...] - K downloads, rows in NAME.txt
fetch() {
	name=$1 k=$2
	shift 2
	set -- "$@"
	args=
	i=1
	while [ $i -le "$k" ]; do
		args="$args -o $tmp/$name.$i $url"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	APIPROF_OUTPUT="$tmp/$name.json" LD_PRELOAD="$preload" curl -sS "$@" $args
	i=1
	while [ $i -le "$k" ]; do
		cmp "$tmp/www/f.bin" "$tmp/$name.$i" || fail "$name: download $i differs"
		i=$((i + 1))
	done
	"$outdump" "$tmp/$name.json" | awk '$2 ~ /^libcurl\./ { sub(/^libcurl\./, "", $2); n[$2] += $3 }
		END { for (f in n) print f, n[f] }' | sort >"$tmp/$name.txt"
}
count() { awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' "$tmp/$2.txt"; }
delta() {
	d=$(($(count "$1" "$3") - $(count "$1" "$2")))
	[ $d -eq "$4" ] || fail "$1: $d more calls from $2 to $3, want $4"
}

fetch s1 1
fetch s3 3
for f in curl_global_init curl_global_cleanup; do
	[ "$(count $f s1)" -eq 1 ] && [ "$(count $f s3)" -eq 1 ] || fail "$f not once per run"
done
[ "$(count curl_easy_perform s1)" -eq 1 ] && [ "$(count curl_easy_perform s3)" -eq 3 ] ||
	fail "curl_easy_perform: $(count curl_easy_perform s1) and $(count curl_easy_perform s3), want 1 and 3"
delta curl_easy_init s1 s3 2
delta curl_easy_cleanup s1 s3 2
[ "$(count curl_easy_setopt s3)" -eq $((3 * $(count curl_easy_setopt s1))) ] ||
	fail "curl_easy_setopt: $(count curl_easy_setopt s1) for 1 URL, $(count curl_easy_setopt s3) for 3"
echo "ok: curl, 1 and 3 URLs: one curl_easy_perform per URL, $(count curl_easy_setopt s1) setopts per URL exactly"

fetch p2 2 -Z --no-progress-meter
fetch p4 4 -Z --no-progress-meter
for f in curl_multi_add_handle curl_multi_remove_handle; do
	[ "$(count $f p2)" -eq 2 ] && [ "$(count $f p4)" -eq 4 ] || fail "curl -Z: $f, want 2 and 4"
done
delta curl_easy_init p2 p4 2
[ "$(count curl_multi_init p4)" -eq 1 ] || fail "curl -Z: curl_multi_init $(count curl_multi_init p4), want 1"
echo "ok: curl -Z, 2 and 4 URLs in parallel: one multi handle, every easy handle added and removed once"
