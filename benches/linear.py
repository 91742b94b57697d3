#!/usr/bin/env python3
"""Is the time knobs spends on a hostile file linear in its size?

    benches/linear.py [--knobs PATH] [--runs R]

For each shape below, files of size n, 2n, 4n and 8n are written and linted
(or, for C++, synced from a scratch git repository); the median wall time of
R runs is printed with the time per megabyte. Linear cost shows as a flat
(or, with start-up amortised, falling) "per MB" column; a quadratic one
doubles down the column. Nothing is
asserted: docs/reliability.md records the figures.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LINT_SHAPES = {
    # name: (file name, function of n -> text, unit)
    "quote markers": ("q.md", lambda n: ">" * n + " `--checkpoint-policy floor`\n", "marker"),
    "nested lists": ("l.md", lambda n: "".join("  " * i + "- x\n" for i in range(n)) + "`--port 1`\n", "level"),
    "one long line": ("w.md", lambda n: "word " * n + "`--checkpoint-policy floor`\n", "word"),
    "inline spans": ("s.md", lambda n: "`--port 1` `radiance:engine_steps_total` " * n + "\n", "span"),
    "shell blocks": ("b.md", lambda n: "```sh\nradiance --port 1 --log-level warn\n```\n" * n, "block"),
    "nested $(": ("n.sh", lambda n: "radiance --port " + "$(" * n + ")" * n + "\n", "level"),
    "nested $( in a block": ("m.md", lambda n: "```sh\nradiance --port " + "$(" * n + ")" * n + "\n```\n", "level"),
    "env lines": ("e.env", lambda n: "CHECKPOINT_POLICY=tip-only\n" * n, "line"),
}

CPP_SHAPES = {
    "nested parentheses": lambda n: "static const char* A = " + "(" * n + '"x"' + ")" * n + ";\n",
    "long + chain": lambda n: 'static std::string B = "a"' + ' + "b"' * n + ";\n",
    "nested blocks": lambda n: "void f() { " + "{" * n + "}" * n + " }\n",
}

CPP_TAIL = """
int parse(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--port") { port = std::stoi(argv[++i]); }
  }
  return 0;
}
"""


def timed(cmd, cwd, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        if p.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode()[-500:]}")
    return statistics.median(times)


def row(name, sizes, nbytes, times, unit):
    print(f"{name}:")
    for n, b, t in zip(sizes, nbytes, times):
        print(f"  {n:>9} {unit}s {b / 1e6:8.2f} MB  {t * 1000:8.1f} ms  {t / b * 1e9:8.1f} ms per MB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--knobs", help="the knobs binary (default: a fresh release build)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    knobs = args.knobs
    if not knobs:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        knobs = os.path.join(ROOT, "target", "release", "knobs")
    base = {"quote markers": 100_000, "nested lists": 500, "one long line": 100_000, "inline spans": 10_000,
            "shell blocks": 5_000, "nested $(": 4_000, "nested $( in a block": 4_000, "env lines": 20_000}
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "knobs.toml"), "w") as f:
            f.write("[lint]\nmax_file_size = 200000000\n")
        for name, (file, make, unit) in LINT_SHAPES.items():
            sizes = [base[name] * k for k in (1, 2, 4, 8)]
            times, nbytes = [], []
            for n in sizes:
                d = os.path.join(work, f"{file}-{n}")
                os.makedirs(d)
                text = make(n)
                nbytes.append(len(text.encode()))
                with open(os.path.join(d, file), "w") as f:
                    f.write(text)
                times.append(timed([knobs, "lint", "--config", os.path.join(work, "knobs.toml"), d,
                                    "--format", "json"], work, args.runs))
            row(name, sizes, nbytes, times, unit)
        for name, make in CPP_SHAPES.items():
            sizes = [2_000 * k for k in (1, 2, 4, 8)]
            times, nbytes = [], []
            for n in sizes:
                repo = os.path.join(work, f"cpp-{name.replace(' ', '-')}-{n}")
                os.makedirs(os.path.join(repo, "core"))
                text = make(n) + CPP_TAIL
                nbytes.append(len(text.encode()))
                with open(os.path.join(repo, "core", "config.cpp"), "w") as f:
                    f.write(text)
                env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
                           GIT_COMMITTER_EMAIL="b@b")
                for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "x"],
                            ["git", "tag", "v1"]):
                    subprocess.run(cmd, cwd=repo, check=True, env=env)
                times.append(timed([knobs, "sync", "--repo", repo, "--tag", "v1", "--out",
                                    os.path.join(work, "out")], work, args.runs))
            row(f"C++ {name} (sync)", sizes, nbytes, times, "level")


if __name__ == "__main__":
    main()
