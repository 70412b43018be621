#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A jump out of a call of the row's parked run (issue 35.1).

usage: test_sites_jmpalt.py LIBAPIPROF SHIM_TESTLIB JMPALTPROG

jmpaltprog N calls tl_apply from site_ret and from site_jump, whose
callback jumps back out of it (the call is abandoned: counted, with no
time), by turns, with the runtime preloaded ahead of libc (its longjmp
hooks see the jumps).  site_jump's run is the parked one from the second
round on (the first switch to a new site parks nothing),
and each of its calls is timed where it is (APIPROF_CALL_PARKED) and
abandoned: a jump that counted it in the run in progress (site_ret's)
would move its calls there.  tl_apply's callers must be exactly
site_jump N and site_ret N, each exact.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import preload  # noqa: E402  (sanitizer runtimes first)

N = 2000


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    rt, shim, prog = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="apiprof-jmpalt-") as tmp:
        out = os.path.join(tmp, "out.json")
        env = dict(os.environ, LD_PRELOAD=preload(rt, shim), APIPROF_OUTPUT=out, APIPROF_SHM="0",
                   APIPROF_INTERVAL_MS="0")
        for k in ("APIPROF_SAMPLE", "APIPROF_CLOCK"):
            env.pop(k, None)
        p = subprocess.run([prog, str(N)], env=env, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            fail("%s exited %d:\n%s" % (prog, p.returncode, p.stderr))
        with open(out) as f:
            doc = json.load(f)
    found = [f for t in doc["threads"] for f in t["functions"]
             if f["api"] == "testlib" and f["name"] == "tl_apply"]
    if len(found) != 1:
        fail("testlib.tl_apply: %d rows" % len(found))
    row = found[0]
    got = {}
    for c in row["callers"]:
        got[c["symbol"]] = got.get(c["symbol"], 0) + c["calls"]
        if c["estimated"] or not c["exact"] or c.get("calls_error", 0) != 0:
            fail("tl_apply's caller %r is not exact" % c)
    want = {"site_jump": N, "site_ret": N}
    if row["calls"] != 2 * N or got != want:
        fail("tl_apply's callers %r, want %r (%d calls in all)" % (got, want, row["calls"]))
    print("ok: tl_apply's callers by turns, site_jump's %d calls each abandoned: site_jump %d, "
          "site_ret %d, each exact" % (N, N, N))


main()
