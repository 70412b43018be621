# SPDX-License-Identifier: MIT
"""Debian's nginx (package nginx) under ab, profiled by apiprof-run -s net,
with workers that drop privileges to a throwaway user (issue 35.9).

  test_nginx.py APIPROF_RUN RUNTIME

nginx runs as root (master) with `user U U;` for its 2 workers, in a
network namespace of the test's own (its own loopback: port 8080 is free,
and no traffic leaves it), serving three static files of 1 kB, 100 kB and
3 MB with sendfile on, under apache2-utils' ab (bounded request counts).
The witness is nginx's own access log: the body bytes of every response
($body_bytes_sent). Then, from the exit JSON of every process (-o with
%p, into a directory that U may write):

- sendfile bytes over all processes = the access log's body bytes;
- each worker wrote its profile, as U (the privileges were dropped);
- ab saw no failed request, nginx exited 0 on SIGQUIT.

Takes about 2 s (2 cores).
"""
import glob
import os
import pwd
import signal
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reallib import Checks, begin, fail, load, run, say, total  # noqa: E402

PORT = 8080  # in the test's own network namespace
WORKERS = 2
FILES = {"a.bin": 1000, "b.bin": 100000, "c.bin": 3000000}
LOAD = [("b.bin", 500, 4), ("a.bin", 300, 4), ("c.bin", 40, 2)]  # file, requests, concurrency

CONF = """daemon off;
master_process on;
worker_processes %(workers)d;
user %(user)s %(user)s;
pid %(d)s/nginx.pid;
error_log %(d)s/error.log;
events { worker_connections 64; }
http {
  log_format bytes '$status $body_bytes_sent $request_uri';
  access_log %(d)s/access.log bytes;
  sendfile on;
  client_body_temp_path %(d)s/tmp;
  proxy_temp_path %(d)s/tmp;
  fastcgi_temp_path %(d)s/tmp;
  uwsgi_temp_path %(d)s/tmp;
  scgi_temp_path %(d)s/tmp;
  server { listen 127.0.0.1:%(port)d; root %(d)s/www; }
}
"""


NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(url):
    try:
        with NO_PROXY.open(url, timeout=5) as r:
            return r.status == 200 and len(r.read()) == FILES["a.bin"]
    except OSError:
        return False


def access_log(path):
    """(requests, body bytes) from the access log, every status 200."""
    n = nbytes = 0
    with open(path) as f:
        for line in f:
            status, sent, uri = line.split()
            if status != "200":
                fail("nginx answered %s to %s" % (status, uri))
            n += 1
            nbytes += int(sent)
    return n, nbytes


def start(sb, apiprof_run):
    """nginx's tree under sb (the files of FILES, CONF), started by
    apiprof-run -s net -o OUT/%p.json and serving: (its directory, OUT,
    the server, its base URL).  test_report_nginx.py starts it so too."""
    user = sb.users[0]
    d = sb.path("nginx")
    sb.mkdir("nginx")
    www = sb.mkdir("nginx/www")
    sb.mkdir("nginx/tmp", 0o700, user)
    sb.mkdir("nginx/logs")  # nginx opens logs/error.log below -p before it reads the conf
    outdir = sb.mkdir("out", 0o755, user)  # the workers write their profiles as the user
    for name, size in FILES.items():
        with open(os.path.join(www, name), "wb") as f:
            f.write(bytes(i * 7 % 251 for i in range(size)))
        os.chmod(os.path.join(www, name), 0o644)
    with open(sb.path("nginx/nginx.conf"), "w") as f:
        f.write(CONF % {"workers": WORKERS, "user": user, "d": d, "port": PORT})

    server = sb.start([apiprof_run, "-s", "net", "-o", os.path.join(outdir, "%p.json"), "--",
                       "nginx", "-p", d, "-c", d + "/nginx.conf"], "nginx.out")
    base = "http://127.0.0.1:%d/" % PORT
    sb.ready(server, "nginx (GET %sa.bin)" % base, lambda: get(base + "a.bin"))
    return d, outdir, server, base


def main():
    sb, (apiprof_run, _) = begin("test_nginx.py APIPROF_RUN RUNTIME",
                                 [("nginx", "nginx"), ("ab", "apache2-utils")], users=1,
                                 netns=True)
    user = sb.users[0]
    uid = pwd.getpwnam(user).pw_uid
    d, outdir, server, base = start(sb, apiprof_run)
    served = 0
    for name, n, c in LOAD:
        p = run(["ab", "-q", "-n", str(n), "-c", str(c), base + name])
        if "Failed requests:        0" not in p.stdout or "Non-2xx" in p.stdout:
            fail("ab %s: %s" % (name, p.stdout))
        served += n * FILES[name]
    checks = Checks("nginx")
    st = sb.stop(server, signal.SIGQUIT, "nginx")
    checks.equal("nginx's exit status on SIGQUIT", st, "bare", 0)
    requests, body = access_log(d + "/access.log")
    say("access log: %d requests, %d body bytes (ab's requests: %d bytes; the rest are the "
        "readiness GETs)" % (requests, body, served))
    files = sorted(glob.glob(os.path.join(outdir, "*.json")))
    docs = [load(f) for f in files]
    workers = [f for f, doc in zip(files, docs) if doc["pid"] != server.pid]
    owners = sorted(os.stat(f).st_uid for f in workers)
    checks.equal("worker profiles written as %s (uid %d)" % (user, uid), owners, "workers",
                 [uid] * WORKERS)
    checks.equal("sendfile bytes (all processes)", total(docs, "sendfile", "bytes"),
                 "the access log's body bytes", body)
    sb.finish(checks)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
