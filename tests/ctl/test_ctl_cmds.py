#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Steering a running process (issue 37): reset, mark and dump, from
apiprof-ctl and from the program itself (apiprof/control.h), apiprof-ctl's
failures, another user, and garbage in the control block.

    test_ctl_cmds.py APIPROF_CTL SHIM CTLPROG CTLPOKE

ctlprog makes exactly the calls it is told to, between handshakes on its
pipes (never a sleep).  The test runs itself again in a mount namespace of
its own with a tmpfs on /dev/shm.  Exit 77 = skipped (no private mount
namespace).
"""
import fcntl
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import fail, preload, private_shm  # noqa: E402

INNER = "APIPROF_TEST_CTL_INNER"
N, M, K = 1000, 250, 40
OTHER_UID = 12345


class Prog:
    """ctlprog under the shim, talked to line by line."""

    def __init__(self, prog, shim, out, extra=None):
        env = dict(os.environ, LD_PRELOAD=preload(shim) if shim else "", APIPROF_OUTPUT=out)
        env.pop("APIPROF_SHM", None)
        env.update(extra or {})
        self.p = subprocess.Popen([prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  env=env, text=True)
        line = self.p.stdout.readline().split()
        if line[:1] != ["ready"]:
            fail("ctlprog did not start: %s" % line)
        self.pid = int(line[1])

    def do(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def end(self):
        self.p.stdin.close()
        if self.p.wait(timeout=60) != 0:
            fail("ctlprog exited with %d" % self.p.returncode)


def ctl(ctlbin, *args, want=0, as_uid=None):
    cmd = [ctlbin] + [str(a) for a in args]
    if as_uid is not None:
        cmd = ["setpriv", "--reuid=%d" % as_uid, "--regid=%d" % as_uid, "--clear-groups"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != want:
        fail("%s: status %d, want %d; stdout %r stderr %r"
             % (" ".join(cmd), r.returncode, want, r.stdout, r.stderr))
    return r.stdout + r.stderr


def totals(doc):
    """{function: (since start, since reset)} of the doc's "totals"."""
    return {t["function"]: (t["since_start"]["calls"], t["since_reset"]["calls"])
            for t in doc.get("totals", [])}


def mark_calls(doc, label):
    ms = [m for m in doc.get("marks", []) if m["label"] == label]
    if len(ms) != 1:
        fail("mark %r: %d in %s" % (label, len(ms), [m["label"] for m in doc.get("marks", [])]))
    return {f["function"]: f["totals"]["calls"] for f in ms[0]["functions"]}


def check_doc(doc, what, start, reset, mark):
    got = totals(doc).get("tt_work")
    if got != (start, reset):
        fail("%s: tt_work since start/since reset %s, want %s" % (what, got, (start, reset)))
    got = mark_calls(doc, "warm-up done").get("tt_work")
    if got != mark:
        fail("%s: the mark's tt_work calls %s, want %d" % (what, got, mark))
    if doc.get("resets") != 1:
        fail("%s: resets %s, want 1" % (what, doc.get("resets")))


def by_ctl(ctlbin, prog, shim, tmp):
    """reset, mark, dump by apiprof-ctl: exact since-reset and mark totals,
    a dump with the counts then, and the exit file still written."""
    out = os.path.join(tmp, "ctl-%p.json")
    p = Prog(prog, shim, out)
    if p.do("calls %d" % N) != "done %d" % N:
        fail("ctlprog did not make its calls")
    said = ctl(ctlbin, p.pid, "mark", "warm-up done")
    if "mark 1 taken" not in said:
        fail("apiprof-ctl mark said %r" % said)
    ctl(ctlbin, p.pid, "reset")
    p.do("calls %d" % M)
    said = ctl(ctlbin, p.pid, "dump")
    if "dump 1 written" not in said:
        fail("apiprof-ctl dump said %r" % said)
    p.do("calls %d" % K)
    child = p.do("fork %d" % K).split()
    p.end()
    with open(out.replace("%p", child[1])) as f:
        doc = json.load(f)
    if totals(doc).get("tt_work") != (K, K) or doc["resets"] != 0 or doc["marks"]:
        fail("a fork child: tt_work %s resets %s marks %s, want (%d, %d), 0, none"
             % (totals(doc).get("tt_work"), doc["resets"], doc["marks"], K, K))
    path = out.replace("%p", str(p.pid))
    with open(path + ".dump1") as f:
        check_doc(json.load(f), "the dump", N + M, M, N)
    with open(path) as f:
        check_doc(json.load(f), "the exit JSON", N + M + K, M + K, N)
    print("ok: apiprof-ctl mark/reset/dump: since start %d, since reset %d, the mark's %d, "
          "the dump's %d/%d; a fork child's own from zero" % (N + M + K, M + K, N, N + M, M))


def by_program(prog, shim, tmp):
    """The same by the program's own apiprof_mark/apiprof_reset; and
    without apiprof the calls do nothing and return -1."""
    bare = Prog(prog, None, os.path.join(tmp, "bare.json"))
    for cmd in ("reset", "mark x"):
        if bare.do(cmd) != "rc -1 errno 0":
            fail("without apiprof, %s: %r" % (cmd, cmd))
    bare.end()
    out = os.path.join(tmp, "self-%p.json")
    p = Prog(prog, shim, out, {"APIPROF_SUMMARY": "1"})
    p.do("calls %d" % N)
    if p.do("mark warm-up done") != "rc 0 errno 1234":
        fail("apiprof_mark did not succeed keeping errno")
    if p.do("reset") != "rc 0 errno 1234":
        fail("apiprof_reset did not succeed keeping errno")
    p.do("calls %d" % M)
    p.end()
    with open(out.replace("%p", str(p.pid))) as f:
        check_doc(json.load(f), "the program's own", N + M, M, N)
    print("ok: the program's apiprof_mark/apiprof_reset: since reset %d, the mark's %d; "
          "without apiprof they return -1" % (M, N))


