#!/bin/sh
# attach_stop.sh BUILD_DIR [wait|spin] [THREADS] [OBJECTS] [RUNS] - how long
# apiprof-run -p stops a process of THREADS (100) threads that call crc32
# and wait in read(2) (wait, a server's threads) or call it in a loop
# (spin), with OBJECTS (200) shared objects loaded besides its own (copies
# of one small library, each its own file), over RUNS (5) attaches and
# detaches: the times apiprof-run says.
# In a private mount namespace with its own /dev/shm.
set -eu
build=$(realpath "$1") how=${2:-wait} threads=${3:-100} objects=${4:-200} runs=${5:-5}
if [ "${ATTACH_STOP_INNER:-}" != 1 ]; then
	exec unshare -m --propagation private sh -c \
		'mount -t tmpfs tmpfs /dev/shm && ATTACH_STOP_INNER=1 exec sh "$0" "$@"' \
		"$0" "$build" "$how" "$threads" "$objects" "$runs"
fi
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
src=$(dirname "$(realpath "$0")")
cc -O2 -o "$tmp/attach_stop" "$src/attach_stop.c" -lz -lpthread -ldl
printf 'int f(int x) { return x + 1; }\n' >"$tmp/o.c"
cc -O2 -shared -fPIC -o "$tmp/o.so" "$tmp/o.c"
i=0
while [ $i -lt "$objects" ]; do cp "$tmp/o.so" "$tmp/o$i.so"; i=$((i + 1)); done
mkfifo "$tmp/in" "$tmp/out"
"$tmp/attach_stop" "$how" "$threads" "$tmp"/o[0-9]*.so <"$tmp/in" >"$tmp/out" &
pid=$!
exec 7>"$tmp/in" 8<"$tmp/out"
read -r ready <&8
echo "pid $pid: $(ls /proc/$pid/task | wc -l) threads, $(awk '$6 ~ /\.so/ {print $6}' /proc/$pid/maps | sort -u | wc -l) objects mapped"
r=0
while [ $r -lt "$runs" ]; do
	: >"$tmp/err"
	"$build/run/apiprof-run" -s zlib -p $pid 2>"$tmp/err" &
	a=$!
	until grep -q attached "$tmp/err"; do :; done
	kill -INT $a
	wait $a
	cat "$tmp/err"
	r=$((r + 1))
done
