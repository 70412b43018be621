#!/bin/sh
# bind_expat.sh RUNTIME DYNLIB AUDIT OUTDUMP SPEC SHIM
#
# /usr/bin/python3's pyexpat (linked against libexpat.so.1) parses a
# document.  It calls most of expat through its PLT, but the
# XML_Set*Handler functions through a table of function pointers filled
# at load time (R_X86_64_64 relocations).  Dynamic mode must count every
# expat function exactly as the generated shim does.
set -eu
. "$(dirname "$0")/../lib.sh"
runtime=$1 dynlib=$2 audit=$3 outdump=$4 spec=$5 shim=$6
skip_if_sanitized "$dynlib"
py=/usr/bin/python3
[ -x $py ] || need $py python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
script='
import xml.parsers.expat as E
seen = []
for i in range(3):
    p = E.ParserCreate()
    p.StartElementHandler = lambda n, a: seen.append(n)
    p.EndElementHandler = lambda n: seen.append("/" + n)
    p.CharacterDataHandler = lambda d: seen.append(d)
    p.CommentHandler = lambda d: seen.append("#")
    p.ProcessingInstructionHandler = lambda t, d: seen.append("?" + t)
    p.Parse("<?pi x?><a><b>text</b><!-- c --><c k=\"v\"/></a>", True)
print(len(seen), " ".join(seen[:12]))
'

rows() {
	"$outdump" "$1" | awk '$2 ~ /^expat\./ { n[$2] += $3 } END { for (f in n) print f, n[f] }' | sort
}

$py -c "$script" >"$tmp/bare.txt"
APIPROF_OUTPUT="$tmp/gen.json" LD_PRELOAD="$(shim_preload "$shim")" $py -c "$script" >"$tmp/gen.txt"
LD_AUDIT="$audit" APIPROF_SPEC="$spec" LD_PRELOAD="$runtime:$dynlib" \
	APIPROF_OUTPUT="$tmp/dyn.json" $py -c "$script" >"$tmp/dyn.txt"
cmp "$tmp/bare.txt" "$tmp/gen.txt"
cmp "$tmp/bare.txt" "$tmp/dyn.txt"
rows "$tmp/gen.json" >"$tmp/gen.rows"
rows "$tmp/dyn.json" >"$tmp/dyn.rows"
ngen=$(grep -c . "$tmp/gen.rows" || true) ndyn=$(grep -c . "$tmp/dyn.rows" || true)
if ! cmp -s "$tmp/gen.rows" "$tmp/dyn.rows"; then
	echo "FAIL: expat in python3: dynamic mode sees $ndyn functions, the generated shim $ngen (generated vs dynamic):"
	diff "$tmp/gen.rows" "$tmp/dyn.rows" || true
	exit 1
fi
# pyexpat sets every handler once per parser it creates, and once more per
# handler the script assigns: 3 parsers, 6 calls.
grep -q '^expat.XML_SetStartElementHandler 6$' "$tmp/gen.rows" || {
	echo "FAIL: the generated shim did not count XML_SetStartElementHandler 6 times:"
	cat "$tmp/gen.rows"
	exit 1
}
echo "ok: python3 pyexpat: the same $ngen expat functions and counts, generated and dynamic"
