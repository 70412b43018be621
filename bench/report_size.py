#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The size bench row of apiprof-report (issue 39): an exit JSON of one
process with THREADS threads of FUNCS functions each, shaped as the
runtime writes them (a 24-bucket histogram, 4 callers with file and line,
bytes and errno counts, a root node per function at its call site and a
child node under it), then the report of it: its size, and the time
headless Chromium takes to open it (the page's own performance.now() when
it is drawn, in <body data-ms>).  Not a test: a measurement.

  bench/report_size.py APIPROF_REPORT SHARE_DIR [THREADS [FUNCS]]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def func(api, k, t):
    calls = 1000 + 37 * k + t
    return {"api": api, "name": "fn_%02d" % k, "calls": calls, "timed": calls,
            "total_ns": calls * 211, "estimated": False, "min_ns": 20, "max_ns": 90000,
            "p50_ns": 150, "p99_ns": 4200, "hist": [0] * 4 + [calls // 20] * 20,
            "bytes": calls * 64, "bytes_p50": 64, "bytes_p99": 512,
            "bytes_hist": {"32": calls // 2, "64": calls - calls // 2}, "failures": 3,
            "errno": {"ENOENT": 2, "EAGAIN": 1}, "self_ns": calls * 200,
            "callers": [{"symbol": "caller_%d" % c, "module": "/usr/lib/libapp.so",
                         "offset": 4096 + 16 * c + k, "file": "src/app_%d.c" % c,
                         "line": 100 + c, "calls": calls // 4, "total_ns": calls * 52,
                         "estimated": False, "exact": True, "calls_error": 0,
                         "p50_ns": 150, "p99_ns": 4000, "parent": None}
                        for c in range(4)],
            "children": [{"api": api, "name": "fn_%02d" % ((k + 1) % 50), "calls": 10,
                          "total_ns": 11 * 211, "estimated": False}]}


def thread(t, funcs):
    fs = [func("app", k, t) for k in range(funcs)]
    tree = []
    for k, f in enumerate(fs):
        tree.append({"id": 2 * k + 1, "parent": None, "function": "app." + f["name"],
                     "site": {"symbol": "caller_0", "module": "/usr/lib/libapp.so",
                              "offset": 4096 + k},
                     "calls": f["calls"] - 10, "total_ns": f["total_ns"], "self_ns": f["self_ns"],
                     "estimated": False})
        tree.append({"id": 2 * k + 2, "parent": 2 * k + 1,
                     "function": "app.fn_%02d" % ((k + 1) % funcs), "calls": 10,
                     "total_ns": 2110, "self_ns": 2110, "estimated": False})
    return {"tid": 1000 + t, "name": "worker-%d" % t, "state": "exited", "functions": fs,
            "tree": tree}


def main():
    report, share = sys.argv[1:3]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    funcs = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    d = tempfile.mkdtemp(prefix="apiprof-report-bench-")
    doc = {"apiprof": 1, "pid": 999, "ppid": 1, "wall_ns": 10 ** 10, "comm": "app",
           "title": "app --bench", "clock": "tsc", "tick_hz": 2100000000, "dropped": 0,
           "mode": "full", "apis": [{"api": "app", "library": "libapp.so", "loaded": True}],
           "threads": [thread(t, funcs) for t in range(threads)]}
    src = os.path.join(d, "in.json")
    with open(src, "w") as f:
        json.dump(doc, f)
    page = os.path.join(d, "report.html")
    t0 = time.monotonic()
    subprocess.run([report, page, src], check=True, env=dict(os.environ, APIPROF_REPORT_SHARE=share))
    t1 = time.monotonic()
    print("%d threads x %d functions: input %.2f MB, report %.2f MB, written in %.2f s" %
          (threads, funcs, os.path.getsize(src) / 1e6, os.path.getsize(page) / 1e6, t1 - t0))
    exe = shutil.which("chromium")
    if exe:
        t2 = time.monotonic()
        p = subprocess.run([exe, "--headless", "--disable-gpu", "--no-sandbox",
                            "--user-data-dir=" + os.path.join(d, "chromium"), "--dump-dom",
                            "file://" + page], capture_output=True, text=True, timeout=300)
        m = re.search(r'data-ms="(\d+)"', p.stdout)
        print("chromium: drawn %s ms after the page's start; chromium --dump-dom %.2f s in all" %
              (m.group(1) if m else "?", time.monotonic() - t2))
    shutil.rmtree(d, True)


if __name__ == "__main__":
    main()
