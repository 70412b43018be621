#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top's keys that steer the selected process (issue 37), through
tmux: R resets it, m cycles its mode (full, sampled:64, count, off).

    test_ctl_keys.py APIPROF_TOP SHIM CTLPROG

ctlprog makes exactly N calls; R in the viewer, and the status line says
"reset (1 so far)"; M more; then m three times (sampled:64, count, off),
K calls, m (full) and L calls.  Then m twice before the process has
published the first press's mode: sampled:64, then count (the view's
memo of what it sent).  The exit JSON: since start N + M + L,
since reset M + L (off counts nothing).  A mode the runtime refuses is a
failure (the status line says "cannot take").  Screens are polled a bounded
number of times (tests/top/test_live_tmux.py's Tmux), never a fixed sleep.
In a private /dev/shm.
"""
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "top"))
from test_batch_real import fail, private_shm  # noqa: E402
from test_ctl_cmds import Prog  # noqa: E402
from test_live_tmux import Tmux, at_prompt, shell_ready  # noqa: E402

INNER = "APIPROF_TEST_CTL_KEYS_INNER"
N, M, K, L = 1000, 300, 70, 20


def status(t, want):
    return t.wait("status " + want, lambda s: want in s)


def cycle(t, want):
    """m once: the status line says the mode set, or that it was refused;
    True when it was set."""
    t.keys("m")
    s = t.wait("mode " + want, lambda s: ("mode " + want) in s or "cannot take" in s)
    return ("mode " + want) in s


def double_press(top, shim, prog, tmp):
    """m pressed twice before the process has published the mode the first
    press set (it flushes only every 10 minutes): the second press goes on
    from the mode the view sent, not from the one still shown, so full ->
    sampled:64 -> count; without the view's memo the second press would
    send sampled:64 again."""
    p = Prog(prog, shim, os.path.join(tmp, "d.json"), {"APIPROF_INTERVAL_MS": "600000"})
    t = Tmux()
    try:
        shell_ready(t)
        p.do("calls %d" % N)
        t.keys("%s -d 0.1 -p %d" % (top, p.pid), "Enter")
        t.wait("rows", lambda s: "tt_work" in s)
        firsts = [cycle(t, "sampled:64"), cycle(t, "count")]
        t.keys("q")
        t.wait("prompt after q", at_prompt)
    finally:
        t.kill()
    p.end()
    if firsts != [True, True]:
        fail("m twice before a flush: the status lines said %s, want sampled:64 then count"
             % firsts)
    print("ok: m pressed twice before the process flushed: sampled:64, then count")


def main():
    private_shm(__file__, INNER)
    top, shim, prog = (os.path.abspath(a) for a in sys.argv[1:4])
    if not shutil.which("tmux"):
        fail("tmux is missing (Debian package tmux, which ./quickstart installs)")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "k.json")
        p = Prog(prog, shim, out)
        t = Tmux()
        try:
            shell_ready(t)
            p.do("calls %d" % N)
            t.keys("%s -d 0.1 -p %d" % (top, p.pid), "Enter")
            t.wait("rows", lambda s: "tt_work" in s)
            t.keys("R")
            status(t, "reset (1 so far)")
            p.do("calls %d" % M)
            modes = all([cycle(t, "sampled:64"), cycle(t, "count"), cycle(t, "off")])
            p.do("calls %d" % K)
            modes = cycle(t, "full") and modes
            p.do("calls %d" % L)
            t.keys("q")
            t.wait("prompt after q", at_prompt)
        finally:
            t.kill()
        p.end()
        with open(out) as f:
            doc = json.load(f)
    got = [(x["since_start"]["calls"], x["since_reset"]["calls"])
           for x in doc["totals"] if x["function"] == "tt_work"]
    if not modes:
        fail("m: the runtime refused a mode (the status line said cannot take)")
    counted = 0  # off: the K calls are not counted
    want = (N + M + counted + L, M + counted + L)
    if got != [want] or doc["resets"] != 1:
        fail("tt_work since start/since reset %s resets %s, want %s and 1"
             % (got, doc["resets"], want))
    print("ok: R reset the process (since reset %d of %d)" % want[::-1])
    print("ok: m cycled sampled:64, count, off, full: the off phase not counted")
    with tempfile.TemporaryDirectory() as tmp:
        double_press(top, shim, prog, tmp)


if __name__ == "__main__":
    main()
