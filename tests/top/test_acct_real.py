#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top --json shows the bytes and failures a spec declares
(issue 24), read from the ring's APIPROF_REC_ACCT records.

    test_acct_real.py APIPROF_TOP SHIM ACCTPROG

acctprog (tests/e2e) makes its calls, prints "ready" and waits; the viewer
attaches afterwards and must report the exact cumulative bytes, sizes,
failures and errno counts.  Exit 77 = skipped.
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

from test_batch_real import fail, preload

# Size quantiles as in tests/e2e/acct.sh (common/stat/apiprof_stat.h).
WANT = {
    "acct_read": {"calls": 27, "bytes": 100000, "bytes_p50": 5973, "bytes_p99": 8147,
                  "failures": 1, "errno": {"EBADF": 1}},
    "acct_open": {"calls": 18, "failures": 17, "errno": {"ENOENT": 17}},
    "acct_check": {"calls": 8, "failures": 3, "errno": {"EACCES": 3}},
    "acct_alloc": {"calls": 15, "bytes": 69856, "bytes_p50": 55, "bytes_p99": 69208,
                   "failures": 0},
    "acct_status": {"calls": 6, "failures": 2},
    "acct_plain": {"calls": 10},
}


def matches(rows):
    for name, w in WANT.items():
        got = rows.get(name)
        if got is None or any(got.get(k) != v for k, v in w.items()):
            return False
    return "bytes" not in rows["acct_plain"] and "failures" not in rows["acct_plain"]


def main():
    top, shim, prog = sys.argv[1:4]
    if not os.access("/dev/shm", os.W_OK):
        print("skip: /dev/shm not writable")
        sys.exit(77)
    tmp = tempfile.mkdtemp()
    data = os.path.join(tmp, "data")
    with open(data, "wb") as f:
        f.write(b"\0" * 100000)
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="50")
    env.pop("APIPROF_SHM", None)
    p = subprocess.Popen([prog, data, os.path.join(tmp, "missing"), "wait"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    atexit.register(p.kill)
    if p.stdout.readline() != "read 100000 plain 10 errors 0\n" or p.stdout.readline() != "ready\n":
        fail("acctprog did not get ready")
    v = subprocess.Popen([top, "-b", "--json", "-d", "0.05", "-n", "400", "-p", str(p.pid)],
                         stdout=subprocess.PIPE, text=True)
    atexit.register(v.kill)
    last = None
    for line in v.stdout:
        for proc in json.loads(line)["processes"]:
            if proc["pid"] != p.pid:
                continue
            last = {f["name"]: f for t in proc["threads"] for f in t["functions"]}
            if matches(last):
                finish(v, p, tmp)
                print("ok: apiprof-top --json shows exact bytes, sizes, failures and errno")
                return
    fail("apiprof-top never showed the declared numbers; last: %r" % (last,))


def finish(v, p, tmp):
    """acctprog ends as a program does, so its runtime removes its segment
    (a SIGKILL at exit would leave it in /dev/shm), and the scratch goes."""
    v.kill()
    v.wait()
    p.stdin.close()
    if p.wait() != 0:
        fail("acctprog exited with %d" % p.returncode)
    shutil.rmtree(tmp)


main()
