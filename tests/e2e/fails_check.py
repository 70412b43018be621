#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fails_check.py FAILSPROG_OUTPUT EXIT_JSON - the rows of api "fails" in
an exit JSON against what failsprog says it did (fails.sh): each
function's calls and failures, and fl_errno's failures by errno name.
Also a module: want() is what the exporter's test checks its series by."""
import json
import sys


def want(lines):
    """{function: {"calls", "failures", "cases": [(weight, fails, value)]}},
    {errno name: count}, from failsprog's output lines."""
    funcs, errnos = {}, {}
    for line in lines:
        f = line.split()
        if f[0] == "case":
            w = funcs.setdefault(f[1], {"calls": 0, "failures": 0, "cases": []})
            w["calls"] += int(f[2])
            w["failures"] += int(f[2]) if f[3] == "fail" else 0
            w["cases"].append((int(f[2]), f[3] == "fail", f[4]))
        elif f[0] == "errno":
            errnos[f[1]] = int(f[2])
    funcs["fl_errno"] = {"calls": sum(errnos.values()), "failures": sum(errnos.values()),
                         "cases": []}
    return funcs, errnos


def misjudged(w, got):
    """The values whose verdict a failure count got says differs."""
    diff = got ^ w["failures"]
    return ["%s judged %s" % (v, "ok" if fails else "failed")
            for weight, fails, v in w["cases"] if diff & weight]


def check(funcs, errnos, rows, errno_of):
    """Lines for what rows ({function: row}) get wrong; errno_of(row) is
    fl_errno's {name: count}."""
    bad = []
    for name, w in funcs.items():
        r = rows.get(name)
        if r is None:
            bad.append("%s: no row" % name)
            continue
        if r.get("calls") != w["calls"]:
            bad.append("%s: calls %r, want %d" % (name, r.get("calls"), w["calls"]))
        if r.get("failures") != w["failures"]:
            bad.append("%s: failures %r, want %d: %s" % (
                name, r.get("failures"), w["failures"],
                ", ".join(misjudged(w, r.get("failures") or 0))))
    got = errno_of(rows.get("fl_errno", {}))
    for e in sorted(set(got) | set(errnos)):
        if got.get(e) != errnos.get(e):
            bad.append("fl_errno: errno %s %r, want %r" % (e, got.get(e), errnos.get(e)))
    return bad


def main():
    with open(sys.argv[1]) as f:
        funcs, errnos = want(f.read().splitlines())
    with open(sys.argv[2]) as f:
        doc = json.load(f)
    rows = {f["name"]: f for t in doc["threads"] for f in t["functions"] if f["api"] == "fails"}
    bad = check(funcs, errnos, rows, lambda r: r.get("errno", {}))
    if bad:
        print("FAIL:\n  " + "\n  ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
