# rlib.sh - helpers of the robust tests, sourced after ../lib.sh.
#
# Every program runs under `timeout`: a hang is a failure (status 124 or
# 137), never a pass.  Limits are generous; no test measures time.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
WATCHDOG=${WATCHDOG:-120}

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# wd CMD...: runs CMD under the watchdog, a hang is a failure.
wd() {
	timeout -k 5 "$WATCHDOG" "$@"
	st=$?
	if [ $st -eq 124 ] || [ $st -eq 137 ]; then
		fail "hang (watchdog ${WATCHDOG}s): $*"
	fi
	return $st
}

# compare TAG PRELOAD CMD...: runs CMD bare into $tmp/TAG.bare.{out,err,st}
# and with LD_PRELOAD=PRELOAD (and whatever APIPROF_* the caller exported)
# into $tmp/TAG.shim.*; fails unless stdout and exit status are identical.
# The "bare" run has LD_PRELOAD=$bare_preload when that is set.  It is
# given to CMD alone: a preload exported to env or timeout too would be
# loaded into them as well, and libfaketime, which makes a shared-memory
# segment in every process, leaves it in /dev/shm when the process execs.
compare() {
	tag=$1 pl=$2
	shift 2
	env -u APIPROF_OUTPUT ${bare_preload:+LD_PRELOAD="$bare_preload"} "$@" \
		>"$tmp/$tag.bare.out" 2>"$tmp/$tag.bare.err" </dev/null
	echo $? >"$tmp/$tag.bare.st"
	wd env LD_PRELOAD="$pl" "$@" >"$tmp/$tag.shim.out" 2>"$tmp/$tag.shim.err" </dev/null
	echo $? >"$tmp/$tag.shim.st"
	if ! cmp -s "$tmp/$tag.bare.st" "$tmp/$tag.shim.st" ||
		! cmp -s "$tmp/$tag.bare.out" "$tmp/$tag.shim.out"; then
		echo "--- bare (status $(cat "$tmp/$tag.bare.st")):"
		cat "$tmp/$tag.bare.out" "$tmp/$tag.bare.err"
		echo "--- under the shim (status $(cat "$tmp/$tag.shim.st")):"
		cat "$tmp/$tag.shim.out" "$tmp/$tag.shim.err"
		fail "$tag: output or exit status differs under the shim"
	fi
}

# calls OUT.json API.FUNC: the calls of one function, summed over threads
# (the folded "(exited)" row included).
calls() {
	"$OUTDUMP" "$1" | awk -v f="$2" '$2 == f { n += $3 } END { print n + 0 }'
}

# sanitized SHIM: true in a sanitizer build (the shim links a sanitizer).
sanitized() {
	ldd "$1" | grep -Eq 'lib(a|ub|t)san\.so'
}

# skip_under_tsan SHIM WHY: in a TSan build, skip this test.
skip_under_tsan() {
	if ldd "$1" | grep -q 'libtsan\.so'; then
		skip "$2"
	fi
}
