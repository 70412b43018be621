#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top --group sums bytes and failures over processes (issue 24).

    test_group_acct.py APIPROF_TOP POSIX_IO_SHIM

python3 under the shipped posix_io shim forks WORKERS workers; each reads
a file of SIZE bytes to its end and fails to open a missing file once
(ENOENT), reports, and waits.  apiprof-top --json --group=tree (and
--group=comm) must show one group whose every function carries the sums
over its processes of calls, bytes, failures and errno counts, from the
same refresh: at least WORKERS x SIZE bytes read and WORKERS ENOENT.  -b
shows the group's read row with the summed bytes.  Every step waits on a
line from a pipe; the viewer's output is read until the expected state
appears, bounded by its -n.  Exit 77 = skipped.
"""
import atexit
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import fail, preload  # noqa: E402
from test_fork_group import json_until, text_until  # noqa: E402
from test_summary_table import need_dev_shm  # noqa: E402

WORKERS, SIZE = 3, 100000
PROG = r"""
import os, sys
path, workers = sys.argv[1], int(sys.argv[2])
go_r, go_w = os.pipe()
pids = []


def flusher_up():  # forks wait for it: tests/tools/flusher_wait.h says why
    for t in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % t) as f:
                if f.read() == "apiprof-flush\n":
                    return True
        except OSError:
            pass
    return False


for _ in range(100000):
    if flusher_up():
        break
    os.sched_yield()
for k in range(workers):
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        fd = os.open(path, os.O_RDONLY)
        while os.read(fd, 4096):
            pass
        os.close(fd)
        try:
            os.open(path + ".missing", os.O_RDONLY)
        except FileNotFoundError:
            pass
        os.write(wr, b"x")
        os.read(go_r, 1)  # end of file when the master goes
        sys.exit(0)  # not os._exit: the runtime removes the segment at exit
    os.close(wr)
    os.read(rd, 1)
    pids.append(pid)
print("ready", *pids, flush=True)
sys.stdin.readline()
os.close(go_w)
for pid in pids:
    os.waitpid(pid, 0)
"""


def start(shim, path):
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="50")
    for k in ("APIPROF_SHM", "APIPROF_SAMPLE", "APIPROF_OUTPUT", "APIPROF_SUMMARY"):
        env.pop(k, None)
    p = subprocess.Popen([sys.executable, "-c", PROG, path, str(WORKERS)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    atexit.register(p.kill)
    line = p.stdout.readline().split()
    if not line or line[0] != "ready" or len(line) != WORKERS + 1:
        fail("the forking program did not get ready: %r" % line)
    return p, [p.pid] + [int(x) for x in line[1:]]


def viewer(top, pids, *args):
    v = subprocess.Popen([top, "-b", "-d", "0.05", "-n", "600", "-p",
                          ",".join(map(str, pids))] + list(args),
                         stdout=subprocess.PIPE, text=True)
    atexit.register(v.kill)
    return v


KEYS = ("calls", "bytes", "failures")


def add(into, f):
    s = into.setdefault((f["api"], f["name"]), {"errno": {}})
    for k in KEYS:
        if k in f:
            s[k] = s.get(k, 0) + f[k]
    for e, n in f.get("errno", {}).items():
        s["errno"][e] = s["errno"].get(e, 0) + n


def member_sums(o, pids):
    sums = {}
    for p in o["processes"]:
        if p["pid"] in pids:
            for t in p["threads"]:
                for f in t["functions"]:
                    add(sums, f)
    return sums


def group_sums(g):
    sums = {}
    for f in g["functions"]:
        add(sums, f)
    return sums


def workers_done(o, pids):
    """Every worker's file read and failed open are in this refresh."""
    seen = 0
    for p in o["processes"]:
        if p["pid"] in pids[1:]:
            fs = [f for t in p["threads"] for f in t["functions"]]
            if sum(f.get("bytes", 0) for f in fs if f["name"] == "read") >= SIZE and \
                    sum(f.get("errno", {}).get("ENOENT", 0) for f in fs) >= 1:
                seen += 1
    return seen == WORKERS


def group_ok(o, kind, pids):
    groups = o.get("groups", [])
    return workers_done(o, pids) and len(groups) == 1 and groups[0]["group"] == kind and \
        sorted(groups[0]["pids"]) == sorted(pids)


def check(o, pids, kind):
    want, got = member_sums(o, pids), group_sums(o["groups"][0])
    if got != want:
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
                if got.get(k) != want.get(k)}
        fail("--group=%s: the group's rows are not the sums (group, members): %r" % (kind, diff))
    read = [s for (_, name), s in got.items() if name == "read"]
    enoent = sum(s["errno"].get("ENOENT", 0) for s in got.values())
    if not read or read[0]["bytes"] < WORKERS * SIZE or enoent < WORKERS:
        fail("--group=%s: read %r, ENOENT %d" % (kind, read, enoent))
    return read[0]["bytes"]


def main():
    top, shim = sys.argv[1:3]
    need_dev_shm()
    with tempfile.TemporaryDirectory(prefix="apiprof-groupacct-") as tmp:
        path = os.path.join(tmp, "data")
        with open(path, "wb") as f:
            f.write(b"a" * SIZE)
        p, pids = start(shim, path)
        for kind in ("tree", "comm"):
            o = json_until(viewer(top, pids, "--json", "--group=" + kind),
                           lambda o: group_ok(o, kind, pids))
            n = check(o, pids, kind)
            print("ok: --group=%s sums calls, bytes (read: %d), failures and errno" % (kind, n))
        # -b: the group's read row and the note under it, "bytes N (p50 ...)".
        text_until(viewer(top, pids, "--group=tree"),
                   lambda b: any(l.split()[-1:] == ["posix_io.read"] and i + 1 < len(b) and
                                 b[i + 1].split()[:2] == ["bytes", str(n)]
                                 for i, l in enumerate(b)))
        print("ok: -b --group=tree shows the summed bytes")
        p.stdin.close()
        if p.wait() != 0:
            fail("the forking program exited %d" % p.returncode)


if __name__ == "__main__":
    main()
