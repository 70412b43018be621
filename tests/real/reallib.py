# SPDX-License-Identifier: MIT
"""What the `real` suite's tests share (issue 35.9): a sandbox, a scratch
directory, throwaway users, readiness polls, the exit JSON's sums, and
comparisons that print both sides.

Each test runs itself again inside new mount and PID namespaces (and a
network namespace of its own where it asks for one), as root:

- /dev/shm is a tmpfs of the test's own: apiprof's segments and the
  servers' shared memory never touch the machine's.
- the scratch directory is a tmpfs mounted in the namespace: it vanishes
  with the namespace, even when the test is killed.
- the test is PID 1 of its namespace: when it ends, for whatever reason,
  the kernel kills every server it started. Nothing is left running.
- in a network namespace of its own, only its own loopback exists, so a
  fixed port is free and no traffic leaves the namespace.

The throwaway users are made by the outer process (useradd), before the
namespaces, and removed by it (userdel) whatever the inner run did.
Waits poll an outcome with a bounded number of tries, never a fixed sleep.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

INNER = "APIPROF_TEST_REAL_INNER"
USERS = "APIPROF_TEST_REAL_USERS"
SCRATCH = "APIPROF_TEST_REAL_SCRATCH"
USER_PREFIX = "aprl"


def say(msg):
    print(msg, flush=True)


def skip(why):
    say("SKIP: " + why)
    sys.exit(77)


def fail(msg):
    say("FAIL: " + msg)
    sys.exit(1)


def need(tool, package):
    """Fails (never skips) when a tool that ./quickstart installs is missing."""
    if not shutil.which(tool):
        fail("%s is missing (Debian package %s, which ./quickstart installs)" % (tool, package))


def run(cmd, **kw):
    """subprocess.run that fails the test, saying what ran and what it said,
    when the command does not exit 0."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    kw.setdefault("text", True)
    p = subprocess.run(cmd, **kw)
    if p.returncode != 0:
        fail("%s exited %d: %s %s" % (" ".join(cmd), p.returncode, p.stdout or "", p.stderr or ""))
    return p


def poll(what, fn, tries=600, pause=0.05):
    """fn() until it returns something true, at most tries times (half a
    minute by default); fails saying what it waited for."""
    for _ in range(tries):
        v = fn()
        if v:
            return v
        time.sleep(pause)
    fail("gave up waiting for " + what)


# ---------------------------------------------------------------------------
# The sandbox.


def _stale_users():
    """Removes throwaway users whose creating test (its pid is in the name)
    is gone: a test killed with SIGKILL could not remove its own."""
    with open("/etc/passwd") as f:
        names = [line.split(":", 1)[0] for line in f]
    for name in names:
        rest = name[len(USER_PREFIX):].split("x")[0]
        if name.startswith(USER_PREFIX) and rest.isdigit() and not os.path.exists("/proc/" + rest):
            subprocess.run(["userdel", name], stderr=subprocess.DEVNULL)


def _make_users(count):
    names = []
    for i in range(count):
        name = "%s%dx%d" % (USER_PREFIX, os.getpid(), i)
        p = subprocess.run(["useradd", "-M", "-U", "-d", "/nonexistent", "-s", "/usr/sbin/nologin",
                            name], capture_output=True, text=True)
        if p.returncode != 0:
            _remove_users(names)
            fail("useradd %s: %s" % (name, p.stderr.strip()))
        names.append(name)
    return names


def _remove_users(names):
    """userdel each; the processes of a namespace that was just killed may
    take a moment to go, and userdel refuses a user that still has one."""
    for name in names:
        for _ in range(600):
            p = subprocess.run(["userdel", name], capture_output=True, text=True)
            if p.returncode == 0 or "currently used" not in p.stderr:
                break
            time.sleep(0.05)
        if p.returncode != 0:
            say("warning: userdel %s: %s" % (name, p.stderr.strip()))


