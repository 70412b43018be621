#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""As root, apiprof-top --user NAME and --comm NAME (issue 41): whose and
which processes the viewer and the exporter show.

    test_select.py APIPROF_TOP LIBAPIPROF SHIM PRIVPROG FORKPROG

Two commands under the shim: privprog (root) with a worker that became
uid 12345 (numeric, no passwd entry), and forkprog (root) with WORKERS
workers; each process makes an exact number of tt_work calls.  Without
-p, in a private /dev/shm holding only theirs:
  - --user 12345: the uid 12345 worker alone;
  - --user root: every root process, not the worker;
  - --comm forkprog: forkprog's master and workers;
  - --comm privprog --user 12345: the worker (both must hold);
  - --comm forkprog --comm privprog (repeated): all of them;
  - the exporter (--textfile, --per-process) with --comm privprog: the
    privprog processes' series only;
  - an unknown user name is refused, saying so.
A viewer's output is read until exactly the wanted processes show their
exact counts, bounded by its -n; a process it must not show fails the
test in any refresh.  Exit 77 = skipped (not root, or no private mount
namespace).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import fail, preload, private_shm  # noqa: E402
from test_fork_group import CALLS, WORKERS  # noqa: E402
from test_privdrop import CHILD_CALLS, PARENT_CALLS, USER, work_calls  # noqa: E402

INNER = "APIPROF_TEST_SELECT_INNER"


def viewer(top, args, want):
    """Reads refreshes until exactly want's pids show want's tt_work calls."""
    v = subprocess.Popen([top, "-b", "--json", "-d", "0.05", "-n", "200"] + args,
                         stdout=subprocess.PIPE, text=True)
    seen = None
    try:
        for line in v.stdout:
            procs = {q["pid"]: q for q in json.loads(line)["processes"]}
            extra = set(procs) - set(want)
            if extra:
                fail("%s shows %r, which it must not" % (" ".join(args), sorted(extra)))
            seen = {pid: work_calls(q) for pid, q in procs.items()}
            if seen == want:
                return
    finally:
        v.kill()
        v.wait()
    fail("%s: want tt_work calls %r, last seen %r" % (" ".join(args), want, seen))


def exporter(top, args, want):
    """The exporter's textfile names exactly want's pids."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([top, "--textfile", d, "--all-users", "--per-process", "-d", "0.05",
                        "-n", "3"] + args, check=True)
        with open(os.path.join(d, "apiprof.prom")) as f:
            text = f.read()
    got = {int(p) for p in re.findall(r'pid="(\d+)"', text)}
    if got != set(want):
        fail("exporter %s: series of pids %r, want %r" % (" ".join(args), sorted(got),
                                                          sorted(want)))


def start(prog, args, env):
    p = subprocess.Popen([prog] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    line = p.stdout.readline().split()
    if not line or line[0] != "ready":
        fail("%s did not get ready: %r" % (prog, line))
    return p, [int(x) for x in line[1:]]


def inner():
    top, libapiprof, shim, privprog, forkprog = sys.argv[1:6]
    env = dict(os.environ, LD_PRELOAD=preload(libapiprof, shim))
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1")
    for k in ("APIPROF_SHM", "APIPROF_KEEP_SHM", "APIPROF_INTERVAL_MS", "APIPROF_OUTPUT"):
        env.pop(k, None)
    priv, (child,) = start(privprog, [str(USER), str(PARENT_CALLS), str(CHILD_CALLS)], env)
    fork, workers = start(forkprog, [str(WORKERS), str(CALLS)], env)
    try:
        privs = {priv.pid: PARENT_CALLS, child: CHILD_CALLS}
        forks = {fork.pid: 0}
        forks.update({w: CALLS * (k + 1) for k, w in enumerate(workers)})
        roots = {**forks, priv.pid: PARENT_CALLS}

        viewer(top, ["--user", str(USER)], {child: CHILD_CALLS})
        print("ok: --user %d: its worker alone" % USER)
        viewer(top, ["--user", "root"], roots)
        print("ok: --user root: every root process, not uid %d's" % USER)
        viewer(top, ["--comm", "forkprog"], forks)
        print("ok: --comm forkprog: its master and %d workers" % WORKERS)
        viewer(top, ["--comm", "privprog", "--user", str(USER)], {child: CHILD_CALLS})
        print("ok: --comm and --user together: both hold")
        viewer(top, ["--comm", "forkprog", "--comm", "privprog"], {**forks, **privs})
        print("ok: --comm repeated: both commands")
        exporter(top, ["--comm", "privprog"], privs)
        print("ok: the exporter takes --comm too")
        r = subprocess.run([top, "-b", "--user", "no-such-user-apiprof"], capture_output=True,
                           text=True)
        if r.returncode == 0 or "bad value for --user: no-such-user-apiprof" not in r.stderr:
            fail("an unknown user: status %d, %r" % (r.returncode, r.stderr))
        print("ok: an unknown user is refused, saying so")
    finally:
        priv.stdin.close()
        fork.stdin.close()
        priv.wait()
        fork.wait()


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("skip: needs root, to see two users' processes")
        sys.exit(77)
    private_shm(__file__, INNER)
    inner()
