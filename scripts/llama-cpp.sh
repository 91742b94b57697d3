#!/usr/bin/env bash
# Reproduces docs/llama-cpp.md: knobs on the real llama.cpp source, checked
# against independent readings of the same tree, then knobs lint on the
# repository's own Markdown and shell at the last tag.
#
#   scripts/llama-cpp.sh LLAMA_GIT_DIR [TAG[,TAG...]] [OUT_DIR]
#
# LLAMA_GIT_DIR: any local clone of llama.cpp (bare or not, with release
# tags; a size-limited one is fine: it is read in place). TAG defaults to
# b10573; several, comma-separated (`b2002,b3183,b3715,b10573`), are each
# synced and checked, old eras included (docs/llama-cpp.md, "Eras"). OUT_DIR
# (default: a temporary folder) receives the catalogues, the docs tree and
# findings.txt. KNOBS_BIN=path runs that binary instead of building a
# release one. Nothing of llama.cpp is written into this repository.
#
# The oracles are a few lines of Python sharing no code with knobs, and
# knowing nothing of the profile's eras: a tag with common/arg.cpp is read
# by a regex over its `common_arg({names}, [{negated}], …)` lists (or
# `llama_arg(`, its first name), and the generated help in
# tools/server/README.md (between HELP_START and HELP_END); an older tag by
# a grep of every `== "-…"` comparison in common/common.cpp and
# common/log.h, the `llama_arg({…})` lists there, and, where the server
# still had its own parser (`server_params_parse`), in
# examples/server/server.cpp; for its metrics, the `{"name", "x"}` rows of
# examples/server/server.cpp.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${1:?usage: scripts/llama-cpp.sh LLAMA_GIT_DIR [TAG[,TAG...]] [OUT_DIR]}
tags=${2:-b10573}
repo=$(cd "$repo" && pwd)
out=${3:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -n "${KNOBS_BIN:-}" ]; then
  knobs=$(cd "$(dirname "$KNOBS_BIN")" && pwd)/$(basename "$KNOBS_BIN")
else
  cargo build --release --locked -q
  knobs=$(bash scripts/target-dir.sh)/release/knobs
fi
: >"$out/summary.txt"

check_tag() {
tag=$1
echo "== sync $tag"
(cd "$out" && KNOBS_CACHE_DIR="$out/cache" "$knobs" sync --engine llama.cpp --repo "$repo" --tag "$tag" --out catalog)
# `refs/tags/`: a tag such as b3715 is also a valid abbreviated commit id.
if ! git -C "$repo" cat-file -e "refs/tags/$tag:common/arg.cpp" 2>/dev/null; then
  check_old "$tag"
  return
fi
git -C "$repo" show "refs/tags/$tag:common/arg.cpp" >"$out/arg.cpp"
git -C "$repo" show "refs/tags/$tag:tools/server/README.md" >"$out/server-README.md" 2>/dev/null || : >"$out/server-README.md"

echo "== catalogue against the source"
python3 - "$out/arg.cpp" "$out/catalog/llama.cpp/$tag.toml" "$out/server-README.md" "$tag" "$out/summary.txt" <<'PY'
import re, sys, tomllib
src = open(sys.argv[1], encoding="utf-8").read()
cat = tomllib.load(open(sys.argv[2], "rb"))
readme = open(sys.argv[3], encoding="utf-8").read()
# Independent reading: the string lists right after `common_arg(`.
decls = re.findall(r'(?:common_arg|llama_arg)\(\s*(?://[^\n]*\n\s*)*(\{[^{}]*\})(?:\s*,\s*(\{[^{}]*\}))?', src)
spell = set()
for names, neg in decls:
    for lst in (names, neg):
        spell.update(s for s in re.findall(r'"([^"]*)"', lst) if s.startswith("-"))
flags = cat.get("flag", [])
got = set()
for f in flags:
    got.update([f["name"], *f.get("aliases", []), *f.get("negated", [])])
print(f"source: {len(decls)} common_arg declarations, {len(spell)} spellings; knobs: {len(flags)} options, {len(got)} spellings")
print(f"spellings found: {len(spell & got)} of {len(spell)} ({100 * len(spell & got) / max(len(spell), 1):.1f}%); "
      f"missing: {sorted(spell - got) or 'none'}; not in the source: {sorted(got - spell) or 'none'}")
with open(sys.argv[5], "a") as summary:
    print(f"{sys.argv[4]}\tcommon/arg.cpp\t{len(spell)}\t{len(spell & got)}\t{len(spell - got)}\t{len(got - spell)}", file=summary)
enums = [f for f in flags if f.get("members")]
print(f"member sets: {len(enums)} ({sum(1 for f in enums if f['members_from']['closed'])} closed)")
for f in enums:
    m = f["members_from"]
    print(f"  {f['name']:<22} {m['origin']:<22} {m['location']:<28} {', '.join(f['members'])}")
print(f"removed: {', '.join(f['name'] for f in flags if f.get('removed')) or 'none'}")
print(f"env keys: {sum(len(f.get('env', [])) for f in flags)}; scoped options: {sum(1 for f in flags if f.get('scopes'))}; "
      f"defaults: {sum(1 for f in flags if f.get('default'))}; help with a raw %: {sum(1 for f in flags if '%' in f.get('help', ''))}")
print(f"metrics: {len(cat.get('metric', []))}: {', '.join(m['name'] + ' (' + m['type'] + ')' for m in cat.get('metric', []))}")
# The server README's generated help against the options knobs says the
# server accepts (scoped to SERVER, or COMMON/unscoped, and not excluded).
m = re.search(r"HELP_START(.*?)HELP_END", readme, re.S)
if m:
    rows = [l for l in m.group(1).splitlines() if l.startswith("|")]
    doc = set()
    for row in rows:
        # `-c, --ctx-size N`: the first word of each comma-separated part.
        cell = row.split("|")[1].strip().strip("`")
        for part in cell.split(","):
            words = part.split()
            if words and words[0].startswith("-") and words[0].strip("-"):
                doc.add(words[0])
    server = set()
    for f in flags:
        scopes = f.get("scopes") or ["LLAMA_EXAMPLE_COMMON"]
        if ("LLAMA_EXAMPLE_SERVER" in scopes or "LLAMA_EXAMPLE_COMMON" in scopes) and "LLAMA_EXAMPLE_SERVER" not in f.get("excludes", []):
            server.update([f["name"], *f.get("aliases", []), *f.get("negated", [])])
    print(f"server README help: {len(doc)} spellings; knobs' server set: {len(server)}; "
          f"in the README only: {sorted(doc - server) or 'none'}; in knobs only: {sorted(server - doc) or 'none'}")
PY

}

