#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-report --diff (issue 39.2), suite 'report'.

usage: test_diff.py CASE APIPROF_REPORT LIBAPIPROF SHIM_DIFFLIB DIFFPROG

diffprog (difflib.h) runs under the runtime and difflib's shim, its exit
JSON in a directory of its own per run (APIPROF_OUTPUT=DIR/out-%p.json,
APIPROF_SHM=0: no shared memory).  Each pair is diffed with
`apiprof-report --diff BEFORE -- AFTER --text` (the directories as
inputs).  Kept in report-diff-CASE/ of the test's build directory. CASE:

- noise: 20 pairs of the same program: a pair flags a function when the
  diff says anything but "same" for it (slower, faster, fails more, not
  judged) or exits non-zero; at most 1 pair of 20 may.  Every pair's
  calls are the exact counts (2000 each);
- slower: 20 pairs, after with DIFFLIB_SLOW=dl_mid (dl_mid spins twice
  as long): in each, dl_mid and only dl_mid is SLOWER, the exit status
  is 1, and -o writes a page whose one marked row is dl_mid's.  In the
  first pair, with --absolute (no common factor), each function's A and
  p are those of Mann-Whitney computed here the long way (every call a
  value, ties their mean rank);
- whole: after with DIFFLIB_SLOW=all (the three spinning functions
  twice as long): the run's common factor is about 2 and nothing is
  flagged, exit status 0 (a diff cannot tell a slower machine from a
  program slower everywhere; it says the factor); with --absolute
  (factor 1) the three are SLOWER, exit status 1;
- fails: before is two processes (their calls summed: 4000 of each
  function, 400 failures of dl_try), after one with DIFFLIB_FAIL=5
  (dl_try fails every 5th call, not every 10th: 400 of 2000): a run of
  another length, judged per call: dl_try FAILS MORE, the first row,
  nothing else flagged, exit status 1;
- bad: no "--", no AFTER, a truncated file: exit status 2, one line on
  stderr, and no page nor temporary left in the directory.  A function
  named with markup is text in the page (escaped), never markup.
"""
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import fail, preload  # noqa: E402

CASE, REPORT, LIBAPIPROF, SHIM, PROG = [sys.argv[1]] + [os.path.abspath(a) for a in sys.argv[2:6]]
PAIRS = 20
HOSTILE = "</td><script>alert(1)</script>"
FUNCS = ["difflib.dl_big", "difflib.dl_mid", "difflib.dl_small", "difflib.dl_try"]


D = os.path.abspath("report-diff-" + CASE)
shutil.rmtree(D, True)
os.makedirs(D)


def run(name, extra=None, times=1):
    """diffprog run times into D/name/ (one process each); the directory."""
    out = os.path.join(D, name)
    os.makedirs(out)
    for _ in range(times):
        run_once(out, extra)
    if len(glob.glob(os.path.join(out, "out-*.json"))) != times:
        fail("%s: not %d exit JSON files" % (out, times))
    return out


def run_once(out, extra):
    env = dict(os.environ, LD_PRELOAD=preload(LIBAPIPROF, SHIM), APIPROF_SHM="0",
               LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(PROG)),
               APIPROF_OUTPUT=os.path.join(out, "out-%p.json"))
    env.pop("DIFFLIB_SLOW", None)
    env.pop("DIFFLIB_FAIL", None)
    env.update(extra or {})
    p = subprocess.run([PROG, "2000"], env=env, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail("diffprog exited %d: %s" % (p.returncode, p.stderr))


def diff(before, after, extra=()):
    p = subprocess.run([REPORT, "--diff", before, "--", after, "--text"] + list(extra),
                       capture_output=True, text=True, timeout=60)
    return p


def stats(p):
    """{function: (A, p)} from the text."""
    out = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if f and f[0] in FUNCS:
            m = re.search(r" (\d\.\d{3}) +(\S+) (same|SLOWER|faster|FAILS MORE)", line)
            out[f[0]] = (float(m.group(1)), float(m.group(2)))
    return out


def hist(d, name):
    with open(glob.glob(os.path.join(d, "out-*.json"))[0]) as f:
        doc = json.load(f)
    return [fn["hist"] for fn in doc["threads"][0]["functions"] if fn["name"] == name][0]


def mann_whitney(x, y):
    """A and the one-sided p of the calls in histograms x and y, each call
    a value ranked among all, a bucket's calls tied at their mean rank."""
    data = sorted([(b, 0) for b, c in enumerate(x) for _ in range(c)] +
                  [(b, 1) for b, c in enumerate(y) for _ in range(c)])
    n, i, ties, r2 = len(data), 0, 0.0, 0.0
    while i < n:
        j = i
        while j < n and data[j][0] == data[i][0]:
            j += 1
        r2 += (i + 1 + j) / 2 * sum(1 for k in range(i, j) if data[k][1] == 1)
        ties += (j - i) ** 3 - (j - i)
        i = j
    n1, n2 = sum(x), sum(y)
    u = r2 - n2 * (n2 + 1) / 2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    z = max(abs(u - n1 * n2 / 2) - 0.5, 0) / math.sqrt(var)
    return u / (n1 * n2), 0.5 * math.erfc(z / math.sqrt(2))


