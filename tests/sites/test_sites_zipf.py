#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call sites that keep the hot callers (issue 35.1) and one offset per
address in every output (issue 35.3).

usage: test_sites_zipf.py CASE APIPROF_TOP SHIM_SITELIB ZIPFPROG

zipfprog runs 200 cold sites of sitelib.sl_work once at start-up, then 64
hot sites with a Zipf-like skew, and prints each hot site's true count.

- exit: the exit JSON in full timing: the 16 hottest sites are the
  callers named, each within 1% of its true count, its count a lower
  bound and count + calls_error an upper one, exact ("exact": true) where
  it equals the truth; the callers add up to the function's calls;
- sampled: the same under APIPROF_SAMPLE=64: the named callers are among
  the 20 hottest (the 10 hottest all there), each within its stated error
  (calls_error plus 4 times calls_stderr) of the truth, and the callers
  add up to the calls, which are exact;
- top: apiprof-top --json of the live process: the same as exit; then
  the process ends, and every hot site named by both has the same offset
  in apiprof-top --json and in the exit JSON.  In a mount namespace of
  its own with a tmpfs on /dev/shm.  Exit 77 = skipped (no private mount
  namespace).
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from siteslib import (exit_json, fail, first_refresh, private_shm, rows_of,  # noqa: E402
                      start_live)

COLD = 200
INNER = "APIPROF_TEST_ZIPF_INNER"


def truth_of(lines):
    """{site: calls} from zipfprog's output."""
    t = {}
    for line in lines:
        if line == "done":
            return t
        name, n = line.split()
        t[name] = int(n)
    fail("zipfprog did not finish its counts: %r" % lines)


def sl_work(rows):
    f = [r for r in rows if r["api"] == "sitelib" and r["name"] == "sl_work"]
    if len(f) != 1:
        fail("no one row of sitelib.sl_work: %r" % rows)
    return f[0]


def check_sum(f, n):
    if f["calls"] != n + COLD or sum(c["calls"] for c in f["callers"]) != f["calls"]:
        fail("sl_work: %r calls, callers adding up to %r; want %d both" %
             (f["calls"], sum(c["calls"] for c in f["callers"]), n + COLD))


def named(f):
    return {c["symbol"]: c for c in f["callers"] if c["symbol"] != "(other callers)"}


def check_full(f, truth, n, where):
    check_sum(f, n)
    hottest = sorted(truth, key=lambda k: -truth[k])[:16]
    got = named(f)
    if sorted(got) != sorted(hottest):
        fail("%s: want the 16 hottest %r named, got %r" % (where, sorted(hottest), f["callers"]))
    exact = 0
    for name, c in got.items():
        t = truth[name]
        if not c["calls"] <= t <= c["calls"] + c["calls_error"] or \
                abs(c["calls"] - t) > t / 100 or (c["exact"] and c["calls"] != t):
            fail("%s: %s has %d calls, the caller says %r" % (where, name, t, c))
        exact += c["exact"]
    print("ok: %s: the 16 hottest of 264 sites named, within 1%% (%d exact)" % (where, exact))


def check_sampled(f, truth, n, where):
    check_sum(f, n)
    order = sorted(truth, key=lambda k: -truth[k])
    got = named(f)
    if not set(got) <= set(order[:20]) or not set(order[:10]) <= set(got) or len(got) != 16:
        fail("%s: want 16 of the 20 hottest named, the 10 hottest among them: %r" %
             (where, f["callers"]))
    worst = 0
    for name, c in got.items():
        t = truth[name]
        bound = c["calls_error"] + 4 * c.get("calls_stderr", 0)
        if not c["estimated"] or c["exact"] or abs(c["calls"] - t) > bound:
            fail("%s: %s has %d calls, the caller says %r" % (where, name, t, c))
        worst = max(worst, abs(c["calls"] - t) / t)
    print("ok: %s: sampled, 16 of the 20 hottest named, each within its stated error "
          "(at most %.1f%% off)" % (where, 100 * worst))


def run_exit(prog, shim, n, **env):
    doc, p = exit_json([prog, str(n)], [shim], **env)
    return sl_work(rows_of(doc)), truth_of(p.stdout.splitlines())


def complete(n):
    """A pick for first_refresh: sl_work's row once it has all its calls."""
    def pick(proc):
        rows = rows_of(proc)
        return sl_work(rows) if any(r["name"] == "sl_work" and r["calls"] == n + COLD
                                    for r in rows) else None
    return pick


def case_top(top, prog, shim):
    private_shm(__file__, INNER)
    n = 300000
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        p = start_live([prog, str(n), "wait"], [shim], APIPROF_OUTPUT=out)
        lines = []
        while not lines or lines[-1] != "ready":
            line = p.stdout.readline()
            if not line:
                fail("zipfprog did not get ready: %r" % lines)
            lines.append(line.strip())
        try:
            f = first_refresh(top, p.pid, complete(n), "sl_work's %d calls" % (n + COLD))
        finally:
            p.stdin.close()
            p.wait()
        check_full(f, truth_of(lines), n, "apiprof-top --json")
        doc = json.load(open(out))
    x = named(sl_work(rows_of(doc)))
    same = [k for k in named(f) if k in x]
    diff = {k: (named(f)[k]["offset"], x[k]["offset"]) for k in same
            if named(f)[k]["offset"] != x[k]["offset"]}
    if not same or diff:
        fail("the offsets of the same sites, apiprof-top --json against the exit JSON: %r" % diff)
    print("ok: %d sites have the same offsets in apiprof-top --json and the exit JSON "
          "(%s at %#x)" % (len(same), same[0], x[same[0]]["offset"]))


def main():
    case, top, shim, prog = sys.argv[1:5]
    if case == "exit":
        f, truth = run_exit(prog, shim, 300000)
        check_full(f, truth, 300000, "exit JSON")
    elif case == "sampled":
        f, truth = run_exit(prog, shim, 3000000, APIPROF_SAMPLE="64")
        check_sampled(f, truth, 3000000, "exit JSON")
    elif case == "top":
        case_top(top, prog, shim)
    else:
        fail("no case %r" % case)


main()
