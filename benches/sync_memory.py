#!/usr/bin/env python3
"""Peak memory and time of `knobs sync` on hostile repositories.

    benches/sync_memory.py --knobs PATH [--baseline PATH] [--million]

Builds, in a temporary folder with the git command line, repositories in
the shapes of issue 22 — a tree pointing 1,000 paths at one 3.9 MB blob, a
tree of a million paths (with --million: it takes a while to build), and a
200 MB `core/config.cpp` — and syncs each with the binary (and the baseline
binary, in the same run), printing wall time and peak RSS from
`/usr/bin/time -v`. Nothing is asserted: docs/security.md records the
figures.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")
CONFIG = open(os.path.join(ROOT, "fixtures/radiance/v1.8.1/core/config.cpp"), "rb").read()


def git(repo, *args, data=None):
    return subprocess.run(["git", "-C", repo, *args], input=data, env=ENV, check=True,
                          stdout=subprocess.PIPE).stdout.decode().strip()


def blob(repo, data):
    return git(repo, "hash-object", "-w", "--stdin", data=data)


def tree(repo, entries):
    """entries: name -> ("blob"|"tree", id)."""
    lines = "".join(f"{'100644' if k == 'blob' else '040000'} {k} {i}\t{n}\n" for n, (k, i) in sorted(entries.items()))
    return git(repo, "mktree", data=lines.encode())


def tagged(repo, root):
    commit = git(repo, "commit-tree", root, "-m", "x")
    git(repo, "tag", "v1", commit)


def build(work, name, make):
    repo = os.path.join(work, name)
    subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
    make(repo)
    return repo


def shared_blob(repo):
    metrics = b'void reg(Registry& r) { r.counter("radiance:shared_total", "x"); }\n'
    big = blob(repo, metrics + b"// padding padding padding padding padding padding\n" * 76_000)
    gen = tree(repo, {f"copy{i:04}.cpp": ("blob", big) for i in range(1000)})
    core = tree(repo, {"config.cpp": ("blob", blob(repo, CONFIG))})
    tagged(repo, tree(repo, {"core": ("tree", core), "gen": ("tree", gen)}))


def million(repo):
    small = blob(repo, b"int x;\n")
    gen = tree(repo, {f"f{i:07}.cpp": ("blob", small) for i in range(1_000_000)})
    core = tree(repo, {"config.cpp": ("blob", blob(repo, CONFIG))})
    tagged(repo, tree(repo, {"core": ("tree", core), "gen": ("tree", gen)}))


def huge_config(repo):
    core = tree(repo, {"config.cpp": ("blob", blob(repo, CONFIG + b" " * 200_000_000))})
    tagged(repo, tree(repo, {"core": ("tree", core)}))


def measure(knobs, repo, work):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run(["/usr/bin/time", "-v", knobs, "sync", "--repo", repo, "--tag", "v1", "--out", out],
                       cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors="replace")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", err).group(1)
    parts = [float(x) for x in wall.split(":")]
    secs = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    return p.returncode, secs, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--knobs", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--million", action="store_true")
    args = ap.parse_args()
    shapes = [("1,000 paths to one 3.9 MB blob", shared_blob), ("200 MB core/config.cpp", huge_config)]
    if args.million:
        shapes.insert(1, ("a million paths", million))
    with tempfile.TemporaryDirectory() as work:
        for label, make in shapes:
            repo = build(work, label.split()[0].replace(",", ""), make)
            print(f"{label}:")
            for name, binary in [("knobs", args.knobs), ("baseline", args.baseline)]:
                if not binary:
                    continue
                code, secs, rss = measure(os.path.abspath(binary), repo, work)
                print(f"  {name:>8}: exit {code}  {secs:7.2f} s  {rss / 1024:8.1f} MB peak RSS", flush=True)


if __name__ == "__main__":
    sys.exit(main())
