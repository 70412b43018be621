#!/bin/sh
# eof_input.sh TOP - the live view with its input at end of file does not
# spin (issue 20, point 19): `apiprof-top </dev/null` on a terminal (made
# by script(1)), and the same with an empty file, for 20 refreshes of
# 50 ms.  What is counted is work, not time: the calls that wait for input
# (poll, ppoll, select, pselect6) and reads of fd 0, under strace.  A loop
# that spins on getch() makes thousands per refresh; a few are allowed.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1
n=20
need script bsdutils
need strace strace
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
mkdir "$tmp/empty"
: >"$tmp/empty-input"
for input in /dev/null "$tmp/empty-input"; do
	rm -f "$tmp/trace"
	(TERM=xterm wd script -qec "strace -f -qq -o '$tmp/trace' \
		-e trace=poll,ppoll,select,pselect6,read '$top' -d 0.05 -n $n \
		--shm-dir '$tmp/empty' <'$input'; echo \"status \$?\" >'$tmp/status'" \
		/dev/null </dev/null) >"$tmp/screen" 2>&1
	[ "$(cat "$tmp/status" 2>/dev/null)" = "status 0" ] ||
		fail "$input: $(cat "$tmp/status" 2>/dev/null) $(cat "$tmp/screen")"
	waits=$(grep -Ec '(poll|ppoll|select|pselect6)\(|read\(0,' "$tmp/trace")
	echo "stdin $input: $waits waits for input in $n refreshes"
	[ "$waits" -le $((4 * n + 20)) ] || fail "$input: spins: $waits waits for input in $n refreshes"
done
echo "ok: no spin at end of input"
