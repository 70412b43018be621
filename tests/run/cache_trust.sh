#!/bin/sh
# cache_trust.sh APIPROF_RUN TESTPROG SPEC OUTDUMP PLANTED
#
# The launcher's shim cache never runs another user's code.  A second
# user (uid 12345, made with setpriv) plants PLANTED, a library that
# prints "PLANTED" when loaded, where the cached shim would be: in a cache
# directory of his, in one anybody can write, under a home anybody can
# write, as the cached file itself, or as a symlink.  Each time the
# program runs with exact counts, the planted library is not loaded, and
# one line says the cache was not trusted.  With HOME unset the launcher
# builds into a private directory of its own, never /tmp/.cache: those
# cases run in a mount namespace with a private /tmp, so the real /tmp is
# never touched whatever the launcher does, wherever the checkout is
# (/tmp too); they are skipped, saying why, only where no private mount
# namespace can be had (a chroot, where unshare cannot change the
# propagation of /).  Runs as root.
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
run=$1 prog=$2 spec=$3 outdump=$4 planted=$5
skip_if_sanitized "$run"
[ "$(id -u)" -eq 0 ] || skip "needs root: a second user plants the files"
U=12345
as_other() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }

chmod 755 "$tmp"
cp "$spec" "$tmp/testlib.json"
unset APIPROF_CACHE XDG_CACHE_HOME
export HOME="$tmp/home" TMPDIR="$tmp/tmpdir"
mkdir -m 1777 "$TMPDIR"

# The shim's file name in any cache (a hash of the spec and generator).
APIPROF_CACHE="$tmp/legit" "$run" -q -s "$tmp/testlib.json" -- true ||
	fail "could not build the shim in a cache of our own"
name=$(cd "$tmp/legit" && ls libapiprof-*.so)
[ -n "$name" ] || fail "no shim in $tmp/legit"

. "$(dirname "$0")/launch.sh"

# check TAG LINE: status 0, nothing planted ran, exact counts, and exactly
# one "not trusted" line, the one containing LINE.
check() {
	tag=$1 line=$2
	[ "$st" -eq 0 ] || fail "$tag: status $st: $(cat "$tmp/$tag.err")"
	if grep -q PLANTED "$tmp/$tag.out" "$tmp/$tag.err"; then
		fail "$tag: the planted library ran in the program"
	fi
	"$outdump" "$tmp/$tag.json" | grep -qx "worker-1 testlib.tl_add 1000" ||
		fail "$tag: no exact counts: $(cat "$tmp/$tag.err")"
	n=$(grep -c "not trusted" "$tmp/$tag.err")
	grep -qF "$line" "$tmp/$tag.err" && [ "$n" -eq 1 ] || {
		cat "$tmp/$tag.err"
		fail "$tag: want exactly one 'not trusted' line, with: $line"
	}
}

# A cache directory owned by the other user ($HOME/.cache/apiprof).
mkdir -p "$tmp/h2/.cache" && chmod 1777 "$tmp/h2/.cache"
as_other sh -c "mkdir '$tmp/h2/.cache/apiprof' && cp '$planted' '$tmp/h2/.cache/apiprof/$name'" ||
	fail "the other user could not plant"
launch foreign_dir HOME="$tmp/h2"
check foreign_dir "shim cache $tmp/h2/.cache/apiprof: not trusted: $tmp/h2/.cache/apiprof is owned by uid $U; building in $TMPDIR/apiprof-0"

# A cache directory anybody can write ($XDG_CACHE_HOME/apiprof, 0777).
mkdir -p "$tmp/x3/apiprof" && chmod 777 "$tmp/x3/apiprof"
as_other cp "$planted" "$tmp/x3/apiprof/$name" || fail "the other user could not plant"
launch open_dir XDG_CACHE_HOME="$tmp/x3"
check open_dir "not trusted: $tmp/x3/apiprof is writable by group or others"

# Our own cache directory under a home anybody can write: the other user
# could have swapped .cache for his own at any time.
mkdir -p "$tmp/h6/.cache/apiprof" && chmod 777 "$tmp/h6"
cp "$planted" "$tmp/h6/.cache/apiprof/$name"
launch open_home HOME="$tmp/h6"
check open_home "not trusted: $tmp/h6 is writable by group or others"

# In our own cache: the cached file belongs to the other user.
mkdir -m 700 "$tmp/c4"
cp "$planted" "$tmp/c4/$name" && chown $U:$U "$tmp/c4/$name"
launch foreign_file APIPROF_CACHE="$tmp/c4"
check foreign_file "cached shim not trusted: $tmp/c4/$name is owned by uid $U; building it again"
[ "$(stat -c %u "$tmp/c4/$name")" = 0 ] || fail "foreign_file: the shim was not built again"
launch foreign_file2 APIPROF_CACHE="$tmp/c4"
grep -q "not trusted\|building" "$tmp/foreign_file2.err" && fail "the rebuilt shim was not reused"

