# SPDX-License-Identifier: MIT
"""What the exporter's tests share: a private /dev/shm, the exporter,
scrapes and their parsing, topprog runs.

Every test runs itself again in a mount namespace of its own with a tmpfs
on /dev/shm (test_batch_real.private_shm), so that the exporter
sees only the test's programs and wakes nobody else's.  Waits poll an
outcome with a bounded number of tries, never a fixed sleep.
"""
import atexit
import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "top"))
import test_batch_real  # noqa: E402
from test_batch_real import fail, preload  # noqa: E402,F401

INNER = "APIPROF_TEST_PROM_INNER"
TRIES = 600  # polls of 0.05 s: half a minute at most per wait


def private_shm(script):
    """Returns in the private namespace; in the outer run, reruns script
    there (exit 77 when no mount namespace can be had)."""
    test_batch_real.private_shm(script, INNER)


def poll(what, fn):
    """fn() until it returns something true, bounded; fails saying what."""
    for _ in range(TRIES):
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    fail("gave up waiting for " + what)


class Exporter:
    """apiprof-top --listen 127.0.0.1:0 --all-users ARGS..., and the URL it
    said (the tests run as root, whose exporter needs --all-users on TCP)."""

    def __init__(self, top, *args, listen="127.0.0.1:0"):
        self.errf = tempfile.TemporaryFile("w+")  # unnamed: nothing left behind
        self.p = subprocess.Popen([top, "--listen", listen, "--all-users"] + list(args),
                                  stdout=subprocess.DEVNULL, stderr=self.errf)
        atexit.register(self.kill)
        self.url = poll("the exporter's address", self._said)

    def _said(self):
        if self.p.poll() is not None:
            fail("apiprof-top --listen exited with %r: %s" % (self.p.returncode, self.stderr()))
        m = re.search(r"serving (http://\S+/metrics)", self.stderr())
        return m and m.group(1)

    def stderr(self):
        self.errf.seek(0)
        return self.errf.read()

    def hostport(self):
        m = re.match(r"http://([^/]+)/metrics", self.url)
        host, port = m.group(1).rsplit(":", 1)
        return host, int(port)

    def scrape(self, source=None):
        """GET /metrics; from the loopback address source when given (the
        exporter limits the connections of one address)."""
        if source is None:
            with urllib.request.urlopen(self.url, timeout=30) as r:
                return self._body(r.status, r.headers["Content-Type"], r.read())
        host, port = self.hostport()
        c = http.client.HTTPConnection(host, port, timeout=30, source_address=(source, 0))
        try:
            c.request("GET", "/metrics")
            r = c.getresponse()
            return self._body(r.status, r.getheader("Content-Type"), r.read())
        finally:
            c.close()

    @staticmethod
    def _body(status, ctype, data):
        if status != 200 or not (ctype or "").startswith("text/plain; version=0.0.4"):
            fail("scrape: %r %r" % (status, ctype))
        return data.decode()

    def rss_kb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def stop(self):
        """SIGTERM: it must exit 0."""
        self.p.terminate()
        if self.p.wait() != 0:
            fail("apiprof-top --listen exited with %r: %s" % (self.p.returncode, self.stderr()))

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def sockets_of(pid):
    """How many sockets process pid holds (its /proc fd links)."""
    n = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            n += os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("socket:")
        except FileNotFoundError:
            pass
    return n


def parse(text):
    """[(name, {label: value}, value)] of an exposition text; fails on a
    line that is neither a comment nor a sample."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            fail("not a sample line: %r" % line)
        labels = {}
        for k, v in LABEL.findall(m.group(2) or ""):
            labels[k] = re.sub(r'\\(.)', lambda e: "\n" if e.group(1) == "n" else e.group(1), v)
        out.append((m.group(1), labels, float(m.group(3))))
    return out


def value(samples, name, **want):
    """The sum of the samples of name whose labels include want."""
    return sum(v for n, l, v in samples
               if n == name and all(l.get(k) == w for k, w in want.items()))


def buckets(samples, **want):
    """{le: count} of apiprof_latency_seconds_bucket matching want (one series)."""
    return {l["le"]: v for n, l, v in samples
            if n == "apiprof_latency_seconds_bucket" and all(l.get(k) == w for k, w in want.items())}


def check_histogram(samples, count, **want):
    """Cumulative buckets that never go down, +Inf = _count = count."""
    b = buckets(samples, **want)
    fin = sorted((float(le), v) for le, v in b.items() if le != "+Inf")
    for (_, a), (_, c) in zip(fin, fin[1:]):
        if c < a:
            fail("buckets not cumulative: %r" % fin)
    if b.get("+Inf") != count or value(samples, "apiprof_latency_seconds_count", **want) != count:
        fail("histogram of %r: +Inf %r, _count %r, want %r" % (
            want, b.get("+Inf"), value(samples, "apiprof_latency_seconds_count", **want), count))
    if fin and fin[-1][1] > count:
        fail("a bucket above +Inf: %r" % fin)


def promtool_check(text, what):
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("promtool check metrics on %s: %s%s" % (what, r.stdout, r.stderr))


def user_copies(d, *paths):
    """Copies of paths (programs, shims) in d/bin, with every library they
    load from outside the system's directories (the build tree's), for a
    process of another user: a checkout may lie where only root can reach
    (under /root).  Returns the copies' paths and an env with
    LD_LIBRARY_PATH pointing at them."""
    lib = os.path.join(d, "bin")
    os.makedirs(lib, mode=0o755, exist_ok=True)
    os.chmod(d, 0o755)
    out = []
    for p in paths:
        dst = os.path.join(lib, os.path.basename(p))
        shutil.copy2(p, dst)
        out.append(dst)
        ldd = subprocess.run(["ldd", p], capture_output=True, text=True).stdout
        for m in re.finditer(r"=> (/\S+)", ldd):
            so = m.group(1)
            if not so.startswith(("/lib", "/usr/")):
                shutil.copy2(so, os.path.join(lib, os.path.basename(so)))
    return out, {"LD_LIBRARY_PATH": lib}


class Prog:
    """topprog THREADS CALLS under the shim, once it printed "ready":
    tt_work has then been called THREADS x CALLS times."""

    def __init__(self, shim, prog, threads, calls, env=None, user=None):
        e = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="20", **(env or {}))
        e.pop("APIPROF_SHM", None)
        who = {"user": user, "group": user, "extra_groups": []} if user else {}
        self.p = subprocess.Popen([prog, str(threads), str(calls)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, env=e, text=True, **who)
        atexit.register(self.kill)
        if self.p.stdout.readline() != "ready\n":
            fail("topprog did not get ready")
        self.pid = self.p.pid

    def end(self):
        self.p.stdin.close()
        if self.p.wait() != 0:
            fail("topprog failed")

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
