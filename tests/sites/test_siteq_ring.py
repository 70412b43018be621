#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""APIPROF_REC_SITEQ only for rows whose sites had timed calls (issue 23).

    test_siteq_ring.py SHIM_SITELIB IDLEPROG SITEQCOUNT APIPROF_TOP

idleprog's THREADS threads each make 10 calls of sitelib.sl_work from one
site and then stay idle; every flush is a keyframe (APIPROF_KEYFRAME=1),
which writes every row.  siteqcount counts the ring's records by flush:
  idle:  the first flush writes each row's times, sites and quantiles;
         each later one its times and sites only, no quantiles; and
         apiprof-top, attaching after those flushes, still shows each
         caller's p50/p99 (from the first flush's quantiles);
  lap:   in a 64-record ring the quantiles are written again once they
         are half a ring old, so that after many laps the ring still
         holds every row's, and a late apiprof-top shows them.
  fork:  a fork child whose row has the same calls from the same site as
         its parent's, whose quantiles the parent's flusher has written,
         writes its own at its first flush, none after, and apiprof-top
         shows them.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import preload  # noqa: E402  (sanitizer runtimes first)

THREADS = 3


def fail(msg, out=""):
    print("FAIL: " + msg)
    if out:
        print("---- output ----\n" + out)
    sys.exit(1)


def run(shim, prog, env_extra, arg=str(THREADS)):
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="20", APIPROF_KEYFRAME="1",
               **env_extra)
    for k in ("APIPROF_SAMPLE", "APIPROF_RING_RECORDS"):
        if k not in env_extra:
            env.pop(k, None)
    p = subprocess.Popen([prog, arg], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    if not p.stdout.readline().startswith("ready"):
        fail("idleprog did not get ready")
    return p


def count(tool, pid, flushes):
    out = subprocess.run([tool, str(pid), str(flushes)], capture_output=True, text=True)
    if out.returncode != 0:
        fail("siteqcount exited %d: %s" % (out.returncode, out.stderr), out.stdout)
    rows = {}
    for line in out.stdout.splitlines():
        m = re.fullmatch(r"flush (\d+) times (\d+) sites (\d+) siteq (\d+)", line)
        if m:
            rows[int(m.group(1))] = tuple(int(g) for g in m.group(2, 3, 4))
        m = re.fullmatch(r"threads (\d+) siteq (\d+)", line)
        if m:
            tail = (int(m.group(1)), int(m.group(2)))
    return rows, tail, out.stdout


def quantiles_shown(top, pid, threads=THREADS):
    """Each thread's sl_work caller, with its p50/p99, in apiprof-top --json."""
    out = subprocess.run([top, "--json", "-n", "1", "-p", str(pid)], capture_output=True,
                         text=True, check=True).stdout
    doc = json.loads(out)
    callers = [c for p in doc["processes"] if p["pid"] == pid for t in p["threads"]
               for f in t["functions"] if f["name"] == "sl_work" for c in f["callers"]]
    if len(callers) != threads or not all(c["symbol"] == "idle_site" and c["calls"] == 10 and
                                          c["p50_ns"] is not None and
                                          c["p50_ns"] <= c["p99_ns"] for c in callers):
        fail("callers' p50/p99 not shown after flushes without quantiles", out)


def idle(shim, prog, tool, top):
    p = run(shim, prog, {"APIPROF_RING_RECORDS": "4096"})
    try:
        rows, tail, out = count(tool, p.pid, 6)
        if rows.get(1) != (THREADS, THREADS, THREADS):
            fail("first flush: not a record of each kind per row", out)
        later = [rows[k] for k in sorted(rows) if k > 1]
        if len(later) < 5 or any(r != (THREADS, THREADS, 0) for r in later):
            fail("later flushes of idle rows: not times and sites only", out)
        quantiles_shown(top, p.pid)
        print("ok: idle rows: flush 1 %r, later flushes %r; apiprof-top shows p50/p99"
              % (rows[1], later[0]))
    finally:
        p.stdin.close()
        p.wait()


def lap(shim, prog, tool, top):
    p = run(shim, prog, {"APIPROF_RING_RECORDS": "64"})
    try:
        rows, tail, out = count(tool, p.pid, 40)  # 40 flushes: more than 3 laps
        if tail != (THREADS, THREADS):
            fail("after laps of the ring: not every row's quantiles in it", out)
        if sum(r[2] for r in rows.values()) >= sum(r[1] for r in rows.values()):
            fail("quantiles written with every sites record", out)
        quantiles_shown(top, p.pid)
        print("ok: a 64-record ring after 40 flushes holds every row's quantiles")
    finally:
        p.stdin.close()
        p.wait()


def forked(shim, prog, tool, top):
    p = run(shim, prog, {"APIPROF_RING_RECORDS": "4096"}, "fork")
    try:
        rows, tail, out = count(tool, p.pid, 3)
        if rows.get(1) != (1, 1, 1) or tail != (1, 1):
            fail("parent: its row's quantiles not written", out)
        p.stdin.write("fork\n")
        p.stdin.flush()
        m = re.fullmatch(r"child (\d+)\n", p.stdout.readline())
        if not m:
            fail("no child")
        child = int(m.group(1))
        rows, tail, out = count(tool, child, 4)
        if rows.get(1) != (1, 1, 1) or any(rows[k] != (1, 1, 0) for k in rows if k > 1):
            fail("fork child: its own quantiles not written once", out)
        quantiles_shown(top, child, 1)
        print("ok: a fork child writes its row's quantiles at its first flush, none after")
    finally:
        p.stdin.close()
        if p.wait() != 0:
            fail("idleprog fork exited %d" % p.returncode)


def main():
    shim, prog, tool, top = (os.path.abspath(a) for a in sys.argv[1:5])
    idle(shim, prog, tool, top)
    lap(shim, prog, tool, top)
    forked(shim, prog, tool, top)


if __name__ == "__main__":
    main()