def check_stats(p, before, after):
    got = stats(p)
    for fn in FUNCS:
        a, pv = mann_whitney(hist(before, fn.split(".")[1]), hist(after, fn.split(".")[1]))
        ga, gp = got[fn]
        close_p = (gp == 0 and pv < 1e-300) or abs(gp - pv) <= 0.051 * pv
        if abs(ga - a) > 0.0005 or not close_p:
            fail("%s: A %.3f p %.1e, Mann-Whitney's are A %.4f p %.2e" % (fn, ga, gp, a, pv))


def verdicts(p):
    """{function: (calls before, calls after, verdict)} from the text."""
    rows = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if f and f[0] in FUNCS:
            m = re.search(r"(same|SLOWER|faster|FAILS MORE|new|gone|not judged)( \S+)?$", line)
            rows[f[0]] = (int(f[1]), int(f[2]), m.group(1) if m else "?")
    if sorted(rows) != sorted(FUNCS):
        fail("the diff's rows are %s, not %s:\n%s%s" % (sorted(rows), FUNCS, p.stdout, p.stderr))
    return rows


def case_noise():
    flagged = []
    for i in range(PAIRS):
        p = diff(run("b%d" % i), run("a%d" % i))
        rows = verdicts(p)
        for fn, (cb, ca, _) in rows.items():
            if cb != 2000 or ca != 2000:
                fail("pair %d: %s's calls %d and %d, not 2000" % (i, fn, cb, ca))
        bad = {fn: v for fn, (_, _, v) in rows.items() if v != "same"}
        if bad or p.returncode != 0:
            flagged.append((i, bad, p.returncode))
            print("pair %d flagged (exit %d): %s\n%s" % (i, p.returncode, bad, p.stdout))
    print("%d of %d pairs of the same program flagged something" % (len(flagged), PAIRS))
    if len(flagged) > 1:
        fail("%d of %d pairs of the same program flagged a function: %s" %
             (len(flagged), PAIRS, flagged))


def case_slower():
    for i in range(PAIRS):
        before, after = run("b%d" % i), run("a%d" % i, {"DIFFLIB_SLOW": "dl_mid"})
        page = os.path.join(D, "diff%d.html" % i)
        p = diff(before, after, ["-o", page])
        rows = verdicts(p)
        flagged = sorted(fn for fn, (_, _, v) in rows.items() if v != "same")
        if flagged != ["difflib.dl_mid"] or rows["difflib.dl_mid"][2] != "SLOWER":
            fail("pair %d: flagged %s, not dl_mid SLOWER alone:\n%s" % (i, flagged, p.stdout))
        if p.returncode != 1:
            fail("pair %d: exit %d, not 1: %s" % (i, p.returncode, p.stderr))
        if i == 0:
            check_stats(diff(before, after, ["--absolute"]), before, after)
        with open(page) as f:
            html = f.read()
        marked = re.findall(r'<tr class="bad"><td>([^<]*)</td>', html)
        if marked != ["difflib.dl_mid"] or "http" in html:
            fail("pair %d: the page marks %s, not dl_mid alone" % (i, marked))
    print("dl_mid 2x slower: flagged alone in %d of %d pairs" % (PAIRS, PAIRS))


