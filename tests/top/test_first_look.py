#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The first refresh after a viewer attaches has everything the process
did before it (issue 35.5).

    test_first_look.py APIPROF_TOP SHIM STEPPROG

stepprog makes K calls of tt_work each time this test writes a byte to
it, says "done N", and then blocks on its stdin.  Right after each
"done N", a new `apiprof-top -b -n 1 --json` must show exactly N calls,
100 times in a row: the viewer asks the runtime for a flush and waits
for it, rather than showing what the ring had (the flusher writes only
every APIPROF_INTERVAL_MS, 1000 here, and a viewer that came before kept
it awake).  Every step waits on a line from a pipe, never on time.  Exit
77 = skipped.
"""
import atexit
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import fail, preload  # noqa: E402

K = 37
TRIALS = 100


def stop(p):
    """Ends stepprog at the end of its stdin, so that its runtime removes
    its segment; SIGKILL only if it does not end within 30 s."""
    try:
        p.stdin.close()
        p.wait(timeout=30)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        p.kill()


def shown(top, pid):
    """tt_work's calls in the process, as a one-shot viewer shows them,
    and whether the process answered the request for a flush."""
    r = subprocess.run([top, "-b", "-n", "1", "--json", "-p", str(pid)],
                       stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail("apiprof-top: status %d" % r.returncode)
    procs = [q for q in json.loads(r.stdout)["processes"] if q["pid"] == pid]
    if len(procs) != 1:
        fail("the process is not shown: %s" % r.stdout)
    calls = sum(f["calls"] for t in procs[0]["threads"] for f in t["functions"]
                if f["name"] == "tt_work")
    return calls, procs[0].get("flushed") is not False


def main():
    top, shim, prog = sys.argv[1:4]
    if not os.access("/dev/shm", os.W_OK):
        print("skip: /dev/shm not writable")
        sys.exit(77)
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="1000")
    env.pop("APIPROF_SHM", None)
    p = subprocess.Popen([prog, str(K)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    atexit.register(stop, p)
    if p.stdout.readline() != "ready\n":
        fail("stepprog did not get ready")
    for i in range(1, TRIALS + 1):
        p.stdin.write("x")
        p.stdin.flush()
        if p.stdout.readline() != "done %d\n" % (i * K):
            fail("stepprog did not make its calls")
        calls, flushed = shown(top, p.pid)
        if calls != i * K or not flushed:
            fail("trial %d: apiprof-top -n 1 shows %d calls of tt_work, made %d (flushed: %s)"
                 % (i, calls, i * K, flushed))
    stop(p)
    if p.returncode != 0:
        fail("stepprog failed")
    print("ok: %d one-shot views, each with exactly the calls made before it" % TRIALS)


if __name__ == "__main__":
    main()
