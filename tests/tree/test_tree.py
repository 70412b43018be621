#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The calling-context tree in the exit outputs (issue 35.2).

usage: test_tree.py CASE TREE_INVARIANTS LIBAPIPROF SHIM_MALLOC SHIM_TREER
                    SHIM_TREEA SHIM_TREEB TREEPROG APIPROF_TOP

treeprog (treelib.h) runs tr_root N times, then tr_close once.  CASE:

- paths: N = 3.  The exit JSON's tree under tr_root and tr_close is
  exactly tr_root 3 > ta_one 3 > (malloc 3000, free 3000, tb_call 3 >
  (malloc 15, free 15)), ta_two 3 > (malloc 30, free 30); tr_close 1 >
  (malloc 1, free 1): no other node holds those functions, and no other
  node is below them.  The summary's tree has the same lines.  ta_one's
  1000 mallocs a call come from 20 sites, more than the 16 a row keeps:
  a tree made of the sites' parents gave them to whichever function's
  call the "(other callers)" run ended in;
- once: the same as functions' children: ta_one's are malloc, free and
  tb_call, tr_close's malloc 1 and free 1 only (the sqlite3_close case),
  tr_root's ta_one and ta_two only;
- overflow: APIPROF_MAX_NODES=6, N = 3: every node printed is one of the
  paths above with its exact count; the calls of the functions add up to
  the nodes', their other paths' and their calls not recorded;
- sampled: APIPROF_SAMPLE=8, N = 20: the invariants hold, every path
  printed is one of the above (or a root whose context is not known), and
  the figures are marked estimated;
- invariants: N = 50 in a thread that ends first (APIPROF_KEEP_EXITED=0:
  its tree is folded into "(exited)"): the folded tree has the exact
  paths, and tree_invariants.py passes on the JSON and the summary;
- top: N = 3, the process waiting: apiprof-top --folded has one line per
  path above, its node's own calls, the root call site first, and no
  other line through those functions (no stack spread over another's
  call sites); apiprof-top --json's thread tree has exactly the paths
  above; tree_invariants.py passes on both.  In a mount namespace of
  its own with a tmpfs on /dev/shm (exit 77: none to be had);
- top-children: N = 3, the process waiting, as top: apiprof-top --json's
  children and self_ns of each function are its nodes' (ta_one: malloc
  3000, free 3000, tb_call 3; tr_close: malloc 1, free 1), and so are the
  live view's Enter panel (through tmux) and its SELF column; joined by
  the sites' parent function, ta_one had 2400 mallocs (4 of its 20 sites
  in "(other callers)", whose parent is not known) and tr_close nothing;
- arena-full: arenaprog (extra arguments ARENAPROG FAILMMAP) under
  failmmap.c, which fails the runtime arena's chunks after the first:
  a row the full arena gave no table has all its calls in its "(other
  callers)" (max_site_calls: all of them), every thread's callers add up
  to its calls, and its tree has every call, the paths exact; so do the
  folded tables and tree once the threads end, and a row whose table
  comes once memory comes back keeps the calls it had before in its
  "(other callers)";
- fork: forkprog (extra arguments FORKPROG SHIM_TREEF): a child forked
  inside a profiled call (tf_spawn) has its own paths only, exact, the
  call it returns from counted once in its root's other paths, nothing in
  progress; the parent's paths exact;
