#!/usr/bin/env bash
# Measures knobs on the real-world corpus (fixtures/real-world, see
# docs/real-world.md): builds the debug binary and runs scripts/real-world.py.
#
#   scripts/real-world.sh [LLAMA_GIT_DIR] [--vllm VLLM_GIT_DIR] [--knobs BIN] [-- real-world.py options]
#
# The llama.cpp half is judged at the tag its knobs.toml pins. Its catalogue
# is not committed (nothing generated from llama.cpp is): it is written once
# into the target folder from the history knobs embeds (`knobs catalog show
# TAG --engine llama.cpp --format toml`), or synced from a local clone when
# one is given (LLAMA_GIT_DIR), then reused.
#
# The vLLM half is judged, file by file, at the tag each file's image pins
# (the newest for `:latest` and for files with no image). Its catalogues are
# synced from a local vLLM repository (--vllm, or VLLM_GIT_DIR; the tags
# below), once, into the same folder. Without them the vLLM half is not
# scored and the report says so (the hand-written fixture catalogues hold a
# few dozen options, too few for files written as real ones are).
#
# --knobs BIN measures another binary (an older build, for a "before"
# figure) with the same catalogues. No network is used. The script exits 0
# whatever the figures are.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${LLAMA_GIT_DIR:-}
vllm_repo=${VLLM_GIT_DIR:-}
knobs=""
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; break ;;
    --vllm) vllm_repo=$2; shift 2 ;;
    --knobs) knobs=$2; shift 2 ;;
    *) repo=$1; shift ;;
  esac
done
# The tags the vLLM half's images pin, and the newest (`:latest`, no image).
vllm_tags=(v0.6.3.post1 v0.6.6.post1 v0.8.5 v0.9.2 v0.10.0 v0.11.0 v0.15.0 v0.20.1)

cargo build --locked -q
target=$(bash scripts/target-dir.sh)
[ -n "$knobs" ] || knobs=$target/debug/knobs
built=$target/debug/knobs
tag=$(python3 -c 'import tomllib; print(tomllib.load(open("fixtures/real-world/llama.cpp/knobs.toml", "rb"))["pin"]["tag"])')
cat_dir=$target/real-world/catalog
mkdir -p "$cat_dir/llama.cpp"

if [ ! -f "$cat_dir/llama.cpp/$tag.toml" ]; then
  if [ -n "$repo" ]; then
    repo=$(cd "$repo" && pwd)
    (cd "$target/real-world" && KNOBS_CACHE_DIR="$target/real-world/cache" "$built" sync --engine llama.cpp --repo "$repo" --tag "$tag" --out catalog) >&2
  else
    "$built" catalog show "$tag" --engine llama.cpp --format toml > "$cat_dir/llama.cpp/$tag.toml.new"
    mv "$cat_dir/llama.cpp/$tag.toml.new" "$cat_dir/llama.cpp/$tag.toml"
  fi
fi
if [ -n "$vllm_repo" ]; then
  vllm_repo=$(cd "$vllm_repo" && pwd)
  for t in "${vllm_tags[@]}"; do
    [ -f "$cat_dir/vllm/$t.toml" ] && continue
    (cd "$target/real-world" && KNOBS_CACHE_DIR="$target/real-world/cache" "$built" sync --engine vllm --repo "$vllm_repo" --tag "$t" --out catalog 2>/dev/null) >&2 ||
      echo "real-world.sh: could not sync vLLM $t" >&2
  done
fi
exec python3 scripts/real-world.py "$knobs" --catalog-dir "$cat_dir" "$@"
