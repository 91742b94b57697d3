#!/usr/bin/env python3
"""knobs server: diagnostics latency after a one-character change, against
`knobs lint` of the same file, in one run.

    benches/server.py [--lines 2000] [--runs 20] [--knobs PATH]

Writes a radiance runbook of --lines lines (prose and fenced `radiance`
commands, one invented flag per block) under a knobs.toml pin, starts
`knobs server`, opens it, then --runs times changes one character (a full
text didChange, a new version) and times from the didChange sent to the
publishDiagnostics of that version received. The latency includes the
server's debounce (the change is the last one). Against it: `knobs lint
FILE` as a whole process, the same number of runs. Medians are printed,
and their ratio; nothing is asserted (the issue's target: under 50 ms).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def target_dir():
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "target-dir.sh")], capture_output=True, text=True)
    return out.stdout.strip() or os.path.join(ROOT, "target")


def runbook(lines):
    out = ["# Runbook", ""]
    i = 0
    while len(out) < lines - 5:
        out += [f"Step {i}: start the node with a policy.", "", "```sh",
                f"radiance --checkpoint-polcy tip-only --max-num-seqs {i % 64 + 1}", "```", ""]
        i += 1
    while len(out) < lines:
        out.append("More prose.")
    return "\n".join(out) + "\n"


class Server:
    def __init__(self, knobs, cwd):
        self.p = subprocess.Popen([knobs, "server"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.next = 0

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("server.py: knobs server closed its output")
            line = line.strip()
            if not line:
                break
            if line.startswith(b"Content-Length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == self.next and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, uri, version):
        while True:
            m = self.read()
            p = m.get("params", {})
            if m.get("method") == "textDocument/publishDiagnostics" and p.get("uri") == uri \
                    and p.get("version") == version:
                return p["diagnostics"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--knobs", default=os.path.join(target_dir(), "release", "knobs"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "knobs.toml"), "w") as f:
            f.write('[pin]\nengine = "radiance"\ntag = "v1.8.1"\n')
        text = runbook(a.lines)
        path = os.path.join(d, "run.md")
        with open(path, "w") as f:
            f.write(text)
        uri = "file://" + path
        s = Server(a.knobs, d)
        s.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        s.notify("initialized", {})
        s.notify("textDocument/didOpen",
                 {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}})
        found = len(s.diagnostics(uri, 1))
        server = []
        for v in range(2, a.runs + 2):
            # One character: the last prose line's `.` comes and goes.
            changed = text if v % 2 else text[:-2] + "\n"
            start = time.perf_counter()
            s.notify("textDocument/didChange",
                     {"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": changed}]})
            s.diagnostics(uri, v)
            server.append(time.perf_counter() - start)
        s.request("shutdown", None)
        s.notify("exit", None)
        s.p.wait(timeout=30)
        lint = []
        for _ in range(a.runs):
            start = time.perf_counter()
            subprocess.run([a.knobs, "lint", "run.md"], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            lint.append(time.perf_counter() - start)
    ms = lambda xs: statistics.median(xs) * 1000
    print(f"runbook: {a.lines} lines, {found} diagnostics; {a.runs} runs each; {a.knobs}")
    print(f"server: didChange -> publishDiagnostics  median {ms(server):.1f} ms  (min {min(server) * 1000:.1f}, max {max(server) * 1000:.1f})")
    print(f"lint:   knobs lint run.md (process)     median {ms(lint):.1f} ms")
    print(f"ratio server/lint: {ms(server) / ms(lint):.2f}; target under 50 ms: {'met' if ms(server) < 50 else 'NOT met'}")


if __name__ == "__main__":
    main()
