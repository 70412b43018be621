"""http_server.py DIR [N] - serves DIR on 127.0.0.1 at a port the kernel picks.

Prints "PORT PID" on stdout once the socket is listening (the constructor
binds and listens before it returns), so a test reading that line knows
the server is ready without polling or sleeping, and whom to stop (also
when it runs under strace).  Quiet otherwise.

Without N it serves, threaded, until killed.  With N it handles exactly N
requests one by one in one thread and exits normally, so that a
profiler's exit output is written: HTTP/1.0 (one connection per request),
and per request exactly one epoll_wait (the wait for the connection,
here), one poll (handle_request's own wait, which then returns at once),
one accept (Python calls accept4) and one shutdown (shutdown_request's
SHUT_WR).  The listening socket is the process's only socket:
server_bind skips HTTPServer's getfqdn, whose name service lookup (nscd)
would make socket calls from inside libc, which strace sees and an
interposer does not.
"""
import functools
import http.server
import os
import selectors
import socketserver
import sys


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class NoLookup:
    def server_bind(self):
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


class Threaded(NoLookup, http.server.ThreadingHTTPServer):
    pass


class Serial(NoLookup, http.server.HTTPServer):
    pass


handler = functools.partial(Quiet, directory=sys.argv[1])
if len(sys.argv) < 3:
    server = Threaded(("127.0.0.1", 0), handler)
    print(server.server_address[1], os.getpid(), flush=True)
    server.serve_forever()
server = Serial(("127.0.0.1", 0), handler)
print(server.server_address[1], os.getpid(), flush=True)
with selectors.EpollSelector() as ready:
    ready.register(server, selectors.EVENT_READ)
    for _ in range(int(sys.argv[2])):
        ready.select()
        server.handle_request()
server.server_close()
