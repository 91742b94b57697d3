#!/usr/bin/env python3
"""knobs against ripgrep, side by side in one run.

    benches/bench.py [--files N] [--runs R] [--vault DIR] [--sizes 1000,5000,...]
                     [--llama LLAMA_GIT_DIR] [--knobs PATH]

Cases, each timed as whole processes in alternating runs (knobs, rg, knobs,
rg, ...) after one warm-up of each, reporting medians:

  vault   `knobs lint TREE --format json` against `rg -c -- '--[a-z]|radiance:|vllm:' TREE`
          on a vault from benches/vault.py (N files, default 6000)
  single  the same two commands on one runbook of that vault (the pre-commit case)
  sync    `knobs sync` of a cached tag whose config file is the size of
          llama.cpp's common/arg.cpp (a generated one, ~217 KB), against
          `git cat-file -p` reading the same blob; with --llama, the real
          arg.cpp at b10573 too
  scale   (with --sizes) the vault case at each size: how cost grows

Wall time is measured around each process; peak memory is the child's
peak resident size as GNU time (/usr/bin/time, Debian package `time`) reports
it. Figures are printed; nothing is asserted: the targets
are in docs/performance.md. ripgrep must be on PATH (apt install ripgrep).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, cwd=None, env=None):
    """Runs cmd to completion; returns (seconds, exit code)."""
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, p.returncode


def peak(cmd, cwd=None, env=None):
    """The command's peak resident memory in KiB, from GNU time (a child of
    this Python process would inherit its high-water mark)."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(p.stderr.strip().splitlines()[-1])


def side_by_side(a, b, runs, cwd=None, env=None):
    """Alternating runs of two commands: median times, then peak memory."""
    for cmd in (a, b):
        run(cmd, cwd, env)  # warm the page cache and the binary
    ta, tb = [], []
    for _ in range(runs):
        ta.append(run(a, cwd, env)[0])
        tb.append(run(b, cwd, env)[0])
    return statistics.median(ta), statistics.median(tb), peak(a, cwd, env), peak(b, cwd, env)


def tree_bytes(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(d, f))
    return total


def vault(knobs, tree, runs):
    k, r, km, rm = side_by_side(
        [knobs, "lint", tree, "--format", "json"], ["rg", "-c", "--", "--[a-z]|radiance:|vllm:", tree], runs
    )
    return k, r, km, rm


def report(name, k, r, km, rm, size=None, target=None):
    mbs = f", knobs {size / k / 1e6:.0f} MB/s, rg {size / r / 1e6:.0f} MB/s" if size else ""
    goal = f" (target ≤ {target}×)" if target else ""
    print(f"{name}: knobs {k * 1000:.1f} ms, rg {r * 1000:.1f} ms: {k / r:.2f}× ripgrep{goal}{mbs}")
    print(f"{' ' * len(name)}  peak memory: knobs {km / 1024:.1f} MiB, rg {rm / 1024:.1f} MiB")


