#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A viewer looks at a process whose /dev/shm has no room for the ring.

    test_no_ring.py APIPROF_TOP SHIM TOPPROG

The test runs itself again in a mount namespace of its own, with a 1 MB
tmpfs on /dev/shm: room for a segment's header and function table, not for
its ring, whose pages are taken when a viewer first looks.  That look must
show the process, running, with "ring": false and no rows, and the text
view must say why it has no numbers.  The program must say so once on its
stderr, run on unchanged, and write the exact counts to APIPROF_OUTPUT.
Every step waits on a line from a pipe, never on time.  Exit 77 = skipped
(no private mount namespace here).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import (CALLS, THREADS, fail, preload as preload_of,  # noqa: E402
                             private_shm)

INNER = "APIPROF_TEST_NO_RING_INNER"
MOUNT = "mount -t tmpfs -o size=1m tmpfs /dev/shm"


def outer():
    private_shm(__file__, INNER, MOUNT)


def start(preload, prog, extra, pass_fds=()):
    """topprog under preload, with the environment extra, once it printed
    "ready"; its stderr is a pipe."""
    env = dict(os.environ, LD_PRELOAD=preload_of(*preload.split()), **extra)
    for k in ("APIPROF_SHM", "APIPROF_KEEP_SHM", "APIPROF_INTERVAL_MS", "APIPROF_OUTPUT"):
        if k not in extra:
            env.pop(k, None)
    p = subprocess.Popen([prog, str(THREADS), str(CALLS)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                         pass_fds=pass_fds)
    if p.stdout.readline() != "ready\n":
        p.kill()
        fail("topprog did not get ready")
    return p


def look(top, pid, *args):
    r = subprocess.run([top, "-b", "-n", "1", "-p", str(pid)] + list(args),
                       stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail("apiprof-top %s: status %d" % (" ".join(args), r.returncode))
    return r.stdout


def check_views(top, pid):
    o = json.loads(look(top, pid, "--json"))
    procs = [q for q in o["processes"] if q["pid"] == pid]
    if len(procs) != 1:
        fail("the process is not shown: %r" % o)
    q = procs[0]
    if q["ring"] is not False or q["state"] != "running" or q["threads"] != []:
        fail("want ring false, running, no rows; got %r" % q)
    text = look(top, pid)
    title = [ln for ln in text.splitlines() if ln.startswith("PID %d " % pid)]
    if len(title) != 1 or "no ring: no live numbers" not in title[0]:
        fail("the text view does not say why there are no numbers: %r" % text)


def calls_by_function(path):
    with open(path) as f:
        d = json.load(f)
    got = {}
    for t in d["threads"]:
        for fn in t["functions"]:
            got[fn["name"]] = got.get(fn["name"], 0) + fn["calls"]
    return got


def inner():
    top, shim, prog = sys.argv[1:4]
    fd, out = tempfile.mkstemp(prefix="apiprof-no-ring-", suffix=".json")
    os.close(fd)
    p = start(shim, prog, {"APIPROF_OUTPUT": out})
    try:
        check_views(top, p.pid)
        check_views(top, p.pid)  # a second viewer: the ring is not tried again
    finally:
        p.stdin.close()
        st = p.wait()
    err = p.stderr.read()
    if st != 0:
        fail("topprog: status %d: %s" % (st, err))
    lines = err.splitlines()
    if len(lines) != 1 or not (lines[0].startswith("apiprof: cannot reserve the ring of "
                                                   "/dev/shm/apiprof-")
                               and lines[0].endswith(": live view off")):
        fail("want exactly one 'cannot reserve the ring' warning, got %r" % err)
    got = calls_by_function(out)
    os.unlink(out)
    want = {"tt_work": THREADS * CALLS, "tt_idle": THREADS + 3}
    if got != want:
        fail("APIPROF_OUTPUT: %r, want %r" % (got, want))
    print("ok: the viewer shows the process without a ring and says why; one warning;"
          " the counts are exact")


if __name__ == "__main__":
    inner() if os.environ.get(INNER) == "1" else outer()
