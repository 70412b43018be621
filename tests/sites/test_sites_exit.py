#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call sites and the call tree in the exit outputs (issue 23).

usage: test_sites_exit.py CASE SHIM_SITELIB SHIM_SITEA SHIM_SITEB SITESPROG
                          SITESPROG_STRIPPED OVERPROG EDGEPROG LIBAPIPROF LATPROG
                          SHIM_SITEV EDGEVER [SITEA_BOMB PLANTDEL TWOPROG]

CASE is one of:

- sites, sitesprog (-g): sitelib.sl_work's callers in APIPROF_OUTPUT are exactly
  site_a 1000, site_b 2000, site_c 3000, named with file and line; the
  same from a thread folded into "(exited)";
- stripped, its stripped copy: the same calls, symbol null, module and offsets (the
  -g build's offsets: strip moves no code);
- unnamed, sitesprog ending by _exit: the same calls, no name looked up
  (apiprof_addr.c looks names up only in an end by exit);
- edge, edgeprog: a_work's children are b_leaf with 5 x its calls, its self
  time is its total less theirs; b_leaf's callers carry parent
  sitea.a_work (500) or none (7, main's own);
- edgesampled, edgeprog under APIPROF_SAMPLE=8: the same edge, estimated.
  Most a_work calls are untimed, which keep no call tree: a timed b_leaf
  finds its parent from the thread's frames (apiprof_slow.c), inline
  entered (the wrapper's return address) or out of line;
- overflow, overprog: 20 sites, 16 named ones and "(other callers)" with the rest;
- sampled, APIPROF_SAMPLE=64: counts exact, callers estimated and adding up;
- summary, APIPROF_SUMMARY: the tree has b_leaf indented under a_work, the top list.
- latency, latprog: sl_spin's callers site_fast (1000 calls of 1 round) and
  site_slow (250 of 20000), every call a switch of site: exact counts, each
  with its own p50/p99, the slow site's p50 above the fast one's p99 (a
  different log2 bucket: 20000 rounds against 1), and its total time
  above the fast site's (5000 times the work); the row's histogram
  still has every call (timed == calls == its sum), its p50 and p99
  between the sites'; the same from a thread folded into "(exited)";
- latsampled, APIPROF_SAMPLE=8: the sites' quantiles estimated, in the
  same order.
- edgeroots, edgeprog under APIPROF_SAMPLE=8 with 40000 calls of main's
  own after the a_work ones: those are roots, though the timed b_leaf
  calls before them had a_work for parent.  A timed call with no call in
  progress on its thread is timed inline (apiprof_enter_due), with no
  parent whatever the thread's innermost call was left at;
- edgemix, edgeprog in 10 rounds of 1000 a_mix calls (5000 of b_leaf
  inside, through a_leaf) and 5000 of a_leaf by main: the same site of
  b_leaf (in a_leaf) is inside a_mix or a root by turns; the call tree's
  paths (issue 35.2) have exactly 50000 on each, and under
  APIPROF_SAMPLE=8 all 100000 on the two, within a few draws a round.  A timed call inline tells whether it has a parent from the
  frame words (apiprof_any_in_call), not from its site, which the roots
  share;
- edgever, edgever under APIPROF_SAMPLE=8: edgesampled through versioned
  wrappers (sitev.a_work at SV_2, a_work_old at SV_1) and one named by an
  asm label (a_work_cxx, a C++ symbol): the inline-entered
  frames' rows come from the shim's table of wrappers, which must know
  the versioned wrappers' own addresses (apiprof_wrappers.c);
- bomb, edgeprog with a libsitea.so whose .debug_info inflates to 400 MB
  (SITEA_BOMB, 405 kB; issue 34): the section is skipped before libdw
  sees it, with one line on stderr; a_work is still named (its symbol
  table is intact), without file or line; the host's peak memory stays
  under 200 MB;
- deleted, edgeprog with its libsitea.so removed once loaded and a
  symbolic link "libsitea.so (deleted)" to that bomb planted in its place
  (PLANTDEL, preloaded): the link is not followed, so nothing is said and
  the peak memory stays under 200 MB; a_work is named by the loader's
  dynamic symbol, without file or line;
- twochildren, twoprog: a_two's two children are b_leaf with 2 x its calls
  and b_twig with 3 x, each with its own count and time: a child called
  nowhere else has the total_ns of its own row, and a_two's self time is
  its total less the two;
- twosummary, APIPROF_SUMMARY of twoprog: b_leaf and b_twig under a_two,
  each with its own calls and total.
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import preload  # noqa: E402  (sanitizer runtimes first)

CASE = sys.argv[1]
LIB, SHIM_A, SHIM_B, PROG, STRIPPED, OVER, EDGE, RUNTIME, LAT, SHIM_V, EDGEVER = sys.argv[2:13]
# Only some cases need these (tests/dyn passes none).
BOMB, PLANTDEL, TWO = (sys.argv[13:16] + [None, None, None])[:3]
N_TWO, LEAF, TWIG = 100, 2, 3  # twoprog: a_two's calls, its b_leaf and b_twig calls each


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(shims, argv, tmp, **extra):
    out = os.path.join(tmp, "out.json")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, LD_PRELOAD=preload(*shims), APIPROF_OUTPUT=out, APIPROF_SHM="0",
               APIPROF_INTERVAL_MS="0")
    env.update(extra)
    p = subprocess.run(argv, env=env, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail("%s exited %d:\n%s" % (argv, p.returncode, p.stderr))
    with open(out) as f:
        return json.load(f), p.stderr


def func(doc, api, name, state=None):
    found = [f for t in doc["threads"] for f in t["functions"]
             if f["api"] == api and f["name"] == name and (state is None or t["state"] == state)]
    if len(found) != 1:
        fail("%s.%s (%s): %d rows in %s" % (api, name, state, len(found), json.dumps(doc)))
    return found[0]


def three_sites(doc, state, module):
    f = func(doc, "sitelib", "sl_work", state)
    got = {c["symbol"]: c for c in f["callers"]}
    if f["calls"] != 6000 or sorted(got) != ["site_a", "site_b", "site_c"]:
        fail("sl_work's callers: %r" % f)
    for sym, n in (("site_a", 1000), ("site_b", 2000), ("site_c", 3000)):
        c = got[sym]
        if c["calls"] != n or c["estimated"] or c["module"] != module or \
                not c["file"].endswith("sitesprog.c") or c["line"] <= 0 or "parent" in c:
            fail("caller %s: %r" % (sym, c))
    if f["children"] != [] or f["self_ns"] != f["total_ns"]:
        fail("sl_work has no children, self = total: %r" % f)
    return {c["offset"]: c["calls"] for c in f["callers"]}


def test_sites(tmp):
    doc, _ = run([LIB], [PROG], tmp)
    three_sites(doc, "running", "sitesprog")
    doc, _ = run([LIB], [PROG, "1", "thread"], tmp, APIPROF_KEEP_EXITED="0")
    three_sites(doc, "folded", "sitesprog")
    print("ok: three call sites exact, named, with file and line; folded too")


def test_stripped(tmp):
    doc, _ = run([LIB], [PROG], tmp)
    offsets = three_sites(doc, "running", "sitesprog")
    doc, _ = run([LIB], [STRIPPED], tmp)
    f = func(doc, "sitelib", "sl_work")
    got = {c["offset"]: c["calls"] for c in f["callers"]}
    if any(c["symbol"] is not None or c["module"] != "sitesprog_stripped" or "file" in c
           for c in f["callers"]) or got != offsets:
        fail("stripped callers %r, the -g build's offsets %r" % (f["callers"], offsets))
    print("ok: stripped: module+offset, the same three offsets and calls")


def test_unnamed(tmp):
    # The runtime ahead of libc, as apiprof-run puts it, hooks _exit.
    doc, _ = run([RUNTIME, LIB], [PROG, "1", "_exit"], tmp)
    f = func(doc, "sitelib", "sl_work")
    cs = f["callers"]
    if sorted(c["calls"] for c in cs) != [1000, 2000, 3000] or \
            any(c["symbol"] is not None or c["module"] is not None or c["offset"] is not None
                for c in cs):
        fail("_exit: %r" % cs)
    print("ok: an end by _exit: exact callers, no names looked up")


def test_edge(tmp):
    doc, _ = run([SHIM_A, SHIM_B], [EDGE, "100"], tmp)
    a = func(doc, "sitea", "a_work")
    b = func(doc, "siteb", "b_leaf")
    kids = a["children"]
    if a["calls"] != 100 or len(kids) != 1 or kids[0]["api"] != "siteb" or \
            kids[0]["name"] != "b_leaf" or kids[0]["calls"] != 500 or kids[0]["estimated"]:
        fail("a_work's children: %r" % a)
    if not a["self_ns"] <= a["total_ns"] or abs(a["total_ns"] - kids[0]["total_ns"] -
                                               a["self_ns"]) > 2:
        fail("a_work's self time: %r" % a)
    inside = [c for c in b["callers"] if c.get("parent") == "sitea.a_work"]
    roots = [c for c in b["callers"] if "parent" not in c]
    if b["calls"] != 507 or sum(c["calls"] for c in inside) != 500 or \
            sum(c["calls"] for c in roots) != 7 or len(inside) + len(roots) != len(b["callers"]):
        fail("b_leaf's callers: %r" % b)
    if any(c["symbol"] != "a_work" or c["module"] != "libsitea.so" for c in inside) or \
            any(c["symbol"] != "main" for c in roots):
        fail("b_leaf's callers' names: %r" % b["callers"])
    if b["children"] != [] or b["self_ns"] != b["total_ns"]:
        fail("b_leaf: %r" % b)
    print("ok: the edge sitea.a_work -> siteb.b_leaf is exact, self <= total")


def test_edgesampled(tmp):
    n = 20000
    doc, _ = run([SHIM_A, SHIM_B], [EDGE, str(n)], tmp, APIPROF_SAMPLE="8")
    a = func(doc, "sitea", "a_work")
    b = func(doc, "siteb", "b_leaf")
    inside = sum(c["calls"] for c in b["callers"] if c.get("parent") == "sitea.a_work")
    rest = [c for c in b["callers"] if "parent" not in c]
    # A run of calls is counted at the site of its first timed call: the
    # calls before b_leaf's first (in "(other callers)"; the countdown
    # also runs down on a_work's calls) and the 7 of main's own at the end
    # are all that fall outside a_work, a few dozen at most.  Were the
    # parents of the timed calls made inside untimed a_work calls lost,
    # only about one in 8 would be inside.  An entry is estimated when
    # some of its calls were not timed: those inside a_work are, while
    # main's few calls may all have been (then they are exact).
    if b["calls"] != 5 * n + 7 or inside + sum(c["calls"] for c in rest) != b["calls"] or \
            not 5 * n - 100 <= inside <= 5 * n + 7 or \
            any(c["symbol"] not in ("main", "(other callers)") for c in rest) or \
            not all(c["estimated"] for c in b["callers"] if "parent" in c):
        fail("b_leaf's callers, sampled: %d inside a_work: %r" % (inside, b))
    kids = a["children"]
    if a["calls"] != n or len(kids) != 1 or kids[0]["name"] != "b_leaf" or \
            not kids[0]["estimated"] or kids[0]["calls"] != inside or \
            not a["self_ns"] <= a["total_ns"]:
        fail("a_work's children, sampled: %r" % a)
    print("ok: sampled: the edge sitea.a_work -> siteb.b_leaf, %d of %d calls" %
          (inside, b["calls"]))


def test_edgeroots(tmp):
    n, m = 2000, 40000
    doc, _ = run([SHIM_A, SHIM_B], [EDGE, str(n), str(m)], tmp, APIPROF_SAMPLE="8")
    b = func(doc, "siteb", "b_leaf")
    inside = [c for c in b["callers"] if c.get("parent") == "sitea.a_work"]
    roots = [c for c in b["callers"] if "parent" not in c]
    n_in = sum(c["calls"] for c in inside)
    n_root = sum(c["calls"] for c in roots)
    # Runs are counted at the site of their first timed call: the calls of
    # the run that crosses from a_work's calls to main's (a few draws of
    # at most 15 calls) and those before b_leaf's first timed call are
    # all that may land on the other side.
    if b["calls"] != 5 * n + m or n_in + n_root != b["calls"] or \
            len(inside) + len(roots) != len(b["callers"]) or \
            not 5 * n - 100 <= n_in <= 5 * n + 100 or \
            any(c["symbol"] != "a_work" for c in inside) or \
            any(c["symbol"] not in ("main", "(other callers)") for c in roots):
        fail("b_leaf's callers, sampled, roots after edges: %d inside, %d roots: %r" %
             (n_in, n_root, b))
    print("ok: sampled: %d of b_leaf's calls inside a_work, %d of main's own" % (n_in, n_root))


def leaf_paths(doc, b):
    """b_leaf's calls by path of functions in its thread's tree: inside
    a_mix (whatever a_mix's root), or b_leaf a root (its call site a_leaf
    by main, or "(context not known)")."""
    th = [t for t in doc["threads"] if any(f is b for f in t["functions"])][0]
    nodes = {n["id"]: n for n in th.get("tree", [])}
    inside = root = other = 0
    for n in nodes.values():
        if n["function"] != "siteb.b_leaf":
            continue
        if n["parent"] is None:
            root += n["calls"]
        elif nodes[n["parent"]]["function"] == "sitea.a_mix":
            inside += n["calls"]
        else:
            other += n["calls"]
    return inside, root, other


def test_edgemix(tmp):
    # The site of b_leaf in a_leaf is the same inside a_mix and by main:
    # its callers entry has no one parent, the tree's paths split it.
    # Every call timed: exactly 10 x 5000 on each path.
    doc, _ = run([SHIM_A, SHIM_B], [EDGE, "1000", "5000", "10"], tmp)
    b = func(doc, "siteb", "b_leaf")
    n_in, n_root, n_other = leaf_paths(doc, b)
    if b["calls"] != 100000 or (n_in, n_root, n_other) != (50000, 50000, 0):
        fail("b_leaf's paths, inside a_mix and not by turns: %d inside, %d roots, %d other" %
             (n_in, n_root, n_other))
    # Sampled: the calls between two timed ones count at the first's path
    # (20 changes of path, each may move up to 15 calls, and those before
    # b_leaf's first timed call are "(context not known)" roots), but every
    # call is on one path.
    doc, _ = run([SHIM_A, SHIM_B], [EDGE, "1000", "5000", "10"], tmp, APIPROF_SAMPLE="8")
    b = func(doc, "siteb", "b_leaf")
    s_in, s_root, s_other = leaf_paths(doc, b)
    if b["calls"] != 100000 or s_in + s_root != b["calls"] or s_other != 0 or \
            not 50000 - 400 <= s_in <= 50000 + 400 or \
            any(c["symbol"] not in ("a_leaf", "(other callers)") for c in b["callers"]):
        fail("b_leaf's paths, sampled: %d inside a_mix, %d roots, %d other: %r" %
             (s_in, s_root, s_other, b))
    print("ok: b_leaf's calls from one site: %d inside a_mix, %d roots; sampled %d and %d" %
          (n_in, n_root, s_in, s_root))


def test_edgever(tmp):
    n = 10000
    doc, _ = run([SHIM_V, SHIM_B], [EDGEVER, str(n)], tmp, APIPROF_SAMPLE="8")
    b = func(doc, "siteb", "b_leaf")
    inside = {}
    for c in b["callers"]:
        inside[c.get("parent")] = inside.get(c.get("parent"), 0) + c["calls"]
    # As in edgesampled, with three parents: b_leaf's calls before its first
    # timed one and main's 7 are all that may fall outside them.  The three
    # take turns every 5 calls, and a run of calls counts at the site of
    # its first timed call, so each has its 5n only to a percent or so.
    # Had the runtime not known a wrapper's code, the timed calls made
    # inside its untimed calls (7 in 8) would have no parent.
    parents = {"sitev.a_work", "sitev.a_work_old", "sitev.a_work_cxx"}
    if b["calls"] != 15 * n + 7 or sum(inside.values()) != b["calls"] or \
            set(inside) - {None} != parents or \
            inside.get(None, 0) > 100 or \
            any(not 4.5 * n <= inside[p] <= 5.5 * n for p in parents):
        fail("b_leaf's callers through versioned and labelled wrappers: %r" % inside)
    for name in ("a_work", "a_work_old", "a_work_cxx"):
        a = func(doc, "sitev", name)
        kids = a["children"]
        if a["calls"] != n or len(kids) != 1 or kids[0]["name"] != "b_leaf" or \
                kids[0]["calls"] != inside["sitev." + name]:
            fail("sitev.%s's children: %r" % (name, a))
    print("ok: versioned and labelled wrappers: b_leaf inside a_work@@SV_2 %d, a_work@SV_1 %d, "
          "_ZN5sitev4workEi %d of %d calls" % (inside["sitev.a_work"], inside["sitev.a_work_old"],
                                               inside["sitev.a_work_cxx"], b["calls"]))


def test_twochildren(tmp):
    doc, _ = run([SHIM_A, SHIM_B], [TWO, str(N_TWO)], tmp)
    a = func(doc, "sitea", "a_two")
    kids = {(k["api"], k["name"]): k for k in a["children"]}
    want = {("siteb", "b_leaf"): LEAF * N_TWO, ("siteb", "b_twig"): TWIG * N_TWO}
    if a["calls"] != N_TWO or len(a["children"]) != 2 or \
            {k: v["calls"] for k, v in kids.items()} != want or \
            any(v["estimated"] for v in kids.values()):
        fail("a_two's children, want b_leaf %d and b_twig %d calls: %r" %
             (LEAF * N_TWO, TWIG * N_TWO, a))
    # Each child is called only inside a_two: its entry under a_two is all
    # of its calls, so its time there is its row's total, to the ns.
    for (api, name), n in want.items():
        row = func(doc, api, name)
        if row["calls"] != n or kids[(api, name)]["total_ns"] != row["total_ns"]:
            fail("a_two's child %s: %r, its row: calls %d total_ns %d" %
                 (name, kids[(api, name)], row["calls"], row["total_ns"]))
    inside = sum(v["total_ns"] for v in kids.values())
    if not a["self_ns"] <= a["total_ns"] or abs(a["total_ns"] - inside - a["self_ns"]) > 2:
        fail("a_two's self time, want its total less its children's %d: %r" % (inside, a))
    print("ok: a_two's two children b_leaf %d and b_twig %d, each its own time" %
          (LEAF * N_TWO, TWIG * N_TWO))


def test_twosummary(tmp):
    _, err = run([SHIM_A, SHIM_B], [TWO, str(N_TWO)], tmp, APIPROF_SUMMARY="1")
    lines = err.splitlines()
    start = lines.index("  call tree:") if "  call tree:" in lines else len(lines)
    at = next((i for i in range(start, len(lines)) if lines[i].endswith("  sitea.a_two")), None)
    tree = lines[at:at + 3] if at is not None else []
    got = sorted((l.split()[0], l.split()[-1]) for l in tree[1:] if "`- " in l)
    want = [(str(LEAF * N_TWO), "siteb.b_leaf"), (str(TWIG * N_TWO), "siteb.b_twig")]
    if len(tree) != 3 or tree[0].split()[0] != str(N_TWO) or got != want:
        fail("the tree, want a_two %d with b_leaf %d and b_twig %d under it:\n%s" %
             (N_TWO, LEAF * N_TWO, TWIG * N_TWO, err))
    # Each child's total in the tree is its row's (called only inside a_two),
    # the same figure as the summary's table has for the row.
    table = {l.split()[-1]: l.split()[1] for l in lines[:start]
             if l.split()[-1:] in (["siteb.b_leaf"], ["siteb.b_twig"])}
    for line in tree[1:]:
        if line.split()[1] != table.get(line.split()[-1]):
            fail("%s's total under a_two is not its row's:\n%s" % (line.split()[-1], err))
    print("ok: the summary's tree has b_leaf %d and b_twig %d under a_two" %
          (LEAF * N_TWO, TWIG * N_TWO))


def test_overflow(tmp):
    doc, _ = run([LIB], [OVER], tmp)
    f = func(doc, "sitelib", "sl_work")
    got = {c["symbol"]: c["calls"] for c in f["callers"]}
    # the 16 with the most calls, exact (the table holds all 20); the
    # other four in "(other callers)", of which none had more than 400
    want = {"ov_%02d" % k: 100 * (k + 1) for k in range(4, 20)}
    want["(other callers)"] = 1000
    other = [c for c in f["callers"] if c["symbol"] == "(other callers)"]
    if f["calls"] != 21000 or got != want or len(f["callers"]) != 17 or \
            not all(c["exact"] and c["calls_error"] == 0 for c in f["callers"]) or \
            other[0].get("max_site_calls") != 400:
        fail("overflow: %r" % f)
    print("ok: 20 sites: the 16 busiest named and exact, (other callers) 1000, 21000 in all")


def test_sampled(tmp):
    doc, _ = run([LIB], [PROG, "200"], tmp, APIPROF_SAMPLE="64")
    f = func(doc, "sitelib", "sl_work")
    cs = f["callers"]
    if f["calls"] != 1200000 or not f["estimated"] or sum(c["calls"] for c in cs) != 1200000 \
            or not all(c["estimated"] for c in cs):
        fail("sampled: %r" % f)
    # A site's estimate is off by at most the calls between two timed
    # calls (2N-1) at each end of its run.
    named = {c["symbol"]: c["calls"] for c in cs if c["symbol"] != "(other callers)"}
    want = {"site_a": 200000, "site_b": 400000, "site_c": 600000}
    if sorted(named) != sorted(want) or any(abs(named[k] - want[k]) > 254 for k in want):
        fail("sampled callers: %r" % cs)
    print("ok: sampled: 1200000 calls exact, callers estimated, adding up")


def test_summary(tmp):
    _, err = run([SHIM_A, SHIM_B], [EDGE, "100"], tmp, APIPROF_SUMMARY="1")
    lines = err.splitlines()
    try:
        at = lines.index("  call tree:")
    except ValueError:
        fail("no call tree:\n" + err)
    at = next((i for i in range(at, len(lines)) if lines[i].endswith("  sitea.a_work")), at)
    tree = lines[at:at + 2]
    if len(tree) != 2 or tree[0].split()[0] != "100" or not tree[0].endswith("  sitea.a_work") \
            or tree[1].split()[0] != "500" or not tree[1].endswith("    `- siteb.b_leaf"):
        fail("the tree:\n" + err)
    heads = [l.split() for l in lines if l.split()[-1:] == ["function"]]
    if "top by self time:" not in lines or heads[0][:3] != ["calls", "total", "self"]:
        fail("no top list or SELF column:\n" + err)
    print("ok: the summary's tree has b_leaf under a_work, a top list and SELF")


def two_latencies(doc, state, sampled):
    f = func(doc, "sitelib", "sl_spin", state)
    # sampled: the calls before the first timed one have no site, nor time
    got = {c["symbol"]: c for c in f["callers"]
           if not sampled or c["symbol"] != "(other callers)" or c["p50_ns"] is not None}
    if f["calls"] != 1250 or sorted(got) != ["site_fast", "site_slow"]:
        fail("sl_spin's callers: %r" % f)
    fast, slow = got["site_fast"], got["site_slow"]
    for c, n in ((fast, 1000), (slow, 250)):
        if (c["calls"] != n and not sampled) or c["p50_ns"] is None or c["p99_ns"] is None \
                or not 0 <= c["p50_ns"] <= c["p99_ns"]:
            fail("caller %s: %r" % (c["symbol"], c))
    if not fast["p99_ns"] < slow["p50_ns"]:
        fail("site_slow's p50 not above site_fast's p99: %r" % f["callers"])
    # Every call switches site, and each site's time is the sum of its
    # own calls' (its 250 calls do 5000 times the work of the other's
    # 1000): a switch that kept the time of one run in the other's shows.
    if not sampled and not fast["total_ns"] < slow["total_ns"]:
        fail("site_slow's total time not above site_fast's: %r" % f["callers"])
    if not sampled and (f["timed"] != 1250 or sum(f["hist"]) != 1250):
        fail("the row's histogram lost calls: %r" % f)
    if not fast["p50_ns"] <= f["p50_ns"] <= slow["p50_ns"] or \
            not fast["p99_ns"] <= f["p99_ns"] <= slow["p99_ns"]:
        fail("the row's p50/p99 not between its sites': %r" % f)


def test_latency(tmp):
    doc, _ = run([LIB], [LAT], tmp)
    two_latencies(doc, "running", False)
    doc, _ = run([LIB], [LAT, "thread"], tmp, APIPROF_KEEP_EXITED="0")
    two_latencies(doc, "folded", False)
    print("ok: per-caller p50/p99: site_slow above site_fast, the row's unchanged; folded too")


def test_latsampled(tmp):
    doc, _ = run([LIB], [LAT], tmp, APIPROF_SAMPLE="8")
    two_latencies(doc, "running", True)
    print("ok: sampled: per-caller p50/p99 estimated, site_slow above site_fast")


def a_work_named(doc, where):
    """edgeprog 100 with the bomb for libsitea.so: b_leaf's 500 calls
    inside a_work are a_work's, in libsitea.so, with no file (its
    .debug_info was not read), and the host's peak memory stayed below
    200 MB.  Returns the peak in kB."""
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    b = func(doc, "siteb", "b_leaf")
    inside = [c for c in b["callers"] if c.get("parent") == "sitea.a_work"]
    if sum(c["calls"] for c in inside) != 500 or \
            any(c["symbol"] != "a_work" or c["module"] != "libsitea.so" or "file" in c
                for c in inside):
        fail("b_leaf's callers in %s: %r" % (where, b["callers"]))
    if peak_kb >= 200 * 1024:
        fail("the host's peak memory %d kB, want less than 204800" % peak_kb)
    return peak_kb


def test_bomb(tmp):
    libdir = os.path.join(tmp, "lib")
    os.mkdir(libdir)
    lib = os.path.join(libdir, "libsitea.so")
    shutil.copy(BOMB, lib)
    doc, err = run([SHIM_A, SHIM_B], [EDGE, "100"], tmp, LD_LIBRARY_PATH=libdir)
    want = ("apiprof: call-site names: %s: section .debug_info inflates to 419430400 bytes, "
            "more than the 268435456 allowed, skipped" % lib)
    peak_kb = a_work_named(doc, "the bomb")
    if err.splitlines() != [want]:
        fail("stderr %r, want the one line %r" % (err, want))
    print("ok: a 400 MB .debug_info skipped with one line, a_work named, peak %d kB" % peak_kb)


def test_deleted(tmp):
    libdir = os.path.join(tmp, "lib")
    os.mkdir(libdir)
    lib = os.path.join(libdir, "libsitea.so")
    bomb = os.path.join(tmp, "bomb.so")
    shutil.copy(BOMB, bomb)
    shutil.copy(BOMB, lib)
    doc, err = run([SHIM_A, SHIM_B, PLANTDEL], [EDGE, "100"], tmp, LD_LIBRARY_PATH=libdir,
                   PLANT_LIB=lib, PLANT_TO=bomb)
    if os.path.exists(lib) or not os.path.islink(lib + " (deleted)"):
        fail("the link was not planted")
    peak_kb = a_work_named(doc, "the deleted library")
    if err != "":
        fail("stderr %r, want nothing" % err)
    print("ok: a planted 'NAME (deleted)' link not followed, a_work named, peak %d kB" %
          peak_kb)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        globals()["test_" + CASE](tmp)


if __name__ == "__main__":
    main()
