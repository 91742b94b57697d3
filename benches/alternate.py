#!/usr/bin/env python3
"""Several knobs binaries and ripgrep on one vault, in turn, in one run.

    benches/alternate.py ROUNDS VAULT BIN [BIN ...]

Each round runs `BIN lint VAULT --format json` for every binary and
`rg -c -- '--[a-z]|radiance:|vllm:' VAULT` (the floor `benches/bench.py`
uses), the order reversed every other round so that no command always
follows another; after one warm-up of each it prints each binary's median
wall time and its ratio to ripgrep's median. For comparing builds when the
machine's speed drifts: only ratios taken in the same run mean anything.
Run it from the repository, as bench.py is run (the working directory is
part of what a lint reads).
"""

import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    rounds, vault, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    cmds = [[b, "lint", vault, "--format", "json"] for b in bins]
    cmds.append(["rg", "-c", "--", "--[a-z]|radiance:|vllm:", vault])
    times = [[] for _ in cmds]
    for c in cmds:
        subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for r in range(rounds):
        order = range(len(cmds)) if r % 2 == 0 else reversed(range(len(cmds)))
        for i in order:
            start = time.perf_counter()
            subprocess.run(cmds[i], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[i].append(time.perf_counter() - start)
    rg = statistics.median(times[-1])
    for b, ts in zip(bins, times):
        m = statistics.median(ts)
        print(f"{b}: {m * 1000:.1f} ms, {m / rg:.2f}x ripgrep")
    print(f"rg: {rg * 1000:.1f} ms ({rounds} rounds)")


if __name__ == "__main__":
    main()
