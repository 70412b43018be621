#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real Prometheus server scrapes apiprof-top --listen (issue 25).

    test_prom_server.py APIPROF_TOP SHIM TOPPROG

Debian's prometheus runs on 127.0.0.1 (a free port), with its config and
TSDB in scratch space and a 1 s scrape interval against the exporter.
topprog makes exactly N calls of tt_work; then, through Prometheus's HTTP
API:
- sum(apiprof_calls_total{function="tt_work"}) is exactly N;
- histogram_quantile(0.99, sum by (le) (rate-free bucket counts)) lies in
  the range apiprof-top --json observed for tt_work ([min_ns, max_ns]),
  widened to the log2 buckets that hold them: the finest any histogram
  quantile can say.  The program uses the monotonic clock, whose tick is a
  nanosecond, so those buckets are exactly [2^k, 2^(k+1)) ns.
Exit 77 = skipped (no prometheus binary, or no private mount namespace).
"""
import atexit
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from promlib import Exporter, Prog, fail, poll, private_shm  # noqa: E402

N = 4321
CONFIG = """global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: apiprof
    static_configs:
      - targets: ['%s']
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Prometheus:
    def __init__(self, target):
        self.dir = tempfile.mkdtemp(prefix="prom-server-")
        atexit.register(shutil.rmtree, self.dir, True)
        self.p = None
        atexit.register(self.kill)
        with open(os.path.join(self.dir, "prometheus.yml"), "w") as f:
            f.write(CONFIG % target)
        for _ in range(5):  # a port taken between free_port and the bind
            self.port = free_port()
            self.log = open(os.path.join(self.dir, "log"), "w+")
            self.p = subprocess.Popen(
                ["prometheus", "--config.file=" + os.path.join(self.dir, "prometheus.yml"),
                 "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
                 "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
                stdout=self.log, stderr=subprocess.STDOUT)
            if poll("prometheus to answer", self.ready) == "up":
                return
        fail("prometheus did not start: " + self.output())

    def output(self):
        self.log.seek(0)
        return self.log.read()[-2000:]

    def ready(self):
        if self.p.poll() is not None:
            return "exited"
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port,
                                        timeout=5) as r:
                return "up" if r.status == 200 else None
        except OSError:
            return None

    def query(self, q):
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (
            self.port, urllib.parse.urlencode({"query": q}))
        with urllib.request.urlopen(url, timeout=30) as r:
            o = json.load(r)
        if o.get("status") != "success":
            fail("query %s: %r" % (q, o))
        res = o["data"]["result"]
        return float(res[0]["value"][1]) if res else None

    def kill(self):
        if self.p and self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def stop(self):
        self.p.terminate()
        self.p.wait()


def observed(top, pid):
    """tt_work's [min_ns, max_ns] over the threads, from apiprof-top --json."""
    out = subprocess.run([top, "-b", "--json", "-n", "1", "-p", str(pid)], capture_output=True,
                         text=True, check=True).stdout
    fs = [f for pr in json.loads(out)["processes"] for t in pr["threads"]
          for f in t["functions"] if f["name"] == "tt_work"]
    if sum(f["calls"] for f in fs) != N:
        fail("apiprof-top --json does not see N calls of tt_work: %r" % fs)
    return min(f["min_ns"] for f in fs), max(f["max_ns"] for f in fs)


def main():
    if not shutil.which("prometheus"):
        print("FAIL: prometheus is missing (Debian package prometheus, which ./quickstart installs)")
        sys.exit(1)
    private_shm(__file__)
    top, shim, prog = sys.argv[1:4]
    ex = Exporter(top, "-d", "0.2")
    p = Prog(shim, prog, 1, N, env={"APIPROF_CLOCK": "monotonic"})
    lo_ns, hi_ns = observed(top, p.pid)
    srv = Prometheus("%s:%d" % ex.hostport())
    calls = 'sum(apiprof_calls_total{function="tt_work"})'
    poll("prometheus to say N for " + calls, lambda: srv.query(calls) == N)
    print("ok: prometheus says %s = %d" % (calls, N))

    q = 'histogram_quantile(0.99, sum by (le) (apiprof_latency_seconds_bucket{function="tt_work"}))'
    p99 = srv.query(q)
    lo = 2 ** math.floor(math.log2(max(lo_ns, 1))) / 1e9
    hi = 2 ** (math.floor(math.log2(max(hi_ns, 1))) + 1) / 1e9
    if p99 is None or not lo <= p99 <= hi:
        fail("%s = %r, outside [%g, %g] s (observed [%d, %d] ns)" % (q, p99, lo, hi, lo_ns,
                                                                      hi_ns))
    print("ok: p99 %.3g s within the observed [%d, %d] ns at bucket resolution [%g, %g] s" % (
        p99, lo_ns, hi_ns, lo, hi))
    srv.stop()
    ex.stop()
    p.end()


if __name__ == "__main__":
    main()
