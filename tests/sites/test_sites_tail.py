#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Callers are the program's, not apiprof's (issue 35.3).

usage: test_sites_tail.py CASE APIPROF_TOP SHIM_SITEA SHIM_SITEB TAILPROG

tailprog's tail_one and tail_two call sitea.a_tail 500 times each, by
turns, which tail-calls siteb.b_leaf: b_leaf returns into a_tail's
wrapper in the shim, so its return address is apiprof's, the same for
both.  Its callers must be the sites of the calls they were made in,
tail_one and tail_two 500 each (the same sites, at the same offsets, as
a_tail's callers), inside sitea.a_tail; main's own 7 calls are main's.
No caller lies in a module of apiprof's.

- exit: in the exit JSON;
- top: in apiprof-top --json of the live process (in a mount namespace of
  its own with a tmpfs on /dev/shm; exit 77 = skipped, no private mount
  namespace).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from siteslib import (exit_json, fail, first_refresh, private_shm, rows_of,  # noqa: E402
                      start_live)

N, M = 1000, 7
INNER = "APIPROF_TEST_TAIL_INNER"


def row(rows, name):
    f = [r for r in rows if r["name"] == name]
    if len(f) != 1:
        fail("no one row of %s: %r" % (name, rows))
    return f[0]


def check(rows, where):
    b, a = row(rows, "b_leaf"), row(rows, "a_tail")
    got = {c["symbol"]: c["calls"] for c in b["callers"]}
    ours = [c for c in b["callers"] + a["callers"]
            if (c["module"] or "").startswith("libapiprof")]
    tail = sorted((c["symbol"], c["offset"]) for c in b["callers"] if c["symbol"] != "main")
    if got != {"tail_one": N // 2, "tail_two": N // 2, "main": M} or ours or \
            b["calls"] != N + M or \
            any(c.get("parent") != "sitea.a_tail" for c in b["callers"] if c["symbol"] != "main"):
        fail("%s: want b_leaf's callers tail_one and tail_two %d each (in sitea.a_tail) and "
             "main %d: %r" % (where, N // 2, M, b["callers"]))
    if sorted((c["symbol"], c["offset"]) for c in a["callers"]) != tail:
        fail("%s: a_tail's callers are not b_leaf's: %r against %r" % (where, a["callers"], tail))
    print("ok: %s: b_leaf's callers through a_tail's tail call are %s, as a_tail's" %
          (where, ", ".join("%s+%#x" % t for t in tail)))


def case_exit(shims, prog):
    doc, _ = exit_json([prog, str(N), str(M)], shims)
    check(rows_of(doc), "exit JSON")


def complete(proc):
    """Its rows once b_leaf has all its calls, else None."""
    rows = rows_of(proc)
    return rows if any(r["name"] == "b_leaf" and r["calls"] == N + M for r in rows) else None


def case_top(top, shims, prog):
    private_shm(__file__, INNER)
    p = start_live([prog, str(N), str(M), "wait"], shims)
    try:
        if p.stdout.readline() != "ready\n":
            fail("tailprog did not get ready")
        check(first_refresh(top, p.pid, complete, "b_leaf's %d calls" % (N + M)),
              "apiprof-top --json")
    finally:
        p.stdin.close()
        p.wait()


def main():
    case, top, shim_a, shim_b, prog = sys.argv[1:6]
    if case == "exit":
        case_exit([shim_a, shim_b], prog)
    elif case == "top":
        case_top(top, [shim_a, shim_b], prog)
    else:
        fail("no case %r" % case)


main()
