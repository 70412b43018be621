#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Root's exporter serves each scraper only what it may see (issue 34,
point 8).

    test_prom_users.py APIPROF_TOP SHIM TOPPROG

Root runs topprog 5 x 100 calls (its command line is its "secret"), uid
12345 runs topprog 3 x 100.  Then:
  - root's `--listen 127.0.0.1:0` and `--textfile DIR` without --all-users
    refuse to start, with one line each;
  - root's `--listen unix:PATH`: uid 12345's scrape over the socket shows
    exactly its own 300 calls and its own process, never root's pid; uid
    23456 (no processes) sees no tt_work series; root's scrape sees 800;
  - after SIGTERM (status 0) the socket file is gone; a file already at
    PATH is never replaced (the exporter refuses to start).
Exit 77 = skipped (not root, or no private mount namespace).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from promlib import Prog, fail, parse, poll, private_shm, user_copies, value  # noqa: E402

USER, NOBODY = 12345, 23456
SCRAPE = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
d = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    d += b
sys.stdout.buffer.write(d)
"""
# A client that any user can run: the test's own interpreter may live in a
# directory only root can read.
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


def as_user(uid):
    return {"user": uid, "group": uid, "extra_groups": []}


def scrape(path, uid):
    """The body of GET /metrics over the socket, by a client of uid."""
    r = subprocess.run([PYTHON, "-c", SCRAPE, path], capture_output=True, timeout=60,
                       **(as_user(uid) if uid else {}))
    head, _, body = r.stdout.decode().partition("\r\n\r\n")
    if r.returncode != 0 or not head.startswith("HTTP/1.1 200"):
        fail("scrape as uid %d: status %r, %r %r" % (uid, r.returncode, head, r.stderr))
    return body


def refused(top, args, want):
    r = subprocess.run([top, "-n", "1"] + args, capture_output=True, text=True, timeout=60)
    if r.returncode != 1 or r.stderr.count("\n") != 1 or want not in r.stderr:
        fail("%r as root: status %r, stderr %r" % (args, r.returncode, r.stderr))
    print("ok: %r refused: %s" % (args, r.stderr.strip()))


def calls(text):
    return value(parse(text), "apiprof_calls_total", function="tt_work")


class UnixExporter:
    def __init__(self, top, path):
        self.errf = tempfile.TemporaryFile("w+")
        self.p = subprocess.Popen([top, "--listen", "unix:" + path, "-d", "0.05"],
                                  stdout=subprocess.DEVNULL, stderr=self.errf)
        poll("the exporter's socket", self._said)

    def _said(self):
        if self.p.poll() is not None:
            fail("apiprof-top --listen unix: exited with %r: %s" % (self.p.returncode,
                                                                   self.stderr()))
        return "serving /metrics on unix:" in self.stderr()

    def stderr(self):
        self.errf.seek(0)
        return self.errf.read()


def main():
    if os.geteuid() != 0:
        print("skip: needs root, to run processes and scrapers of other users")
        sys.exit(77)
    private_shm(__file__)
    top, shim, prog = sys.argv[1:4]
    d = tempfile.mkdtemp(prefix="prom-users-")
    os.chmod(d, 0o755)
    try:
        run(top, shim, prog, d)
    finally:
        shutil.rmtree(d, True)


def run(top, shim, prog, d):
    refused(top, ["--listen", "127.0.0.1:0"], "use --listen unix:PATH")
    refused(top, ["--textfile", d], "or add --all-users")
    (ushim, uprog), uenv = user_copies(os.path.join(d, "u"), shim, prog)
    mine = Prog(ushim, uprog, 3, 100, env=uenv, user=USER)
    secret = Prog(shim, prog, 5, 100)
    path = os.path.join(d, "metrics.sock")
    ex = UnixExporter(top, path)
    poll("root's scrape to show both", lambda: calls(scrape(path, 0)) == 800)
    # The watch has read both: uid 12345's first scrape is its whole view.
    text = scrape(path, USER)
    if calls(text) != 300:
        fail("uid %d sees %r calls of tt_work, not its own 300" % (USER, calls(text)))
    if 'pid="%d"' % secret.pid in text or 'pid="%d"' % mine.pid not in text:
        fail("uid %d's view of the processes: %r" % (
            USER, re.findall(r"apiprof_process_info\{.*", text)))
    print("ok: uid %d sees its 300 calls and its own process only" % USER)
    other = scrape(path, NOBODY)
    if calls(other) != 0 or "tt_work" in other or 'pid="' in other:
        fail("uid %d, who runs nothing, sees: %r" % (NOBODY, other[:300]))
    print("ok: uid %d sees no process" % NOBODY)
    ex.p.terminate()
    if ex.p.wait() != 0 or os.path.lexists(path):
        fail("after SIGTERM: status %r, socket left: %r" % (ex.p.returncode,
                                                          os.path.lexists(path)))
    with open(path, "w") as f:
        f.write("not yours\n")
    r = subprocess.run([top, "--listen", "unix:" + path, "-n", "1"], capture_output=True,
                       text=True, timeout=60)
    with open(path) as f:
        if r.returncode != 1 or f.read() != "not yours\n":
            fail("over a file already there: status %r, %r" % (r.returncode, r.stderr))
    print("ok: socket removed at exit; an existing file is never replaced (%s)" %
          r.stderr.strip())
    mine.end()
    secret.end()


if __name__ == "__main__":
    main()
