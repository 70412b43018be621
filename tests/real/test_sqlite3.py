# SPDX-License-Identifier: MIT
"""Debian's sqlite3 CLI on a database file, profiled by apiprof-run,
checked against strace (issue 35.9).

  test_sqlite3.py APIPROF_RUN RUNTIME counts|tree

The same script of 20 transactions of 50 inserts each, an index and a
query runs twice on a new database: once under `strace -f -c` alone, once
under `apiprof-run -s posix_io,sqlite3` (both witnesses exact: sqlite3 is
deterministic on a new file). The output and exit status are bare's.

counts: pwrite (with pwrite64), fdatasync and fsync calls = strace's
counts of the pwrite64, fdatasync and fsync system calls, and the CLI
makes all of them inside sqlite3_step: the children of sqlite3_step have
every one of them.

tree: -s posix_io,sqlite3,malloc --summary, and the call tree's
invariants on the exit JSON and the summary (issue 35.2), by
tests/tools/tree_invariants.py: a child's time never exceeds its
parent's, self = total minus the children, never negative, and the
children's calls at most their parent's (on main before 35.2:
sqlite3_column_text, 1 call of about 1 us, "made" 32,660 malloc calls of
1.1 ms).

Takes about 1 s (2 cores).
"""
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reallib import Checks, begin, count_table, load, rows, say, total  # noqa: E402

TREE_TOOL = os.path.join(HERE, "..", "tools", "tree_invariants.py")
SPECS = {"counts": "posix_io,sqlite3", "tree": "posix_io,sqlite3,malloc"}
SYSCALLS = {"pwrite": "pwrite64", "fdatasync": "fdatasync", "fsync": "fsync"}


def script():
    lines = ["create table t(id integer primary key, v text);"]
    for txn in range(20):
        lines.append("begin;")
        for i in range(50):
            lines.append("insert into t(v) values('row %d %d %s');" % (txn, i, "x" * (i * 3)))
        lines.append("commit;")
    lines += ["create index tv on t(v);", "select count(*), sum(length(v)) from t;"]
    return "\n".join(lines) + "\n"


def sqlite3(sb, prefix, db, tag):
    with open(sb.path("work.sql")) as inp:
        p = subprocess.run(prefix + ["sqlite3", sb.path(db)], stdin=inp, capture_output=True,
                           text=True, cwd=sb.path())
    say("%s: exit %d, output %r" % (tag, p.returncode, p.stdout.strip()))
    return p


def children_of(doc, parent, child):
    """Calls of child made inside parent, over the threads (exit JSON)."""
    return sum(c["calls"] for f in rows(doc, parent) for c in f.get("children") or []
               if c["name"] == child)


def main():
    sb, (apiprof_run, _, what) = begin(
        "test_sqlite3.py APIPROF_RUN RUNTIME " + "|".join(SPECS),
        [("sqlite3", "sqlite3"), ("strace", "strace")])
    with open(sb.path("work.sql"), "w") as f:
        f.write(script())
    checks = Checks("sqlite3 " + what)
    st = sb.path("strace.txt")
    trace = "trace=" + ",".join(SYSCALLS.values())
    bare = sqlite3(sb, ["strace", "-f", "-c", "-o", st, "-e", trace], "a.db", "under strace")
    out = sb.path("sqlite3.json")
    summary = ["--summary"] if what == "tree" else []
    prof = sqlite3(sb, [apiprof_run, "-s", SPECS[what], "-o", out] + summary + ["--"], "b.db",
                   "under apiprof")
    checks.same_run(prof, bare, "under strace")
    doc = load(out)
    if what == "counts":
        sc = count_table(st)
        for fn, sys_name in SYSCALLS.items():
            checks.equal("%s calls" % fn, total([doc], fn), "strace's %s" % sys_name,
                         sc.get(sys_name, 0))
            checks.equal("%s calls inside sqlite3_step" % fn, children_of(doc, "sqlite3_step", fn),
                         "strace's %s (the CLI makes all inside sqlite3_step)" % sys_name,
                         sc.get(sys_name, 0))
    else:
        with open(sb.path("summary.txt"), "w") as f:
            f.write(prof.stderr)  # the --summary
        p = subprocess.run([sys.executable, TREE_TOOL, out, sb.path("summary.txt")],
                           capture_output=True, text=True)
        checks.true("call tree invariants (tests/tools/tree_invariants.py)", p.returncode == 0,
                    "exit %d: %s%s" % (p.returncode, p.stdout.strip(), p.stderr.strip()))
    sb.finish(checks)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
