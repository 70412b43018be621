#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""APIPROF_MODE=off at start is dormant until apiprof-ctl wakes it (issue 37).

    test_ctl_dormant.py CASE APIPROF_CTL SHIM CTLPROG

    wake MODE   ctlprog preloaded with APIPROF_MODE=off makes N calls: no
                segment, no thread but its own, and (strace, where there is
                one) no clone and no /dev/shm opened; apiprof-ctl PID MODE wakes
                it (status 7: it starts at its next profiled call); then M
                calls: its exit JSON has exactly M (the waking call is the
                first counted), and a second apiprof-ctl PID MODE is
                acknowledged through the segment (status 0)
    refused     another user cannot wake it (status 4, the line); a hostile
                apiprof_dormant (garbage written into the struct) and a
                library merely named libapiprof.so are refused with one line
                (status 1) and the process stays dormant; a garbage mode word
                leaves it off and running, with one line
    self        the program's own apiprof_mode("full") wakes it

ctlprog makes exactly the calls it is told to, between handshakes on its
pipes (never a sleep).  The test runs itself again in a mount namespace of
its own with a tmpfs on /dev/shm.  Exit 77 = skipped.
"""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "top"))
from test_batch_real import fail, preload, private_shm  # noqa: E402
from test_ctl_cmds import OTHER_UID, Prog, ctl  # noqa: E402

INNER = "APIPROF_TEST_DORMANT_INNER"
N, M = 1000, 250
OFF = {"APIPROF_MODE": "off"}
MAGIC = 0x746E616D726F6461


def segments(pid):
    return glob.glob("/dev/shm/apiprof-*-%d-*" % pid)


def threads(pid):
    names = []
    for comm in glob.glob("/proc/%d/task/*/comm" % pid):
        with open(comm) as f:
            names.append(f.read().strip())
    return names


def asleep(p, what):
    """No segment, no flusher thread."""
    if segments(p.pid):
        fail("%s: a segment exists: %s" % (what, segments(p.pid)))
    if "apiprof-flush" in threads(p.pid) or len(threads(p.pid)) != 1:
        fail("%s: threads %s, want ctlprog's one" % (what, threads(p.pid)))


def calls_of(path, fn="tt_work"):
    with open(path) as f:
        doc = json.load(f)
    return sum(f["calls"] for th in doc["threads"] for f in th["functions"] if f["name"] == fn)


def no_syscalls(prog, shim, tmp):
    """strace -f over a dormant run: no clone, nothing of /dev/shm."""
    if shutil.which("strace") is None:
        print("skip part: no strace")
        return
    log = os.path.join(tmp, "strace.log")
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_MODE="off",
               APIPROF_OUTPUT=os.path.join(tmp, "st.json"))
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    r = subprocess.run(["strace", "-f", "-o", log, "-e", "trace=clone,clone3,openat,fallocate",
                        prog], input="calls %d\n" % N, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print("skip part: strace cannot trace here: %s" % r.stderr.strip()[-200:])
        return
    with open(log) as f:
        # the call's name, not a path that holds it (a tree in /work/ciclone)
        bad = [ln for ln in f if re.match(r"\d+\s+(clone|clone3|fallocate)\(", ln) or
               '"/dev/shm' in ln]
    if bad:
        fail("a dormant run made: %s" % bad[:4])
    if os.path.exists(os.path.join(tmp, "st.json")):
        fail("a dormant process never woken wrote its APIPROF_OUTPUT")
    print("ok: strace -f of a dormant run of %d calls: no clone, no /dev/shm, no fallocate, "
          "no APIPROF_OUTPUT written" % N)


def wake(ctlbin, prog, shim, tmp, mode):
    out = os.path.join(tmp, "w-%s.json" % mode.replace(":", "_"))
    p = Prog(prog, shim, out, OFF)
    p.do("calls %d" % N)
    asleep(p, "APIPROF_MODE=off after %d calls" % N)
    said = ctl(ctlbin, p.pid, mode, want=7)
    if "woken: starts at its next profiled call" not in said:
        fail("apiprof-ctl on a dormant process said %r" % said)
    asleep(p, "woken, before its next call")
    p.do("calls %d" % M)
    # the flusher names itself once it runs: its name is not waited for
    if len(segments(p.pid)) != 1 or len(threads(p.pid)) != 2:
        fail("woken: segments %s threads %s" % (segments(p.pid), threads(p.pid)))
    said = ctl(ctlbin, p.pid, mode)
    if mode.split(":")[0] not in said:
        fail("apiprof-ctl on the woken process said %r" % said)
    p.end()
    got = calls_of(out)
    if got != M:
        fail("woken %s after %d calls, then %d: the exit JSON has %d" % (mode, N, M, got))
    print("ok: dormant (no segment, no thread), woken %s by apiprof-ctl (7), then "
          "exactly %d calls of %d; acknowledged after (0)" % (mode, M, N + M))


def dormant_addr(pid):
    """Where apiprof_dormant lies in pid: nm's value plus the load bias."""
    lib = None
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and os.path.basename(parts[5]).startswith("libapiprof.so") \
                    and int(parts[2], 16) == 0:
                lib, base = parts[5], int(parts[0].split("-")[0], 16)
                break
    if lib is None:
        fail("no libapiprof.so in %d's maps" % pid)
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2].startswith("apiprof_dormant"):
            return base + int(f[0], 16)
    fail("no apiprof_dormant in nm -D %s" % lib)


