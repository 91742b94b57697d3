#!/usr/bin/env python3
"""Where knobs spends its time: `perf script` output of a `perf record
--call-graph dwarf` run of knobs, each sample put in the first bucket its
stack matches (the buckets are checked in order).

    perf record --call-graph dwarf,32768 -F 3000 -o perf.data -- knobs lint VAULT --format json
    perf script -i perf.data | benches/profile.py
"""
import collections
import re
import sys

BUCKETS = [
    ("reading files (open, read, close: the kernel)", lambda s, leaf: "Source>::read" in s),
    ("Markdown parsing (pulldown-cmark)", lambda s, leaf: leaf.lstrip("<").startswith("pulldown_cmark")),
    ("shell command lines in code blocks", lambda s, leaf: "shell::scan" in s),
    ("rules judging references", lambda s, leaf: "lint::rules::" in s),
    ("metric names", lambda s, leaf: "metrics::Matcher" in s),
    ("folder contexts (env files, serve scripts)", lambda s, leaf: "folder::build" in s),
    ("env lines, image pins, inline code", lambda s, leaf: "scanners::env::" in s or "inline_code" in s),
    ("line index and spans", lambda s, leaf: "span::LineIndex" in s),
    ("the rest of the Markdown scan", lambda s, leaf: "markdown::scan" in s),
    ("walking folders", lambda s, leaf: "walk::walk_each" in s and "Linter::" not in s),
    ("sorting and rendering the report", lambda s, leaf: "report::" in s or "Linter::finish" in s),
    ("allocator (unattributed)", lambda s, leaf: any(x in leaf for x in ("malloc", "free", "consolidate", "unlink_chunk", "tcache"))),
]


def stacks(lines):
    cur = None
    for line in lines:
        if not line.strip():
            if cur:
                yield cur
            cur = None
        elif not line[0].isspace():
            cur = [] if line.startswith("knobs") else None
        elif cur is not None:
            parts = line.strip().split(" ", 1)
            frame = re.sub(r"\+0x[0-9a-f]+.*$", "", parts[-1]).strip()
            cur.append(re.sub(r"\s*\(.*\)$", "", frame))
    if cur:
        yield cur


counts = collections.Counter()
total = 0
for frames in stacks(sys.stdin):
    total += 1
    joined = " | ".join(frames)
    for name, test in BUCKETS:
        if test(joined, frames[0]):
            counts[name] += 1
            break
    else:
        counts["the rest (start-up, kernel, threads)"] += 1
print(f"{total} samples")
for name, n in counts.most_common():
    print(f"{n / total * 100:5.1f}%  {name}")
