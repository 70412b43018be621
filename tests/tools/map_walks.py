#!/usr/bin/env python3
"""The map's walks still walk (docs/ARCHITECTURE.md, issue 36).

usage: map_walks.py SRCROOT [MAP]   (exit 1 and one line per case if any)

Every table under a heading "### Walk: ..." has the columns step, file and
function.  Each path in backquotes in a file cell must exist under SRCROOT,
and each name in backquotes in a function cell must be a function (or a
function-like macro) that one of that row's files defines or calls:
`name(` or `#define name`.  So a renamed function or a moved file fails
this test and names the row, and the map cannot drift from the code.
The distinct files of each walk are counted and printed.
"""
import os
import re
import sys

HEADING = re.compile(r"^#{2,4}\s+Walk:\s*(.*)$")
TICKS = re.compile(r"`([^`]+)`")
NAME = re.compile(r"^[A-Za-z_]\w*$")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def walks(text):
    """Yields (walk title, line number, file cell, function cell)."""
    title = None
    cols = None
    for n, line in enumerate(text.splitlines(), 1):
        m = HEADING.match(line)
        if m:
            title, cols = m.group(1), None
            continue
        if line.startswith("#"):
            title = None
            continue
        if title is None or not line.startswith("|"):
            continue
        row = cells(line)
        if cols is None:
            cols = [c.lower() for c in row]
            continue
        if set("".join(row)) <= set("-: "):
            continue
        if "file" not in cols or "function" not in cols:
            yield title, n, None, None
            continue
        yield title, n, row[cols.index("file")], row[cols.index("function")]


def defines(text, name):
    pat = r"(\b%s\s*\()|(#\s*define\s+%s\b)" % (re.escape(name), re.escape(name))
    return re.search(pat, text) is not None


def check(root, path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    bad = []
    files = {}
    rows = 0
    for title, n, fcell, ncell in walks(text):
        where = "%s:%d (%s)" % (os.path.basename(path), n, title)
        if fcell is None:
            bad.append("%s: the table has no file and function columns" % where)
            continue
        rows += 1
        paths = TICKS.findall(fcell)
        names = [t.rstrip("()") for t in TICKS.findall(ncell)]
        if not paths or not names:
            bad.append("%s: a row needs a `file` and a `function`" % where)
            continue
        texts = []
        for p in paths:
            full = os.path.join(root, p)
            if not os.path.isfile(full):
                bad.append("%s: no file %s" % (where, p))
                continue
            files.setdefault(title, set()).add(p)
            with open(full, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
        for name in names:
            if not NAME.match(name):
                bad.append("%s: `%s` is not a function name" % (where, name))
            elif texts and not any(defines(t, name) for t in texts):
                bad.append("%s: %s is in none of %s" % (where, name, ", ".join(paths)))
    if rows == 0:
        bad.append("%s: no walk table found" % path)
    return bad, files


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = sys.argv[1]
    path = sys.argv[2] if len(sys.argv) == 3 else os.path.join(root, "docs", "ARCHITECTURE.md")
    bad, files = check(root, path)
    for title, fs in files.items():
        print("walk %s: %d files" % (title, len(fs)))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
