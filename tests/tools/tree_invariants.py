#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the call tree's invariants (issue 35.2) in apiprof's outputs.

usage: tree_invariants.py [--format json|summary|folded] FILE...

FILE is an exit JSON (APIPROF_OUTPUT), a line of apiprof-top --json, an
APIPROF_SUMMARY text (the program's stderr), or a folded-stacks text
(apiprof-top --folded); the
format is guessed from the content unless --format says it ("-" reads
stdin).  In every tree it checks that

- a child's time never exceeds its parent's;
- self = total minus the children's (and the other paths'), never negative;
- the children's calls under a function, by function, are the sums of
  its nodes' children, and its self time (when known) its total less
  their time and its nodes' other paths' (the JSON's two views agree:
  the exit JSON's and apiprof-top --json's), and no child has more
  calls than its function made in all;
- every node's parent is a node printed before it (no cycle).

Times in the JSON are whole nanoseconds, each rounded from ticks: a sum of
n of them may be off by n.  The summary's times have three digits: they
are compared within 1%.  Prints one line per violation and exits 1; 0
when all hold; 2 when a file cannot be read as any of the formats.
"""
import json
import re
import sys

errors = []


def bad(where, msg):
    errors.append("%s: %s" % (where, msg))


def check_json_tree(where, tree, sampled):
    nodes = {}
    for n in tree:
        nid = n["id"]
        p = n["parent"]
        if nid in nodes:
            bad(where, "node %s twice" % nid)
        if p is not None and p not in nodes:
            bad(where, "node %s: parent %s not before it (a cycle or a parent that is not there)"
                % (nid, p))
        nodes[nid] = n
    kids = {nid: [] for nid in nodes}
    for n in tree:
        if n["parent"] is not None and n["parent"] in kids:
            kids[n["parent"]].append(n)
    for nid, n in nodes.items():
        if nid == 0:
            continue
        p = n["parent"]
        if p is not None and p in nodes and n["total_ns"] > nodes[p]["total_ns"]:
            bad(where, "node %s (%s): total %d ns > its parent %s's %d ns"
                % (nid, n["function"], n["total_ns"], p, nodes[p]["total_ns"]))
        other = n.get("other_paths") or {}
        inside = sum(k["total_ns"] for k in kids[nid]) + other.get("total_ns", 0)
        slack = len(kids[nid]) + 2
        if n["self_ns"] < 0:
            bad(where, "node %s: self %d ns < 0" % (nid, n["self_ns"]))
        want = max(0, n["total_ns"] - inside)
        if abs(n["self_ns"] - want) > slack:
            bad(where, "node %s (%s): self %d ns, total %d - children %d = %d"
                % (nid, n["function"], n["self_ns"], n["total_ns"], inside, want))
        if not sampled and inside > n["total_ns"] + slack:
            bad(where, "node %s (%s): children's time %d ns > its total %d ns"
                % (nid, n["function"], inside, n["total_ns"]))
        if n.get("estimated") and not sampled:
            bad(where, "node %s: estimated in full timing" % nid)
    return nodes, kids


def check_json_funcs(where, th, nodes, kids):
    funcs = {"%s.%s" % (f["api"], f["name"]): f for f in th["functions"]}
    for name, f in funcs.items():
        if f.get("self_ns") is not None and f["self_ns"] > f["total_ns"]:
            bad(where, "%s: self %d > total %d" % (name, f["self_ns"], f["total_ns"]))
        want, inside, slack = {}, 0, 2
        for nid, n in nodes.items():
            if nid == 0 or n["function"] != name:
                continue
            inside += (n.get("other_paths") or {}).get("total_ns", 0)
            slack += len(kids[nid]) + 1
            for k in kids[nid]:
                want[k["function"]] = want.get(k["function"], 0) + k["calls"]
                inside += k["total_ns"]
        if f.get("self_ns") is not None and abs(f["self_ns"] - max(0, f["total_ns"] - inside)) \
                > slack:
            bad(where, "%s: self %d ns, total %d - its nodes' children and other paths %d"
                % (name, f["self_ns"], f["total_ns"], inside))
        have = {}
        for c in f.get("children", []):
            if c["api"] is None:
                continue
            cname = "%s.%s" % (c["api"], c["name"])
            have[cname] = c["calls"]
            if cname in funcs and c["calls"] > funcs[cname]["calls"]:
                bad(where, "%s: child %s %d calls > its %d in all"
                    % (name, cname, c["calls"], funcs[cname]["calls"]))
            if c["total_ns"] > f["total_ns"] + len(f.get("children", [])) + 1 \
                    and not c.get("estimated"):
                bad(where, "%s: child %s %d ns > its total %d ns"
                    % (name, cname, c["total_ns"], f["total_ns"]))
        if have != want:
            bad(where, "%s: children by function %s, the tree's nodes say %s" % (name, have, want))


def check_json(path, text):
    doc = json.loads(text)
    if "processes" in doc:  # apiprof-top --json: the trees its threads have
        for proc in doc["processes"]:
            for th in proc.get("threads", []):
                if "tree" in th:
                    where = "%s: pid %s thread %s" % (path, proc.get("pid"), th.get("tid"))
                    nodes, kids = check_json_tree(where, th["tree"], proc.get("sample", 0) > 1)
                    check_json_funcs(where, th, nodes, kids)
        return
    sampled = bool(doc.get("sample"))
    for th in doc.get("threads", []):
        where = "%s: thread %s" % (path, th.get("tid"))
        if "tree" not in th:
            bad(where, "no tree")
            continue
        th_sampled = sampled or any(f.get("estimated") for f in th["functions"])
        nodes, kids = check_json_tree(where, th["tree"], th_sampled)
        check_json_funcs(where, th, nodes, kids)


UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
LINE = re.compile(r"^  +(\d+) +(~?[\d.]+(?:ns|us|ms|s)) +(~?[\d.]+(?:ns|us|ms|s)|-)  ( *)(`- )?(.*)$")


def ns(s):
    s = s.lstrip("~")
    m = re.match(r"^([\d.]+)(ns|us|ms|s)$", s)
    return float(m.group(1)) * UNITS[m.group(2)]


def check_summary_rows(where, rows):
    for i, (depth, calls, total, self_, name) in enumerate(rows):
        kids = []
        for j in range(i + 1, len(rows)):
            if rows[j][0] <= depth:
                break
            if rows[j][0] == depth + 1:
                kids.append(rows[j])
        tol = 0.01 * total + 1.5 * (len(kids) + 1)
        for k in kids:
            if k[2] > total * 1.01 + 1:
                bad(where, "%s (%s) under %s (%s)" % (k[4], k[2], name, total))
        if self_ is None:
            continue
        inside = sum(k[2] for k in kids)
        if self_ < 0 or abs(self_ - max(0, total - inside)) > tol + 0.01 * inside:
            bad(where, "%s: self %s, total %s - children %s" % (name, self_, total, inside))


def check_summary(path, text):
    rows, where, n = None, path, 0
    for line in text.splitlines() + [""]:
        if line.startswith("  call tree"):
            rows, n = [], n + 1
            where = "%s: tree %d" % (path, n)
            continue
        m = LINE.match(line) if rows is not None else None
        if rows is not None and line.startswith("         calls"):
            continue
        if m is None:
            if rows is not None:
                check_summary_rows(where, rows)
            rows = None
            continue
        depth = len(m.group(4)) // 2
        self_ = None if m.group(3) == "-" else ns(m.group(3))
        rows.append((depth, int(m.group(1)), ns(m.group(2)), self_, m.group(6)))
    if n == 0:
        raise ValueError("no call tree")


def check_folded(path, text):
    seen = set()
    for i, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        stack, _, value = line.rpartition(" ")
        if not stack or not re.match(r"^\d+$", value):
            raise ValueError("line %d is not a folded stack" % (i + 1))
        if stack in seen:
            bad(path, "stack %s twice" % stack)
        seen.add(stack)


def guess(text):
    t = text.lstrip()
    if t.startswith("{"):
        return "json"
    if "call tree" in text:
        return "summary"
    return "folded"


def main(argv):
    fmt = None
    if len(argv) > 2 and argv[1] == "--format":
        fmt, argv = argv[2], [argv[0]] + argv[3:]
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for path in argv[1:]:
        text = sys.stdin.read() if path == "-" else open(path).read()
        f = fmt or guess(text)
        try:
            {"json": check_json, "summary": check_summary, "folded": check_folded}[f](path, text)
        except (ValueError, KeyError, TypeError) as e:
            print("%s: not %s: %s" % (path, f, e), file=sys.stderr)
            return 2
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
