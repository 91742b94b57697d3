#!/usr/bin/env python3
"""Peak memory and time of `knobs sync` against a server sending a hostile pack.

    benches/hostile_pack.py --knobs PATH [--baseline PATH]

Serves, over git's smart HTTP on a loopback port, one tag `v1` and a pack
the script writes (the shapes of tests/support/hostile_pack.rs):

- bomb: a 1 MiB blob of zeros and 10 deltas on it, each declaring a result
  of 1 GiB (a few KB on the wire);
- chain: a 1 MiB blob and a chain of 40 deltas, each a 60 MiB result of the
  one before;
- count: a header declaring 4,294,967,295 objects.

Each binary (and the baseline, in the same run) syncs each with
`/usr/bin/time -v`, killed after 120 s; wall time, peak RSS and the first
line of its error are printed. Nothing is asserted: the figures go in
docs/security.md.
"""

import argparse
import hashlib
import http.server
import os
import re
import shutil
import socketserver
import subprocess
import tempfile
import threading
import zlib

TIP = "1" * 40


def pkt(data):
    return b"%04x" % (len(data) + 4) + data


def entry_header(kind, size):
    out = bytearray([(kind << 4) | (size & 0x0F)])
    size >>= 4
    while size:
        out[-1] |= 0x80
        out.append(size & 0x7F)
        size >>= 7
    return bytes(out)


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def blob(size):
    return entry_header(3, size) + zlib.compress(bytes(size), 9)


def delta(back, base, result):
    d = bytearray(varint(base) + varint(result))
    left, step = result, min(base, 0xFFFFFF)
    while left:
        n = min(left, step)
        d += bytes([0xF0, n & 0xFF, (n >> 8) & 0xFF, (n >> 16) & 0xFF])
        left -= n
    off = back
    enc = [off & 0x7F]
    off >>= 7
    while off:
        off -= 1
        enc.append(0x80 | (off & 0x7F))
        off >>= 7
    return entry_header(6, len(d)) + bytes(reversed(enc)) + zlib.compress(bytes(d), 9)


def pack(entries, count=None):
    out = b"PACK" + (2).to_bytes(4, "big") + (count if count is not None else len(entries)).to_bytes(4, "big")
    out += b"".join(entries)
    return out + hashlib.sha1(out).digest()


def bomb():
    entries, at = [blob(1 << 20)], None
    at = len(entries[0])
    for _ in range(10):
        d = delta(at, 1 << 20, 1 << 30)
        at += len(d)
        entries.append(d)
    return pack(entries)


def chain():
    entries = [blob(1 << 20)]
    prev = (len(entries[0]), 1 << 20)
    for _ in range(40):
        d = delta(prev[0], prev[1], 60 << 20)
        prev = (len(d), 60 << 20)
        entries.append(d)
    return pack(entries)


def count():
    return pack([blob(10)], count=0xFFFFFFFF)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    body = b""

    def log_message(self, *args):
        pass

    def answer(self, kind, data):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        caps = b"multi_ack_detailed side-band-64k ofs-delta shallow no-progress"
        data = pkt(b"# service=git-upload-pack\n") + b"0000"
        data += pkt(TIP.encode() + b" refs/tags/v1\0" + caps + b"\n") + b"0000"
        self.answer("application/x-git-upload-pack-advertisement", data)

    def do_POST(self):
        asked = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if b"done" not in asked:
            self.answer("application/x-git-upload-pack-result", pkt(b"shallow " + TIP.encode()) + b"0000")
            return
        data = pkt(b"NAK\n")
        for i in range(0, len(self.server.pack), 65000):
            data += pkt(b"\x01" + self.server.pack[i:i + 65000])
        self.answer("application/x-git-upload-pack-result", data + b"0000")


def run(knobs, url):
    work = tempfile.mkdtemp()
    try:
        p = subprocess.run(["timeout", "-s", "KILL", "120", "/usr/bin/time", "-v", knobs, "sync", "--repo", url,
                            "--tag", "v1", "--out", "out"], cwd=work, capture_output=True, text=True,
                           env=dict(os.environ, KNOBS_CACHE_DIR=os.path.join(work, "cache"), NO_COLOR="1"))
        wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", p.stderr)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        error = next((l.strip() for l in p.stderr.splitlines() if "cannot read" in l or "memory" in l), "")
        return (wall.group(1) if wall else "killed", int(rss.group(1)) // 1024 if rss else 0, p.returncode, error)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--knobs", required=True)
    ap.add_argument("--baseline")
    args = ap.parse_args()
    for name, make in [("bomb", bomb), ("chain", chain), ("count", count)]:
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        server.pack = make()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = "http://127.0.0.1:%d/h.git" % server.server_address[1]
        for label, knobs in [("before", args.baseline), ("after", args.knobs)]:
            if knobs:
                wall, rss, code, error = run(knobs, url)
                print(f"{name} ({len(server.pack)} bytes) {label}: {wall}, {rss} MB peak RSS, exit {code}: {error[:160]}")
        server.shutdown()


if __name__ == "__main__":
    main()
