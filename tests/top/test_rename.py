#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Names and libraries as they are now, not as they were at the first call
(issue 22).

    test_rename.py APIPROF_TOP SHIM_TOPLIB SHIM_WRONGLIB RENAMEPROG SHMPEEK LIBTOPLIB

1. Threads renamed after their first calls: apiprof-top --json and -b show
   the new names while the program runs (the flusher reads them again),
   and APIPROF_OUTPUT and APIPROF_SUMMARY at exit, with no viewer (the
   threads' exit and the end of the image read them again).
2. The exit JSON: the title, p50/p99 inside [min, max] (equal to the value
   for one call), the histogram, and each api with "loaded".
3. A spec whose library is never loaded (wronglib.json names
   libtoplib-wrong.so.9): one line at exit, "loaded": false, and while a
   viewer watches its function entries carry APIPROF_FUNC_UNLOADED, until
   the program dlopen()s a library of that name.
Every step waits on a line from the program or a refresh of the viewer,
never on time.  Exit 77 = skipped.
"""
import atexit
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import preload  # noqa: E402

UNLOADED = 0x4
WARN = ("apiprof: wronglib: libtoplib-wrong.so.9 was never loaded; is the program static, "
        "or the library named differently?\n")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def start(prog, shims, tmp, tag):
    env = dict(os.environ, LD_PRELOAD=preload(*shims), APIPROF_INTERVAL_MS="50",
               APIPROF_OUTPUT=os.path.join(tmp, tag + ".json"), APIPROF_SUMMARY="1")
    env.pop("APIPROF_SHM", None)
    env.pop("APIPROF_SAMPLE", None)
    err = open(os.path.join(tmp, tag + ".err"), "w")
    p = subprocess.Popen([prog, "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=err, env=env, text=True)
    atexit.register(p.kill)
    expect(p, "ready")
    return p


def expect(p, line):
    got = p.stdout.readline()
    if got != line + "\n":
        fail("program said %r, not %r" % (got, line))


def send(p, line, answer):
    p.stdin.write(line + "\n")
    p.stdin.flush()
    expect(p, answer)


def finish(p, tmp, tag):
    p.stdin.close()
    if p.wait() != 0:
        fail("%s: exit status %d" % (tag, p.returncode))
    with open(os.path.join(tmp, tag + ".json")) as f:
        doc = json.load(f)
    with open(os.path.join(tmp, tag + ".err")) as f:
        return doc, f.read()


def names(threads):
    """{(thread name, function): calls}."""
    got = {}
    for t in threads:
        for f in t["functions"]:
            got[(t["name"], f["name"])] = got.get((t["name"], f["name"]), 0) + f["calls"]
    return got


BEFORE = {("before-0", "tt_work"): 10, ("before-1", "tt_work"): 10, ("renameprog", "tt_idle"): 1}
AFTER = {("after-0", "tt_work"): 15, ("after-1", "tt_work"): 15, ("after-main", "tt_work"): 5,
         ("after-main", "tt_idle"): 1}


class Viewer:
    """apiprof-top -b --json: each line one refresh, at most 400 (20 s)."""

    def __init__(self, top, pid):
        self.pid = pid
        self.p = subprocess.Popen([top, "-b", "--json", "-d", "0.05", "-n", "400", "-p", str(pid)],
                                  stdout=subprocess.PIPE, text=True)
        atexit.register(self.p.kill)

    def refresh(self):
        line = self.p.stdout.readline()
        if not line:
            fail("apiprof-top ended before the expected view")
        procs = [q for q in json.loads(line)["processes"] if q["pid"] == self.pid]
        return names(procs[0]["threads"]) if procs else None

    def wait_names(self, want):
        got = None
        for _ in range(400):
            got = self.refresh()
            if got == want:
                return
        fail("the viewer shows %r, not %r" % (got, want))

    def stop(self):
        self.p.terminate()
        self.p.wait()


def renamed_live(top, prog, shim, tmp):
    p = start(prog, [shim], tmp, "live")
    v = Viewer(top, p.pid)
    v.wait_names(BEFORE)
    send(p, "rename", "renamed")
    v.wait_names(AFTER)
    v.stop()
    text = subprocess.run([top, "-b", "-n", "1", "-p", str(p.pid)], stdout=subprocess.PIPE,
                          text=True, check=True).stdout
    if "after-0" not in text or "after-main" not in text or "before-" in text:
        fail("apiprof-top -b does not show the new names:\n" + text)
    doc, _ = finish(p, tmp, "live")
    if names(doc["threads"]) != AFTER:
        fail("APIPROF_OUTPUT: %r" % names(doc["threads"]))
    print("ok: apiprof-top --json and -b show threads renamed after their first calls")


def check_functions(doc):
    for t in doc["threads"]:
        for f in t["functions"]:
            q = [f[k] for k in ("min_ns", "p50_ns", "p99_ns", "max_ns")]
            if not q[0] <= q[1] <= q[2] <= q[3]:
                fail("min <= p50 <= p99 <= max violated: %r" % f)
            if f["timed"] == 1 and not q[0] == q[1] == q[2] == q[3]:
                fail("one call, quantiles not its value: %r" % f)
            h = f["hist"]
            if sum(h) != f["timed"] or len(h) > 64 or (h and h[-1] == 0):
                fail("histogram: %r" % f)


def renamed_at_exit(prog, shim, tmp):
    """No viewer: the flusher never runs, the exits read the names."""
    p = start(prog, [shim], tmp, "exit")
    send(p, "rename", "renamed")
    doc, err = finish(p, tmp, "exit")
    if names(doc["threads"]) != AFTER:
        fail("APIPROF_OUTPUT: %r" % names(doc["threads"]))
    for name in ("after-main", "after-0", "after-1"):
        if "(%s)\n" % name not in err:
            fail("APIPROF_SUMMARY lacks %s:\n%s" % (name, err))
    if "(before-" in err or "(renameprog)" in err:
        fail("APIPROF_SUMMARY has an old name:\n" + err)
    if doc["title"] != "%s 2" % prog:
        fail("title %r" % doc["title"])
    if doc["apis"] != [{"api": "toplib", "library": "libtoplib.so", "loaded": True}]:
        fail("apis %r" % doc["apis"])
    check_functions(doc)
    print("ok: APIPROF_OUTPUT and APIPROF_SUMMARY name renamed threads with no viewer; "
          "title, quantiles, histogram, loaded")


def funcs(shmpeek, pid):
    segs = glob.glob("/dev/shm/apiprof-%d-%d-*" % (os.getuid(), pid))
    if len(segs) != 1:
        fail("segments of %d: %r" % (pid, segs))
    out = subprocess.run([shmpeek, segs[0], "funcs"], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    return {line.split()[0]: int(line.split()[1]) for line in out.splitlines()}


def wait_flags(v, shmpeek, pid, wrong):
    """Until wronglib.tt_idle has APIPROF_FUNC_UNLOADED as `wrong` says,
    and toplib's functions never have it."""
    got = None
    for _ in range(400):
        v.refresh()
        got = {k: f & UNLOADED for k, f in funcs(shmpeek, pid).items()}
        toplib = [f for k, f in got.items() if k.startswith("toplib.")]
        if toplib and not any(toplib) and got.get("wronglib.tt_idle") == wrong:
            return
    fail("function flags %r, wronglib.tt_idle not %r" % (got, wrong))


def never_loaded(top, prog, shims, shmpeek, libtoplib, tmp):
    # Not loaded: said at exit, once, and "loaded": false.
    p = start(prog, shims, tmp, "never")
    doc, err = finish(p, tmp, "never")
    if err.count("apiprof: ") - err.count("apiprof: pid ") != 1 or WARN not in err:
        fail("stderr does not say once that wronglib's library was never loaded:\n" + err)
    loaded = {a["api"]: a["loaded"] for a in doc["apis"]}
    if loaded != {"toplib": True, "wronglib": False}:
        fail("apis %r" % doc["apis"])
    # timeout(1), which forks the program (and whose sigaction starts the
    # runtime: its summary shows), is quiet: the program says it, once.
    # (APIPROF_SUMMARY keeps a copy of stderr, which timeout closes.)
    env = dict(os.environ, LD_PRELOAD=preload(*shims), APIPROF_SUMMARY="1")
    env.pop("APIPROF_OUTPUT", None)
    r = subprocess.run(["timeout", "60", prog, "2"], env=env, text=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0 or r.stdout != "ready\n" or "(timeout), clock" not in r.stderr or \
            r.stderr.count("never loaded") != 1 or WARN not in r.stderr:
        fail("under timeout: status %d, stderr:\n%s" % (r.returncode, r.stderr))
    # While a viewer watches: flagged, until a library of that name appears.
    p = start(prog, shims, tmp, "late")
    v = Viewer(top, p.pid)
    wait_flags(v, shmpeek, p.pid, UNLOADED)
    late = os.path.join(tmp, "libtoplib-wrong.so.9")
    shutil.copy(libtoplib, late)
    send(p, "load " + late, "loaded")
    wait_flags(v, shmpeek, p.pid, 0)
    v.stop()
    doc, err = finish(p, tmp, "late")
    if "never loaded" in err or {a["api"]: a["loaded"] for a in doc["apis"]} != \
            {"toplib": True, "wronglib": True}:
        fail("a library loaded late is still said never loaded:\n%s%r" % (err, doc["apis"]))
    print("ok: a library never loaded is said at exit and flagged while watched, "
          "until it is loaded")


def main():
    top, shim, wrong, prog, shmpeek, libtoplib = sys.argv[1:7]
    if not os.access("/dev/shm", os.W_OK):
        print("skip: /dev/shm not writable")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="apiprof-rename-")
    atexit.register(shutil.rmtree, tmp, True)
    renamed_live(top, prog, shim, tmp)
    renamed_at_exit(prog, shim, tmp)
    never_loaded(top, prog, [shim, wrong], shmpeek, libtoplib, tmp)


if __name__ == "__main__":
    main()
