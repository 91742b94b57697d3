#!/usr/bin/env python3
"""Peak memory and time of `knobs sync --engine vllm` on hostile Python.

    benches/python_memory.py --knobs PATH [--baseline PATH] [--only NAME]

Builds, in a temporary folder with the git command line, repositories of
vLLM's shape whose Python is built to cost memory (issue 29): many files
of list literals just under the per-file ceiling, a list doubled by `+`
through a chain of names, a choices list of a million strings. Syncs each
with the binary (and the baseline, in the same run), printing wall time,
peak RSS (`/usr/bin/time -v`) and the exit code. Nothing is asserted:
docs/security.md records the figures.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ENV = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")
ENTRY = "vllm/entrypoints/openai/cli_args.py"


def entry(choices):
    return (f"def make_arg_parser(parser):\n"
            f"    parser.add_argument('--port', type=int, default=8000, help='Port.')\n"
            f"    parser.add_argument('--pick', type=str, choices={choices}, help='Pick.')\n"
            f"    return parser\n")


def lists(files, size):
    """`files` modules of list literals, each just under `size` bytes."""
    line = "X = [" + "0," * 1000 + "]\n"
    body = line * (size // len(line))
    # Each module differs, so that no two share a blob (read once).
    out = {f"vllm/gen/m{i}.py": f"M = {i}\n" + body for i in range(files)}
    out[ENTRY] = entry("['a', 'b']")
    return out


def doubling(levels):
    """X0 a list of 10,000 strings, each Xi = Xi-1 + Xi-1: 2**levels * 10,000."""
    text = "X0 = [" + ", ".join(f"'s{i}'" for i in range(10_000)) + "]\n"
    text += "".join(f"X{i} = X{i - 1} + X{i - 1}\n" for i in range(1, levels + 1))
    return {"vllm/consts.py": text, ENTRY: entry(f"X{levels}")}


def million():
    text = "BIG = [" + ", ".join(f"'c{i}'" for i in range(1_000_000)) + "]\n"
    return {"vllm/consts.py": text, ENTRY: entry("BIG")}


SHAPES = {
    "lists": ("8 modules of list literals, 4 MB each (32 MB)", lambda: lists(8, 4_000_000)),
    "doubling": ("a list of 10,000 strings doubled through 11 names (x 2**11)", lambda: doubling(11)),
    "million": ("choices of 1,000,000 strings (one 10 MB module)", million),
}


def build(work, name, files):
    repo = os.path.join(work, name)
    for path, text in files.items():
        p = os.path.join(repo, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"], ["tag", "v1"]):
        subprocess.run(["git", "-C", repo, *args], env=ENV, check=True)
    return repo


def measure(knobs, repo, work):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run(["/usr/bin/time", "-v", knobs, "sync", "--engine", "vllm", "--repo", repo, "--tag", "v1",
                        "--out", out], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors="replace")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", err).group(1)
    secs = sum(float(v) * 60 ** i for i, v in enumerate(reversed(wall.split(":"))))
    last = [l for l in err.splitlines() if not l.startswith("\t") and l.strip()][-3:]
    return p.returncode, secs, rss, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--knobs", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for name, (label, make) in SHAPES.items():
            if args.only and name not in args.only:
                continue
            repo = build(work, name, make())
            print(f"{label}:", flush=True)
            for who, binary in [("knobs", args.knobs), ("baseline", args.baseline)]:
                if not binary:
                    continue
                code, secs, rss, last = measure(os.path.abspath(binary), repo, work)
                print(f"  {who:>8}: exit {code}  {secs:7.2f} s  {rss / 1024:8.1f} MB peak RSS", flush=True)
                for l in last:
                    print(f"            {l[:200]}")


if __name__ == "__main__":
    sys.exit(main())
