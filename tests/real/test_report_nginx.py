# SPDX-License-Identifier: MIT
"""apiprof-report (issue 39) on a real run: Debian's nginx (master and 2
workers that drop privileges) under ab, profiled by apiprof-run -s net
with -o OUT/%p.json, as test_nginx.py runs it.  Then from all the files,
by the pattern:

- the HTML page, opened by headless Chromium: nginx's sums over its
  processes (the command's table) give sendfile the access log's body
  bytes, and each function the calls of the JSON files added up; no
  console message;
- the pprof profile: go tool pprof -top -sample_index=calls gives each
  function the calls of the files' tree nodes, exactly, and sendfile's
  equal the JSON's sendfile calls (its tree is complete).

The page, the profile and a screenshot are kept in report-real-nginx/ of
the test's build directory.

  test_report_nginx.py APIPROF_RUN RUNTIME APIPROF_REPORT SHARE
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reallib import Checks, begin, fail, load, run, say, total  # noqa: E402
from test_nginx import LOAD, access_log, start  # noqa: E402

KEEP = os.path.abspath("report-real-nginx")


def serve(sb, apiprof_run):
    d, outdir, server, base = start(sb, apiprof_run)
    for name, n, c in LOAD:
        p = run(["ab", "-q", "-n", str(n), "-c", str(c), base + name])
        if "Failed requests:        0" not in p.stdout or "Non-2xx" in p.stdout:
            fail("ab %s: %s" % (name, p.stdout))
    if sb.stop(server, signal.SIGQUIT, "nginx") != 0:
        fail("nginx exited non-zero on SIGQUIT")
    return outdir, access_log(d + "/access.log")


def chromium(sb, page, shot):
    exe = shutil.which("chromium")
    if exe is None:
        fail("no chromium (Debian package chromium)")
    args = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr",
            "--v=0", "--user-data-dir=" + sb.path("chromium")]
    p = subprocess.run(args + ["--dump-dom", "file://" + page], capture_output=True, text=True,
                       timeout=120)
    console = [ln for ln in p.stderr.splitlines() if "CONSOLE" in ln]
    if p.returncode != 0 or console or 'data-ready="1"' not in p.stdout:
        fail("chromium on the page: exit %d, console %s" % (p.returncode, console))
    subprocess.run(args + ["--window-size=1280,2400", "--screenshot=" + shot, "file://" + page],
                   capture_output=True, timeout=120)
    return p.stdout


def group_rows(dom):
    """The command's table: function -> [calls, total, avg, bytes, failures]."""
    t = dom[dom.find('<table class="sortable group"'):]
    t = t[:t.find("</table>")]
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", t):
        cells = re.findall(r'data-v="([^"]*)"', tr)
        if cells:
            rows[cells[0]] = [int(c) if c else None for c in cells[1:]]
    return rows


def pprof_calls(sb, prof):
    exe = shutil.which("go")
    if exe is None:
        fail("no go (Debian packages golang-go, golang-1.19-go: ./quickstart installs them)")
    env = dict(os.environ, HOME=sb.path(), GOCACHE=sb.path("gocache"))
    p = subprocess.run([exe, "tool", "pprof", "-symbolize=none", "-top", "-nodefraction=0",
                        "-nodecount=1000000", "-sample_index=calls", prof], env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("go tool pprof: %s" % p.stderr)
    return {m.group(2): int(m.group(1)) for m in
            re.finditer(r"^\s*(\d+)\s+\S+%\s+\S+%\s+\d+\s+\S+%\s+(\S+)$", p.stdout, re.M)
            if int(m.group(1))}


def main():
    sb, (apiprof_run, _, report, share) = begin(
            "test_report_nginx.py APIPROF_RUN RUNTIME APIPROF_REPORT SHARE",
            [("nginx", "nginx"), ("ab", "apache2-utils")], users=1, netns=True)
    outdir, (requests, body) = serve(sb, apiprof_run)
    docs = [load(f) for f in sorted(glob.glob(os.path.join(outdir, "*.json")))]
    say("%d exit JSON files; access log: %d requests, %d body bytes" % (len(docs), requests, body))
    page, prof = sb.path("report.html"), sb.path("report.pb.gz")
    env = dict(os.environ, APIPROF_REPORT_SHARE=share)
    for args in ([page], ["--pprof", prof]):
        p = subprocess.run([report] + args + [os.path.join(outdir, "%p.json")], env=env,
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail("apiprof-report %s: %s" % (args, p.stderr))
    shutil.rmtree(KEEP, True)
    os.makedirs(KEEP)
    dom = chromium(sb, page, os.path.join(KEEP, "report.png"))
    for f in (page, prof):
        shutil.copy(f, KEEP)
    checks = Checks("apiprof-report on nginx")
    rows = group_rows(dom)
    sums = {}
    for d in docs:
        for t in d["threads"]:
            for f in t["functions"]:
                k = f["api"] + "." + f["name"]
                sums[k] = sums.get(k, 0) + f["calls"]
    checks.equal("the page's nginx sums: calls per function", {k: v[0] for k, v in rows.items()},
                 "the JSON files'", sums)
    checks.equal("the page's nginx sums: sendfile bytes", rows.get("net.sendfile", [None] * 4)[3],
                 "the access log's body bytes", body)
    nodes = {}
    for d in docs:
        for t in d["threads"]:
            for n in t["tree"]:
                if n["id"]:
                    nodes[n["function"]] = nodes.get(n["function"], 0) + n["calls"]
    got = pprof_calls(sb, prof)
    checks.equal("go tool pprof -top calls per function", got, "the JSON's tree nodes'", nodes)
    checks.equal("go tool pprof: sendfile calls", got.get("net.sendfile"),
                 "the JSON's sendfile calls", total(docs, "sendfile"))
    say("sendfile: %d calls, %d bytes; %d functions in pprof" %
        (got.get("net.sendfile", 0), rows.get("net.sendfile", [0] * 4)[3] or 0, len(got)))
    sb.finish(checks)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
