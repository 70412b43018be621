#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top --listen and --textfile against real profiled programs
(issue 25).

    test_prom_scrape.py APIPROF_TOP SHIM TOPPROG

- topprog makes exactly N calls of tt_work: /metrics says
  apiprof_calls_total = N for its command, the histogram's _count and +Inf
  are N, and promtool check metrics passes on the scrape;
- with --per-process the series of its pid say N, with its title;
- the program ends and a second run of the same command makes N more: its
  command's counter goes to 2N and no scrape on the way ever saw a counter
  go down (the first run's final totals stay);
- --textfile: every read of DIR/apiprof.prom while it is rewritten is a
  whole text (every family, ending in a newline), promtool-clean, and no
  temporary is left behind.
Exit 77 = skipped (no private mount namespace).
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from promlib import (Exporter, Prog, check_histogram, fail, parse, poll,  # noqa: E402
                     private_shm, promtool_check, value)

N = 1234
FAMILIES = ("apiprof_up", "apiprof_processes", "apiprof_process_info",
            "apiprof_dropped_records_total", "apiprof_calls_total",
            "apiprof_time_seconds_total", "apiprof_latency_seconds", "apiprof_bytes_total",
            "apiprof_failures_total")
WORK = {"comm": "topprog", "function": "tt_work"}


class Watch:
    """Scrapes of one exporter, checking on each that no counter of the
    command went down since the previous one."""

    def __init__(self, ex):
        self.ex = ex
        self.prev = {}

    def scrape(self):
        text = self.ex.scrape()
        samples = parse(text)
        for name, labels, v in samples:
            if not (name.endswith("_total") or name.startswith("apiprof_latency_seconds")):
                continue
            key = (name, tuple(sorted(labels.items())))
            if v < self.prev.get(key, 0):
                fail("%s went down: %r -> %r" % (key, self.prev[key], v))
            self.prev[key] = v
        return text, samples

    def until(self, what, cond):
        def once():
            text, samples = self.scrape()
            return (text, samples) if cond(samples) else None
        return poll(what, once)


def counted(n):
    return lambda s: value(s, "apiprof_calls_total", **WORK) == n


def by_command(top, shim, prog):
    ex = Exporter(top, "-d", "0.05")
    w = Watch(ex)
    p = Prog(shim, prog, 1, N)
    text, s = w.until("tt_work = N", counted(N))
    promtool_check(text, "a scrape of a profiled program")
    check_histogram(s, N, **WORK)
    if value(s, "apiprof_processes", comm="topprog") != 1:
        fail("apiprof_processes{comm=topprog} is not 1:\n" + text)
    info = [l for n, l, _ in s if n == "apiprof_process_info"]
    if len(info) != 1 or info[0]["pid"] != str(p.pid) or "topprog" not in info[0]["title"] \
            or info[0]["mode"] != "shim" or info[0]["clock"] not in ("tsc", "monotonic"):
        fail("apiprof_process_info: %r" % info)
    if value(s, "apiprof_time_seconds_total", **WORK) <= 0:
        fail("no time for tt_work:\n" + text)
    print("ok: N calls, histogram _count N, promtool-clean")

    # The end of the first run, then a second one: 2N, never less on the way.
    p.end()
    w.until("the first run's end", lambda s: value(s, "apiprof_processes", comm="topprog") == 0
            and counted(N)(s))
    p2 = Prog(shim, prog, 1, N)
    _, s = w.until("tt_work = 2N", counted(2 * N))
    check_histogram(s, 2 * N, **WORK)
    p2.end()
    w.until("the second run's end", lambda s: value(s, "apiprof_processes", comm="topprog") == 0)
    _, s = w.scrape()
    if value(s, "apiprof_calls_total", **WORK) != 2 * N:
        fail("after both runs ended tt_work is %r, not 2N" % value(s, "apiprof_calls_total", **WORK))
    if [l for n, l, _ in s if n == "apiprof_process_info"]:
        fail("apiprof_process_info of an ended process")
    ex.stop()
    print("ok: a second run adds its calls, no counter ever went down")


def per_process(top, shim, prog):
    ex = Exporter(top, "-d", "0.05", "--per-process")
    p = Prog(shim, prog, 2, N)
    pid = str(p.pid)
    text, s = Watch(ex).until("the pid's tt_work = 2N",
                              lambda s: value(s, "apiprof_calls_total", pid=pid,
                                              function="tt_work") == 2 * N)
    promtool_check(text, "a --per-process scrape")
    labels = [l for n, l, _ in s if n == "apiprof_calls_total" and l["function"] == "tt_work"]
    if len(labels) != 1 or "topprog" not in labels[0]["title"] or labels[0]["comm"] != "topprog":
        fail("--per-process series: %r" % labels)
    check_histogram(s, 2 * N, pid=pid, function="tt_work")
    p.end()
    ex.stop()

    ex = Exporter(top, "-d", "0.05", "--per-thread")
    p = Prog(shim, prog, 2, N)
    text, s = Watch(ex).until("each worker's tt_work = N", lambda s: all(
        value(s, "apiprof_calls_total", thread="tworker-%d" % i, function="tt_work") == N
        for i in range(2)))
    promtool_check(text, "a --per-thread scrape")
    p.end()
    ex.stop()
    print("ok: --per-process: N for the pid, with its title; --per-thread: N per thread")


def whole(text):
    """A read of the textfile is whole: every family, a newline at the end."""
    last = "# TYPE apiprof_failures_total counter\n"  # the last family
    return text.endswith("\n") and all("# TYPE %s " % f in text for f in FAMILIES) \
        and last in text \
        and all(l.startswith("apiprof_failures_total") for l in text.split(last)[1].split("\n")[:-1])


def textfile(top, shim, prog):
    d = tempfile.mkdtemp(prefix="prom-textfile-")
    atexit.register(shutil.rmtree, d, True)
    path = os.path.join(d, "apiprof.prom")
    ex = subprocess.Popen([top, "--textfile", d, "--all-users", "-d", "0.01"],
                          stdout=subprocess.DEVNULL)
    try:
        p = Prog(shim, prog, 1, N)
        reads = 0

        def full():
            nonlocal reads
            try:
                with open(path) as f:
                    text = f.read()
            except FileNotFoundError:
                return None
            reads += 1
            if not text.startswith("# HELP apiprof_up") or (text and not text.endswith("\n")):
                fail("a partial textfile: %r" % text[-200:])
            return text if whole(text) and counted(N)(parse(text)) else None
        text = poll("the textfile's tt_work = N", full)
        # Many more reads while it is rewritten every 10 ms.
        for _ in range(300):
            with open(path) as f:
                t = f.read()
            if not whole(t):
                fail("a partial textfile: %r" % t[-200:])
        promtool_check(text, "the textfile")
        p.end()
    finally:
        ex.terminate()
        rc = ex.wait()
    if rc != 0:
        fail("apiprof-top --textfile exited with %r" % rc)
    left = sorted(os.listdir(d))
    if left != []:
        fail("the exporter stopped (SIGTERM), its textfile's directory holds %r, want nothing: "
             "node_exporter would serve stale numbers" % left)
    print("ok: the textfile is whole at every read (%d+300 reads), promtool-clean" % reads)
    print("ok: stopped by SIGTERM, the exporter took its textfile away")


def bad_args(top):
    """Each bad option: one line saying so, and no exporter."""
    d = tempfile.mkdtemp(prefix="prom-args-")
    atexit.register(shutil.rmtree, d, True)
    cases = [(["--listen", "127.0.0.1:99999"], 1, "apiprof-top: bad --listen 127.0.0.1:99999: "
               "want [ADDR:]PORT\n"),
             (["--listen", "localhost:80"], 1, "apiprof-top: bad --listen localhost:80: "),
             (["--textfile", os.path.join(d, "none")], 1,
              "apiprof-top: --textfile %s: No such file or directory\n" % os.path.join(d, "none")),
             (["--per-process"], 2, "apiprof-top: --per-process and --per-thread need --listen "
              "or --textfile\n")]
    for args, rc, err in cases:
        r = subprocess.run([top, "-n", "1", "--all-users"] + args, capture_output=True,
                           text=True, timeout=60)
        if r.returncode != rc or not r.stderr.startswith(err) or r.stderr.count("\n") != 1:
            fail("%r: status %r, stderr %r" % (args, r.returncode, r.stderr))
    print("ok: bad options get one line each")


def main():
    private_shm(__file__)
    top, shim, prog = sys.argv[1:4]
    bad_args(top)
    by_command(top, shim, prog)
    per_process(top, shim, prog)
    textfile(top, shim, prog)


if __name__ == "__main__":
    main()
