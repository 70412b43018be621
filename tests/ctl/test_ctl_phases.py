#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Three phases of exactly N, M and K calls, switched full / off / count
(issue 37): by apiprof-ctl, and by the program's own apiprof_mode.  The
counts are N + K exactly, and the times belong to the first phase only
(timed == N).

    test_ctl_phases.py APIPROF_CTL SHIM CTLPROG

Then an api's own timing (issue 37), by either way: N calls in full, M
with api toplib sampled:8 while the process stays full, K with the
process sampled:4 and toplib full: calls N + M + K exactly, timed N + K
plus the sampled stretch's, which the sampler's rule bounds (its first
call draws, then one call in 1 to 2 x 8 - 1 is timed: at least
(M - 1) / 15, at most M - 1, and 2 x M / 8 bounds it with room).

A mode the runtime refuses, by either way, is a failure.  In a private
/dev/shm.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import fail, private_shm  # noqa: E402
from test_ctl_cmds import Prog  # noqa: E402

INNER = "APIPROF_TEST_CTL_PHASES_INNER"
N, M, K = 1000, 300, 70


def tt_work(path):
    with open(path) as f:
        doc = json.load(f)
    rows = [fn for t in doc["threads"] for fn in t["functions"] if fn["name"] == "tt_work"]
    return sum(r["calls"] for r in rows), sum(r["timed"] for r in rows)


def steer_by_ctl(ctlbin, p, mode, api=None):
    r = subprocess.run([ctlbin, str(p.pid), mode] + ([api] if api else []), capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("apiprof-ctl %d %s %s: %d %s" % (p.pid, mode, api or "", r.returncode, r.stderr))


def steer_by_program(_ctlbin, p, mode, api=None):
    said = p.do("mode %s %s" % (api or "-", mode))
    if said != "rc 0 errno 1234":
        fail("apiprof_mode(%s, %s) said %r, want rc 0 and errno kept" % (api, mode, said))


def phases(ctlbin, prog, shim, tmp, steer, what):
    out = os.path.join(tmp, what + ".json")
    p = Prog(prog, shim, out)
    p.do("calls %d" % N)
    steer(ctlbin, p, "off")
    p.do("calls %d" % M)
    steer(ctlbin, p, "count")
    p.do("calls %d" % K)
    p.end()
    calls, timed = tt_work(out)
    if (calls, timed) != (N + K, N):
        fail("%s: tt_work calls %d timed %d, want %d and %d" % (what, calls, timed, N + K, N))
    print("ok: %s: full %d / off %d / count %d: %d calls, %d timed" % (what, N, M, K, calls,
                                                                       timed))


def own_timing(ctlbin, prog, shim, tmp, steer, what):
    out = os.path.join(tmp, what + "-own.json")
    p = Prog(prog, shim, out)
    p.do("calls %d" % N)
    steer(ctlbin, p, "sampled:8", "toplib")
    p.do("calls %d" % M)
    steer(ctlbin, p, "sampled:4")
    steer(ctlbin, p, "full", "toplib")
    p.do("calls %d" % K)
    p.end()
    calls, timed = tt_work(out)
    lo, hi = N + K + (M - 1) // 15, N + K + min(M - 1, 2 * M // 8)
    if calls != N + M + K or not lo <= timed <= hi:
        fail("%s: tt_work calls %d timed %d, want %d and %d to %d" % (what, calls, timed,
                                                                     N + M + K, lo, hi))
    print("ok: %s: full %d / toplib sampled:8 %d / toplib full %d: %d calls, %d timed" %
          (what, N, M, K, calls, timed))


def main():
    private_shm(__file__, INNER)
    ctlbin, shim, prog = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        phases(ctlbin, prog, shim, tmp, steer_by_ctl, "apiprof-ctl")
        phases(ctlbin, prog, shim, tmp, steer_by_program, "apiprof_mode")
        own_timing(ctlbin, prog, shim, tmp, steer_by_ctl, "apiprof-ctl")
        own_timing(ctlbin, prog, shim, tmp, steer_by_program, "apiprof_mode")


if __name__ == "__main__":
    main()
