#!/bin/sh
# import_libxml2.sh APIPROF_GEN APIPROF_RUN OUTDUMP generated|dynamic
#
# An import that needs -I (libxml2's headers live in /usr/include/libxml2):
# the spec records the directory, and apiprof-run builds it and profiles
# Debian's xmllint with exact counts and unchanged output (generated).
# In dynamic mode, the spec's "types" (every typedef and enum by value)
# must let dynamic mode profile the same calls, with counts equal to the
# generated mode's, and refuse at most 5% of the spec's functions.
set -eu
. "$(dirname "$0")/../lib.sh"
gen=$1 run=$2 outdump=$3 mode=$4
case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
case $run in /*) ;; *) run=$PWD/$run ;; esac
case $outdump in /*) ;; *) outdump=$PWD/$outdump ;; esac
need xmllint libxml2-utils
skip_if_sanitized "$run"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export APIPROF_CACHE="$tmp/cache"

"$gen" import /usr/include/libxml2/libxml/parser.h -I /usr/include/libxml2 \
	--library libxml2.so.2 --prefix xml --api libxml2 -o xml.json 2>import.err ||
	{ cat import.err; exit 1; }
grep -qx '  "include_dirs": \["/usr/include/libxml2"\],' xml.json ||
	{ echo "FAIL: -I not recorded"; head -10 xml.json; exit 1; }
# An -I or -D the spec could not hold is refused at once (exit 2).
mkdir "a b"
st=0
"$gen" import /usr/include/libxml2/libxml/parser.h -I "a b" --library libxml2.so.2 \
	-o bad.json 2>bad.err || st=$?
[ $st -eq 2 ] && grep -q "^apiprof-gen: import: -I '$tmp/a b' cannot be recorded in a spec: it contains a character that is not allowed$" bad.err ||
	{ echo "FAIL: -I with a space: exit $st"; cat bad.err; exit 1; }
st=0
"$gen" import /usr/include/libxml2/libxml/parser.h -D 'X=1;' --library libxml2.so.2 \
	-o bad.json 2>bad.err || st=$?
[ $st -eq 2 ] && grep -q "^apiprof-gen: import: -D 'X=1;' cannot be recorded in a spec: it contains a character that is not allowed$" bad.err ||
	{ echo "FAIL: -D with ';': exit $st"; cat bad.err; exit 1; }
[ ! -e bad.json ] || { echo "FAIL: a spec was written"; exit 1; }

printf '<a><b x="1">t</b><c/></a>\n' >t.xml
printf '<r><b x="2"/><b x="3"/></r>\n' >u.xml
xmllint() {
	"$run" -q $1 -s ./xml.json -o "$2" -- /usr/bin/xmllint --format --xpath '//b/@x' \
		t.xml u.xml t.xml >"$2.txt" 2>"$2.err"
}
/usr/bin/xmllint --format --xpath '//b/@x' t.xml u.xml t.xml >bare.txt 2>&1
xmllint "" gen.json || { cat gen.json.err; exit 1; }
cmp bare.txt gen.json.txt
"$outdump" gen.json | awk '$2 ~ /^libxml2\./ { print $2, $3 }' | sort >gen.txt
for want in "libxml2.xmlReadFile 3" "libxml2.xmlFreeDoc 3" "libxml2.xmlCheckVersion 1" \
	"libxml2.xmlCleanupParser 1" "libxml2.xmlOutputBufferCreateFile 3"; do
	grep -qx "$want" gen.txt || { echo "FAIL: want $want"; cat gen.txt; exit 1; }
done
[ "$mode" = generated ] && { echo "ok: generated"; cat gen.txt; exit 0; }

xmllint --dynamic dyn.json || { cat dyn.json.err; exit 1; }
cmp bare.txt dyn.json.txt
"$outdump" dyn.json | awk '$2 ~ /^libxml2\./ { print $2, $3 }' | sort >dyn.txt
cmp gen.txt dyn.txt || { diff -u gen.txt dyn.txt; exit 1; }
# Refused: skipped as "unsupported" by the loader, or not profiled by
# dynamic mode; each says why, on its own line.
total=$(grep -c '^    {"name": ' xml.json)
refused=$(grep -c -e ' skipped: ' -e '; not profiled$' dyn.json.err || true)
echo "ok: dynamic, $refused of $total functions refused"
cat dyn.json.err
[ $((refused * 100)) -le $((total * 5)) ] || { echo "FAIL: more than 5% refused"; exit 1; }
[ "$total" -ge 600 ] || { echo "FAIL: only $total functions imported"; exit 1; }
