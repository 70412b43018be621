# launch.sh - sourced by the apiprof-run tests after ../robust/rlib.sh,
# with $run (apiprof-run), $prog (the threaded test program) and $tmp set.
#
# launch TAG [VAR=VALUE...]: the program under the launcher with that
# environment; stdout, stderr and JSON in $tmp/TAG.*, status in $st.
launch() {
	tag=$1
	shift
	timeout -k 5 "$WATCHDOG" env "$@" "$run" -s "$tmp/testlib.json" -o "$tmp/$tag.json" \
		-- "$prog" 2 1000 >"$tmp/$tag.out" 2>"$tmp/$tag.err" </dev/null
	st=$?
}
