#!/bin/sh
# execchain.sh N DIR - execs itself (sh) N times, one process through
# N+1 images, then prints the apiprof segments in /dev/shm, one a line,
# and the pid; then it execs true, which ends with exit() (sh ends with
# _exit, which a plain shim does not see: README, "The runtime's hooks").
# Builtins only: a child process would make segments of its own.  Before
# the image that lists, it writes its pid to the FIFO DIR/ready and waits
# for a line on the FIFO DIR/go, so that the test can plant decoys that
# bear its identity.
n=$1 dir=$2
if [ "$n" -eq 1 ]; then
	echo $$ >"$dir/ready"
	read -r _ <"$dir/go"
fi
if [ "$n" -gt 0 ]; then
	exec sh "$0" $((n - 1)) "$dir"
fi
for f in /dev/shm/apiprof-*; do
	[ -e "$f" ] && echo "${f#/dev/shm/}"
done
echo "pid $$"
exec true
