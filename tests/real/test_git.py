# SPDX-License-Identifier: MIT
"""Debian's git, `git log -p` on a repository with history, profiled by
apiprof-run -s zlib, checked against ltrace (issue 35.9).

  test_git.py APIPROF_RUN RUNTIME

The test makes a repository of 300 commits of one generated file that
changes at every commit (git fast-import: one pack, with deltas), then runs
the same `git log -p` twice: under `ltrace -c -e inflate` (git calls zlib's
inflate through its PLT, which ltrace traces) and under apiprof-run. The
output and exit status are the same; inflate, inflateInit_ and inflateEnd
calls = ltrace's counts.

Takes about 3 s (2 cores).
"""
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reallib import Checks, begin, count_table, load, run, say, total  # noqa: E402

COMMITS = 300
FUNCS = ("inflate", "inflateInit_", "inflateEnd")


def history():
    """A fast-import stream: COMMITS commits of file.txt, each changing one
    line and adding another."""
    lines = ["line %d: %s\n" % (i, "x" * (i % 50)) for i in range(400)]
    out = []
    for c in range(COMMITS):
        lines[(c * 7) % 400] = "line %d changed in commit %d\n" % ((c * 7) % 400, c)
        lines.insert((c * 13) % len(lines), "added in commit %d\n" % c)
        data = "".join(lines).encode()
        msg = b"commit %d\n" % c
        out += [b"commit refs/heads/main\n",
                b"committer T <t@example.org> %d +0000\n" % (1700000000 + c * 60),
                b"data %d\n" % len(msg), msg,
                b"M 100644 inline file.txt\ndata %d\n" % len(data), data, b"\n"]
    return b"".join(out)


def main():
    sb, (apiprof_run, _) = begin("test_git.py APIPROF_RUN RUNTIME",
                                 [("git", "git"), ("ltrace", "ltrace")])
    # No configuration but the test's: no pager, no user or system config.
    os.environ.update(HOME=sb.path(), GIT_CONFIG_NOSYSTEM="1", GIT_PAGER="cat", LC_ALL="C")
    repo = sb.path("repo")
    run(["git", "init", "-q", "-b", "main", repo])
    run(["git", "-C", repo, "fast-import", "--quiet"], input=history(), text=False)
    cmd = ["git", "-C", repo, "--no-pager", "log", "-p", "main"]
    lt = sb.path("ltrace.txt")
    bare = subprocess.run(["ltrace", "-c", "-o", lt, "-e", "+".join(FUNCS)] + cmd,
                          capture_output=True)
    out = sb.path("git.json")
    prof = subprocess.run([apiprof_run, "-s", "zlib", "-o", out, "--"] + cmd, capture_output=True)
    checks = Checks("git log -p")
    say("git log -p: %d bytes of output" % len(bare.stdout))
    checks.same_run(prof, bare, "under ltrace")
    lc = count_table(lt)
    doc = load(out)
    for fn in FUNCS:
        checks.equal("%s calls" % fn, total([doc], fn), "ltrace's", lc.get(fn, 0))
    checks.true("ltrace saw inflate at work", lc.get("inflate", 0) >= COMMITS,
                "%d inflate calls for %d commits" % (lc.get("inflate", 0), COMMITS))
    sb.finish(checks)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
