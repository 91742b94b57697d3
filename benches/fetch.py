#!/usr/bin/env python3
"""A first `knobs sync --tag T` from a remote against `git clone --bare --depth 1`.

    benches/fetch.py [--knobs PATH] [--baseline PATH] [--repo BARE_GIT_DIR]
                     [--tags 200] [--commits-per-tag 5] [--files 1000]
                     [--tag T] [--tag2 T2] [--runs 3]

Builds (unless --repo names a complete bare repository) a scratch repository
of many tags with history — generated text, ours: --files files of made-up
words, --commits-per-tag commits between tags each rewriting 8 files, every
other tag annotated, the files of fixtures/radiance/v1.8.1 (its `core/`) so the
sync has a catalogue to write — serves it with `git daemon` on a free
loopback port, and prints, in the same run:

- bytes received and wall time of `knobs sync --tag T` into a fresh cache
  (`$KNOBS_CACHE_DIR`) vs `git clone --bare --depth 1 --branch T`, and the
  ratios;
- the same for a second tag T2 fetched into that cache vs
  `git fetch --depth 1 origin tag T2` into that clone;
- with --baseline (a knobs built before the depth-1 fetch, e.g.
  /work/baseline/knobs-now), the same first sync by it;
- each over git:// (`git daemon`) and smart http:// (a small server in this
  script running `git upload-pack --stateless-rpc`, as `git http-backend`
  does), and the time and cache of a `file://` sync (--no-file skips it).

Bytes are counted on the wire by a relay between the client and the daemon
(bytes the daemon sent), identically for every client; knobs' own count
(`-v`: "note: fetched N objects, M bytes") is printed beside it. Times are
the median of --runs runs straight to the daemon, each into a fresh cache
or clone. Nothing is asserted: docs/performance.md records the figures.
"""

import argparse
import gzip
import http.server
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "fixtures/radiance/v1.8.1")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, proc):
    deadline = time.time() + 15
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"git daemon ended: {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"git daemon did not listen on {port}")


class Relay:
    """A loopback TCP relay to `target` counting the bytes it sends back."""

    def __init__(self, target):
        self.target = target
        self.down = 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.sock.accept()
            server = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self.pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(server, client, True), daemon=True).start()

    def pump(self, src, dst, count):
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                if count:
                    with self.lock:
                        self.down += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def take(self):
        # The last bytes may still be in flight when the client exits.
        time.sleep(0.2)
        with self.lock:
            n, self.down = self.down, 0
        return n


class SmartHttp(http.server.BaseHTTPRequestHandler):
    """git's smart HTTP protocol, served by `git upload-pack --stateless-rpc`
    (what `git http-backend` runs), for the repositories under `root`."""

    protocol_version = "HTTP/1.1"
    # Headers and body leave at once: no Nagle stall of this server's own.
    disable_nagle_algorithm = True
    root = ""

    def log_message(self, *args):
        pass

    def send(self, ctype, body):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def repo(self, suffix):
        path = self.path.split("?")[0]
        return os.path.join(self.root, path[: -len(suffix)].strip("/")) if path.endswith(suffix) else None

    def upload_pack(self, repo, *args, body=None):
        return subprocess.run(["git", "upload-pack", "--stateless-rpc", *args, repo], input=body,
                              stdout=subprocess.PIPE, check=True).stdout

    def do_GET(self):
        repo = self.repo("/info/refs")
        if not repo or "service=git-upload-pack" not in self.path:
            self.send_error(403)
            return
        head = b"# service=git-upload-pack\n"
        body = b"%04x" % (len(head) + 4) + head + b"0000" + self.upload_pack(repo, "--advertise-refs")
        self.send("application/x-git-upload-pack-advertisement", body)

    def do_POST(self):
        repo = self.repo("/git-upload-pack")
        if not repo:
            self.send_error(403)
            return
        if self.headers.get("Transfer-Encoding") == "chunked":
            body = b""
            while (n := int(self.rfile.readline().strip(), 16)) != 0:
                body += self.rfile.read(n)
                self.rfile.readline()
            self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.send("application/x-git-upload-pack-result", self.upload_pack(repo, body=body))


def serve_http(root):
    handler = type("Handler", (SmartHttp,), {"root": root})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def words(rng, vocab, n):
    out, line = [], []
    for w in rng.choices(vocab, k=n):
        line.append(w)
        if len(line) >= 9:
            out.append(" ".join(line))
            line = []
    return ("\n".join(out) + "\n").encode()


