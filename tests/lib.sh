# lib.sh - helpers sourced by the shell tests.

# shim_preload SHIM... - the LD_PRELOAD value for running uninstrumented
# programs under shims.  In a sanitizer build the shims need the sanitizer
# runtimes loaded first, so they are put in front (ASan, UBSan, TSan).
shim_preload() {
	san=$(for s in "$@"; do ldd "$s"; done | awk '/lib(a|ub|t)san\.so/ { print $3 }' | sort -u | tr '\n' ':')
	printf '%s' "$san"
	(IFS=:; printf '%s' "$*")
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:verify_asan_link_order=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# skip_if_sanitized SHIM - exit 77 (skip) in a sanitizer build.  Tests that
# run foreign programs cannot run there: ASan's own malloc comes first in
# the preload list (so no malloc shim is reached), and it aborts on those
# programs' own questionable calls (dd's aligned_alloc(4096, 1)).
skip_if_sanitized() {
	if ldd "$1" | grep -Eq 'lib(a|ub|t)san\.so'; then
		echo "SKIP: sanitizer build; this test runs uninstrumented programs"
		exit 77
	fi
}

# need TOOL PACKAGE - fail (never skip) when a tool that ./quickstart installs
# is missing: a test skips only for what the machine cannot offer.
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "FAIL: $1 is missing (Debian package $2, which ./quickstart installs)"
	exit 1
}
