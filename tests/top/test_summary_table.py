#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""APIPROF_SUMMARY and apiprof-top -b print one table (common/stat/apiprof_stat.h).

    test_summary_table.py APIPROF_TOP ZLIB_SHIM

python3 under the shipped zlib shim, with APIPROF_SUMMARY=1, calls
zlib.crc32 exactly N times and waits on its stdin.  apiprof-top -b watches
it until a refresh shows the crc32 row with N calls; then the program ends
and prints its summary.  The thread's "TID" line and the column header are
the same lines in both, and the crc32 row has the same calls and the same
number of columns.  Every step waits on a line from a pipe, never on time.
Exit 77 = skipped.
"""
import atexit
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import fail, preload  # noqa: E402

N = 1234
PROG = ("import sys, zlib\n"
        "for i in range(%d): zlib.crc32(b'apiprof')\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n" % N)


def start(shim, err):
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_SUMMARY="1",
               APIPROF_INTERVAL_MS="50")
    for k in ("APIPROF_SHM", "APIPROF_SAMPLE", "APIPROF_OUTPUT"):
        env.pop(k, None)
    p = subprocess.Popen([sys.executable, "-c", PROG], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=err, env=env, text=True)
    atexit.register(p.kill)
    if p.stdout.readline() != "ready\n":
        fail("python3 under the zlib shim did not get ready")
    return p


def table(lines):
    """The TID line, the header and the crc32 row of a table, or None."""
    rows = [i for i, l in enumerate(lines) if l.split()[-1:] == ["zlib.crc32"]]
    if not rows:
        return None
    i = rows[0]
    head = [j for j in range(i) if lines[j].split()[-1:] == ["function"]]
    tid = [j for j in range(i) if lines[j].startswith("TID ")]
    if not head or not tid:
        fail("a crc32 row with no header or TID line before it:\n" + "\n".join(lines))
    return lines[tid[-1]], lines[head[-1]], lines[i]


def watch(top, pid):
    """apiprof-top -b's first table whose crc32 row has N calls."""
    v = subprocess.Popen([top, "-b", "-d", "0.05", "-n", "400", "-p", str(pid)],
                         stdout=subprocess.PIPE, text=True)
    atexit.register(v.kill)
    block, last = [], []
    for line in v.stdout:
        if line.startswith("apiprof-top - ") and block:
            t = table(block)
            if t and t[2].split()[0] == str(N):
                v.kill()
                v.wait()
                return t
            last, block = block, []
        block.append(line.rstrip("\n"))
    fail("apiprof-top -b never showed crc32 with %d calls; last refresh:\n%s" %
         (N, "\n".join(last)))


def need_dev_shm():
    if not os.access("/dev/shm", os.W_OK):
        print("skip: /dev/shm not writable")
        sys.exit(77)


def main():
    top, shim = sys.argv[1:3]
    need_dev_shm()
    with tempfile.TemporaryDirectory(prefix="apiprof-sumtab-") as tmp:
        with open(os.path.join(tmp, "err"), "w") as err:
            p = start(shim, err)
        live = watch(top, p.pid)
        p.stdin.write("\n")
        p.stdin.close()
        if p.wait() != 0:
            fail("python3 under the zlib shim exited %d" % p.returncode)
        with open(os.path.join(tmp, "err")) as f:
            text = f.read()
    end = table(text.splitlines())
    if end is None:
        fail("the summary has no crc32 row:\n" + text)
    if live[0] != end[0] or live[1] != end[1]:
        fail("TID and header lines differ:\n-b:      %r\n         %r\nsummary: %r\n         %r"
             % (live[0], live[1], end[0], end[1]))
    a, b = live[2].split(), end[2].split()
    if a[0] != str(N) or b[0] != str(N) or len(a) != len(b):
        fail("crc32 rows differ:\n-b:      %r\nsummary: %r" % (live[2], end[2]))
    print("ok: APIPROF_SUMMARY and apiprof-top -b: same TID and header lines, crc32 %d "
          "calls in both" % N)


if __name__ == "__main__":
    main()
