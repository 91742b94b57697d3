#!/usr/bin/env bash
# Proof of the Python extractor on vLLM's real tags: syncs each tag from a
# local vLLM repository (read in place), reads the same tag independently
# with scripts/vllm_check.py (Python's ast over `git cat-file`, no knobs
# code), prints both readings' counts and every difference (options per
# binary, kinds, nargs, members, the image's entrypoint), then `knobs
# catalog diff` between consecutive tags with the removals the issue lists.
#
#   scripts/vllm.sh VLLM_GIT_DIR [TAGS…]
#
# With no tags, 26 spread over every era of the option declarations and the
# image (docs/history.md, "vLLM's eras and the pins"); at the end a table of
# the checker's figures per tag.
#
# Everything is written under a scratch folder ($KNOBS_VLLM_SCRATCH, else a
# temporary one), never into the repository: the catalogues and the source
# are vLLM's, not ours to commit.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${1:?usage: scripts/vllm.sh VLLM_GIT_DIR [TAGS…]}"
shift
tags=("$@")
[ ${#tags[@]} -gt 0 ] || tags=(v0.1.0 v0.2.7 v0.3.3 v0.4.0 v0.4.3 v0.5.0 v0.5.5 v0.6.0 v0.6.6 v0.7.3 v0.8.3 v0.8.4
    v0.8.5 v0.9.1 v0.9.2 v0.10.0 v0.10.2 v0.11.0 v0.11.1rc0 v0.11.1rc1 v0.12.0 v0.13.0 v0.15.0 v0.17.0 v0.18.0 v0.20.1)
knobs="${KNOBS:-$(bash "$here/scripts/target-dir.sh")/debug/knobs}"
scratch="${KNOBS_VLLM_SCRATCH:-$(mktemp -d)}"
mkdir -p "$scratch"
repo="$(cd "$repo" && pwd)"
cd "$scratch"
status=0
for tag in "${tags[@]}"; do
    echo "== $tag"
    "$knobs" sync --engine vllm --repo "$repo" --tag "$tag" --out out 2> "sync-$tag.log" || { cat "sync-$tag.log"; exit 2; }
    tail -n 1 "sync-$tag.log"
    echo "   ($(($(wc -l < "sync-$tag.log") - 1)) warnings in $scratch/sync-$tag.log)"
    python3 "$here/scripts/vllm_check.py" "$repo" "$tag" "out/vllm/$tag.toml" "$here/profiles/vllm.toml" \
        > "check-$tag.log" || status=1
    grep -v '^FIGURES' "check-$tag.log"
done
echo "== figures (options compared, missing from knobs, only in knobs, kinds, nargs, member lists, the image's entrypoint)"
echo "| tag | compared | missing | extra | kind differs | nargs differs | members differ | entrypoint |"
echo "|---|---|---|---|---|---|---|---|"
for tag in "${tags[@]}"; do
    sed -n 's/^FIGURES tag=\([^ ]*\) compared=\([0-9]*\) missing=\([0-9]*\) extra=\([0-9]*\) kinds=\([0-9]*\) nargs=\([0-9]*\) members=\([0-9]*\) entrypoint=\(.*\)$/| \1 | \2 | \3 | \4 | \5 | \6 | \7 | \8 |/p' "check-$tag.log"
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
