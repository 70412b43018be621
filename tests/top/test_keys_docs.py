#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The docs list the live view's keys that its table has, no more, no
fewer (issue 36.4): the key column of README.md's and top/README.md's key
tables, and the keys of the man page's KEYS section, against top_keys[]
(top/ui/top_ui_keys.c) as keys_dump prints it.

    test_keys_docs.py KEYS_DUMP README.md top/README.md apiprof-top.1

Markdown: a key is `quoted`, or a bare word of the key cell (Enter,
Space, Up/Down) but "or"; "/" and "," between keys are separators.  Man:
the bold words of the line after each .TP (.B, .BR, .RB alternate bold
and roman).
"""
import re
import shlex
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def md_keys(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    head = [i for i, l in enumerate(lines) if re.match(r"\|\s*key\s*\|\s*action\s*\|", l)]
    if len(head) != 1:
        fail(f"{path}: {len(head)} '| key | action |' tables, not 1")
    keys = []
    for row in lines[head[0] + 2:]:
        if not row.startswith("|"):
            break
        cell = row.split("|")[1]
        keys += re.findall(r"`([^`]+)`", cell)
        bare = re.sub(r"`[^`]+`", " ", cell)
        keys += [w for w in re.split(r"[\s/,]+", bare) if w and w != "or"]
    return keys


def bold_words(line):
    macro, _, rest = line.partition(" ")
    args = shlex.split(rest)
    if macro == ".B":
        return " ".join(args).split()
    first = {".BR": 0, ".RB": 1}.get(macro)
    if first is None:
        fail(f"man KEYS: a key line that is not .B, .BR or .RB: {line!r}")
    return [w for a in args[first::2] for w in a.split()]


def man_keys(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^\.SH KEYS\n(.*?)^\.SH ", text, re.S | re.M)
    if not m:
        fail(f"{path}: no .SH KEYS section")
    lines = m.group(1).splitlines()
    return [w for i, l in enumerate(lines[:-1]) if l == ".TP" for w in bold_words(lines[i + 1])]


def main():
    dump, docs = sys.argv[1], sys.argv[2:]
    table = subprocess.run([dump], capture_output=True, text=True, check=True).stdout.split()
    if len(table) != len(set(table)) or not table:
        fail(f"the table names a key twice, or none: {table}")
    for path in docs:
        keys = man_keys(path) if path.endswith(".1") else md_keys(path)
        missing = [k for k in table if k not in keys]
        extra = [k for k in keys if k not in table]
        if missing or extra or len(keys) != len(set(keys)):
            fail(f"{path}: keys not in the docs {missing}, not in the table {extra}, "
                 f"listed {keys}")
        print(f"ok {path}: {len(keys)} keys")


main()