def _namespace_flags(netns):
    # --kill-child: when unshare dies (killed with the test), PID 1 of the
    # namespace gets SIGKILL, and with it every process in the namespace.
    flags = ["-m", "-p", "-f", "--kill-child", "--mount-proc", "--propagation", "private"]
    return flags + (["-n"] if netns else [])


def sandbox(users=0, netns=False):
    """In the outer run: makes the users, runs this script again in the
    namespaces, removes the users and exits with the inner run's status.
    In the inner run: mounts the tmpfs and returns a Sandbox."""
    if os.environ.get(INNER):
        return Sandbox(os.environ[SCRATCH], os.environ.get(USERS, "").split(), netns)
    if os.geteuid() != 0:
        skip("needs root: the servers run as throwaway users, in namespaces of their own")
    probe = subprocess.run(["unshare"] + _namespace_flags(netns) + ["true"],
                           stderr=subprocess.PIPE, text=True)
    if probe.returncode != 0:
        skip("this machine gives no private mount/PID%s namespace (unshare: %s)"
             % ("/network" if netns else "", probe.stderr.strip()))
    need("useradd", "passwd")
    _stale_users()
    names = _make_users(users)
    scratch = tempfile.mkdtemp(prefix="apiprof-real-")
    child = None

    def on_term(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    try:
        env = dict(os.environ, **{INNER: "1", USERS: " ".join(names), SCRATCH: scratch})
        argv = [sys.executable, os.path.abspath(sys.argv[0])] + sys.argv[1:]
        child = subprocess.Popen(["unshare"] + _namespace_flags(netns) + argv, env=env)
        rc = child.wait()
    finally:
        if child and child.poll() is None:
            child.kill()  # PID 1 of the namespace: everything in it dies
            child.wait()
        _remove_users(names)
        os.rmdir(scratch)  # the tmpfs mounted on it went with the namespace
    sys.exit(rc)


class Sandbox:
    def __init__(self, scratch, users, netns):
        self.users = users
        self.scratch = scratch
        # PID 1 ignores signals it has no handler for.
        signal.signal(signal.SIGTERM, lambda s, f: sys.exit(128 + s))
        run(["mount", "-t", "tmpfs", "-o", "mode=1777", "tmpfs", "/dev/shm"])
        run(["mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", scratch])
        if netns:
            need("ip", "iproute2")
            run(["ip", "link", "set", "lo", "up"])
        self.procs = []
        self.logs = {}

    def path(self, *parts):
        return os.path.join(self.scratch, *parts)

    def mkdir(self, name, mode=0o755, owner=None):
        p = self.path(name)
        os.makedirs(p, exist_ok=True)
        os.chmod(p, mode)
        if owner:
            shutil.chown(p, owner, owner)
        return p

    def start(self, cmd, log, **kw):
        """Starts a server, its output into the scratch file log."""
        out = open(self.path(log), "w")
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, **kw)
        self.procs.append(p)
        self.logs[p.pid] = self.path(log)
        return p

    def log(self, p):
        """What the server p started by start() has written so far."""
        with open(self.logs[p.pid]) as f:
            return f.read()

    def ready(self, p, what, test):
        """Polls test() until it is true (the server p answers); fails,
        with the server's log, when p exits first."""
        def once():
            if test():
                return True
            if p.poll() is not None:
                fail("%s exited %d: %s" % (what, p.returncode, self.log(p)))
            return False
        poll(what + " to answer", once)

    def wait_end(self, p, what, after):
        """Waits (a minute at most) for p to end after a request to."""
        try:
            return p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            fail("%s did not end within a minute of %s" % (what, after))

    def stop(self, p, sig=signal.SIGTERM, what="the server"):
        """Sends sig and waits (bounded) for the process to end."""
        if p.poll() is None:
            p.send_signal(sig)
        return self.wait_end(p, what, "signal %d" % sig)

    def finish(self, checks):
        """Ends the test: every check passed, or the list of those that did
        not, each with both sides. (Servers still running die with the PID
        namespace, the scratch tmpfs with the mount namespace.)"""
        checks.report()


