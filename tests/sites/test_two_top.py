#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top on a function with two different children (issue 34,
point 21).

    test_two_top.py APIPROF_TOP SHIM_SITEA SHIM_SITEB TWOPROG

twoprog makes 100 calls of sitea.a_two, each calling siteb.b_leaf 2 times
and siteb.b_twig 3 times (nothing else calls them), then waits.  --json:
a_two's children are b_leaf 200 and b_twig 300, each with the time of its
own row (it is called nowhere else), a_two's self time its total less
theirs; --folded: main;sitea.a_two;siteb.b_leaf 200 and ...b_twig 300.
Runs in a mount namespace of its own with a tmpfs on /dev/shm.
Exit 77 = skipped (no private mount namespace).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from siteslib import fail, first_refresh, private_shm, start_live  # noqa: E402

N, LEAF, TWIG = 100, 2, 3  # as twoprog and sitelib.h
INNER = "APIPROF_TEST_TWO_INNER"
WANT = {"b_leaf": LEAF * N, "b_twig": TWIG * N}


def complete(proc):
    """{name: row} once every call is in, else None."""
    rows = {f["name"]: f for t in proc["threads"] for f in t["functions"]}
    a = rows.get("a_two")
    if a is None or a["calls"] != N or any(rows.get(k, {}).get("calls") != n
                                           for k, n in WANT.items()):
        return None
    return rows


def check_json(rows):
    a = rows["a_two"]
    kids = {k["name"]: k for k in a["children"]}
    if len(a["children"]) != 2 or {k: v["calls"] for k, v in kids.items()} != WANT or \
            any(v["api"] != "siteb" or v["estimated"] for v in kids.values()):
        fail("--json: a_two's children, want b_leaf %d and b_twig %d: %r" %
             (LEAF * N, TWIG * N, a["children"]))
    for name in WANT:
        if kids[name]["total_ns"] != rows[name]["total_ns"]:
            fail("--json: a_two's child %s has total_ns %r, its row %r" %
                 (name, kids[name]["total_ns"], rows[name]["total_ns"]))
    inside = sum(v["total_ns"] for v in kids.values())
    if abs(a["total_ns"] - inside - a["self_ns"]) > 2:
        fail("--json: a_two's self_ns %r, want its total %r less its children's %r" %
             (a["self_ns"], a["total_ns"], inside))


def check_folded(top, pid):
    out = subprocess.run([top, "--folded", "-p", str(pid)], capture_output=True, text=True)
    ends = {}
    for line in out.stdout.splitlines():
        m = re.fullmatch(r"(\S.*) (\d+)", line)
        if not m:
            fail("not a folded line: %r" % line)
        tail = ";".join(m.group(1).split(";")[-2:])
        ends[tail] = ends.get(tail, 0) + int(m.group(2))
    for name, n in WANT.items():
        if ends.get("sitea.a_two;siteb." + name) != n:
            fail("--folded: want ...;sitea.a_two;siteb.%s %d:\n%s" % (name, n, out.stdout))


def main():
    private_shm(__file__, INNER)
    top, shim_a, shim_b, prog = sys.argv[1:5]
    p = start_live([prog, str(N), "wait"], [shim_a, shim_b])
    try:
        if p.stdout.readline() != "ready\n":
            fail("twoprog did not get ready")
        check_json(first_refresh(top, p.pid, complete, "a_two's %d calls" % N))
        check_folded(top, p.pid)
    finally:
        p.stdin.close()
        p.wait()
    if p.returncode != 0:
        fail("twoprog exited with %d" % p.returncode)
    print("ok: apiprof-top --json and --folded: a_two's children b_leaf %d and b_twig %d, "
          "each its own" % (LEAF * N, TWIG * N))


main()
