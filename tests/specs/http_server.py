"""http_server.py DIR - serves DIR on 127.0.0.1 at a port the kernel picks.

Prints the port on stdout once the socket is listening (the constructor
binds and listens before it returns), so a test reading that line knows
the server is ready without polling or sleeping.  Quiet otherwise.
"""
import functools
import http.server
import sys


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
