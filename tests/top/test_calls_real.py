#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call sites and the call tree in apiprof-top, on a real program (issue 23).

    test_calls_real.py APIPROF_TOP SHIM_TOPLIB SHIM_TREELIB SITEPROG

siteprog calls toplib.tt_work 1000, 2000 and 3000 times from site_a,
site_b and site_c, and treelib.tr_outer 10 times, each calling tt_work 5
times; then it waits on its stdin.  Checks, in full timing (exact counts):
  --folded: the lines ending in a function add up to its calls, and the
            sites' lines are those counts;
  --json:   tt_work's callers (resolved names, counts, the parent
            treelib.tr_outer, each one's p50_ns <= p99_ns), tr_outer's
            child, self <= total; sampled
            (APIPROF_SAMPLE=8): callers marked estimated, adding up;
  live (tmux): Enter on the tt_work row shows its three callers with
            their counts and p50/p99 (and the calls inside tr_outer), and on
            an 80-column screen still each caller's numbers and its whole
            name, and hides them again; T shows tt_work indented under tr_outer.

"""
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import preload  # noqa: E402
from test_live_tmux import PROMPT, Tmux, fail, shell_ready  # noqa: E402

SITES = {"site_a": 1000, "site_b": 2000, "site_c": 3000}
INNER = 10 * 5  # tr_outer's calls of tt_work
CALLS = sum(SITES.values()) + INNER


def folded(top, pid):
    out = subprocess.run([top, "--folded", "-p", str(pid)], capture_output=True, text=True)
    if out.returncode != 0:
        fail("--folded exited %d: %s" % (out.returncode, out.stderr))
    ends, lines = Counter(), {}
    for line in out.stdout.splitlines():
        m = re.fullmatch(r"(\S.*) (\d+)", line)
        if not m:
            fail("not a folded line: %r" % line, out.stdout)
        ends[m.group(1).split(";")[-1]] += int(m.group(2))
        lines[m.group(1)] = lines.get(m.group(1), 0) + int(m.group(2))
    if ends["toplib.tt_work"] != CALLS or ends["treelib.tr_outer"] != 10:
        fail("folded counts do not add up: %r" % dict(ends), out.stdout)
    for site, n in SITES.items():
        if lines.get(site + ";toplib.tt_work") != n:
            fail("no line %s;toplib.tt_work %d" % (site, n), out.stdout)
    if lines.get("main;treelib.tr_outer;toplib.tt_work") != INNER:
        fail("tt_work under tr_outer: not %d" % INNER, out.stdout)


def functions(doc, pid):
    for p in doc["processes"]:
        if p["pid"] == pid:
            return {f["name"]: f for t in p["threads"] for f in t["functions"]}
    fail("process %d not in --json" % pid)


def check_json(top, pid):
    out = subprocess.run([top, "--json", "-n", "1", "-p", str(pid)], capture_output=True,
                         text=True, check=True).stdout
    f = functions(json.loads(out), pid)
    work, outer = f["tt_work"], f["tr_outer"]
    got = {c["symbol"]: c for c in work["callers"]}
    for site, n in SITES.items():
        c = got.get(site)
        if not c or c["calls"] != n or c["estimated"] or not c["file"].endswith("siteprog.c"):
            fail("caller %s: %r" % (site, c), out)
    if not all(c["p50_ns"] is not None and 0 <= c["p50_ns"] <= c["p99_ns"]
               for c in work["callers"]):
        fail("callers' p50_ns/p99_ns: %r" % work["callers"], out)
    inner = [c for c in work["callers"] if c.get("parent") == "treelib.tr_outer"]
    if sum(c["calls"] for c in inner) != INNER or not all("module" in c for c in inner):
        fail("callers inside tr_outer: %r" % inner, out)
    kids = outer["children"]
    if len(kids) != 1 or kids[0]["name"] != "tt_work" or kids[0]["calls"] != INNER:
        fail("tr_outer's children: %r" % kids, out)
    if not 0 <= outer["self_ns"] <= outer["total_ns"] or work["self_ns"] != work["total_ns"]:
        fail("self times: %r %r" % (outer["self_ns"], work["self_ns"]), out)


def check_sampled(top, prog, shim, shim_tree):
    """APIPROF_SAMPLE=8: the sites' calls are estimates, marked, and add up
    to the function's calls, which are exact."""
    env = dict(os.environ, LD_PRELOAD=preload(shim, shim_tree), APIPROF_INTERVAL_MS="50",
               APIPROF_SAMPLE="8")
    p = subprocess.Popen([prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                         text=True)
    try:
        if not p.stdout.readline().startswith("ready"):
            fail("sampled siteprog did not get ready")
        out = subprocess.run([top, "--json", "-n", "1", "-p", str(p.pid)], capture_output=True,
                             text=True, check=True).stdout
        work = functions(json.loads(out), p.pid)["tt_work"]
        callers = work["callers"]
        if work["calls"] != CALLS or sum(c["calls"] for c in callers) != CALLS:
            fail("sampled: calls %d, callers' %d" % (work["calls"],
                                                      sum(c["calls"] for c in callers)), out)
        if not any(c["estimated"] for c in callers) or not work["estimated"]:
            fail("sampled: no caller marked estimated", out)
    finally:
        p.stdin.close()
        p.wait()


# A caller line: calls, calls/s, share, p50, p99 in narrow columns, then
# where it was called from, last (top_callview.c).
TIME = r"~?[0-9.]+\S*s"
CALLER = re.compile(r"^\s+<-\s+(~?\d\S*)\s+(~?[0-9.]+\S*)\s+([0-9.]+%%)\s+(%s)\s+(%s)  (\S.*)$"
                    % (TIME, TIME))


def callers(s):
    """The caller lines of the screen, as (calls, where) with both p50 and
    p99 shown, or None when a line has not all its numbers."""
    rows = []
    for l in s.splitlines():
        if "<-" not in l:
            continue
        m = CALLER.match(l.rstrip())
        if not m:
            return None
        rows.append((m.group(1), m.group(6)))
    return rows


def callers_shown(s):
    """The three callers, each with its count and its p50 and p99, below
    the tt_work row, and the calls made inside tr_outer."""
    rows = callers(s)
    return rows is not None and len(rows) == 4 and any(
        n == str(INNER) and w.endswith(" in treelib.tr_outer") for n, w in rows) and all(
        any(n == str(k) and re.match(r"%s \(siteprog\.c:\d+\)$" % site, w) for n, w in rows)
        for site, k in SITES.items())


def names_at_80(s):
    """On an 80-column screen each caller's line has its count and its
    resolved name whole ("site_a (siteprog.c:"), and still its numbers."""
    lines = [l for l in s.splitlines() if "<-" in l]
    return all(len(l) <= 80 for l in s.splitlines()) and all(
        any(re.match(r"\s+<-\s+%d\s.*\s%s \(siteprog\.c:" % (k, site), l) for l in lines)
        for site, k in SITES.items()) and callers(s) is not None


def indented(s):
    """toplib.tt_work two columns right of treelib.tr_outer, on the next line."""
    lines = s.splitlines()
    for i, l in enumerate(lines[:-1]):
        if l.endswith("treelib.tr_outer") and lines[i + 1].rstrip().endswith("toplib.tt_work"):
            return lines[i + 1].index("toplib.tt_work") == l.index("treelib.tr_outer") + 2
    return False


def live(top, pid):
    t = Tmux()
    try:
        shell_ready(t)
        t.keys("%s -d 0.1 -p %d -f tt_work" % (top, pid), "Enter")
        t.wait("the tt_work row", lambda s: re.search(r"tt_work .* %d " % CALLS, s))
        t.keys("Enter")
        t.resize(80, 50)
        t.wait("the callers' names on 80 columns", names_at_80)
        t.resize(200, 50)
        t.wait("its three callers", callers_shown)
        t.keys("Enter")
        t.wait("callers hidden", lambda s: "<-" not in s and "tt_work" in s)
        t.keys("T")
        t.wait("the call tree", indented)
        t.keys("q")
        t.wait("prompt after q", lambda s: "CALLS" not in s and
               s.rstrip().splitlines()[-1].rstrip().endswith(PROMPT))
    finally:
        t.kill()


def main():
    top, shim, shim_tree, prog = (os.path.abspath(a) for a in sys.argv[1:5])
    env = dict(os.environ, LD_PRELOAD=preload(shim, shim_tree), APIPROF_INTERVAL_MS="50")
    env.pop("APIPROF_SAMPLE", None)
    p = subprocess.Popen([prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                         text=True)
    try:
        if not p.stdout.readline().startswith("ready"):
            fail("siteprog did not get ready")
        folded(top, p.pid)
        check_json(top, p.pid)
        check_sampled(top, prog, shim, shim_tree)
        if not shutil.which("tmux"):
            fail("tmux is missing (Debian package tmux, which ./quickstart installs)")
        live(top, p.pid)
    finally:
        p.stdin.close()
        p.wait()
    print("ok: --folded adds up, --json callers/children, Enter shows 3 callers, T the tree")


if __name__ == "__main__":
    main()