def refused(ctlbin, prog, shim, tmp):
    out = os.path.join(tmp, "r.json")
    p = Prog(prog, shim, out, OFF)
    if os.geteuid() == 0:
        said = ctl(ctlbin, p.pid, "full", want=4, as_uid=OTHER_UID)
        if "takes ptrace rights" not in said or said.count("\n") != 1:
            fail("another user: %r" % said)
        print("ok: uid %d cannot wake it (4): %s" % (OTHER_UID, said.strip()))
    else:
        print("skip part: not root, cannot become another user")
    addr = dormant_addr(p.pid)
    with open("/proc/%d/mem" % p.pid, "r+b", buffering=0) as mem:
        mem.seek(addr)
        good = mem.read(32)
        mem.seek(addr)
        mem.write(struct.pack("<QII", MAGIC, 1, 1) + b"\0" * 8 + struct.pack("<I", 63))
        said = ctl(ctlbin, p.pid, "full", want=1)
        if "not a dormant runtime" not in said or said.count("\n") != 1:
            fail("63 apis: %r" % said)
        mem.seek(addr)
        mem.write(struct.pack("<Q", 0xDEADBEEF))
        said = ctl(ctlbin, p.pid, "full", want=1)
        if "is not one this apiprof-ctl knows" not in said:
            fail("bad magic: %r" % said)
        mem.seek(addr)
        mem.write(good)
        mem.seek(addr + 32)
        gate0 = mem.read(8)
        mem.seek(addr + 32)
        mem.write(struct.pack("<Q", addr + 4))
        said = ctl(ctlbin, p.pid, "full", want=1)
        if "that is not an api's gate asleep" not in said:
            fail("a gate elsewhere: %r" % said)
        mem.seek(addr + 32)
        mem.write(gate0)
        # a garbage mode word, written as apiprof-ctl writes a good one
        mem.seek(addr + 16)
        mem.write(struct.pack("<Q", 0x4242424242424242))
        napis = struct.unpack("<I", mem.read(4))[0]
        mem.seek(addr + 32)
        gates = struct.unpack("<%dQ" % napis, mem.read(8 * napis))
        for g in gates:
            mem.seek(g)
            mem.write(struct.pack("<Q", 64))  # APIPROF_GATE_WAKE
    p.do("calls %d" % M)
    if len(segments(p.pid)) != 1:
        fail("a garbage mode word: not started (segments %s)" % segments(p.pid))
    p.end()
    if calls_of(out) != 0:
        fail("a garbage mode word: %d calls counted, want 0 (off)" % calls_of(out))
    fake_dir = os.path.join(tmp, "fake")
    os.mkdir(fake_dir)
    fake = os.path.join(fake_dir, "libapiprof.so.0")
    shutil.copy(os.path.join(os.path.dirname(shim), "libtoplib.so"), fake)
    q = subprocess.Popen([prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, LD_PRELOAD=preload(fake)))
    pid = int(q.stdout.readline().split()[1])
    said = ctl(ctlbin, pid, "full", want=1)
    if "cannot sleep or wake" not in said or said.count("\n") != 1:
        fail("a library named libapiprof.so: %r" % said)
    q.stdin.close()
    q.wait(timeout=60)
    print("ok: refused with one line each: a struct of 63 apis, a bad magic, a gate that is "
          "not one, a fake libapiprof.so; a garbage mode word: started, stays off")


def self_wake(prog, shim, tmp):
    out = os.path.join(tmp, "s.json")
    p = Prog(prog, shim, out, OFF)
    p.do("calls %d" % N)
    if p.do("mode - full") != "rc 0 errno 1234":
        fail("apiprof_mode on a dormant process did not succeed")
    asleep(p, "woken by itself, before its next call")
    p.do("calls %d" % M)
    p.end()
    if calls_of(out) != M:
        fail("woken by apiprof_mode: %d calls, want %d" % (calls_of(out), M))
    print("ok: the program's own apiprof_mode(NULL, \"full\") wakes it: exactly %d calls" % M)


def busy(ctlbin, prog, shim, tmp):
    """A dormant process with a thread calling all the time: the wake
    starts it at once, and apiprof-ctl's mode, sent as soon as the segment
    says the process runs, is acknowledged (0), never "its profiling has
    ended" (3) for a segment the runtime has made and not yet filled in."""
    for i in range(5):
        p = Prog(prog, shim, os.path.join(tmp, "b%d.json" % i), OFF)
        if p.do("spin") != "spinning":
            fail("ctlprog could not start its thread")
        said = ctl(ctlbin, p.pid, "full")
        if "mode full" not in said:
            fail("apiprof-ctl waking a busy dormant process said %r" % said)
        p.do("stop")
        p.end()
    print("ok: 5 busy dormant processes woken: apiprof-ctl acknowledged each (0)")


def main():
    private_shm(__file__, INNER)
    case, ctlbin, shim, prog = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as tmp:
        if case == "wake":
            no_syscalls(prog, shim, tmp)
            for mode in ("full", "count", "sampled:4"):
                wake(ctlbin, prog, shim, tmp, mode)
        elif case == "refused":
            refused(ctlbin, prog, shim, tmp)
        elif case == "self":
            self_wake(prog, shim, tmp)
        elif case == "busy":
            busy(ctlbin, prog, shim, tmp)
        else:
            fail("no case %s" % case)


if __name__ == "__main__":
    main()