def case_whole():
    before, after = run("b"), run("a", {"DIFFLIB_SLOW": "all"})
    p = diff(before, after)
    rows = verdicts(p)
    m = re.search(r"the run as a whole: p50 x(\d+\.\d+) ", p.stdout)
    flagged = sorted(fn for fn, (_, _, v) in rows.items() if v != "same")
    if not m or not 1.6 <= float(m.group(1)) <= 2.5 or flagged or p.returncode != 0:
        fail("everything 2x: flagged %s, exit %d (not none and 0), common factor %s "
             "(not about 2):\n%s" % (flagged, p.returncode, m and m.group(1), p.stdout))
    p = diff(before, after, ["--absolute"])
    rows = verdicts(p)
    flagged = sorted(fn for fn, (_, _, v) in rows.items() if v == "SLOWER")
    if flagged != FUNCS[:3] or p.returncode != 1 or "p50 x1.00 " not in p.stdout:
        fail("--absolute: SLOWER %s, exit %d (not %s and 1):\n%s" %
             (flagged, p.returncode, FUNCS[:3], p.stdout))


def case_fails():
    before, after = run("b", times=2), run("a", {"DIFFLIB_FAIL": "5"})
    for d, want in ((before, 400), (after, 400)):
        got = 0
        for path in glob.glob(os.path.join(d, "out-*.json")):
            with open(path) as f:
                doc = json.load(f)
            got += sum(fn.get("failures", 0) for t in doc["threads"] for fn in t["functions"]
                       if fn["name"] == "dl_try")
        if got != want:
            fail("%s: dl_try failed %d times, not %d" % (d, got, want))
    p = diff(before, after)
    rows = verdicts(p)
    for fn, (cb, ca, _) in rows.items():
        if cb != 4000 or ca != 2000:
            fail("%s's calls %d and %d, not 4000 (two processes) and 2000" % (fn, cb, ca))
    first = [line for line in p.stdout.splitlines() if line.startswith("difflib.")][0]
    if not re.match(r"difflib\.dl_try .* FAILS MORE 10\.0%->20\.0%$", first):
        fail("the regression is not the first row, with 10.0% and 20.0%:\n" + p.stdout)
    flagged = sorted(fn for fn, (_, _, v) in rows.items() if v != "same")
    if flagged != ["difflib.dl_try"] or rows["difflib.dl_try"][2] != "FAILS MORE":
        fail("flagged %s, not dl_try FAILS MORE alone:\n%s" % (flagged, p.stdout))
    if p.returncode != 1:
        fail("exit %d, not 1: %s" % (p.returncode, p.stderr))


def expect_bad(args, what):
    page = os.path.join(D, "out", "diff.html")
    p = subprocess.run([REPORT] + args + ["-o", page], capture_output=True, text=True,
                       timeout=60)
    lines = p.stderr.splitlines()
    if p.returncode != 2 or len(lines) != 1 or not re.search(what, lines[0]):
        fail("%s: exit %d (not 2), stderr %r (not one line matching %r)" %
             (args, p.returncode, p.stderr, what))
    if os.listdir(os.path.join(D, "out")):
        fail("%s: left %s" % (args, os.listdir(os.path.join(D, "out"))))


def case_bad():
    os.makedirs(os.path.join(D, "out"))
    before = run("b")
    good = glob.glob(os.path.join(before, "out-*.json"))[0]
    cut = os.path.join(D, "cut.json")
    with open(good) as f, open(cut, "w") as g:
        g.write(f.read()[:300])
    expect_bad(["--diff", before, before], "usage")
    expect_bad(["--diff", before, "--"], "usage")
    expect_bad(["--diff", before, "--", cut], re.escape(cut))
    # A name that would be markup: text in the page.
    hostile = os.path.join(D, "hostile")
    os.makedirs(hostile)
    with open(good) as f:
        doc = json.load(f)
    doc["threads"][0]["functions"][0]["name"] = HOSTILE
    with open(os.path.join(hostile, "out-1.json"), "w") as f:
        json.dump(doc, f)
    page = os.path.join(D, "hostile.html")
    p = subprocess.run([REPORT, "--diff", before, "--", hostile, "-o", page],
                       capture_output=True, text=True, timeout=60)
    with open(page) as f:
        html = f.read()
    if p.returncode not in (0, 1) or "<script" in html or "&lt;/td&gt;&lt;script&gt;" not in html:
        fail("a function named %r: exit %d, the page holds it raw or not at all" %
             (HOSTILE, p.returncode))


{"noise": case_noise, "slower": case_slower, "whole": case_whole, "fails": case_fails,
 "bad": case_bad}[CASE]()
print("ok")