def build(dest, tags, per_tag, files):
    """A bare repository of `tags` tags, `per_tag` commits apart, by fast-import."""
    rng = random.Random(23)
    letters = "abcdefghijklmnopqrstuvwxyz_"
    vocab = ["".join(rng.choices(letters, k=rng.randint(2, 10))) for _ in range(6000)]
    names = [f"{rng.choice(['src', 'tools', 'docs', 'tests', 'examples'])}/m{i // 40}/f{i}.txt" for i in range(files)]
    sizes = {n: rng.randint(300, 4000) for n in names}
    fixture = {}
    for d, _, fs in os.walk(FIXTURE):
        for f in fs:
            p = os.path.join(d, f)
            fixture[os.path.relpath(p, FIXTURE)] = open(p, "rb").read()
    subprocess.run(["git", "init", "-q", "--bare", dest], check=True)
    fi = subprocess.Popen(["git", "-C", dest, "fast-import", "--quiet"], stdin=subprocess.PIPE)
    w = fi.stdin

    def data(b):
        w.write(b"data %d\n" % len(b))
        w.write(b)
        w.write(b"\n")

    when, mark, tagged = 1_700_000_000, 0, []
    for t in range(tags):
        for c in range(per_tag):
            mark += 1
            when += 3600
            w.write(b"commit refs/heads/main\nmark :%d\n" % mark)
            w.write(b"committer bench <bench@knobs.invalid> %d +0000\n" % when)
            data(b"change %d" % mark)
            if mark == 1:
                for path, body in fixture.items():
                    w.write(b"M 100644 inline %s\n" % path.encode())
                    data(body)
                changed = names
            else:
                changed = rng.sample(names, 8)
            for n in changed:
                w.write(b"M 100644 inline %s\n" % n.encode())
                data(words(rng, vocab, sizes[n]))
        name = f"b{1000 + t}"
        tagged.append(name)
        if t % 2:
            w.write(b"tag %s\nfrom :%d\ntagger bench <bench@knobs.invalid> %d +0000\n" % (name.encode(), mark, when))
            data(b"release " + name.encode())
        else:
            w.write(b"reset refs/tags/%s\nfrom :%d\n\n" % (name.encode(), mark))
    w.close()
    if fi.wait() != 0:
        sys.exit("git fast-import failed")
    subprocess.run(["git", "-C", dest, "repack", "-adq"], check=True)
    return tagged


def timed(cmd, env=None, cwd=None):
    started = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    took = time.perf_counter() - started
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr.decode(errors='replace')}")
    return took, r.stderr.decode(errors="replace")


def knobs_sync(knobs, url, tag, cache, work):
    env = dict(os.environ, KNOBS_CACHE_DIR=cache, NO_COLOR="1")
    took, err = timed([knobs, "-v", "sync", "--repo", url, "--tag", tag, "--out", "out"], env=env, cwd=work)
    m = re.search(r"note: fetched (\d+) objects, (\d+) bytes", err)
    return took, (int(m.group(1)), int(m.group(2))) if m else None


