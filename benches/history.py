#!/usr/bin/env python3
"""`knobs sync --all-tags` over a many-tag repository read in place.

    benches/history.py --repo LLAMA_GIT_DIR [--knobs PATH] [--engine llama.cpp]
                       [--single TAG] [--subsets 250,500,1000] [--runs R]

Cases, each a whole process, wall time and peak resident memory from GNU time
(`/usr/bin/time -v`, Debian package `time`):

  cold     `knobs sync --all-tags` into an empty folder: every tag listed,
           keyed, each distinct blob set extracted once
  warm     the same again over the history it wrote: nothing new (median of R)
  store    the size of the history written, on disk
  subsets  `--tags FROM..` naming the newest N tags, into an empty folder
           each: peak memory as the number of tags grows (all = cold)
  single   `knobs sync --tag TAG` of one tag, in the same run: the baseline a
           tag-by-tag sync pays per tag (median of R)

Figures are printed; nothing is asserted: the targets are in
docs/performance.md ("History"). Build knobs with `cargo build --release`
first (and delete target/release afterwards).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, env):
    """Runs cmd under GNU time: (wall seconds, peak KiB, exit code, stdout)."""
    p = subprocess.run(["/usr/bin/time", "-v", *cmd], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", p.stderr))
    timed.cpu = cpu
    seconds = 0.0
    if wall:
        for part in wall.group(1).split(":"):
            seconds = seconds * 60 + float(part)
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-2000:])
    return seconds, int(rss.group(1)) if rss else 0, p.returncode, p.stdout.strip()


def tags_in_order(repo):
    """The repository's tags, oldest first by their build number (bNNNN),
    then the rest by name."""
    out = subprocess.run(["git", "--git-dir", repo, "tag", "--list"], stdout=subprocess.PIPE,
                         text=True, check=True).stdout.split()

    def key(t):
        m = re.fullmatch(r"b(\d+)", t)
        return (0, int(m.group(1)), t) if m else (1, 0, t)

    return sorted(out, key=key)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="the git folder of the repository (read in place)")
    ap.add_argument("--knobs", default=os.path.join(ROOT, "target/release/knobs"))
    ap.add_argument("--engine", default="llama.cpp")
    ap.add_argument("--single", default=None, help="the tag of the single-tag baseline (default: the newest)")
    ap.add_argument("--subsets", default="250,500,1000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    tags = tags_in_order(repo)
    single = args.single or tags[-1]
    work = tempfile.mkdtemp(prefix="knobs-history-bench-")
    env = dict(os.environ, KNOBS_CACHE_DIR=os.path.join(work, "cache"), NO_COLOR="1")
    base = [args.knobs, "sync", "--engine", args.engine, "--repo", repo]
    try:
        print(f"repository {repo}: {len(tags)} tags; knobs {args.knobs}; {os.cpu_count()} cores")
        # The single-tag baseline first, so the page cache is warm for both.
        singles = []
        for _ in range(args.runs + 1):
            out = os.path.join(work, "single")
            shutil.rmtree(out, ignore_errors=True)
            singles.append(timed(base + ["--tag", single, "--out", out], env))
        single_wall = statistics.median(s[0] for s in singles[1:])
        single_rss = max(s[1] for s in singles[1:])
        print(f"single   sync --tag {single}: {single_wall:.3f} s, peak {single_rss / 1024:.0f} MiB")

        out = os.path.join(work, "all")
        wall, rss, code, stdout = timed(base + ["--all-tags", "--out", out], env)
        cold_rss = rss
        print(f"cold     sync --all-tags: {wall:.2f} s ({timed.cpu:.1f} s of CPU), peak {rss / 1024:.0f} MiB (exit {code})")
        print(f"         load average at the end: {os.getloadavg()[0]:.1f} (a shared machine: wall time is CPU time / cores only when idle)")
        print(f"         {stdout.splitlines()[-1] if stdout else ''}")
        m = re.search(r"(\d+) tags, (\d+) states", stdout)
        held = int(m.group(1)) if m else 0
        if held:
            print(f"         vs single-tag syncs of the {held} tags held: {single_wall * held:.0f} s "
                  f"({single_wall * held / wall:.0f}x the cold history sync)")
        warm = [timed(base + ["--all-tags", "--out", out], env) for _ in range(args.runs)]
        print(f"warm     sync --all-tags again: {statistics.median(w[0] for w in warm):.3f} s, "
              f"peak {max(w[1] for w in warm) / 1024:.0f} MiB")
        print(f"         {warm[-1][3]}")
        path = os.path.join(out, args.engine, "history.json")
        size = os.path.getsize(path)
        blocks = os.stat(path).st_blocks * 512
        print(f"store    {path}: {size / 1e6:.2f} MB ({blocks / 1e6:.2f} MB on disk)")
        for n in [int(x) for x in args.subsets.split(",") if x]:
            if n >= len(tags):
                continue
            sub = os.path.join(work, f"sub{n}")
            wall, rss, code, stdout = timed(base + ["--tags", f"{tags[-n]}..", "--out", sub], env)
            summary = stdout.splitlines()[-1] if stdout else ""
            m = re.search(r"(\d+) tags, (\d+) states", summary)
            print(f"subset   --tags {tags[-n]}.. ({n} tags listed): {wall:.2f} s, peak {rss / 1024:.0f} MiB; "
                  f"{m.group(1) if m else '?'} tags, {m.group(2) if m else '?'} states held (exit {code})")
            shutil.rmtree(sub, ignore_errors=True)
        print(f"subset   all ({len(tags)} tags listed): peak {cold_rss / 1024:.0f} MiB (the cold run)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
