#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Callers that take turns (issue 35.1): a row's parked run.

usage: test_sites_alt.py CASE SHIM_SITEA SHIM_SITEB ALTPROG TREE_INVARIANTS

altprog N makes b_leaf's calls from site_a and site_b by turns, then from
one site in a_work called from work_x and work_y by turns (one site, two
paths of the call tree), then from site_a, site_b and site_c by turns.
Every call is timed (full timing), and each switch of caller either
swaps in the row's parked run (apiprof_unpark) or comes out of line.  In
the exit JSON (CASE "exit"; "thread": from a thread folded into
"(exited)") b_leaf's callers are exactly site_a 2N, site_b 2N, site_c N
and a_work 10N, each exact, their times adding up to the row's; its
paths are exactly those: roots at site_a 2N, site_b 2N, site_c N, and 5N
under each of the two a_work roots (work_x, work_y: N calls each); and
tree_invariants.py holds.  A swap that credited a call to the other
run's entry or node would move calls between them.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import preload  # noqa: E402  (sanitizer runtimes first)

N = 3000


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(shims, argv, tmp):
    out = os.path.join(tmp, "out.json")
    env = dict(os.environ, LD_PRELOAD=preload(*shims), APIPROF_OUTPUT=out, APIPROF_SHM="0",
               APIPROF_INTERVAL_MS="0")
    for k in ("APIPROF_SAMPLE", "APIPROF_CLOCK"):
        env.pop(k, None)
    p = subprocess.run(argv, env=env, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail("%s exited %d:\n%s" % (argv, p.returncode, p.stderr))
    with open(out) as f:
        return json.load(f), out


def rows(doc, api, name):
    found = [(t, f) for t in doc["threads"] for f in t["functions"]
             if f["api"] == api and f["name"] == name]
    if len(found) != 1:
        fail("%s.%s: %d rows" % (api, name, len(found)))
    return found[0]


def check_callers(b):
    got = {}
    for c in b["callers"]:
        got[c["symbol"]] = got.get(c["symbol"], 0) + c["calls"]
        if c["estimated"] or not c["exact"] or c.get("calls_error", 0) != 0:
            fail("b_leaf's caller %r is not exact" % c)
    want = {"site_a": 2 * N, "site_b": 2 * N, "site_c": N, "a_work": 10 * N}
    if b["calls"] != 15 * N or got != want:
        fail("b_leaf's callers %r, want %r (%d calls in all)" % (got, want, b["calls"]))
    ns = sum(c["total_ns"] for c in b["callers"])
    if abs(ns - b["total_ns"]) > len(b["callers"]):
        fail("b_leaf's callers' times add to %d ns, the row's is %d" % (ns, b["total_ns"]))


def check_paths(th):
    nodes = {n["id"]: n for n in th["tree"]}
    got = {}
    for n in nodes.values():
        if n["function"] == "siteb.b_leaf" and n["parent"] is None:
            key = ("root", n["site"]["symbol"])
        elif n["function"] == "siteb.b_leaf":
            p = nodes[n["parent"]]
            key = (p["function"], p["site"]["symbol"] if p["parent"] is None else "?")
        elif n["function"] == "sitea.a_work" and n["parent"] is None:
            key = ("a_work root", n["site"]["symbol"])
        else:
            continue
        got[key] = got.get(key, 0) + n["calls"]
    want = {("root", "site_a"): 2 * N, ("root", "site_b"): 2 * N, ("root", "site_c"): N,
            ("sitea.a_work", "work_x"): 5 * N, ("sitea.a_work", "work_y"): 5 * N,
            ("a_work root", "work_x"): N, ("a_work root", "work_y"): N}
    if got != want:
        fail("the call tree's paths %r, want %r" % (sorted(got.items()), sorted(want.items())))


def main():
    case, shim_a, shim_b, prog, inv = sys.argv[1:6]
    with tempfile.TemporaryDirectory(prefix="apiprof-alt-") as tmp:
        argv = [prog, str(N)] + (["thread"] if case == "thread" else [])
        doc, out = run([shim_a, shim_b], argv, tmp)
        th, b = rows(doc, "siteb", "b_leaf")
        if case == "thread" and th["state"] != "exited":
            fail("b_leaf's row is in a thread %r, want the exited threads' folded row" % th["state"])
        check_callers(b)
        check_paths(th)
        p = subprocess.run([sys.executable, inv, out], stdout=subprocess.PIPE, text=True)
        if p.returncode != 0:
            fail("tree invariants:\n" + p.stdout)
    print("ok (%s): b_leaf's callers by turns: site_a %d, site_b %d, site_c %d, a_work %d, "
          "each exact, on their paths" % (case, 2 * N, 2 * N, N, 10 * N))


main()
