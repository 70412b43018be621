#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top shows the mode apiprof-ctl set (issue 37, "the process
line shows the mode"), and m steps from it.

    test_ctl_shown.py APIPROF_TOP APIPROF_CTL SHIM CTLPROG

ctlprog makes N calls; `apiprof-ctl PID mode count`: the batch text's
process line says "mode count", --json "mode": "count"; `apiprof-ctl PID
mode off toplib`: "mode count, toplib off", and toplib's "mode": "off" in
--json.  Then the live view (tmux) shows the same line, and m sets the
mode after the shown one: off (after count), then full (after off); m
twice before a refresh goes on from the one it set: count.  Screens are
polled a bounded number of times, never a fixed sleep.  In a private
/dev/shm.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "top"))
from test_batch_real import fail, private_shm  # noqa: E402
from test_ctl_cmds import Prog, ctl  # noqa: E402
from test_live_tmux import Tmux, at_prompt, shell_ready  # noqa: E402

INNER = "APIPROF_TEST_CTL_SHOWN_INNER"
N = 500


def batch(top, pid, want_text, want_json, want_api):
    """The batch text's process line and --json's modes."""
    args = [top, "-b", "-n", "1", "-p", str(pid)]
    text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    line = [l for l in text.splitlines() if l.startswith("PID %d " % pid)]
    if not line or ("  mode %s  clock " % want_text) not in line[0]:
        fail("the batch process line does not say mode %s: %s" % (want_text, line))
    out = subprocess.run(args + ["--json"], capture_output=True, text=True, check=True).stdout
    proc = json.loads(out.splitlines()[0])["processes"][0]
    api = [a.get("mode") for a in proc["apis"] if a["name"] == "toplib"]
    if proc["mode"] != want_json or api != [want_api]:
        fail("--json: mode %r, toplib's %r; want %r and [%r]"
             % (proc["mode"], api, want_json, want_api))
    print("ok: batch: mode %s; --json %s, toplib %s" % (want_text, want_json, want_api))


def line_says(t, want):
    return t.wait("process line mode " + want, lambda s: ("  mode %s  clock " % want) in s)


def main():
    private_shm(__file__, INNER)
    top, ctlbin, shim, prog = (os.path.abspath(a) for a in sys.argv[1:5])
    if not shutil.which("tmux"):
        fail("tmux is missing (Debian package tmux, which ./quickstart installs)")
    with tempfile.TemporaryDirectory() as tmp:
        p = Prog(prog, shim, os.path.join(tmp, "s.json"))
        p.do("calls %d" % N)
        batch(top, p.pid, "full", "full", None)
        ctl(ctlbin, p.pid, "mode", "count")
        batch(top, p.pid, "count", "count", None)
        ctl(ctlbin, p.pid, "mode", "off", "toplib")
        batch(top, p.pid, "count, toplib off", "count", "off")
        t = Tmux()
        try:
            shell_ready(t)
            t.keys("%s -d 0.1 -p %d" % (top, p.pid), "Enter")
            line_says(t, "count, toplib off")
            t.keys("m")
            line_says(t, "off")
            print("ok: live: mode count, toplib off; m: off")
            t.keys("m")
            line_says(t, "full")
            t.keys("m")
            t.keys("m")
            line_says(t, "count")
            print("ok: m after off: full; m m: count")
            t.keys("q")
            t.wait("prompt after q", at_prompt)
        finally:
            t.kill()
        p.end()


if __name__ == "__main__":
    main()
