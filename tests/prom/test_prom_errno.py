#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof_failures_total by errno name and by "fails" rule, from a real
profiled program (issue 34, points 19 and 20).

    test_prom_errno.py APIPROF_TOP SHIM_FAILS FAILSPROG

failsprog (tests/e2e) passes each "fails" rule's boundary values and fails
fl_errno with each errno the runtime names, slot k's k times, then waits:
the exporter's apiprof_failures_total must have each function's failures,
and fl_errno's under each errno's own name, as tests/e2e/fails.sh checks
them in the exit JSON.  Exit 77 = skipped (no private mount namespace).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from fails_check import check, want  # noqa: E402
from promlib import Exporter, fail, parse, poll, preload, private_shm, value  # noqa: E402


def rows(samples):
    """{function: {"calls", "failures"}} of comm failsprog, and fl_errno's
    {errno: count} under "errno_of"."""
    out = {}
    for name, labels, v in samples:
        if labels.get("comm") != "failsprog" or "function" not in labels:
            continue
        r = out.setdefault(labels["function"], {"errno_of": {}})
        if name == "apiprof_calls_total":
            r["calls"] = int(v)
        elif name == "apiprof_failures_total":
            r["failures"] = r.get("failures", 0) + int(v)
            if "errno" in labels:
                r["errno_of"][labels["errno"]] = int(v)
    return out


def main():
    private_shm(__file__)
    top, shim, prog = sys.argv[1:4]
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="20")
    env.pop("APIPROF_SHM", None)
    p = subprocess.Popen([prog, "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    lines = []
    for line in p.stdout:
        if line == "ready\n":
            break
        lines.append(line)
    if lines[-1:] != ["wrong 0\n"]:
        p.kill()
        fail("failsprog did not get ready: %r" % lines[-3:])
    funcs, errnos = want(lines)
    ex = Exporter(top, "-d", "0.05")
    total = sum(w["calls"] for w in funcs.values())
    text = poll("failsprog's %d calls" % total, lambda: (lambda t: t if value(
        parse(t), "apiprof_calls_total", comm="failsprog") == total else None)(ex.scrape()))
    bad = check(funcs, errnos, rows(parse(text)), lambda r: r.get("errno_of", {}))
    p.stdin.close()
    if p.wait() != 0:
        fail("failsprog exited with %d" % p.returncode)
    ex.stop()
    if bad:
        fail("apiprof_failures_total:\n  " + "\n  ".join(bad))
    print("ok: apiprof_failures_total exact per fails rule, and by each errno's own name")


main()
