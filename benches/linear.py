#!/usr/bin/env python3
"""Is the time knobs spends on a hostile file linear in its size?

    benches/linear.py [--knobs PATH] [--runs R]

For each shape below, files of size n, 2n, 4n and 8n are written and linted
(or, for C++, synced from a scratch git repository); the median wall time of
R runs is printed with the time per megabyte. Linear cost shows as a flat
(or, with start-up amortised, falling) "per MB" column; a quadratic one
doubles down the column. With --baseline another binary is timed on the
same files, in the same run. Nothing is asserted: docs/reliability.md and
docs/security.md record the figures.
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
    # Distinct keys: the check for a key set twice searched every key seen (issue 29).
    "distinct env keys": ("d.env", lambda n: "".join(f"KEY_{i:06}=value{i}\n" for i in range(n)), "key"),
    # A regex matcher far over the compile bound, each distinct (issue 22).
    "PromQL regex matchers": ("r.md", lambda n: "".join(
        f"```promql\nrate({{__name__=~\"radiance:\\\\w{{{400 + i}}}\"}}[5m])\n```\n" for i in range(n)), "matcher"),
    # Regex matchers just under the compile bound, each distinct: a budget
    # per file (issue 29).
    "PromQL regex matchers under the bound": ("u.md", lambda n: "".join(
        f"```promql\nrate({{__name__=~\"radiance:x{i}\\\\w{{5}}\"}}[5m])\n```\n" for i in range(n)), "matcher"),
    # One aggregation grouping by a great many labels (issue 22).
    "PromQL by labels": ("g.md", lambda n: "```promql\nsum by (" + ",".join(f"l{i}" for i in range(n))
                         + ") (rate(radiance:engine_steps_total[5m]))\n```\n", "label"),
}

CPP_SHAPES = {
    "nested parentheses": lambda n: "static const char* A = " + "(" * n + '"x"' + ")" * n + ";\n",
    "long + chain": lambda n: 'static std::string B = "a"' + ' + "b"' * n + ";\n",
    "nested blocks": lambda n: "void f() { " + "{" * n + "}" * n + " }\n",
    # One option per branch, as a hand-written argv loop has them (issue 22).
    "else if chain": lambda n: "void g(std::string a) {\n  if (a == \"--opt-0\") { x = 0; }\n"
    + "".join(f"  else if (a == \"--opt-{i}\") {{ x = std::stoi(v); }}\n" for i in range(1, n)) + "}\n",
    # The same, each branch refusing a value with a message that lists members.
    "else if chain of refusals": lambda n: "void r(std::string a, std::string v) {\n  if (a == \"--opt-0\") { x = 0; }\n"
    + "".join(f"  else if (a == \"--opt-{i}\") {{ if (v != \"on\" && v != \"off\") throw std::invalid_argument(\"--opt-{i}: expected one of: on, off\"); }}\n" for i in range(1, n)) + "}\n",
    # An if nested in an if, each level reading its own flag (issue 29).
    "nested if": lambda n: "void n(std::string a) {\n"
    + "".join(f"if (a == \"--opt-{i}\") {{ x = std::stoi(v);\n" for i in range(n)) + "}" * n + "\n}\n",
    # The same, each level refusing a value with a message that lists members.
    "nested if of refusals": lambda n: "void m(std::string a, std::string v) {\n"
    + "".join(f"if (a == \"--opt-{i}\") {{ if (v != \"on\" && v != \"off\") throw std::invalid_argument("
              "\"expected one of: on, off\");\n" for i in range(n)) + "}" * n + "\n}\n",
    # Refusals nested in one function that name no flag: each condition's
    # flag is found through a local (`v = get("--opt-0")`), whose function
    # was climbed to once per level.
    "nested refusals of a local": lambda n: "void k(Flags& fs) {\n  const std::string v = fs.get(\"--opt-0\");\n"
    + "".join(f"if (v != \"on{i}\" && v != \"off{i}\") {{ fail(\"expected one of: on{i}, off{i}\");\n" for i in range(n))
    + "}" * n + "\n}\n",
    # In a flag's branch: nested subscripts, and a right-nested assignment chain.
    "nested subscripts in a branch": lambda n: "void s(std::string a) {\n  if (a == \"--opt-0\") { x = "
    + "v[" * n + "0" + "]" * n + "; }\n}\n",
    "assignment chain in a branch": lambda n: "void c(std::string a) {\n  if (a == \"--opt-0\") { "
    + "".join(f"x{i} = " for i in range(n)) + "std::stoi(v); }\n}\n",
    # One flag chosen by a chain of conditions: a ? b : c ? d : ...
    "ternary chain": lambda n: "void t(std::string a) {\n  x = "
    + "".join(f"a == \"--opt-{i}\" ? {i} : " for i in range(n)) + "0;\n}\n",
    # The same nested by parentheses: (a ? (b ? ... : 1) : 0)
    "nested parenthesised ternaries": lambda n: "void u(std::string a) {\n  x = "
    + "".join(f"(a == \"--opt-{i}\" ? " for i in range(n)) + "1" + "".join(f" : {i})" for i in range(n)) + ";\n}\n",
    # One option with a great many spellings in one condition.
    "|| chain": lambda n: "void h(std::string a) {\n  if (" + " || ".join(f'a == "--alias-{i}"' for i in range(n))
    + ") { y = 1; }\n}\n",
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


def row(name, sizes, nbytes, times, unit, base_times=None):
    print(f"{name}:")
    for i, (n, b, t) in enumerate(zip(sizes, nbytes, times)):
        line = f"  {n:>9} {unit}s {b / 1e6:8.2f} MB  {t * 1000:8.1f} ms  {t / b * 1e9:8.1f} ms per MB"
        if base_times:
            bt = base_times[i]
            line += f"   baseline {bt * 1000:9.1f} ms  {bt / b * 1e9:9.1f} ms per MB"
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--knobs", help="the knobs binary (default: a fresh release build)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", help="another knobs binary, timed on the same files")
    ap.add_argument("--only", action="append", help="run only the shapes whose name contains this (repeatable)")
    ap.add_argument("--cpp-base", type=int, default=2_000, help="the smallest C++ shape's size")
    args = ap.parse_args()
    knobs = os.path.abspath(args.knobs) if args.knobs else None
    if not knobs:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        knobs = os.path.join(ROOT, "target", "release", "knobs")
    base = {"quote markers": 100_000, "nested lists": 500, "one long line": 100_000, "inline spans": 10_000,
            "shell blocks": 5_000, "nested $(": 4_000, "nested $( in a block": 4_000, "env lines": 20_000,
            "PromQL regex matchers": 10, "PromQL by labels": 5_000,
            "distinct env keys": 2_500, "PromQL regex matchers under the bound": 125}
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "knobs.toml"), "w") as f:
            f.write("[lint]\nmax_file_size = 200000000\n")
        for name, (file, make, unit) in LINT_SHAPES.items():
            if args.only and not any(o in name for o in args.only):
                continue
            sizes = [base[name] * k for k in (1, 2, 4, 8)]
            times, nbytes, base_times = [], [], []
            for n in sizes:
                d = os.path.join(work, f"{file}-{n}")
                os.makedirs(d)
                text = make(n)
                nbytes.append(len(text.encode()))
                with open(os.path.join(d, file), "w") as f:
                    f.write(text)
                lint = ["lint", "--config", os.path.join(work, "knobs.toml"), d, "--format", "json"]
                times.append(timed([knobs] + lint, work, args.runs))
                if args.baseline:
                    base_times.append(timed([os.path.abspath(args.baseline)] + lint, work, args.runs))
            row(name, sizes, nbytes, times, unit, base_times)
        for name, make in CPP_SHAPES.items():
            if args.only and not any(o in name for o in args.only):
                continue
            sizes = [args.cpp_base * k for k in (1, 2, 4, 8)]
            times, nbytes, base_times = [], [], []
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
                sync = ["sync", "--repo", repo, "--tag", "v1", "--out", os.path.join(work, "out")]
                times.append(timed([knobs] + sync, work, args.runs))
                if args.baseline:
                    base_times.append(timed([os.path.abspath(args.baseline)] + sync, work, args.runs))
            row(f"C++ {name} (sync)", sizes, nbytes, times, "level", base_times)


if __name__ == "__main__":
    main()
