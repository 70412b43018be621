#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-report (issue 39), suite 'report'.

usage: test_report.py CASE APIPROF_REPORT SHARE LIBAPIPROF SHIM_MALLOC
                      SHIM_TREER SHIM_TREEA SHIM_TREEB TREEPROG

The inputs are real exit JSON files: treeprog (tests/tree) run twice
under the runtime and the tree shims, APIPROF_OUTPUT=DIR/out-%p.json (two
processes of one command; the second in a thread of its own).  The
report reads them by the pattern.  Its output is kept in
report-CASE/ of the test's build directory. CASE:

- html: one thread is named "</script>...<!--" (it must stay text);
  headless Chromium (network off: the page must need none) opens
  the page on each thread (#t=PID:TID) and dumps its DOM: every tree
  node of the JSON is a row with its exact calls, total and self; each
  function a row of the table with its exact calls; the command's sums
  are the two processes' calls added; each api's "time spent in" line
  (with the thread's wall_ns, new in the exit JSON) its functions'
  calls added; the page set data-ready and shows
  no error, Chromium logged no console message (--enable-logging=stderr
  --v=0: a page's console.error and uncaught errors appear as
  "CONSOLE" lines); the file has no http(s) src or href; the exit JSON has the ppid and
  wall_ns the page's process tree uses.  The icicle's
  zoom: opened on #...&z=NODE (what a click on a node sets), the SVG is
  zoomed on NODE, drawn full width (1000), and only NODE's subtree is
  drawn.  And a real click, driven through DevTools over
  --remote-debugging-pipe (cdp.py: Input.dispatchMouseEvent), on a
  node's box zooms on it, on the top bar out to its parent, with no
  console message or exception (Runtime events).  A screenshot is kept
  (report-html/report.png);
- pprof: go tool pprof -raw reads the profile; its samples' sums per
  function (calls, time) equal the JSON's nodes', and -top's total equals
  the sum of the roots' total_ns;
- bad: a truncated file, hostile values (a count of 2^62, a negative
  count, a string for a count, a node whose parent is not before it,
  node ids out of order, a path of 600 calls), a
  file of another version: exit 1, one line naming the file and what is
  wrong (jansson's line and column for the truncated one), and no output
  file nor temporary left in the directory.  A write that fails half
  way (RLIMIT_FSIZE): one line, the report there before left as it was.
"""
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import fail, preload  # noqa: E402

CASE, REPORT, SHARE, LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A, SHIM_B, PROG = sys.argv[1:10]


def scratch():
    d = os.path.abspath("report-" + CASE)
    shutil.rmtree(d, True)
    os.makedirs(os.path.join(d, "in"))
    return d


def make_inputs(d):
    """treeprog 3 and treeprog 2 thread: two processes, their exit JSON."""
    env = dict(os.environ, LD_PRELOAD=preload(LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A, SHIM_B),
               LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(PROG)), APIPROF_SHM="0",
               APIPROF_OUTPUT=os.path.join(d, "in", "out-%p.json"))
    for args in (["3"], ["2", "thread"]):
        p = subprocess.run([PROG] + args, env=env, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            fail("treeprog %s exited %d: %s" % (args, p.returncode, p.stderr))
    docs = []
    for f in sorted(glob.glob(os.path.join(d, "in", "out-*.json"))):
        with open(f) as fh:
            docs.append(json.load(fh))
    if len(docs) != 2:
        fail("expected 2 exit JSON files, got %d" % len(docs))
    for doc in docs:
        if doc.get("ppid") != os.getpid() or not doc.get("wall_ns"):
            fail("exit JSON without its ppid (%s, not %d) or wall_ns (%s)" %
                 (doc.get("ppid"), os.getpid(), doc.get("wall_ns")))
    return docs


HOSTILE = "</script><script>document.title='owned'</script><!-- x"


def hostile_name(d, docs):
    """The second process's thread named with what would end the data's
    script block if it were written raw."""
    path = sorted(glob.glob(os.path.join(d, "in", "out-*.json")))[1]
    docs[1]["threads"][0]["name"] = HOSTILE
    with open(path, "w") as f:
        json.dump(docs[1], f)


def report(args, expect=0):
    env = dict(os.environ, APIPROF_REPORT_SHARE=SHARE)
    p = subprocess.run([REPORT] + args, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != expect:
        fail("apiprof-report %s exited %d (not %d): %s" % (args, p.returncode, expect, p.stderr))
    return p


def chromium(d, url, shot=None):
    exe = shutil.which("chromium")
    if exe is None:
        fail("no chromium (Debian package chromium: ./quickstart installs it)")
    args = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir=" +
            os.path.join(d, "chromium"), "--enable-logging=stderr", "--v=0",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]
    if shot:
        args += ["--window-size=1280,2400", "--screenshot=" + shot]
    else:
        args += ["--dump-dom"]
    p = subprocess.run(args + [url], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("chromium exited %d: %s" % (p.returncode, p.stderr[-2000:]))
    console = [ln for ln in p.stderr.splitlines() if "CONSOLE" in ln]
    if console:
        fail("console messages on %s: %s" % (url, console))
    return p.stdout


def attrs(tag):
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


def check_thread(dom, doc, th, where):
    if 'data-ready="1"' not in dom:
        fail("%s: the page did not finish (no data-ready)" % where)
    if not re.search(r'<div id="errors" hidden', dom):
        fail("%s: the page shows an error: %s" % (where, dom[dom.find('id="errors"'):][:300]))
    rows = {}
    for tag in re.findall(r"<li data-node=[^>]*>", dom):
        a = attrs(tag)
        rows[int(a["data-node"])] = (int(a["data-calls"]), int(a["data-total"]),
                                     int(a["data-self"]))
    want = {n["id"]: (n["calls"], n["total_ns"], n["self_ns"]) for n in th["tree"] if n["id"]}
    if not want:
        fail("%s: the JSON has no tree" % where)
    if rows != want:
        fail("%s: the tree's rows %s, the JSON's nodes %s" % (where, rows, want))
    table = dom[dom.find('<table id="funcs"'):]
    table = table[:table.find("</table>")]
    got = {}
    for name, calls in re.findall(r'<td class="name[^"]*" data-v="([^"]*)">[^<]*</td>'
                                  r'<td class="[^"]*" data-v="(\d+)"', table):
        got[name] = int(calls)
    want = {f["api"] + "." + f["name"]: f["calls"] for f in th["functions"]}
    if got != want:
        fail("%s: the functions' rows %s, the JSON's %s" % (where, got, want))
    lines = {a["data-api"]: int(a["data-calls"])
             for a in map(attrs, re.findall(r'<div class="preshing"[^>]*>', dom))}
    want = {}
    for f in th["functions"]:
        want[f["api"]] = want.get(f["api"], 0) + f["calls"]
    if lines != want or not th.get("wall_ns"):
        fail("%s: Preshing's lines %s (wall_ns %s), the JSON's %s" %
             (where, lines, th.get("wall_ns"), want))
    print("ok %s: %d tree rows, %d function rows, %d api lines, exact" %
          (where, len(rows), len(got), len(lines)))


def check_zoom(d, page, doc, th):
    """The icicle zoomed on a node with children: it spans the width, and
    the boxes drawn are its subtree's."""
    kids = {}
    for n in th["tree"]:
        kids.setdefault(n["parent"], []).append(n["id"])
    node = next(n for n in th["tree"] if n["id"] and kids.get(n["id"]) and n["parent"])
    sub, todo = set(), [node["id"]]
    while todo:
        i = todo.pop()
        sub.add(i)
        todo += kids.get(i, [])
    url = "file://%s#t=%d:%d&z=%d" % (page, doc["pid"], th["tid"], node["id"])
    dom = chromium(d, url)
    svg = dom[dom.find('<div id="flame">'):]
    svg = svg[:svg.find("</svg>")]
    m = re.search(r'<svg[^>]*data-zoom="(\d*)"', svg)
    if not m or m.group(1) != str(node["id"]):
        fail("zoom on node %d: the svg says %s" % (node["id"], m and m.group(1)))
    drawn = {int(a["data-node"]): float(a["data-width"])
             for a in map(attrs, re.findall(r"<g data-node=[^>]*>", svg))}
    if drawn.get(node["id"]) != 1000.0:
        fail("zoom on node %d: its box is %s wide, not 1000" % (node["id"], drawn.get(node["id"])))
    if not set(drawn) <= sub or node["id"] not in drawn:
        fail("zoom on node %d: boxes %s outside its subtree %s" % (node["id"], drawn, sub))
    print("ok zoom on node %d (%s): full width, %d boxes of its subtree" %
          (node["id"], node["function"], len(drawn)))


CLICK_TARGET = """(() => {
  const g = document.querySelector('#flame g[data-node="%d"]');
  g.scrollIntoView();
  const b = g.querySelector("rect").getBoundingClientRect();
  return [b.x + Math.min(b.width / 2, 20), b.y + b.height / 2,
          Number(document.body.dataset.shown)];
})()"""
# Resolves once the page has drawn again after a click (data-shown counts up).
SHOWN_AFTER = """new Promise(done => {
  const check = () => Number(document.body.dataset.shown) > %d &&
                      done(document.querySelector("#flame svg").dataset.zoom);
  if (!check())
    new MutationObserver(check).observe(document.body, {attributes: true});
})"""


def check_click(d, page, doc, th):
    """A real click (DevTools' Input.dispatchMouseEvent) on a node's box of
    the icicle zooms on it; a click on the top bar zooms out."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cdp
    node = next(n for n in th["tree"] if n["id"] and n["parent"])
    p = cdp.Page(shutil.which("chromium"), os.path.join(d, "chromium-cdp"))
    try:
        p.open("file://%s#t=%d:%d" % (page, doc["pid"], th["tid"]))
        x, y, shown = p.eval(CLICK_TARGET % node["id"])
        p.click(x, y)
        # The click's handler has run when the mouse event is answered: it
        # set the hash (or did nothing), and hashchange will draw again.
        if "z=%d" % node["id"] not in p.eval("location.hash"):
            fail("a click on node %d's box: the hash is %r" % (node["id"], p.eval("location.hash")))
        zoom = p.eval_async(SHOWN_AFTER % shown)
        if zoom != str(node["id"]):
            fail("a click on node %d's box: the icicle is zoomed on %r" % (node["id"], zoom))
        x, y, shown = p.eval(CLICK_TARGET.replace('g[data-node="%d"]', "g:not([data-node])"))
        p.click(x, y)
        if "z=%d" % node["parent"] not in p.eval("location.hash"):
            fail("a click on the top bar: the hash is %r" % p.eval("location.hash"))
        out = p.eval_async(SHOWN_AFTER % shown)
        if out != str(node["parent"]):
            fail("a click on the top bar zoomed on %r, not node %d's parent %d" %
                 (out, node["id"], node["parent"]))
        if p.console:
            fail("console messages: %s" % p.console)
    finally:
        p.close()
    print("ok a click on node %d (%s) zooms on it, a click on the top bar out to %d; "
          "no console message (DevTools)" % (node["id"], node["function"], node["parent"]))


def case_html():
    d = scratch()
    docs = make_inputs(d)
    hostile_name(d, docs)
    page = os.path.join(d, "report.html")
    report([page, os.path.join(d, "in", "out-%p.json")])
    text = open(page, encoding="utf-8").read()
    ext = re.findall(r'(?:src|href)\s*=\s*["\']?\s*(?:https?:)?//', text, re.I)
    if ext:
        fail("the page refers to something external: %s" % ext[:3])
    for doc in docs:
        for th in doc["threads"]:
            url = "file://%s#t=%d:%d" % (page, doc["pid"], th["tid"])
            check_thread(chromium(d, url), doc, th, "%d:%d" % (doc["pid"], th["tid"]))
    dom = chromium(d, "file://%s#t=%d:%d" % (page, docs[1]["pid"], docs[1]["threads"][0]["tid"]))
    shown = HOSTILE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if "<title>apiprof report</title>" not in dom or shown not in dom:
        fail("a thread named %r: the page's title or the name as text is not there" % HOSTILE)
    print("ok a thread named %r shown as text" % HOSTILE)
    sums = {}
    for doc in docs:
        for th in doc["threads"]:
            for f in th["functions"]:
                k = f["api"] + "." + f["name"]
                sums[k] = sums.get(k, 0) + f["calls"]
    group = dom[dom.find('<table class="sortable group"'):]
    group = group[:group.find("</table>")]
    got = {n: int(c) for n, c in re.findall(r'<td class="name[^"]*" data-v="([^"]*)">[^<]*</td>'
                                            r'<td class="[^"]*" data-v="(\d+)"', group)}
    if got != sums:
        fail("the command's sums %s, the JSON's %s" % (got, sums))
    print("ok the sums over treeprog's 2 processes: %d functions exact" % len(got))
    th = next(t for t in docs[0]["threads"] if t["tree"])
    check_zoom(d, page, docs[0], th)
    check_click(d, page, docs[0], th)
    shot = os.path.join(d, "report.png")
    chromium(d, "file://%s#t=%d:%d&f=malloc.malloc" % (page, docs[0]["pid"], th["tid"]), shot)
    if not os.path.getsize(shot):
        fail("no screenshot")
    print("ok screenshot in %s" % shot)


def go_pprof(d, prof, index, unit=None):
    """go tool pprof -top's rows (flat per function) and total."""
    exe = shutil.which("go")
    if exe is None:
        fail("no go (Debian packages golang-go, golang-1.19-go: ./quickstart installs them)")
    env = dict(os.environ, HOME=d, GOCACHE=os.path.join(d, "gocache"), GOFLAGS="")
    args = [exe, "tool", "pprof", "-symbolize=none", "-top", "-nodefraction=0",
            "-nodecount=1000000", "-sample_index=" + index] + (["-unit=" + unit] if unit else [])
    p = subprocess.run(args + [prof], env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("go tool pprof exited %d: %s" % (p.returncode, p.stderr))
    sfx = unit or ""
    m = re.search(r"of (\d+)%s total" % sfx, p.stdout)
    if not m:
        fail("go tool pprof -top: no total in %s" % p.stdout[:500])
    flat = {}
    for line in p.stdout.splitlines():
        f = re.match(r"\s*(\d+)%s?\s+\S+%%\s+\S+%%\s+\d+%s?\s+\S+%%\s+(\S+)$" % (sfx, sfx),
                     line)
        if f and int(f.group(1)):
            flat[f.group(2)] = int(f.group(1))
    return flat, int(m.group(1))


def case_pprof():
    d = scratch()
    docs = make_inputs(d)
    prof = os.path.join(d, "report.pb.gz")
    report(["--pprof", prof, os.path.join(d, "in", "out-%p.json")])
    calls, ns, funcs = {}, {}, {}
    for doc in docs:
        for th in doc["threads"]:
            for n in th["tree"]:
                if n["id"]:
                    calls[n["function"]] = calls.get(n["function"], 0) + n["calls"]
                    ns[n["function"]] = ns.get(n["function"], 0) + n["self_ns"]
                other = n.get("other_paths", {})
                if other.get("calls"):
                    calls["(other paths)"] = calls.get("(other paths)", 0) + other["calls"]
                    ns["(other paths)"] = ns.get("(other paths)", 0) + other["total_ns"]
            for f in th["functions"]:
                k = f["api"] + "." + f["name"]
                funcs[k] = funcs.get(k, 0) + f["calls"]
    ns = {k: v for k, v in ns.items() if v}
    if calls != funcs:
        fail("the inputs' trees are not complete (%s vs %s): no exact check" % (calls, funcs))
    got, total = go_pprof(d, prof, "calls")
    if got != calls or total != sum(calls.values()):
        fail("pprof -top calls %s (total %d), the JSON's %s (total %d)" %
             (got, total, calls, sum(calls.values())))
    print("ok go tool pprof -top -sample_index=calls: %d functions, total %d, exact" %
          (len(got), total))
    got, total = go_pprof(d, prof, "time", "ns")
    if got != ns or total != sum(ns.values()):
        fail("pprof -top time %s (total %d), the JSON's self_ns %s (total %d)" %
             (got, total, ns, sum(ns.values())))
    print("ok go tool pprof -top -sample_index=time: %d functions, total %d ns, exact" %
          (len(got), total))


BAD = [
    ("truncated", None, r"line \d+, column \d+: "),
    ("huge", ("calls", 2 ** 62), r"threads\[0\]\.functions\[0\]\.calls: too large"),
    ("negative", ("calls", -1), r"threads\[0\]\.functions\[0\]\.calls: negative"),
    ("string", ("calls", "12"), r"threads\[0\]\.functions\[0\]\.calls: not an integer"),
    ("parent", ("parent", 99999), r"threads\[0\]\.tree: a node whose parent is not before it"),
    ("version", ("apiprof", 2), r"written by another version of apiprof"),
    ("order", ("order", None), r"threads\[0\]\.tree: node ids not in increasing order"),
    ("deep", ("deep", 600), r"threads\[0\]\.tree: a path deeper than 512 calls"),
]


def bad_file(d, good, name, change):
    path = os.path.join(d, "in", name + ".json")
    if change is None:
        text = open(good).read()
        open(path, "w").write(text[:len(text) // 2])
        return path
    doc = json.load(open(good))
    key, value = change
    if key == "apiprof":
        doc["apiprof"] = value
    elif key == "parent":
        doc["threads"][0]["tree"][-1]["parent"] = value
    elif key == "order":
        tree = doc["threads"][0]["tree"]
        tree[-1]["id"] = tree[-2]["id"]
    elif key == "deep":  # a chain of value nodes after the last
        tree = doc["threads"][0]["tree"]
        top = tree[-1]["id"]
        tree += [{"id": top + i, "parent": top + i - 1, "function": "treer.tr_root", "calls": 1,
                  "total_ns": 1, "self_ns": 1} for i in range(1, value + 1)]
    else:
        doc["threads"][0]["functions"][0][key] = value
    json.dump(doc, open(path, "w"))
    return path


def case_bad():
    d = scratch()
    make_inputs(d)
    good = sorted(glob.glob(os.path.join(d, "in", "out-*.json")))[0]
    out = os.path.join(d, "out")
    os.makedirs(out)
    for name, change, want in BAD:
        path = bad_file(d, good, name, change)
        for args in ([os.path.join(out, "r.html")], ["--pprof", os.path.join(out, "r.pb.gz")]):
            p = report(args + [good, path], expect=1)
            lines = p.stderr.splitlines()
            if len(lines) != 1 or not re.search(re.escape(path) + ": .*" + want, lines[0]):
                fail("%s: want one line naming %s and /%s/, got %r" % (name, path, want, lines))
            if os.listdir(out):
                fail("%s: left in the output directory: %s" % (name, os.listdir(out)))
        print("ok %s: %s" % (name, lines[0]))
    # A write that fails half way (RLIMIT_FSIZE: EFBIG past 100 bytes): one
    # line, the temporary removed, the report there before left as it was.
    for args in ([os.path.join(out, "r.html")], ["--pprof", os.path.join(out, "r.pb.gz")]):
        dest = args[-1]
        with open(dest, "w") as f:
            f.write("before")
        env = dict(os.environ, APIPROF_REPORT_SHARE=SHARE)
        p = subprocess.run([REPORT] + args + [good], env=env, capture_output=True, text=True,
                           timeout=120, preexec_fn=lambda: resource.setrlimit(
                                   resource.RLIMIT_FSIZE, (100, 100)))
        lines = p.stderr.splitlines()
        if p.returncode != 1 or len(lines) != 1 or "cannot write " + dest not in lines[0]:
            fail("a write past RLIMIT_FSIZE: exit %d, %r" % (p.returncode, lines))
        if os.listdir(out) != [os.path.basename(dest)] or open(dest).read() != "before":
            fail("a write past RLIMIT_FSIZE left %s" % os.listdir(out))
        os.unlink(dest)
        print("ok a write that fails: %s" % lines[0])


def main():
    if CASE == "html":
        case_html()
    elif CASE == "pprof":
        case_pprof()
    elif CASE == "bad":
        case_bad()
    else:
        fail("unknown case " + CASE)


if __name__ == "__main__":
    main()