# A tag before common/arg.cpp: its options are compared in parse chains.
check_old() {
tag=$1
echo "== catalogue against the source (no common/arg.cpp at $tag)"
python3 - "$repo" "$tag" "$out/catalog/llama.cpp/$tag.toml" "$out/summary.txt" <<'PY'
import re, subprocess, sys, tomllib
repo, tag, catalog, summary = sys.argv[1:5]
def show(path):
    r = subprocess.run(["git", "-C", repo, "show", f"refs/tags/{tag}:{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""
server = show("examples/server/server.cpp")
files = ["common/common.cpp", "common/log.h"] + (["examples/server/server.cpp"] if "server_params_parse" in server else [])
spell, everywhere = set(), set()
for path in files:
    src = re.sub(r"//[^\n]*", "", show(path))
    # Every comparison with a dash literal: `arg == "-s"`, `param == "--log-new"`.
    spell.update(re.findall(r'==\s*"(-[A-Za-z-][^"]*)"', src))
    # The llama_arg({...}) table of the last common.cpp builds.
    for names in re.findall(r"llama_arg\(\s*(\{[^{}]*\})", src):
        spell.update(s for s in re.findall(r'"([^"]*)"', names) if s.startswith("-"))
    # Any dash word in any string, for telling usage-only spellings apart.
    for lit in re.findall(r'"((?:[^"\\\n]|\\.)*)"', src):
        everywhere.update(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", lit))
cat = tomllib.load(open(catalog, "rb"))
flags = cat.get("flag", [])
got = set()
for f in flags:
    got.update([f["name"], *f.get("aliases", []), *f.get("negated", [])])
extra = got - spell
print(f"files: {', '.join(files)}")
print(f"source: {len(spell)} spellings compared; knobs: {len(flags)} options, {len(got)} spellings")
print(f"spellings found: {len(spell & got)} of {len(spell)} ({100 * len(spell & got) / max(len(spell), 1):.1f}%); "
      f"missing: {sorted(spell - got) or 'none'}")
print(f"named by a usage text but compared nowhere: {sorted(extra & everywhere) or 'none'}; "
      f"nowhere in the source: {sorted(extra - everywhere) or 'none'}")
# Metrics: the server's `{"name", "x"}` rows, printed behind `llamacpp:`.
metric_src = re.sub(r"//[^\n]*", "", server)
rows = {"llamacpp:" + n for n in re.findall(r'\{\s*"name"\s*,\s*"([a-z_0-9]+)"\s*\}', metric_src)} if "llamacpp:" in metric_src else set()
known = {m["name"] for m in cat.get("metric", [])}
print(f"metrics: {len(rows)} `{{\"name\", …}}` rows in examples/server/server.cpp; knobs: {len(known)}; "
      f"missing: {sorted(rows - known) or 'none'}; not in the source: {sorted(known - rows) or 'none'}")
with open(summary, "a") as s:
    print(f"{tag}\t{', '.join(files)}\t{len(spell)}\t{len(spell & got)}\t{len(spell - got)}\t{len(extra)}", file=s)
PY
}

IFS=, read -r -a tag_list <<<"$tags"
for t in "${tag_list[@]}"; do
  check_tag "$t"
done
tag=${tag_list[${#tag_list[@]}-1]}
if [ "${#tag_list[@]}" -gt 1 ]; then
  echo "== per tag (tag, files the oracle read, spellings in the source, found, missing, knobs only)"
  column -t -s $'\t' "$out/summary.txt"
fi

echo "== lint the repository's Markdown and shell at $tag"
rm -rf "$out/tree" && mkdir -p "$out/tree"
# File by file, so a clone missing unrelated blobs (model files) is enough.
git -C "$repo" ls-tree -r --name-only "refs/tags/$tag" | grep -E '\.(md|sh)$' | grep -vE '^vendor/' | while IFS= read -r path; do
  mkdir -p "$out/tree/$(dirname "$path")"
  git -C "$repo" show "refs/tags/$tag:$path" >"$out/tree/$path" 2>/dev/null || rm -f "$out/tree/$path"
done
files=$(find "$out/tree" -type f | wc -l)
set +e
(cd "$out/tree" && "$knobs" lint . --engine llama.cpp --catalog-dir "$out/catalog" --version "$tag" --format short) >"$out/findings.txt"
code=$?
set -e
echo "$files files linted, exit $code; $(wc -l <"$out/findings.txt") findings in $out/findings.txt"
awk '{print $2}' "$out/findings.txt" | sort | uniq -c | sort -rn
