#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top -b --json against a real program profiled through a
generated shim.

    test_batch_real.py APIPROF_TOP SHIM TOPPROG

topprog makes a known number of calls per thread before it prints "ready";
apiprof-top attaches afterwards and must still report the totals since the
process started.  Then the main thread makes more calls on request, and the
program exits: the viewer must show it ended with its final numbers.  Every
step waits on a line from a pipe; the viewer's output is read until the
expected numbers appear, bounded by its -n.  Exit 77 = skipped.
"""
import atexit
import json
import os
import re
import subprocess
import sys

THREADS, CALLS = 3, 5000


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def preload(*libs):
    """LD_PRELOAD for libs.  In a sanitizer build the sanitizer runtimes
    they link come first, for ld.so must load them before anything else
    (tests/lib.sh's shim_preload)."""
    san = []
    for lib in libs:
        out = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 3 and re.match(r"lib(a|ub|t)san\.so", f[0]) and f[2] not in san:
                san.append(f[2])
    return ":".join(san + list(libs))


def rerun_with_private_shm(script, inner, mount):
    """Runs script again with this process's arguments, in a mount
    namespace of its own where `mount` (a tmpfs on /dev/shm) is done first,
    with inner=1 in its environment, and exits with its status: the test
    never touches the real /dev/shm."""
    env = dict(os.environ, **{inner: "1"})
    argv = [sys.executable, os.path.abspath(script)] + sys.argv[1:]
    sys.exit(subprocess.run(["unshare", "-m", "sh", "-c", mount + ' && exec "$@"', "sh"] + argv,
                            env=env).returncode)


SHM_MOUNT = "mount -t tmpfs tmpfs /dev/shm"


def private_shm(script, inner, mount=SHM_MOUNT):
    """Returns in the inner run (inner set in the environment).  In the
    outer one, runs script again in a private /dev/shm by
    rerun_with_private_shm and exits with its status, or with 77
    (skipped, saying why) where the machine gives no mount namespace in
    which mount can be done."""
    if os.environ.get(inner):
        return
    if subprocess.run(["unshare", "-m", "sh", "-c", mount], stderr=subprocess.DEVNULL).returncode:
        print("skip: cannot mount a tmpfs on /dev/shm in a private mount namespace (unshare -m)")
        sys.exit(77)
    rerun_with_private_shm(script, inner, mount)


def counts(proc):
    """{(thread name, function): calls} and {(tid, function): row}."""
    by_name, rows = {}, {}
    for t in proc["threads"]:
        for f in t["functions"]:
            key = (t["name"], f["name"])
            by_name[key] = by_name.get(key, 0) + f["calls"]
            rows[(t["tid"], f["name"])] = f
    return by_name, rows


class Viewer:
    def __init__(self, top, pid):
        self.pid = pid
        self.p = subprocess.Popen(
            [top, "-b", "--json", "-d", "0.05", "-n", "4000", "-p", str(pid)],
            stdout=subprocess.PIPE, text=True)
        atexit.register(self.p.kill)
        self.iv_sums = {}  # (tid, function) -> sum of calls_interval
        self.last = None

    def next_proc(self):
        line = self.p.stdout.readline()
        if not line:
            fail("apiprof-top ended before the expected numbers appeared")
        o = json.loads(line)
        for k in ("time", "processes", "dropped"):
            if k not in o:
                fail("missing key %s in %s" % (k, line))
        procs = [p for p in o["processes"] if p["pid"] == self.pid]
        if not procs:
            return None
        proc = procs[0]
        for t in proc["threads"]:
            for f in t["functions"]:
                key = (t["tid"], f["name"])
                self.iv_sums[key] = self.iv_sums.get(key, 0) + f["calls_interval"]
        self.last = proc
        return proc

    def wait_for(self, want, state=None):
        while True:
            proc = self.next_proc()
            if proc is None:
                continue
            got, _ = counts(proc)
            if got == want and (state is None or proc["state"] == state):
                return proc

    def stop(self):
        self.p.terminate()
        self.p.wait()


def check_rows(proc):
    for k in ("pid", "comm", "state", "interposer", "mode", "clock", "dropped", "threads"):
        if k not in proc:
            fail("missing process key " + k)
    if proc["interposer"] != "shim" or proc["mode"] != "full" \
            or proc["clock"] not in ("tsc", "monotonic"):
        fail("interposer/mode/clock: %r %r %r"
             % (proc["interposer"], proc["mode"], proc["clock"]))
    _, rows = counts(proc)
    for key, f in rows.items():
        if f["estimated"]:
            fail("estimated without sampling: %r" % (key,))
        if f["calls"] and f["total_ns"] is None:
            fail("no time for %r" % (key,))
        q = [f[k] for k in ("min_ns", "p50_ns", "p99_ns", "max_ns")]
        if None in q or not q[0] <= q[1] <= q[2] <= q[3]:
            fail("min <= p50 <= p99 <= max violated for %r: %r" % (key, q))


def start_topprog(shim, prog, sample=0):
    """topprog under the shim, once it printed "ready" (exit 77 without
    /dev/shm), and the calls it has made by then."""
    if not os.access("/dev/shm", os.W_OK):
        print("skip: /dev/shm not writable")
        sys.exit(77)
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="50",
               APIPROF_SAMPLE=str(sample))
    env.pop("APIPROF_SHM", None)
    p = subprocess.Popen([prog, str(THREADS), str(CALLS)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, text=True)
    atexit.register(p.kill)  # on failure too: never leave topprog behind
    if p.stdout.readline() != "ready\n":
        fail("topprog did not get ready")
    want = {("tworker-%d" % i, "tt_work"): CALLS for i in range(THREADS)}
    want.update({("tworker-%d" % i, "tt_idle"): 1 for i in range(THREADS)})
    want[("topprog", "tt_idle")] = 3
    return p, want


def main():
    top, shim, prog = sys.argv[1:4]
    p, want = start_topprog(shim, prog)

    v = Viewer(top, p.pid)
    proc = v.wait_for(want)
    check_rows(proc)
    if proc["comm"] != "topprog" or proc["state"] != "running":
        fail("process: %r %r" % (proc["comm"], proc["state"]))

    text = subprocess.run([top, "-b", "-n", "1", "-p", str(p.pid)], stdout=subprocess.PIPE,
                          text=True, check=True).stdout
    for s in ("toplib.tt_work", "toplib.tt_idle", "(tworker-0)", "function", "PID %d" % p.pid):
        if s not in text:
            fail("plain batch output lacks %r:\n%s" % (s, text))

    # Calls made while the viewer watches show up in the intervals.
    p.stdin.write("go\n")
    p.stdin.flush()
    if p.stdout.readline() != "done\n":
        fail("topprog did not finish its second round")
    want[("topprog", "tt_work")] = CALLS
    v.wait_for(want)

    # The end: the final numbers stay visible, marked ended.
    p.stdin.close()
    if p.wait() != 0:
        fail("topprog failed")
    proc = v.wait_for(want, state="ended")
    v.stop()
    check_rows(proc)
    _, rows = counts(proc)
    for key, f in rows.items():
        if v.iv_sums.get(key) != f["calls"]:
            fail("intervals of %r sum to %r, not to the total %r" % (key, v.iv_sums.get(key), f["calls"]))
    print("ok: totals since start, interval sums and the end seen exactly")
    sampled(top, shim, prog)


def sampled(top, shim, prog):
    """APIPROF_SAMPLE=16: exact counts, the mode shown, times marked
    estimated where some calls were not timed."""
    p, want = start_topprog(shim, prog, 16)
    v = Viewer(top, p.pid)
    proc = v.wait_for(want)
    v.stop()
    if proc["sample"] != 16:
        fail("sampled mode not shown: sample %r" % proc["sample"])
    _, rows = counts(proc)
    work = [f for (_, name), f in rows.items() if name == "tt_work"]
    for f in work:
        if not f["estimated"] or f["total_ns"] is None or f["p50_ns"] is None:
            fail("sampled tt_work row: %r" % f)
    text = subprocess.run([top, "-b", "-n", "1", "-p", str(p.pid)], stdout=subprocess.PIPE,
                          text=True, check=True).stdout
    work_lines = [l for l in text.splitlines() if "tt_work" in l]
    if "sampled (~ = estimate)" not in text or not work_lines or \
            not all("~" in l for l in work_lines):
        fail("plain batch output does not mark sampled mode:\n" + text)
    p.stdin.close()
    if p.wait() != 0:
        fail("topprog failed in sampled mode")
    print("ok: sampled mode: exact counts, \"sample\": 16, tt_work rows estimated, marked ~")


if __name__ == "__main__":
    main()
