#!/bin/sh
# man_check.sh PAGE PROGRAM
#
# A man page renders without a single groff warning, and names every
# option that PROGRAM --help lists, so the page cannot silently fall
# behind the program.
set -u
page=$1 prog=$2
. "$(dirname "$0")/../lib.sh"
need groff groff-base
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -ww: every warning; -z: no output, only the diagnostics.
groff -man -ww -z "$page" 2>"$tmp/warn"
if [ $? -ne 0 ] || [ -s "$tmp/warn" ]; then
	echo "FAIL: $page does not render cleanly:"
	cat "$tmp/warn"
	exit 1
fi
need man man-db
man --warnings -l -E UTF-8 "$page" 2>"$tmp/warn" >/dev/null
[ -s "$tmp/warn" ] && { echo "FAIL: man --warnings on $page:"; cat "$tmp/warn"; exit 1; }

"$prog" --help >"$tmp/help" 2>&1 || { echo "FAIL: $prog --help failed"; exit 1; }
# Options as --help spells them: after a blank, a comma or a '['.
opts=$(grep -oE -- '(^|[ ,[])--?[A-Za-z][-A-Za-z0-9]*' "$tmp/help" | sed 's/^[ ,[]//' | sort -u)
[ -n "$opts" ] || { echo "FAIL: no option found in $prog --help"; exit 1; }
# The page's text with roff's \- and font changes undone.
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page" >"$tmp/text"
missing=
for o in $opts; do
	grep -qE -- "(^|[^-A-Za-z0-9])$o([^-A-Za-z0-9]|\$)" "$tmp/text" || missing="$missing $o"
done
[ -z "$missing" ] || { echo "FAIL: $page does not name:$missing"; exit 1; }
echo "ok: $page renders cleanly and names all $(echo "$opts" | wc -l) options of --help"
