# SPDX-License-Identifier: MIT
"""A page in headless Chromium driven through the DevTools protocol over
--remote-debugging-pipe (fd 3: our commands, fd 4: its answers, each
message JSON ended by a NUL): open a page, evaluate JavaScript in it,
click at a point with real mouse events, and collect the console's
messages and uncaught exceptions.  For tests/report."""
import json
import os
import subprocess


class Page:
    def __init__(self, exe, profile_dir):
        cmd_r, cmd_w = os.pipe()  # ours -> chromium's fd 3
        ans_r, ans_w = os.pipe()  # chromium's fd 4 -> ours
        self.proc = subprocess.Popen(
                [exe, "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
                 "--user-data-dir=" + profile_dir, "--window-size=1280,2400",
                 "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                 "about:blank"],
                pass_fds=(3, 4), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                preexec_fn=lambda: (os.dup2(cmd_r, 3), os.dup2(ans_w, 4)))
        os.close(cmd_r)
        os.close(ans_w)
        self.w = os.fdopen(cmd_w, "wb")
        self.r = os.fdopen(ans_r, "rb")
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.console = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Runtime.enable")
        self.call("Page.enable")

    def _read(self):
        while b"\0" not in self.buf:
            chunk = self.r.read1(65536)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def _event(self, m):
        if m.get("method") == "Runtime.consoleAPICalled":
            args = [a.get("value", a.get("description")) for a in m["params"]["args"]]
            self.console.append("%s: %s" % (m["params"]["type"], args))
        elif m.get("method") == "Runtime.exceptionThrown":
            self.console.append("exception: %s" % m["params"]["exceptionDetails"].get("text"))

    def call(self, method, params=None, wait_event=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        self.w.write(json.dumps(msg).encode() + b"\0")
        self.w.flush()
        result, seen = None, wait_event is None
        while result is None or not seen:
            m = self._read()
            self._event(m)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                result = m["result"]
            seen = seen or m.get("method") == wait_event
        return result

    def open(self, url):
        self.call("Page.navigate", {"url": url}, wait_event="Page.loadEventFired")

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def eval_async(self, expr):
        """The value of a promise expr resolves to."""
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                                   "button": "left", "clickCount": 1})

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        self.proc.wait(timeout=60)
