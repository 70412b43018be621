#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The flusher runs only while a reader watches.

    test_watch_wake.py APIPROF_TOP SHIM TOPPROG SHMPEEK

topprog makes its calls and waits.  With no reader its flusher waits in
the kernel (flusher_idle 1) and has written no record at all (head 0).  A
one-shot `apiprof-top -n 1` wakes it and waits for its first snapshot: the
one refresh it prints has the totals since the start, exactly.  Once its
promise to look again has run out, the flusher waits again.  Every wait is
on a condition, bounded by the test's timeout; none is on time.
"""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import counts, fail, start_topprog  # noqa: E402


def peek(shmpeek, path):
    r = subprocess.run([shmpeek, path], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return None
    v = r.stdout.split()
    return dict(zip(v[0::2], map(int, v[1::2])))


def wait_idle(shmpeek, path):
    while True:
        h = peek(shmpeek, path)
        if h is not None and h["flusher_idle"] == 1:
            return h


def main():
    top, shim, prog, shmpeek = sys.argv[1:5]
    p, want = start_topprog(shim, prog)
    segs = glob.glob("/dev/shm/apiprof-%d-%d-*" % (os.getuid(), p.pid))
    if len(segs) != 1:
        fail("want one segment for pid %d, found %r" % (p.pid, segs))

    h = wait_idle(shmpeek, segs[0])
    if h["head"] != 0 or h["tick_hz"] != 0:
        fail("the flusher wrote before any reader looked: %r" % h)

    out = subprocess.run([top, "-b", "--json", "-n", "1", "-p", str(p.pid)],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    procs = [q for q in json.loads(out)["processes"] if q["pid"] == p.pid]
    if not procs or counts(procs[0])[0] != want:
        fail("one look: %r, want %r" % (procs and counts(procs[0])[0], want))
    h = peek(shmpeek, segs[0])
    if h is None or h["head"] == 0:
        fail("a reader looked, yet no record: %r" % h)

    wait_idle(shmpeek, segs[0])  # the viewer's 5 s have run out
    p.stdin.close()
    if p.wait() != 0:
        fail("topprog failed")
    print("ok: no reader, no flush; one look wakes the flusher and shows the exact totals;"
          " then it waits again")


if __name__ == "__main__":
    main()
