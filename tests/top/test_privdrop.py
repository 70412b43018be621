#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A server's worker drops root for another user, and keeps its live view.

    test_privdrop.py APIPROF_TOP LIBAPIPROF SHIM PRIVPROG

privprog (root) forks a worker that becomes uid 12345 (numeric, no passwd
entry needed) with setresuid, makes a known number of calls and waits.
libapiprof.so is preloaded ahead of the shim, as apiprof-run does, so that
its hooks of the uid changes take effect.  Then:
  - root's apiprof-top shows both processes (every user's, as top does),
    each with its exact counts: the worker could reserve its ring;
  - uid 12345's apiprof-top shows the worker and not root's parent;
  - the program says nothing on stderr (no "Permission denied", no "no
    ring"), exits 0, and leaves no segment behind.
The test runs itself again in a mount namespace of its own with a tmpfs on
/dev/shm, so it never touches the real one.  Every step waits on a line
from a pipe; a viewer's output is read until the expected numbers appear,
bounded by its -n.  Exit 77 = skipped (not root, or no private mount
namespace).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import fail, preload, private_shm  # noqa: E402

INNER = "APIPROF_TEST_PRIVDROP_INNER"
USER = 12345
PARENT_CALLS, CHILD_CALLS = 3000, 7000


def outer():
    if os.geteuid() != 0:
        print("skip: needs root, to drop privileges")
        sys.exit(77)
    private_shm(__file__, INNER)


def work_calls(proc):
    return sum(f["calls"] for t in proc["threads"] for f in t["functions"]
               if f["name"] == "tt_work")


def watch(cmd, want, forbidden=()):
    """Runs a viewer until every pid of want shows its calls; fails if a
    pid of forbidden ever shows up.  Returns the last line's processes."""
    v = subprocess.Popen(cmd + ["-b", "--json", "-d", "0.05", "-n", "200", "-p",
                                ",".join(str(p) for p in list(want) + list(forbidden))],
                         stdout=subprocess.PIPE, text=True)
    seen = {}
    try:
        for line in v.stdout:
            procs = {q["pid"]: q for q in json.loads(line)["processes"]}
            for pid in forbidden:
                if pid in procs:
                    fail("%s shows pid %d, which it must not see" % (cmd, pid))
            seen = {pid: work_calls(procs[pid]) for pid in want if pid in procs}
            if seen == want:
                return procs
    finally:
        v.kill()
        v.wait()
    fail("%s: want tt_work calls %r, last seen %r" % (" ".join(cmd), want, seen))


def segments():
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith("apiprof-"))


def inner():
    top, libapiprof, shim, prog = sys.argv[1:5]
    env = dict(os.environ, LD_PRELOAD=preload(libapiprof, shim))
    # In a sanitizer build, LeakSanitizer cannot stop a process that gave
    # up root (no longer dumpable) and says so on stderr: not apiprof's.
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
    for k in ("APIPROF_SHM", "APIPROF_KEEP_SHM", "APIPROF_INTERVAL_MS", "APIPROF_OUTPUT"):
        env.pop(k, None)
    p = subprocess.Popen([prog, str(USER), str(PARENT_CALLS), str(CHILD_CALLS)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, text=True)
    try:
        line = p.stdout.readline()
        if not line.startswith("ready "):
            fail("privprog's worker did not get ready: %r %s" % (line, p.stderr.read()))
        child = int(line.split()[1])
        watch([top], {p.pid: PARENT_CALLS, child: CHILD_CALLS})
        print("ok: root's viewer shows the parent and the uid %d worker, exact counts" % USER)
        as_user = ["setpriv", "--reuid=%d" % USER, "--regid=%d" % USER, "--clear-groups", top]
        watch(as_user, {child: CHILD_CALLS}, forbidden=[p.pid])
        print("ok: uid %d's viewer shows its worker, not root's parent" % USER)
    finally:
        p.stdin.close()
        st = p.wait()
    err = p.stderr.read()
    if st != 0 or err:
        fail("privprog: status %d, stderr %r" % (st, err))
    if segments():
        fail("segments left behind: %r" % segments())
    print("ok: no word on stderr, status 0, no segment left")


if __name__ == "__main__":
    inner() if os.environ.get(INNER) == "1" else outer()
