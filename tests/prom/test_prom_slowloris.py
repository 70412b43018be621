#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top --listen against slowloris (issue 34, point 11).

    test_prom_slowloris.py APIPROF_TOP

Two defences, each shown by a count, not a time:
  - per address: 140 connections from 127.0.0.1 that each sent half a
    request header, and with --http-timeout 3600 no timeout that could free
    them during the test: a scrape from 127.0.0.2 still gets its answer
    (without the limit the 140 hold all 128 connections and the scrape is
    refused), and the exporter holds at most TOP_HTTP_PER_ADDR of theirs;
  - a deadline for the whole request header: with --http-timeout 2, a
    client that sends a header line every 0.1 s (never 2 s without
    progress, so libmicrohttpd's inactivity timeout never fires) is cut
    off without an answer (not refused with 431 once its header outgrows
    the connection's 32 kB); the test waits on its socket for the end of
    the stream (bounded by 120 s, a failure).
Exit 77 = skipped (no private mount namespace).
"""
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from promlib import (Exporter, fail, parse, poll, private_shm, sockets_of,  # noqa: E402
                     value)

PER_ADDR = 16  # top/export/top_http.h TOP_HTTP_PER_ADDR
ATTACKERS = 140
TRICKLE_S, TRICKLE_MAX = 0.1, 1200  # 120 s at most: then the deadline failed


def up(text):
    return value(parse(text), "apiprof_up") == 1


def half_request(ex):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.setblocking(False)  # past the backlog a connect would hang
    s.connect_ex(ex.hostport())
    return s


def per_address(top):
    ex = Exporter(top, "-d", "0.05", "--http-timeout", "3600")
    held = [half_request(ex) for _ in range(ATTACKERS)]
    for s in held:
        try:
            s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        except OSError:
            pass  # not connected yet (backlog) or already refused
    try:
        text = ex.scrape(source="127.0.0.2")
    except OSError as e:
        fail("with %d half requests from 127.0.0.1, a scrape from 127.0.0.2 failed: %r" % (
            ATTACKERS, e))
    if not up(text):
        fail("the scrape from another address is not whole")
    # The scrape was accepted after the 140 (the backlog is in order).
    n = sockets_of(ex.p.pid)
    if n > PER_ADDR + 2:  # + the listening socket + the scrape's, closing
        fail("%d sockets in the exporter: more than %d from one address" % (n, PER_ADDR))
    print("ok: %d half requests from 127.0.0.1; a scrape from 127.0.0.2 answered; "
          "%d sockets held" % (ATTACKERS, n))
    for s in held:
        s.close()
    ex.stop()


def trickle(s, sent, stop):
    """One header line every TRICKLE_S until the exporter cuts it off."""
    while not stop.wait(TRICKLE_S) and sent[0] < TRICKLE_MAX:
        try:
            s.sendall(b"X-Slow: a\r\n")
        except OSError:
            return
        sent[0] += 1


def deadline(top):
    ex = Exporter(top, "-d", "0.05", "--http-timeout", "2")
    s = socket.create_connection(ex.hostport(), timeout=TRICKLE_S * TRICKLE_MAX + 10,
                                 source_address=("127.0.0.3", 0))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    sent, stop = [0], threading.Event()
    t = threading.Thread(target=trickle, args=(s, sent, stop))
    t.start()
    data = b""
    try:
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    except ConnectionResetError:
        pass
    except socket.timeout:
        stop.set()
        t.join()
        fail("a client sending a header line every %.1f s was never cut off (%d lines)" %
             (TRICKLE_S, sent[0]))
    stop.set()
    t.join()
    s.close()
    if data:  # e.g. 431 once its header outgrew the connection's memory
        fail("the trickling client was not cut off by the deadline, but answered after %d "
             "lines: %r" % (sent[0], data[:60]))
    if not up(poll("a scrape after the cut", lambda: ex.scrape(source="127.0.0.4"))):
        fail("no whole scrape after the cut")
    print("ok: a client trickling its header (%d lines) is cut off at the deadline, "
          "without an answer" % sent[0])
    ex.stop()


def main():
    private_shm(__file__)
    top = sys.argv[1]
    per_address(top)
    deadline(top)


if __name__ == "__main__":
    main()
