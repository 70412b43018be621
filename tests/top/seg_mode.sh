#!/bin/sh
# seg_mode.sh TOP SEGTOOL - the modes a segment's header shows (issue 37):
# the process's and api testlib's (segtool's function, api id 1), in the
# batch text's process line and in --json ("mode" per process, and per
# api where set).  A word that is not a mode (a hostile writer's) shows
# "?", never a guess, and the viewer goes on (status 0).
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../robust/rlib.sh"
top=$1 segtool=$2
WATCHDOG=60

# seg_mode.sh's check: CASE "PROC API" TEXT JSON_PROC JSON_API ("-": no "mode")
check() {
	mkdir "$tmp/$1"
	SEGTOOL_MODES=$2 "$segtool" make "$tmp/$1" $$ modeprog >/dev/null || fail "segtool"
	wd "$top" -b -n 1 --shm-dir "$tmp/$1" >"$tmp/$1.txt" 2>"$tmp/$1.err" ||
		fail "$1: status $?: $(cat "$tmp/$1.txt" "$tmp/$1.err")"
	grep -q "^PID $$ .*  mode $3  clock " "$tmp/$1.txt" ||
		fail "$1: the process line does not say \"mode $3\": $(grep PID "$tmp/$1.txt")"
	wd "$top" -b --json -n 1 --shm-dir "$tmp/$1" >"$tmp/$1.json" 2>>"$tmp/$1.err" ||
		fail "$1: --json status $?"
	got=$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["processes"][0]
print(p["mode"], [a.get("mode", "-") for a in p["apis"] if a["name"] == "testlib"][0])' \
		"$tmp/$1.json") || fail "$1: --json: $(cat "$tmp/$1.json")"
	[ "$got" = "$4 $5" ] || fail "$1: --json modes \"$got\", want \"$4 $5\""
	echo "ok: $1: mode $3; --json $got"
}

# count = 2, off = 1, sampled:64 = 64 << 8 | 3, full = 4 (apiprof_mode_pack)
check count "2 1" "count, testlib off" count off
check same "16387 16387" "sampled:64" sampled:64 sampled:64
check apifull "1 4" "off, testlib full" off full
# Not modes: level 255, bits above 40, sampled:1, sampled:0, level 0.
check hostile "0xff 0x4000000000000" "?, testlib ?" "?" "?"
check hostile2 "259 3" "?, testlib ?" "?" "?"
check zero "0 0" "?" "?" -
