#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top -p PID --children (issue 41): a server's children, also
those it forks after the viewer started, as a postmaster's new backends
or nginx's restarted workers.

    test_children.py APIPROF_TOP SHIM FORKPROG

forkprog (under the shim) forks WORKERS workers with exact call counts.
`-b --json -p MASTER --children` must show the master and each worker
with its exact counts; then forkprog forks one more worker on command,
and the same viewer, started before that fork, must show it too.
Without --children, every refresh shows the master alone.  Every step
waits on a line from a pipe or on the viewer's output, bounded by its
-n; all in a private /dev/shm.  Exit 77 = skipped.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import fail, private_shm  # noqa: E402
from test_fork_group import CALLS, WORKERS, per_process, start  # noqa: E402

INNER = "APIPROF_TEST_CHILDREN_INNER"


def worker_ok(procs, master, pid, k):
    p = procs.get(pid)
    return p is not None and p["ppid"] == master and p["title"] == "forkprog: worker %d" % k \
        and per_process(p) == {"tt_work": CALLS * (k + 1), "tt_idle": 1}


def all_ok(o, master, workers):
    """The master and exactly these workers, each with its exact counts."""
    procs = {p["pid"]: p for p in o["processes"]}
    return len(procs) == len(workers) + 1 and master in procs \
        and per_process(procs[master]) == {"tt_idle": 3} \
        and all(worker_ok(procs, master, w, k) for k, w in enumerate(workers))


def until(v, ok, what):
    last = None
    for line in v.stdout:
        o = json.loads(line)
        if ok(o):
            return o
        last = o
    fail("%s never appeared; last refresh:\n%s" % (what, json.dumps(last, indent=1)))


def main():
    private_shm(__file__, INNER)
    top, shim, prog = sys.argv[1:4]
    p, workers = start(shim, prog)
    master = p.pid

    v = subprocess.Popen([top, "-b", "--json", "-d", "0.05", "-n", "600", "-p", str(master),
                          "--children"], stdout=subprocess.PIPE, text=True)
    until(v, lambda o: all_ok(o, master, workers), "the master and its %d workers" % WORKERS)
    print("ok: --children shows the master and its %d workers, exact counts" % WORKERS)

    p.stdin.write("fork\n")
    p.stdin.flush()
    line = p.stdout.readline().split()
    if len(line) != 2 or line[0] != "forked":
        fail("forkprog did not fork: %r" % line)
    workers.append(int(line[1]))
    until(v, lambda o: all_ok(o, master, workers),
          "worker %d, forked after the viewer started," % workers[-1])
    v.kill()
    v.wait()
    print("ok: a worker forked after the viewer started appears, exact counts")

    # Without --children: the master alone, in every refresh.
    out = subprocess.run([top, "-b", "--json", "-d", "0.05", "-n", "3", "-p", str(master)],
                         stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines()
    if len(out) != 3:
        fail("not 3 refreshes without --children: %r" % out)
    for line in out:
        pids = [q["pid"] for q in json.loads(line)["processes"]]
        if pids != [master]:
            fail("without --children: processes %r, not only the master %d" % (pids, master))
    print("ok: without --children, only the master")

    r = subprocess.run([top, "-b", "--children"], capture_output=True, text=True)
    if r.returncode == 0 or "--children follows the children of -p PID: give -p" not in r.stderr:
        fail("--children without -p: status %d, %r" % (r.returncode, r.stderr))
    print("ok: --children without -p is refused, saying why")

    p.stdin.close()
    if p.wait() != 0:
        fail("forkprog failed")


if __name__ == "__main__":
    main()
