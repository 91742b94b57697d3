#!/usr/bin/env bash
# Proof of the Python extractor on vLLM's real tags: syncs each tag from a
# local vLLM repository (read in place), reads the same tag independently
# with scripts/vllm_check.py (Python's ast, no knobs code), prints both
# readings' counts and every difference, then `knobs catalog diff` between
# consecutive tags with the removals the issue lists.
#
#   scripts/vllm.sh VLLM_GIT_DIR [TAGS…]
#
# Everything is written under a scratch folder ($KNOBS_VLLM_SCRATCH, else a
# temporary one), never into the repository: the catalogues and the source
# are vLLM's, not ours to commit.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${1:?usage: scripts/vllm.sh VLLM_GIT_DIR [TAGS…]}"
shift
tags=("$@")
[ ${#tags[@]} -gt 0 ] || tags=(v0.6.0 v0.8.3 v0.10.0 v0.15.0 v0.20.1)
knobs="${KNOBS:-$(bash "$here/scripts/target-dir.sh")/debug/knobs}"
scratch="${KNOBS_VLLM_SCRATCH:-$(mktemp -d)}"
mkdir -p "$scratch/src"
repo="$(cd "$repo" && pwd)"
cd "$scratch"
status=0
for tag in "${tags[@]}"; do
    echo "== $tag"
    "$knobs" sync --engine vllm --repo "$repo" --tag "$tag" --out out 2> "sync-$tag.log" || { cat "sync-$tag.log"; exit 2; }
    tail -n 1 "sync-$tag.log"
    echo "   ($(($(wc -l < "sync-$tag.log") - 1)) warnings in $scratch/sync-$tag.log)"
    rm -rf "src/$tag" && mkdir -p "src/$tag"
    git -C "$repo" archive --prefix=vllm/ "$tag:vllm" | tar -x -C "src/$tag"
    python3 "$here/scripts/vllm_check.py" "src/$tag" "out/vllm/$tag.toml" || status=1
    rm -rf "src/$tag"
done
prev=""
for tag in "${tags[@]}"; do
    if [ -n "$prev" ]; then
        echo "== catalog diff $prev $tag (removed flags, removed env keys)"
        "$knobs" catalog diff "$prev" "$tag" --engine vllm --catalog-dir out --format json > "diff-$prev-$tag.json"
        python3 - "diff-$prev-$tag.json" "out/vllm/$prev.toml" "out/vllm/$tag.toml" <<'PY'
import json, sys, tomllib
d = json.load(open(sys.argv[1]))
print("  flags removed:", " ".join(d.get("flags_removed", [])) or "none")
for c in d.get("flags_changed", []):
    if c.get("members_removed"):
        print(f"  {c['flag']}: members removed {' '.join(c['members_removed'])}")
old = {k["name"] for k in tomllib.load(open(sys.argv[2], "rb")).get("env_key", [])}
new = {k["name"] for k in tomllib.load(open(sys.argv[3], "rb")).get("env_key", [])}
print("  env keys removed:", " ".join(sorted(old - new)) or "none")
PY
    fi
    prev="$tag"
done
# The stale lines the issue lists, in a runbook and an env file pinned to
# the newest tag synced: each flag or key one of the earlier tags had and
# the newest lacks is KNB007 (with every synced tag beside it).
newest="${tags[${#tags[@]}-1]}"
rm -rf stale && mkdir -p stale/svc && cp -a out stale/catalog
printf '[pin]\nengine = "vllm"\ntag = "%s"\n\n[catalog]\ndir = "catalog"\n' "$newest" > stale/knobs.toml
cat > stale/svc/serve.md <<'MD'
# serve

```sh
vllm serve m --use-v2-block-manager --device cuda --swap-space 4 --disable-log-requests --task generate --speculative-model d
```
MD
printf 'VLLM_ATTENTION_BACKEND=FLASH_ATTN\n' > stale/svc/vllm.env
echo "== stale lines judged by $newest"
(cd stale && git init -q . && "$knobs" lint --format short svc) || true
echo "scratch: $scratch"
exit $status
