#!/usr/bin/env bash
# Reproduces the whisper.cpp figure in README.md: knobs sync on a real parse
# loop it was not written against, checked against an independent reading of
# the same source.
#
#   scripts/whisper-cpp.sh WHISPER_GIT_DIR [TAG]     (TAG defaults to v1.9.3)
#
# WHISPER_GIT_DIR is any local clone of https://github.com/ggml-org/whisper.cpp
# (bare or not). Nothing of it is copied into this repository. The oracle is
# a few lines of Python that read examples/cli/cli.cpp's `arg == "..."`
# comparisons and each branch body (std::stoi → int, std::stof → float, a
# constant assigned → switch, anything else → string); knobs' extractor shares
# no code with it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${1:?usage: scripts/whisper-cpp.sh WHISPER_GIT_DIR [TAG]}
tag=${2:-v1.9.3}
repo=$(cd "$repo" && pwd)
cargo build --release --locked -q
knobs=$(bash scripts/target-dir.sh)/release/knobs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/knobs.toml" <<TOML
[pin]
engine = "whisper"
[extract]
config = "examples/cli/cli.cpp"
headers = []
TOML
git -C "$repo" show "$tag:examples/cli/cli.cpp" >"$work/cli.cpp"
(cd "$work" && KNOBS_CACHE_DIR="$work/cache" "$knobs" sync --repo "$repo" --tag "$tag" --out out)
python3 - "$work/cli.cpp" "$work/out/whisper/$tag.toml" <<'PY'
import re, sys, tomllib
src = open(sys.argv[1], encoding="utf-8").read()
cat = tomllib.load(open(sys.argv[2], "rb"))
# Independent reading: each `if`/`else if` line comparing arg to literals.
flags = {}
for line in src.splitlines():
    names = re.findall(r'arg\s*==\s*"(-[^"]+)"', line)
    if not names or names == ["-"]:
        continue
    body = line.split("{", 1)[1] if "{" in line else ""
    if re.search(r"std::sto(i|l|ll|ul)\b", body):
        kind = "int"
    elif re.search(r"std::sto(f|d)\b", body):
        kind = "float"
    elif re.search(r"=\s*(true|false)\s*;", body) or not body.strip() or "ARGV_NEXT" not in body:
        kind = "switch"
    else:
        kind = "string"
    flags[tuple(names)] = kind
source_spellings = {n for names in flags for n in names}
got_spellings = set()
got_kind = {}
for f in cat.get("flag", []):
    for n in [f["name"], *f.get("aliases", [])]:
        got_spellings.add(n)
        got_kind[n] = f["kind"]
missing = sorted(source_spellings - got_spellings)
extra = sorted(got_spellings - source_spellings)
kinds_ok = 0
kinds_bad = []
for names, kind in flags.items():
    k = next((got_kind[n] for n in names if n in got_kind), None)
    # an enum or auto-or-int is a string the source reads; count it as agreeing
    if k == kind or (kind == "string" and k in ("enum", "auto-or-int")):
        kinds_ok += 1
    else:
        kinds_bad.append(f"{'/'.join(names)}: source reads {kind}, catalogue says {k}")
print(f"source: {len(flags)} flags, {len(source_spellings)} spellings compared in examples/cli/cli.cpp")
print(f"knobs:  {len(cat.get('flag', []))} flags, {len(got_spellings)} spellings")
print(f"found {len(source_spellings) - len(missing)} of {len(source_spellings)} spellings; missing: {missing or 'none'}; extra: {extra or 'none'}")
print(f"kinds agreeing with the branch bodies: {kinds_ok} of {len(flags)}")
for b in kinds_bad:
    print("  " + b)
sys.exit(0 if not missing and not extra and not kinds_bad else 1)
PY
