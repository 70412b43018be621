# SPDX-License-Identifier: MIT
"""redis-server under redis-benchmark, profiled by apiprof-run, checked
against redis's own counters (issue 35.9).

  test_redis.py APIPROF_RUN RUNTIME writes|malloc

writes: apiprof-run -s posix_io. redis writes each reply with one write(2)
(writev(2) for one spread over several buffers) and counts them in INFO's
`total_writes_processed`, their bytes in `total_net_output_bytes`. Over the
server's whole life: write and writev calls = total_writes_processed, and
their bytes = total_net_output_bytes, both as the final INFO reports them,
plus that INFO's own reply (one write, whose length the test read). The
test's own PINGs and INFO are replies too; SHUTDOWN NOSAVE answers none.

malloc: apiprof-run -s malloc. The callers of malloc that apiprof keeps
are the hot ones: the busiest is redis's own code (its zmalloc), not the C
library's start-up, and the callers it names hold at least half of the
main thread's malloc calls (issue 35.1: on main before it, 16 start-up
sites of 1 to 43 calls and "(other callers)" with 99.9%).

The server listens on a Unix socket only (port 0), in the test's scratch
tmpfs, with no persistence. Takes 2 s (writes) and 4 s (malloc) on 2 cores.
"""
import os
import shutil
import signal
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reallib import Checks, begin, fail, load, rows, run, say, total  # noqa: E402

REQUESTS = {"writes": 20000, "malloc": 10000}  # per redis-benchmark test
TESTS = {"writes": "ping,set,get", "malloc": "set,get,lpush,lpop,sadd,hset,mset"}


class Resp:
    """A RESP client that keeps the raw bytes of each reply."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(30)
        self.s.connect(path)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            self._more()
        i = self.buf.index(b"\r\n") + 2
        line, self.buf = self.buf[:i], self.buf[i:]
        return line

    def _more(self):
        b = self.s.recv(65536)
        if not b:
            fail("redis closed the connection")
        self.buf += b

    def command(self, *args):
        """Sends args, returns (reply bytes, its raw length on the wire)."""
        req = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
        self.s.sendall(req)
        head = self._line()
        if head[:1] != b"$":
            return head[1:-2], len(head)
        n = int(head[1:-2])
        while len(self.buf) < n + 2:
            self._more()
        body, self.buf = self.buf[:n], self.buf[n + 2:]
        return body, len(head) + n + 2


def info(sock):
    """INFO stats as a dict, and the raw length of its reply."""
    body, raw = Resp(sock).command(b"INFO", b"stats")
    d = dict(line.split(":", 1) for line in body.decode().splitlines() if ":" in line)
    return d, raw


def shutdown(sb, server, sock):
    """SHUTDOWN NOSAVE: redis answers nothing and exits 0. (Not SIGTERM:
    its handler logs with write(2), which would add writes that are no
    replies.)"""
    r = Resp(sock)
    r.s.sendall(b"*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n")
    return sb.wait_end(server, "redis-server", "SHUTDOWN NOSAVE")


def ping(sock):
    try:
        return Resp(sock).command(b"PING")[0] == b"PONG"
    except OSError:
        return False


def serve(sb, apiprof_run, spec, out):
    sock = sb.path("redis.sock")
    server = sb.start([apiprof_run, "-s", spec, "-o", out, "--", "redis-server", "--port", "0",
                       "--unixsocket", sock, "--save", "", "--appendonly", "no",
                       "--dir", sb.path(), "--daemonize", "no"], "redis.log")
    sb.ready(server, "redis-server (PING on %s)" % sock, lambda: ping(sock))
    return server, sock


def bench(sock, what):
    run(["redis-benchmark", "-s", sock, "-n", str(REQUESTS[what]), "-c", "4", "-t", TESTS[what],
         "-q"])


def check_writes(sb, apiprof_run, checks):
    out = sb.path("redis.json")
    server, sock = serve(sb, apiprof_run, "posix_io", out)
    bench(sock, "writes")
    stats, raw = info(sock)
    st = shutdown(sb, server, sock)
    checks.equal("redis-server's exit status under apiprof", st, "bare", 0)
    doc = load(out)
    calls = total([doc], "write") + total([doc], "writev")
    nbytes = total([doc], "write", "bytes") + total([doc], "writev", "bytes")
    say("redis-benchmark made %d requests each of %s; INFO: %s writes, %s bytes"
        % (REQUESTS["writes"], TESTS["writes"], stats["total_writes_processed"],
           stats["total_net_output_bytes"]))
    for r in rows(doc, "write") + rows(doc, "writev"):
        said = ["%s %s: %d" % (c.get("symbol"), c.get("module"), c["calls"]) for c in r["callers"]]
        say("%s callers: %s" % (r["name"], "; ".join(said)))
    checks.equal("write+writev calls", calls,
                 "INFO total_writes_processed + the final INFO's reply",
                 int(stats["total_writes_processed"]) + 1)
    checks.equal("write+writev bytes", nbytes,
                 "INFO total_net_output_bytes + the final INFO's reply (%d bytes)" % raw,
                 int(stats["total_net_output_bytes"]) + raw)


def check_malloc(sb, apiprof_run, checks):
    out = sb.path("redis.json")
    server, sock = serve(sb, apiprof_run, "malloc", out)
    bench(sock, "malloc")
    st = shutdown(sb, server, sock)
    checks.equal("redis-server's exit status under apiprof", st, "bare", 0)
    doc = load(out)
    binary = os.path.basename(os.path.realpath(shutil.which("redis-server")))
    main = [f for t in doc["threads"] if t["tid"] == doc["pid"] for f in t["functions"]
            if f["name"] == "malloc"]
    if not main:
        fail("no malloc row for redis-server's main thread in %s" % out)
    row = main[0]
    named = [c for c in row["callers"] if c.get("symbol") != "(other callers)"]
    named.sort(key=lambda c: -c["calls"])
    top = ["%s %s+%s: %d" % (c.get("symbol"), c.get("module"), c.get("offset"), c["calls"])
           for c in row["callers"]]
    say("malloc in the main thread: %d calls; callers: %s" % (row["calls"], "; ".join(top[:20])))
    hot = named[0] if named else {}
    checks.true("the busiest caller of malloc is redis's own code", hot.get("module") == binary,
                "busiest named caller %s in %s with %s calls, redis's binary is %s"
                % (hot.get("symbol"), hot.get("module"), hot.get("calls"), binary))
    kept = sum(c["calls"] for c in named)
    checks.true("the callers named hold at least half of malloc's calls", 2 * kept >= row["calls"],
                "%d of %d calls at named callers" % (kept, row["calls"]))


def main():
    sb, (apiprof_run, _, what) = begin(
        "test_redis.py APIPROF_RUN RUNTIME " + "|".join(TESTS),
        [("redis-server", "redis-server"), ("redis-benchmark", "redis-tools")])
    checks = Checks("redis " + what)
    {"writes": check_writes, "malloc": check_malloc}[what](sb, apiprof_run, checks)
    sb.finish(checks)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