def generated_arg_cpp(path, target_bytes=217_000):
    """A config file in llama.cpp's builder idiom, written here, of arg.cpp's size."""
    lines = ['#include "arg.h"', "", "void add_options(common_params_context & ctx, common_params & params) {"]
    i = 0
    kinds = [
        ('"N"', "int value", "params.n_opt{i} = value;", 'default: %d'),
        ('"F"', "const std::string & value", "params.f_opt{i} = std::stof(value);", 'default: %.1f'),
        ("", "", "params.b_opt{i} = true;", ""),
        (
            '"{{none,layer,row}}"',
            "const std::string & value",
            'if (value == "none") {{ params.m{i} = 0; }} else if (value == "layer") {{ params.m{i} = 1; }} '
            'else if (value == "row") {{ params.m{i} = 2; }} else {{ throw std::invalid_argument("invalid value"); }}',
            "",
        ),
    ]
    size = 0
    while size < target_bytes:
        metavar, arg, body, fmt = kinds[i % len(kinds)]
        names = f'{{"-o{i}", "--option-number-{i}"}}'
        help_text = f'"sets option {i} of the generated table, which shapes nothing at all but its own size'
        help_text += f' ({fmt})"' if fmt else '"'
        call = f"    ctx.add_opt(common_arg(\n        {names},"
        if metavar:
            call += f" {metavar},"
        call += f"\n        {help_text},\n        [](common_params & params"
        call += f", {arg}" if arg else ""
        call += ") {\n            " + body.format(i=i) + "\n        }\n    ).set_env(\"LLAMA_ARG_OPTION_" + str(i) + "\"));"
        lines.append(call)
        size += len(call) + 1
        i += 1
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return i


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def sync_case(knobs, runs, work, llama):
    repo = os.path.join(work, "engine")
    os.makedirs(os.path.join(repo, "common"))
    options = generated_arg_cpp(os.path.join(repo, "common", "arg.cpp"))
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
               GIT_COMMITTER_EMAIL="b@b", KNOBS_CACHE_DIR=os.path.join(work, "cache"))
    subprocess.run(["git", "init", "-q", repo], check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "generated"], cwd=repo, check=True, env=env)
    # A tag of the newest era: the llama.cpp profile reads an older build's
    # options from the files that era kept them in (`b1` asked for
    # common/common.cpp, which this repository does not hold).
    subprocess.run(["git", "tag", "b10573"], cwd=repo, check=True, env=env)
    size = os.path.getsize(os.path.join(repo, "common", "arg.cpp"))
    out = os.path.join(work, "out")
    cases = [("generated", repo, "b10573", f"{size / 1000:.0f} KB, {options} options")]
    if llama:
        blob = subprocess.run(["git", "-C", llama, "cat-file", "-s", "b10573:common/arg.cpp"],
                              capture_output=True, text=True)
        if blob.returncode == 0:
            cases.append(("llama.cpp b10573", llama, "b10573", f"{int(blob.stdout) / 1000:.0f} KB, real"))
    for name, repo_dir, tag, what in cases:
        sync = [knobs, "sync", "--engine", "llama.cpp", "--repo", repo_dir, "--tag", tag, "--out", out]
        first = run(sync, cwd=work, env=env)
        if first[1] != 0:
            print(f"sync {name}: knobs sync failed (exit {first[1]})")
            continue
        floor = ["git", "-C", repo_dir, "cat-file", "-p", f"{tag}:common/arg.cpp"]
        k, g, km, gm = side_by_side(sync, floor, runs, cwd=work, env=env)
        print(f"sync {name} ({what}): knobs {k * 1000:.1f} ms (target < 150 ms), "
              f"git cat-file {g * 1000:.1f} ms; peak memory knobs {km / 1024:.1f} MiB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=6000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--vault")
    ap.add_argument("--sizes", help="comma-separated vault sizes for the scaling table")
    ap.add_argument("--llama", help="a llama.cpp git dir with tag b10573, for the real arg.cpp")
    ap.add_argument("--knobs", help="the knobs binary (default: a fresh release build)")
    args = ap.parse_args()
    if not shutil.which("rg"):
        sys.exit("ripgrep (rg) is not on PATH: apt install ripgrep")
    if not os.path.exists("/usr/bin/time"):
        sys.exit("GNU time (/usr/bin/time) is missing: apt install time")
    knobs = args.knobs
    if not knobs:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        knobs = os.path.join(ROOT, "target", "release", "knobs")
    print(f"machine: {os.cpu_count()} cores; {args.runs} alternating runs per case, medians")
    with tempfile.TemporaryDirectory() as work:
        tree = args.vault
        if not tree:
            tree = os.path.join(work, "vault")
            subprocess.run([sys.executable, os.path.join(ROOT, "benches", "vault.py"), str(args.files), tree], check=True)
        size = tree_bytes(tree)
        count = sum(len(f) for _, _, f in os.walk(tree))
        k, r, km, rm = vault(knobs, tree, args.runs)
        report(f"vault ({count} files, {size / 1e6:.1f} MB)", k, r, km, rm, size, 3)
        one = os.path.join(tree, "runbooks", "arm", "00000.md")
        k, r, km, rm = side_by_side(
            [knobs, "lint", one, "--format", "json"], ["rg", "-c", "--", "--[a-z]|radiance:|vllm:", one], args.runs
        )
        report(f"single ({os.path.getsize(one)} bytes)", k, r, km, rm, None, 2)
        sync_case(knobs, args.runs, work, args.llama)
        if args.sizes:
            print("scale:")
            for n in [int(s) for s in args.sizes.split(",")]:
                t = os.path.join(work, f"vault-{n}")
                subprocess.run([sys.executable, os.path.join(ROOT, "benches", "vault.py"), str(n), t], check=True)
                size = tree_bytes(t)
                k, r, km, rm = vault(knobs, t, args.runs)
                print(f"  {n:>6} files {size / 1e6:6.1f} MB: knobs {k * 1000:7.1f} ms, rg {r * 1000:6.1f} ms, "
                      f"{k / r:5.2f}×, knobs {size / k / 1e6:4.0f} MB/s, peak {km / 1024:5.1f} MiB")
                shutil.rmtree(t)


if __name__ == "__main__":
    main()
