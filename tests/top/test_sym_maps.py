#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The resolver reads a process's maps once per refresh (issue 34).

    test_sym_maps.py APIPROF_TOP SHIM_TOPLIB JITPROG

jitprog has NMAPS mappings and NTHREADS threads each with 16 call sites
of toplib.tt_work in anonymous executable memory: NTHREADS * 16 return
addresses that no module holds.  `apiprof-top --json -n 2` runs under
strace, which counts its opens of /proc/PID/maps: at most 2 a refresh
(libdwfl's report and the resolver's one reading), however many
addresses; it used to read the maps whole once per address.  The
addresses are all resolved ([anon]) and counted in the JSON (once another
viewer has seen them all flushed).  Runs itself
again in a mount namespace of its own with a tmpfs on /dev/shm.  Exit 77:
not root, no private mount namespace, not x86-64.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import preload, private_shm  # noqa: E402

INNER = "APIPROF_TEST_SYM_MAPS_INNER"
NMAPS, NTHREADS, SITES = 20000, 12, 16
REFRESHES = 2


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def outer():
    if os.geteuid() != 0:
        print("skip: needs root, for a private mount namespace")
        sys.exit(77)
    private_shm(__file__, INNER)


def anon_callers(out, pid):
    """The callers of tt_work in every row of pid, over the JSON lines."""
    n = 0
    for line in out.splitlines():
        for p in json.loads(line)["processes"]:
            if p["pid"] != pid:
                continue
            n = 0
            for t in p["threads"]:
                for f in t["functions"]:
                    if f["name"] == "tt_work":
                        n += sum(1 for c in f["callers"] if c["module"] is None)
    return n


def inner(top, shim, prog):
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="50")
    env.pop("APIPROF_SAMPLE", None)
    p = subprocess.Popen([prog, str(NMAPS), str(NTHREADS)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, text=True)
    try:
        line = p.stdout.readline()
        if line != "ready\n":
            p.stdin.close()
            if p.wait() == 77:
                print("skip: jitprog writes x86-64 code")
                sys.exit(77)
            fail("jitprog did not get ready: %r" % line)
        # The runtime flushes its sites every 50 ms: a viewer of its own
        # first sees them all (each try a real refresh, at most 200).
        for _ in range(200):
            out = subprocess.run([top, "--json", "-n", "1", "-p", str(p.pid)],
                                 capture_output=True, text=True, check=True).stdout
            if anon_callers(out, p.pid) == NTHREADS * SITES:
                break
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "strace")
            out = subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log,
                                  top, "--json", "-d", "0.05", "-n", str(REFRESHES), "-p",
                                  str(p.pid)],
                                 capture_output=True, text=True, check=True).stdout
            maps = "/proc/%d/maps" % p.pid
            with open(log) as f:
                reads = sum(1 for line in f if maps in line)
        got = anon_callers(out, p.pid)
        if got != NTHREADS * SITES:
            fail("%d anonymous callers of tt_work in the last refresh, want %d" %
                 (got, NTHREADS * SITES))
        if not 1 <= reads <= 2 * REFRESHES:
            fail("%s opened %d times in %d refreshes for %d addresses, want at most %d" %
                 (maps, reads, REFRESHES, got, 2 * REFRESHES))
    finally:
        p.stdin.close()
        p.wait()
    print("ok: %d addresses in %d mappings, the maps opened %d times in %d refreshes" %
          (got, NMAPS, reads, REFRESHES))


def main():
    if os.environ.get(INNER) != "1":
        outer()
    inner(*(os.path.abspath(a) for a in sys.argv[1:4]))


if __name__ == "__main__":
    main()