- fork-alt: forkalt (extra arguments FORKALT SHIM_TREEF): tr_close from
  two call sites by turns (a row keeps the other site's run parked), a
  fork inside tf_spawn (the child goes on after it returned) or by fork()
  between calls, more turns in the child and in the parent: each one's
  callers of tr_close and its roots at the two sites are exactly its own
  calls (the child none of the parent's parked run, the parent all of
  its own), every call in a node, nothing in progress; with the TSC
  (the parked run swapped in inline) and the monotonic clock (out of
  line, apiprof_unpark).
"""
import atexit
import json
import os
import re
import subprocess
import sys
import shutil
import tempfile
import time

CASE, CHECKER, LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A, SHIM_B, PROG, TOP = sys.argv[1:10]
MOUNT = "mount -t tmpfs tmpfs /dev/shm"
INNER = "APIPROF_TEST_TREE_INNER"


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def expected(n, closes=1):
    """path (tuple of functions from the root) -> calls (tr_close called closes times)"""
    one, b = ("treer.tr_root", "treea.ta_one"), ("treer.tr_root", "treea.ta_one", "treeb.tb_call")
    two, close = ("treer.tr_root", "treea.ta_two"), ("treer.tr_close",)
    return {
        ("treer.tr_root",): n, one: n, one + ("malloc.malloc",): 1000 * n,
        one + ("malloc.free",): 1000 * n, b: n, b + ("malloc.malloc",): 5 * n,
        b + ("malloc.free",): 5 * n, two: n, two + ("malloc.malloc",): 10 * n,
        two + ("malloc.free",): 10 * n, close: closes, close + ("malloc.malloc",): closes,
        close + ("malloc.free",): closes,
    }


def run(n, env_extra, thread=False, argv=None, preload=()):
    tmp = tempfile.mkdtemp(prefix="apiprof-tree-")
    atexit.register(shutil.rmtree, tmp, True)
    out = os.path.join(tmp, "out.json")
    env = dict(os.environ)
    env.update({
        "LD_PRELOAD": " ".join(list(preload) + [LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A, SHIM_B]),
        "LD_LIBRARY_PATH": os.path.dirname(os.path.abspath(PROG)),
        "APIPROF_OUTPUT": out, "APIPROF_SUMMARY": "1", "APIPROF_SHM": "0",
    })
    env.update(env_extra)
    args = argv or [PROG, str(n)] + (["thread"] if thread else [])
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail("treeprog exited %d: %s" % (p.returncode, p.stderr))
    with open(out) as f:
        doc = json.load(f)
    with open(os.path.join(tmp, "summary.txt"), "w") as f:
        f.write(p.stderr)
    return doc, p.stderr, tmp


def paths(th):
    """path -> (calls, node) of a thread's tree, summed over its root call sites"""
    if "tree" not in th:
        fail("no tree in the exit JSON")
    nodes = {n["id"]: n for n in th["tree"]}
    res = {}
    for n in th["tree"]:
        if n["id"] == 0:
            continue
        path, m = [], n
        while m is not None:
            path.append(m["function"])
            m = nodes.get(m["parent"]) if m["parent"] is not None else None
        key = tuple(reversed(path))
        res[key] = (n["calls"] + res.get(key, (0, None))[0], n)
    return res


def ours(path):
    return any(f.split(".")[0] in ("treer", "treea", "treeb") for f in path)


def thread_of(doc, folded=False):
    for th in doc["threads"]:
        if (th["state"] == "folded") == folded and th["functions"]:
            return th
    fail("no %s thread in %s" % ("folded" if folded else "running", [t["tid"] for t in doc["threads"]]))


def check_exact(th, n, closes=1):
    want = expected(n, closes)
    have = {p: c for p, (c, _) in paths(th).items() if ours(p)}
    if have != want:
        extra = {p: c for p, c in have.items() if want.get(p) != c}
        missing = {p: c for p, c in want.items() if have.get(p) != c}
        fail("paths differ: printed %s, expected %s" % (extra, missing))


def checker(*files):
    p = subprocess.run([sys.executable, CHECKER] + list(files), capture_output=True, text=True)
    if p.returncode != 0:
        fail("tree_invariants.py: %s%s" % (p.stdout, p.stderr))


def summary_tree(text):
    """the lines of the summary's tree below tr_root and tr_close: (depth, calls, name)"""
    rows, on = [], False
    for line in text.splitlines():
        if line.startswith("  call tree"):
            on = True
            continue
        m = re.match(r"^  +(\d+) +\S+ +\S+  ( *)(`- )?(.*)$", line) if on else None
        if on and "function" in line:
            continue
        if m is None:
            on = False
            continue
        rows.append((len(m.group(2)) // 2, int(m.group(1)), m.group(4)))
    out, keep = [], -1
    for depth, calls, name in rows:
        if depth == 0:
            keep = name.startswith("treer.")
        if keep:
            out.append((depth, calls, name))
    return sorted(out)


def case_paths():
    doc, err, tmp = run(3, {})
    th = thread_of(doc)
    check_exact(th, 3)
    want = sorted((len(p) - 1, c, p[-1]) for p, c in expected(3).items())
    have = summary_tree(err)
    if have != want:
        fail("summary tree %s, expected %s" % (have, want))
    checker(os.path.join(tmp, "out.json"), os.path.join(tmp, "summary.txt"))


def children(th, name):
    for f in th["functions"]:
        if "%s.%s" % (f["api"], f["name"]) == name:
            return {"%s.%s" % (c["api"], c["name"]): c["calls"] for c in f["children"]}
    fail("no function %s" % name)


def case_once():
    doc, _, _ = run(3, {})
    th = thread_of(doc)
    for name, want in (("treea.ta_one", {"malloc.malloc": 3000, "malloc.free": 3000,
                                         "treeb.tb_call": 3}),
                       ("treer.tr_close", {"malloc.malloc": 1, "malloc.free": 1}),
                       ("treer.tr_root", {"treea.ta_one": 3, "treea.ta_two": 3}),
                       ("treea.ta_two", {"malloc.malloc": 30, "malloc.free": 30})):
        have = children(th, name)
        if have != want:
            fail("%s's children %s, expected %s" % (name, have, want))


def case_overflow():
    doc, _, tmp = run(3, {"APIPROF_MAX_NODES": "6"})
    th = thread_of(doc)
    want = expected(3)
    got = paths(th)
    for p, (c, _) in got.items():
        if ours(p) and want.get(p) != c:
            fail("node %s with %d calls: not a path that happened with those calls" % (p, c))
    if len(got) > 6:
        fail("%d nodes, more than the bound 6" % len(got))
    nodes = sum(n["calls"] for n in th["tree"])
    other = sum((n.get("other_paths") or {}).get("calls", 0) for n in th["tree"])
    lost = sum((n.get("other_paths") or {}).get("not_recorded_calls", 0) for n in th["tree"])
    calls = sum(f["calls"] for f in th["functions"])
    if nodes + other + lost != calls or other == 0 or lost == 0:
        fail("nodes %d + other paths %d + not recorded %d != %d calls"
             % (nodes, other, lost, calls))
    checker(os.path.join(tmp, "out.json"), os.path.join(tmp, "summary.txt"))


def case_sampled():
    doc, _, tmp = run(20, {"APIPROF_SAMPLE": "8"})
    th = thread_of(doc)
    want = expected(20)
    for p, (c, n) in paths(th).items():
        unknown = n["parent"] is None and "site" in n and n["site"] is None
        if ours(p) and p not in want and not (unknown or p[0] not in ("treer.tr_root",
                                                                        "treer.tr_close")):
            fail("path %s printed: it never happened" % (p,))
    if not any(n["estimated"] for n in th["tree"]):
        fail("no node marked estimated in sampled mode")
    if "(estimated: sampled)" not in open(os.path.join(tmp, "summary.txt")).read():
        fail("the summary's tree does not say it is estimated")
    checker(os.path.join(tmp, "out.json"), os.path.join(tmp, "summary.txt"))


def case_invariants():
    doc, _, tmp = run(50, {"APIPROF_KEEP_EXITED": "0"}, thread=True)
    check_exact(thread_of(doc, folded=True), 50)
    checker(os.path.join(tmp, "out.json"), os.path.join(tmp, "summary.txt"))


def folded_paths(text):
    """path (without the root's call site) -> calls, of ours"""
    res = {}
    for line in text.splitlines():
        stack, _, n = line.rpartition(" ")
        frames = tuple(stack.split(";")[1:])
        if ours(frames):
            if frames in res:
                fail("--folded: %s twice" % (frames,))
            res[frames] = int(n)
    return res


def in_private_shm():
    """this test again, in a mount namespace of its own with a tmpfs on /dev/shm"""
    if subprocess.run(["unshare", "-m", "sh", "-c", MOUNT], stderr=subprocess.DEVNULL).returncode:
        print("skip: cannot mount a tmpfs on /dev/shm in a private mount namespace")
        sys.exit(77)
    env = dict(os.environ, **{INNER: "1"})
    argv = [sys.executable, os.path.abspath(__file__)] + sys.argv[1:]
    sys.exit(subprocess.run(["unshare", "-m", "sh", "-c", MOUNT + ' && exec "$@"', "sh"] + argv,
                            env=env).returncode)


def case_top():
    if not os.environ.get(INNER):
        if subprocess.run(["unshare", "-m", "sh", "-c", MOUNT],
                          stderr=subprocess.DEVNULL).returncode:
            print("skip: cannot mount a tmpfs on /dev/shm in a private mount namespace")
            sys.exit(77)
        env = dict(os.environ, **{INNER: "1"})
        argv = [sys.executable, os.path.abspath(__file__)] + sys.argv[1:]
        sys.exit(subprocess.run(["unshare", "-m", "sh", "-c", MOUNT + ' && exec "$@"', "sh"] +
                                argv, env=env).returncode)
    env = dict(os.environ, LD_PRELOAD=" ".join([LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A, SHIM_B]),
               LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(PROG)), APIPROF_INTERVAL_MS="20")
    env.pop("APIPROF_SHM", None)
    p = subprocess.Popen([PROG, "3", "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    want, got, text = expected(3), None, ""
    try:
        if p.stdout.readline() != "ready\n":
            fail("treeprog did not get ready")
        for _ in range(400):  # until a read has every node (the flusher's pace)
            text = subprocess.run([TOP, "--folded", "-p", str(p.pid)], capture_output=True,
                                  text=True).stdout
            got = folded_paths(text)
            if got == want:
                break
        for _ in range(400):
            js = subprocess.run([TOP, "-b", "--json", "-n", "1", "-p", str(p.pid)],
                                capture_output=True, text=True).stdout
            procs = [q for line in js.splitlines() for q in json.loads(line)["processes"]]
            trees = [t for q in procs for t in q["threads"] if "tree" in t]
            have = {k: c for k, (c, _) in paths(trees[0]).items() if ours(k)} if trees else {}
            if have == want:
                break
    finally:
        p.stdin.close()
        p.wait()
    if got != want:
        fail("--folded: %s, expected %s:\n%s" % (got, want, text))
    if have != want:
        fail("--json: the tree's paths %s, expected %s" % (have, want))
    tmp = tempfile.mkdtemp(prefix="apiprof-tree-")
    atexit.register(shutil.rmtree, tmp, True)
    with open(os.path.join(tmp, "folded.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(tmp, "top.json"), "w") as f:
        f.write(js.splitlines()[-1])
    checker("--format", "folded", os.path.join(tmp, "folded.txt"))
    checker(os.path.join(tmp, "top.json"))


def want_children(n):
    """function -> {child function: calls}, from the paths that happened"""
    res = {}
    for path, calls in expected(n).items():
        if len(path) > 1:
            kids = res.setdefault(path[-2], {})
            kids[path[-1]] = kids.get(path[-1], 0) + calls
    return res


def node_children(th):
    """function -> ({child function: calls}, time of its nodes' children and other paths)"""
    nodes = {n["id"]: n for n in th["tree"]}
    res = {}
    for n in th["tree"]:
        if n["id"] == 0:
            continue
        mine = res.setdefault(n["function"], ({}, [0]))
        mine[1][0] += (n.get("other_paths") or {}).get("total_ns", 0)
        p = nodes.get(n["parent"]) if n["parent"] is not None else None
        if p is not None:
            kids, t = res.setdefault(p["function"], ({}, [0]))
            kids[n["function"]] = kids.get(n["function"], 0) + n["calls"]
            t[0] += n["total_ns"]
    return res


def top_json_thread(pid):
    """the thread of treeprog with our tree in apiprof-top --json, once every path is there"""
    want, th = expected(3), None
    for _ in range(400):  # until a read has every node (the flusher's pace)
        js = subprocess.run([TOP, "-b", "--json", "-n", "1", "-p", str(pid)],
                            capture_output=True, text=True).stdout
        procs = [q for line in js.splitlines() for q in json.loads(line)["processes"]]
        trees = [t for q in procs for t in q["threads"] if "tree" in t]
        th = trees[0] if trees else None
        have = {k: c for k, (c, _) in paths(th).items() if ours(k)} if th else {}
        if have == want:
            return th, js.splitlines()[-1]
    fail("--json: the tree's paths %s, expected %s" % (have, want))


def check_top_funcs(th):
    """each function's --json children and self_ns are the tree's"""
    want, tree = want_children(3), node_children(th)
    for f in th["functions"]:
        name = "%s.%s" % (f["api"], f["name"])
        if not ours((name,)) and name not in want:
            continue
        kids = {"%s.%s" % (c["api"], c["name"]): c["calls"] for c in f["children"]
                if c["api"] is not None}
        if kids != want.get(name, {}) or kids != tree.get(name, ({}, 0))[0]:
            fail("--json: %s's children %s; the paths that happened %s, its nodes %s"
                 % (name, kids, want.get(name, {}), tree.get(name, ({}, 0))[0]))
        inside = tree.get(name, ({}, [0]))[1][0]
        self_ns = max(0, f["total_ns"] - inside)
        if f["self_ns"] is None or abs(f["self_ns"] - self_ns) > len(f["children"]) + 2:
            fail("--json: %s's self_ns %s, total %d - its nodes' children %d = %d"
                 % (name, f["self_ns"], f["total_ns"], inside, self_ns))


def panel(pid, func):
    """the live view's Enter panel of the row of func: (children lines, self line, row line)"""
    base = ["tmux", "-L", "apiprof-tree-%d-%s" % (os.getpid(), func), "-f", "/dev/null"]
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("TMUX", None)
    subprocess.run(base + ["new-session", "-d", "-x", "200", "-y", "60",
                           "%s -d 0.1 -p %d -f %s" % (os.path.abspath(TOP), pid, func)], env=env, check=True)
    screen = ""
    try:
        for i in range(400):
            screen = subprocess.run(base + ["capture-pane", "-p", "-t", "0"],
                                    stdout=subprocess.PIPE, text=True).stdout
            if "(self" in screen:
                break
            row = [l for l in screen.splitlines()
                   if re.search(r"\s%s\s" % func, l) and "filter:" not in l]
            if i % 20 == 0 and row:  # the row is there: open it
                subprocess.run(base + ["send-keys", "-t", "0", "Enter"], check=True)
            time.sleep(0.05)  # poll spacing, bounded by the tries
    finally:
        subprocess.run(base + ["kill-server"], stderr=subprocess.DEVNULL)
    lines = screen.splitlines()
    kids = {}
    for line in lines:
        m = re.match(r"^   -> +(\d+) .* (\S+)$", line)
        if m:
            kids[m.group(2)] = int(m.group(1))
    selfs = [re.match(r"^   = +\S+ +(\S+) +\(self\)$", l) for l in lines]
    selfs = [m.group(1) for m in selfs if m]
    rows = [l for l in lines if re.search(r"\s%s(\s|$)" % func, l) and "filter:" not in l
            and not re.match(r"^   (->|<-|=) ", l)]
    if not selfs or not rows:
        fail("the panel of %s: no self line or no row:\n%s" % (func, screen))
    return kids, selfs[0], rows[0], screen


def case_top_children():
    """apiprof-top's --json children and self_ns, and the live view's Enter
    panel and SELF column, from the tree's nodes: ta_one's 1000 mallocs a
    call come from 20 sites, 4 of them in "(other callers)" of the sites
    record, whose parent is not known, and tr_close's two calls from sites
    in it too: joined by function, ta_one had 2400 mallocs and tr_close no
    child at all"""
    if not os.environ.get(INNER):
        in_private_shm()
    env = dict(os.environ, LD_PRELOAD=" ".join([LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A, SHIM_B]),
               LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(PROG)), APIPROF_INTERVAL_MS="20")
    env.pop("APIPROF_SHM", None)
    p = subprocess.Popen([PROG, "3", "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    try:
        if p.stdout.readline() != "ready\n":
            fail("treeprog did not get ready")
        th, line = top_json_thread(p.pid)
        check_top_funcs(th)
        tmp = tempfile.mkdtemp(prefix="apiprof-tree-")
        atexit.register(shutil.rmtree, tmp, True)
        with open(os.path.join(tmp, "top.json"), "w") as f:
            f.write(line)
        checker(os.path.join(tmp, "top.json"))
        want = want_children(3)
        for func, name in (("ta_one", "treea.ta_one"), ("tr_close", "treer.tr_close")):
            kids, self_, row, screen = panel(p.pid, func)
            if kids != want[name]:
                fail("the panel of %s: children %s, the paths that happened %s:\n%s"
                     % (func, kids, want[name], screen))
            if " %s " % self_ not in row + " ":
                fail("the panel of %s says self %s, its row's SELF does not: %s"
                     % (func, self_, row))
    finally:
        p.stdin.close()
        p.wait()


def bare_rows(th):
    """our functions whose calls are all in "(other callers)": each is called from one
    site, which has an entry of its own in a table; so their row had none"""
    res = []
    for f in th["functions"]:
        name = "%s.%s" % (f["api"], f["name"])
        if ours((name,)) and f["calls"] and all(c["symbol"] == "(other callers)"
                                                 for c in f["callers"]):
            res.append(name)
    return res


def check_sums(th, tid):
    """every call in the sites; with a tree, every call in a node, its parent's other
    paths or the calls not recorded"""
    for f in th["functions"]:
        sites = sum(c["calls"] for c in f["callers"])
        if sites != f["calls"]:
            fail("thread %s: %s.%s's callers have %d calls of its %d"
                 % (tid, f["api"], f["name"], sites, f["calls"]))
        other = [c for c in f["callers"] if c["symbol"] == "(other callers)"]
        if other and other[0]["exact"] is not True:
            fail("thread %s: %s.%s's (other callers) %s" % (tid, f["api"], f["name"], other))
    nodes = sum(n["calls"] for n in th.get("tree", []))
    other = sum((n.get("other_paths") or {}).get("calls", 0) for n in th.get("tree", []))
    lost = sum((n.get("other_paths") or {}).get("not_recorded_calls", 0)
               for n in th.get("tree", []))
    calls = sum(f["calls"] for f in th["functions"])
    if th.get("tree") and nodes + other + lost != calls:
        fail("thread %s: nodes %d + other paths %d + not recorded %d != %d calls (rows with "
             "no table: %s)" % (tid, nodes, other, lost, calls, bare_rows(th)))


def case_arena_back(arenaprog, failmmap):
    """The arena's memory comes back (failmmap.c fails 4 chunks only): a row that had
    no table at its first two calls (tr_close's, from two sites) gets one at its third
    call's switch, with the two runs before it in its "(other callers)": its callers
    add up to its 3 calls."""
    for pad in list(range(212, 256, 2)) + list(range(0, 212, 2)):  # 212: today's first
        doc, _, tmp = run(1, {"TREE_FAILMMAP_AFTER": "1", "TREE_FAILMMAP_COUNT": "4"},
                          argv=[arenaprog, str(pad), "24"], preload=[failmmap])
        for th in doc["threads"]:
            close = [f for f in th["functions"] if f["name"] == "tr_close"]
            named = [c for c in close[0]["callers"] if c["symbol"] != "(other callers)"] \
                if close else []
            if not close or close[0]["calls"] != 3 or len(named) != 1:
                continue  # not a table at the third call only
            check_sums(th, th["tid"])
            if th.get("tree"):
                check_exact(th, 1, closes=3)
            checker(os.path.join(tmp, "out.json"))
            print("pad %d: thread %s's tr_close got its table at its third call"
                  % (pad, th["tid"]))
            return
    fail("no pad gave a tr_close that got its table at its third call")


def case_arena_full():
    """A row the full arena gave no table of call sites (failmmap.c): its calls are
    all in its "(other callers)" (bounded by them all), and its runs in the tree, with
    the calls made inside them under it: the paths are exact.  Which allocation finds
    the arena full depends on sizes that change with the code: the pad of arenaprog's
    own call sites moves it, until a thread has such a row and a tree."""
    arenaprog, failmmap = sys.argv[10:12]
    case_arena_back(arenaprog, failmmap)
    for pad in range(0, 256, 2):
        doc, _, tmp = run(1, {"TREE_FAILMMAP_AFTER": "1"},
                          argv=[arenaprog, str(pad), "24"], preload=[failmmap])
        found = None
        for th in doc["threads"]:
            if not th["functions"]:
                continue
            check_sums(th, th["tid"])
            if bare_rows(th) and any(n["id"] != 0 for n in th.get("tree", [])):
                found = th
        if found is None:
            continue
        check_exact(found, 1, closes=3)
        for name in bare_rows(found):
            f = [f for f in found["functions"] if "%s.%s" % (f["api"], f["name"]) == name][0]
            if f["callers"][0].get("max_site_calls") != f["calls"]:
                fail("%s had no table: its (other callers) %s, bound not all of its calls %d"
                     % (name, f["callers"], f["calls"]))
        checker(os.path.join(tmp, "out.json"))
        print("pad %d: thread %s's %s had no table" % (pad, found["tid"], bare_rows(found)))
        # the same threads ending: the folded tables and tree have every call
        doc, _, tmp = run(1, {"TREE_FAILMMAP_AFTER": "1", "APIPROF_KEEP_EXITED": "0"},
                          argv=[arenaprog, str(pad), "24", "exit"], preload=[failmmap])
        folded = thread_of(doc, folded=True)
        check_sums(folded, "(exited)")
        if not folded.get("tree"):
            fail("no folded tree")
        checker(os.path.join(tmp, "out.json"))
        return
    fail("no pad gave a thread with a row that had no table and a tree")


def case_fork():
    """forkprog: a child forked inside tf_spawn, a profiled call, makes N = 5 calls of
    tr_close inside it and exits there, or after it returned: its own tree has only
    its own paths (tr_close > malloc, free), exact, no node of its parent's calls,
    nothing in progress; the call it returned from counts once, in the root's other
    paths (begun before the child was); the parent's tree is exact."""
    forkprog, shim_f = sys.argv[10:12]
    n = 5
    mine = {("treer.tr_close",): n, ("treer.tr_close", "malloc.malloc"): n,
            ("treer.tr_close", "malloc.free"): n}
    for how in (0, 1):
        tmp = tempfile.mkdtemp(prefix="apiprof-tree-")
        atexit.register(shutil.rmtree, tmp, True)
        env = dict(os.environ, LD_PRELOAD=" ".join([LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A,
                                                    SHIM_B, shim_f]),
                   LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(forkprog)),
                   APIPROF_OUTPUT=os.path.join(tmp, "out-%p.json"), APIPROF_SHM="0")
        p = subprocess.run([forkprog, str(n), str(how)], env=env, capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0:
            fail("forkprog %d exited %d: %s" % (how, p.returncode, p.stderr))
        docs = {}
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name)) as f:
                doc = json.load(f)
            docs[doc["pid"]] = doc
            checker(os.path.join(tmp, name))
        if len(docs) != 2:
            fail("how %d: %d outputs, not the parent's and the child's" % (how, len(docs)))
        # the parent is the one that called tr_root (the child's counts start at 0)
        first = sorted(docs.values(), key=lambda d: not any(
            f["name"] == "tr_root" for t in d["threads"] for f in t["functions"]))
        parent, child = first
        th = thread_of(parent)
        want = expected(1)
        want[("treef.tf_spawn",)] = 1
        have = {k: c for k, (c, _) in paths(th).items() if ours(k) or k[0] == "treef.tf_spawn"}
        if have != want:
            fail("how %d: the parent's paths %s, expected %s" % (how, have, want))
        th = thread_of(child)
        check_sums(th, "child")
        have = {k: c for k, (c, _) in paths(th).items()
                if ours(k) or k[0].startswith("treef.")}
        if have != mine:
            fail("how %d: the child's paths %s, it made %s" % (how, have, mine))
        calls = {"%s.%s" % (f["api"], f["name"]): f["calls"] for f in th["functions"]}
        root = [x for x in th["tree"] if x["id"] == 0]
        inherited = (root[0].get("other_paths") or {}).get("calls", 0) if root else 0
        if calls.get("treef.tf_spawn", 0) != how or inherited != how:
            fail("how %d: the child's tf_spawn %d calls, %d in the root's other paths"
                 % (how, calls.get("treef.tf_spawn", 0), inherited))
        if th.get("in_progress"):
            fail("how %d: the child shows %s in progress" % (how, th["in_progress"]))


def alt_sites(th, who):
    """tr_close's callers and its roots, by call site: {symbol: calls} each"""
    close = [f for f in th["functions"] if (f["api"], f["name"]) == ("treer", "tr_close")]
    if len(close) != 1:
        fail("%s: %d rows of tr_close" % (who, len(close)))
    callers = {}
    for c in close[0]["callers"]:
        if not c["exact"] or c.get("estimated"):
            fail("%s: tr_close's caller %r is not exact" % (who, c))
        callers[c["symbol"]] = callers.get(c["symbol"], 0) + c["calls"]
    roots = {}
    for n in th["tree"]:
        if n["function"] == "treer.tr_close" and n["parent"] is None:
            roots[n["site"]["symbol"]] = roots.get(n["site"]["symbol"], 0) + n["calls"]
    return callers, roots


def check_alt(doc, who, turns, spawns):
    th = thread_of(doc)
    check_sums(th, who)
    want = {"site_a": turns, "site_b": turns}
    callers, roots = alt_sites(th, who)
    if callers != want or roots != want:
        fail("%s: tr_close's callers %s and roots %s, it made %s" % (who, callers, roots, want))
    close = ("treer.tr_close",)
    have = {k: c for k, (c, _) in paths(th).items() if k[0] == close[0]}
    mine = {close: 2 * turns, close + ("malloc.malloc",): 2 * turns,
            close + ("malloc.free",): 2 * turns}
    if have != mine:
        fail("%s: tr_close's paths %s, it made %s" % (who, have, mine))
    calls = {"%s.%s" % (f["api"], f["name"]): f["calls"] for f in th["functions"]}
    if calls.get("treef.tf_spawn", 0) != spawns:
        fail("%s: %d calls of tf_spawn, want %d" % (who, calls.get("treef.tf_spawn", 0), spawns))
    if th.get("in_progress"):
        fail("%s: shows %s in progress" % (who, th["in_progress"]))


def case_fork_alt():
    """forkalt N M K HOW: see the docstring; the parent says which pid its child had."""
    forkalt, shim_f = sys.argv[10:12]
    n, m, k = 7, 5, 3
    for how, clock in ((1, "auto"), (2, "auto"), (1, "monotonic"), (2, "monotonic")):
        tmp = tempfile.mkdtemp(prefix="apiprof-tree-")
        atexit.register(shutil.rmtree, tmp, True)
        env = dict(os.environ, LD_PRELOAD=" ".join([LIBAPIPROF, SHIM_MALLOC, SHIM_R, SHIM_A,
                                                    SHIM_B, shim_f]),
                   LD_LIBRARY_PATH=os.path.dirname(os.path.abspath(forkalt)),
                   APIPROF_OUTPUT=os.path.join(tmp, "out-%p.json"), APIPROF_SHM="0",
                   APIPROF_CLOCK=clock)
        env.pop("APIPROF_SAMPLE", None)
        p = subprocess.run([forkalt, str(n), str(m), str(k), str(how)], env=env,
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            fail("forkalt %d exited %d: %s" % (how, p.returncode, p.stderr))
        docs = {}
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name)) as f:
                docs[json.load(f)["pid"]] = name
            checker(os.path.join(tmp, name))
        if len(docs) != 2:
            fail("how %d: %d outputs, not the parent's and the child's" % (how, len(docs)))
        child = int(p.stdout.split()[-1])
        if child not in docs:
            fail("how %d: no output of the child %d: %s" % (how, child, sorted(docs)))
        for pid, name in docs.items():
            with open(os.path.join(tmp, name)) as f:
                doc = json.load(f)
            if pid != child:
                check_alt(doc, "how %d: the parent" % how, n + k, 1 if how == 1 else 0)
            else:
                check_alt(doc, "how %d: the child" % how, m, 1 if how == 1 else 0)
        print("ok: fork-alt how %d, clock %s: parent %d and child %d turns each, exact"
              % (how, clock, n + k, m))


{"paths": case_paths, "top": case_top, "top-children": case_top_children,
 "arena-full": case_arena_full, "fork": case_fork,
 "fork-alt": case_fork_alt, "once": case_once, "overflow": case_overflow, "sampled": case_sampled,
 "invariants": case_invariants}[CASE]()
print("ok")
