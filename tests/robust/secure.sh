#!/bin/sh
# secure.sh RUNTIME SECUREPROG - a setuid-root program run by another user
# with the runtime in /etc/ld.so.preload (how a fleet leaves a profiler
# on) runs in secure-execution mode (AT_SECURE): the user's APIPROF_*
# variables are ignored.  APIPROF_OUTPUT naming a root-owned file leaves
# it as it was, one naming a root-only directory makes no file there,
# APIPROF_KEEP_SHM leaves no segment, and one line on stderr says so.
#
# All in a mount namespace of its own: /etc is an overlay there (the
# ld.so.preload and the throwaway user exist only in it), /dev/shm and the
# scratch directory are fresh tmpfs mounts (setuid programs run from it).
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rlib.sh"
runtime=$(realpath "$1") prog=$(realpath "$2")

[ "$(id -u)" = 0 ] || skip "needs root: it makes a setuid-root program and a user"
unshare -m --propagation private true 2>/dev/null || skip "cannot make a mount namespace (unshare -m)"

want='apiprof: secure-execution mode (setuid, setgid or file capabilities): every APIPROF_* setting is ignored and no profile is written'

# In the namespace: $1 = scratch (a tmpfs), $2 = results (outside it).
inner='
set -eu
d=$1 res=$2 sanpre=$3 prog=$4 runtime=$5
mount -t tmpfs -o mode=755 tmpfs "$d"
# The runtime from the scratch mount: the build tree may lie where the user
# cannot reach (a checkout under /root).
cp "$runtime" "$d/libapiprof.so.0"
preload=$sanpre$d/libapiprof.so.0
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mkdir "$d/up" "$d/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$d/up,workdir=$d/work" /etc
touch "$res/mounts.ok"
user=apiprof-sec$$
useradd -M -l -s /usr/sbin/nologin "$user"
touch "$res/setup.ok"
cp "$prog" "$d/prog"
chown root:root "$d/prog"
chmod 4755 "$d/prog"
mkdir -m 700 "$d/rootonly"
printf "root owned\n" >"$d/target"
ls -li "$d/target" >"$res/target.before"
# From here on every program in the namespace loads the runtime (in a
# sanitizer build, after the sanitizer runtimes).
printf "%s\n" "$preload" >/etc/ld.so.preload
# setpriv, root, runs under the runtime too (ld.so.preload): with no
# segment, which would stay behind, root-owned, once it is another user,
# and no flusher thread, which would only watch that segment.
as_user() {
	APIPROF_INTERVAL_MS=0 APIPROF_SHM=0 setpriv --reuid="$user" --regid="$user" \
		--clear-groups env -u APIPROF_INTERVAL_MS -u APIPROF_SHM "$@"
}
set +e
as_user APIPROF_OUTPUT="$d/target" APIPROF_SUMMARY=1 "$d/prog" >"$res/a.out" 2>"$res/a.err"
echo $? >"$res/a.st"
as_user APIPROF_OUTPUT="$d/rootonly/new.json" APIPROF_KEEP_SHM=1 "$d/prog" \
	>"$res/b.out" 2>"$res/b.err"
echo $? >"$res/b.st"
# The same user, the same program without the setuid bit: profiled.
cp "$prog" "$d/plain"
as_user APIPROF_OUTPUT=/dev/shm/plain.json "$d/plain" >"$res/c.out" 2>"$res/c.err"
echo $? >"$res/c.st"
set -e
ls -li "$d/target" >"$res/target.after"
cat "$d/target" >"$res/target.text"
ls -A "$d/rootonly" >"$res/rootonly.ls"
# by the shell: ls would list its own segment (ld.so.preload)
for f in /dev/shm/* /dev/shm/.[!.]*; do [ ! -e "$f" ] || echo "${f##*/}"; done >"$res/shm.ls"
'
mkdir "$tmp/ns"
chmod 711 "$tmp" # the user reaches the scratch mount through it
# The sanitizer runtimes that must come first (sanitizer builds), if any.
sanpre=$(shim_preload "$runtime")
sanpre=${sanpre%"$runtime"}
wd unshare -m --propagation private sh -c "$inner" sh "$tmp/ns" "$tmp" "$sanpre" "$prog" "$runtime" \
	>"$tmp/ns.log" 2>&1
st=$?
[ -e "$tmp/mounts.ok" ] ||
	skip "this kernel cannot mount a tmpfs and an overlay of /etc in a mount namespace: $(cat "$tmp/ns.log")"
[ -e "$tmp/setup.ok" ] || fail "set-up in the namespace (useradd): $(cat "$tmp/ns.log")"
[ $st -eq 0 ] || fail "in the namespace: status $st: $(cat "$tmp/ns.log")"

cmp -s "$tmp/target.before" "$tmp/target.after" && [ "$(cat "$tmp/target.text")" = "root owned" ] ||
	fail "the root-owned APIPROF_OUTPUT file was replaced: $(cat "$tmp/target.after"): $(head -c 100 "$tmp/target.text")"
[ ! -s "$tmp/rootonly.ls" ] || fail "files appeared in the root-only directory: $(cat "$tmp/rootonly.ls")"
[ "$(cat "$tmp/shm.ls")" = plain.json ] ||
	fail "want only the unprivileged run's plain.json in /dev/shm, got: $(cat "$tmp/shm.ls" | tr '\n' ' ')"
for r in a b; do
	[ "$(cat "$tmp/$r.st")" = 0 ] || fail "$r: status $(cat "$tmp/$r.st"): $(cat "$tmp/$r.err")"
	[ "$(cat "$tmp/$r.out")" = "AT_SECURE=1 euid=0" ] ||
		fail "$r: not a secure-execution run: $(cat "$tmp/$r.out")"
	[ "$(cat "$tmp/$r.err")" = "$want" ] ||
		fail "$r: want the one line '$want' on stderr, got: $(cat "$tmp/$r.err")"
done
[ "$(cat "$tmp/c.st")" = 0 ] && [ ! -s "$tmp/c.err" ] && grep -qx 'AT_SECURE=0 euid=[1-9][0-9]*' "$tmp/c.out" ||
	fail "the plain copy: status $(cat "$tmp/c.st"): $(cat "$tmp/c.out" "$tmp/c.err")"
echo "ok: setuid-root under /etc/ld.so.preload: APIPROF_OUTPUT, APIPROF_SUMMARY and APIPROF_KEEP_SHM ignored, target kept, no file, one line"
