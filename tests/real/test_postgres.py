# SPDX-License-Identifier: MIT
"""PostgreSQL under `pgbench -C` (a new backend process per transaction),
profiled by apiprof-run -s net, with apiprof-top's exporter watching
(issue 35.4 and 35.9).

  test_postgres.py APIPROF_RUN APIPROF_TOP RUNTIME NET_SHIM

A cluster of the test's own (initdb into the scratch tmpfs, as a throwaway
user U: postgres refuses root), on a Unix socket only, is started as U by
setpriv under apiprof-run, all of it under `strace -f -c` (the witness:
every send(2) of every process is a sendto system call). Root's exporter
(`apiprof-top --textfile DIR --all-users`) runs from before the start to
after the end. pgbench -C runs TRANSACTIONS transactions, one backend
each. Then:

- send calls in the exit JSON of every process = strace's sendto count;
- the exporter's apiprof_calls_total{comm="postgres",function="send"},
  read after the server ended and the exporter refreshed again, = strace's
  count too: every backend counted, however short its life (on main
  before issue 35.4, backends that began and ended between two reads
  were never seen).

U runs copies of the runtime and the shim (a checkout may lie where U
cannot reach, /root). Takes about 7 s (2 cores): strace -f slows each
backend's start.
"""
import glob
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reallib import (Checks, begin, build_tree_copy, count_table, fail, load, poll,  # noqa: E402
                     run, say, total)

TRANSACTIONS = 60  # pgbench -C -c 2 -t 30
SERIES = re.compile(r'^apiprof_calls_total\{comm="postgres",api="net",function="send"\} (\d+)$',
                    re.M)


def pg_bin():
    """The newest installed server's bin directory (Debian: postgresql-NN)."""
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                  key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return os.path.dirname(dirs[-1]) if dirs else None


class Textfile:
    """The exporter's DIR/apiprof.prom, and its rewrites."""

    def __init__(self, path):
        self.path = path
        self.seen = None

    def stamp(self):
        try:
            st = os.stat(self.path)
            return (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            return None

    def rewritten(self):
        s = self.stamp()
        if s is not None and s != self.seen:
            self.seen = s
            return True
        return False

    def text(self):
        with open(self.path) as f:
            return f.read()


def main():
    sb, (apiprof_run, top, runtime, shim) = begin(
        "test_postgres.py APIPROF_RUN APIPROF_TOP RUNTIME NET_SHIM",
        [("pgbench", "postgresql-client-common"), ("strace", "strace"), ("setpriv", "util-linux")],
        users=1)
    pgbin = pg_bin()
    if not pgbin:
        fail("no /usr/lib/postgresql/*/bin/postgres (Debian package postgresql, which "
             "./quickstart installs)")
    user = sb.users[0]
    asuser = ["setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "--"]
    lib = build_tree_copy(sb, [runtime, shim])
    os.environ.update(APIPROF_SHIMDIR=lib, APIPROF_RUNTIME=os.path.join(lib, "libapiprof.so.0"),
                      LD_LIBRARY_PATH=lib, PGUSER="postgres", PGDATABASE="postgres",
                      LC_ALL="C")
    data = sb.mkdir("data", 0o700, user)
    sock = sb.mkdir("sock", 0o755, user)
    outdir = sb.mkdir("out", 0o755, user)
    prom = sb.mkdir("prom", 0o755)
    os.environ["PGHOST"] = sock
    run(asuser + [pgbin + "/initdb", "-N", "-A", "trust", "-U", "postgres", "-D", data],
        cwd=sb.path())

    exporter = sb.start([top, "--textfile", prom, "--all-users", "-d", "0.2"], "top.log")
    tf = Textfile(os.path.join(prom, "apiprof.prom"))
    poll("the exporter's first textfile", tf.rewritten)
    st = sb.path("strace.txt")
    server = sb.start(["strace", "-f", "-c", "-o", st, "-e", "trace=sendto,sendmsg",
                       apiprof_run, "-s", "net", "-o", os.path.join(outdir, "%p.json"), "--"]
                      + asuser + [pgbin + "/postgres", "-D", data, "-k", sock,
                                  "-c", "listen_addresses=", "-c", "fsync=off",
                                  "-c", "max_connections=10"],
                      "postgres.log", cwd=sb.path())
    sb.ready(server, "postgres (pg_isready)",
             lambda: subprocess.run([pgbin + "/pg_isready", "-q"]).returncode == 0)
    run(["pgbench", "-i", "-q", "-I", "dtg"])
    p = run(["pgbench", "-C", "-n", "-c", "2", "-t", str(TRANSACTIONS // 2)])
    done = re.search(r"number of transactions actually processed: (\d+)/", p.stdout)
    if not done or int(done.group(1)) != TRANSACTIONS:
        fail("pgbench: %s" % p.stdout)
    with open(os.path.join(data, "postmaster.pid")) as f:
        postmaster = int(f.readline())
    os.kill(postmaster, signal.SIGINT)  # fast shutdown
    sb.wait_end(server, "the server", "SIGINT")
    checks = Checks("postgres pgbench -C")
    checks.equal("exit status (strace, apiprof-run, postgres)", server.returncode, "bare", 0)
    said = [line.strip() for line in sb.log(server).splitlines()
            if line.startswith("apiprof: ") or "ld.so" in line or "preloaded" in line]
    checks.equal("the loader's and the runtime's warnings", said, "bare", [])
    # Two rewrites after the end: the exporter has read since every process ended.
    for i in range(2):
        poll("the exporter's textfile after the server's end", tf.rewritten)
    text = tf.text()
    sb.stop(exporter, what="apiprof-top --textfile")

    sends = count_table(st).get("sendto", 0)
    docs = [load(f) for f in glob.glob(os.path.join(outdir, "*.json"))]
    say("%d transactions, %d processes wrote a profile; strace: %d sendto" % (
        TRANSACTIONS, len(docs), sends))
    checks.true("a process per connection", len(docs) > TRANSACTIONS,
                "%d profiles for %d transactions" % (len(docs), TRANSACTIONS))
    checks.equal("send calls in the exit JSONs", total(docs, "send"), "strace's sendto", sends)
    m = SERIES.search(text)
    checks.equal("the exporter's send calls (postgres)", int(m.group(1)) if m else None,
                 "strace's sendto", sends)
    sb.finish(checks)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