def build_tree_copy(sb, files):
    """Copies files (a runtime, shims) into the scratch directory, for a
    server that runs as another user: a checkout may lie where that user
    cannot reach (/root). Returns the directory."""
    d = sb.mkdir("lib", 0o755)
    for f in files:
        dst = os.path.join(d, os.path.basename(f))
        shutil.copy(f, dst)
        os.chmod(dst, 0o755)
    return d


def sanitized(lib):
    """True when lib (the build's runtime) links a sanitizer runtime: the
    real programs are not instrumented, and ASan's malloc would come first."""
    out = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    return any(s in out for s in ("libasan.so", "libubsan.so", "libtsan.so"))


def begin(usage, tools, users=0, netns=False):
    """What every test of the suite does first. Its arguments against
    usage ("test_x.py APIPROF_RUN RUNTIME a|b": a word an argument, and a
    word with '|' one of its cases); a skip in a sanitizer build (the
    real programs are not instrumented); each (tool, Debian package) of
    tools there; the sandbox (its users and netns); no APIPROF_OUTPUT
    from the caller. Returns the sandbox and the arguments, each path
    made absolute."""
    words = usage.split()[1:]
    given = sys.argv[1:]
    if len(given) != len(words) or any("|" in w and a not in w.split("|")
                                       for w, a in zip(words, given)):
        fail("usage: " + usage)
    args = [a if "|" in w else os.path.abspath(a) for w, a in zip(words, given)]
    if sanitized(args[words.index("RUNTIME")]):
        skip("sanitizer build: the real programs are not instrumented")
    for tool, package in tools:
        need(tool, package)
    sb = sandbox(users, netns)
    os.environ.pop("APIPROF_OUTPUT", None)
    return sb, args


# ---------------------------------------------------------------------------
# The answers.


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("cannot read apiprof's output %s: %s" % (path, e))


def rows(doc, function):
    """Every thread's row of function in one exit JSON document."""
    return [f for t in doc["threads"] for f in t["functions"] if f["name"] == function]


def total(docs, function, field="calls"):
    """Sum of field of function over the documents' threads."""
    return sum(f.get(field) or 0 for d in docs for f in rows(d, function))


def count_table(path):
    """{name: calls} from the table of strace -c (a system call a row) or
    ltrace -c (a function a row; it has no errors column)."""
    counts = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
            if m:
                counts[m.group(2)] = int(m.group(1))
    return counts


class Checks:
    """Exact comparisons, each printed with both sides; all are made before
    the test fails, so that one run shows every wrong answer."""

    def __init__(self, name):
        self.name = name
        self.bad = []

    def equal(self, what, apiprof, witness_name, witness):
        line = "%s: apiprof %s, %s %s" % (what, apiprof, witness_name, witness)
        if apiprof == witness:
            say("ok: " + line)
        else:
            say("MISMATCH: " + line)
            self.bad.append(line)

    def true(self, what, ok, detail):
        if ok:
            say("ok: %s (%s)" % (what, detail))
        else:
            say("MISMATCH: %s: %s" % (what, detail))
            self.bad.append("%s: %s" % (what, detail))

    def same_run(self, prof, bare, witness_name):
        """The run under apiprof (a CompletedProcess) exited and printed
        as the witness's run did, and printed something."""
        self.equal("exit status", prof.returncode, witness_name, bare.returncode)
        same = prof.stdout == bare.stdout
        self.true("output", same and len(bare.stdout) > 0,
                  "%d bytes under apiprof, %d %s, %s"
                  % (len(prof.stdout), len(bare.stdout), witness_name, "equal" if same else
                     "different: %.200r against %.200r" % (prof.stdout, bare.stdout)))

    def report(self):
        if self.bad:
            fail("%s: %d answer(s) wrong:\n  %s"
                 % (self.name, len(self.bad), "\n  ".join(self.bad)))
        say("ok: %s: every answer equals its witness" % self.name)