def du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def mib(n):
    return f"{n / 1048576:.2f} MiB"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--knobs", default=os.path.join(ROOT, "target/debug/knobs"))
    ap.add_argument("--baseline", help="a knobs that fetches every tag and branch, for comparison")
    ap.add_argument("--repo", help="serve this complete bare repository instead of building one")
    ap.add_argument("--tags", type=int, default=200)
    ap.add_argument("--commits-per-tag", type=int, default=5)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--tag", help="the first tag synced (default: the 11th newest)")
    ap.add_argument("--tag2", help="the second tag (default: the newest)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-file", action="store_true", help="skip the file:// syncs (the baseline's is slow)")
    a = ap.parse_args()
    a.knobs = os.path.abspath(a.knobs)
    a.baseline = a.baseline and os.path.abspath(a.baseline)
    tmp = tempfile.mkdtemp(prefix="knobs-fetch-bench-")
    daemon = None
    try:
        served = os.path.join(tmp, "served")
        os.makedirs(served)
        if a.repo:
            os.symlink(os.path.abspath(a.repo), os.path.join(served, "r.git"))
            tags = subprocess.run(["git", "-C", a.repo, "tag", "--sort=creatordate"], check=True,
                                  stdout=subprocess.PIPE).stdout.decode().split()
        else:
            started = time.perf_counter()
            tags = build(os.path.join(served, "r.git"), a.tags, a.commits_per_tag, a.files)
            print(f"built {len(tags)} tags, {a.tags * a.commits_per_tag} commits, {a.files} files "
                  f"in {time.perf_counter() - started:.1f} s")
        repo = os.path.join(served, "r.git")
        print(f"served repository: {len(tags)} tags, {mib(du(repo))} packed")
        t1 = a.tag or tags[max(0, len(tags) - 11)]
        t2 = a.tag2 or tags[-1]
        port = free_port()
        daemon = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", f"--base-path={served}",
                                   "--listen=127.0.0.1", f"--port={port}", served],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(port, daemon)
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        n = 0

        def fresh():
            nonlocal n
            n += 1
            return os.path.join(tmp, f"run{n}")

        def clone(url, dest):
            return timed(["git", "clone", "-q", "--bare", "--depth", "1", "--branch", t1, url, dest])[0]

        def fetch2(dest, url):
            return timed(["git", "-C", dest, "fetch", "-q", "--depth", "1", url, "tag", t2])[0]

        med = statistics.median
        print(f"first tag {t1}, second tag {t2}; knobs {a.knobs}; wall time: median of {a.runs} runs")
        for scheme, port in [("git", port), ("http", serve_http(served))]:
            relay = Relay(port)
            direct, counted = f"{scheme}://127.0.0.1:{port}/r.git", f"{scheme}://127.0.0.1:{relay.port}/r.git"
            # Bytes: one run of each through the relay.
            relay.take()
            cache = fresh()
            _, note1 = knobs_sync(a.knobs, counted, t1, cache, work)
            k1 = relay.take()
            _, note2 = knobs_sync(a.knobs, counted, t2, cache, work)
            k2 = relay.take()
            kcache = du(cache)
            g = fresh()
            clone(counted, g)
            g1 = relay.take()
            fetch2(g, counted)
            g2 = relay.take()
            gsize = du(g)
            if a.baseline:
                bcache = fresh()
                knobs_sync(a.baseline, counted, t1, bcache, work)
                b1 = relay.take()
                bsize = du(bcache)
            # Times: straight to the server, each run into a fresh cache or clone.
            kt1, kt2, gt1, gt2, bt1 = [], [], [], [], []
            for _ in range(a.runs):
                cache = fresh()
                kt1.append(knobs_sync(a.knobs, direct, t1, cache, work)[0])
                kt2.append(knobs_sync(a.knobs, direct, t2, cache, work)[0])
                shutil.rmtree(cache)
                g = fresh()
                gt1.append(clone(direct, g))
                gt2.append(fetch2(g, direct))
                shutil.rmtree(g)
                if a.baseline:
                    cache = fresh()
                    bt1.append(knobs_sync(a.baseline, direct, t1, cache, work)[0])
                    shutil.rmtree(cache)
            print(f"\n{scheme}://{'':40} {'received':>12} {'wall':>8}")
            print(f"{'git clone --bare --depth 1 --branch ' + t1:46} {mib(g1):>12} {med(gt1):7.2f}s")
            print(f"{'knobs sync --tag ' + t1:46} {mib(k1):>12} {med(kt1):7.2f}s   "
                  f"ratio {k1 / g1:.2f}x bytes, {med(kt1) / med(gt1):.2f}x time")
            print(f"{'git fetch --depth 1 URL tag ' + t2 + ' (that clone)':46} {mib(g2):>12} {med(gt2):7.2f}s")
            print(f"{'knobs sync --tag ' + t2 + ' (that cache)':46} {mib(k2):>12} {med(kt2):7.2f}s   "
                  f"ratio {k2 / max(g2, 1):.2f}x bytes, {med(kt2) / med(gt2):.2f}x time")
            if a.baseline:
                print(f"{'baseline knobs sync --tag ' + t1:46} {mib(b1):>12} {med(bt1):7.2f}s   "
                      f"ratio {b1 / g1:.2f}x bytes, {med(bt1) / med(gt1):.2f}x time; its cache {mib(bsize)}")
            print(f"knobs' own count: {note1} then {note2} (objects, bytes); "
                  f"on disk: knobs cache {mib(kcache)}, clone {mib(gsize)}")
        # libgit2's local transport refuses a shallow fetch: knobs copies a
        # file:// remote's objects itself; the baseline fetched it all.
        for name, knobs in [("knobs", a.knobs)] + ([("baseline", a.baseline)] if a.baseline else []):
            if a.no_file:
                break
            cache = fresh()
            took = timed([knobs, "-v", "sync", "--repo", f"file://{repo}", "--tag", t1, "--out", "out"],
                         env=dict(os.environ, KNOBS_CACHE_DIR=cache), cwd=work)
            note = re.search(r"note: fetched .*", took[1])
            print(f"\nfile://: {name} sync --tag {t1} {took[0]:.2f}s, cache {mib(du(cache))}"
                  + (f" ({note.group(0)})" if note else ""))
    finally:
        if daemon:
            daemon.kill()
            daemon.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
