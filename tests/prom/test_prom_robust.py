#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""apiprof-top --listen under abusive clients (issue 25).

    test_prom_robust.py APIPROF_TOP SHIM TOPPROG

With a profiled program of 40 threads and --per-thread (a text of about
100 kB): 100 concurrent scrapes, from 10 loopback addresses (an address
may hold TOP_HTTP_PER_ADDR connections), all get the whole text; a client that
sends half a request and stalls does not delay others, and gets its answer
when it finishes; a request with a 1 MB header is refused, not served;
clients that reset the connection in the middle of a response; 300 idle
connections at once: the exporter holds at most TOP_HTTP_MAX_CONN (128)
sockets, and serves again once they are gone.  After each, a normal
scrape is whole, and at the end the exporter's VmRSS has grown by less
than 64 MB and SIGTERM ends it with status 0.
Exit 77 = skipped (no private mount namespace).
"""
import os
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from promlib import (Exporter, Prog, fail, parse, poll, private_shm, sockets_of,  # noqa: E402
                     value)

THREADS, CALLS = 40, 100
MAX_CONN = 128  # top/export/top_http.h
RSS_GROWTH_KB = 64 * 1024


def whole(text):
    return value(parse(text), "apiprof_calls_total", function="tt_work") == THREADS * CALLS


def check_serving(ex, after):
    if not whole(ex.scrape()):
        fail("after %s the scrape is not whole" % after)


def connect(ex):
    s = socket.create_connection(ex.hostport(), timeout=30)
    return s


def read_all(s):
    data = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        data += b
    return data


def concurrent(ex, n=100):
    results = [None] * n

    def one(i):
        try:
            results[i] = whole(ex.scrape(source="127.0.0.%d" % (2 + i % 10)))
        except Exception as e:  # noqa: BLE001: reported below
            results[i] = repr(e)
    ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    bad = [r for r in results if r is not True]
    if bad:
        fail("%d of %d concurrent scrapes failed: %r" % (len(bad), n, bad[:3]))
    print("ok: %d concurrent scrapes, all whole" % n)


def slow_client(ex):
    s = connect(ex)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHo")
    check_serving(ex, "a stalled client")  # it does not wait for the slow one
    s.sendall(b"st: x\r\nConnection: close\r\n\r\n")
    data = read_all(s)
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200") or not whole(body.decode()):
        fail("the slow client's answer: %r" % data[:200])
    print("ok: a stalled client delays nobody and gets its whole answer")


def big_header(ex):
    s = connect(ex)
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) +
                  b"\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before it was all sent
    data = read_all(s)
    s.close()
    if data.startswith(b"HTTP/1.1 200"):
        fail("a 1 MB header was served")
    check_serving(ex, "a 1 MB header")
    print("ok: a 1 MB header is refused (%r)" % data[:40])


def resets(ex, n=20):
    for _ in range(n):
        s = connect(ex)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        if not s.recv(100):
            fail("no answer before the reset")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()  # RST with most of the answer unread
    check_serving(ex, "%d resets mid-response" % n)
    print("ok: %d clients reset in the middle of a response" % n)


def idle_flood(ex, n=300):
    held = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)  # past the backlog a connect would hang
        s.connect_ex(ex.hostport())
        held.append(s)
    # The exporter has taken what it will take once no connection is
    # waiting in its backlog any more; it never holds more than its limit.
    top = max(sockets_of(ex.p.pid) for _ in range(50))
    if top > MAX_CONN + 1:
        fail("%d sockets in the exporter with %d idle clients (limit %d)" % (top, n, MAX_CONN))
    for s in held:
        s.close()

    def served():
        try:
            return whole(ex.scrape())
        except OSError:
            return False
    poll("a scrape after the idle clients left", served)
    print("ok: %d idle connections: at most %d sockets held (%d seen), served after" % (
        n, MAX_CONN + 1, top))


def main():
    private_shm(__file__)
    top, shim, prog = sys.argv[1:4]
    ex = Exporter(top, "-d", "0.05", "--per-thread")
    p = Prog(shim, prog, THREADS, CALLS)
    poll("all calls exported", lambda: whole(ex.scrape()))
    size = len(ex.scrape())
    if size < 50000:
        fail("the text is only %d bytes: too small to cut a response" % size)
    rss0 = ex.rss_kb()
    concurrent(ex)
    slow_client(ex)
    big_header(ex)
    resets(ex)
    idle_flood(ex)
    concurrent(ex)
    grown = ex.rss_kb() - rss0
    if grown > RSS_GROWTH_KB:
        fail("VmRSS grew by %d kB" % grown)
    print("ok: VmRSS grew by %d kB (bound %d kB)" % (grown, RSS_GROWTH_KB))
    ex.stop()
    p.end()


if __name__ == "__main__":
    main()