def failures(ctlbin, prog, shim, tmp):
    """Each failure: its status and its message."""
    said = ctl(ctlbin, 2 ** 31 - 2, "reset", want=3)
    if "no such process" not in said:
        fail("no such process: %r" % said)
    bare = Prog(prog, None, os.path.join(tmp, "b.json"))
    said = ctl(ctlbin, bare.pid, "reset", want=3)
    if "not profiled" not in said:
        fail("not profiled: %r" % said)
    bare.end()
    ctl(ctlbin, 1, "frobnicate", want=2)
    ctl(ctlbin, 1, "mark", "x" * 64, want=2)
    ctl(ctlbin, 1, "mode", "sampled:1", want=2)
    p = Prog(prog, shim, "")  # no APIPROF_OUTPUT: nowhere to dump
    said = ctl(ctlbin, p.pid, "mode", "full", "nosuchapi", want=1)
    if "no api of that name" not in said:
        fail("no such api: %r" % said)
    said = ctl(ctlbin, p.pid, "dump", want=1)
    if "no APIPROF_OUTPUT" not in said:
        fail("dump without APIPROF_OUTPUT: %r" % said)
    ctl(ctlbin, "--comm", os.path.basename(prog)[:15], "mark", "by name")
    seg = segment_of(p.pid)
    fd = os.open(seg, os.O_RDWR)
    lock_at = ctl_lock_offset(seg)
    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, lock_at, 1, 0))
    said = ctl(ctlbin, p.pid, "reset", want=6)
    if "another controller" not in said:
        fail("busy: %r" % said)
    os.close(fd)
    p.end()
    q = Prog(prog, shim, os.path.join(tmp, "q.json"), {"APIPROF_INTERVAL_MS": "0"})
    said = ctl(ctlbin, "-t", "0.3", q.pid, "reset", want=5)
    if "no answer within 300 ms" not in said:
        fail("no answer: %r" % said)
    q.end()
    print("ok: apiprof-ctl's statuses: 3 no process / not profiled, 2 usage, 1 refused, "
          "6 busy, 5 no answer, each with its message")


def segment_of(pid):
    segs = [s for s in glob.glob("/dev/shm/apiprof-*-%d-*" % pid)]
    if len(segs) != 1:
        fail("segments of %d: %s" % (pid, segs))
    return segs[0]


def ctl_lock_offset(_seg):
    """Where the request lock is (ctlpoke --lock-offset, from the ABI)."""
    r = subprocess.run([sys.argv[4], "--lock-offset"], capture_output=True, text=True)
    return int(r.stdout)


def other_user(ctlbin, prog, shim, tmp):
    """Another user cannot steer: apiprof-ctl says so, and the file cannot
    even be opened for writing by that user."""
    if os.geteuid() != 0:
        print("skip part: not root, cannot become another user")
        return
    p = Prog(prog, shim, os.path.join(tmp, "u.json"))
    said = ctl(ctlbin, p.pid, "reset", want=4, as_uid=OTHER_UID)
    if "only that user or root may steer it" not in said:
        fail("another user: %r" % said)
    seg = segment_of(p.pid)
    r = subprocess.run(["setpriv", "--reuid=%d" % OTHER_UID, "--regid=%d" % OTHER_UID,
                        "--clear-groups", sys.executable, "-c",
                        "import os,sys; os.open(sys.argv[1], os.O_RDWR)", seg],
                       capture_output=True, text=True)
    if r.returncode == 0 or "PermissionError" not in r.stderr:
        fail("uid %d could open %s read-write: %s" % (OTHER_UID, seg, r.stderr))
    p.do("calls %d" % N)
    p.end()
    with open(os.path.join(tmp, "u.json")) as f:
        doc = json.load(f)
    if doc.get("resets") != 0:
        fail("another user's reset was taken")
    print("ok: uid %d is refused by apiprof-ctl and cannot open the segment" % OTHER_UID)


def garbage(prog, shim, tmp):
    """Random requests from the same uid: every one answered, none takes
    effect but a mode; the counts stay exact and the program fine."""
    out = os.path.join(tmp, "g.json")
    p = Prog(prog, shim, out)
    p.do("calls %d" % N)
    r = subprocess.run([sys.argv[4], segment_of(p.pid), "37", "400"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("ctlpoke: %s %s" % (r.stdout, r.stderr))
    p.do("calls %d" % M)
    p.end()
    with open(out) as f:
        doc = json.load(f)
    if totals(doc).get("tt_work") != (N + M, N + M) or doc["resets"] != 0 or doc["marks"]:
        fail("garbage changed something: %s resets %s marks %s"
             % (totals(doc), doc["resets"], doc["marks"]))
    print("ok: 400 garbage requests answered (%s), counts exact, no reset or mark"
          % r.stdout.strip())


def main():
    private_shm(__file__, INNER)
    ctlbin, shim, prog = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        by_ctl(ctlbin, prog, shim, tmp)
        by_program(prog, shim, tmp)
        failures(ctlbin, prog, shim, tmp)
        other_user(ctlbin, prog, shim, tmp)
        garbage(prog, shim, tmp)


if __name__ == "__main__":
    main()
