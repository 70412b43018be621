#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A forking server under apiprof-top (issue 22): process titles, the
process tree and the groups summed over processes.

    test_fork_group.py APIPROF_TOP SHIM FORKPROG

forkprog forks WORKERS workers that rewrite their command line (as nginx
and postgres do) and make an exact number of calls each.  The viewer must
show each title, the workers under their parent (ppid, depth, order; the
indented title lines of -b), and, with --group=tree and --group=comm, one
group whose sums per function are exact.  A rename after the viewer
started must show up.  Every step waits on a line from a pipe; the
viewer's output is read until the expected state appears, bounded by its
-n.  Exit 77 = skipped.
"""
import atexit
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import fail, preload  # noqa: E402

WORKERS, CALLS = 3, 2000


def start(shim, prog):
    if not os.access("/dev/shm", os.W_OK):
        print("skip: /dev/shm not writable")
        sys.exit(77)
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="50")
    env.pop("APIPROF_SHM", None)
    p = subprocess.Popen([prog, str(WORKERS), str(CALLS)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, text=True)
    atexit.register(p.kill)
    line = p.stdout.readline().split()
    if not line or line[0] != "ready" or len(line) != WORKERS + 1:
        fail("forkprog did not get ready: %r" % line)
    return p, [int(x) for x in line[1:]]


def viewer(top, pids, *args):
    v = subprocess.Popen([top, "-d", "0.05", "-n", "600", "-p", ",".join(map(str, pids))]
                         + list(args), stdout=subprocess.PIPE, text=True)
    atexit.register(v.kill)
    return v


def json_until(v, ok, keep=False):
    """The first JSON refresh of which ok() holds (the viewer is ended
    then, unless keep); the last one seen in the failure message."""
    last = None
    for line in v.stdout:
        o = json.loads(line)
        if ok(o):
            if not keep:
                v.kill()
            return o
        last = o
    fail("the expected state never appeared; last refresh:\n%s" % json.dumps(last, indent=1))


def per_process(proc):
    c = {}
    for t in proc["threads"]:
        for f in t["functions"]:
            c[f["name"]] = c.get(f["name"], 0) + f["calls"]
    return c


def tree_ok(o, master, workers, master_title):
    procs = o["processes"]
    if len(procs) != WORKERS + 1:
        return False
    by_pid = {p["pid"]: p for p in procs}
    m = by_pid.get(master)
    if m is None or m["title"] != master_title or m["depth"] != 0 or procs[0] is not m:
        return False
    if per_process(m) != {"tt_idle": 3}:
        return False
    for k, w in enumerate(workers):
        p = by_pid.get(w)
        if p is None or p["title"] != "forkprog: worker %d" % k or p["ppid"] != master \
                or p["depth"] != 1:
            return False
        if per_process(p) != {"tt_work": CALLS * (k + 1), "tt_idle": 1}:
            return False
    return True


def group_ok(o, kind, master, pids):
    want = {"tt_work": CALLS * WORKERS * (WORKERS + 1) // 2, "tt_idle": 3 + WORKERS}
    groups = o.get("groups", [])
    if len(groups) != 1:
        return False
    g = groups[0]
    got = {f["name"]: f["calls"] for f in g["functions"]}
    return g["group"] == kind and g["pid"] == master and sorted(g["pids"]) == sorted(pids) \
        and g["comm"] == "forkprog" and got == want


def text_until(v, ok):
    """Reads -b blocks (each begins with "apiprof-top - ") until ok(block)."""
    block, last = [], []
    for line in v.stdout:
        if line.startswith("apiprof-top - ") and block:
            if ok(block):
                v.kill()
                return block
            last, block = block, []
        block.append(line.rstrip("\n"))
    fail("the expected text never appeared; last block:\n" + "\n".join(last))


def text_tree_ok(block, master, workers):
    """The master's title line first, then its workers', indented."""
    titles = [l for l in block if "PID " in l]
    children = {'  `- PID %d  forkprog "forkprog: worker %d"' % (w, k)
                for k, w in enumerate(workers)}
    return len(titles) == WORKERS + 1 and \
        titles[0].startswith('PID %d  forkprog "forkprog: master"  up ' % master) and \
        {t[:t.find('"', t.find('"') + 1) + 1] for t in titles[1:]} == children


def main():
    top, shim, prog = sys.argv[1:4]
    p, workers = start(shim, prog)
    master, pids = p.pid, [p.pid] + workers

    o = json_until(viewer(top, pids, "--json", "--group=tree"),
                   lambda o: tree_ok(o, master, workers, "forkprog: master")
                   and group_ok(o, "tree", master, pids))
    print("ok: titles, ppid and depth of %d workers, tree group sums exact" % WORKERS)

    json_until(viewer(top, pids, "--json", "--group=comm"),
               lambda o: group_ok(o, "comm", master, pids))
    print("ok: comm group sums exact")

    text_until(viewer(top, pids, "-b"), lambda b: text_tree_ok(b, master, workers))
    block = text_until(viewer(top, pids, "-b", "--group=tree"),
                       lambda b: any(l.startswith("TREE %d  forkprog" % master) for l in b))
    if not any(("%d process" % len(pids)) in l for l in block):
        fail("tree group title:\n" + "\n".join(block))
    print("ok: -b shows the workers under the master, and the tree group")

    # The title is read again while the viewer runs.
    v = viewer(top, pids, "--json")
    json_until(v, lambda o: tree_ok(o, master, workers, "forkprog: master"), keep=True)
    p.stdin.write("rename\n")
    p.stdin.flush()
    if p.stdout.readline() != "renamed\n":
        fail("forkprog did not rename itself")
    json_until(v, lambda o: tree_ok(o, master, workers, "forkprog: master renamed"))
    print("ok: a title rewritten later is shown")

    p.stdin.close()
    if p.wait() != 0:
        fail("forkprog failed")


if __name__ == "__main__":
    main()
