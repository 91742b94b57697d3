#!/usr/bin/env python3
"""Scores knobs on the real-world corpus (fixtures/real-world): how many of the
real defects written down by hand in expected.toml it finds, and how many of
its findings match no real defect (false alarms), per engine and per class of
mistake. A measurement, not a test: it exits 0 whatever the figures are, and 2
only when it cannot measure (no knobs binary, a broken expected.toml, output
that is not JSON).

    scripts/real-world.py KNOBS [--catalog-dir DIR] [--corpus DIR] [--json OUT]

KNOBS is the binary to measure. --catalog-dir is a folder holding a synced
llama.cpp catalogue for the tag fixtures/real-world/llama.cpp/knobs.toml pins
(scripts/real-world.sh makes one from a local llama.cpp clone); without it the
llama.cpp half is not scored and the report says so. No network is used.

Matching: a finding matches a defect of the same file when its line is the
defect's line (or one of its `also` lines) and its code is one of the
defect's `codes`; among several such defects the one whose `word` is nearest
the finding's column wins. A defect is found when at least one finding
matches it. Every other error or warning is a false alarm; one at a defect's
line but with a code the defect does not list is a false alarm too, and is
marked as such (right place, wrong rule).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tomllib
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(message):
    print(f"real-world.py: {message}", file=sys.stderr)
    sys.exit(2)


def load_expected(corpus):
    path = os.path.join(corpus, "expected.toml")
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        fail(f"cannot read {path}: {e}")
    files = data.get("files", {})
    defects = data.get("defect", [])
    for i, d in enumerate(defects):
        for key in ("file", "line", "word", "class", "codes"):
            if key not in d:
                fail(f"{path}: defect #{i + 1} has no `{key}`")
        if d["file"] not in files:
            fail(f"{path}: defect #{i + 1} names {d['file']}, which [files] does not list")
        d["id"] = i
        d["column"] = word_column(corpus, d)
    return files, defects


def word_column(corpus, d):
    """1-based column of the defect's word on its line (0 if absent)."""
    try:
        with open(os.path.join(corpus, d["file"]), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError:
        return 0
    if not 1 <= d["line"] <= len(lines):
        return 0
    # The word as a whole word: `-i` is not the `-i` inside `qwen-7b-instruct`.
    m = re.search(r"(?<![\w-])" + re.escape(d["word"]) + r"(?![\w-])", lines[d["line"] - 1])
    if m is None:
        return lines[d["line"] - 1].find(d["word"]) + 1
    return m.start() + 1


def pinned_tag(half_dir):
    path = os.path.join(half_dir, "knobs.toml")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return tomllib.load(f).get("pin", {})


def lint(knobs, half_dir, catalog_dir):
    args = [knobs, "lint", os.path.relpath(half_dir, ROOT), "--format", "json", "--color", "never", "-v"]
    if catalog_dir:
        args += ["--catalog-dir", catalog_dir]
    try:
        r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    except OSError as e:
        fail(f"cannot run {knobs}: {e}")
    try:
        out = json.loads(r.stdout)
    except json.JSONDecodeError:
        fail(f"`{' '.join(args)}` exited {r.returncode} without JSON:\n{r.stderr.strip()}")
    return out, r.returncode, r.stderr.strip(), args


def score_half(findings, defects, corpus):
    """Match findings to defects; return (matched ids, false alarms, notes)."""
    found = defaultdict(list)
    false = []
    notes = []
    for f in findings:
        rel = os.path.relpath(os.path.join(ROOT, f["path"]), corpus)
        f["file"] = rel
        if f.get("severity") not in ("error", "warning"):
            notes.append(f)
            continue
        here = [d for d in defects if d["file"] == rel and (f["line"] == d["line"] or f["line"] in d.get("also", []))]
        fits = [d for d in here if f["code"] in d["codes"]]
        if fits:
            fits.sort(key=lambda d: (d["id"] in found, abs(f.get("column", 0) - d["column"]) if f["line"] == d["line"] else 10**6))
            found[fits[0]["id"]].append(f)
        else:
            f["at_defect"] = bool(here)
            false.append(f)
    return found, false, notes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("knobs")
    p.add_argument("--catalog-dir", default="")
    p.add_argument("--corpus", default=os.path.join(ROOT, "fixtures", "real-world"))
    p.add_argument("--json", dest="json_out", default="")
    a = p.parse_args()
    if not os.access(a.knobs, os.X_OK):
        fail(f"{a.knobs} is not an executable")
    corpus = os.path.abspath(a.corpus)
    catalog_dir = os.path.abspath(a.catalog_dir) if a.catalog_dir else ""
    files, defects = load_expected(corpus)

    halves = sorted({f.split("/", 1)[0] for f in files})
    report = {"halves": {}, "found": [], "missed": [], "false": [], "notes": [], "not_scored": {}}
    for half in halves:
        half_dir = os.path.join(corpus, half)
        half_files = [f for f in files if f.startswith(half + "/")]
        half_defects = [d for d in defects if d["file"].startswith(half + "/")]
        pin = pinned_tag(half_dir) or {}
        if pin.get("engine") and pin.get("engine") != "radiance" and pin.get("tag"):
            want = os.path.join(catalog_dir, pin["engine"], pin["tag"] + ".toml") if catalog_dir else ""
            if not want or not os.path.exists(want):
                report["not_scored"][half] = (
                    f"no {pin['engine']} {pin['tag']} catalogue (give --catalog-dir, or run scripts/real-world.sh)"
                )
                continue
        elif pin.get("engine") and pin.get("engine") != "radiance":
            # Each file pins its own build: the half needs the engine's
            # synced catalogues, not only the hand-written fixtures.
            synced = os.path.join(catalog_dir, pin["engine"]) if catalog_dir else ""
            if not synced or not os.path.isdir(synced) or not any(n.endswith(".toml") for n in os.listdir(synced)):
                report["not_scored"][half] = (
                    f"no synced {pin['engine']} catalogues (run scripts/real-world.sh --vllm VLLM_GIT_DIR)"
                )
                continue
        out, code, stderr, args = lint(a.knobs, half_dir, catalog_dir)
        findings = out.get("findings", [])
        found, false, notes = score_half(findings, half_defects, corpus)
        summary = out.get("summary", {})
        # `-v` names each file passed over: a corpus file knobs does not read
        # at all is a miss of a whole shape, listed apart.
        passed = []
        for l in stderr.splitlines():
            if l.startswith("note: skipped "):
                path, _, why = l[len("note: skipped "):].partition(": ")
                rel = os.path.relpath(os.path.join(ROOT, path), corpus)
                if rel in files:
                    passed.append((rel, why))
        stderr = "\n".join(l for l in stderr.splitlines() if not l.startswith("note: "))
        report["halves"][half] = {
            "command": " ".join(args),
            "exit": code,
            "stderr": stderr,
            "files": len(half_files),
            "linted": summary.get("files"),
            "passed_over": passed,
            "real": len(half_defects),
            "found": len(found),
            "false_errors": sum(1 for f in false if f["severity"] == "error"),
            "false_warnings": sum(1 for f in false if f["severity"] == "warning"),
            "findings": len(findings),
        }
        for d in half_defects:
            (report["found"] if d["id"] in found else report["missed"]).append(d)
        report["false"] += false
        report["notes"] += notes

    if a.json_out:
        with open(a.json_out, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, default=str)
    try:
        print_report(report)
        sys.stdout.flush()
    except BrokenPipeError:
        # `| head` is not a failure of the measurement.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def pct(n, d):
    return f"{100 * n / d:.0f} %" if d else "—"


def print_report(r):
    print("# knobs on the real-world corpus\n")
    for half, why in r["not_scored"].items():
        print(f"NOT SCORED: {half}: {why}")
    tot = defaultdict(int)
    print("| half | files | linted | real | found | recall | false errors | false warnings | false / files | exit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for half, h in r["halves"].items():
        fa = h["false_errors"] + h["false_warnings"]
        print(
            f"| {half} | {h['files']} | {h['linted']} | {h['real']} | {h['found']} | {pct(h['found'], h['real'])} "
            f"| {h['false_errors']} | {h['false_warnings']} | {fa} / {h['files']} | {h['exit']} |"
        )
        for k in ("files", "real", "found", "false_errors", "false_warnings"):
            tot[k] += h[k]
    fa = tot["false_errors"] + tot["false_warnings"]
    print(
        f"| **all** | {tot['files']} | | {tot['real']} | {tot['found']} | **{pct(tot['found'], tot['real'])}** "
        f"| {tot['false_errors']} | {tot['false_warnings']} | **{fa} / {tot['files']}** | |"
    )
    print(f"\nfound / real: {tot['found']} / {tot['real']}; false / files: {fa} / {tot['files']}")
    for half, h in r["halves"].items():
        print(f"\n`{h['command']}` (exit {h['exit']}, {h['findings']} findings)")
        if h["stderr"]:
            print("  stderr: " + h["stderr"].replace("\n", "\n          "))
        for rel, why in h["passed_over"]:
            print(f"  passed over: {rel}: {why}")
        unseen = h["files"] - (h["linted"] or 0) - len(h["passed_over"])
        if unseen > 0:
            print(f"  neither read nor named as passed over (a hidden folder, an exclusion): {unseen}")

    print("\n## per class\n")
    print("| class | real | found | missed |")
    print("|---|---|---|---|")
    classes = defaultdict(lambda: [0, 0])
    for d in r["found"]:
        classes[d["class"]][0] += 1
    for d in r["missed"]:
        classes[d["class"]][1] += 1
    for c, (f, m) in sorted(classes.items(), key=lambda kv: (-kv[1][1], kv[0])):
        print(f"| {c} | {f + m} | {f} | {m} |")

    print(f"\n## missed ({len(r['missed'])})\n")
    for d in sorted(r["missed"], key=lambda d: (d["file"], d["line"])):
        print(f"- {d['file']}:{d['line']} `{d['word']}` {d['class']} ({'/'.join(d['codes'])}): {d['why']}")
    print(f"\n## false alarms ({len(r['false'])})\n")
    for f in sorted(r["false"], key=lambda f: (f["file"], f["line"], f.get("column", 0))):
        mark = " [at a real defect's line, another rule]" if f.get("at_defect") else ""
        print(f"- {f['file']}:{f['line']}:{f.get('column', 0)} {f['code']} {f['severity']}{mark}: {f['message']}")
    if r["notes"]:
        print(f"\n## notes, not counted ({len(r['notes'])})\n")
        for f in r["notes"]:
            print(f"- {f['file']}:{f['line']} {f.get('code', '')} {f.get('severity')}: {f.get('message')}")


if __name__ == "__main__":
    sys.exit(main())
