#!/usr/bin/env bash
# Rebuilds catalog/llama.cpp/history.json, the llama.cpp history knobs
# embeds: every tag of a llama.cpp repository, facts only (names, spellings,
# kinds, members, defaults, env keys, scopes, metrics and their tag spans; no
# help text or other sentence of llama.cpp's), so that
# `knobs lint --engine llama.cpp` works offline with no sync.
#
# usage: scripts/embed-llama-cpp-history.sh LLAMA_CPP_GIT_DIR [REPO_URL]
#   LLAMA_CPP_GIT_DIR  a clone (bare is fine) with the tags, read in place
#   REPO_URL           what the history names as its repository
#                      (default: https://github.com/ngxson/llama.cpp, the
#                      mirror the embedded history was made from)
# The binary is the one cargo builds (scripts/target-dir.sh), or $KNOBS_BIN.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
src="${1:?usage: $0 LLAMA_CPP_GIT_DIR [REPO_URL]}"
url="${2:-https://github.com/ngxson/llama.cpp}"
if [ -z "${KNOBS_BIN:-}" ]; then
  (cd "$here" && cargo build --release --locked -q)
  KNOBS_BIN="$(bash "$here/scripts/target-dir.sh")/release/knobs"
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$KNOBS_BIN" sync --engine llama.cpp --repo "$(cd "$src" && pwd)" --all-tags --facts-only --out "$out" 2>/dev/null
python3 - "$out/llama.cpp/history.json" "$here/catalog/llama.cpp/history.json" "$url" <<'PY'
import json, sys
src, dest, url = sys.argv[1:4]
with open(src, encoding="utf-8") as f:
    h = json.load(f)
assert h["facts_only"], "a history with help texts must not be embedded"
assert all(not fl.get("help") for fl in h["flags"]), "a help text is left"
h["repo"] = url
with open(dest, "w", encoding="utf-8") as f:
    json.dump(h, f, ensure_ascii=False, separators=(",", ":"))
print(f"{dest}: {len(h['tags'])} tags ({h['tags'][0]['tag']} … {h['tags'][-1]['tag']}), "
      f"{len(h['states'])} states, {len(h['flags'])} flag records, from {url}")
PY
# The embedding macro does not see a file under catalog/ change: make the
# next build embed the new one.
touch "$here/src/embedded.rs"
