#!/bin/sh
# lifecycle.sh RUNTIME SHIM PROG - exec, _exit, vfork, fork and errno under
# the runtime preloaded ahead of libc (as apiprof-run does) plus a shim.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 shim=$2 prog=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
preload=$(shim_preload "$runtime" "$shim")
count() { "$OUTDUMP" "$1" | awk '$2 == "testlib.tl_add" { n += $3 } END { print n + 0 }'; }
fail() { echo "FAIL: $*"; exit 1; }

# exec: the outgoing image's numbers go to OUT.exec1, the new image's to OUT.
APIPROF_OUTPUT="$tmp/exec.json" LD_PRELOAD="$preload" "$prog" exec 5 >"$tmp/o"
[ "$(cat "$tmp/o")" = "$(printf 'exec: 5\nexit: 6')" ] || fail "exec output: $(cat "$tmp/o")"
[ "$(count "$tmp/exec.json.exec1")" -eq 5 ] || fail "pre-exec image: $(count "$tmp/exec.json.exec1") calls"
[ "$(count "$tmp/exec.json")" -eq 6 ] || fail "post-exec image: $(count "$tmp/exec.json") calls"

# execlp (found on PATH) and execle (its own environment) the same way.
for form in execlp execle; do
	APIPROF_OUTPUT="$tmp/$form.json" LD_PRELOAD="$preload" PATH="$(dirname "$prog"):$PATH" \
		"$prog" $form 4 >"$tmp/o"
	want="$form: 4
exit: 5"
	[ $form = execle ] && want="$want
form: execle"
	[ "$(cat "$tmp/o")" = "$want" ] || fail "$form output: $(cat "$tmp/o")"
	[ "$(count "$tmp/$form.json.exec1")" -eq 4 ] || fail "pre-$form image: $(count "$tmp/$form.json.exec1") calls"
	[ "$(count "$tmp/$form.json")" -eq 5 ] || fail "post-$form image: $(count "$tmp/$form.json") calls"
done

# _exit skips destructors: nothing is lost all the same.
set +e
APIPROF_OUTPUT="$tmp/x.json" LD_PRELOAD="$preload" "$prog" _exit 7 >/dev/null
st=$?
set -e
[ $st -eq 3 ] || fail "_exit status $st"
[ "$(count "$tmp/x.json")" -eq 7 ] || fail "_exit lost calls"

# vfork: the child's exec must not finish the parent's image.  The exec'd
# /bin/true inherits LD_PRELOAD and writes its own (empty) output.
APIPROF_OUTPUT="$tmp/v-%p.json" LD_PRELOAD="$preload" "$prog" vfork 9 >"$tmp/o"
grep -qx "vfork: 9" "$tmp/o" || fail "vfork run"
got=$(for f in "$tmp"/v-*.json; do count "$f"; done | sort -n | tr '\n' ' ')
[ "$got" = "0 9 " ] || fail "vfork: per-image counts '$got', want '0 9 '"

# fork: each child has its own numbers, file and segment; no deadlock.
n=${FORKS:-1000}
APIPROF_OUTPUT="$tmp/f-%p.json" LD_PRELOAD="$preload" "$prog" fork $n >"$tmp/o"
grep -qx "forks: $n of $n children exited 0" "$tmp/o" || fail "fork: $(cat "$tmp/o")"
files=0 bad=0
for f in "$tmp"/f-*.json; do
	files=$((files + 1))
	c=$(count "$f")
	[ "$c" -eq 10 ] || [ "$c" -gt 1000 ] || bad=$((bad + 1))
done
# Children that ran one after another may have reused a pid (pid_max can
# be small): then they shared an output file, so count distinct pids.
pids=$(awk '$1 == "child" { print $2 }' "$tmp/o" | sort -u | wc -l)
[ $files -eq $((pids + 1)) ] || fail "fork: $files outputs for $pids distinct child pids and the parent"
[ $bad -eq 0 ] || fail "fork: $bad children with counts other than 10"
parents=$(for f in "$tmp"/f-*.json; do count "$f"; done | awk '$1 != 10' | wc -l)
[ "$parents" -eq 1 ] || fail "fork: $parents outputs that are not a child's"

# posix_spawn: the child is profiled on its own (LD_PRELOAD is inherited).
APIPROF_OUTPUT="$tmp/s-%p.json" LD_PRELOAD="$preload" "$prog" spawn 4 >"$tmp/o"
grep -qx "spawn: 4" "$tmp/o" || fail "spawn run: $(cat "$tmp/o")"
got=$(for f in "$tmp"/s-*.json; do count "$f"; done | sort -n | tr '\n' ' ')
[ "$got" = "3 4 " ] || fail "spawn: per-process counts '$got', want '3 4 '"

# Forked children are processes of their own for apiprof-top too: each
# left its segment (APIPROF_KEEP_SHM=1), and the viewer lists each apart.
if [ -n "${APIPROF_TOP:-}" ]; then
	APIPROF_KEEP_SHM=1 LD_PRELOAD="$preload" "$prog" fork 20 >"$tmp/o"
	kids=$(awk '$1 == "child" { print $2 }' "$tmp/o" | sort -u)
	parent=$(awk '$1 == "parent" { print $2 }' "$tmp/o")
	"$APIPROF_TOP" --json -n 1 -d 0.01 -p "$(echo $kids $parent | tr ' ' ',')" >"$tmp/top.json"
	listed=$(grep -o '"pid":[ ]*[0-9]*' "$tmp/top.json" | grep -o '[0-9]*$' | sort -u | wc -l)
	for pid in $kids $parent; do
		rm -f /dev/shm/apiprof-"$(id -u)"-"$pid"-*
	done
	[ "$listed" -eq $(($(echo $kids | wc -w) + 1)) ] ||
		fail "apiprof-top listed $listed processes for $(echo $kids | wc -w) children and their parent"
fi

# errno as main() finds it, and the runtime's own start-up left nothing.
LD_PRELOAD="$preload" "$prog" errno | grep -qx "errno at main: 0" || fail "errno at main"
echo "ok: exec, execlp, execle, _exit, vfork, posix_spawn, $n forks (each child its own output and segment) and errno"
