# SPDX-License-Identifier: MIT
"""What the sites suite's Python tests share: a profiled run's exit JSON,
the first apiprof-top --json refresh that has what a test waits for, and
(from tests/top/test_batch_real.py) fail, preload and private_shm, the
rerun of a test in a /dev/shm of its own."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import fail, preload, private_shm  # noqa: E402,F401


def rows_of(proc):
    """Every thread's function rows of one process (an exit JSON document
    or a process of apiprof-top --json)."""
    return [r for t in proc["threads"] for r in t["functions"]]


def exit_json(argv, shims, **env):
    """Runs argv with shims preloaded and no segment, its exit JSON into a
    scratch file of its own; returns the document and the run (its output
    captured).  Fails when it exits other than 0 or writes no JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        e = dict(os.environ, LD_PRELOAD=preload(*shims), APIPROF_OUTPUT=out, APIPROF_SHM="0",
                 **env)
        p = subprocess.run(argv, env=e, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            fail("%s: status %d: %s" % (os.path.basename(argv[0]), p.returncode, p.stderr))
        with open(out) as f:
            return json.load(f), p


def first_refresh(top, pid, pick, what):
    """pick(process) of the first refresh of apiprof-top -b --json -p pid
    for which it is not None (at most 400 refreshes, 0.05 s apart); fails
    saying that apiprof-top --json never had what."""
    v = subprocess.Popen([top, "-b", "--json", "-d", "0.05", "-n", "400", "-p", str(pid)],
                         stdout=subprocess.PIPE, text=True)
    try:
        for line in v.stdout:
            for proc in json.loads(line)["processes"]:
                got = pick(proc) if proc["pid"] == pid else None
                if got is not None:
                    return got
    finally:
        v.kill()
        v.wait()
    fail("apiprof-top --json never had " + what)


def start_live(argv, shims, **env):
    """Starts argv with shims preloaded and a segment published every
    20 ms, its stdin and stdout pipes (text)."""
    e = dict(os.environ, LD_PRELOAD=preload(*shims), APIPROF_INTERVAL_MS="20", **env)
    e.pop("APIPROF_SHM", None)
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=e, text=True)
