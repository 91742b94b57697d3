#!/usr/bin/env python3
"""Linting with a whole history loaded, against linting without one, in one run.

    benches/history_lint.py --knobs BIN [--baseline OLD_BIN] [--files N] [--runs R]
                            [--vault DIR] [--tags T] [--states S]

Cases, each timed as whole processes in alternating runs after one warm-up
of each, reporting medians (wall) and peak memory (GNU time):

  vault    `knobs lint VAULT --format json` on a vault from benches/vault.py
           (radiance runbooks, env files and serve scripts; N files, default
           6000): with no history, and with a radiance history of T tags
           (default 2,365) over S distinct states (default 780: llama.cpp's
           figures) in `--catalog-dir`; with --baseline, the older binary
           with no history too (what "today" was)
  llama    one llama.cpp runbook linted with the history embedded in knobs
           (every tag, facts only) against the same runbook judged by one
           synced catalogue (the embedded history then set aside unparsed)

The synthetic radiance history is written by this script: the embedded
v1.0.13 and v1.8.1 catalogues, each state a copy of one of them with one
default changed (so that every state holds records of its own), the tags
older than v1.0.13, so the vault is still judged by v1.8.1 and finds the
same things. Nothing is asserted; docs/performance.md holds the targets.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, cwd=None):
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, p.returncode


def peak(cmd, cwd=None):
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(p.stderr.strip().splitlines()[-1])


def alternate(cmds, runs, cwd=None):
    """Medians of alternating runs of each command, and their peaks (KiB)."""
    for c in cmds:
        run(c, cwd)
    times = [[] for _ in cmds]
    for _ in range(runs):
        for i, c in enumerate(cmds):
            times[i].append(run(c, cwd)[0])
    return [statistics.median(t) for t in times], [peak(c, cwd) for c in cmds]


def record(flag, path_line):
    """A catalogue flag as a history record: location without its line."""
    f = dict(flag)
    loc = f.get("location", "")
    path, _, line = loc.rpartition(":")
    f["location"] = path if line.isdigit() else loc
    mf = f.get("members_from")
    if mf:
        mf = dict(mf)
        p, _, l = mf["location"].rpartition(":")
        mf["location"] = p if l.isdigit() else mf["location"]
        f["members_from"] = mf
    return f, (int(line) if line.isdigit() else 0), (int(l) if mf and l.isdigit() else 0)


def synthetic_history(tags, states):
    cats = []
    for tag in ("v1.0.13", "v1.8.1"):
        with open(os.path.join(ROOT, "catalog", "radiance", f"{tag}.toml"), "rb") as f:
            cats.append(tomllib.load(f))
    flags, flag_ids, metrics, metric_ids, out_states = [], {}, [], {}, []

    def intern(table, ids, rec):
        key = json.dumps(rec, sort_keys=True)
        if key not in ids:
            ids[key] = len(table)
            table.append(rec)
        return ids[key]

    for s in range(states):
        cat = cats[s % 2]
        st = {"key": f"state-{s}", "flags": [], "metrics": []}
        for i, fl in enumerate(cat.get("flag", [])):
            rec, line, mline = record(fl, None)
            if i == 0:
                rec["default"] = str(s)  # a record of this state's own
            st["flags"].append([intern(flags, flag_ids, rec), line, mline])
        for m in cat.get("metric", []):
            rec = dict(m)
            path, _, line = rec["location"].rpartition(":")
            rec["location"] = path
            st["metrics"].append([intern(metrics, metric_ids, rec), int(line) if line.isdigit() else 0])
        # A state's tuples are one string of numbers (history schema 2).
        st["flags"] = ",".join(str(n) for t in st["flags"] for n in t)
        st["metrics"] = ",".join(str(n) for t in st["metrics"] for n in t)
        out_states.append(st)
    src = cats[1]["source"]
    return {
        "schema": 2, "engine": "radiance", "repo": src["repo"], "knobs_version": src["knobs_version"],
        "facts_only": False,
        "tags": [{"tag": f"v0.{t // 1000}.{t % 1000}", "commit": f"{t:040x}", "state": t % states}
                 for t in range(tags)],
        "states": out_states, "flags": flags, "metrics": metrics,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--knobs", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--files", type=int, default=6000)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--vault")
    ap.add_argument("--tags", type=int, default=2365)
    ap.add_argument("--states", type=int, default=780)
    a = ap.parse_args()
    knobs = os.path.abspath(a.knobs)
    work = tempfile.mkdtemp(prefix="knobs-history-lint-")
    try:
        vault = a.vault or os.path.join(work, "vault")
        if not a.vault:
            subprocess.run([sys.executable, os.path.join(ROOT, "benches", "vault.py"), str(a.files), vault],
                           check=True, stdout=subprocess.DEVNULL)
        hist_dir = os.path.join(work, "hist")
        os.makedirs(os.path.join(hist_dir, "radiance"))
        hist = synthetic_history(a.tags, a.states)
        path = os.path.join(hist_dir, "radiance", "history.json")
        with open(path, "w") as f:
            json.dump(hist, f, separators=(",", ":"))
        size = os.path.getsize(path)
        plain = [knobs, "lint", "--format", "json", "."]
        loaded = [knobs, "lint", "--format", "json", "--catalog-dir", hist_dir, "."]
        same = subprocess.run(plain, cwd=vault, capture_output=True).stdout == \
            subprocess.run(loaded, cwd=vault, capture_output=True).stdout
        cmds = [plain, loaded]
        if a.baseline:
            cmds.append([os.path.abspath(a.baseline), "lint", "--format", "json", "."])
        t, m = alternate(cmds, a.runs, cwd=vault)
        print(f"vault, {a.files} files; history of {a.tags} tags, {a.states} states, {size / 1e6:.2f} MB "
              f"(findings identical: {same})")
        print(f"  no history        {t[0] * 1000:7.1f} ms  {m[0] / 1024:6.1f} MiB")
        print(f"  history loaded    {t[1] * 1000:7.1f} ms  {m[1] / 1024:6.1f} MiB  ratio {t[1] / t[0]:.3f}")
        if a.baseline:
            print(f"  baseline binary   {t[2] * 1000:7.1f} ms  {m[2] / 1024:6.1f} MiB  "
                  f"history loaded / baseline {t[1] / t[2]:.3f}")
        # llama.cpp: the embedded history against one synced catalogue.
        llama = os.path.join(work, "llama")
        cat = os.path.join(llama, "cat", "llama.cpp")
        os.makedirs(cat)
        with open(os.path.join(llama, "run.md"), "w") as f:
            f.write("# serve\n\n```sh\nllama-server -m m.gguf -fa on --port 8080 -c 4096 --log-format json\n```\n")
        subprocess.run([knobs, "catalog", "show", "b10573", "--engine", "llama.cpp", "--format", "toml"],
                       check=True, stdout=open(os.path.join(cat, "b10573.toml"), "w"))
        # Another repository's name, so the embedded history is set aside.
        text = open(os.path.join(cat, "b10573.toml")).read()
        text = text.replace('repo = "https://github.com/ngxson/llama.cpp"', 'repo = "synced-elsewhere"')
        open(os.path.join(cat, "b10573.toml"), "w").write(text)
        embedded = [knobs, "lint", "--engine", "llama.cpp", "--format", "json", "run.md"]
        single = [knobs, "lint", "--engine", "llama.cpp", "--catalog-dir", "cat", "--format", "json", "run.md"]
        t, m = alternate([single, embedded], a.runs, cwd=llama)
        print("llama.cpp, one runbook")
        print(f"  one catalogue     {t[0] * 1000:7.1f} ms  {m[0] / 1024:6.1f} MiB")
        print(f"  embedded history  {t[1] * 1000:7.1f} ms  {m[1] / 1024:6.1f} MiB  ratio {t[1] / t[0]:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