# In our own cache: the cached file is a symlink to a planted library.
mkdir -m 700 "$tmp/c5"
cp "$planted" "$tmp/p5.so" && ln -s "$tmp/p5.so" "$tmp/c5/$name"
launch symlink APIPROF_CACHE="$tmp/c5"
check symlink "cached shim not trusted: $tmp/c5/$name: a symbolic link; building it again"

# HOME unset, in a private /tmp.  The other user planted in the old shared
# fallback /tmp/.cache/apiprof and where ours would go, /tmp/apiprof-0.
# The private /tmp is a tmpfs mounted first in our own directory, given a
# bind of each directory of the real /tmp that the programs, spec and
# build tree are under (a checkout in /tmp/x: /tmp/x), then moved onto
# /tmp: the test works wherever the checkout is, and the real /tmp is
# never touched whatever the launcher does.
# private_tmp TAG PLANT: runs the program there; status, counts and the
# state of /tmp on stdout, into $tmp/TAG.out; stderr into $tmp/TAG.err.
keep=$(for p in "$run" "$prog" "$spec" "$outdump" "$planted" "${CPATH-}" "${LIBRARY_PATH-}"; do
	realpath -m "$p" 2>/dev/null
done | sed -n 's|^/tmp/\([^/]*\).*|\1|p' | sort -u)
timeout -k 5 "$WATCHDOG" unshare -m --propagation private true 2>"$tmp/unshare.err" ||
	skip "no private mount namespace here (a chroot?): $(cat "$tmp/unshare.err")"
mkdir "$tmp/ns"
private_tmp() {
	timeout -k 5 "$WATCHDOG" unshare -m --propagation private sh -c '
		run=$1 prog=$2 spec=$3 outdump=$4 planted=$5 name=$6 U=$7 plant=$8 ns=$9 keep=${10}
		mount -t tmpfs -o mode=1777 apiprof-test "$ns" || exit 77
		for k in $keep; do
			mkdir "$ns/$k" && mount --bind "/tmp/$k" "$ns/$k" || exit 4
		done
		mount --move "$ns" /tmp || exit 4
		if [ "$plant" = yes ]; then
			setpriv --reuid=$U --regid=$U --clear-groups sh -c "
				mkdir -p /tmp/.cache/apiprof /tmp/apiprof-0 &&
				cp $planted /tmp/.cache/apiprof/$name && cp $planted /tmp/apiprof-0/$name" ||
				exit 3
		fi
		env -u HOME -u XDG_CACHE_HOME -u APIPROF_CACHE -u TMPDIR \
			"$run" -s "$spec" -o /tmp/out.json -- "$prog" 2 1000 >/dev/null
		echo "status $?"
		"$outdump" /tmp/out.json | grep "^worker-1 testlib.tl_add "
		[ "$plant" = yes ] || ls -A /tmp | grep -v -x -e apiprof-0 -e out.json $(
			for k in $keep; do printf " -e %s" "$k"; done)
		stat -c "apiprof-0 %a %u" /tmp/apiprof-0
		ls -d /tmp/apiprof-0.* 2>/dev/null | sed "s|^/tmp/apiprof-0\.......$|fresh|"
	' sh "$run" "$prog" "$spec" "$outdump" "$planted" "$name" $U "$2" "$tmp/ns" "$keep" \
		>"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null
	st=$?
	[ $st -ne 77 ] || skip "no private /tmp (mount tmpfs in a mount namespace)"
	[ $st -eq 0 ] || fail "$1: status $st: $(cat "$tmp/$1.out" "$tmp/$1.err")"
}

private_tmp nohome no
printf 'status 0\nworker-1 testlib.tl_add 1000\napiprof-0 700 0\n' >"$tmp/nohome.want"
diff -u "$tmp/nohome.want" "$tmp/nohome.out" ||
	fail "HOME unset: not built in a private /tmp/apiprof-0 with exact counts (-want +got)"
grep -v "building a shim" "$tmp/nohome.err" && fail "HOME unset: unexpected messages"

private_tmp nohome_planted yes
printf 'status 0\nworker-1 testlib.tl_add 1000\napiprof-0 755 %s\nfresh\n' $U >"$tmp/nohome_planted.want"
diff -u "$tmp/nohome_planted.want" "$tmp/nohome_planted.out" ||
	fail "HOME unset, planted: not built in a fresh private directory (-want +got)"
if grep -q PLANTED "$tmp/nohome_planted.err"; then
	fail "HOME unset: the planted library ran in the program"
fi
[ "$(grep -c "not trusted" "$tmp/nohome_planted.err")" -eq 1 ] &&
	grep -q "^apiprof-run: shim cache: not trusted: /tmp/apiprof-0 is owned by uid $U; building in /tmp/apiprof-0\.......$" \
		"$tmp/nohome_planted.err" || {
	cat "$tmp/nohome_planted.err"
	fail "HOME unset, planted: want one 'not trusted' line naming /tmp/apiprof-0"
}
echo "ok: nothing planted by another user ran; one line each time; HOME unset builds privately"
