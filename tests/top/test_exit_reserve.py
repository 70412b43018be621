#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A process exits while its flusher is still reserving the ring for a
viewer's first look: the final records must not be lost.

    test_exit_reserve.py APIPROF_TOP SHIM TOPPROG FGATE

topprog runs under the shim with APIPROF_KEEP_SHM=1, and under fgate, which
holds the ring's reservation open until the program yields the CPU.  A
viewer looks; fgate says the flusher is inside the reservation; topprog is
told to exit.  Its exit path must wait for the reservation, which it does
by yielding, and then write its final records into the kept segment: a
look after the end shows the exact totals.  Every step waits on a pipe,
never on time.
"""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import CALLS, THREADS, counts, fail  # noqa: E402
from test_no_ring import look, start  # noqa: E402


def main():
    top, shim, prog, fgate = sys.argv[1:5]
    if not os.access("/dev/shm", os.W_OK):
        print("skip: /dev/shm not writable")
        sys.exit(77)
    r, w = os.pipe()
    p = start(fgate + " " + shim, prog, {"APIPROF_KEEP_SHM": "1", "FGATE_FD": str(w)},
              pass_fds=(w,))
    os.close(w)
    segs = glob.glob("/dev/shm/apiprof-%d-%d-*" % (os.getuid(), p.pid))
    try:
        look(top, p.pid)  # wakes the flusher, which reserves the ring
        if os.read(r, 1) != b"i":
            fail("the flusher never reached the ring's reservation")
        p.stdin.close()
        st = p.wait()
        err = p.stderr.read()
        if st != 0 or err:
            fail("topprog: status %d, stderr %r" % (st, err))
        o = json.loads(look(top, p.pid, "--json"))
        procs = [q for q in o["processes"] if q["pid"] == p.pid]
        want = {("tworker-%d" % i, "tt_work"): CALLS for i in range(THREADS)}
        want.update({("tworker-%d" % i, "tt_idle"): 1 for i in range(THREADS)})
        want[("topprog", "tt_idle")] = 3
        if len(procs) != 1 or procs[0]["state"] != "ended" or counts(procs[0])[0] != want:
            fail("after the end: %r, want ended with %r" % (procs, want))
    finally:
        p.kill()
        for s in segs:
            os.unlink(s)
    print("ok: exit waited for the ring's reservation; the kept segment has the exact totals")


if __name__ == "__main__":
    main()
