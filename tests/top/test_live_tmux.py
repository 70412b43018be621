#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The live ncurses view, driven through tmux.

    test_live_tmux.py APIPROF_TOP SHIM TOPPROG

A private tmux server runs a shell with a known prompt; apiprof-top is
started in it against topprog.  Keys are sent with send-keys and the
screen read with capture-pane, polled a bounded number of times (never a
fixed sleep used as synchronisation).  Checks: rows appear with the
process's title; t, g, s, i, /, Esc, h, p, r, d work; a resize clips rows; q, Ctrl-C and SIGTERM all give
the shell prompt back.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_batch_real import preload  # noqa: E402

PROMPT = "TOPTEST$"
TRIES = 400  # capture-pane polls per expectation


def fail(msg, screen=""):
    print("FAIL:", msg)
    if screen:
        print("---- screen ----\n" + screen + "\n----------------")
    sys.exit(1)


class Tmux:
    def __init__(self):
        self.base = ["tmux", "-L", "apiprof-top-test-%d" % os.getpid(), "-f", "/dev/null"]
        env = dict(os.environ, PS1=PROMPT + " ", TERM="xterm-256color")
        env.pop("TMUX", None)
        subprocess.run(self.base + ["new-session", "-d", "-x", "200", "-y", "50", "sh"],
                       env=env, check=True)

    def keys(self, *k):
        subprocess.run(self.base + ["send-keys", "-t", "0"] + list(k), check=True)

    def resize(self, x, y):
        subprocess.run(self.base + ["resize-window", "-t", "0", "-x", str(x), "-y", str(y)],
                       check=True)

    def pane_child(self):
        """The pid of the shell's foreground child: the viewer."""
        sh = subprocess.run(self.base + ["display-message", "-p", "-t", "0", "#{pane_pid}"],
                            stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
        with open("/proc/%s/task/%s/children" % (sh, sh)) as f:
            kids = f.read().split()
        return int(kids[0]) if len(kids) == 1 else None

    def screen(self):
        return subprocess.run(self.base + ["capture-pane", "-p", "-t", "0"],
                              stdout=subprocess.PIPE, text=True, check=True).stdout

    def wait(self, what, pred):
        s = ""
        for _ in range(TRIES):
            s = self.screen()
            if pred(s):
                return s
            time.sleep(0.05)  # poll spacing, bounded by TRIES
        fail("timed out waiting for: " + what, s)

    def kill(self):
        subprocess.run(self.base + ["kill-server"], stderr=subprocess.DEVNULL)


def at_prompt(s):
    """The last line ends with our prompt.  It may follow the shell's own
    first prompt ("# TOPTEST$") when the PS1 line was typed before sh
    printed that one: the tty echoed it early and sh ran it afterwards."""
    lines = [l for l in s.splitlines() if l.strip()]
    return bool(lines) and lines[-1].rstrip().endswith(PROMPT) and "tt_work" not in s


def shell_ready(t):
    """sh may ignore PS1 from the environment (dash does for root), so
    set it once sh has printed its first prompt of any kind."""
    t.wait("first shell prompt", lambda s: s.strip() != "")
    t.keys("-l", "PS1='%s '" % PROMPT)
    t.keys("Enter")
    t.wait("shell prompt", at_prompt)


def unwrapped(s, width):
    """Every table line is a title, the column titles or a row: a wrapped
    row would leave a line starting with its tail."""
    lines = s.splitlines()
    titles = [l for l in lines if "TID" in l and "THREAD" in l]
    if not titles or len(titles[0].rstrip()) != width:
        return False
    table = [l for l in lines[2:] if l.strip()]
    return all(re.match(r"(PID |\s*TID|\s+(\d+|-) )", l) for l in table)


def session(t, top, pid):
    t.keys("%s -d 0.1 -p %d" % (top, pid), "Enter")
    t.wait("rows", lambda s: "tt_work" in s and "tworker-2" in s and "1 processes" in s)
    t.wait("main thread row", lambda s: "topprog" in s and "tt_idle" in s)
    t.wait("title", lambda s: 'PID %d  topprog "' % pid in s and ' 3 2000"' in s)

    t.keys("t")
    t.wait("aggregated rows", lambda s: "(all)" in s and "tworker-0" not in s)
    t.keys("t")
    t.wait("per-thread rows", lambda s: "tworker-0" in s and "(all)" not in s)

    t.keys("g")
    t.wait("tree group", lambda s: "TREE %d  topprog" % pid in s and "by tree" in s
           and "(all)" in s and "group: tree" in s)
    t.keys("g")
    t.wait("comm group", lambda s: "COMM topprog  1 process: %d" % pid in s and "by command" in s)
    t.keys("g")
    t.wait("processes again", lambda s: "PID %d  topprog" % pid in s and "tworker-0" in s)

    t.keys("s")
    t.wait("sort by AVG", lambda s: "AVGv" in s and "sort: AVG" in s)
    t.keys("i")
    t.wait("inverted", lambda s: "AVG^" in s)
    t.keys(">")
    t.wait("sort by P50", lambda s: "P50^" in s)
    t.keys("<", "<", "i")
    t.wait("back to TIME/IV", lambda s: "TIME/IVv" in s)

    t.keys("/")
    t.wait("filter prompt", lambda s: "filter:" in s)
    t.keys("-l", "idle")
    t.keys("Enter")
    t.wait("filtered", lambda s: "tt_idle" in s and "tt_work" not in s)
    t.keys("Escape")
    t.wait("filter cleared", lambda s: "tt_work" in s and "tt_idle" in s)

    t.keys("h")
    t.wait("help", lambda s: "apiprof-top keys" in s)
    t.keys("x")
    t.wait("help closed", lambda s: "apiprof-top keys" not in s and "tt_work" in s)

    t.keys("p")
    t.wait("paused", lambda s: "PAUSED" in s)
    t.keys("p")
    t.wait("resumed", lambda s: "PAUSED" not in s)
    t.keys("r")
    t.wait("reset", lambda s: "reset:" in s)
    t.keys("d")
    t.wait("delay prompt", lambda s: "delay (seconds):" in s)
    t.keys("-l", "0.25")
    t.keys("Enter")
    t.wait("new delay", lambda s: "refresh 0.25s" in s)

    # Narrower than a row: lines are clipped, not wrapped onto the next.
    t.resize(100, 30)
    t.wait("clipped rows", lambda s: "tt_work" in s and unwrapped(s, 100))
    t.resize(200, 50)
    t.wait("full rows", lambda s: "tt_work" in s and "CALLS/IV" in s)


def main():
    top, shim, prog = (os.path.abspath(a) for a in sys.argv[1:4])
    if not shutil.which("tmux"):
        print("FAIL: tmux is missing (Debian package tmux, which ./quickstart installs)")
        sys.exit(1)
    env = dict(os.environ, LD_PRELOAD=preload(shim), APIPROF_INTERVAL_MS="50")
    p = subprocess.Popen([prog, "3", "2000"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    if p.stdout.readline() != "ready\n":
        p.kill()
        fail("topprog did not get ready")
    t = Tmux()
    try:
        shell_ready(t)
        session(t, top, p.pid)
        t.keys("q")
        t.wait("prompt after q", at_prompt)

        t.keys("%s -d 0.1 -p %d" % (top, p.pid), "Enter")
        t.wait("rows again", lambda s: "tt_work" in s)
        t.keys("C-c")
        t.wait("prompt after Ctrl-C", at_prompt)

        t.keys("%s -d 0.1 -p %d" % (top, p.pid), "Enter")
        t.wait("rows once more", lambda s: "tt_work" in s)
        viewer = t.pane_child()
        if viewer is None:
            fail("cannot find the viewer's pid", t.screen())
        os.kill(viewer, signal.SIGTERM)
        t.wait("prompt after SIGTERM", at_prompt)
    finally:
        t.kill()
        p.stdin.close()
        p.wait()
    print("ok: rows, title, t g s i < > / Esc h p r d, resize, q, Ctrl-C and SIGTERM restore the terminal")


if __name__ == "__main__":
    main()
