#!/usr/bin/python3
"""attach.py CASE APIPROF_RUN ATTACH_LOOP - apiprof-run -p PID (issue 38).

Every case runs in a private mount namespace with its own /dev/shm (the
attach makes a segment there), re-entered by the script itself.  The
program (attach_loop.c) reports its own counts on a pipe; every step is a
handshake on a pipe (a command and its answer, apiprof-run's one line),
never a sleep.

  count   attach mid-run: from the attach on apiprof's crc32 calls equal the
          program's exactly (the exit JSON written at the detach by
          Ctrl-C); calls while detached are not counted; attach again
          (counts go on), detach by `apiprof-run -p PID --detach`; every
          crc the program computed is the bare one; it exits 0
  eintr   the main thread is blocked in read(2) on a pipe while it is
          attached to and detached from: the read returns the data, never
          EINTR (the program exits 3 on one)
  user    a process of another user: refused with the text, exit 125, the
          process unchanged (it answers, with the right crc)
  hammer  64 threads calling crc32 while attached and detached, 3 times:
          no crash, no wrong result
  dlopen  a thread stopped inside dlopen (a constructor that waits, holding
          the loader's lock): asked again a few times, then refused with
          the text, exit 125, the process unchanged; once the dlopen is
          done, the attach works
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

CASE, RUN, LOOP = sys.argv[1], sys.argv[2], sys.argv[3]
HOLD = sys.argv[4] if len(sys.argv) > 4 else None


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def private_shm():
    """Re-runs this script in a private mount namespace with its own /dev/shm."""
    if os.environ.get("ATTACH_INNER") == "1":
        return
    if subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                      stderr=subprocess.DEVNULL).returncode != 0:
        print("SKIP: no private mount namespace here")
        sys.exit(77)
    env = dict(os.environ, ATTACH_INNER="1")
    cmd = 'mount -t tmpfs tmpfs /dev/shm && exec "$@"'
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", cmd, "sh",
                        sys.executable] + sys.argv, env=env)
    sys.exit(r.returncode)


class Prog:
    """attach_loop on two pipes."""

    def __init__(self, user=None, env=None):
        pre = ["setpriv", "--reuid", user, "--regid", user, "--clear-groups"] if user else []
        self.p = subprocess.Popen(pre + [LOOP], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  env=env)
        self.ask("N 1")  # it runs: its main thread now waits in read()

    def ask(self, line):
        try:
            self.p.stdin.write((line + "\n").encode())
            self.p.stdin.flush()
        except BrokenPipeError:
            pass  # it has ended: what it said, below
        ans = self.p.stdout.readline().decode().split()
        if not ans or ans[0] not in ("ok", "started", "stopped", "held"):
            fail(f"the program answered {ans} to {line!r} (exit {self.p.wait()}"
                 + (": a read returned EINTR)" if ans[:2] == ["error", "4"] else ")"))
        return ans

    def calls(self, n):
        """n calls of crc32: the crc of the batch, checked against the bare one."""
        ans = self.ask(f"N {n}")
        if n > 0 and int(ans[2]) != BARE_CRC:
            fail(f"crc {ans[2]} after {n} calls, bare {BARE_CRC}")
        return int(ans[1])

    def end(self):
        self.p.stdin.write(b"Q\n")
        self.p.stdin.close()
        rc = self.p.wait()
        if rc != 0:
            fail(f"the program exited {rc}" + (" (a read returned EINTR)" if rc == 3 else ""))


def bare_crc():
    r = subprocess.run([LOOP], input=b"N 1\nQ\n", capture_output=True, check=True)
    return int(r.stdout.split()[2])


class Attached:
    """apiprof-run -p PID in the foreground, up to its line 'attached'."""

    def __init__(self, pid, out, user=None, mode=None):
        pre = ["setpriv", "--reuid", user, "--regid", user, "--clear-groups"] if user else []
        opt = ["--mode", mode] if mode else []
        self.p = subprocess.Popen(pre + [RUN, "-s", "zlib", "-o", out] + opt + ["-p", str(pid)],
                                  stderr=subprocess.PIPE)
        self.first = self.p.stderr.readline().decode()

    def ok(self):
        if not self.first.startswith("apiprof-run: attached to"):
            fail(f"apiprof-run -p: {self.first!r} (exit {self.p.wait()})")
        return self

    def interrupt(self):
        self.p.send_signal(signal.SIGINT)
        rest = self.p.stderr.read().decode()
        rc = self.p.wait()
        if rc != 0:
            fail(f"apiprof-run -p after Ctrl-C exited {rc}: {rest!r}")
        return rest


def json_calls(path, name="crc32"):
    try:
        doc = json.load(open(path))
    except OSError as e:
        fail(f"no exit JSON at the detach: {e}")
    return sum(f["calls"] for t in doc["threads"] for f in t["functions"] if f["name"] == name)


def case_count(tmp):
    prog = Prog()
    prog.calls(1000)  # before: not counted
    a = Attached(prog.p.pid, f"{tmp}/out1.json").ok()
    before = prog.calls(0)
    after = prog.calls(500)
    a.interrupt()
    got = json_calls(f"{tmp}/out1.json")
    if got != after - before:
        fail(f"first window: apiprof counted {got} crc32 calls, the program made {after - before}")
    gap0 = prog.calls(0)
    gap1 = prog.calls(300)  # detached: not counted
    b = Attached(prog.p.pid, f"{tmp}/out2.json").ok()
    w0 = prog.calls(0)
    w1 = prog.calls(200)
    r = subprocess.run([RUN, "-p", str(prog.p.pid), "--detach"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stderr.startswith("apiprof-run: detached from"):
        fail(f"--detach exited {r.returncode}: {r.stderr!r}")
    b.interrupt()  # already detached: says so, exits 0
    got2 = json_calls(f"{tmp}/out2.json")
    want2 = (after - before) + (w1 - w0)
    if got2 != want2:
        fail(f"after attaching again: apiprof counted {got2}, the program made {want2} "
             f"while attached ({gap1 - gap0} while detached)")
    prog.calls(100)
    prog.end()
    print(f"OK: {after - before} and {w1 - w0} calls counted exactly, {gap1 - gap0} detached not")


def case_eintr(tmp):
    prog = Prog()  # its main thread waits in read() from here on
    for i in range(3):
        a = Attached(prog.p.pid, f"{tmp}/out{i}.json").ok()
        prog.calls(10)  # the read across the attach returned this line
        a.interrupt()
        prog.calls(10)
    prog.end()
    print("OK: read(2) across 3 attaches and detaches returned the data")


def case_user(tmp):
    if os.getuid() != 0:
        print("SKIP: needs root to make two users")
        sys.exit(77)
    users = [f"apiprof-at{os.getpid()}a", f"apiprof-at{os.getpid()}b"]
    try:
        for u in users:
            subprocess.run(["useradd", "--system", "--no-create-home", "--user-group", "--shell",
                            "/usr/sbin/nologin", u], check=True)
        os.chmod(tmp, 0o777)
        prog = Prog(user=users[0])
        prog.calls(100)
        a = Attached(prog.p.pid, f"{tmp}/out.json", user=users[1])
        rc = a.p.wait()
        want = f"apiprof-run: -p {prog.p.pid}: cannot attach to {prog.p.pid}: Operation not permitted"
        if rc != 125 or not a.first.startswith(want):
            fail(f"another user's process: exit {rc}, {a.first!r}; want 125, {want!r}")
        prog.calls(100)
        prog.end()
        print("OK: " + a.first.strip())
    finally:
        for u in users:
            subprocess.run(["userdel", u], stderr=subprocess.DEVNULL)


def case_hammer(tmp):
    prog = Prog()
    prog.ask("T 64")
    for i in range(3):
        Attached(prog.p.pid, f"{tmp}/out{i}.json").ok().interrupt()
        if json_calls(f"{tmp}/out{i}.json") < 0:
            fail("negative count")
    ans = prog.ask("S")
    if int(ans[2]) != 0:
        fail(f"{ans[2]} of {ans[1]} crc32 calls returned a wrong crc")
    prog.calls(10)
    prog.end()
    print(f"OK: 64 threads, {ans[1]} calls across 3 attaches and detaches, none wrong")


def case_dlopen(tmp):
    fifo = f"{tmp}/hold"
    os.mkfifo(fifo)
    prog = Prog(env=dict(os.environ, ATTACH_HOLD_FIFO=fifo))
    prog.calls(10)
    prog.ask(f"L {HOLD}")  # "held": a thread is in dlopen, the lock is its
    a = Attached(prog.p.pid, f"{tmp}/out.json")
    rc = a.p.wait()
    want = "holds the loader's lock (a dlopen in progress); asked 6 times, try again later"
    if rc != 125 or want not in a.first:
        fail(f"a dlopen in progress: exit {rc}, {a.first!r}; want 125, {want!r}")
    prog.calls(10)
    os.close(os.open(fifo, os.O_WRONLY))  # the constructor returns
    if not prog.p.stdout.readline().startswith(b"loaded"):  # and the dlopen has ended
        fail("the held dlopen did not end")
    b = Attached(prog.p.pid, f"{tmp}/out.json").ok()
    c0 = prog.calls(0)
    c1 = prog.calls(50)
    b.interrupt()
    if json_calls(f"{tmp}/out.json") != c1 - c0:
        fail(f"after the dlopen: {json_calls(f'{tmp}/out.json')} counted, {c1 - c0} made")
    prog.end()
    print("OK: " + a.first.strip())


def case_mode(tmp):
    """--mode as a list at the attach, as at a start: the process counts,
    zlib is sampled 1 in 4 (its own timing): every call counted, about a
    quarter timed (at least (calls - 1) / 7 by the sampler's rule)."""
    prog = Prog()
    a = Attached(prog.p.pid, f"{tmp}/out.json", mode="count,zlib=sampled:4").ok()
    c0 = prog.calls(0)
    c1 = prog.calls(2000)
    a.interrupt()
    doc = json.load(open(f"{tmp}/out.json"))
    rows = [f for t in doc["threads"] for f in t["functions"] if f["name"] == "crc32"]
    calls, timed = sum(f["calls"] for f in rows), sum(f["timed"] for f in rows)
    n = c1 - c0
    if calls != n or not (n - 1) // 7 <= timed < n:
        fail(f"--mode count,zlib=sampled:4: {calls} calls, {timed} timed, the program made {n}")
    prog.end()
    print(f"OK: attached with --mode count,zlib=sampled:4: {calls} calls, {timed} timed")


private_shm()
BARE_CRC = bare_crc()
with tempfile.TemporaryDirectory() as scratch:
    {"count": case_count, "eintr": case_eintr, "user": case_user,
     "hammer": case_hammer, "dlopen": case_dlopen, "mode": case_mode}[CASE](scratch)
