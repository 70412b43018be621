#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two profiled programs, each pid 1 of a pid namespace of its own.

    test_pidns.py APIPROF_TOP SHIM TOPPROG

Both run under `unshare -p -f --mount-proc` with one /dev/shm (a private
tmpfs, in a mount namespace of the test's own).  Then:
  - both segments exist at once, under two names (the pid namespace and a
    nonce tell them apart, though both processes are pid 1);
  - `apiprof-top --clean` from outside their namespaces removes neither:
    both processes live; it does remove a planted segment of a pid that
    no process has in one of those namespaces;
  - apiprof-top from outside lists both, under the pids it sees them as,
    with their exact counts;
  - both programs run unchanged and write exact counts to APIPROF_OUTPUT,
    and no segment is left after they exit.
Every step waits on a line from a pipe; the viewer's output is read until
the expected numbers appear, bounded by its -n.  Exit 77 = skipped (not
root, or no namespaces here).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import CALLS, THREADS, counts, fail, preload, rerun_with_private_shm  # noqa: E402
from test_no_ring import calls_by_function  # noqa: E402

INNER = "APIPROF_TEST_PIDNS_INNER"
MOUNT = "mount -t tmpfs tmpfs /dev/shm"
WANT = {"tt_work": THREADS * CALLS, "tt_idle": THREADS + 3}


def outer():
    if os.geteuid() != 0:
        print("skip: needs root for pid namespaces")
        sys.exit(77)
    probe = subprocess.run(["unshare", "-m", "-p", "-f", "--mount-proc", "sh", "-c", MOUNT],
                           stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        print("skip: cannot make pid and mount namespaces here (unshare -m -p)")
        sys.exit(77)
    rerun_with_private_shm(__file__, INNER, MOUNT)


def start(shim, prog, out):
    """topprog as pid 1 of a new pid namespace, once it printed "ready";
    only topprog is profiled, not unshare."""
    env = dict(os.environ, APIPROF_OUTPUT=out)
    for k in ("APIPROF_SHM", "APIPROF_KEEP_SHM", "APIPROF_INTERVAL_MS", "LD_PRELOAD"):
        env.pop(k, None)
    p = subprocess.Popen(["unshare", "-p", "-f", "--mount-proc", "env", "LD_PRELOAD=" + preload(shim),
                          prog, str(THREADS), str(CALLS)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, text=True)
    if p.stdout.readline() != "ready\n":
        p.kill()
        fail("topprog did not get ready: %s" % p.stderr.read())
    return p


def host_pid(p):
    """The pid, as we see it, of unshare's child (the namespace's pid 1)."""
    with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
        kids = f.read().split()
    if len(kids) != 1:
        fail("unshare %d has children %r" % (p.pid, kids))
    return int(kids[0])


def segments():
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith("apiprof-"))


def check_listed(top, pids):
    """The viewer lists both processes under pids, with exact counts."""
    v = subprocess.Popen([top, "-b", "--json", "-d", "0.05", "-n", "200"],
                         stdout=subprocess.PIPE, text=True)
    got = {}
    try:
        for line in v.stdout:
            procs = json.loads(line)["processes"]
            got = {q["pid"]: counts(q)[0] for q in procs}
            if sorted(got) == sorted(pids) and all(
                    sum(c for (_, fn), c in got[pid].items() if fn == "tt_work") ==
                    WANT["tt_work"] for pid in pids):
                return
    finally:
        v.kill()
        v.wait()
    fail("the viewer does not list pids %r with %d tt_work calls each: last %r"
         % (pids, WANT["tt_work"], got))


def inner():
    top, shim, prog = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="apiprof-pidns-")
    outs = [os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")]
    progs = [start(shim, prog, outs[0]), start(shim, prog, outs[1])]
    try:
        names = segments()
        if len(names) != 2 or not all(n.startswith("apiprof-0-1-") for n in names):
            fail("want two segments of two pid 1s at once, got %r" % names)
        print("ok: two pid 1s, two segments: %r" % names)
        r = subprocess.run([top, "--clean"], stdout=subprocess.PIPE, text=True)
        if r.returncode != 0 or r.stdout or segments() != names:
            fail("--clean from outside the namespaces: status %d, %r; left %r"
                 % (r.returncode, r.stdout, segments()))
        print("ok: --clean from outside removes no live segment")
        if not all(len(n.split("-")) == 6 for n in names):
            fail("the names do not say their pid namespace: %r" % names)
        # A segment of a process that is gone from a namespace that lives:
        # pid 77 of the first program's namespace, where no pid 77 runs.
        dead = "apiprof-0-77-1-%s-0000000000000001" % names[0].split("-")[4]
        with open(os.path.join("/dev/shm", dead), "w") as f:
            f.write("x" * 4096)
        r = subprocess.run([top, "--clean"], stdout=subprocess.PIPE, text=True)
        if (r.returncode != 0 or r.stdout != "removed /dev/shm/%s (pid 77 gone)\n" % dead
                or segments() != names):
            fail("--clean from outside the namespaces: status %d, %r; left %r"
                 % (r.returncode, r.stdout, segments()))
        print("ok: --clean removes the dead one of a live namespace, and only it")
        check_listed(top, [host_pid(p) for p in progs])
        print("ok: the viewer outside lists both, under its own pids, exact counts")
    finally:
        for p in progs:
            p.stdin.close()
        sts = [p.wait() for p in progs]
    for p, st, out in zip(progs, sts, outs):
        err = p.stderr.read()
        if st != 0 or err:
            fail("topprog: status %d, stderr %r" % (st, err))
        got = calls_by_function(out)
        if got != WANT:
            fail("APIPROF_OUTPUT %s: %r, want %r" % (out, got, WANT))
        os.unlink(out)
    os.rmdir(tmp)
    if segments():
        fail("segments left behind: %r" % segments())
    print("ok: both programs unchanged, exact APIPROF_OUTPUT, no segment left")


if __name__ == "__main__":
    inner() if os.environ.get(INNER) == "1" else outer()
