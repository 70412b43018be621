#!/bin/sh
# output_privdrop.sh RUNTIME SHIM DROPPROG - an output that cannot be
# written is never lost in silence (issue 35, point 7).  A program started
# as root becomes a throwaway user (made here with useradd, removed after)
# and exits; APIPROF_OUTPUT is in a directory only root may write:
#  - self: the program keeps its stderr: exactly one line there, naming
#    the file and the reason;
#  - fork: as nginx, it first puts its error log on fd 2 (dup2 of a file
#    opened for appending), then forks a worker that drops privileges:
#    the worker's one line is in that log (its stderr then), the root
#    master's output is written, and the original stderr has nothing;
#  - data: fd 2 is replaced by a file opened read-write (data, not a log):
#    the file is left as it was.
# In every case the exit status and stdout are the bare program's.  The
# programs run from copies in the scratch directory (a checkout may be
# under /root, 0700), with APIPROF_SHM=0 (no segment is left anywhere).
set -u
. "$(dirname "$0")/../lib.sh"
runtime=$(realpath "$1") shim=$(realpath "$2") prog=$(realpath "$3")
. "$(dirname "$0")/rlib.sh"
skip_if_sanitized "$shim"
[ "$(id -u)" -eq 0 ] || skip "needs root: the program drops privileges to a throwaway user"
need useradd passwd
need setpriv util-linux

user=apiprof-od$$
trap 'userdel "$user" 2>/dev/null; rm -rf "$tmp"' EXIT
useradd --system --no-create-home --user-group --shell /usr/sbin/nologin "$user" ||
	fail "useradd $user"
uid=$(id -u "$user") ids=$(id -u "$user"):$(id -g "$user")

chmod 711 "$tmp"
mkdir -m 755 "$tmp/bin" "$tmp/root" "$tmp/logs"
for f in $(ldd "$prog" "$shim" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
	grep -v -e '^/lib' -e '^/usr/' | sort -u) "$runtime" "$shim" "$prog"; do
	cp "$f" "$tmp/bin/" || fail "cannot copy $f"
done
runtime=$tmp/bin/${runtime##*/} shim=$tmp/bin/${shim##*/} prog=$tmp/bin/${prog##*/}
export LD_LIBRARY_PATH="$tmp/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
setpriv --reuid="$uid" --regid="${ids#*:}" --clear-groups "$prog" chdir / 1 0 >/dev/null ||
	fail "$user cannot run the copy of the program"
pl=$(shim_preload "$runtime" "$shim")
export APIPROF_SHM=0
unset APIPROF_SUMMARY APIPROF_INTERVAL_MS APIPROF_KEEP_SHM

# self: one line on the stderr it kept.
export APIPROF_OUTPUT="$tmp/root/self.json"
compare self "$pl" "$prog" self "$ids" 100 3
[ "$(cat "$tmp/self.shim.st")" = 3 ] || fail "self: status $(cat "$tmp/self.shim.st"), 3 bare"
printf 'apiprof: cannot write %s: Permission denied\n' "$APIPROF_OUTPUT" >"$tmp/self.want"
diff -u "$tmp/self.want" "$tmp/self.shim.err" ||
	fail "self: want exactly that one line on stderr (-want +got)"
[ ! -e "$APIPROF_OUTPUT" ] || fail "self: $APIPROF_OUTPUT was written"
echo "ok: a process that became uid $uid says in one line that it cannot write its output; status 3 as bare"

# fork: the worker's line is in the log on its fd 2.
export APIPROF_OUTPUT="$tmp/root/fork.%p.json"
compare fork "$pl" "$prog" fork "$ids" 100 3 "$tmp/logs/error.log"
[ "$(cat "$tmp/fork.shim.st")" = 3 ] || fail "fork: status $(cat "$tmp/fork.shim.st"), 3 bare"
[ ! -s "$tmp/fork.shim.err" ] || fail "fork: the original stderr got: $(cat "$tmp/fork.shim.err")"
n=$(grep -c . "$tmp/logs/error.log")
w=$(sed -n "s|^apiprof: cannot write $tmp/root/fork\.\([0-9]*\)\.json: Permission denied\$|\1|p" \
	"$tmp/logs/error.log")
[ "$n" = 1 ] && [ -n "$w" ] ||
	fail "fork: want exactly one 'cannot write' line for the worker in its error log, got $n: '$(cat "$tmp/logs/error.log")'"
master=$(cd "$tmp/root" && ls fork.*.json)
case $master in
fork.[0-9]*.json) ;;
*) fail "fork: want the master's output alone in $tmp/root, got: $master" ;;
esac
[ "$master" != "fork.$w.json" ] || fail "fork: the worker's output was written: $master"
got=$(calls "$tmp/root/$master" testlib.tl_add)
[ "$got" = 100 ] || fail "fork: the master's output has $got calls of tl_add, 100 made"
echo "ok: nginx's way (error log dup2'd onto fd 2, a worker becomes uid $uid): the worker's one line is in the log, the master's output is written, status 3 as bare"

# data: fd 2 replaced by a file opened read-write is not written.
printf 'DATA\n' >"$tmp/data"
export APIPROF_OUTPUT="$tmp/root/data.json"
compare data "$pl" "$prog" data "$ids" 100 3 "$tmp/data"
[ "$(cat "$tmp/data.shim.st")" = 3 ] || fail "data: status $(cat "$tmp/data.shim.st"), 3 bare"
[ "$(cat "$tmp/data")" = DATA ] || fail "data: the data file on fd 2 was written: $(cat "$tmp/data")"
[ ! -s "$tmp/data.shim.err" ] || fail "data: the original stderr got: $(cat "$tmp/data.shim.err")"
echo "ok: fd 2 reopened read-write on a data file: the data file is untouched"
